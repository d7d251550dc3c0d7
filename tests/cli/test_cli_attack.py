"""``graphanon attack``: the adversaries of graphanon.attacks from the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphanon.cli import EXIT_BAD_INPUT, EXIT_VIOLATED
from graphanon.datasets import load
from graphanon.readwrite.long_csv import write_long_csv
from tests.conftest import cli as run


@pytest.fixture(scope="module")
def cahd_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("attack")
    rel, link = d / "r.json", d / "r.link.json"
    # the paper's scan (grouping=order): the same groups on every run, so the numbers below are fixed
    res = run("anonymize", "nr_table1", "-a", "cahd", "--param", "l=2", "--param", "grouping=order", "-o", rel,
              "--link-out", link)
    assert res.exit_code == 0, res.output
    return rel, link


def test_table_with_link_and_known_labels(cahd_files):
    rel, link = cahd_files
    res = run("attack", "nr_table1", rel, "--link", link, "--known-labels", 6)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith(f"{rel} (nonreciprocal, cahd)")
    assert lines[1].split() == ["attack", "success", "baseline", "bound", "margin", "verdict"]
    rows = [r for r in (line.split() for line in lines[2:]) if len(r) > 2 and r[-2] in ("within", "ABOVE")]
    names = [r[0] for r in rows]
    assert names == ["row-linkage/position", "row-linkage/id", "m-item-linkage/m=2", "label-inference/candidates",
                     "label-inference/position", "label-inference/id", "label-ranking/best", "group-skips/heuristic",
                     "known-label-linkage"]
    # the known label pins every target's row among its group of two (bound 1/2, margin 1/2 on 6 targets);
    # without the items, a random row of the target's label is right half the time (2 rows per label)
    known = rows[names.index("known-label-linkage")]
    assert known[1:4] == ["1.0000", "0.5000", "0.5000"]
    # label inference beside the majority label's share
    doc = json.loads(run("attack", "nr_table1", rel, "--link", link, "--known-labels", 6, "--json").output)
    by_name = {a["attack"]: a for a in doc["releases"][0]["attacks"]}
    labels = load("nr_table1").labels
    top = max(list(labels).count(x) for x in set(labels)) / len(labels)
    assert by_name["label-inference/id"]["baseline"] == pytest.approx(top, abs=1e-6)
    assert by_name["label-inference/id"]["baseline_kind"] == "majority label"
    assert rows[names.index("label-inference/id")][2] == f"{top:.4f}"
    assert by_name["m-item-linkage/m=2"]["baseline"] == pytest.approx(1 / 6, abs=1e-6)
    assert all(len(line) <= 80 for line in lines)


def test_json_without_link_runs_what_needs_no_truth(cahd_files):
    rel, _ = cahd_files
    res = run("attack", "nr_table1", rel, rel, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert len(doc["releases"]) == 2 and doc["above_bound"] == 0
    first = doc["releases"][0]
    assert [a["attack"] for a in first["attacks"]] == ["m-item-linkage/m=2/expected", "label-inference/candidates",
                                                       "label-inference/position", "label-inference/id",
                                                       "label-ranking/best", "group-skips/heuristic"]
    ranking = first["attacks"][4]
    assert ranking["details"]["score"] in ranking["details"]["per_score"] and len(ranking["details"]["per_score"]) == 14
    assert any("--link" in s for s in first["skipped"])
    for a in first["attacks"]:
        assert {"success", "bound", "margin", "within_bound", "bound_kind", "n_targets", "baseline",
                "baseline_kind"} <= set(a)
        assert a["baseline"] is not None and a["baseline_kind"]
    # without the link the m-item attack's expected success bounds the scored one from above
    rel_link = cahd_files[1]
    scored = json.loads(run("attack", "nr_table1", rel, "--link", rel_link, "--json").output)
    by_name = {a["attack"]: a for a in scored["releases"][0]["attacks"]}
    assert first["attacks"][0]["success"] >= by_name["m-item-linkage/m=2"]["success"]
    assert first["attacks"][0]["details"]["scored"] is False
    # the table: the same attacks, each with its success, baseline and bound on one line
    res = run("attack", "nr_table1", rel)
    row = next(line for line in res.output.splitlines() if line.startswith("  m-item-linkage/m=2/expected"))
    a = first["attacks"][0]
    assert row.split()[1:4] == [f"{a['success']:.4f}", f"{a['baseline']:.4f}", f"{a['bound']:.4f}"]
    assert "not run: row-linkage" in res.output


def test_partner_tendency_on_a_swap_release_exits_1(tmp_path):
    # the first 2,000 of groceries' 9,835 baskets, with groceries' taxonomy: the attack's cost grows with targets x
    # rows (12 s of CPU on all of groceries, 1.7 s here) and on both it scores far above its bound (0.82 and 0.85
    # against 0.50)
    data = tmp_path / "groceries.csv"
    write_long_csv(load("groceries").subset(np.arange(2000)).drop_unused_items(), data)
    tax = ["--taxonomy", "groceries"]
    rel, link = tmp_path / "s.json", tmp_path / "s.link.json"
    res = run("anonymize", data, *tax, "-a", "partswap", "--param", "categories=taxonomy-level:1", "--seed", 0,
              "-o", rel, "--link-out", link)
    assert res.exit_code == 0, res.output
    res = run("attack", data, rel, *tax, "--link", link, "--param", "categories=taxonomy-level:1", "--json")
    assert res.exit_code == EXIT_VIOLATED, res.output
    doc = json.loads(res.output)
    (pt,) = doc["releases"][0]["attacks"]
    assert pt["attack"] == "partner-tendency" and not pt["within_bound"]
    assert pt["success"] > pt["bound"] + 0.2
    # without categories or link the attack is listed as not run, exit 0
    res = run("attack", data, rel, *tax)
    assert res.exit_code == 0 and "not run: partner-tendency: needs the categories" in res.output
    res = run("attack", data, rel, *tax, "--param", "categories=taxonomy-level:1")
    assert res.exit_code == 0 and "private link (--link)" in res.output


def test_suppression_release_moves_nothing(tmp_path):
    rel = tmp_path / "p.json"
    assert run("anonymize", "groceries", "-a", "partsupp", "--param", "categories=taxonomy-level:1",
               "-o", rel).exit_code == 0
    res = run("attack", "groceries", rel, "--param", "categories=taxonomy-level:1")
    assert res.exit_code == 0 and "moves no item between records" in res.output


@pytest.mark.parametrize("extra, message", [
    (["--link", "LINK", "--link", "LINK"], "2 --link for 1 releases"),
    (["--param", "k=3"], "unknown --param k"),
    (["--known-labels", "0"], "--known-labels"),
])
def test_bad_input_is_one_line_exit_2(cahd_files, extra, message):
    rel, link = cahd_files
    res = run("attack", "nr_table1", rel, *[str(link) if e == "LINK" else e for e in extra])
    assert res.exit_code == EXIT_BAD_INPUT
    assert message in res.output and len(res.output.strip().splitlines()) == 1


def test_wrong_link_and_wrong_data(cahd_files):
    rel, _ = cahd_files
    res = run("attack", "nr_table1", rel, "--link", rel)  # a release is not a link file
    assert res.exit_code == EXIT_BAD_INPUT and res.output.startswith("graphanon: error:")
    res = run("attack", "mushroom", rel)  # the release was not made from this data
    assert res.exit_code == EXIT_BAD_INPUT and len(res.output.strip().splitlines()) == 1


def test_a_kind_no_attack_reads(tmp_path):
    rel = tmp_path / "c.json"
    res = run("anonymize", "nr_table1", "-a", "clump", "-k", 2, "--taxonomy", "balanced:2", "-o", rel)
    assert res.exit_code == 0, res.output
    res = run("attack", "nr_table1", rel)
    assert res.exit_code == EXIT_BAD_INPUT
    assert "no attack of graphanon.attacks reads a local_recoding release" in res.output


def test_spread_release_is_not_scored_from_the_link(tmp_path):
    rel, link = tmp_path / "s.json", tmp_path / "s.link.json"
    assert run("anonymize", "swap_table1", "-a", "partswap", "--param", "categories=random:4", "--param", "spread=2",
               "-o", rel, "--link-out", link).exit_code == 0
    res = run("attack", "swap_table1", rel, "--link", link, "--param", "categories=random:4")
    assert res.exit_code == 0 and "with spread > 1 a record has several partners" in res.output


def test_global_recoding_release(tmp_path):
    rel, link = tmp_path / "g.json", tmp_path / "g.link.json"
    res = run("anonymize", "nr_table1", "-a", "aa", "-k", 2, "-m", 1, "--taxonomy", "balanced:2", "-o", rel,
              "--link-out", link)
    assert res.exit_code == 0, res.output
    res = run("attack", "nr_table1", rel, "--link", link, "-m", 1, "--json")
    assert res.exit_code in (0, EXIT_VIOLATED), res.output
    doc = json.loads(res.output)
    names = [a["attack"] for a in doc["releases"][0]["attacks"]]
    assert names[:3] == ["row-linkage/position", "row-linkage/id", "m-item-linkage/m=1"]
    assert doc["above_bound"] == sum(not a["within_bound"] for a in doc["releases"][0]["attacks"])
    assert (res.exit_code == EXIT_VIOLATED) == (doc["above_bound"] > 0)


def test_cli_partner_tendency_equals_the_python_attack(tmp_path):
    """Partners read off the saved link score the attack as the in-memory trace does (for mutual pairs:
    a leftover's gift and receiver, ``unpaired="splice"``, are not mutual exchanges, and the link read
    does not name them -- so the release keeps its two leftovers here)."""
    from graphanon.algorithms import anonymize_partswap
    from graphanon.attacks.tendency import partner_tendency
    from graphanon.datasets import load
    from graphanon.taxonomy.categories import parse_categories

    data = load("swap_table1")
    cats = parse_categories("random:4", data)
    release = anonymize_partswap(data, categories=cats, rng=0, unsafe_secret_seed=0, unpaired="keep")
    rel, link = tmp_path / "s.json", tmp_path / "s.link.json"
    release.save(rel)
    release.link.save(link)
    res = run("attack", "swap_table1", rel, "--link", link, "--param", "categories=random:4", "--json")
    (got,) = json.loads(res.output)["releases"][0]["attacks"]
    want = partner_tendency(data, release, categories=cats, partners=release.trace.pairs, truth=release.link)
    assert got["success"] == pytest.approx(want.success, abs=1e-6) and got["n_targets"] == want.n_targets


def test_group_skips_beside_the_label_attacks_of_an_nr_release(tmp_path):
    """The group-skip adversary needs the order the label groups were formed along: recomputed from the structure
    seed (--param structure-seed), refused with a one-line reason without it, and its JSON next to the others."""
    from tests.ebook_sessions import ebook_sessions

    data = ebook_sessions(300, 100, seed=0)
    from graphanon.readwrite.long_csv import write_long_csv

    path = tmp_path / "e.csv"
    write_long_csv(data, path)
    rel, link = tmp_path / "n.json", tmp_path / "n.link.json"
    args = [path, "--label", "label"]
    res = run("anonymize", *args, "-a", "nr", "-k", 3, "--param", "l=3", "--param", "grouping=order", "--seed", 1,
              "-o", rel, "--link-out", link)  # groups along the order: the attack re-runs them, a wrong seed shows
    assert res.exit_code == 0, res.output
    res = run("attack", *args, rel, "--link", link)
    assert "not run: group-skips" in res.output and "structure-seed" in res.output
    res = run("attack", *args, rel, "--link", link, "--param", "structure-seed=1", "--json")
    doc = json.loads(res.output)
    names = [a["attack"] for a in doc["releases"][0]["attacks"]]
    assert names.index("group-skips/heuristic") == names.index("label-ranking/best") + 1
    skips = doc["releases"][0]["attacks"][names.index("group-skips/heuristic")]
    assert skips["bound_kind"] == "1/l" and skips["details"]["order_source"] == "recomputed"
    assert skips["details"]["group_from_link"] + skips["details"]["group_from_candidates"] == 300
    assert res.exit_code == (0 if doc["above_bound"] == 0 else EXIT_VIOLATED)
    res = run("attack", *args, rel, "--link", link, "--param", "structure-seed=2")  # a wrong seed: not read, said
    assert "not run: group-skips" in res.output and "not the release's" in res.output
    assert "group-skips/heuristic" not in res.output
    res = run("attack", *args, rel, "--param", "structure-seed=x")
    assert res.exit_code == EXIT_BAD_INPUT and "structure-seed" in res.output


def test_group_skips_exact_on_request(cahd_files, tmp_path):
    """--param exact=true adds the exact posterior next to the heuristic; the text says how to ask for it; the
    enumeration's 200,000-labelling limit and a bad value are refused in one line."""
    from graphanon.attacks import group_skip_attack
    from graphanon.release import load_link, load_release

    rel, link = cahd_files
    res = run("attack", "nr_table1", rel, "--link", link)
    assert "--param exact=true" in res.output and "group-skips/exact" not in res.output
    res = run("attack", "nr_table1", rel, "--link", link, "--param", "exact=true", "--json")
    assert res.exit_code in (0, EXIT_VIOLATED), res.output
    by_name = {a["attack"]: a for a in json.loads(res.output)["releases"][0]["attacks"]}
    got = by_name["group-skips/exact"]
    want = group_skip_attack(load("nr_table1"), load_release(rel), truth=load_link(link), method="exact")
    assert got["success"] == pytest.approx(want.success) and got["details"]["worlds"] == want.details["worlds"]
    assert got["details"]["consistent_worlds"] >= 1 and "group-skips/heuristic" in by_name
    res = run("attack", "nr_table1", rel, "--link", link, "--param", "exact=true")
    assert "group-skips/exact" in res.output and "lower bound" not in res.output
    res = run("attack", "nr_table1", rel, "--param", "exact=maybe")
    assert res.exit_code == EXIT_BAD_INPUT and "exact=" in res.output
    # 300 e-book sessions in label groups along the order: far more labellings than the exact reading enumerates
    from graphanon.readwrite.long_csv import write_long_csv
    from tests.ebook_sessions import ebook_sessions

    path = tmp_path / "e.csv"
    write_long_csv(ebook_sessions(300, 100, seed=0), path)
    big, big_link = tmp_path / "n.json", tmp_path / "n.link.json"
    args = [path, "--label", "label"]
    assert run("anonymize", *args, "-a", "cahd", "--param", "l=3", "-o", big, "--link-out", big_link).exit_code == 0
    res = run("attack", *args, big, "--link", big_link, "--param", "exact=true")
    assert res.exit_code == EXIT_BAD_INPUT
    assert "exact=true" in res.output and "would enumerate" in res.output and "200,000" in res.output
    assert len(res.output.strip().splitlines()) == 1
