"""CLI: -a partswap|fullswap|randswap|partsupp|splitperson, audit --model tendency."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def cli(run):
    """The shared ``run`` fixture (``graphanon ARGS`` in a fresh temporary folder)."""
    return run


@pytest.mark.parametrize("method", ["partswap", "fullswap", "partsupp", "splitperson"])
def test_anonymize_audit_evaluate(cli, method):
    seed = ["--seed", "0"] if method in ("partswap", "fullswap") else []
    res = cli("anonymize", "swap_table1", "-a", method, "--param", "categories=random:3:1", *seed,
              "-o", "r.json", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["audit_model"] == "tendency"  # stdout: stderr may hold a warning
    doc = json.load(open("r.json"))
    assert doc["kind"] == "perturbed" and "001" not in json.dumps(doc["records"])
    res = cli("audit", "swap_table1", "r.json", "--model", "tendency", "--param", "categories=random:3:1", "--json")
    rep = json.loads(res.output)
    assert res.exit_code == (0 if rep["satisfied"] else 1)
    assert rep["details"]["mode"] == "without link"
    res = cli("evaluate", "swap_table1", "r.json", "--queries", "20", "--json")
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["kind"] == "perturbed"
    assert (out["dif"] == 0.0) == (doc["moves"] in ("swap", "split"))  # swaps conserve items; removals do not


def test_categories_file_and_randswap(cli, tmp_path):
    (tmp_path / "cats.csv").write_text("".join(f"{i},{'even' if i % 2 == 0 else 'odd'}\n" for i in range(1, 13)))
    res = cli("anonymize", "swap_table1", "-a", "partswap", "--param", "categories=cats.csv", "-o", "r.json")
    assert res.exit_code == 0, res.output
    res = cli("anonymize", "swap_table1", "-a", "randswap", "-o", "x.json")
    assert res.exit_code == 0, res.output
    # RandSwap's pairs are secret: a seed would fix nothing, so it is refused (issue 20)
    res = cli("anonymize", "swap_table1", "-a", "randswap", "--seed", "1", "-o", "y.json")
    assert res.exit_code == 2 and "seed" in res.output


@pytest.mark.parametrize("args, message", [
    (["-a", "partswap"], "needs --param categories"),
    (["-a", "partswap", "-k", "2", "--param", "categories=random:3"], "-k"),
    (["-a", "partsupp", "--seed", "1", "--param", "categories=random:3"], "seed"),
    (["-a", "partswap", "--taxonomy", "balanced:3", "--param", "categories=random:3"], "taxonomy"),
    (["-a", "partswap", "--param", "categories=random:x"], "random:N"),
    (["-a", "partswap", "--param", "categories=random:99"], "between 1 and"),
    (["-a", "partswap", "--param", "categories=taxonomy-level:1"], "taxonomy"),
    (["-a", "partswap", "--param", "categories=random:3", "--param", "visit=sideways"], "visit"),
    (["-a", "partsupp", "--param", "categories=random:3", "--param", "visit=input"], "unknown --param"),
    (["-a", "randswap", "--param", "categories=nonsense"], "categories='nonsense'"),
])
def test_bad_parameters_exit_2(cli, args, message):
    res = cli("anonymize", "swap_table1", *args, "-o", "r.json")
    assert res.exit_code == 2 and message in res.output, res.output


def test_randswap_takes_its_audit_categories_and_bench_needs_them(cli):
    """RandSwap ignores the categories; anonymize makes its release without them, bench (which audits) refuses."""
    made = cli("anonymize", "swap_table1", "-a", "randswap", "-o", "r.json")
    assert made.exit_code == 0, made.output
    res = cli("bench", "swap_table1", "-a", "randswap")
    assert res.exit_code == 2 and "needs --param categories" in res.output, res.output
    res = cli("bench", "swap_table1", "-a", "randswap", "--param", "categories=random:3", "--json")
    assert res.exit_code in (0, 1) and '"tendency hiding (3 categories' in res.output, res.output


def test_audit_model_parameters(cli):
    cli("anonymize", "swap_table1", "-a", "partswap", "--param", "categories=random:3", "-o", "r.json")
    res = cli("audit", "swap_table1", "r.json", "--model", "tendency")
    assert res.exit_code == 2 and "categories" in res.output
    res = cli("audit", "swap_table1", "r.json", "--model", "tendency", "-k", "2", "--param", "categories=random:3")
    assert res.exit_code == 2
