"""Transaction data: an immutable item vocabulary plus a boolean incidence matrix.

A *transaction* (record) is a set of items. :class:`TransactionData` holds a
collection of records as a ``records x items`` boolean CSR matrix
(:class:`scipy.sparse.csr_array`), an item vocabulary (label <-> integer id),
record ids and optional per-record sensitive labels.

Item labels are text, always (:mod:`graphanon.utils.labels`): the constructor
turns every label into ``str`` in one place, so a FIMI item ``7`` and a CSV
item ``"7"`` are the same label, ``"001"`` stays ``"001"``, and a Python
integer given to :func:`from_iterable` becomes its decimal text. Integer ids
are positions in the vocabulary, nothing else.

Files are read and written by :mod:`graphanon.readwrite.formats` (FIMI, long CSV,
basket), pandas DataFrames are converted by :mod:`graphanon.readwrite.dataframe`;
both are also importable from here. Python iterables are converted here.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataFormatError

# The file readers and writers live in graphanon.readwrite.formats, the DataFrame converters in
# graphanon.readwrite.dataframe (which import this module only inside their functions); they are
# importable from here too.
from graphanon.readwrite.dataframe import from_dataframe, to_dataframe
from graphanon.readwrite.formats import (
    parse_fimi,
    read_any,
    read_basket,
    read_fimi,
    read_long_csv,
    write_basket,
    write_fimi,
    write_long_csv,
)
from graphanon.utils.labels import as_label, as_labels, lookup_key, sorted_labels

__all__ = [
    "TransactionData",
    "from_dataframe",
    "from_iterable",
    "parse_fimi",
    "read_any",
    "read_basket",
    "read_fimi",
    "read_long_csv",
    "to_dataframe",
    "write_basket",
    "write_fimi",
    "write_long_csv",
]

_SUPPORT_CHUNK = 1 << 22  # occurrences counted at a time by TransactionData.supports

class TransactionData:
    """An immutable collection of transactions (sets of items).

    Parameters
    ----------
    matrix : sparse matrix or array, shape (n_records, n_items)
        Incidence matrix; any non-zero entry means "record contains item".
    items : sequence of str (or int)
        Item labels; ``items[j]`` is the label of column ``j``. Every label is
        turned into text here (:func:`graphanon.utils.labels.as_label`: an int
        becomes its decimal text), and the labels must then be distinct.
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
    >>> TransactionData([[1, 0], [1, 1]], items=[250, "001"]).items
    ('250', '001')
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
        if not all(a.flags.writeable for a in (m.data, m.indices, m.indptr)):
            m = m.copy()  # the frozen matrix of another TransactionData (with_labels): normalized in a copy
        m.sum_duplicates()
        m.eliminate_zeros()
        m = sp.csr_array(
            (np.ones(m.nnz, dtype=bool), m.indices.astype(np.int32), m.indptr.astype(np.int64)),
            shape=m.shape,
        )
        m.sort_indices()
        n, n_items = m.shape
        items = as_labels(items, "item")
        if len(items) != n_items:
            raise DataFormatError(
                f"the vocabulary has {len(items)} labels but the matrix has {n_items} item columns"
            )
        index: dict[Hashable, int] = {label: j for j, label in enumerate(items)}
        if len(index) != len(items):
            raise DataFormatError(f"item label {_first_repeated(items)!r} appears twice in the vocabulary")
        if record_ids is None:
            record_ids = tuple(range(n))
        else:
            record_ids = tuple(record_ids)
            if len(record_ids) != n:
                raise DataFormatError(f"{len(record_ids)} record ids given for {n} records")
            if len(set(record_ids)) != n:
                raise DataFormatError(f"record id {_first_repeated(record_ids)!r} appears twice")
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
        """The number of records (rows)."""
        return self._matrix.shape[0]

    @property
    def n_items(self) -> int:
        """The number of items (columns)."""
        return self._matrix.shape[1]

    def __len__(self) -> int:
        """The number of records."""
        return self.n_records

    def _find(self, label: Hashable) -> int | None:
        try:
            return self._index.get(lookup_key(label))
        except TypeError:  # unhashable
            return None

    def item_id(self, label: Hashable) -> int:
        """Integer id of an item label (an int stands for its decimal text).

        A clear error for unknown labels.
        """
        j = self._find(label)
        if j is None:
            raise DataFormatError(f"item {label!r} is not in the data's vocabulary of {self.n_items} items")
        return j

    def item_ids(self, labels: Iterable[Hashable]) -> np.ndarray:
        """Integer ids of several item labels (see :meth:`item_id`)."""
        return np.array([self.item_id(x) for x in labels], dtype=np.int64)

    def has_item(self, label: Hashable) -> bool:
        """Whether ``label`` (text, or an int standing for its text) is in the vocabulary."""
        return self._find(label) is not None

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
        """Support (number of records containing it) of every item.

        Counted ``_SUPPORT_CHUNK`` (2^22) occurrences at a time: ``np.bincount`` casts int32
        indices to a full int64 copy (800 MB at 10^8 occurrences).
        """
        ind, step = self._matrix.indices, _SUPPORT_CHUNK
        out = np.zeros(self.n_items, dtype=np.int64)
        for a in range(0, len(ind), step):
            out += np.bincount(ind[a : a + step], minlength=self.n_items)
        return out

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
        """Equal data: the same items, record ids, labels and records."""
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
        """A short summary: name, records, items, labels."""
        name = f" {self.name!r}" if self.name else ""
        lab = ", labelled" if self._labels is not None else ""
        return (
            f"<TransactionData{name}: {self.n_records} records, {self.n_items} items, "
            f"{self._matrix.nnz} occurrences{lab}>"
        )


