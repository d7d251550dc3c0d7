r"""Relational attributes of records and the joined relational-transaction dataset.

A :class:`RelationalTable` holds one row per record: a record id and named
columns, each *numeric* (whole numbers: age, year of birth) or *categorical*
(text: gender, race, region). :class:`RTData` joins such a table by record id
with a :class:`~graphanon.data.TransactionData` (read from any transaction
format: long CSV, FIMI, basket, Parquet) and carries the quasi-identifier
columns and their :class:`~graphanon.relational.AttributeHierarchy`.

Reading (:func:`read_relational_csv`) refuses, with the file, line, record id
and column, what would make a release silently wrong:

* a missing value (an empty cell or an NA spelling:
  :data:`graphanon.readwrite.missing.NA_LABELS`);
* a column holding numbers on some rows and text on others (mixed types; list
  it in ``categorical=`` to read it as text);
* decimals in a numeric column (numeric hierarchies are over whole numbers:
  round or bin the column first, or read it as categorical);
* a record id twice, and, when joining, ids on one side only.

Examples
--------
>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "demo.csv"
>>> _ = p.write_text("id,age,gender\n1,34,F\n2,51,M\n")
>>> table = read_relational_csv(p)
>>> table.names, table.kinds["age"], table.column("age").tolist()
(('age', 'gender'), 'numeric', [34, 51])
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path

import numpy as np

from graphanon.data import TransactionData, from_iterable
from graphanon.errors import DataFormatError, ParameterError
from graphanon.readwrite.missing import NA_LABELS
from graphanon.readwrite.text import csv_header, read_all
from graphanon.relational.hierarchy import AttributeHierarchy

__all__ = ["RTData", "RelationalTable", "join_relational", "read_relational_csv", "read_rt_table"]

_INT = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_MISSING = frozenset(("",) + NA_LABELS)


class RelationalTable:
    """One row per record: a record id and named numeric or categorical columns.

    Parameters
    ----------
    record_ids : sequence
        One id per row, distinct (kept as text: they are matched to the
        transactions' ids as text).
    columns : mapping of str to sequence
        Column name -> values, one per row: whole numbers for a numeric
        column, text for a categorical one.
    kinds : mapping of str to {"numeric", "categorical"}, optional
        Default: numeric when every value is an int, else categorical.
    source : str, optional
        Where the table came from (for error messages).

    Examples
    --------
    >>> t = RelationalTable(["a", "b"], {"age": [30, 41], "gender": ["F", "M"]})
    >>> t.kinds
    {'age': 'numeric', 'gender': 'categorical'}
    >>> t.subset([1]).column("gender").tolist()
    ['M']
    """

    def __init__(self, record_ids: Sequence[Hashable], columns: Mapping[str, Sequence], *,
                 kinds: Mapping[str, str] | None = None, source: str = "<table>") -> None:
        self.record_ids = tuple(str(r) for r in record_ids)
        self.source = source
        n = len(self.record_ids)
        seen: set[str] = set()
        for r in self.record_ids:
            if r in seen:
                raise DataFormatError(f"{source}: record id {r!r} appears twice; each record has one row")
            seen.add(r)
        self._columns: dict[str, np.ndarray] = {}
        self.kinds: dict[str, str] = {}
        for name, values in columns.items():
            values = list(values)
            if len(values) != n:
                raise DataFormatError(f"{source}: column {name!r} has {len(values)} values for {n} records")
            kind = (kinds or {}).get(name)
            if kind is None:
                kind = "numeric" if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values) \
                    and values else "categorical"
            if kind == "numeric":
                self._columns[name] = np.asarray(values, dtype=np.int64)
            elif kind == "categorical":
                self._columns[name] = np.asarray([str(v) for v in values], dtype=object)
            else:
                raise ParameterError(f"column {name!r}: kind must be 'numeric' or 'categorical', got {kind!r}")
            self.kinds[name] = kind

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in file order."""
        return tuple(self._columns)

    @property
    def n_records(self) -> int:
        """The number of rows."""
        return len(self.record_ids)

    def __len__(self) -> int:
        """The number of rows."""
        return self.n_records

    def column(self, name: str) -> np.ndarray:
        """The values of a column (int64 for numeric, object array of str for categorical)."""
        try:
            return self._columns[name]
        except KeyError:
            raise ParameterError(f"no column {name!r} in {self.source} (columns: {', '.join(self.names)})") from None

    def subset(self, rows) -> RelationalTable:
        """The rows at positions ``rows``."""
        rows = np.asarray(rows, dtype=np.int64)
        return RelationalTable([self.record_ids[i] for i in rows], {c: v[rows] for c, v in self._columns.items()},
                               kinds=self.kinds, source=self.source)

    def __repr__(self) -> str:
        """A short summary: rows and columns."""
        cols = ", ".join(f"{c} ({self.kinds[c][:3]})" for c in self.names)
        return f"<RelationalTable {self.source}: {self.n_records} records; {cols}>"


def _read_csv_rows(path, delimiter: str) -> tuple[list[str], list[tuple[int, list[str]]], str]:
    source = str(path)
    text = read_all(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = csv_header(reader, source, "the record id and columns")
    rows = []
    try:
        for row in reader:
            if not row or not any(c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise DataFormatError(f"{source}, line {reader.line_num}: {len(row)} cells for {len(header)} columns "
                                      f"in the header {header}")
            rows.append((reader.line_num, [c.strip() for c in row]))
    except csv.Error as exc:
        raise DataFormatError(f"{source}, line {reader.line_num}: not CSV ({exc})") from None
    return header, rows, source


def read_relational_csv(
    path: str | os.PathLike,
    *,
    id_column: str | None = None,
    columns: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
    delimiter: str = ",",
) -> RelationalTable:
    r"""Read a CSV table of relational attributes, one row per record.

    Parameters
    ----------
    path : path-like
        The CSV file (header row; ``.gz`` allowed).
    id_column : str, optional
        The record-id column (default: the first column).
    columns : sequence of str, optional
        The columns to keep (default: all but the id column).
    categorical : sequence of str
        Columns read as text even when they hold numbers (zip codes).
    delimiter : str
        The field delimiter.

    Returns
    -------
    RelationalTable

    Raises
    ------
    DataFormatError
        Naming file, line, record id and column for a missing value, a column
        of mixed numbers and text, decimals in a numeric column, an unknown
        column or a repeated id.

    Notes
    -----
    Complexity: O(cells).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = p.write_text("id,age\n1,34\n2,\n")
    >>> read_relational_csv(p)
    Traceback (most recent call last):
    ...
    graphanon.errors.DataFormatError: ...d.csv, line 3: record '2' has no value in column 'age' (empty or NA); fill it in or leave the record out
    """
    header, rows, source = _read_csv_rows(path, delimiter)
    id_column = header[0] if id_column is None else id_column
    if id_column not in header:
        raise DataFormatError(f"{source}, line 1: no record-id column {id_column!r} in the header {header}")
    id_at = header.index(id_column)
    wanted = [c for c in header if c != id_column] if columns is None else list(columns)
    for c in wanted:
        if c not in header:
            raise DataFormatError(f"{source}, line 1: no column {c!r} in the header {header}")
    ids = [row[id_at] for _, row in rows]
    for (line, _row), rid in zip(rows, ids):
        if rid in _MISSING:
            raise DataFormatError(f"{source}, line {line}: no record id in column {id_column!r}")
    cols: dict[str, list] = {}
    kinds: dict[str, str] = {}
    for c in wanted:
        at = header.index(c)
        cells = [row[at] for _, row in rows]
        for (line, _), rid, cell in zip(rows, ids, cells):
            if cell in _MISSING:
                raise DataFormatError(f"{source}, line {line}: record {rid!r} has no value in column {c!r} "
                                      "(empty or NA); fill it in or leave the record out")
        if c in categorical:
            cols[c], kinds[c] = cells, "categorical"
            continue
        is_num = [bool(_NUMBER.match(x)) for x in cells]
        if any(is_num) and not all(is_num):
            first_num = is_num[0]
            i = next(i for i, v in enumerate(is_num) if v != first_num)
            kind_first = "numbers" if first_num else "text"
            raise DataFormatError(
                f"{source}, line {rows[i][0]}: column {c!r} holds {kind_first} (line {rows[0][0]}: "
                f"{cells[0]!r}) and {cells[i]!r} for record {ids[i]!r}: mixed types; fix the value, or read the "
                f"column as text (categorical={[c]!r}, --categorical {c})"
            )
        if all(is_num) and cells:
            bad = next((i for i, x in enumerate(cells) if not _INT.match(x)), None)
            if bad is not None:
                raise DataFormatError(
                    f"{source}, line {rows[bad][0]}: column {c!r} of record {ids[bad]!r} is {cells[bad]!r}, not a "
                    "whole number: numeric hierarchies are over whole numbers; round or bin the column, or read "
                    f"it as text (categorical={[c]!r})"
                )
            cols[c], kinds[c] = [int(x) for x in cells], "numeric"
        else:
            cols[c], kinds[c] = cells, "categorical"
    return RelationalTable(ids, cols, kinds=kinds, source=source)


class RTData:
    """Relational-transaction data: a record's relational attributes and its transaction, joined by id.

    Parameters
    ----------
    transactions : TransactionData
        The items of each record.
    table : RelationalTable
        The relational attributes; the same record ids (as text), in any order:
        the table is reordered to the transactions' records.
    qi : sequence of str, optional
        The quasi-identifier columns (default: all of the table's columns).
    hierarchies : mapping of str to AttributeHierarchy, optional
        Per QI column its hierarchy (default: automatic intervals for a
        numeric column, flat for a categorical one).

    Raises
    ------
    DataFormatError
        For record ids on one side only (naming how many and the first ones).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> tx = from_iterable([["a"], ["a", "b"]], record_ids=["r1", "r2"])
    >>> rt = RTData(tx, RelationalTable(["r2", "r1"], {"age": [50, 31]}))
    >>> rt.table.column("age").tolist(), rt.qi
    ([31, 50], ('age',))
    """

    def __init__(self, transactions: TransactionData, table: RelationalTable, *, qi: Sequence[str] | None = None,
                 hierarchies: Mapping[str, AttributeHierarchy] | None = None) -> None:
        tx_ids = [str(r) for r in transactions.record_ids]
        where = {r: i for i, r in enumerate(table.record_ids)}
        only_tx = [r for r in tx_ids if r not in where]
        tx_set = set(tx_ids)
        only_table = [r for r in table.record_ids if r not in tx_set]
        if only_tx or only_table:
            parts = []
            if only_tx:
                parts.append(f"{len(only_tx)} record id(s) of the transactions ({transactions.name or 'data'}) are not "
                             f"in {table.source}, e.g. {only_tx[:3]}")
            if only_table:
                parts.append(f"{len(only_table)} of {table.source} are not in the transactions, e.g. {only_table[:3]}")
            raise DataFormatError("; ".join(parts) + "; every record needs both its items and its relational row")
        order = np.array([where[r] for r in tx_ids], dtype=np.int64)
        self.transactions = transactions
        self.table = table if np.array_equal(order, np.arange(len(order))) else table.subset(order)
        self.qi = tuple(table.names if qi is None else qi)
        if not self.qi:
            raise ParameterError("give at least one quasi-identifier column (qi=...)")
        for c in self.qi:
            table.column(c)
        hierarchies = dict(hierarchies or {})
        unknown = sorted(set(hierarchies) - set(self.qi))
        if unknown:
            raise ParameterError(f"a hierarchy is given for {unknown[0]!r}, which is not a quasi-identifier "
                                 f"({', '.join(self.qi)})")
        for c in self.qi:
            if c not in hierarchies:
                values = self.table.column(c)
                hierarchies[c] = (AttributeHierarchy.numeric(c, values) if self.table.kinds[c] == "numeric"
                                  else AttributeHierarchy.categorical(c, values))
        self.hierarchies = {c: hierarchies[c] for c in self.qi}
        self._codes: np.ndarray | None = None

    @property
    def n_records(self) -> int:
        """The number of records."""
        return self.transactions.n_records

    def __len__(self) -> int:
        """The number of records."""
        return self.n_records

    @property
    def name(self) -> str | None:
        """The transactions' display name."""
        return self.transactions.name

    def qi_codes(self) -> np.ndarray:
        """Per record and QI, the preorder position of its value's leaf in the QI's hierarchy (records x QIs)."""
        if self._codes is None:
            self._codes = np.stack(
                [self.hierarchies[c].leaf_codes(self.table.column(c)) for c in self.qi], axis=1
            ) if self.n_records else np.zeros((0, len(self.qi)), dtype=np.int64)
        return self._codes

    def qi_values(self, i: int) -> tuple[str, ...]:
        """The QI values of record ``i``, as text."""
        return tuple(str(self.table.column(c)[i]) for c in self.qi)

    def subset(self, rows) -> RTData:
        """The records at positions ``rows`` (hierarchies kept)."""
        rows = np.asarray(rows, dtype=np.int64)
        return RTData(self.transactions.subset(rows), self.table.subset(rows), qi=self.qi,
                      hierarchies=self.hierarchies)

    def __repr__(self) -> str:
        """A short summary."""
        return f"<RTData: {self.n_records} records, {self.transactions.n_items} items, QIs {', '.join(self.qi)}>"


def read_rt_table(
    path: str | os.PathLike,
    *,
    items_column: str,
    id_column: str | None = None,
    separator: str = ";",
    columns: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
    delimiter: str = ",",
) -> tuple[TransactionData, RelationalTable]:
    r"""Read one CSV table whose ``items_column`` holds each record's items (set-valued column).

    The items of a cell are separated by ``separator`` (``"250;401.9"``); an
    empty cell is an empty transaction. The other columns are read as by
    :func:`read_relational_csv`.

    Returns
    -------
    (TransactionData, RelationalTable)
        Aligned by record id; pass them to :class:`RTData`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "rt.csv"
    >>> _ = p.write_text("id,age,dx\n1,34,250;401\n2,51,401\n")
    >>> tx, table = read_rt_table(p, items_column="dx")
    >>> sorted(tx.record(0)), table.names
    (['250', '401'], ('age',))
    """
    header, rows, source = _read_csv_rows(path, delimiter)
    if items_column not in header:
        raise DataFormatError(f"{source}, line 1: no items column {items_column!r} in the header {header}")
    id_column = header[0] if id_column is None else id_column
    at, id_at = header.index(items_column), header.index(id_column) if id_column in header else 0
    records = [[x.strip() for x in row[at].split(separator) if x.strip()] for _, row in rows]
    tx = from_iterable(records, record_ids=[row[id_at] for _, row in rows], name=Path(path).name)
    keep = [c for c in header if c not in (id_column, items_column)] if columns is None else list(columns)
    table = read_relational_csv(path, id_column=id_column, columns=keep, categorical=categorical, delimiter=delimiter)
    return tx, table


def join_relational(transactions: TransactionData, path: str | os.PathLike, qi: str | Sequence[str], *,
                    hierarchies: Sequence[str] | Mapping[str, str | os.PathLike] = (),
                    categorical: str | Sequence[str] | None = None) -> RTData:
    r"""The transactions joined with the relational table in ``path``: what ``--relational`` reads on every door.

    Parameters
    ----------
    transactions : TransactionData
        The items of each record (their record ids join the table's first column).
    path : path
        CSV of relational attributes (:func:`read_relational_csv`).
    qi : str or sequence of str
        The quasi-identifier columns (``"age,gender,race"`` or a list).
    hierarchies : sequence of ``"COLUMN=FILE"`` or mapping COLUMN -> FILE
        Hierarchy files of QI columns (``value;parent;...;root`` per line);
        the others: automatic intervals for numbers, flat for text.
    categorical : str or sequence of str, optional
        Columns read as text though they hold numbers.

    Returns
    -------
    RTData

    Raises
    ------
    ParameterError
        No QI column, a hierarchy for a column that is not a QI.
    DataFormatError
        From reading the table, or ids on one side of the join only.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from graphanon.data import from_iterable
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "d.csv").write_text("id,age,sex\nr1,31,F\nr2,50,M\n")
    >>> rt = join_relational(from_iterable([["a"], ["b"]], record_ids=["r1", "r2"]), folder / "d.csv", "age,sex")
    >>> rt.qi, rt.n_records
    (('age', 'sex'), 2)
    """
    names = [c.strip() for c in (qi.split(",") if isinstance(qi, str) else qi) if c.strip()]
    if not names:
        raise ParameterError("--relational needs --qi COLUMN,... (the quasi-identifier columns of the table)")
    cats = [c.strip() for c in ((categorical or "").split(",") if isinstance(categorical, str) or categorical is None
                                else categorical) if c.strip()]
    table = read_relational_csv(path, columns=names, categorical=cats)
    specs = list(hierarchies.items()) if isinstance(hierarchies, Mapping) else [
        tuple(spec.partition("=")[::2]) for spec in hierarchies]
    trees = {}
    for column, file in specs:
        if not file or column not in names:
            raise ParameterError(f"--qi-hierarchy {column}={file}: use COLUMN=FILE with a column of --qi "
                                 f"({', '.join(names)})")
        trees[column] = AttributeHierarchy.from_file(column, file, table.column(column))
    return RTData(transactions, table, qi=names, hierarchies=trees)
