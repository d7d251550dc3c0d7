"""Every (audit model x release kind) pair, with and without the private link, from the command line.

Each run either gives a verdict (exit 0 satisfied, 1 violated) or refuses with
one line ``graphanon: error: ...`` and exit 2 -- never a traceback, never
exit 1 for a crash (issue 20, item 6: ``--model constraints`` on a Clump
release ended in an ``AttributeError`` with the "violated" code). Also:
``audit --link`` refuses a link of another release, and ``evaluate --link``
reads the SplitPerson link.
"""

from __future__ import annotations

import json
import traceback

import pytest

from tests.conftest import cli

RELEASES = {  # name: (dataset, anonymize options)
    "hghs": ("liuwang_fig1", ["-a", "hghs", "-k", "2", "-m", "2"]),
    "coat": ("coat_fig1", ["-a", "coat", "-k", "2"]),
    "mm": ("nr_table1", ["-a", "mm", "-k", "2", "-m", "2"]),
    "clump": ("clump_food", ["-a", "clump", "-k", "3"]),
    "partition": ("clump_food", ["-a", "partition", "-k", "3"]),
    "nr": ("nr_table1", ["-a", "nr", "-k", "2"]),
    "cahd": ("nr_table1", ["-a", "cahd", "--param", "l=2", "--param", "grouping=order"]),  # the paper's groups
    "partswap": ("swap_table1", ["-a", "partswap", "--param", "categories=random:3:1"]),
    "splitperson": ("swap_table1", ["-a", "splitperson", "--param", "categories=random:3:1"]),
}
MODELS = {
    "km": ["-k", "2", "-m", "2"],
    "transactional": ["-k", "2"],
    "constraints": ["-k", "2"],
    "constraints-km": ["-k", "2", "-m", "2"],
    "hkp": ["-k", "2", "--param", "h=0.8", "--param", "p=2"],
    "nonreciprocal": ["-k", "2"],
    "ldiversity": ["--param", "l=2"],
    "tendency": ["--param", "categories=random:3:1"],
}


