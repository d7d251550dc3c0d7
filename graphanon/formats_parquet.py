"""Reading and writing transactions as Parquet (optional: ``pip install graphanon[parquet]``).

Two table forms are understood:

* **long**: one ``(tid, item)`` row per occurrence, an optional per-record
  ``label`` column (the form of :func:`graphanon.formats.read_long_csv`); a
  row with a null or empty item adds no item, so an empty record is one row
  ``(tid, null)``;
* **list**: one row per record, ``item`` a list column, ``tid`` and
  ``label`` optional scalar columns.

Files are read in record batches (``pyarrow.parquet.ParquetFile.iter_batches``)
and converted with Arrow compute kernels: per batch only the *distinct*
items and transaction ids become Python strings, never every cell. Every
value is read as text (:mod:`graphanon.labels`: an integer column ``1``
is the label ``"1"``).

References
----------
Apache Parquet format; Apache Arrow ``pyarrow.parquet``.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from graphanon._io import atomic_write
from graphanon.errors import DataFormatError, ParameterError
from graphanon.labels import natural_key

__all__ = ["read_parquet", "require_pyarrow", "table_form", "write_parquet"]

_BATCH = 1 << 16


def _arrow():
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:
        raise ParameterError(
            "Parquet input/output needs pyarrow: pip install 'graphanon[parquet]' (or pip install pyarrow)"
        ) from None
    return pa, pc, pq


class _Codes:
    """Text values -> dense codes in order of first appearance, fed batch by batch."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.values: list[str] = []

    def encode(self, pa, pc, arr) -> np.ndarray:
        arr = pc.utf8_trim_whitespace(pc.cast(arr, pa.string()))
        distinct = pc.unique(arr)
        local = np.empty(len(distinct), dtype=np.int64)
        for i, v in enumerate(distinct.to_pylist()):  # distinct values of one batch only
            local[i] = self.index.setdefault(v, len(self.values))
            if local[i] == len(self.values):
                self.values.append(v)
        return local[pc.index_in(arr, value_set=distinct).to_numpy(zero_copy_only=False)]


def _form_of(schema, item: str, source: str) -> str:
    import pyarrow as pa

    if item not in schema.names:
        raise DataFormatError(f"{source}: no column {item!r} (columns: {', '.join(schema.names)}); pass item=NAME")
    t = schema.field(item).type
    return "list" if pa.types.is_list(t) or pa.types.is_large_list(t) else "long"


# Public names for the reader that runs on Dask workers (graphanon.distributed.parquet):
# the pyarrow modules (or the one-line install advice), and the table form of a schema.
require_pyarrow = _arrow
table_form = _form_of


def read_parquet(
    path: str | os.PathLike,
    *,
    tid: str = "tid",
    item: str = "item",
    label: str | None = None,
    name: str | None = None,
    batch_size: int = _BATCH,
):
    """Read transactions from a Parquet file (long or list form, told by the ``item`` column's type).

    Parameters
    ----------
    path : path-like
    tid, item : str
        Column names. In list form ``tid`` may be absent (records are then
        ``"1", "2", ...`` in row order).
    label : str, optional
        Column of a per-record sensitive label (text).
    name : str, optional
        Display name (default: the file name).
    batch_size : int
        Rows per record batch.

    Returns
    -------
    TransactionData
        Long form: records in order of first appearance of their id; list
        form: one record per row.

    Raises
    ------
    DataFormatError
        Not a Parquet file, a missing column, a null transaction id, a record
        with two labels.
    ParameterError
        pyarrow is not installed.

    Complexity
    ----------
    O(rows) in Arrow kernels plus O(distinct values per batch) Python steps;
    memory is one batch plus the growing occurrence arrays.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from graphanon.data import from_iterable
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.parquet"
    >>> write_parquet(from_iterable([["001", "b"], [], ["b"]]), p)
    >>> d = read_parquet(p)
    >>> d.items, d.n_records, d.matrix.nnz
    (('001', 'b'), 3, 3)
    """
    pa, pc, pq = _arrow()
    source = str(path)
    try:
        f = pq.ParquetFile(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataFormatError(f"{source}: not a readable Parquet file ({exc})") from None
    schema = f.schema_arrow
    form = _form_of(schema, item, source)
    has_tid = tid in schema.names
    if form == "long" and not has_tid:
        raise DataFormatError(f"{source}: no column {tid!r} (columns: {', '.join(schema.names)}); pass tid=NAME")
    if label is not None and label not in schema.names:
        raise DataFormatError(f"{source}: no label column {label!r} (columns: {', '.join(schema.names)})")
    columns = [c for c in (tid if has_tid else None, item, label) if c is not None]
    tids, items, labels = _Codes(), _Codes(), _Codes()
    rec_parts, item_parts, lab_rec, lab_code = [], [], [], []
    n_rows = 0
    for batch in f.iter_batches(batch_size=batch_size, columns=columns):
        if has_tid and batch.column(tid).null_count:
            raise DataFormatError(f"{source}: column {tid!r} has an empty (null) transaction id")
        if form == "long":
            rec = tids.encode(pa, pc, batch.column(tid))
            col = batch.column(item)
            text = pc.utf8_trim_whitespace(pc.cast(col, pa.string()))
            valid = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False).to_numpy(zero_copy_only=False)
            row_rec, occ_rec, values = rec, rec[valid], col.filter(pa.array(valid))
        else:
            row_rec = tids.encode(pa, pc, batch.column(tid)) if has_tid else np.arange(n_rows, n_rows + batch.num_rows)
            col = batch.column(item)
            lengths = pc.fill_null(pc.list_value_length(col), 0).to_numpy(zero_copy_only=False)
            values = pc.list_flatten(col)
            occ_rec = np.repeat(row_rec, lengths)
            keep = pc.is_valid(values).to_numpy(zero_copy_only=False)
            values, occ_rec = values.filter(pa.array(keep)), occ_rec[keep]
        n_rows += batch.num_rows
        rec_parts.append(occ_rec)
        item_parts.append(items.encode(pa, pc, values) if len(values) else np.zeros(0, dtype=np.int64))
        if label is not None:
            lab_rec.append(row_rec)
            lab_code.append(labels.encode(pa, pc, pc.fill_null(pc.cast(batch.column(label), pa.string()), "")))
    n_records = len(tids.values) if has_tid else n_rows
    record_ids = tids.values if has_tid else [str(i + 1) for i in range(n_rows)]
    rows = np.concatenate(rec_parts) if rec_parts else np.zeros(0, dtype=np.int64)
    cols = np.concatenate(item_parts) if item_parts else np.zeros(0, dtype=np.int64)
    per_record = None
    if label is not None:
        r = np.concatenate(lab_rec) if lab_rec else np.zeros(0, dtype=np.int64)
        c = np.concatenate(lab_code) if lab_code else np.zeros(0, dtype=np.int64)
        first = np.full(n_records, -1, dtype=np.int64)
        first[r[::-1]] = c[::-1]  # the first row's label of each record
        bad = np.flatnonzero(first[r] != c)
        if len(bad):
            t = record_ids[r[bad[0]]]
            raise DataFormatError(
                f"{source}: record {t!r} has two sensitive labels ({labels.values[first[r[bad[0]]]]!r} and "
                f"{labels.values[c[bad[0]]]!r}) in column {label!r}"
            )
        per_record = [labels.values[x] for x in first]
    return _build(rows, cols, n_records, items.values, record_ids, per_record, name or Path(path).name)


