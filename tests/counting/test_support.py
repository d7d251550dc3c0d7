import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.counting.support import (
    VerticalBitmaps,
    generalize_matrix,
    item_supports,
    minimal_infrequent_itemsets,
    pair_supports,
)
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError

from ..conftest import brute_km_violations, brute_support, small_records


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=70, max_items=9), st.data())
def test_bitmap_supports_match_brute_force(records, data):
    d = from_iterable(records, items=list(range(9)))
    vb = VerticalBitmaps(d.matrix)
    sets = data.draw(st.lists(st.sets(st.integers(0, 8), max_size=4), min_size=1, max_size=10))
    got = vb.supports([sorted(s) for s in sets])
    assert got.tolist() == [brute_support(records, s) for s in sets]
    for s in sets:
        assert vb.support(sorted(s)) == brute_support(records, s)
        assert sorted(vb.records_of(sorted(s)).tolist()) == [
            i for i, r in enumerate(records) if set(s) <= set(r)
        ]


@settings(max_examples=40, deadline=None)
@given(small_records(max_records=40, max_items=9))
def test_pair_supports_match_brute_force(records):
    d = from_iterable(records, items=list(range(9)))
    S = pair_supports(d.matrix)
    for a, b in itertools.combinations_with_replacement(range(9), 2):
        assert S[a, b] == brute_support(records, {a, b})
    assert item_supports(d.matrix).tolist() == [brute_support(records, {a}) for a in range(9)]
    Ssparse = pair_supports(d.matrix, dense=False)
    assert np.array_equal(Ssparse.toarray(), S)


@settings(max_examples=80, deadline=None)
@given(small_records(max_records=30, max_items=7), st.integers(1, 5), st.one_of(st.none(), st.integers(1, 5)))
def test_minimal_infrequent_itemsets_match_brute_force(records, k, m):
    d = from_iterable(records, items=list(range(7)))
    viol, freq = minimal_infrequent_itemsets(d.matrix, k, m)
    got = {tuple(row) for lvl in viol for row in lvl.itemsets.tolist()}
    assert got == brute_km_violations(records, k, m)
    for lvl in viol:
        for row, sup in zip(lvl.itemsets.tolist(), lvl.supports.tolist()):
            assert sup == brute_support(records, row)
    for lvl in freq:
        for row, sup in zip(lvl.itemsets.tolist(), lvl.supports.tolist()):
            assert sup == brute_support(records, row) >= k


def test_item_restriction():
    d = from_iterable([[0, 1], [0, 1], [2]], items=[0, 1, 2])
    viol, _ = minimal_infrequent_itemsets(d.matrix, 2, 2, items=[0, 1])
    assert viol[0].itemsets.size == 0  # item 2 (support 1) is outside the restriction


def test_parameter_errors():
    X = sp.csr_array(np.eye(3, dtype=bool))
    with pytest.raises(ParameterError, match="k must be at least 1"):
        minimal_infrequent_itemsets(X, 0, 2)
    with pytest.raises(ParameterError, match="m must be at least 1"):
        minimal_infrequent_itemsets(X, 2, 0)


def test_generalize_matrix():
    X = sp.csr_array(np.array([[1, 1, 0], [0, 0, 1], [1, 0, 1]], dtype=bool))
    G = generalize_matrix(X, np.array([0, 0, -1]), 1)
    assert G.toarray().ravel().tolist() == [True, False, True]


def test_bms1_level_counts_are_consistent():
    X = load("bms1").matrix
    viol, freq = minimal_infrequent_itemsets(X, 5, 2)
    S = pair_supports(X)
    sup = np.diag(S)
    frequent_items = np.flatnonzero(sup >= 5)
    sub = S[np.ix_(frequent_items, frequent_items)]
    iu = np.triu_indices(len(frequent_items), 1)
    vals = sub[iu]
    assert len(viol[1]) == int(((vals > 0) & (vals < 5)).sum())
    assert len(freq[1]) == int((vals >= 5).sum())


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=40, max_items=12), st.integers(1, 40), st.booleans(), st.integers(0, 2**31 - 1))
def test_pair_code_counting_matches_brute_force(records, block, dense_limit, seed):
    """The pair-code counter in any block size, on unsorted input with repeated entries,
    equals brute force; so does the sparse-product path (used beyond 4096 items)."""
    from graphanon.counting import support

    rows = [i for i, r in enumerate(records) for _ in r]
    cols = [j for r in records for j in r]
    gen = np.random.default_rng(seed)
    perm = gen.permutation(len(rows))
    extra = gen.integers(0, max(len(rows), 1), size=3 if rows else 0)  # repeat a few entries
    r = np.concatenate([np.asarray(rows, dtype=np.int64)[perm], np.asarray(rows, dtype=np.int64)[extra]])
    c = np.concatenate([np.asarray(cols, dtype=np.int64)[perm], np.asarray(cols, dtype=np.int64)[extra]])
    X = sp.csr_array((np.ones(len(r), dtype=bool), (r, c)), shape=(len(records), 12))
    X = sp.csr_array((X.data, X.indices, X.indptr), shape=X.shape)  # may keep duplicates / unsorted order
    old = support._PAIR_BLOCK, support._DENSE_PAIRS
    support._PAIR_BLOCK, support._DENSE_PAIRS = block, (12 if dense_limit else 0)
    try:
        S = pair_supports(X, dense=True)
    finally:
        support._PAIR_BLOCK, support._DENSE_PAIRS = old
    want = [[brute_support(records, {a, b}) for b in range(12)] for a in range(12)]
    assert S.tolist() == want


@settings(max_examples=40, deadline=None)
@given(small_records(max_records=30, max_items=10), st.data())
def test_select_columns_keeps_exactly_the_chosen_columns(records, data):
    from graphanon.counting.support import select_columns

    d = from_iterable(records, items=list(range(10)))
    cols = np.array(sorted(data.draw(st.sets(st.integers(0, 9)))), dtype=np.int64)
    dense = d.matrix.toarray()
    assert np.array_equal(select_columns(d.matrix, cols).toarray(), dense[:, cols])
    kept = np.zeros_like(dense)
    kept[:, cols] = dense[:, cols]
    assert np.array_equal(select_columns(d.matrix, cols, renumber=False).toarray(), kept)
