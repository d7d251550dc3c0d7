"""Transaction data: an immutable item vocabulary plus a boolean incidence matrix.

A *transaction* (record) is a set of items. :class:`TransactionData` holds a
collection of records as a ``records x items`` boolean CSR matrix
(:class:`scipy.sparse.csr_array`), an item vocabulary (label <-> integer id),
record ids and optional per-record sensitive labels. Items are integers
internally; labels live only in the vocabulary.

Readers and writers cover the common formats: FIMI ``.dat`` (one record per
line, space-separated integer items), long CSV (``tid,item``), basket text
(one record per line, a chosen separator), pandas DataFrames and Python
iterables. Every reader names the file and line of a malformed entry; none
drops a record silently.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataFormatError, ParameterError

__all__ = [
    "TransactionData",
    "from_dataframe",
    "from_iterable",
    "read_basket",
    "read_fimi",
    "read_long_csv",
    "write_basket",
    "write_fimi",
    "write_long_csv",
]


def _sorted_vocabulary(labels: Iterable[Hashable]) -> list:
    """Distinct labels, sorted when they are mutually comparable.

    Integers and strings are sorted separately (integers first) so that a
    vocabulary mixing both still has one deterministic order.
    """
    distinct = set(labels)
    ints = sorted(x for x in distinct if isinstance(x, (int, np.integer)) and not isinstance(x, bool))
    rest = [x for x in distinct if not (isinstance(x, (int, np.integer)) and not isinstance(x, bool))]
    try:
        rest = sorted(rest)
    except TypeError:
        rest = sorted(rest, key=repr)
    return [int(x) for x in ints] + rest


class TransactionData:
    """An immutable collection of transactions (sets of items).

    Parameters
    ----------
    matrix : sparse matrix or array, shape (n_records, n_items)
        Incidence matrix; any non-zero entry means "record contains item".
    items : sequence of hashable
        Item labels; ``items[j]`` is the label of column ``j``. Labels must be
        distinct.
    record_ids : sequence, optional
        One id per record (default ``0 .. n-1``). Ids must be distinct.
    labels : sequence, optional
        One sensitive label per record (for l-diversity and nonreciprocal
        recoding), or None.
    name : str, optional
        A name for display (a dataset name or a file name).

    Notes
    -----
    The matrix is stored as a canonical boolean ``csr_array`` (sorted
    indices, no duplicates, no explicit zeros) whose buffers are read-only.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a", "b"], ["b", "c"], ["a"]])
    >>> data.n_records, data.n_items
    (3, 3)
    >>> sorted(data.record(0))
    ['a', 'b']
    >>> data.supports().tolist()
    [2, 2, 1]
    """

    __slots__ = ("_matrix", "_items", "_index", "_record_ids", "_labels", "name", "_csc")

    def __init__(
        self,
        matrix: Any,
        items: Sequence[Hashable],
        record_ids: Sequence[Hashable] | None = None,
        labels: Sequence[Hashable] | None = None,
        name: str | None = None,
    ) -> None:
        m = sp.csr_array(matrix)
        m.sum_duplicates()
        m.eliminate_zeros()
        m = sp.csr_array(
            (np.ones(m.nnz, dtype=bool), m.indices.astype(np.int32), m.indptr.astype(np.int64)),
            shape=m.shape,
        )
        m.sort_indices()
        n, n_items = m.shape
        items = tuple(items)
        if len(items) != n_items:
            raise DataFormatError(
                f"the vocabulary has {len(items)} labels but the matrix has {n_items} item columns"
            )
        index = {label: j for j, label in enumerate(items)}
        if len(index) != len(items):
            seen: set = set()
            dup = next(x for x in items if x in seen or seen.add(x))
            raise DataFormatError(f"item label {dup!r} appears twice in the vocabulary")
        if record_ids is None:
            record_ids = tuple(range(n))
        else:
            record_ids = tuple(record_ids)
            if len(record_ids) != n:
                raise DataFormatError(f"{len(record_ids)} record ids given for {n} records")
            if len(set(record_ids)) != n:
                seen = set()
                dup = next(x for x in record_ids if x in seen or seen.add(x))
                raise DataFormatError(f"record id {dup!r} appears twice")
        if labels is not None:
            labels = tuple(labels)
            if len(labels) != n:
                raise DataFormatError(f"{len(labels)} sensitive labels given for {n} records")
        for arr in (m.data, m.indices, m.indptr):
            arr.flags.writeable = False
        self._matrix = m
        self._items = items
        self._index = index
        self._record_ids = record_ids
        self._labels = labels
        self._csc = None
        self.name = name

    # ------------------------------------------------------------------ basic views
    @property
    def matrix(self) -> sp.csr_array:
        """The boolean ``records x items`` incidence matrix (CSR, read-only)."""
        return self._matrix

    @property
    def csc(self) -> sp.csc_array:
        """The incidence matrix in CSC form (cached): fast per-item record lists."""
        if self._csc is None:
            self._csc = self._matrix.tocsc()
        return self._csc

    @property
    def items(self) -> tuple:
        """Item labels; position ``j`` is the label of item id ``j``."""
        return self._items

    @property
    def record_ids(self) -> tuple:
        """Record ids, one per record."""
        return self._record_ids

    @property
    def labels(self) -> tuple | None:
        """Per-record sensitive labels, or None."""
        return self._labels

    @property
    def n_records(self) -> int:
        return self._matrix.shape[0]

    @property
    def n_items(self) -> int:
        return self._matrix.shape[1]

    def __len__(self) -> int:
        return self.n_records

    def item_id(self, label: Hashable) -> int:
        """Integer id of an item label; raises a clear error for unknown labels."""
        try:
            return self._index[label]
        except KeyError:
            raise DataFormatError(
                f"item {label!r} is not in the data's vocabulary of {self.n_items} items"
            ) from None

    def item_ids(self, labels: Iterable[Hashable]) -> np.ndarray:
        """Integer ids of several item labels (see :meth:`item_id`)."""
        return np.array([self.item_id(x) for x in labels], dtype=np.int64)

    def has_item(self, label: Hashable) -> bool:
        return label in self._index

    def record_items(self, i: int) -> np.ndarray:
        """Sorted integer item ids of record ``i``."""
        m = self._matrix
        return np.asarray(m.indices[m.indptr[i] : m.indptr[i + 1]])

    def record(self, i: int) -> frozenset:
        """Item labels of record ``i``."""
        return frozenset(self._items[j] for j in self.record_items(i))

    def records(self) -> list[frozenset]:
        """All records as frozensets of item labels (a Python-level view)."""
        return [self.record(i) for i in range(self.n_records)]

    def record_lengths(self) -> np.ndarray:
        """Number of items in each record."""
        return np.diff(self._matrix.indptr)

    def supports(self) -> np.ndarray:
        """Support (number of records containing it) of every item."""
        return np.bincount(self._matrix.indices, minlength=self.n_items).astype(np.int64)

    def summary(self) -> dict:
        """Summary statistics: records, items, occurrences, record length, density."""
        lengths = self.record_lengths()
        n, n_items = self._matrix.shape
        return {
            "name": self.name,
            "records": int(n),
            "items": int(n_items),
            "occurrences": int(self._matrix.nnz),
            "mean_length": float(lengths.mean()) if n else 0.0,
            "max_length": int(lengths.max()) if n else 0,
            "empty_records": int((lengths == 0).sum()),
            "density": float(self._matrix.nnz / (n * n_items)) if n and n_items else 0.0,
            "has_labels": self._labels is not None,
        }

    # ------------------------------------------------------------------ derived data
    def subset(self, rows: Sequence[int] | np.ndarray) -> TransactionData:
        """The records at positions ``rows`` (vocabulary unchanged)."""
        rows = np.asarray(rows, dtype=np.int64)
        labels = None if self._labels is None else [self._labels[i] for i in rows]
        return TransactionData(
            self._matrix[rows],
            self._items,
            record_ids=[self._record_ids[i] for i in rows],
            labels=labels,
            name=self.name,
        )

    def with_labels(self, labels: Sequence[Hashable] | None) -> TransactionData:
        """A copy with the given per-record sensitive labels."""
        return TransactionData(self._matrix, self._items, self._record_ids, labels, self.name)

    def drop_unused_items(self) -> TransactionData:
        """A copy without items of support 0 (ids renumbered, labels kept)."""
        used = np.flatnonzero(self.supports() > 0)
        return TransactionData(
            self._matrix[:, used],
            [self._items[j] for j in used],
            self._record_ids,
            self._labels,
            self.name,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TransactionData):
            return NotImplemented
        if self._items != other._items or self._record_ids != other._record_ids:
            return False
        if self._labels != other._labels or self._matrix.shape != other._matrix.shape:
            return False
        a, b = self._matrix, other._matrix
        return bool(np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        lab = ", labelled" if self._labels is not None else ""
        return (
            f"<TransactionData{name}: {self.n_records} records, {self.n_items} items, "
            f"{self._matrix.nnz} occurrences{lab}>"
        )


# ---------------------------------------------------------------------- constructors
def _from_id_lists(
    lengths: np.ndarray,
    flat_ids: np.ndarray,
    items: Sequence[Hashable],
    record_ids=None,
    labels=None,
    name=None,
) -> TransactionData:
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    matrix = sp.csr_array(
        (np.ones(len(flat_ids), dtype=bool), flat_ids.astype(np.int32), indptr),
        shape=(len(lengths), len(items)),
    )
    return TransactionData(matrix, items, record_ids, labels, name)


def from_iterable(
    records: Iterable[Iterable[Hashable]],
    *,
    record_ids: Sequence[Hashable] | None = None,
    labels: Sequence[Hashable] | None = None,
    items: Sequence[Hashable] | None = None,
    name: str | None = None,
) -> TransactionData:
    """Build :class:`TransactionData` from Python collections of item labels.

    Parameters
    ----------
    records : iterable of iterables
        Each record is a collection of hashable item labels; repeated labels
        inside a record count once. A string is rejected as a record (it would
        silently become a set of characters).
    record_ids, labels : sequence, optional
        Record ids and sensitive labels, one per record.
    items : sequence, optional
        The vocabulary (may include items that occur in no record). By default
        the distinct labels, sorted.
    name : str, optional
        Display name.

    Examples
    --------
    >>> data = from_iterable([{1, 2}, {2, 3}], labels=["x", "y"])
    >>> data.items
    (1, 2, 3)
    """
    recs = []
    for r, rec in enumerate(records):
        if isinstance(rec, (str, bytes)):
            raise DataFormatError(
                f"record {r} is the string {rec!r}; give each record as a collection of items, "
                f"e.g. [{rec!r}] for a one-item record"
            )
        try:
            recs.append(list(dict.fromkeys(rec)))
        except TypeError as exc:
            raise DataFormatError(f"record {r} is not a collection of hashable items: {exc}") from None
    if items is None:
        items = _sorted_vocabulary(x for rec in recs for x in rec)
    index = {label: j for j, label in enumerate(items)}
    flat: list[int] = []
    lengths = np.empty(len(recs), dtype=np.int64)
    for r, rec in enumerate(recs):
        try:
            flat.extend(index[x] for x in rec)
        except KeyError as exc:
            raise DataFormatError(
                f"record {r} holds item {exc.args[0]!r}, which is not in the given vocabulary"
            ) from None
        lengths[r] = len(rec)
    return _from_id_lists(lengths, np.asarray(flat, dtype=np.int64), items, record_ids, labels, name)


def _open_text(path: str | os.PathLike) -> io.TextIOBase:
    path = Path(path)
    if not path.exists():
        raise DataFormatError(f"{path}: no such file")
    if path.is_dir():
        raise DataFormatError(f"{path}: is a folder, not a data file")
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def _read_all(path) -> str:
    try:
        with _open_text(path) as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (OSError, EOFError) as exc:
        raise DataFormatError(f"{path}: cannot be read ({exc})") from None


def _csv_rows(text: str, source):
    """Rows of CSV text (any line ending); a malformed row raises DataFormatError naming its line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DataFormatError(f"{source}, line {reader.line_num}: not valid CSV ({exc})") from None
        yield row


