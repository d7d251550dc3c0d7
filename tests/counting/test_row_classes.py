"""``row_classes``: the classes of identical rows, vectorized, equal to a dictionary of exact row keys.

The reference numbers the classes as Clump's identical-record grouping did
before (a dictionary of each row's column bytes, in row order), so Clump's
groups, and its release, do not move.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import graphanon.counting.rows as rows
from graphanon.counting.rows import row_classes
from graphanon.datasets import load


def by_dictionary(X) -> np.ndarray:
    """Class ids by first appearance of each row's column bytes (no hashing)."""
    X = sp.csr_array(X)
    ids: dict = {}
    return np.array([ids.setdefault(X.indices[X.indptr[i]:X.indptr[i + 1]].tobytes(), len(ids))
                     for i in range(X.shape[0])], dtype=np.int64)


def few_patterns(seed: int, n: int, d: int) -> sp.csr_array:
    """Rows drawn from a few patterns (many duplicates, empty rows included)."""
    rng = np.random.default_rng(seed)
    patterns = rng.random((max(1, n // 4), d)) < rng.uniform(0.05, 0.6)
    return sp.csr_array(patterns[rng.integers(0, len(patterns), n)])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 60), st.integers(1, 20))
def test_row_classes_equal_the_dictionary(seed, n, d):
    X = few_patterns(seed, n, d)
    np.testing.assert_array_equal(row_classes(X), by_dictionary(X))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 40), st.integers(1, 8))
def test_a_collision_of_both_lanes_falls_back_to_exact_keys(seed, n, d):
    """Every row hashed to the same value: the groups mix different rows, the check sees it."""
    X = few_patterns(seed, n, d)
    real = rows.row_hashes
    rows.row_hashes = lambda M, *a, **kw: np.zeros((sp.csr_array(M).shape[0], 2), dtype=np.uint64)
    try:
        got = row_classes(X)
    finally:
        rows.row_hashes = real
    np.testing.assert_array_equal(got, by_dictionary(X))


def test_row_classes_on_bundled_data():
    for name in ("bms1", "groceries", "chess", "mushroom"):
        X = load(name).matrix
        np.testing.assert_array_equal(row_classes(X), by_dictionary(X), err_msg=name)