def _build(rows, cols, n_records, item_values, record_ids, labels, name):
    from graphanon.data import TransactionData

    order = np.array(sorted(range(len(item_values)), key=lambda j: natural_key(item_values[j])), dtype=np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    X = sp.csr_array(
        (np.ones(len(rows), dtype=bool), (rows, rank[cols] if len(cols) else cols)),
        shape=(n_records, len(item_values)),
    )
    return TransactionData(X, [item_values[j] for j in order], record_ids=record_ids, labels=labels, name=name)


def write_parquet(
    data, path: str | os.PathLike, *, form: str = "long", tid: str = "tid", item: str = "item",
    row_group_size: int = 1 << 20,
) -> None:
    """Write transactions as Parquet, items and ids dictionary-encoded text.

    Parameters
    ----------
    data : TransactionData
    path : path-like
        Written atomically (:func:`graphanon._io.atomic_write`).
    form : {"long", "list"}
        ``long``: ``tid, item[, label]`` rows (an empty record is one row with
        a null item); ``list``: one row per record with an ``item`` list.
    tid, item : str
        Column names.
    row_group_size : int
        Rows per Parquet row group.

    Complexity
    ----------
    O(occurrences) in numpy/Arrow; no Python step per occurrence.
    """
    pa, _, pq = _arrow()
    if form not in ("long", "list"):
        raise ParameterError(f"form must be 'long' or 'list', got {form!r}")
    X = data.matrix
    lengths = np.diff(X.indptr).astype(np.int64)
    item_dict = pa.array([str(x) for x in data.items], type=pa.string())
    id_dict = pa.array([str(x) for x in data.record_ids], type=pa.string())
    items = pa.DictionaryArray.from_arrays(pa.array(X.indices.astype(np.int32)), item_dict)
    cols: dict[str, object] = {}
    if form == "long":
        empty = np.flatnonzero(lengths == 0)
        rec = np.repeat(np.arange(data.n_records), lengths)
        # empty records: one row with a null item, placed after the occurrences
        rec = np.concatenate([rec, empty])
        idx = np.concatenate([X.indices.astype(np.int32), np.zeros(len(empty), dtype=np.int32)])
        mask = np.concatenate([np.zeros(X.nnz, dtype=bool), np.ones(len(empty), dtype=bool)])
        order = np.argsort(rec, kind="stable")
        rec, idx, mask = rec[order], idx[order], mask[order]
        cols[tid] = pa.DictionaryArray.from_arrays(pa.array(rec.astype(np.int32)), id_dict)
        cols[item] = pa.DictionaryArray.from_arrays(pa.array(idx, mask=mask), item_dict)
        label_rows = rec
    else:
        offsets = pa.array(X.indptr.astype(np.int32))
        cols[tid] = id_dict
        # plain strings inside lists: Arrow cannot read dictionary values nested in lists back in batches
        cols[item] = pa.ListArray.from_arrays(offsets, items.dictionary_decode())
        label_rows = np.arange(data.n_records)
    if data.labels is not None:
        lab = pa.array([str(x) for x in data.labels], type=pa.string())
        cols["label"] = pa.DictionaryArray.from_arrays(pa.array(label_rows.astype(np.int32)), lab)
    table = pa.table(cols)
    buf = io.BytesIO()
    pq.write_table(table, buf, row_group_size=row_group_size)
    atomic_write(path, buf.getvalue())
