"""Reading and writing transactions as Parquet (optional: ``pip install graphanon[parquet]``).

Two table forms are understood:

* **long**: one ``(tid, item)`` row per occurrence, an optional per-record
  ``label`` column (the form of :func:`graphanon.readwrite.formats.read_long_csv`); a
  row with a null or empty item adds no item, so an empty record is one row
  ``(tid, null)``;
* **list**: one row per record, ``item`` a list column, ``tid`` and
  ``label`` optional scalar columns.

Files are read in record batches (``pyarrow.parquet.ParquetFile.iter_batches``)
and converted with Arrow compute kernels: per batch only the *distinct*
items and transaction ids become Python strings, never every cell. Every
value is read as text (:mod:`graphanon.utils.labels`: an integer column ``1``
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

from graphanon.errors import DataFormatError, ParameterError
from graphanon.readwrite.files import atomic_write
from graphanon.readwrite.missing import resolve_missing_labels
from graphanon.utils.labels import natural_key

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
    """Text values -> dense codes in order of first appearance, fed batch by batch.

    Per batch, :meth:`encode` dictionary-encodes the column (or takes the
    dictionary the file already has), keeps only the batch's distinct values
    (trimmed text, in order of first appearance) and returns *provisional*
    codes: positions in the concatenation of all batches' distinct values.
    :meth:`finish` dictionary-encodes that concatenation once, which gives
    the final codes (first appearance over the whole file) as one lookup
    array. No Python step per value, only Arrow and numpy kernels.
    """

    def __init__(self) -> None:
        self.parts: list = []
        self.n_provisional = 0

    def encode(self, pa, pc, arr) -> tuple[np.ndarray, np.ndarray]:
        """Provisional codes of ``arr`` (0 for nulls), and which entries are non-null with non-empty text."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if not pa.types.is_dictionary(arr.type):
            arr = pc.dictionary_encode(arr)
        null = arr.is_null().to_numpy(zero_copy_only=False)
        ind = pc.fill_null(arr.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        ind[null] = -1
        uniq, first, inverse = np.unique(ind, return_index=True, return_inverse=True)
        skip = int(len(uniq) > 0 and uniq[0] == -1)  # the null marker is no value
        appear = np.argsort(first[skip:], kind="stable")  # the batch's values in order of first appearance
        rank = np.zeros(len(uniq), dtype=np.int64)
        rank[skip + appear] = np.arange(len(appear)) + self.n_provisional
        values = pc.utf8_trim_whitespace(pc.cast(arr.dictionary.take(pa.array(uniq[skip:][appear])), pa.string()))
        nonempty = np.zeros(len(uniq), dtype=bool)
        nonempty[skip + appear] = pc.fill_null(pc.greater(pc.utf8_length(values), 0), False).to_numpy(
            zero_copy_only=False
        )
        self.parts.append(values)
        self.n_provisional += len(appear)
        inverse = inverse.reshape(-1)
        return rank[inverse], nonempty[inverse]

    def finish(self, pa, pc) -> tuple[list[str], np.ndarray]:
        """The distinct values in order of first appearance, and provisional code -> final code."""
        if not self.parts:
            return [], np.zeros(0, dtype=np.int64)
        enc = pc.dictionary_encode(pa.concat_arrays(self.parts))
        return enc.dictionary.to_pylist(), enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)


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
    missing_label: str = "error",
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
    missing_label : {"error", "drop", "as-value"}
        Records whose label is null, empty or NA: refused (the default), left
        out, or kept with the text as a label (:mod:`graphanon.readwrite.missing`).
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

    Notes
    -----
    Complexity: O(rows) in Arrow and numpy kernels (a dictionary encoding and a sort of
    the codes per batch), no Python step per value or per distinct value;
    memory is one batch plus the occurrence arrays.

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
        row_rec = tids.encode(pa, pc, batch.column(tid))[0] if has_tid else np.arange(n_rows, n_rows + batch.num_rows)
        if form == "long":
            occ_rec, values = row_rec, batch.column(item)
        else:
            col = batch.column(item)
            lengths = pc.fill_null(pc.list_value_length(col), 0).to_numpy(zero_copy_only=False)
            occ_rec, values = np.repeat(row_rec, lengths), pc.list_flatten(col)
        codes, present = items.encode(pa, pc, values)
        rec_parts.append(occ_rec[present])
        item_parts.append(codes[present])
        n_rows += batch.num_rows
        if label is not None:
            lab_rec.append(row_rec)
            lab_code.append(labels.encode(pa, pc, pc.fill_null(pc.cast(batch.column(label), pa.string()), ""))[0])
    tid_values, tid_code = tids.finish(pa, pc)
    item_values, item_code = items.finish(pa, pc)
    n_records = len(tid_values) if has_tid else n_rows
    record_ids = tid_values if has_tid else [str(i + 1) for i in range(n_rows)]
    rows = np.concatenate(rec_parts) if rec_parts else np.zeros(0, dtype=np.int64)
    cols = item_code[np.concatenate(item_parts)] if item_parts else np.zeros(0, dtype=np.int64)
    if has_tid:
        rows = tid_code[rows]
    per_record = None
    if label is not None:
        r = np.concatenate(lab_rec) if lab_rec else np.zeros(0, dtype=np.int64)
        label_values, label_code = labels.finish(pa, pc)
        c = label_code[np.concatenate(lab_code)] if lab_code else np.zeros(0, dtype=np.int64)
        r = tid_code[r] if has_tid else r
        first = np.full(n_records, -1, dtype=np.int64)
        first[r[::-1]] = c[::-1]  # the first row's label of each record
        bad = np.flatnonzero(first[r] != c)
        if len(bad):
            t = record_ids[r[bad[0]]]
            raise DataFormatError(
                f"{source}: record {t!r} has two sensitive labels ({label_values[first[r[bad[0]]]]!r} and "
                f"{label_values[c[bad[0]]]!r}) in column {label!r}"
            )
        per_record = [label_values[x] for x in first]
    data = _build(rows, cols, n_records, item_values, record_ids, per_record, name or Path(path).name)
    return resolve_missing_labels(data, missing_label, source=source, column=label)[0]


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


