"""k^infinity by containment counting: agrees with enumeration, minimal witnesses, bounded memory."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon import max_memory
from graphanon.counting.containment import distinct_records, record_supports, shrink_to_minimal
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.data import from_iterable
from graphanon.errors import MemoryBudgetError
from graphanon.privacy import KmAnonymity
from graphanon.release import GlobalRecoding

from ..conftest import brute_support, small_records


def _matrix(records, n_items):
    X = np.zeros((len(records), n_items), dtype=bool)
    for i, r in enumerate(records):
        X[i, list(r)] = True
    return sp.csr_array(X)


@settings(max_examples=80, deadline=None)
@given(small_records(max_records=30, max_items=7, min_records=0))
def test_record_supports_match_brute_force(records):
    X = _matrix(records, 7)
    expected = [brute_support(records, r) for r in records]
    for method in ("auto", "pairs", "bitmaps"):
        assert record_supports(X, method=method).tolist() == expected
    U, inverse, counts = distinct_records(X)
    assert (U[inverse] != X).nnz == 0 and counts.sum() == len(records)
    assert len({tuple(row) for row in U.toarray().tolist()}) == U.shape[0]


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=25, max_items=6), st.integers(1, 5))
def test_criterion_equals_levelwise_search(records, k):
    """Some itemset has support in [1, k) iff some record has support < k (the module's theorem)."""
    X = _matrix(records, 6)
    viol, _ = minimal_infrequent_itemsets(X, k, None)
    levelwise = any(len(level) for level in viol)
    nonempty = np.diff(X.indptr) > 0
    assert levelwise == bool(((record_supports(X) < k) & nonempty).any())


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=25, max_items=6), st.integers(2, 5))
def test_shrink_gives_a_minimal_violation(records, k):
    X = _matrix(records, 6)
    Xc = sp.csc_array(X)
    for r in records:
        if r and brute_support(records, r) < k:
            itemset, support = shrink_to_minimal(Xc, r, k)
            assert set(itemset) <= set(r) and support == brute_support(records, itemset)
            assert 0 < support < k
            for sub in itertools.combinations(itemset, len(itemset) - 1):
                assert not sub or brute_support(records, sub) >= k


def test_bounded_m_at_least_longest_record_is_k_infinity():
    data = from_iterable([["a", "b", "c"], ["a", "b"], ["a", "b"], ["c"]])
    raw = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    for m in (None, 3, 7):
        rep = KmAnonymity(2, m).audit(data, raw)
        assert rep.details["method"] == "containment counting"
        # the record abc is alone; its minimal violation is {a, c} (or {b, c}): support 1
        assert rep.violations == 1 and rep.worst["support"] == 1 and "c" in rep.worst["itemset"]
    assert "method" not in KmAnonymity(2, 2).audit(data, raw).details


def test_k_infinity_audit_is_bounded_on_long_records():
    """20 records of 40 distinct items: 2^40 subsets each, decided by containment counting."""
    rng = np.random.default_rng(0)
    records = [sorted(rng.choice(200, 40, replace=False).tolist()) for _ in range(20)]
    records += [records[0]] * 2
    data = from_iterable(records)
    raw = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    rep = KmAnonymity(3, None).audit(data, raw)
    assert not rep.satisfied and rep.violations == 19  # all but the three copies of record 0
    with max_memory("1G"), pytest.raises(MemoryBudgetError, match=r"bound the attacker knowledge, e.g. m=\d+ \(CLI: -m \d+\)"):
        minimal_infrequent_itemsets(data.matrix, 1, None)
