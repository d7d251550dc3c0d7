"""The Quest-style generator against T10I4D100K's published statistics."""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.datasets.synthetic import quest, quest_patterns, quest_taxonomy
from graphanon.errors import ParameterError


@pytest.fixture(scope="module")
def t10i4():
    """T10I4D20K (T10I4D100K's parameters, a fifth of the records)."""
    return quest(20_000, rng=0)


def test_t10i4_statistics(t10i4):
    lengths = np.diff(t10i4.matrix.indptr)
    # T10I4D100K: mean record length 10.1, 870 of 1,000 items used, longest record 29.
    assert 9.6 < lengths.mean() < 10.6
    assert 780 <= t10i4.n_items <= 950
    assert lengths.min() >= 1 and 20 <= lengths.max() <= 45
    # Poisson-like record sizes: variance of the order of the mean, not of a constant size.
    assert 0.5 * lengths.mean() < lengths.var() < 3 * lengths.mean()
    # skewed item popularity: the top 10% of items hold far more than 10% of occurrences
    sup = np.sort(t10i4.supports())[::-1]
    assert sup[: len(sup) // 10].sum() > 0.25 * sup.sum()


def test_pattern_weights_and_sizes():
    items, ptr, weights, corruption = quest_patterns(1000, 4000, 4, rng=5)
    sizes = np.diff(ptr)
    assert abs(sizes.mean() - 4) < 0.3 and sizes.min() >= 1
    # Exp(1) weights: coefficient of variation 1, median/mean = ln 2
    assert abs(weights.std() / weights.mean() - 1) < 0.1
    assert abs(np.median(weights) / weights.mean() - np.log(2)) < 0.05
    assert abs(corruption.mean() - 0.5) < 0.03
    for i in range(0, 4000, 97):
        pattern = items[ptr[i] : ptr[i + 1]]
        assert len(set(pattern.tolist())) == len(pattern)
    # correlation: consecutive patterns share items far more often than independent ones would
    shared = [len(np.intersect1d(items[ptr[i] : ptr[i + 1]], items[ptr[i + 1] : ptr[i + 2]])) for i in range(3999)]
    assert np.mean(shared) > 1.0


def test_same_seed_same_data_other_seed_other_data():
    a, b, c = quest(3000, rng=11), quest(3000, rng=11), quest(3000, rng=12)
    assert a.items == b.items
    assert (a.matrix != b.matrix).nnz == 0
    assert a.items != c.items or (a.matrix != c.matrix).nnz > 0


def test_patterns_show_up_as_frequent_pairs(t10i4):
    # records are built from patterns, so some pairs co-occur far above independence
    X = t10i4.matrix.astype(np.int32)
    sup = t10i4.supports().astype(float)
    pairs = (X.T @ X).toarray().astype(float)
    np.fill_diagonal(pairs, 0)
    expected = np.outer(sup, sup) / t10i4.n_records
    lift = pairs / np.maximum(expected, 1e-9)
    assert (lift[(pairs >= 50)] > 5).sum() > 100


def test_taxonomy_covers_the_items():
    data = quest(500, n_items=60, rng=2)
    tax = quest_taxonomy(data, fanout=4, rng=0)
    assert sorted(tax.leaves) == sorted(data.items)
    assert tax.height >= 2


@pytest.mark.parametrize(
    "kwargs",
    [{"n_records": 0}, {"n_records": 10, "avg_record_length": -1}, {"n_records": 10, "n_items": 2.5},
     {"n_records": 10, "correlation": 2}, {"n_records": "many"}],
)
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        quest(**kwargs)
