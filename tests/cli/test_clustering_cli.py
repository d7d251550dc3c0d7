"""CLI: -a clump / -a partition, audit and evaluate of local recodings."""

import json

import pytest


@pytest.mark.parametrize("algorithm", ["clump", "partition"])
def test_anonymize_audit_evaluate(run, algorithm):
    res = run("anonymize", "clump_food", "-a", algorithm, "-k", "3", "-o", "r.json", "--link-out", "l.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "clump_food", "r.json", "--model", "transactional", "-k", "3", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"] is True
    res = run("audit", "clump_food", "r.json", "--model", "km", "-k", "3", "-m", "2", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"] is True
    res = run("evaluate", "clump_food", "r.json", "--link", "l.json", "--queries", "20", "--json")
    out = json.loads(res.output)
    assert res.exit_code == 0 and 0 <= out["ncp"] <= 1 and 0 <= out["ncp_he_naughton"] <= 1
    assert out["groups"] <= 3 and "avg_relative_error" in out


@pytest.mark.parametrize("algorithm", ["clump", "partition"])
def test_cli_errors(run, algorithm):
    res = run("anonymize", "coat_fig1", "-a", algorithm, "-k", "2", "-o", "r.json")
    assert res.exit_code == 2 and "taxonomy" in res.output
    res = run("anonymize", "clump_food", "-a", algorithm, "-k", "10", "-o", "r.json")
    assert res.exit_code == 2 and "exceeds the number of records" in res.output
    res = run("anonymize", "clump_food", "-a", algorithm, "-k", "2", "--param", "bogus=1", "-o", "r.json")
    assert res.exit_code == 2 and "unknown --param" in res.output
