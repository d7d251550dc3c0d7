"""Hypothesis: random data and random taxonomies; every release passes the independent audit."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_aa, anonymize_hghs, anonymize_mhghs, anonymize_mm
from graphanon.algorithms.hierarchy._index import HierarchyIndex
from graphanon.algorithms.hierarchy.hghs import best_suppression
from graphanon.data import from_iterable
from graphanon.errors import InfeasibleError
from graphanon.metrics import ncp, ncp_taxonomy, recoding_loss
from graphanon.privacy import HKPCoherence, KmAnonymity
from graphanon.taxonomy import Taxonomy

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw):
    n_items = draw(st.integers(2, 9))
    n_rec = draw(st.integers(2, 14))
    records = [
        draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=min(5, n_items), unique=True))
        for _ in range(n_rec)
    ]
    data = from_iterable(records)
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    # random tree: internal nodes I0 (root)..I_j, each hung under an earlier one; items under random internals
    n_int = draw(st.integers(1, 4))
    parent = {f"I{i}": f"I{int(rng.integers(0, i))}" for i in range(1, n_int)}
    for x in data.items:
        parent[x] = f"I{int(rng.integers(0, n_int))}"
    if n_int == 1 and len(data.items) == 1:
        parent["spare"] = "I0"
    tax = Taxonomy.from_parent_map(parent)
    k = draw(st.integers(1, max(1, min(4, n_rec))))
    m = draw(st.one_of(st.none(), st.integers(1, 3)))
    return data, tax, k, m


@SETTINGS
@given(instances())
def test_every_method_passes_km_audit(inst):
    data, tax, k, m = inst
    audit = KmAnonymity(k, m)
    rels = [anonymize_hghs(data, taxonomy=tax, k=k, m=m), anonymize_mhghs(data, taxonomy=tax, k=k, m=m),
            anonymize_mm(data, k=k, m=m)]
    try:
        rels.append(anonymize_aa(data, taxonomy=tax, k=k, m=m))
    except InfeasibleError:
        # AA cannot suppress: infeasible exactly when fewer than k records are non-empty
        assert int((np.diff(data.matrix.indptr) > 0).sum()) < k
    for rel in rels:
        rep = audit.audit(data, rel)
        assert rep.satisfied, (rel.algorithm, str(rep))
        # the search objective is the taxonomy-leaf LM cost; the reported ncp is the canonical one
        occurrences = data.matrix.nnz
        assert rel.params["cost"] == pytest.approx(ncp_taxonomy(data, rel) * occurrences, abs=1e-9)
        assert rel.params["ncp"] == pytest.approx(ncp(data, rel), abs=1e-12)
        if len(tax.leaves) == data.n_items:
            assert rel.params["cost"] == pytest.approx(recoding_loss(data, rel).total, abs=1e-9)


@SETTINGS
@given(instances(), st.floats(0.2, 1.0), st.integers(0, 3))
def test_mm_hkp_with_random_private_items(inst, h, n_private):
    data, _, k, m = inst
    private = list(data.items[: min(n_private, data.n_items - 1)])
    rel = anonymize_mm(data, k=k, m=m, h=h, private_items=private)
    assert HKPCoherence(h, k, m, private).audit(data, rel).satisfied
    assert all(rel.mapping.get(x) == x for x in private)


def _brute_threats_ok(data, tax, cut, suppressed, k, m):
    """Brute force: every itemset of kept cut nodes of size <= m has support 0 or >= k."""
    leaf_to = tax.cut_map(cut)
    recs = [{leaf_to[x] for x in data.record(i)} - set(suppressed) for i in range(data.n_records)]
    kept = [c for c in cut if c not in suppressed]
    top = max((len(r) for r in recs), default=0) if m is None else m
    for size in range(1, top + 1):
        for combo in itertools.combinations(kept, size):
            s = sum(1 for r in recs if set(combo) <= r)
            if 0 < s < k:
                return False
    return True


@SETTINGS
@given(instances(), st.integers(0, 5))
def test_suppression_scenario_of_any_cut_is_valid(inst, depth):
    data, tax, k, m = inst
    cut = tax.level(min(depth, tax.height))
    r = best_suppression(data, taxonomy=tax, cut=cut, k=k, m=m)
    assert _brute_threats_ok(data, tax, cut, r["suppressed"], k, m)
    # mined on the cut's columns only: the same threats as those of all cuts lying in the cut
    index = HierarchyIndex(data, tax)
    every = index.threats(k, m)
    assert r["threats"] == [index.labels(t) for t in every.within(index.positions(cut))]
    order = index.by_rank[np.isin(index.by_rank, index.positions(cut))]
    assert r["suppressed"] == index.labels(np.sort(order[~every.keep(order)]))


def test_aa_infeasible_raises():
    data = from_iterable([["a"], [], []])
    tax = Taxonomy.from_parent_map({"a": "R", "b": "R"})
    with pytest.raises(InfeasibleError, match="non-empty"):
        anonymize_aa(data, taxonomy=tax, k=2, m=1)
    # HgHs meets the model by suppression instead
    rel = anonymize_hghs(data, taxonomy=tax, k=2, m=1)
    assert KmAnonymity(2, 1).audit(data, rel).satisfied and rel.trace.suppressed
