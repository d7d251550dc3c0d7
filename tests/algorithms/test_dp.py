"""Differential privacy: OpenDP noise, the private budget ledger, DiffPart and its synthetic release."""

from __future__ import annotations

import json
import math
import stat

import numpy as np
import pytest

from graphanon.algorithms.dp.diffpart import anonymize_diffpart
from graphanon.algorithms.dp.noise import discrete_laplace, discrete_laplace_tail
from graphanon.data import from_iterable
from graphanon.errors import BudgetError, ParameterError, ReleaseFormatError
from graphanon.metrics.evaluate import evaluate_release
from graphanon.release import load_release
from graphanon.release.ledger import BudgetLedger
from graphanon.release.synthetic import SyntheticRelease
from graphanon.taxonomy import Taxonomy
from tests.conftest import cli

UNIVERSE = [f"i{j}" for j in range(9)]


def _data(n_common: int = 60):
    rng = np.random.default_rng(5)
    records = [["i0", "i1"]] * n_common + [["i3"]] * 40 + [["i4", "i5", "i6"]] * 30
    records += [[f"i{j}" for j in rng.choice(9, size=2, replace=False)] for _ in range(20)]
    return from_iterable(records)


# ------------------------------------------------------------------ noise
def test_discrete_laplace_has_the_stated_distribution():
    eps = 0.7
    z = discrete_laplace(np.zeros(20000, dtype=np.int64), eps)
    assert z.dtype == np.int64
    a = math.exp(-eps)
    var = 2 * a / (1 - a) ** 2  # variance of the discrete Laplace of parameter a
    assert abs(z.mean()) < 4 * math.sqrt(var / len(z))
    assert abs(z.var() / var - 1) < 0.1
    # the tail formula matches the draws
    assert abs((z >= 2).mean() - discrete_laplace_tail(2, eps)) < 0.02
    assert abs((z >= -1).mean() - discrete_laplace_tail(-1, eps)) < 0.02


def test_discrete_laplace_is_never_reproducible_and_checks_epsilon():
    a, b = discrete_laplace(np.zeros(200, dtype=int), 0.5), discrete_laplace(np.zeros(200, dtype=int), 0.5)
    assert not np.array_equal(a, b)
    for bad in (0, -1.0, float("inf"), float("nan"), "x", True):
        with pytest.raises(ParameterError, match="epsilon"):
            discrete_laplace([1], bad)


# ------------------------------------------------------------------ ledger
def test_ledger_is_private_keyed_by_the_data_and_refuses_past_the_budget(tmp_path):
    path = tmp_path / "PRIVATE-ledger.json"
    data = _data()
    ledger = BudgetLedger.open(path)
    ledger.check(data, epsilon=0.6, budget=1.0)
    ledger.record(data, epsilon=0.6, algorithm="diffpart", output="r1.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    doc = json.loads(path.read_text())
    assert doc["format"] == "graphanon-private-dp-ledger/1" and len(doc["key"]) == 64
    reopened = BudgetLedger.open(path)
    shuffled = from_iterable([list(r) for r in reversed(_records(data))])
    assert reopened.spent(shuffled) == pytest.approx(0.6)
    other = from_iterable(_records(data)[1:])  # one record removed: other data
    assert reopened.spent(other) == 0.0
    reopened.check(data, epsilon=0.4, budget=1.0)  # 0.6 + 0.4 fits exactly
    with pytest.raises(BudgetError, match=r"--budget 1: this release \(epsilon=0.5\) would take the data's total "
                       r"to 1.1; already spent 0.6 on 1 release \(diffpart epsilon=0.6 -> r1.json\)"):
        reopened.check(data, epsilon=0.5, budget=1.0)
    # another ledger (another key) gives the same data another identity: nothing public to match
    assert BudgetLedger.open(tmp_path / "other.json").identity(data) != reopened.identity(data)


def _records(data):
    X = data.matrix
    return [[data.items[j] for j in X.indices[X.indptr[i] : X.indptr[i + 1]]] for i in range(X.shape[0])]


def test_ledger_refuses_a_file_of_another_kind(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "graphanon-private-link/1"}')
    with pytest.raises(ReleaseFormatError, match="not a graphanon-private-dp-ledger/1 file"):
        BudgetLedger.open(path)
    path.write_text(json.dumps({"format": "graphanon-private-dp-ledger/1", "key": "0" * 64,
                                "entries": [{"data": "ab", "epsilon": -1}]}))
    with pytest.raises(ReleaseFormatError, match="entry 1"):
        BudgetLedger.open(path)


# ------------------------------------------------------------------ DiffPart
def test_diffpart_needs_a_public_universe_and_refuses_items_outside_it():
    data = _data()
    with pytest.raises(ParameterError, match="needs the public item universe"):
        anonymize_diffpart(data, epsilon=1.0)
    with pytest.raises(ParameterError, match=r"holds item 'i8', which is not in the public universe"):
        anonymize_diffpart(from_iterable([["i0"], ["i8"]]), epsilon=1.0, universe=UNIVERSE[:8])
    tax = Taxonomy.balanced(UNIVERSE, fanout=3)
    with pytest.raises(ParameterError, match="differ"):
        anonymize_diffpart(data, epsilon=1.0, taxonomy=tax, universe=UNIVERSE[:5])
    with pytest.raises(ParameterError, match="at most 12"):
        anonymize_diffpart(data, epsilon=1.0, taxonomy=Taxonomy.balanced([str(i) for i in range(13)], fanout=13))
    with pytest.raises(ParameterError, match="epsilon"):
        anonymize_diffpart(data, epsilon=0.0, universe=UNIVERSE)


def test_diffpart_release_publishes_nothing_outside_the_mechanism(tmp_path):
    data = _data()
    rel = anonymize_diffpart(data, epsilon=4.0, universe=UNIVERSE, fanout=3)
    assert isinstance(rel, SyntheticRelease) and rel.fingerprint is None and rel.link is None
    assert rel.items == tuple(UNIVERSE)  # the universe, not the observed items
    path = tmp_path / "r.json"
    rel.save(path)
    doc = json.loads(path.read_text())
    assert set(doc) == {"format", "kind", "algorithm", "params", "n_records", "data_fingerprint", "items",
                        "itemsets", "counts"}
    assert doc["data_fingerprint"] is None
    assert set(doc["params"]) <= {"epsilon", "mechanism", "neighbouring", "fanout", "c_internal", "c_leaf",
                                  "taxonomy"}
    assert doc["n_records"] == sum(doc["counts"])
    back = load_release(path)
    assert isinstance(back, SyntheticRelease) and back.to_dict() == rel.to_dict()
    metrics = evaluate_release(data, back, queries=50, rng=0)
    assert metrics["kind"] == "synthetic" and math.isfinite(metrics["avg_relative_error"])


def test_diffpart_keeps_a_large_itemset_and_runs_differ():
    data = _data(n_common=400)
    runs = [anonymize_diffpart(data, epsilon=0.5, universe=UNIVERSE, fanout=3) for _ in range(12)]
    for rel in runs:
        # 400 copies of {i0, i1}: published, close to its count
        assert abs(rel.estimate_count(["i0", "i1"]) - 400) < 120
    # P(12 equal files) <= P(the same noise on {i0, i1} 12 times) <= P(Z=0)^11 = tanh(eps_leaf/2)^11 < 1e-6
    # (its leaf partition is released at eps_leaf <= 0.5)
    assert len({json.dumps(rel.to_dict(), sort_keys=True) for rel in runs}) > 1


def test_synthetic_release_refuses_inconsistent_files(tmp_path):
    rel = anonymize_diffpart(_data(400), epsilon=3.0, universe=UNIVERSE, fanout=3)
    doc = rel.to_dict()
    doc["n_records"] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReleaseFormatError, match="counts sum"):
        load_release(path)


