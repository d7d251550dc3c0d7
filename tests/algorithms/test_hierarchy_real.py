"""AA, HgHs/mHgHs and MM on bundled real data, each release audited independently."""

import numpy as np
import pytest

from graphanon.algorithms import (
    anonymize_aa,
    anonymize_hghs,
    anonymize_mhghs,
    anonymize_mm,
)
from graphanon.cli.registry import RunOptions, get_algorithm
from graphanon.datasets import load, load_taxonomy
from graphanon.metrics import ncp, recoding_loss, suppression_ratio
from graphanon.privacy import HKPCoherence, KmAnonymity
from graphanon.privacy.registry import build_model
from graphanon.taxonomy import Taxonomy


@pytest.fixture(scope="module")
def bms1():
    data = load("bms1")
    return data, Taxonomy.balanced(data.items, 5)


@pytest.fixture(scope="module")
def groceries():
    return load("groceries"), load_taxonomy("groceries")


def _check_costs(rel, data):
    loss = recoding_loss(data, rel)
    assert rel.params["cost"] == pytest.approx(loss.total, rel=1e-9, abs=1e-9)
    assert rel.params["ncp"] == pytest.approx(ncp(data, rel), rel=1e-9, abs=1e-12)
    assert rel.params["cost_generalization"] + rel.params["cost_suppression"] == pytest.approx(rel.params["cost"])


@pytest.mark.parametrize("k, m", [(5, 2), (25, 1)])
def test_bms1_all_methods_audited(bms1, k, m):
    data, tax = bms1
    audit = KmAnonymity(k, m)
    for rel in (
        anonymize_aa(data, taxonomy=tax, k=k, m=m),
        anonymize_mhghs(data, taxonomy=tax, k=k, m=m),
        anonymize_mm(data, k=k, m=m),
    ):
        rep = audit.audit(data, rel)
        assert rep.satisfied, (rel.algorithm, str(rep))
        _check_costs(rel, data)


@pytest.mark.parametrize("k, m", [(10, 2), (2, 3)])
def test_groceries_all_methods_audited(groceries, k, m):
    data, tax = groceries
    audit = KmAnonymity(k, m)
    rels = [
        anonymize_aa(data, taxonomy=tax, k=k, m=m),
        anonymize_hghs(data, taxonomy=tax, k=k, m=m),
        anonymize_mhghs(data, taxonomy=tax, k=k, m=m),
        anonymize_mm(data, k=k, m=m),
    ]
    for rel in rels:
        rep = audit.audit(data, rel)
        assert rep.satisfied, (rel.algorithm, str(rep))
        _check_costs(rel, data)
    # AA never suppresses; MM never generalizes
    assert suppression_ratio(data, rels[0]) == 0.0
    assert rels[3].params["cost_generalization"] == 0.0


def test_groceries_hkp_with_private_items(groceries):
    data, _ = groceries
    private = ["whole milk", "beef", "soda"]
    rel = anonymize_mm(data, k=5, m=2, h=0.3, private_items=private)
    assert HKPCoherence(0.3, 5, 2, private).audit(data, rel).satisfied
    # private items are published unchanged
    for x in private:
        assert rel.mapping[x] == x
    # the raw data is not coherent, and the audit says why
    raw = anonymize_mm(data, k=1, m=1)
    rep = HKPCoherence(0.3, 5, 2, private).audit(data, raw)
    assert not rep.satisfied and rep.details["support_violations"] > 0


def test_bms1_subsample_hghs(bms1):
    data, tax = bms1
    sub = data.subset(np.arange(0, data.n_records, 7))
    rel = anonymize_hghs(sub, taxonomy=tax, k=5, m=2)
    assert KmAnonymity(5, 2).audit(sub, rel).satisfied


def test_cli_adapters_and_audit_model(groceries):
    data, tax = groceries
    for name in ("aa", "hghs", "mhghs", "mm"):
        spec = get_algorithm(name)
        rel = spec.run(data, RunOptions(k=10, m=1, taxonomy=tax))
        assert KmAnonymity(10, 1).audit(data, rel).satisfied
    rel = get_algorithm("mm").run(
        data, RunOptions(k=10, m=2, params={"h": "0.4", "private": "whole milk,beef"})
    )
    model = build_model("hkp", k=10, m=2, params={"h": "0.4", "private": "whole milk,beef"}, original=data)
    assert isinstance(model, HKPCoherence) and model.p == 2 and model.private_items == ("whole milk", "beef")
    assert model.audit(data, rel).satisfied
    # the one-string form --param h=0.4,p=2,private=whole milk,beef is accepted too
    same = build_model("hkp", k=10, m=None, params={"h": "0.4,p=2,private=whole milk,beef"}, original=data)
    assert (same.h, same.p, same.private_items) == (0.4, 2, ("whole milk", "beef"))
    rel2 = get_algorithm("mm").run(data, RunOptions(k=10, m=2, params={"h": "0.4,private=whole milk,beef"}))
    assert rel2.params["private"] == ["beef", "whole milk"] and rel2.params["h"] == 0.4


def test_save_load_roundtrip_and_progress(groceries, tmp_path):
    from graphanon.release import load_release

    data, tax = groceries
    calls = []
    rel = anonymize_mhghs(data, taxonomy=tax, k=10, m=2, progress=lambda d, t, msg: calls.append(msg))
    assert any("round 2" in c for c in calls)
    path = tmp_path / "rel.json"
    rel.save(path)
    back = load_release(path)
    assert back.algorithm == "mhghs" and back.published_items == rel.published_items
    assert back.trace is None and back.params["n_suppressed_nodes"] == len(rel.trace.suppressed)
    assert back.params["cost_suppression"] == pytest.approx(rel.params["cost_suppression"])
    assert KmAnonymity(10, 2).audit(data, back).satisfied