# ---------------------------------------------------------------------- constructors
def from_id_lists(
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
        Each record is a collection of item labels: ``str``, or integers,
        which stand for their decimal text (``7`` is the label ``"7"``; see
        :mod:`graphanon.utils.labels`). Repeated labels inside a record count once.
        A string is rejected as a record (it would silently become a set of
        characters).
    record_ids, labels : sequence, optional
        Record ids and sensitive labels, one per record.
    items : sequence, optional
        The vocabulary (may include items that occur in no record). By default
        the distinct labels in natural order (:func:`graphanon.utils.labels.natural_key`:
        whole numbers by value, then the rest as text).
    name : str, optional
        Display name.

    Returns
    -------
    TransactionData
        Whose item labels are all ``str``.

    Raises
    ------
    DataFormatError
        Naming the record: a string given as a record, a label that is neither
        text nor an integer, an item outside the given vocabulary.

    Notes
    -----
    Complexity: O(total items) Python steps.

    Examples
    --------
    >>> data = from_iterable([{1, 2}, {2, 10}], labels=["x", "y"])
    >>> data.items
    ('1', '2', '10')
    >>> data.has_item(10), data.has_item("10")
    (True, True)
    >>> from_iterable([["001", "-1"], ["010"]]).items
    ('-1', '001', '010')
    """
    recs = []
    for r, rec in enumerate(records):
        if isinstance(rec, (str, bytes)):
            raise DataFormatError(
                f"record {r} is the string {rec!r}; give each record as a collection of items, "
                f"e.g. [{rec!r}] for a one-item record"
            )
        try:
            recs.append(list(dict.fromkeys(as_label(x) for x in rec)))
        except TypeError as exc:
            raise DataFormatError(f"record {r} is not a collection of items: {exc}") from None
        except DataFormatError as exc:
            raise DataFormatError(f"record {r}: {exc}") from None
    items = sorted_labels(x for rec in recs for x in rec) if items is None else as_labels(items)
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
    return from_id_lists(lengths, np.asarray(flat, dtype=np.int64), items, record_ids, labels, name)


def _first_repeated(values: Sequence[Hashable]) -> Hashable:
    """The first value of ``values`` seen a second time (``values`` must hold a repeat)."""
    seen: set[Hashable] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    raise ValueError("no value is repeated")
