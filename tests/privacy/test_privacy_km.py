import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_cut
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError
from graphanon.privacy import KmAnonymity, TransactionalKAnonymity
from graphanon.release import GlobalRecoding

from ..conftest import brute_km_violations, brute_support, small_records


def identity(data):
    return GlobalRecoding.from_mapping(data, {x: x for x in data.items})


def test_golden_cut_passes_and_raw_fails():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rel = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])
    rep = KmAnonymity(2, None).audit(data, rel)
    assert rep.satisfied and rep.violations == 0
    raw = KmAnonymity(2, None).audit(data, identity(data))
    assert not raw.satisfied
    itemsets = [tuple(ex["itemset"]) for ex in raw.counterexamples]
    assert ("x",) in itemsets and raw.worst["support"] == 1
    # every counterexample is a real violation: its records hold it, and there are fewer than 2
    for ex in raw.counterexamples:
        recs = [i for i in range(data.n_records) if set(ex["itemset"]) <= data.record(i)]
        # identity(data) is hand-made and row-aligned: row i is named p{i+1}
        assert 0 < len(recs) < 2 and [f"p{i + 1}" for i in recs] == ex["published_records"]


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=25, max_items=6), st.integers(1, 4), st.one_of(st.none(), st.integers(1, 4)))
def test_audit_agrees_with_brute_force(records, k, m):
    data = from_iterable(records, items=list(range(6)))
    if k > data.n_records:
        return
    rep = KmAnonymity(k, m).audit(data, identity(data), max_examples=10_000)
    brute = brute_km_violations(records, k, m)
    assert rep.satisfied == (not brute)
    found = {tuple(ex["itemset"]) for ex in rep.counterexamples}
    brute = {tuple(map(str, t)) for t in brute}
    if m is None or m >= max(map(len, records)):
        # k^infinity by containment counting: the unit is the violating record, and each
        # counter-example is a true minimal violation (one per distinct violating record).
        bad = [tuple(map(str, r)) for r in records if r and brute_support(records, r) < k]
        assert rep.violations == len(bad) and rep.details["method"] == "containment counting"
        assert found <= brute and bool(found) == bool(bad)
        assert set(bad) == {r for r in bad if any(set(v) <= set(r) for v in found)}
    else:
        assert rep.violations == len(brute)
        assert found == brute


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000))
def test_planted_violation_is_found(k, seed):
    rng = np.random.default_rng(seed)
    # k copies of a common record make {0,1} safe; one record with the rare pair {2,3} plants a violation
    records = [[0, 1]] * k + [[2, 3]] * k + [[0, 2]]
    rng.shuffle(records)
    data = from_iterable(records, items=[0, 1, 2, 3])
    rep = KmAnonymity(k, 2).audit(data, identity(data))
    assert not rep.satisfied and (["0", "2"] in [ex["itemset"] for ex in rep.counterexamples])


def test_tampered_release_is_caught():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rel = anonymize_cut(data, taxonomy=tax, cut=["T"])
    recs = rel.records.toarray()
    recs[rel.link.row_of_record[7], :] = False  # drop t8's published item: no longer the recoding of t8
    forged = GlobalRecoding(published_items=rel.published_items, records=recs, universe=rel.universe)
    rep = KmAnonymity(1, 1).audit(data, forged)
    assert not rep.satisfied and rep.details["recoding_mismatches"] == 1
    # order-free: every record recodes to "T" and only 7 rows say "T" (the audit cannot tell whose
    # row is gone); one published row is nobody's recoding
    short, extra = rep.counterexamples[:2]
    assert (short["expected"], short["original_count"], short["published_count"]) == ("T", 8, 7)
    assert extra["published_records"] == [rel.pseudonyms[rel.link.row_of_record[7]]] and extra["published"] == ""
    short = GlobalRecoding(published_items=rel.published_items, records=recs[:7], universe=rel.universe)
    assert not KmAnonymity(1, 1).audit(data, short).satisfied


def test_transactional_audit():
    data = from_iterable([["a"], ["a"], ["b"], ["b", "a"]])
    rel = identity(data)
    rep = TransactionalKAnonymity(2).audit(data, rel)
    assert not rep.satisfied and rep.violations == 2 and rep.worst["group_size"] == 1
    merged = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)"})
    assert TransactionalKAnonymity(4).audit(data, merged).satisfied
    # brute force on every grouping of the identity release
    keys = [frozenset(r) for r in data.records()]
    for k in range(1, 5):
        expected = sum(1 for key in keys if keys.count(key) < k)
        assert TransactionalKAnonymity(k).audit(data, rel).violations == expected


def test_bad_k_and_m():
    data = load("liuwang_fig1")
    with pytest.raises(ParameterError, match="k must be a whole number >= 1"):
        KmAnonymity(0, 2)
    with pytest.raises(ParameterError, match="m must be a whole number >= 1"):
        KmAnonymity(2, 0)
    with pytest.raises(ParameterError, match="exceeds the number of records"):
        KmAnonymity(9, 2).audit(data, identity(data))
    with pytest.raises(ParameterError, match="k must be a whole number"):
        TransactionalKAnonymity(1.5)


def test_report_rendering():
    data = load("liuwang_fig1")
    rep = KmAnonymity(2, 1).audit(data, identity(data))
    text = str(rep)
    assert "VIOLATED" in text and "worst" in text
    d = rep.to_dict()
    assert d["satisfied"] is False and d["violations"] == len(list(itertools.chain(rep.counterexamples)))
