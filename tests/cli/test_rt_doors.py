"""Relational-transaction releases through `attack` and `audit --link` (issue 34), on the synthetic patients."""

from __future__ import annotations

import json

import pytest

from graphanon.datasets.synthetic import write_patients_files
from tests.conftest import cli

RELATIONAL = ("--relational", "demographics.csv", "--qi", "age,gender,race", "--qi-hierarchy", "race=race.txt")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """300 patients, an rt release and its naive baseline (k=5, m=2, mHgHs), each with its private link."""
    path = tmp_path_factory.mktemp("rt")
    write_patients_files(path, 300, seed=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(path)
        for method, name in (("rt", "r"), ("rt-naive", "n")):
            res = cli("anonymize", "patients.csv", *RELATIONAL, "-a", method, "-k", 5, "-m", 2, "--taxonomy",
                      "icd9.txt", "--param", "transaction=mhghs", "-o", f"{name}.json", "--link-out",
                      f"{name}.link.json")
            assert res.exit_code == 0, res.output
            (path / f"{name}.err").write_text(res.stderr)  # the warnings
    return path


@pytest.fixture
def here(folder, monkeypatch):
    monkeypatch.chdir(folder)
    return folder


def test_attack_links_the_naive_baseline_below_k(here):
    res = cli("attack", "patients.csv", "r.json", "n.json", *RELATIONAL, "--link", "r.link.json", "--link",
              "n.link.json", "--json")
    assert res.exit_code == 1, res.output
    rt, naive = json.loads(res.output)["releases"]
    (a,) = rt["attacks"]
    assert a["attack"] == "rt-linkage/m=2" and a["within_bound"] and a["details"]["records_below_k"] == 0
    assert a["details"]["truth_outside"] == 0 and a["n_targets"] == 300
    (b,) = naive["attacks"]
    assert not b["within_bound"] and b["details"]["records_below_k"] > 0
    assert b["details"]["min_candidates"] < 5
    # the text table says how many targets fell below k, beside the verdict
    res = cli("attack", "patients.csv", "n.json", *RELATIONAL, "--link", "n.link.json")
    assert res.exit_code == 1 and "ABOVE" in res.output
    assert f"{b['details']['records_below_k']} of 300 targets have fewer than k=5" in " ".join(res.output.split())


def test_attack_without_the_link_is_the_expected_success(here):
    res = cli("attack", "patients.csv", "r.json", *RELATIONAL, "--json")
    assert res.exit_code == 0, res.output
    (a,) = json.loads(res.output)["releases"][0]["attacks"]
    assert a["attack"] == "rt-linkage/m=2/expected" and not a["details"]["scored"]


@pytest.mark.parametrize("args, message", [
    (("r.json",), "give --relational FILE --qi COLUMNS"),
    (("r.json", "--relational", "demographics.csv"), "--relational needs --qi"),
])
def test_attack_refuses_a_relational_release_without_its_table(here, args, message):
    res = cli("attack", "patients.csv", *args)
    assert res.exit_code == 2 and message in res.output, res.output


def test_attack_refuses_the_table_for_a_transaction_release(here):
    res = cli("anonymize", "patients.csv", "-a", "mhghs", "-k", 5, "-m", 2, "--taxonomy", "icd9.txt", "-o", "t.json")
    assert res.exit_code == 0, res.output
    res = cli("attack", "patients.csv", "t.json", *RELATIONAL)
    assert res.exit_code == 2 and "publishes no demographics" in res.output, res.output


def test_audit_with_the_link_checks_each_row_against_its_record(here):
    audit = ("audit", "patients.csv", "--model", "rt", "-k", 5, "-m", 2, *RELATIONAL)
    res = cli(audit[0], audit[1], "r.json", *audit[2:], "--link", "r.link.json", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["details"]["recoding_mismatches"] == 0
    # planted: one published age value edited (every row of its classes); class sizes and items unchanged
    doc = json.loads((here / "r.json").read_text())
    ages = doc["relational_values"][0]
    target = next(i for i, v in enumerate(ages) if v != "*")
    ages[target] = "[100-109]"
    (here / "edited.json").write_text(json.dumps(doc))
    res = cli(audit[0], audit[1], "edited.json", *audit[2:])
    assert res.exit_code == 0, res.output  # the published rows alone still meet (k, k^m)
    res = cli(audit[0], audit[1], "edited.json", *audit[2:], "--link", "r.link.json", "--json")
    assert res.exit_code == 1, res.output
    report = json.loads(res.output)
    assert report["details"]["recoding_mismatches"] > 0
    assert "age: [100-109] does not cover" in report["worst"]["problem"]


def test_audit_link_needs_the_table(here):
    res = cli("audit", "patients.csv", "r.json", "--model", "rt", "-k", 5, "-m", 2, "--link", "r.link.json")
    assert res.exit_code == 2 and "--model rt --link" in res.output, res.output


# ---------------------------------------------------------------------- compare and bench (issue 31: every door)


def test_compare_rt_against_the_naive_baseline(here, tmp_path):
    """The study of the issue, small: both methods, a grid over the transaction method, audits per row."""
    import pandas as pd

    out = tmp_path / "study"
    res = cli("compare", "patients.csv", *RELATIONAL, "-a", "rt,rt-naive", "-k", 5, "-m", 2, "--taxonomy", "icd9.txt",
              "--param", "transaction=aa;mhghs", "--queries", 50, "--attack-targets", 300, "-o", out, "-j", 1)
    assert res.exit_code == 1, res.output  # a release fails its audit: the naive baseline
    table = pd.read_csv(out / "results.csv")
    assert sorted(zip(table["method"], table["params"], strict=True)) == [
        ("rt", "transaction=aa"), ("rt", "transaction=mhghs"), ("rt-naive", "transaction=aa"),
        ("rt-naive", "transaction=mhghs")]
    assert (table["status"] == "ok").all() and (table["audit_model"] == "rt").all()
    rt = table[table["method"] == "rt"]
    assert rt["audit_satisfied"].all() and (rt["attack_below_k"] == 0).all()
    naive = table[(table["method"] == "rt-naive") & (table["params"] == "transaction=mhghs")].iloc[0]
    assert not naive["audit_satisfied"] and naive["audit_violations"] > 0 and naive["attack_below_k"] > 0
    assert not naive["attack_within_bound"]
    # relational and transaction utility side by side; the naive baseline generalizes the QIs less
    assert table[["rt_gcp", "rt_query_error", "avg_relative_error"]].notna().all().all()
    assert naive["rt_gcp"] < rt["rt_gcp"].min()
    failing = int((~table["audit_satisfied"].astype(bool)).sum())
    assert f"{failing} of the 4 release(s) made FAIL their model's audit" in res.output
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "every release meets its model" not in page and "FAIL their model" in page
    assert "<th>rt_gcp</th>" in page and "<th>attack_below_k</th>" in page
    assert "--relational demographics.csv --qi age,gender,race --qi-hierarchy race=race.txt" in page


@pytest.mark.parametrize("args, message", [
    (("-a", "rt", "-k", 5, "--taxonomy", "icd9.txt"), "-a rt anonymizes relational-transaction data: give --relational"),
    (("-a", "mhghs", "-k", 5, "--taxonomy", "icd9.txt", *RELATIONAL), "none of mhghs reads relational-transaction"),
    (("-a", "rt", "-k", 5, "--taxonomy", "icd9.txt", "--relational", "demographics.csv"), "--relational needs --qi"),
    (("-a", "rt", "-k", 5, "--taxonomy", "icd9.txt", "--relational", "demographics.csv", "--qi", "age,zip"),
     "no column 'zip'"),
])
def test_compare_refuses_before_any_run(here, tmp_path, args, message):
    res = cli("compare", "patients.csv", *args, "-o", tmp_path / "study")
    assert res.exit_code == 2 and message in res.output, res.output
    assert not (tmp_path / "study").exists()


def test_compare_gives_the_table_to_the_rt_methods_only():
    from graphanon.study import expand_grid

    spec = ("demographics.csv", "age,gender", (), "")
    plan = expand_grid(["rt", "mhghs"], ["patients.csv"], k=5, m=2, taxonomy="balanced:5", relational=spec)
    assert [(r.method, r.relational) for r in plan.runs] == [("rt", spec), ("mhghs", None)]
    assert "mhghs: reads transactions only; run on the items without --relational" in plan.notes
    assert plan.runs[0].key() != expand_grid(["rt"], ["patients.csv"], k=5, m=2, taxonomy="balanced:5",
                                             relational=("other.csv", "age", (), "")).runs[0].key()


def test_anonymize_compare_and_the_api_make_the_same_rt_release(here, tmp_path, monkeypatch):
    """One release through every door (secret row order fixed), as tests/algorithms/test_method_doors.py does."""
    from graphanon.algorithms.declaration import MethodDeclaration
    from graphanon.readwrite.formats import read_any
    from graphanon.relational import join_relational
    from graphanon.study import run_method
    from graphanon.taxonomy.tree import read_taxonomy

    made = []
    real = MethodDeclaration.run

    def fixed(self, data, opts):
        opts.unsafe_secret_seed = 0
        made.append(real(self, data, opts))
        return made[-1]

    monkeypatch.setattr(MethodDeclaration, "run", fixed)
    args = ("-a", "rt", "-k", 5, "-m", 2, "--taxonomy", "icd9.txt", "--param", "transaction=mhghs")
    assert cli("anonymize", "patients.csv", *RELATIONAL, *args, "-o", tmp_path / "a.json").exit_code == 0
    res = cli("compare", "patients.csv", *RELATIONAL, *args, "-o", tmp_path / "study", "-j", 1, "--queries", 0,
              "--attack-targets", 0)
    assert res.exit_code == 0 and len(made) == 2, res.output
    made[1].save(tmp_path / "c.json")
    rt = join_relational(read_any("patients.csv"), "demographics.csv", "age,gender,race",
                         hierarchies=["race=race.txt"])
    run_method("rt", rt, k=5, m=2, taxonomy=read_taxonomy("icd9.txt"), params={"transaction": "mhghs"},
               unsafe_secret_seed=0).save(tmp_path / "api.json")
    expected = (tmp_path / "a.json").read_bytes()
    assert (tmp_path / "c.json").read_bytes() == expected and (tmp_path / "api.json").read_bytes() == expected


def test_bench_reads_the_table_for_the_rt_methods(here):
    res = cli("bench", "patients.csv", *RELATIONAL, "-a", "rt,rt-naive,mhghs", "-k", 5, "-m", 2, "--taxonomy",
              "icd9.txt", "--param", "transaction=mhghs", "--queries", 50, "--json")
    assert res.exit_code == 0, res.output
    rt, naive, items = json.loads(res.output.splitlines()[-1])
    assert rt["audit"]["satisfied"] and not naive["audit"]["satisfied"] and items["audit"]["satisfied"]
    assert {"rt_gcp", "rt_query_error", "rt_ncp_age", "avg_relative_error"} <= set(rt["metrics"])
    assert "rt_gcp" not in items["metrics"]
    res = cli("bench", "patients.csv", "-a", "rt", "-k", 5, "--taxonomy", "icd9.txt")
    assert res.exit_code == 2 and "-a rt needs --relational" in res.output
    res = cli("bench", "patients.csv", *RELATIONAL, "-a", "mhghs", "-k", 5, "--taxonomy", "icd9.txt")
    assert res.exit_code == 2 and "read transactions only" in res.output


def test_evaluate_reads_the_table(here):
    res = cli("evaluate", "patients.csv", "r.json", *RELATIONAL, "--queries", 50, "--json")
    assert res.exit_code == 0, res.output
    result = json.loads(res.output)
    assert 0 < result["rt_gcp"] <= 1 and result["rt_query_error"] >= 0 and "rt_ncp_race" in result
    assert result["meaning"]["rt_gcp"]["direction"] == "lower"
    res = cli("evaluate", "patients.csv", "r.json", "--queries", 50, "--json")
    assert res.exit_code == 0 and "rt_gcp" not in json.loads(res.output)
    res = cli("anonymize", "patients.csv", "-a", "mhghs", "-k", 5, "-m", 2, "--taxonomy", "icd9.txt", "-o", "t.json")
    res = cli("evaluate", "patients.csv", "t.json", *RELATIONAL)
    assert res.exit_code == 2 and "publishes no demographics" in res.output, res.output


@pytest.mark.parametrize("param, refused", [
    ((), "--param transaction=mhghs"),  # the default needs a taxonomy too
    (("--param", "transaction=aa;mhghs"), "--param transaction=aa"),
    (("--param", "rt.transaction=mhghs"), "--param transaction=mhghs"),
])
def test_compare_refuses_rt_over_a_taxonomy_without_one_before_running(here, tmp_path, param, refused):
    """``compare -a rt`` with ``transaction=aa|mhghs`` (the default is mhghs) and no taxonomy: one line, exit 2,
    and no run folder -- it used to plan the runs and report each as failed."""
    out = tmp_path / "study"
    res = cli("compare", "patients.csv", *RELATIONAL, "-a", "rt", "-k", 5, "-m", 2, *param, "-o", str(out))
    assert res.exit_code == 2, res.output
    assert refused in res.output and "generalizes over an item taxonomy" in res.output
    assert len(res.output.strip().splitlines()) == 1 and not out.exists()


def test_plan_with_coat_or_a_taxonomy_is_not_refused():
    from graphanon.study import expand_grid

    rt = ("demographics.csv", "age,gender,race", (), "")
    plan = expand_grid(["rt"], ["patients.csv"], k=[5], m=2, params={"transaction": ["coat"]}, relational=rt)
    assert [dict(r.params) for r in plan.runs] == [{"transaction": "coat"}]
    plan = expand_grid(["rt"], ["patients.csv"], k=[5], m=2, taxonomy="icd9.txt", relational=rt)
    assert [r.taxonomy for r in plan.runs] == ["icd9.txt"]


def test_anonymize_rt_with_a_public_taxonomy_lists_every_leaf(here):
    """``--param public_taxonomy=true`` reaches rt through the declaration: the saved file says so, lists every
    taxonomy leaf in its labels, suppresses nothing, and passes the rt audit."""
    res = cli("anonymize", "patients.csv", *RELATIONAL, "-a", "rt", "-k", 5, "-m", 2, "--taxonomy", "icd9.txt",
              "--param", "public_taxonomy=true", "-o", "p.json")
    assert res.exit_code == 0, res.output
    assert "suppressed in some group" not in res.stderr  # a public taxonomy names no code: no warning
    doc = json.loads((here / "p.json").read_text())
    assert doc["params"]["public_taxonomy"] is True and doc["params"]["transaction"] == "mhghs"
    res = cli("audit", "patients.csv", "p.json", "--model", "rt", "-k", 5, "-m", 2, *RELATIONAL, "--json")
    assert res.exit_code == 0, res.output
    from graphanon.release import load_release
    from graphanon.taxonomy.tree import read_taxonomy

    rel = load_release(here / "p.json")
    assert rel.n_suppressed == 0
    assert {str(x) for pi in rel.published_items for x in pi.members} == {str(x) for x in read_taxonomy("icd9.txt").leaves}


def test_anonymize_rt_warns_that_its_suppressed_codes_are_named(here):
    """rt suppresses items in its groups under a taxonomy that is not public, and its labels list the codes the
    rows hold: the suppressed-named warning of the global recodings, with rt's own count and advice; rt-naive,
    which takes no public_taxonomy, is told to use a method that does."""
    from graphanon.release import load_release

    n = load_release(here / "r.json").n_suppressed
    assert n > 0
    err = " ".join((here / "r.err").read_text().split())
    assert (f"graphanon: warning: {n} items are suppressed in some group and the file lists the items it kept: "
            "whoever holds the taxonomy can name the suppressed ones") in err
    assert "pass --param public_taxonomy=true with --param transaction=mhghs or aa" in err
    naive = " ".join((here / "n.err").read_text().split())
    assert "suppressed in some group" in naive and "use a method that takes --param public_taxonomy=true" in naive
