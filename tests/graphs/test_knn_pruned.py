"""The pruned kNN search equals the top-k of the full sparse product, on one thread, many, and Dask.

The reference here is the plain product ``X @ X.T`` with a per-row sort
(highest similarity, then lower index): no pruning, no shared code with
:mod:`graphanon.graphs._knn_kernel`. Data are drawn with skewed item
supports and lengths (many ties: the bounds' equality cases).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_clump
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError
from graphanon.graphs import similarity
from graphanon.graphs.similarity import RecordSimilarityGraph
from graphanon.privacy import TransactionalKAnonymity


def product_top_k(X, k: int, rows=None) -> np.ndarray:
    """Dense ``n x n`` matrix of each row's ``k`` best similarities, from the full product."""
    X = sp.csr_array(X, dtype=np.int64)
    X.data[:] = 1
    n = X.shape[0]
    inter = (X @ X.T).toarray()
    sizes = np.diff(X.indptr)
    out = np.zeros((n, n))
    for i in range(n) if rows is None else rows:
        cand = [(-(inter[i, j] / (sizes[i] + sizes[j] - inter[i, j])), j) for j in range(n) if j != i and inter[i, j]]
        for s, j in sorted(cand)[:k]:
            out[i, j] = -s
    return out


def skewed(seed: int, n: int, d: int) -> sp.csr_array:
    """Records over ``d`` items with Zipf-like supports and lengths 0..d, with duplicates."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, d + 1) ** rng.uniform(0.3, 1.5)
    p /= p.sum()
    lengths = np.minimum(rng.geometric(rng.uniform(0.2, 0.7), n) - (rng.random(n) < 0.1), d)
    M = np.zeros((n, d), dtype=bool)
    for i, length in enumerate(lengths):
        M[i, rng.choice(d, size=max(length, 0), replace=False, p=p)] = True
    dup = rng.integers(0, n, n // 5)
    M[rng.integers(0, n, n // 5)] = M[dup]
    return sp.csr_array(M)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 80), st.integers(1, 12), st.integers(1, 30), st.booleans())
def test_knn_equals_product_top_k(seed, n, d, k, some_rows):
    X = skewed(seed, n, d)
    rows = np.random.default_rng(seed).choice(n, size=max(1, n // 3), replace=False) if some_rows else None
    g = RecordSimilarityGraph.knn(X, k, rows=rows)
    np.testing.assert_array_equal(g.matrix.toarray(), product_top_k(X, k, rows))
    assert g.matrix.has_sorted_indices and np.all(np.diff(g.matrix.indptr) <= k)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 70), st.integers(1, 9), st.integers(1, 8), st.integers(1, 25))
def test_knn_many_identical_records_equal_product_top_k(seed, n, d, distinct, k):
    """Few distinct records, many copies of each: classes larger and smaller than ``k``, so the
    ``k``-th similarity is shared by many records and the ties go by index (the runs' stops)."""
    rng = np.random.default_rng(seed)
    pool = rng.random((distinct, d)) < rng.uniform(0.2, 0.8)
    X = sp.csr_array(pool[rng.integers(0, distinct, n)])
    np.testing.assert_array_equal(RecordSimilarityGraph.knn(X, k).matrix.toarray(), product_top_k(X, k))


def test_knn_equal_fractions_tie_by_index():
    """200/1000 and 120/600 are one similarity: the lower record index wins, whichever fraction it
    has; 201/1000 is above both (similarities are compared as fractions, by cross-multiplication)."""
    q = np.arange(600)
    a = np.r_[np.arange(200), np.arange(600, 1000)]  # 200 shared, union 1000
    b = np.arange(120)  # 120 shared, union 600
    c = np.r_[np.arange(201), np.arange(1000, 1400)]  # 201 shared, union 1000: 201/1000
    for rows, want in (([q, a, b], [1, 2]), ([q, b, a], [1, 2]), ([q, a, b, c], [3, 1])):
        X = sp.csr_array((np.ones(sum(map(len, rows))), np.concatenate(rows),
                          np.r_[0, np.cumsum([len(r) for r in rows])]), shape=(len(rows), 1400))
        g = RecordSimilarityGraph.knn(X, 2, rows=[0])
        np.testing.assert_array_equal(g.matrix.toarray(), product_top_k(X, 2, [0]))
        assert sorted(g.neighbors(0)[0].tolist()) == sorted(want)
        assert RecordSimilarityGraph.knn(X, 1, rows=[0]).neighbors(0)[0].tolist() == [want[0]]


def test_knn_clump_setting_on_bms1_equals_product():
    """As Clump calls it: the identical-record groups' rows emptied, only the others queried, k = 50."""
    from graphanon.algorithms.grouping.clump import _identical_groups

    X = load("bms1").matrix[:1500]
    group = _identical_groups(X, 3)[0]
    free = np.flatnonzero(group < 0)
    Xf = sp.csr_array(sp.diags_array((group < 0).astype(np.float64)) @ X)
    want = product_top_k(Xf, 50, free)
    for n_jobs in (1, 2):
        got = RecordSimilarityGraph.knn(Xf, 50, rows=free, n_jobs=n_jobs)
        np.testing.assert_array_equal(got.matrix.toarray(), want)


def test_knn_bundled_subsets_equal_product_and_threads():
    for name, n, k in (("bms1", 1500, 50), ("chess", 300, 20), ("groceries", 1200, 10)):
        X = load(name).matrix[:n]
        want = product_top_k(X, k)
        for n_jobs in (1, 3):
            g = RecordSimilarityGraph.knn(X, k, n_jobs=n_jobs)
            np.testing.assert_array_equal(g.matrix.toarray(), want, err_msg=f"{name} n_jobs={n_jobs}")


def test_knn_bad_n_jobs():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ParameterError, match="n_jobs"):
            RecordSimilarityGraph.knn([[1, 0], [1, 1]], 1, n_jobs=bad)