# ------------------------------------------------------------------ command line
def test_cli_diffpart_ledger_budget_and_refusals(tmp_path):
    records = tmp_path / "d.txt"
    records.write_text("\n".join(["i0,i1"] * 200 + ["i3"] * 50) + "\n")
    universe = tmp_path / "universe.txt"
    universe.write_text("\n".join(UNIVERSE) + "\n")
    ledger = tmp_path / "PRIVATE-ledger.json"
    base = ("anonymize", records, "-a", "diffpart", "--universe", universe, "--param", "fanout=3")
    ok = cli(*base, "--epsilon", "0.6", "-o", tmp_path / "r1.json", "--ledger", ledger, "--budget", "1")
    assert ok.exit_code == 0, ok.output
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600
    doc = json.loads((tmp_path / "r1.json").read_text())
    assert doc["kind"] == "synthetic" and doc["data_fingerprint"] is None and doc["params"]["epsilon"] == 0.6
    # the ledger knows the same records in another order
    (tmp_path / "shuffled.txt").write_text("\n".join(["i3"] * 50 + ["i1,i0"] * 200) + "\n")
    refused = cli("anonymize", tmp_path / "shuffled.txt", *base[2:], "--epsilon", "0.5", "-o", tmp_path / "r2.json",
                   "--ledger", ledger, "--budget", "1")
    assert refused.exit_code == 2
    assert "would take the data's total to 1.1; already spent 0.6 on 1 release (diffpart epsilon=0.6" in refused.output
    assert not (tmp_path / "r2.json").exists()
    for extra, message in [
        (("--epsilon", "1", "--seed", "3"), "--seed would make its noise reproducible"),
        (("--epsilon", "1", "--link-out", tmp_path / "l.json"), "has no private link"),
        (("--epsilon", "1", "--budget", "2"), "--budget needs --ledger"),
        (("--param", "fanout=3"), "needs --epsilon"),
    ]:
        res = cli(*base, *extra, "-o", tmp_path / "x.json")
        assert res.exit_code == 2 and message in res.output, res.output
    res = cli("anonymize", records, "-a", "diffpart", "--epsilon", "1", "--taxonomy", "balanced:3", "-o",
               tmp_path / "x.json")
    assert res.exit_code == 2 and "built over the items observed in the data" in res.output
    res = cli("anonymize", records, "-a", "diffpart", "--epsilon", "1", "-o", tmp_path / "x.json")
    assert res.exit_code == 2 and "needs the public item universe" in res.output
    res = cli("anonymize", records, "-a", "randswap", "--epsilon", "1", "-o", tmp_path / "x.json")
    assert res.exit_code == 2 and "does not use --epsilon" in res.output