def _split_lines(text: str) -> list[str]:
    """Lines of a record-per-line file, one per record.

    Every line is a record (a blank line is an empty record) except the empty
    string after the final newline, so that files written by the writers here
    read back with the same records. A file of blank lines only has no records.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not any(line.strip() for line in lines):
        return []
    return lines


def parse_fimi(text: str, source: str = "<text>", name: str | None = None) -> TransactionData:
    """Parse FIMI text (see :func:`read_fimi`)."""
    lines = _split_lines(text)
    if not lines:
        raise DataFormatError(f"{source}: no records (the file is empty)")
    token_lists = [line.split() for line in lines]
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    flat_tokens = [tok for toks in token_lists for tok in toks]
    try:
        flat = np.array(flat_tokens, dtype=np.int64) if flat_tokens else np.zeros(0, np.int64)
    except (ValueError, OverflowError):
        for lineno, toks in enumerate(token_lists, start=1):
            for tok in toks:
                if not tok.lstrip("-").isdigit():
                    raise DataFormatError(
                        f"{source}, line {lineno}: item {tok!r} is not an integer; FIMI files hold "
                        f"space-separated non-negative integer items, one record per line "
                        f"(use --format basket or csv for labelled items)"
                    ) from None
        raise DataFormatError(f"{source}: an item is too large for a 64-bit integer") from None
    if flat.size and flat.min() < 0:
        pos = int(np.argmax(flat < 0))
        lineno = int(np.searchsorted(np.cumsum(lengths), pos, side="right")) + 1
        raise DataFormatError(
            f"{source}, line {lineno}: item {int(flat[pos])} is negative; FIMI items are "
            f"non-negative integers"
        )
    # Deduplicate items inside a record (a record is a set).
    rows = np.repeat(np.arange(len(lengths)), lengths)
    vocab, ids = np.unique(flat, return_inverse=True)
    key = rows * (len(vocab) + 1) + ids
    keep = np.unique(key, return_index=True)[1]
    if len(keep) != len(key):
        keep.sort()
        rows, ids = rows[keep], ids[keep]
        lengths = np.bincount(rows, minlength=len(lengths))
    # Items must be sorted within each record for a canonical CSR.
    order = np.lexsort((ids, rows))
    ids = ids[order]
    return _from_id_lists(lengths, ids, [int(v) for v in vocab], name=name)


def read_fimi(path: str | os.PathLike, *, name: str | None = None) -> TransactionData:
    """Read a FIMI ``.dat`` file: one record per line, space-separated integer items.

    Blank lines are empty records (kept, so no record is lost); only the
    newline that ends the last line ends the file. ``.gz`` files are read
    transparently. Record ids are the 0-based line numbers.

    Parameters
    ----------
    path : path-like
        The file.
    name : str, optional
        Display name (default: the file name).

    Raises
    ------
    DataFormatError
        Naming the line and token when an item is not a non-negative integer,
        or when the file is empty.

    Complexity
    ----------
    O(total number of items), vectorized after tokenizing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.dat"
    >>> _ = p.write_text("1 2 3\\n2 3\\n")
    >>> read_fimi(p).summary()["occurrences"]
    5
    """
    return parse_fimi(_read_all(path), source=str(path), name=name or Path(path).name)


def write_fimi(data: TransactionData, path: str | os.PathLike) -> None:
    """Write data in FIMI format; item labels must be non-negative integers."""
    for label in data.items:
        if not isinstance(label, (int, np.integer)) or label < 0:
            raise DataFormatError(
                f"item label {label!r} is not a non-negative integer; FIMI holds integer items "
                f"only (write_basket or write_long_csv keep any label)"
            )
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(data.n_records):
            fh.write(" ".join(str(data.items[j]) for j in data.record_items(i)))
            fh.write("\n")


def read_long_csv(
    path: str | os.PathLike,
    *,
    tid: str = "tid",
    item: str = "item",
    label: str | None = None,
    name: str | None = None,
) -> TransactionData:
    """Read long-format CSV: one ``(transaction id, item)`` pair per row.

    Parameters
    ----------
    path : path-like
        RFC 4180 CSV with a header row (``.gz`` allowed).
    tid, item : str
        Column names of the transaction id and the item label.
    label : str, optional
        Column of a per-record sensitive label; every row of a record must
        carry the same value.
    name : str, optional
        Display name.

    Record order is the order in which transaction ids first appear; ids and
    items are kept as strings. A row with an empty item is a record with no
    item from that row (so an empty record can be written as ``tid,``).

    Raises
    ------
    DataFormatError
        Naming the file, line and column: missing header columns, a row with
        too few fields, an empty transaction id, conflicting labels.
    """
    text = _read_all(path)
    reader = _csv_rows(text, path)
    try:
        header = next(reader)
    except StopIteration:
        raise DataFormatError(f"{path}: empty file (expected a header row with {tid!r} and {item!r})") from None
    header = [h.strip() for h in header]
    for col in (tid, item) + ((label,) if label else ()):
        if col not in header:
            raise DataFormatError(
                f"{path}, line 1: no column {col!r} in the header {header}; name the columns with "
                f"tid=... and item=..."
            )
    ti, ii = header.index(tid), header.index(item)
    li = header.index(label) if label else None
    need = max(ti, ii, li if li is not None else 0) + 1
    records: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for lineno, row in enumerate(reader, start=2):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) < need:
            raise DataFormatError(
                f"{path}, line {lineno}: {len(row)} field(s) but the header has {len(header)}; "
                f"column {header[need - 1]!r} is missing"
            )
        t = row[ti].strip()
        if not t:
            raise DataFormatError(f"{path}, line {lineno}: empty transaction id in column {tid!r}")
        rec = records.setdefault(t, [])
        it = row[ii].strip()
        if it:
            rec.append(it)
        if li is not None:
            lab = row[li].strip()
            if labels.setdefault(t, lab) != lab:
                raise DataFormatError(
                    f"{path}, line {lineno}: record {t!r} has two sensitive labels "
                    f"({labels[t]!r} and {lab!r}) in column {label!r}"
                )
    if not records:
        raise DataFormatError(f"{path}: no records below the header")
    ids = list(records)
    return from_iterable(
        (records[t] for t in ids),
        record_ids=ids,
        labels=[labels[t] for t in ids] if li is not None else None,
        name=name or Path(path).name,
    )


def write_long_csv(data: TransactionData, path: str | os.PathLike, *, tid: str = "tid", item: str = "item") -> None:
    """Write long-format CSV (``tid,item``); an empty record is written as ``tid,``."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([tid, item] + (["label"] if data.labels is not None else []))
        for i in range(data.n_records):
            extra = [data.labels[i]] if data.labels is not None else []
            ids = data.record_items(i)
            if len(ids) == 0:
                w.writerow([data.record_ids[i], ""] + extra)
            for j in ids:
                w.writerow([data.record_ids[i], data.items[j]] + extra)


