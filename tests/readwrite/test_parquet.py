"""Parquet input/output: long and list forms, streaming batches, text labels."""

from __future__ import annotations

import json

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


from graphanon.data import TransactionData, from_iterable  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.errors import DataFormatError, ParameterError  # noqa: E402
from graphanon.readwrite.formats import read_any  # noqa: E402
from graphanon.readwrite.parquet import read_parquet, write_parquet  # noqa: E402
from tests.conftest import cli  # noqa: E402


def _records(data):
    return sorted(
        (str(data.record_ids[i]), tuple(sorted(data.items[j] for j in data.record_items(i))))
        for i in range(data.n_records)
    )


@pytest.mark.parametrize("form", ["long", "list"])
def test_round_trip_keeps_records_labels_and_empty_records(tmp_path, form):
    data = from_iterable([["001", "b"], [], ["b", "10"], ["2"]], labels=["flu", "none", "flu", "cold"])
    path = tmp_path / f"d.{form}.parquet"
    write_parquet(data, path, form=form)
    back = read_parquet(path, label="label")
    assert back.items == data.items
    assert _records(back) == _records(data)
    assert list(back.labels) == list(data.labels)
    assert back.n_records == 4


def test_small_batches_equal_one_batch(tmp_path):
    sub = load("bms1").subset(np.arange(3000))
    used = np.flatnonzero(sub.supports())  # a file holds only the items that occur
    data = TransactionData(sub.matrix[:, used], [sub.items[j] for j in used], record_ids=sub.record_ids)
    for form in ("long", "list"):
        path = tmp_path / f"b.{form}.parquet"
        write_parquet(data, path, form=form, row_group_size=1000)
        a = read_parquet(path, batch_size=517)
        b = read_parquet(path, batch_size=1 << 20)
        assert a.items == b.items == data.items
        assert (a.matrix != data.matrix).nnz == 0 and (b.matrix != data.matrix).nnz == 0
        assert list(a.record_ids) == [str(x) for x in data.record_ids]


def test_integer_columns_are_read_as_text_labels(tmp_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"tid": [7, 7, 8, 9], "item": [1, 20, 3, None]}), path)
    d = read_parquet(path)
    assert d.items == ("1", "3", "20")
    assert list(d.record_ids) == ["7", "8", "9"]
    assert d.matrix.nnz == 3 and d.record_items(2).size == 0
    lists = tmp_path / "lists.parquet"
    pq.write_table(pa.table({"item": [[5, 6], [], [6]]}), lists)
    d = read_parquet(lists)
    assert d.items == ("5", "6") and list(d.record_ids) == ["1", "2", "3"]


def test_errors_name_the_file_and_column(tmp_path):
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"basket": ["a"], "product": ["b"]}), path)
    with pytest.raises(DataFormatError, match="x.parquet.*'item'"):
        read_parquet(path)
    with pytest.raises(DataFormatError, match="'tid'"):
        read_parquet(path, item="product")
    assert read_parquet(path, tid="basket", item="product").items == ("b",)
    lab = tmp_path / "lab.parquet"
    pq.write_table(pa.table({"tid": ["1", "1"], "item": ["a", "b"], "dx": ["x", "y"]}), lab)
    with pytest.raises(DataFormatError, match="record '1' has two sensitive labels"):
        read_parquet(lab, label="dx")
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    with pytest.raises(DataFormatError, match="not a readable Parquet file"):
        read_parquet(bad)
    with pytest.raises(ParameterError, match="form"):
        write_parquet(load("liuwang_fig1"), tmp_path / "f.parquet", form="wide")


def test_read_any_and_cli(tmp_path, monkeypatch):
    data = load("liuwang_fig1")
    path = tmp_path / "fig1.parquet"
    write_parquet(data, path)
    assert read_any(path).items == data.items
    with pytest.raises(ParameterError, match="delimiter"):
        read_any(path, delimiter=",")
    monkeypatch.chdir(tmp_path)
    res = cli("anonymize", path, "--format", "parquet", "-a", "mm", "-k", "2", "-m", "2", "-o", "r.json")
    assert res.exit_code == 0, res.output
    res = cli("audit", path, "r.json", "--model", "km", "-k", "2", "-m", "2", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["satisfied"] is True


def test_long_row_groups_hold_whole_records_and_round_trip(tmp_path):
    gen = np.random.default_rng(5)
    records = [[f"i{j}" for j in gen.choice(30, size=gen.integers(0, 9), replace=False)] for _ in range(400)]
    labels = [f"l{gen.integers(3)}" for _ in records]
    data = from_iterable(records, labels=labels)
    path = tmp_path / "groups.parquet"
    write_parquet(data, path, row_group_size=50)
    f = pq.ParquetFile(path)
    assert f.metadata.num_row_groups > 5
    seen = set()
    for g in range(f.metadata.num_row_groups):
        ids = set(f.read_row_group(g, columns=["tid"]).column("tid").to_pylist())
        assert not ids & seen  # no record spans two row groups
        seen |= ids
    for batch in (7, 1 << 16):
        back = read_parquet(path, label="label", batch_size=batch)
        assert _records(back) == _records(data)
        assert list(back.record_ids) == [str(x) for x in data.record_ids]
        assert list(back.labels) == list(data.labels)
