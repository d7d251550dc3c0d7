"""Plain tables for people without graphanon: CSV, TSV and Parquet.

:func:`write_table` writes a table given as named columns -- text, whole
numbers, decimals, and *list* columns (each cell a list of texts or numbers)
-- in the format its file name ends with:

* ``.csv`` / ``.tsv``: RFC 4180 through the :mod:`csv` module (a cell holding
  the delimiter, a quote or a line break is quoted, inner quotes doubled); a
  list cell is written as a JSON array (``["290,299","401"]``), which keeps
  every name whole whatever it holds; a missing value is an empty cell.
* ``.parquet``: one Arrow column per column, list columns as Arrow lists
  (``list<string>``); needs the ``parquet`` extra (pyarrow).

The file is written atomically (:func:`graphanon.readwrite.files.atomic_write`).

Examples
--------
>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> write_table(out, {"row": ["p1", "p2"], "items": [["a,b", "c"], []]})
>>> print(out.read_text().strip())
row,items
p1,"[""a,b"",""c""]"
p2,[]
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from graphanon.errors import ParameterError
from graphanon.readwrite.files import atomic_write

__all__ = ["TABLE_SUFFIXES", "table_suffix", "write_table"]

#: File endings :func:`write_table` writes.
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")


def table_suffix(path: str | os.PathLike) -> str:
    """The table format of ``path`` by its ending (``".csv"``, ``".tsv"`` or ``".parquet"``).

    Raises
    ------
    ParameterError
        For any other ending, naming the ones accepted.

    Examples
    --------
    >>> table_suffix("out.TSV")
    '.tsv'
    """
    name = Path(path).name.lower()
    for suffix in TABLE_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return suffix
    raise ParameterError(f"{path}: cannot write this kind of table; use a name ending in {', '.join(TABLE_SUFFIXES)}")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_table(path: str | os.PathLike, columns: Mapping[str, Sequence]) -> None:
    """Write named columns of equal length as CSV, TSV or Parquet (by the file's ending).

    Parameters
    ----------
    path : path-like
        Ends in ``.csv``, ``.tsv`` or ``.parquet`` (:func:`table_suffix`).
    columns : mapping of str to sequence
        Column name -> values, one per row: text, int, float, None (missing)
        or a list of those (a list column).

    Raises
    ------
    ParameterError
        Columns of different lengths, an unknown ending, or ``.parquet``
        without pyarrow (``pip install 'graphanon[parquet]'``).

    Notes
    -----
    Complexity: O(cells). A CSV list cell is a JSON array; Parquet keeps it
    as a list column.
    """
    suffix = table_suffix(path)
    names = list(columns)
    lengths = {len(columns[name]) for name in names}
    if len(lengths) > 1:
        raise ParameterError(f"table columns of different lengths: {dict((n, len(columns[n])) for n in names)}")
    if suffix == ".parquet":
        _write_parquet_table(path, columns)
        return
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, delimiter="\t" if suffix == ".tsv" else ",", lineterminator="\n")
    writer.writerow(names)
    cols = [columns[name] for name in names]
    writer.writerows([_cell(v) for v in row] for row in zip(*cols, strict=True))
    atomic_write(path, buf.getvalue())


def _arrow_type(pa, values: Sequence):
    """The Arrow type of a column, from its first present value (a column holds one kind of value).

    list<T> for list cells (T from the first non-empty list), bool, int64, float64, else string.
    """
    first = next((v for v in values if v is not None), None)
    if isinstance(first, (list, tuple)):
        inner = next((v[0] for v in values if v), None)
        return pa.list_(_arrow_type(pa, [inner]))
    if isinstance(first, bool):
        return pa.bool_()
    if isinstance(first, int):
        return pa.int64()
    if isinstance(first, float):
        return pa.float64()
    return pa.string()


def _write_parquet_table(path, columns: Mapping[str, Sequence]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ParameterError(
            f"{path}: Parquet output needs pyarrow: pip install 'graphanon[parquet]' (or pip install pyarrow), "
            "or write .csv / .tsv"
        ) from None
    arrays = {}
    for name, values in columns.items():
        kind = _arrow_type(pa, values)
        try:
            arrays[name] = pa.array(values, type=kind)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed kinds (a text among numbers): all as text
            kind = pa.list_(pa.string()) if pa.types.is_list(kind) else pa.string()
            text = [None if v is None else [str(x) for x in v] if isinstance(v, (list, tuple)) else str(v)
                    for v in values]
            arrays[name] = pa.array(text, type=kind)
    buf = io.BytesIO()
    pq.write_table(pa.table(arrays), buf)
    atomic_write(path, buf.getvalue())
