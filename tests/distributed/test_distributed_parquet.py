"""Parquet row groups read on the workers: the blocks stacked equal read_parquet's matrix (2-worker LocalCluster)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from graphanon.counting import support  # noqa: E402
from graphanon.data import from_iterable  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.distributed import minimal_infrequent_itemsets, pair_supports, read_parquet_blocks  # noqa: E402
from graphanon.errors import DataFormatError, ParameterError  # noqa: E402
from graphanon.readwrite.parquet import read_parquet, write_parquet  # noqa: E402

from ..conftest import small_records  # noqa: E402


def _write_long(records, path, row_group_size):
    """Long form written directly (not by write_parquet): row groups of ``row_group_size`` rows, cut anywhere,
    so a record's rows may continue into the next row groups; an empty record is one (tid, null) row."""
    tids = [f"r{i}" for i, r in enumerate(records) for _ in (r or [None])]
    items = [None if x is None else str(x) for r in records for x in (r or [None])]
    pq.write_table(pa.table({"tid": pa.array(tids, pa.string()), "item": pa.array(items, pa.string())}), path,
                   row_group_size=row_group_size)


def _same_as_read_parquet(path, client, **kwargs):
    blocks = read_parquet_blocks(path, client, **kwargs)
    ref = read_parquet(path, **{k: v for k, v in kwargs.items() if k in ("tid", "item")})
    X = blocks.gather(client)
    assert X.shape == ref.matrix.shape and (X != ref.matrix).nnz == 0
    assert blocks.items == ref.items and blocks.n_records == ref.n_records
    return blocks, ref


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_records(max_records=20, max_items=12, min_records=0), st.sampled_from(["long", "list"]),
       st.integers(1, 6), st.integers(1, 5))
def test_blocks_equal_read_parquet(dask_client, tmp_path_factory, records, form, group_rows, parts):
    # items 0..11 as text sort as 0, 1, 2, ..., 10, 11 in natural order (not 0, 1, 10, 11, 2)
    path = tmp_path_factory.mktemp("pq") / "t.parquet"
    if form == "long":
        _write_long(records, path, group_rows)
    else:
        write_parquet(from_iterable(records, items=list(range(12))), path, form=form, row_group_size=group_rows)
    blocks, _ = _same_as_read_parquet(path, dask_client, n_partitions=parts)
    assert len(blocks) <= parts


def test_record_spanning_many_row_groups_is_not_split(dask_client, tmp_path):
    # one row per row group: every record of length > 1 continues into the next row groups
    path = tmp_path / "long.parquet"
    _write_long([["a", "b", "c", "d"], ["b"], [], ["a", "c"], ["d", "e", "f"]], path, 1)
    assert pq.ParquetFile(path).num_row_groups == 11
    for parts in (1, 2, 3, 7, 11):
        blocks, _ = _same_as_read_parquet(path, dask_client, n_partitions=parts)
        assert blocks.n_rows.sum() == 5


def test_bms1_row_groups_on_workers_then_counts(dask_client, tmp_path):
    data = load("bms1")
    path = tmp_path / "bms1.parquet"
    _write_long([data.record(i) for i in range(0, data.n_records, 3)], path, 5_000)  # records cross row groups
    seen = []
    blocks, ref = _same_as_read_parquet(path, dask_client, n_partitions=5, progress=lambda *a: seen.append(a))
    assert {m for _, _, m in seen} == {"scanning row groups", "building blocks"}
    S = pair_supports(blocks, client=dask_client)
    assert (S != support.pair_supports(ref.matrix, dense=False)).nnz == 0
    viol, _ = minimal_infrequent_itemsets(blocks, 5, 2, client=dask_client)
    ref_viol, _ = support.minimal_infrequent_itemsets(ref.matrix, 5, 2)
    for a, b in zip(viol, ref_viol, strict=True):
        np.testing.assert_array_equal(a.itemsets, b.itemsets)
        np.testing.assert_array_equal(a.supports, b.supports)


def test_integer_columns_and_list_form_without_tid(dask_client, tmp_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"tid": [7, 7, 3, 9, 9], "item": [10, 2, 2, None, 1]}), path, row_group_size=2)
    blocks, ref = _same_as_read_parquet(path, dask_client)
    assert blocks.items == ("1", "2", "10")
    path = tmp_path / "lists.parquet"
    pq.write_table(pa.table({"item": [["x", " y "], None, [], ["y", None]]}), path, row_group_size=3)
    blocks, _ = _same_as_read_parquet(path, dask_client)
    # an empty item adds no item, in list form as in long form
    pq.write_table(pa.table({"item": [["x", " y "], None, [""], ["y", None, " "]]}), path, row_group_size=3)
    again = read_parquet_blocks(path, dask_client)
    assert again.items == blocks.items and (again.gather(dask_client) != blocks.gather(dask_client)).nnz == 0


@pytest.mark.parametrize("group_rows", [1, 100])
def test_scattered_record_is_a_clear_error(dask_client, tmp_path, group_rows):
    path = tmp_path / "scattered.parquet"
    pq.write_table(pa.table({"tid": ["a", "b", "a"], "item": ["x", "y", "z"]}), path, row_group_size=group_rows)
    with pytest.raises(DataFormatError, match="scattered.parquet: the rows of record 'a' are not together.*sort"):
        read_parquet_blocks(path, dask_client)


def test_bad_files(dask_client, tmp_path):
    path = tmp_path / "null.parquet"
    pq.write_table(pa.table({"tid": ["a", None], "item": ["x", "y"]}), path)
    with pytest.raises(DataFormatError, match="null"):
        read_parquet_blocks(path, dask_client)
    with pytest.raises(DataFormatError, match="no column 'basket'"):
        read_parquet_blocks(path, dask_client, item="basket")
    (tmp_path / "text.parquet").write_text("tid,item\n")
    with pytest.raises(DataFormatError, match="not a readable Parquet file"):
        read_parquet_blocks(tmp_path / "text.parquet", dask_client)
    with pytest.raises(ParameterError, match="n_partitions"):
        read_parquet_blocks(path, dask_client, n_partitions=0)