def test_default_threads_follow_the_query_rows(monkeypatch):
    """``n_jobs=None`` (the default): every usable core from THREAD_ROWS query rows, else one thread."""
    monkeypatch.setattr(similarity, "usable_cores", lambda: 3)
    assert similarity.knn_jobs(None, similarity.THREAD_ROWS - 1) == 1
    assert similarity.knn_jobs(None, similarity.THREAD_ROWS) == 3
    assert similarity.knn_jobs(2, 10) == 2
    used = []
    blocks = similarity._knn_block
    monkeypatch.setattr(similarity, "_knn_block", lambda *a: used.append(len(a[1])) or blocks(*a))
    X = load("bms1").matrix[:1200]
    monkeypatch.setattr(similarity, "THREAD_ROWS", 1000)
    auto = RecordSimilarityGraph.knn(X, 20)
    assert len(used) == 12 and sum(used) == 1200  # 4 blocks per thread
    used.clear()
    rows = np.arange(0, 1200, 2)  # 600 query rows: under THREAD_ROWS, one block
    sub = RecordSimilarityGraph.knn(X, 20, rows=rows)
    assert used == [600]
    assert (auto.matrix != RecordSimilarityGraph.knn(X, 20, n_jobs=1).matrix).nnz == 0
    # the blocks fill one output in place: int32 indices kept, no per-block arrays joined
    assert auto.matrix.indices.dtype == np.int32 and auto.matrix.indptr.dtype == np.int32
    assert auto.matrix.nnz == len(auto.matrix.indices)
    assert (sub.matrix != RecordSimilarityGraph.knn(X, 20, rows=rows, n_jobs=1).matrix).nnz == 0


def test_usable_cores():
    assert 1 <= similarity.usable_cores() <= (os.cpu_count() or 1)