def invoke(args, folder):
    result = cli(*args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tb = "".join(traceback.format_exception(*result.exc_info))
        raise AssertionError(f"graphanon {' '.join(map(str, args))} raised:\n{tb}")
    return result


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grid")
    for name, (dataset, opts) in RELEASES.items():
        res = invoke(["anonymize", dataset, *opts, "-o", folder / f"{name}.json",
                      "--link-out", folder / f"{name}.link.json"], folder)
        assert res.exit_code == 0, res.output
    return folder


@pytest.mark.parametrize("with_link", [False, True], ids=["no-link", "link"])
@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("kind", list(RELEASES))
def test_every_model_on_every_release_kind_answers_or_refuses_in_one_line(made, kind, model, with_link):
    dataset = RELEASES[kind][0]
    args = ["audit", dataset, made / f"{kind}.json", "--model", model.split("-")[0], *MODELS[model], "--json"]
    if with_link:
        args += ["--link", made / f"{kind}.link.json"]
    res = invoke(args, made)
    assert res.exit_code in (0, 1, 2), res.output
    if res.exit_code == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("graphanon: error: "), res.stderr
    else:
        report = json.loads(res.stdout)
        assert report["satisfied"] is (res.exit_code == 0)


def test_constraints_on_a_clump_release_gives_a_verdict_or_one_clear_refusal(made):
    res = invoke(["audit", "clump_food", made / "clump.json", "--model", "constraints", "-k", "3"], made)
    assert res.exit_code == 2 and "defined for global recodings" in res.stderr and "km:M" in res.stderr
    res = invoke(["audit", "clump_food", made / "clump.json", "--model", "constraints", "-k", "3", "-m", "2", "--json"],
                 made)
    assert res.exit_code == 0 and json.loads(res.stdout)["satisfied"]
    res = invoke(["audit", "clump_food", made / "clump.json", "--model", "constraints", "-k", "4", "-m", "2", "--json"],
                 made)
    assert res.exit_code in (1, 2)
    if res.exit_code == 1:
        assert not json.loads(res.stdout)["satisfied"]


@pytest.mark.parametrize("kind", list(RELEASES))
def test_audit_link_of_another_release_is_refused(made, kind):
    other = "clump" if kind != "clump" else "partition"
    dataset = RELEASES[kind][0]
    res = invoke(["audit", dataset, made / f"{kind}.json", "--model", "km", "-k", "1", "--link",
                  made / f"{other}.link.json"], made)
    assert res.exit_code == 2 and res.stderr.startswith("graphanon: error: ")
    assert "link" in res.stderr


def test_audit_with_link_reports_the_mode(made):
    res = invoke(["audit", "nr_table1", made / "cahd.json", "--model", "ldiversity", "--param", "l=2", "--json",
                  "--link", made / "cahd.link.json"], made)
    assert res.exit_code == 0
    details = json.loads(res.stdout)["details"]
    assert details["audited_with_link"] is True and details["linked_records_not_matching"] == 0


def test_evaluate_reads_the_split_link(made):
    res = invoke(["evaluate", "swap_table1", made / "splitperson.json", "--link", made / "splitperson.link.json",
                  "--queries", "5", "--json"], made)
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["algorithm"] == "splitperson"
    res = invoke(["evaluate", "swap_table1", made / "splitperson.json", "--link", made / "partswap.link.json",
                  "--queries", "5"], made)
    assert res.exit_code == 2 and "link" in res.stderr


# ------------------------------------------------------------------ item 6 re-made as edited release files
def _edit(path, **fields):
    doc = json.loads(path.read_text())
    doc.update(fields)
    path.write_text(json.dumps(doc))


def test_cli_labels_swapped_in_a_global_recoding_file_fail_km(made, tmp_path):
    doc = json.loads((made / "mm.json").read_text())
    rows, labels = doc["records"], doc["labels"]
    i, j = next((a, b) for a in range(len(rows)) for b in range(a + 1, len(rows))
                if sorted(rows[a]) != sorted(rows[b]) and labels[a] != labels[b])
    labels[i], labels[j] = labels[j], labels[i]
    forged = tmp_path / "mm-swapped.json"
    forged.write_text(json.dumps(doc))
    ok = invoke(["audit", "nr_table1", made / "mm.json", "--model", "km", "-k", "2", "-m", "2"], made)
    assert ok.exit_code == 0
    res = invoke(["audit", "nr_table1", forged, "--model", "km", "-k", "2", "-m", "2", "--json"], made)
    report = json.loads(res.stdout)
    assert res.exit_code == 1 and report["details"]["recoding_mismatches"] == 2


def test_cli_labels_swapped_in_a_cahd_file_fail_ldiversity(made, tmp_path):
    doc = json.loads((made / "cahd.json").read_text())
    labels = doc["labels"]
    verdicts = []
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            if labels[i] == labels[j]:
                continue
            forged = dict(doc, labels=[labels[j] if t == i else labels[i] if t == j else x for t, x in enumerate(labels)])
            path = tmp_path / f"cahd-{i}-{j}.json"
            path.write_text(json.dumps(forged))
            res = invoke(["audit", "nr_table1", path, "--model", "ldiversity", "--param", "l=2", "--json"], made)
            details = json.loads(res.stdout)["details"]
            assert res.exit_code == (0 if details["label_preserving_assignment"] else 1)
            assert details["labels_match_original"] is details["label_preserving_assignment"]
            verdicts.append(details["label_preserving_assignment"])
            res = invoke(["audit", "nr_table1", path, "--model", "ldiversity", "--param", "l=2", "--json",
                          "--link", made / "cahd.link.json"], made)
            assert res.exit_code == 1 and json.loads(res.stdout)["details"]["linked_records_not_matching"] == 2
    assert False in verdicts  # some swap breaks every label-preserving assignment: rejected without the link


def test_cli_clump_file_where_only_4_of_6_records_can_be_placed_fails_transactional(tmp_path):
    from graphanon.datasets import load_taxonomy

    tax = load_taxonomy("clump_food")
    lines = []
    for leaf in tax.leaves:
        path = [leaf]
        while tax.parent(path[-1]) is not None:
            path.append(tax.parent(path[-1]))
        lines.append(";".join(map(str, path)))
    (tmp_path / "tax.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "six.txt").write_text("Orange,Beef\nOrange,Beef\nApple,Milk\nApple,Milk\nBanana,Chicken\nBanana,Chicken\n")
    folder = tmp_path
    res = invoke(["anonymize", folder / "six.txt", "--format", "basket", "-a", "clump", "-k", "2", "--taxonomy",
                  folder / "tax.txt", "-o", folder / "r.json"], folder)
    assert res.exit_code == 0, res.output
    nodes = [{"label": x, "members": list(tax.leaves_under(x)), "leaves": len(tax.leaves_under(x))}
             for x in ("Fruit", "Orange", "Beef")]
    # two rows every record fits; four rows only the two Orange-Beef records fit
    _edit(folder / "r.json", nodes=nodes, records=[[0], [0], [1], [1], [1, 2], [1, 2]], reading="one")
    audit = ["audit", folder / "six.txt", "--format", "basket", folder / "r.json", "--model", "transactional",
             "-k", "2", "--json"]
    res = invoke(audit, folder)
    report = json.loads(res.stdout)
    assert res.exit_code == 1 and report["details"]["recoding_mismatches"] == 2
    assert any(ex.get("unplaced") == 2 for ex in report["counterexamples"])