def _record_aligned_groups(rec: np.ndarray, size: int) -> list[tuple[int, int]]:
    """Row ranges of about ``size`` rows of the sorted record numbers ``rec``, cut only between records."""
    n = len(rec)
    if n == 0:
        return []
    cuts = np.searchsorted(rec, rec[np.arange(size, n, max(size, 1))], side="left")
    edges = np.unique(np.concatenate([[0], cuts, [n]]))
    return list(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True))


def write_parquet(
    data, path: str | os.PathLike, *, form: str = "long", tid: str = "tid", item: str = "item",
    row_group_size: int = 1 << 20,
) -> None:
    """Write transactions as Parquet, items and ids dictionary-encoded text.

    Parameters
    ----------
    data : TransactionData
    path : path-like
        Written atomically (:func:`graphanon.readwrite.files.atomic_write`).
    form : {"long", "list"}
        ``long``: ``tid, item[, label]`` rows (an empty record is one row with
        a null item); ``list``: one row per record with an ``item`` list.
    tid, item : str
        Column names.
    row_group_size : int
        Rows per Parquet row group (long form: about that many, cut between
        records, so a record never spans two row groups and a row group's id
        dictionary holds only its own records).

    Notes
    -----
    Complexity: O(occurrences) in numpy/Arrow; no Python step per occurrence.
    """
    pa, _, pq = _arrow()
    if form not in ("long", "list"):
        raise ParameterError(f"form must be 'long' or 'list', got {form!r}")
    X = data.matrix
    lengths = np.diff(X.indptr).astype(np.int64)
    item_dict = pa.array([str(x) for x in data.items], type=pa.string())
    id_dict = pa.array([str(x) for x in data.record_ids], type=pa.string())
    items = pa.DictionaryArray.from_arrays(pa.array(X.indices.astype(np.int32)), item_dict)
    buf = io.BytesIO()
    labels = None if data.labels is None else pa.array([str(x) for x in data.labels], type=pa.string())
    if form == "long":
        empty = np.flatnonzero(lengths == 0)
        rec = np.repeat(np.arange(data.n_records), lengths)
        # empty records: one row with a null item, placed after the occurrences
        rec = np.concatenate([rec, empty])
        idx = np.concatenate([X.indices.astype(np.int32), np.zeros(len(empty), dtype=np.int32)])
        mask = np.concatenate([np.zeros(X.nnz, dtype=bool), np.ones(len(empty), dtype=bool)])
        order = np.argsort(rec, kind="stable")
        rec, idx, mask = rec[order], idx[order], mask[order]
        writer = None
        for a, b in _record_aligned_groups(rec, row_group_size):
            # a row group holds whole records, numbered from its first one: the id (and label)
            # dictionaries are zero-copy slices of the records it holds, not all of them
            first, local = rec[a], pa.array((rec[a:b] - rec[a]).astype(np.int32))
            span = int(rec[b - 1] - first + 1)
            cols = {
                tid: pa.DictionaryArray.from_arrays(local, id_dict.slice(first, span)),
                item: pa.DictionaryArray.from_arrays(pa.array(idx[a:b], mask=mask[a:b]), item_dict),
            }
            if labels is not None:
                cols["label"] = pa.DictionaryArray.from_arrays(local, labels.slice(first, span))
            table = pa.table(cols)
            writer = writer or pq.ParquetWriter(buf, table.schema)
            writer.write_table(table, row_group_size=b - a)  # one row group
        if writer is None:
            pq.write_table(pa.table({tid: pa.array([], pa.string()), item: pa.array([], pa.string())}), buf)
        else:
            writer.close()
    else:
        offsets = pa.array(X.indptr.astype(np.int32))
        # plain strings inside lists: Arrow cannot read dictionary values nested in lists back in batches
        cols = {tid: id_dict, item: pa.ListArray.from_arrays(offsets, items.dictionary_decode())}
        if labels is not None:
            cols["label"] = labels
        pq.write_table(pa.table(cols), buf, row_group_size=row_group_size)
    atomic_write(path, buf.getvalue())