def test_knn_and_clump_on_dask_equal_one_process(dask_client):
    X = load("bms1").matrix[:2000]
    one = RecordSimilarityGraph.knn(X, 30)
    rows = np.arange(0, 2000, 3)
    for parts in (1, 2, 7):
        seen: list = []
        got = RecordSimilarityGraph.knn(X, 30, client=dask_client, n_partitions=parts,
                                        progress=lambda d, t, m, seen=seen: seen.append((d, t, m)))
        assert len(seen) == parts and seen[-1] == (2000, 2000, "k nearest records")
        assert (got.matrix != one.matrix).nnz == 0
        sub = RecordSimilarityGraph.knn(X, 30, rows=rows, client=dask_client, n_partitions=parts)
        assert (sub.matrix != RecordSimilarityGraph.knn(X, 30, rows=rows).matrix).nnz == 0
    data, tax = load("groceries"), load_taxonomy("groceries")
    data = data.subset(np.arange(3000))
    ref = anonymize_clump(data, taxonomy=tax, k=5, rng=1, unsafe_secret_seed=0)
    got = anonymize_clump(data, taxonomy=tax, k=5, rng=1, unsafe_secret_seed=0, client=dask_client, n_partitions=3)
    assert got.params == ref.params
    assert (got.records != ref.records).nnz == 0
    np.testing.assert_array_equal(got.link.row_of_record, ref.link.row_of_record)
    assert TransactionalKAnonymity(5).audit(data, got).satisfied


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(2, 6))
def test_clump_threads_same_release_and_audited(seed, k):
    data, tax = load("groceries"), load_taxonomy("groceries")
    data = data.subset(np.random.default_rng(seed).choice(data.n_records, 800, replace=False))
    one = anonymize_clump(data, taxonomy=tax, k=k, rng=seed, unsafe_secret_seed=0, n_jobs=1)
    two = anonymize_clump(data, taxonomy=tax, k=k, rng=seed, unsafe_secret_seed=0, n_jobs=2)
    assert one.params == two.params and (one.records != two.records).nnz == 0
    assert TransactionalKAnonymity(k).audit(data, two).satisfied


def test_clump_default_threads_same_release(monkeypatch):
    """Clump's default ``n_jobs=None`` runs the graph on threads once enough records are left (forced
    here on a small sample: 2 cores, THREAD_ROWS 100) and publishes what one thread does."""
    data, tax = load("groceries"), load_taxonomy("groceries")
    data = data.subset(np.arange(1500))
    one = anonymize_clump(data, taxonomy=tax, k=4, rng=3, unsafe_secret_seed=0, n_jobs=1)
    monkeypatch.setattr(similarity, "usable_cores", lambda: 2)
    monkeypatch.setattr(similarity, "THREAD_ROWS", 100)
    used = []
    blocks = similarity._knn_block
    monkeypatch.setattr(similarity, "_knn_block", lambda *a: used.append(len(a[1])) or blocks(*a))
    auto = anonymize_clump(data, taxonomy=tax, k=4, rng=3, unsafe_secret_seed=0)
    assert len(used) == 8
    assert auto.params == one.params and (auto.records != one.records).nnz == 0
    np.testing.assert_array_equal(auto.link.row_of_record, one.link.row_of_record)
    assert TransactionalKAnonymity(4).audit(data, auto).satisfied


def test_cli_clump_scheduler_gives_the_one_process_release(cli_on_test_cluster, run):
    """``anonymize -a clump --scheduler`` builds the similarity graph on Dask and publishes the same rows."""
    from graphanon.release import load_release

    used = cli_on_test_cluster
    args = ["anonymize", "groceries", "-a", "clump", "-k", "5", "--seed", "2"]
    assert run(*args, "-o", "one.json").exit_code == 0
    result = run(*args, "-o", "dask.json", "--scheduler", "local:2")
    assert result.exit_code == 0, result.output
    assert used == ["local:2"]
    one, dist = load_release("one.json"), load_release("dask.json")
    assert sorted(one.render_record(i) for i in range(one.n_records)) == sorted(
        dist.render_record(i) for i in range(dist.n_records))
    assert one.params == dist.params