def read_basket(
    path: str | os.PathLike,
    *,
    sep: str = ",",
    quotechar: str | None = '"',
    name: str | None = None,
) -> TransactionData:
    """Read basket text: one record per line, items separated by ``sep``.

    Items may be quoted with ``quotechar`` (so a label may contain ``sep``).
    Labels are stripped of surrounding white space and kept as strings. Blank
    lines are empty records.

    Raises
    ------
    DataFormatError
        For an empty file or an unterminated quote (naming the line).
    """
    text = _read_all(path)
    lines = _split_lines(text)
    if not lines:
        raise DataFormatError(f"{path}: no records (the file is empty)")
    records = []
    for lineno, line in enumerate(lines, start=1):
        if quotechar and quotechar in line:
            if line.count(quotechar) % 2:
                raise DataFormatError(f"{path}, line {lineno}: unterminated quote {quotechar!r}")
            try:
                fields = next(csv.reader([line], delimiter=sep, quotechar=quotechar, skipinitialspace=True))
            except csv.Error as exc:
                raise DataFormatError(f"{path}, line {lineno}: not a valid quoted line ({exc})") from None
        else:
            fields = line.split(sep) if sep.strip() else line.split()
        records.append([f.strip() for f in fields if f.strip()])
    return from_iterable(records, name=name or Path(path).name)


