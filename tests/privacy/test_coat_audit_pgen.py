"""Privacy-constraint audit (Def. 3.4), utility check (Def. 3.8) and Pgen (Algorithm 4)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.coat import pgen
from graphanon.data import from_iterable
from graphanon.datasets import load, load_constraints
from graphanon.errors import ParameterError
from graphanon.privacy import PrivacyConstraints, UtilityConstraints, check_utility_constraints
from graphanon.release import GlobalRecoding


def identity(data):
    return GlobalRecoding.from_mapping(data, {x: x for x in data.items})


def test_raw_fig1_violates_both_constraints():
    data, c = load("coat_fig1"), load_constraints("coat_fig1")
    rep = PrivacyConstraints(c["privacy"], 5).audit(data, identity(data))
    assert not rep.satisfied and rep.violations == 2
    assert rep.worst["support"] == 1


def test_subset_clause():
    # sup(abc) = 0 but sup(ab) = 1 in (0, 3): {a,b,c} is violated; {a,c}: support 0, a and c frequent: satisfied.
    data = from_iterable([["a", "b"]] + [["a"]] * 4 + [["b"]] * 4 + [["c"]] * 4)
    rel = identity(data)
    rep = PrivacyConstraints([["a", "b", "c"]], 3).audit(data, rel)
    assert not rep.satisfied
    assert rep.counterexamples[0]["violating_itemset"] == ["a", "b"]
    assert PrivacyConstraints([["a", "c"]], 3).audit(data, rel).satisfied
    # Merging a and b hides ab inside (a,b): support 9, and (a,b)c has support 0 with frequent subsets.
    merged = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": "c"})
    assert PrivacyConstraints([["a", "b", "c"]], 3).audit(data, merged).satisfied


def test_fully_suppressed_constraint_is_satisfied_and_tampering_is_caught():
    data = from_iterable([["a", "b"], ["a"], ["b", "c"]])
    rel = GlobalRecoding.from_mapping(data, {"a": None, "b": "b", "c": None})
    assert PrivacyConstraints([["a", "c"]], 3).audit(data, rel).satisfied
    assert not PrivacyConstraints([["b"]], 3).audit(data, rel).satisfied  # sup(b) = 2 in (0, 3)
    forged = GlobalRecoding(
        published_items=rel.published_items, records=rel.records[[0, 0, 0]], universe=3
    )
    rep = PrivacyConstraints([["b"]], 3).audit(data, forged)
    assert not rep.satisfied and rep.details["recoding_mismatches"] == 1


def test_utility_check():
    data = from_iterable([["a", "b"], ["c"], ["d"]])
    rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": None, "d": "d"})
    assert check_utility_constraints(data, rel, [["a", "b"], ["c", "d"]], 0.25).satisfied
    rep = check_utility_constraints(data, rel, [["a"], ["b"], ["c", "d"]], 0.0)
    assert rep.violations == 2  # (a,b) spans two blocks, and 25% > 0% suppressed
    assert UtilityConstraints("all", 0.25).audit(data, rel).satisfied
    with pytest.raises(ParameterError, match="in no utility constraint"):
        check_utility_constraints(data, rel, [["a", "b"]], 0.5)


def test_audit_bad_input():
    data = load("coat_fig1")
    with pytest.raises(ParameterError, match="k must be a whole number"):
        PrivacyConstraints([["a"]], 0)
    with pytest.raises(ParameterError, match="privacy constraint #1 is empty"):
        PrivacyConstraints([["a"], []], 2)
    with pytest.raises(ParameterError, match="names item 'zz'"):
        PrivacyConstraints([["a", "zz"]], 2).audit(data, identity(data))


def brute_pgen(records, k):
    distinct = list(dict.fromkeys(frozenset(r) for r in records if r))
    out = []
    for t in distinct:
        if any(t < u for u in distinct):
            continue
        if sum(1 for r in records if t <= set(r)) < k:
            out.append(t)
    return set(out)


def test_pgen_golden():
    data = from_iterable([["a", "c", "f"], ["a", "c"], ["b", "h"]])
    assert pgen(data, 2) == [("a", "c", "f"), ("b", "h")]
    assert pgen(data, 1) == []
    with pytest.raises(ParameterError, match="k must be a whole number >= 1"):
        pgen(data, 0)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 6), max_size=5, unique=True), min_size=1, max_size=20),
    st.integers(1, 4),
)
def test_pgen_matches_brute_force(records, k):
    data = from_iterable(records, items=list(range(7)))
    k = min(k, len(records))
    got = pgen(data, k)
    assert {frozenset(int(x) for x in p) for p in got} == brute_pgen(records, k)
    assert [len(p) for p in got] == sorted((len(p) for p in got), reverse=True)
    assert len(set(got)) == len(got)


def test_pgen_bms1_constraints_are_maximal_and_infrequent():
    data = load("bms1")
    P = pgen(data, 5)
    assert len(P) > 100
    recs = data.records()
    sample = P[:: max(1, len(P) // 40)]
    for p in sample:
        s = set(p)
        assert 0 < sum(1 for r in recs if s <= r) < 5
        assert not any(s < r for r in recs)
    # every distinct maximal record with few copies is there
    assert len(set(P)) == len(P)
    assert all(isinstance(x, str) and x.isdigit() for x in itertools.chain.from_iterable(P[:5]))


def test_saved_release_is_audited_after_loading(tmp_path):
    from graphanon.algorithms.coat import KmConstraints, anonymize_coat
    from graphanon.privacy import KmAnonymity
    from graphanon.release.base import load_release

    data = load("bms1").subset(range(4000))
    rel = anonymize_coat(data, privacy=KmConstraints(2), utility=None, k=4, s=0.005)
    rel.save(tmp_path / "rel.json")
    back = load_release(tmp_path / "rel.json")
    assert back.algorithm == "coat" and back.params["k"] == 4
    assert KmAnonymity(4, 2).audit(data, back).satisfied
    assert PrivacyConstraints(KmConstraints(2), 4).audit(data, back).satisfied
    assert check_utility_constraints(data, back, "all", 0.005).satisfied
