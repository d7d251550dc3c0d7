"""Dask support counting equals the single-process counting exactly (LocalCluster, 2 workers)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

from graphanon.counting import support  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.datasets.synthetic import quest  # noqa: E402
from graphanon.distributed import minimal_infrequent_itemsets, pair_supports  # noqa: E402


@pytest.fixture
def client(dask_client):
    return dask_client


def _same_levels(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x.size == y.size
        np.testing.assert_array_equal(x.itemsets, y.itemsets)
        np.testing.assert_array_equal(x.supports, y.supports)


def test_pair_supports_equal(client):
    X = quest(2000, n_items=120, rng=3).matrix
    for parts in (1, 5):
        S = pair_supports(X, client=client, n_partitions=parts)
        assert (S != support.pair_supports(X, dense=False)).nnz == 0


@pytest.mark.parametrize(("k", "m"), [(3, 3), (20, None)])
def test_level_wise_search_equal_on_quest(client, k, m):
    X = quest(1500, n_items=100, rng=1).matrix
    viol, freq = minimal_infrequent_itemsets(X, k, m, client=client, n_partitions=5)
    ref_viol, ref_freq = support.minimal_infrequent_itemsets(X, k, m)
    _same_levels(viol, ref_viol)
    _same_levels(freq, ref_freq)
    assert sum(len(v) for v in viol) > 0


def test_km_verdict_on_bms1_sample_equal(client):
    X = load("bms1").matrix[::40]
    viol, _ = minimal_infrequent_itemsets(X, 5, 2, client=client)
    ref, _ = support.minimal_infrequent_itemsets(X, 5, 2)
    _same_levels(viol, ref)


def test_repeated_calls_on_the_same_data(client):
    # equal blocks scattered again must not reuse keys an earlier call has released
    X = quest(1000, n_items=80, rng=4).matrix
    first = pair_supports(X, client=client, n_partitions=2)
    viol, _ = minimal_infrequent_itemsets(X, 4, 2, client=client, n_partitions=2)
    again = pair_supports(X, client=client, n_partitions=2)
    assert (first != again).nnz == 0
    _same_levels(viol, support.minimal_infrequent_itemsets(X, 4, 2)[0])