def write_basket(data: TransactionData, path: str | os.PathLike, *, sep: str = ",") -> None:
    """Write basket text; labels containing ``sep`` or quotes are quoted."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for i in range(data.n_records):
            out = []
            for j in data.record_items(i):
                s = str(data.items[j])
                if sep in s or '"' in s or s != s.strip():
                    s = '"' + s.replace('"', '""') + '"'
                out.append(s)
            fh.write(sep.join(out) + "\n")


def from_dataframe(
    df,
    *,
    tid: str | None = "tid",
    item: str | None = "item",
    items_column: str | None = None,
    label: str | None = None,
    name: str | None = None,
) -> TransactionData:
    """Build data from a pandas DataFrame, long format or list-column format.

    Long format (default): one row per ``(tid, item)`` pair. List-column
    format (``items_column=...``): one row per record, the column holding a
    list/set of items; the index gives the record ids.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"tid": [1, 1, 2], "item": ["a", "b", "a"]})
    >>> from_dataframe(df).n_records
    2
    """
    if items_column is not None:
        if items_column not in df.columns:
            raise DataFormatError(f"no column {items_column!r} in the DataFrame ({list(df.columns)})")
        recs = []
        for pos, value in enumerate(df[items_column]):
            if value is None or (isinstance(value, float) and np.isnan(value)):
                recs.append([])
            elif isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise DataFormatError(
                    f"row {pos} of column {items_column!r} is {value!r}, not a list of items"
                )
            else:
                recs.append(list(value))
        labels = list(df[label]) if label else None
        return from_iterable(recs, record_ids=list(df.index), labels=labels, name=name)
    for col in (tid, item) + ((label,) if label else ()):
        if col not in df.columns:
            raise DataFormatError(
                f"no column {col!r} in the DataFrame ({list(df.columns)}); pass tid=, item= "
                f"or items_column= for list-column data"
            )
    records: dict = {}
    labels: dict = {}
    for pos, (t, it) in enumerate(zip(df[tid], df[item])):
        rec = records.setdefault(t, [])
        if it is not None and not (isinstance(it, float) and np.isnan(it)):
            rec.append(it)
        if label:
            lab = df[label].iloc[pos]
            if labels.setdefault(t, lab) != lab:
                raise DataFormatError(f"record {t!r} has two sensitive labels ({labels[t]!r}, {lab!r})")
    ids = list(records)
    return from_iterable(
        (records[t] for t in ids),
        record_ids=ids,
        labels=[labels[t] for t in ids] if label else None,
        name=name,
    )


def to_dataframe(data: TransactionData):
    """Long-format DataFrame (``tid``, ``item``) of the data."""
    import pandas as pd

    m = data.matrix
    rows = np.repeat(np.arange(data.n_records), np.diff(m.indptr))
    return pd.DataFrame(
        {
            "tid": [data.record_ids[r] for r in rows],
            "item": [data.items[j] for j in m.indices],
        }
    )


def read_any(path: str | os.PathLike, fmt: str | None = None, **kwargs) -> TransactionData:
    """Read a data file in a named format (``fimi``, ``csv``, ``basket``) or by extension.

    Without ``fmt``: ``.dat`` -> FIMI, ``.csv`` -> long CSV, anything else ->
    basket text (``.gz`` suffixes are looked through).
    """
    if fmt is None:
        suffixes = [s for s in Path(path).suffixes if s != ".gz"]
        ext = suffixes[-1] if suffixes else ""
        fmt = {".dat": "fimi", ".csv": "csv"}.get(ext, "basket")
    if fmt == "fimi":
        return read_fimi(path, **kwargs)
    if fmt == "csv":
        return read_long_csv(path, **kwargs)
    if fmt == "basket":
        return read_basket(path, **kwargs)
    raise ParameterError(f"unknown data format {fmt!r}; use fimi, csv or basket")
