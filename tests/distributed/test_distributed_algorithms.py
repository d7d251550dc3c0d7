"""AA and Partition with ``client=`` publish the one-process release (2-worker LocalCluster)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.distributed")

from graphanon.algorithms import anonymize_aa, anonymize_partition  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.datasets.synthetic import quest, quest_taxonomy  # noqa: E402
from graphanon.distributed import count_round_trips  # noqa: E402
from graphanon.privacy import KmAnonymity, TransactionalKAnonymity  # noqa: E402
from tests.conftest import cli  # noqa: E402

_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _same_global(got, ref):
    assert got.trace.cut == ref.trace.cut
    assert got.params == ref.params
    assert got.published_items == ref.published_items
    assert (got.records != ref.records).nnz == 0
    np.testing.assert_array_equal(got.link.row_of_record, ref.link.row_of_record)


@_SETTINGS
@given(st.integers(0, 10**6), st.integers(2, 8), st.integers(1, 3), st.integers(1, 5), st.integers(2, 5))
def test_aa_on_client_equals_single_process(dask_client, seed, k, m, parts, fanout):
    data = quest(400, n_items=60, avg_record_length=5, rng=seed)
    tax = quest_taxonomy(data, fanout=fanout, rng=seed)
    ref = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=0)
    got = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=0, client=dask_client, n_partitions=parts)
    _same_global(got, ref)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.integers(2, 6), st.integers(1, 3), st.integers(2, 4))
def test_aa_sweeps_ask_one_batched_question_each(dask_client, seed, k, m, fanout):
    """Each sweep counts every set it can ask about in one round trip up front, and asks nothing more."""
    from graphanon.algorithms.hierarchy import _aa_counts
    from graphanon.distributed import count_round_trips

    data = quest(600, n_items=80, avg_record_length=6, rng=seed)
    tax = quest_taxonomy(data, fanout=fanout, rng=seed)
    made = []
    init = _aa_counts.BlockCounts.__init__

    def spy(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    ref = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=1)
    with count_round_trips() as trips, pytest.MonkeyPatch.context() as mp:
        mp.setattr(_aa_counts.BlockCounts, "__init__", spy)
        got = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=1, client=dask_client, n_partitions=2)
    _same_global(got, ref)
    (counts,) = made
    assert counts.misses == 0 and trips["aa sweep miss"] == 0
    recounts, fixes = got.params["recounts"], sum(got.params["steps_per_pass"])
    passes = len(got.params["steps_per_pass"])
    assert trips["aa sweep"] <= recounts - passes  # at most one per sweep (each pass's last recount finds nothing)
    # per recount of pass i <= m: the level-wise search (<= 2i + 1) and the sweep (<= 2 with its broadcast); setup 2
    assert sum(trips.values()) <= 2 + recounts * (2 * m + 3)
    assert fixes == 0 or len(counts.keys) > 0


def test_aa_on_client_bundled_data_reports_progress(dask_client):
    data, tax = load("groceries"), load_taxonomy("groceries")
    ref = anonymize_aa(data, taxonomy=tax, k=10, m=2, unsafe_secret_seed=3)
    seen = []
    got = anonymize_aa(data, taxonomy=tax, k=10, m=2, unsafe_secret_seed=3, client=dask_client,
                       progress=lambda *a: seen.append(a))
    _same_global(got, ref)
    assert sum(ref.params["steps_per_pass"]) > 0  # the run generalized something
    assert any("AA pass 2" in msg for _, _, msg in seen)
    assert any("counting" in msg for _, _, msg in seen)  # the blocks' counts, as they finish
    assert KmAnonymity(10, 2).audit(data, got, client=dask_client).satisfied


def test_cli_anonymize_aa_on_dask_gives_the_one_process_release(cli_on_test_cluster, monkeypatch, tmp_path):
    from graphanon.release import load_release

    monkeypatch.chdir(tmp_path)
    args = ["anonymize", "groceries", "-a", "aa", "-k", "10", "-m", "2"]
    assert cli(*args, "-o", "one.json").exit_code == 0
    result = cli(*args, "-o", "dask.json", "--scheduler", "local:2")
    assert result.exit_code == 0, result.output
    assert cli_on_test_cluster == ["local:2"]
    one, dist = load_release("one.json"), load_release("dask.json")
    assert one.mapping == dist.mapping
    rows = [sorted(r.render_record(i) for i in range(r.n_records)) for r in (one, dist)]
    assert rows[0] == rows[1]


def _same_local(got, ref):
    assert got.params == ref.params
    assert (got.records != ref.records).nnz == 0
    np.testing.assert_array_equal(got.link.row_of_record, ref.link.row_of_record)
    assert got.trace.groups == ref.trace.groups
    np.testing.assert_array_equal(got.trace.ggd_per_group, ref.trace.ggd_per_group)  # groups numbered alike


@settings(_SETTINGS, max_examples=6)
@given(st.integers(0, 10**6), st.integers(1, 6), st.integers(1, 40), st.integers(2, 5))
@example(seed=0, k=6, parts=40, fanout=2)  # tasks of 8 records, fewer than 2k: partitions split on the workers
@example(seed=1, k=1, parts=1, fanout=5)  # tasks of all 300 records: one task holds every deferred partition
def test_partition_on_client_equals_single_process(dask_client, seed, k, parts, fanout):
    """Six drawn cases and the two ends of the task size (were twelve drawn cases: 163 s of wall time in
    CI, most of it waiting on the cluster, 9 s of CPU in 53 s here; docs/testing.md)."""
    data = quest(300, n_items=50, avg_record_length=4, rng=seed)
    tax = quest_taxonomy(data, fanout=fanout, rng=seed)
    ref = anonymize_partition(data, taxonomy=tax, k=k, unsafe_secret_seed=1)
    got = anonymize_partition(data, taxonomy=tax, k=k, unsafe_secret_seed=1, client=dask_client, n_partitions=parts)
    _same_local(got, ref)


def test_partition_kernel_defers_and_resumes_to_the_same_groups():
    """The driver stops at partitions below the size, the deferred ones are finished on their own from
    their state, and the renumbered groups are the whole recursion's."""
    from graphanon.algorithms.grouping._partition_kernel import (
        partition_groups,
        partition_run,
        run_deferred,
    )
    from graphanon.algorithms.grouping.partition import ancestor_table
    from graphanon.graphs.lcg import NodeIndex

    data, tax = load("groceries"), load_taxonomy("groceries")
    index = NodeIndex(tax, data.items)
    X = data.matrix[np.diff(data.matrix.indptr) > 0]
    o_ptr, anc = X.indptr.astype(np.int64), ancestor_table(index, X)
    args = (index.depth, index.is_leaf, index.ncp_hn.astype(np.float64), 3)
    ref_group, ref_cur = partition_groups(o_ptr, anc, *args, index.n_nodes)
    n = X.shape[0]
    cur = np.zeros(o_ptr[-1], dtype=np.int64)
    group, rows, deferred, (f_ptr, frozen) = partition_run(
        o_ptr, anc, *args, index.n_nodes, cur, np.array([0, n]), np.zeros(2, np.int64), np.zeros(0, np.int64), n // 8)
    assert len(deferred) > 8 and (deferred[:, 2] - deferred[:, 1] < n // 8).all()
    assert len(frozen) > 0  # some deferred partitions carry failed expansions to the workers
    shift = 0
    for p, s, e, d in deferred.tolist():  # finish each one alone, from its state
        recs = rows[s:e]
        occ = np.concatenate([np.arange(o_ptr[r], o_ptr[r + 1]) for r in recs])
        sub_ptr = np.r_[0, np.cumsum(o_ptr[recs + 1] - o_ptr[recs])]
        sub_group, sub_cur = run_deferred((sub_ptr, anc[occ], cur[occ], np.array([0, e - s]),
                                           np.array([0, f_ptr[d + 1] - f_ptr[d]]), frozen[f_ptr[d]:f_ptr[d + 1]], *args))
        np.testing.assert_array_equal(sub_cur, ref_cur[occ])
        np.testing.assert_array_equal(sub_group + p + shift, ref_group[recs])
        shift += sub_group.max()


def test_partition_on_client_bundled_data_and_cli(dask_client, cli_on_test_cluster, monkeypatch, tmp_path):
    from graphanon.release import load_release

    data, tax = load("groceries"), load_taxonomy("groceries")
    ref = anonymize_partition(data, taxonomy=tax, k=4, unsafe_secret_seed=2)
    seen = []
    with count_round_trips() as trips:
        got = anonymize_partition(data, taxonomy=tax, k=4, unsafe_secret_seed=2, client=dask_client, n_partitions=8,
                                  progress=lambda *a: seen.append(a))
    _same_local(got, ref)
    tasks = {total for _, total, msg in seen if msg == "finishing sub-partitions"}
    assert len(tasks) == 1 and tasks.pop() >= 4  # several tasks of many deferred partitions (splits)...
    assert dict(trips) == {"scatter": 1, "partition": 1}  # ...sent in one round trip and gathered in one
    assert TransactionalKAnonymity(4).audit(data, got, client=dask_client).satisfied
    monkeypatch.chdir(tmp_path)
    args = ["anonymize", "groceries", "-a", "partition", "-k", "4"]
    assert cli(*args, "-o", "one.json").exit_code == 0
    result = cli(*args, "-o", "dask.json", "--scheduler", "local:2")
    assert result.exit_code == 0, result.output
    one, dist = load_release("one.json"), load_release("dask.json")
    rows = [sorted(r.render_record(i) for i in range(r.n_records)) for r in (one, dist)]
    assert rows[0] == rows[1]


def test_aa_on_client_infeasible_and_partition_bad_partitions_are_clear_errors(dask_client):
    from graphanon.data import from_iterable
    from graphanon.errors import InfeasibleError, ParameterError
    from graphanon.taxonomy import Taxonomy

    data = from_iterable([["a"], ["b"], [], [], []])
    tax = Taxonomy.balanced(["a", "b"], 2)
    with pytest.raises(InfeasibleError, match="only 2 record"):
        anonymize_aa(data, taxonomy=tax, k=3, m=1, client=dask_client)
    with pytest.raises(ParameterError, match="n_partitions"):
        anonymize_partition(data, taxonomy=tax, k=2, client=dask_client, n_partitions=0)


def test_map_blocks_gives_fresh_keys_to_equal_calls(dask_client):
    """AA asks for the same cut's columns twice in a row (a pass's last recount, the next pass's first);
    equal calls must not share keys with futures that may be being released."""
    import scipy.sparse as sp

    from graphanon import distributed
    from graphanon.algorithms.hierarchy._aa_counts import columns

    X = sp.csr_array(np.eye(6, dtype=bool))
    blocks = distributed.scatter_blocks(X, dask_client, 2)
    cut = np.array([0, 2, 4])
    a = distributed.map_blocks(blocks, dask_client, columns, cut, n_items=3)
    b = distributed.map_blocks(blocks, dask_client, columns, cut, n_items=3)
    assert {f.key for f in a.futures}.isdisjoint(f.key for f in b.futures)
    assert (a.gather(dask_client) != b.gather(dask_client)).nnz == 0
    assert (a.gather(dask_client) != X[:, cut]).nnz == 0


@pytest.mark.parametrize("chunk", [64, 640, 1 << 18])
def test_workers_build_extended_blocks_and_bitmaps_in_chunks_alike(chunk):
    from graphanon.algorithms.hierarchy._aa_counts import block_bits
    from graphanon.algorithms.hierarchy._index import HierarchyIndex, extended_matrix
    from graphanon.counting.support import sparse_bitmaps

    data = quest(3000, n_items=80, rng=3)
    index = HierarchyIndex(data, quest_taxonomy(data, fanout=3, rng=3))
    E = extended_matrix(data.matrix, index.ancestor_matrix(), chunk)
    whole = (data.matrix.astype(np.int32) @ index.ancestor_matrix()) > 0  # one product, no chunks
    assert E.dtype == bool and E.has_sorted_indices and (E != whole).nnz == 0
    np.testing.assert_array_equal(block_bits(E, chunk), sparse_bitmaps(whole).bits)
