"""Bad input: clear errors; and the (h,k,p) audit against brute force."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_aa, anonymize_hghs, anonymize_mhghs, anonymize_mm
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError, TaxonomyError
from graphanon.privacy import HKPCoherence
from graphanon.privacy.registry import build_model
from graphanon.release import GlobalRecoding
from graphanon.taxonomy import Taxonomy


@pytest.fixture(scope="module")
def fig1():
    return load("liuwang_fig1"), load_taxonomy("liuwang_fig1")


@pytest.mark.parametrize("fn", [anonymize_aa, anonymize_hghs, anonymize_mhghs])
def test_taxonomy_missing_items(fig1, fn):
    data, _ = fig1
    small = Taxonomy.from_parent_map({"a": "R", "b": "R"})
    with pytest.raises(TaxonomyError, match=r"not leaves of the taxonomy, e\.g\. 'c'"):
        fn(data, taxonomy=small, k=2, m=1)


@pytest.mark.parametrize("fn", [anonymize_aa, anonymize_hghs, anonymize_mhghs])
def test_bad_m_and_k(fig1, fn):
    data, tax = fig1
    with pytest.raises(ParameterError, match="m must be a whole number >= 1"):
        fn(data, taxonomy=tax, k=2, m=0)
    with pytest.raises(ParameterError, match="exceeds the number of records"):
        fn(data, taxonomy=tax, k=9, m=1)
    with pytest.raises(ParameterError, match="k must be a whole number >= 1"):
        fn(data, taxonomy=tax, k=0, m=1)


def test_mm_bad_input(fig1):
    data, _ = fig1
    with pytest.raises(ParameterError, match=r"m must be a whole number >= 1 or None \(p, "):
        anonymize_mm(data, k=2, m=0)
    with pytest.raises(ParameterError, match=r"private item\(s\) are not items of the data, e\.g\. 'zz'"):
        anonymize_mm(data, k=2, m=2, private_items=["a", "zz"])
    for h in (0.0, -0.5, 1.5):
        with pytest.raises(ParameterError, match=r"h must be a number in \(0, 1\]"):
            anonymize_mm(data, k=2, m=2, h=h)
    with pytest.raises(ParameterError, match="h must be a number"):
        anonymize_mm(data, k=2, m=2, h="high")


def test_hkp_model_bad_input(fig1):
    data, _ = fig1
    with pytest.raises(ParameterError, match=r"h must be a number in \(0, 1\]"):
        HKPCoherence(0, 2, 2)
    with pytest.raises(ParameterError, match="p must be a whole number"):
        HKPCoherence(0.5, 2, 0)
    rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    with pytest.raises(ParameterError, match="private item"):
        HKPCoherence(0.5, 2, 2, ["nope"]).audit(data, rel)
    with pytest.raises(ParameterError, match="unknown --param q"):
        build_model("hkp", k=2, m=2, params={"q": "1"}, original=data)
    with pytest.raises(ParameterError, match="needs -k"):
        build_model("hkp", k=None, m=2, params={}, original=data)


def _brute_hkp(records, h, k, p, private):
    public = sorted({x for r in records for x in r} - set(private))
    for size in range(1, p + 1):
        for beta in itertools.combinations(public, size):
            s = sum(1 for r in records if set(beta) <= r)
            if s == 0:
                continue
            if s < k:
                return False
            for e in private:
                if sum(1 for r in records if set(beta) <= r and e in r) > h * s:
                    return False
    return True


def _brute_confidence_pairs(records, h, k, p, private):
    """(public itemset of <= p items with support >= k, private item) pairs with confidence > h."""
    public = sorted({x for r in records for x in r} - set(private))
    out = []
    for size in range(1, p + 1):
        for beta in itertools.combinations(public, size):
            s = sum(1 for r in records if set(beta) <= r)
            if s >= k:
                out += [(beta, e) for e in private if sum(1 for r in records if set(beta) <= r and e in r) > h * s]
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 6), min_size=1, max_size=5, unique=True), min_size=2, max_size=14),
    st.sampled_from([0.2, 0.4, 0.75, 1.0]),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(0, 3),
)
def test_hkp_audit_matches_brute_force(records, h, k, p, n_private):
    """The verdict, and each (itemset, private item) pair above h counted once at every level
    (not just for minimal itemsets) and shown as an example."""
    data = from_iterable(records)
    k = min(k, data.n_records)
    private = list(data.items[:n_private])
    rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    rep = HKPCoherence(h, k, p, private).audit(data, rel, max_examples=1000)
    as_sets = [{str(x) for x in r} for r in records]
    assert rep.satisfied == _brute_hkp(as_sets, h, k, p, private)
    brute = _brute_confidence_pairs(as_sets, h, k, p, private) if h < 1.0 else []
    assert rep.details["confidence_violations"] == len(brute)
    shown = {(tuple(ex["itemset"]), ex["private_item"]) for ex in rep.counterexamples if ex["kind"] == "confidence"}
    assert shown == {(tuple(beta), e) for beta, e in brute}
