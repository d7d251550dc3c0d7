"""Vertical bitmaps: per-item record bitmaps packed in 64-bit words, and supports counted on them.

Split from :mod:`graphanon.counting.support` (issue 12: modules under ~500 lines);
the names stay importable from there.

* :class:`VerticalBitmaps` - ``bits[j]``: which records hold item ``j``;
* :func:`bitmap_supports` - supports of arbitrary itemsets by AND + popcount;
* :func:`sparse_bitmaps` - the same bitmaps packed straight from the nonzeros.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import bool_csr
from graphanon.utils.memory import check_memory

__all__ = ["VerticalBitmaps", "bitmap_supports", "sparse_bitmaps"]


class VerticalBitmaps:
    """Packed per-item record bitmaps.

    ``bits[j]`` is a row of ``ceil(n / 64)`` ``uint64`` words whose bit ``r``
    is set when record ``r`` holds item ``j``.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Boolean incidence matrix.

    Notes
    -----
    Complexity: building is O(n_items * n / 8) bytes of work and memory (dense packing
    in item chunks); a support query of an s-itemset costs O(s * n / 64).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [1, 0, 1], [1, 1, 1]], dtype=bool)
    >>> vb = VerticalBitmaps(X)
    >>> vb.support([0, 1]), vb.support([1, 2])
    (2, 1)
    """

    def __init__(self, X) -> None:
        csc = sp.csc_array(bool_csr(X, copy=False))
        n, m = csc.shape
        self.n_records = n
        self.n_items = m
        n_words = max(1, (n + 63) // 64)
        check_memory(
            8.0 * m * n_words,
            what=f"vertical bitmaps of {m} items x {n} records",
            advice="run on fewer records (a sample) or fewer items (a coarser taxonomy cut)",
        )
        bits = np.zeros((m, n_words), dtype=np.uint64)
        as_bytes = bits.view(np.uint8).reshape(m, n_words * 8)
        chunk = max(1, (64 << 20) // max(n, 1))  # ~64 MB of dense bools per chunk
        for start in range(0, m, chunk):
            stop = min(m, start + chunk)
            dense = csc[:, start:stop].toarray().T  # (items, records) bool
            packed = np.packbits(dense, axis=1, bitorder="little")
            as_bytes[start:stop, : packed.shape[1]] = packed
        self.bits = bits

    def bitmap(self, itemset: Iterable[int]) -> np.ndarray:
        """AND of the rows of ``itemset`` (all ones for the empty itemset)."""
        items = np.asarray(list(itemset), dtype=np.int64)
        if items.size == 0:
            out = np.full(self.bits.shape[1], np.uint64(0xFFFFFFFFFFFFFFFF))
            tail = self.n_records % 64
            if tail:
                out[-1] = np.uint64((1 << tail) - 1)
            if self.n_records == 0:
                out[:] = 0
            return out
        return np.bitwise_and.reduce(self.bits[items], axis=0)

    def support(self, itemset: Iterable[int]) -> int:
        """Number of records containing every item of ``itemset``."""
        return int(np.bitwise_count(self.bitmap(itemset)).sum())

    def supports(self, itemsets: Sequence[Iterable[int]]) -> np.ndarray:
        """Supports of many itemsets; equal-size batches are vectorized (:func:`bitmap_supports`)."""
        return bitmap_supports(self.bits, itemsets, self.n_records)

    def records_of(self, itemset: Iterable[int]) -> np.ndarray:
        """Indices of the records containing ``itemset``."""
        bm = self.bitmap(itemset)
        bits = np.unpackbits(bm.view(np.uint8), bitorder="little")[: self.n_records]
        return np.flatnonzero(bits)


def bitmap_supports(bits: np.ndarray, itemsets: Sequence[Iterable[int]], n_records: int, *, block: int = 4096) -> np.ndarray:
    """Supports of many itemsets over vertical bitmaps: the one batched support loop.

    Parameters
    ----------
    bits : ndarray of uint64, shape (n_columns, n_words)
        Row ``j`` is the packed set of records holding column ``j`` (an item,
        or a published item of a recoding).
    itemsets : sequence of iterables of column indices
    n_records : int
        Support of the empty itemset (every record contains it).
    block : int
        Itemsets ANDed at once per size (bounds the temporary memory).

    Returns
    -------
    ndarray of int64
        ``out[i]`` = number of records holding every column of ``itemsets[i]``;
        ``n_records`` for an empty itemset.

    Notes
    -----
    Complexity: O(sum of itemset sizes * n_words) word operations, grouped by size so
    each group is one vectorized AND per position.

    Examples
    --------
    >>> vb = VerticalBitmaps(np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1]]))
    >>> bitmap_supports(vb.bits, [[0], [0, 1], [1, 2], []], 3).tolist()
    [3, 2, 1, 3]
    """
    sets = [np.asarray(list(t), dtype=np.int64) for t in itemsets]
    out = np.empty(len(sets), dtype=np.int64)
    by_size: dict[int, list[int]] = {}
    for i, t in enumerate(sets):
        by_size.setdefault(len(t), []).append(i)
    for size, idx in by_size.items():
        if size == 0:
            out[idx] = n_records
            continue
        arr = np.stack([sets[i] for i in idx])
        pos = np.asarray(idx)
        for start in range(0, len(idx), block):
            part = arr[start : start + block]
            acc = bits[part[:, 0]].copy()
            for c in range(1, size):
                acc &= bits[part[:, c]]
            out[pos[start : start + block]] = np.bitwise_count(acc).sum(axis=1)
    return out


def sparse_bitmaps(X) -> VerticalBitmaps:
    """A :class:`VerticalBitmaps` packed straight from the nonzeros of ``X``.

    Same ``bits`` as ``VerticalBitmaps(X)``, without its dense column blocks
    (about 64 MB of booleans per block): each nonzero sets one bit, the bits
    of a word are OR-reduced in one pass over the column-sorted nonzeros.

    Notes
    -----
    Complexity: O(nnz) time and temporary memory, plus the bitmaps (items x n / 8 bytes).

    Examples
    --------
    >>> X = sp.csr_array([[1, 1, 0], [1, 0, 1], [1, 1, 1]], dtype=bool)
    >>> bool((sparse_bitmaps(X).bits == VerticalBitmaps(X).bits).all())
    True
    """
    csc = sp.csc_array(bool_csr(X, copy=False))
    csc.sort_indices()
    n, m = csc.shape
    n_words = max(1, (n + 63) // 64)
    check_memory(
        8.0 * m * n_words,
        what=f"vertical bitmaps of {m} items x {n} records",
        advice="run on fewer records (a sample) or fewer items (a coarser taxonomy cut)",
    )
    vb = VerticalBitmaps.__new__(VerticalBitmaps)
    vb.n_records, vb.n_items = n, m
    bits = np.zeros(m * n_words, dtype=np.uint64)
    rows = csc.indices.astype(np.int64)
    cols = np.repeat(np.arange(m, dtype=np.int64), np.diff(csc.indptr))
    word = cols * n_words + (rows >> 6)
    if len(word):
        vals = np.left_shift(np.uint64(1), (rows & 63).astype(np.uint64))
        starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
        bits[word[starts]] = np.bitwise_or.reduceat(vals, starts)
    vb.bits = bits.reshape(m, n_words)
    return vb
