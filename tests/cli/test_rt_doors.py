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
