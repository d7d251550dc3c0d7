"""Fast support counting: vertical bitmaps, sparse products, level-wise search.

The support of an itemset is the number of records that contain all of its
items. Three engines cover the needs of the package:

* :class:`VerticalBitmaps` - one packed ``uint64`` row per item; the support
  of an itemset is ``popcount(AND of its rows)`` (``np.bitwise_count``).
  Best for many queries of arbitrary itemsets on dense-ish data.
* :func:`pair_supports` - all pair supports at once as ``X.T @ X``.
* :func:`minimal_infrequent_itemsets` - the level-wise (Apriori) search for
  the *minimal* itemsets of size <= m whose support is in ``(0, k)``: the
  violations of k^m-anonymity. Each level is counted with one sparse product
  ``P.T @ X`` where ``P`` marks, per record, the frequent (l-1)-itemsets it
  contains - the projected-database count, done in scipy's C loops.

All functions take a boolean ``records x items`` sparse matrix (a
:class:`~graphanon.data.TransactionData` ``.matrix`` or a published matrix).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.counting.bitmaps import VerticalBitmaps, bitmap_supports, sparse_bitmaps
from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError
from graphanon.utils.memory import check_memory, cost_blocks
from graphanon.utils.progress import ProgressCallback

__all__ = [
    "ItemsetLevel",
    "VerticalBitmaps",
    "bitmap_supports",
    "generalize_matrix",
    "itemset_supports",
    "minimal_infrequent_itemsets",
    "pair_supports",
    "sparse_bitmaps",
]



def item_supports(X) -> np.ndarray:
    """Support of every item (column sums)."""
    X = bool_csr(X, copy=False)
    return np.bincount(X.indices, minlength=X.shape[1]).astype(np.int64)


_DENSE_PAIRS = 4096  # up to this many items the pair supports are a dense array
_PAIR_BLOCK = 1 << 23  # pair codes counted per bincount (64 MB of int64)


def select_columns(X, cols: np.ndarray, *, renumber: bool = True) -> sp.csr_array:
    """Columns ``cols`` (sorted, distinct) of ``X`` as a canonical boolean CSR array.

    With ``renumber`` the result has ``len(cols)`` columns (``cols[i]``
    becomes ``i``); otherwise the shape is kept and the other columns are
    emptied.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> select_columns(X, np.array([1, 2])).toarray().astype(int).tolist()
    [[1, 0], [1, 1]]
    >>> select_columns(X, np.array([0]), renumber=False).toarray().astype(int).tolist()
    [[1, 0, 0], [0, 0, 0]]
    """
    X = bool_csr(X, copy=False)
    if renumber:  # scipy's column gather keeps the sorted order of the (sorted) columns
        return bool_csr(X[:, np.asarray(cols, dtype=np.int64)], copy=False)
    pos = np.full(X.shape[1], -1, dtype=np.int32 if X.shape[1] < 2**31 else np.int64)
    pos[cols] = cols
    new = pos[X.indices]
    kept = np.flatnonzero(new >= 0)
    return sp.csr_array((np.ones(len(kept), dtype=bool), new[kept], np.searchsorted(kept, X.indptr)), shape=X.shape)


def _pair_counts_dense(X: sp.csr_array) -> np.ndarray:
    """``(n_items, n_items)`` int64 pair supports of a canonical CSR ``X`` by counting pair codes.

    Records are grouped by length ``l``: the items of ``c`` records of one
    length form a dense ``c x l`` array ``A``, and every pair of positions
    ``i < j`` gives the code ``A[:, i] * n_items + A[:, j]`` (``a < b``: the
    indices are sorted), counted by ``np.bincount``. Blocks hold about
    ``2^23`` codes, so the work is a few passes over the ``sum l(l-1)/2``
    pairs and memory is one block plus the result.
    """
    n_items = X.shape[1]
    indptr = X.indptr.astype(np.int64)
    lengths = np.diff(indptr)
    acc = np.zeros(n_items * n_items, dtype=np.int64)
    if len(lengths) and lengths.max() >= 2:
        key = lengths.astype(np.uint16) if lengths.max() < 1 << 16 else lengths
        order = np.argsort(key, kind="stable")  # radix sort for 16-bit keys
        sorted_len = lengths[order]
        edges = np.flatnonzero(np.diff(sorted_len)) + 1
        idx = X.indices.astype(np.int32 if n_items * n_items < 2**31 else np.int64)
        for a, b in zip(np.r_[0, edges], np.r_[edges, len(order)], strict=True):
            length = int(sorted_len[a])
            if length < 2:
                continue
            first, second = np.triu_indices(length, 1)
            chunk = max(1, _PAIR_BLOCK // len(first))
            for c in range(a, b, chunk):
                A = idx[indptr[order[c : min(b, c + chunk)], None] + np.arange(length)]
                codes = (A * idx.dtype.type(n_items))[:, first]
                codes += A[:, second]
                acc += np.bincount(codes.ravel(), minlength=n_items * n_items)
    counts = acc.reshape(n_items, n_items)
    counts += counts.T
    counts[np.diag_indices(n_items)] = np.bincount(X.indices, minlength=n_items)
    return counts


def pair_supports(X, *, dense: bool | None = None):
    """All pair supports: ``S[a, b]`` = records holding both ``a`` and ``b``.

    Returns ``X.T @ X`` over int32 counts: the diagonal holds item supports.
    Dense (``numpy``) when the item count is at most 4096 or ``dense=True``,
    otherwise a ``scipy.sparse`` CSR array.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Boolean incidence matrix.
    dense : bool, optional
        Force the dense (True) or sparse (False) result.

    Returns
    -------
    ndarray or csr_array of int32, shape (n_items, n_items)
        (int64 from 2^31 records on.)

    Notes
    -----
    Complexity: O(sum over records of len(record)^2). Up to 4096 items the pairs of each
    record are encoded ``a * n_items + b`` and counted with ``np.bincount``
    (records grouped by length, blocks of 2^23 codes): memory
    ``8 * n_items^2`` bytes plus one block. Beyond, scipy's sparse product.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    >>> pair_supports(X).tolist()
    [[2, 2, 1], [2, 3, 2], [1, 2, 2]]
    """
    X = bool_csr(X, copy=False)
    n, n_items = X.shape
    dtype = np.int32 if n < 2**31 else np.int64
    if dense is None:
        dense = n_items <= _DENSE_PAIRS
    if n_items <= _DENSE_PAIRS:
        S = _pair_counts_dense(X).astype(dtype)
        return S if dense else sp.csr_array(S)
    Xi = sp.csr_array((np.ones(X.nnz, dtype=dtype), X.indices, X.indptr), shape=X.shape)
    S = (Xi.T @ Xi).tocsr()
    return S.toarray() if dense else S


def itemset_supports(X, itemsets: Sequence[Iterable[int]]) -> np.ndarray:
    """Supports of arbitrary itemsets (bitmaps; builds a :class:`VerticalBitmaps`)."""
    return VerticalBitmaps(X).supports(itemsets)


@dataclass(frozen=True)
class ItemsetLevel:
    """Itemsets of one size found by the level-wise search.

    Attributes
    ----------
    size : int
        Number of items per itemset.
    itemsets : ndarray, shape (count, size)
        Sorted item ids, one itemset per row (rows sorted lexicographically).
    supports : ndarray, shape (count,)
        Their supports.
    """

    size: int
    itemsets: np.ndarray
    supports: np.ndarray

    def __len__(self) -> int:
        """The number of itemsets at this level."""
        return len(self.supports)


def _encode_rows(rows: np.ndarray, base: int) -> np.ndarray | None:
    """Encode int rows as single int64 keys (None when they would overflow)."""
    width = rows.shape[1]
    if width == 0 or base**width >= 2**62:
        return None
    key = np.zeros(len(rows), dtype=np.int64)
    for c in range(width):
        key = key * base + rows[:, c]
    return key


def rows_in(rows: np.ndarray, table: np.ndarray, base: int) -> np.ndarray:
    """Boolean mask: which ``rows`` appear among the rows of ``table``."""
    if len(rows) == 0:
        return np.zeros(0, dtype=bool)
    if len(table) == 0:
        return np.zeros(len(rows), dtype=bool)
    a, b = _encode_rows(rows, base), _encode_rows(table, base)
    if a is None or b is None:  # keys would overflow (both or neither: same width and base)
        dt = np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))
        a = np.ascontiguousarray(rows).view(dt).ravel()
        b = np.ascontiguousarray(table.astype(rows.dtype)).view(dt).ravel()
    return np.isin(a, b)


def _pair_level(X: sp.csr_array, freq1: np.ndarray):
    """Supports of all pairs of frequent items, as (prefix index, item, support) triples.

    The triples come sorted by (prefix, item) and hold only positive supports.
    """
    S = pair_supports(select_columns(X, freq1), dense=len(freq1) <= _DENSE_PAIRS)
    if isinstance(S, np.ndarray):
        upper = np.triu(S, 1)
        rows, cols = np.nonzero(upper)
        sup = upper[rows, cols]
    else:
        S = sp.triu(S, k=1).tocsr()
        S.sort_indices()
        S = S.tocoo()
        rows, cols, sup = S.row, S.col, S.data
    # Prefix index = position of the first item in freq1 (the level-1 frontier).
    return rows.astype(np.int64), freq1[cols].astype(np.int64), sup.astype(np.int64)


_CANDIDATE_BYTES = 64  # per candidate count: CSR product, COO copies, int64 triples, filters
_INCIDENCE_BYTES = 24  # per entry of the projection P (int32 data + index), built in blocks then stacked


def _advice(size: int, advice: str | None) -> str:
    done = size - 1
    return (advice or "bound the attacker knowledge, e.g. m={m} (CLI: -m {m})").replace("{m}", str(done))


def _check_level(n_cand: float, size: int, n_prev: int, what: str, advice: str | None) -> None:
    check_memory(
        n_cand * _CANDIDATE_BYTES + n_prev * size * 8,
        what=f"{what} at level {size} ({n_prev} frequent {size - 1}-itemsets to extend)",
        advice=_advice(size, advice),
    )


def _check_projection(incidences: float, size: int, n_freq: int, what: str, advice: str | None) -> None:
    check_memory(
        incidences * _INCIDENCE_BYTES,
        what=f"{what} after level {size} ({n_freq} frequent {size}-itemsets)",
        advice=_advice(size + 1, advice),
    )


def _project(base, Xc, prefix: np.ndarray, last: np.ndarray, slice_entries: np.ndarray) -> sp.csc_array:
    """``P[:, c] = base[:, prefix[c]] AND Xc[:, last[c]]``, built in column blocks.

    The column slices cost ``slice_entries[c]`` entries each (the prefix's and
    the item's supports), far more than the result for popular items, so they
    are made one block at a time (blocks of about ``2^23`` entries): memory
    is the result plus one block.
    """
    parts = []
    for a, b in cost_blocks(slice_entries, 1 << 23):
        part = base[:, prefix[a:b]].multiply(Xc[:, last[a:b]]).tocsc()
        part.eliminate_zeros()
        parts.append(part)
    if len(parts) == 1:
        return parts[0]
    return sp.csc_array(sp.hstack(parts, format="csc"))


def check_search(k: int, m: int | None) -> None:
    """The k and m of a level-wise search (shared with :mod:`graphanon.distributed`)."""
    if k < 1:
        raise ParameterError(f"k must be at least 1, got {k}")
    if m is not None and m < 1:
        raise ParameterError(f"m must be at least 1, got {m}")


def _report(progress, size: int, m_eff: int, is_viol: np.ndarray, fr: np.ndarray) -> None:
    if progress:
        progress(size, m_eff, f"level {size}: {int(is_viol.sum())} violations, {len(fr)} frequent")


def minimal_infrequent_itemsets(
    X,
    k: int,
    m: int | None,
    *,
    items: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
    max_violations: int | None = None,
    what: str | None = None,
    advice: str | None = None,
    prune: Callable[[np.ndarray, np.ndarray, sp.csc_array], np.ndarray] | None = None,
) -> tuple[list[ItemsetLevel], list[ItemsetLevel]]:
    """Level-wise search for the minimal itemsets of size <= m with support in (0, k).

    An itemset is a *minimal violation* when its support is positive and
    below ``k`` while each of its proper subsets has support >= ``k``. Every
    itemset with support in ``(0, k)`` contains a minimal violation, so data
    is k^m-anonymous exactly when none exists.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Boolean incidence matrix (original or published items).
    k : int
        Support threshold (>= 1).
    m : int or None
        Largest itemset size considered; None means no bound (k^infinity:
        the search runs until no frequent itemset extends).
    items : array of int, optional
        Restrict the search to these columns.
    progress : callable(done, total, message), optional
        Called once per level.
    max_violations : int, optional
        Stop after the level on which this many violations have been found.
    what, advice : str, optional
        How a :class:`~graphanon.errors.MemoryBudgetError` names the search
        and what to change (defaults: "the itemset search (k=.., m=..)" and
        "bound the attacker knowledge, e.g. m={m}"); ``{m}`` in ``advice``
        becomes the last level that fits.
    prune : callable(itemsets, supports, P) -> bool array, optional
        Called once per level with the itemsets of support >= ``k`` (rows of
        sorted column ids), their supports and their record incidence ``P``
        (records x itemsets, CSC). Itemsets it flags are dropped: they are
        not extended and not returned as frequent, and no itemset containing
        one is returned at all (the minimal-violation search becomes the
        search for minimal itemsets that are infrequent *or* flagged; the
        caller records the flagged ones, e.g. MM's confidence moles).

    Returns
    -------
    violations : list of ItemsetLevel
        Minimal violations, one entry per size 1..(last level searched).
    frequent : list of ItemsetLevel
        Itemsets with support >= k per size (the Apriori frontier; with
        ``prune``, only those with no flagged subset).

    Notes
    -----
    Complexity: level ``l`` costs one sparse product whose work is the sum over records
    of (frequent (l-1)-itemsets in the record) x (record length), plus
    sorting the candidate supports: the projected-database cost of Apriori,
    without Python loops over records.

    Memory: level ``l`` holds the frequent (l-1)-itemsets, their record
    lists ``P`` (one entry per (record, frequent itemset) incidence) and the
    candidate counts ``C`` (at most frequent (l-1)-itemsets x items). With
    unbounded ``m`` and small ``k`` the frequent itemsets, hence ``P`` and
    ``C``, can grow exponentially with the record length. Before each
    product the search estimates these arrays and raises
    :class:`~graphanon.errors.MemoryBudgetError` when they would exceed the
    memory budget (:func:`graphanon.utils.memory.check_memory`); the message
    names ``m`` (the levels finished so far always fit).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [1, 1, 0], [1, 0, 1]], dtype=bool)
    >>> viol, freq = minimal_infrequent_itemsets(X, k=2, m=2)
    >>> [v.itemsets.tolist() for v in viol]
    [[[2]], []]
    """
    check_search(k, m)
    X = bool_csr(X, copy=False)
    n, n_items = X.shape
    if items is not None:
        X = select_columns(X, np.unique(np.asarray(items, dtype=np.int64)), renumber=False)
    max_len = int(np.diff(X.indptr).max()) if n else 0
    m_eff = max_len if m is None else min(m, max_len)
    Xi = sp.csr_array((np.ones(X.nnz, dtype=np.int32), X.indices, X.indptr), shape=X.shape)
    # columns: only for projections (m > 2) and for prune
    Xc: sp.csc_array | None = Xi.tocsc() if prune is not None or m_eff > 2 else None

    sup1 = np.bincount(X.indices, minlength=n_items).astype(np.int64)
    present = np.flatnonzero(sup1 > 0)
    viol1 = present[sup1[present] < k]
    freq1 = present[sup1[present] >= k]
    if prune is not None and len(freq1):
        assert Xc is not None
        freq1 = freq1[~prune(freq1[:, None], sup1[freq1], Xc[:, freq1])]
    violations = [ItemsetLevel(1, viol1[:, None], sup1[viol1])]
    frequent = [ItemsetLevel(1, freq1[:, None], sup1[freq1])]
    total_viol = len(viol1)
    if progress:
        progress(1, m_eff, f"level 1: {len(viol1)} violations, {len(freq1)} frequent")

    prev = frequent[0].itemsets
    size = 1
    P: sp.csc_array | None = None  # records x frequent itemsets of the last level (from size 2 on)
    lengths = np.diff(X.indptr).astype(np.int64)
    what = what or f"the itemset search (k={k}, m={'inf' if m is None else m})"
    while size < m_eff and len(prev):
        if max_violations is not None and total_viol >= max_violations:
            break
        size += 1
        # Candidate counts of itemset c: at most min(items, total length of the records holding c).
        if size == 2:  # per item, the total length of the records holding it
            held = np.bincount(X.indices, weights=np.repeat(lengths, lengths), minlength=n_items)[prev[:, 0]]
        else:
            assert P is not None
            held = P.T @ lengths
        n_cand = float(np.minimum(held, n_items).sum())
        _check_level(n_cand, size, len(prev), what, advice)
        if size == 2:
            rows, cols, sup = _pair_level(X, prev[:, 0])
        else:
            # P: records x frequent (size-1)-itemsets, P[r, c] = 1 when record r holds itemset c.
            # Supports of (itemset c) + (item j) for all j: one sparse product.
            assert P is not None
            C = (P.T @ Xi).tocsr()
            C.sort_indices()
            C = C.tocoo()
            rows, cols, sup = C.row.astype(np.int64), C.col.astype(np.int64), C.data.astype(np.int64)
            ok = cols > prev[rows, -1]  # extend in increasing item order only (each itemset once)
            rows, cols, sup = rows[ok], cols[ok], sup[ok]
        # Rows come out sorted by (prefix, new item): lexicographic order of the candidates.
        is_viol = sup < k
        if size > 2 and (is_viol.any() or prune is not None):
            # Minimality: every (size-1)-subset must be frequent. The subset without the
            # new item is the prefix itself; frequent candidates pass by anti-monotonicity
            # (unless prune dropped some frequent itemsets: then every candidate is checked).
            vi = np.flatnonzero(is_viol) if prune is None else np.arange(len(rows))
            cand = np.concatenate([prev[rows[vi]], cols[vi, None]], axis=1)
            alive = np.ones(len(vi), dtype=bool)
            for drop in range(size - 1):
                alive &= rows_in(np.delete(cand, drop, axis=1), prev, n_items + 1)
            keep = np.ones(len(rows), dtype=bool)
            keep[vi[~alive]] = False
            rows, cols, sup, is_viol = rows[keep], cols[keep], sup[keep], is_viol[keep]
        cand = np.concatenate([prev[rows], cols[:, None]], axis=1)
        violations.append(ItemsetLevel(size, cand[is_viol], sup[is_viol]))
        total_viol += int(is_viol.sum())
        fr = np.flatnonzero(~is_viol)
        if not len(fr) or (prune is None and size >= m_eff):
            frequent.append(ItemsetLevel(size, cand[fr], sup[fr]))
            _report(progress, size, m_eff, is_viol, fr)
            break
        # Next projection: column c of the new P is P[:, prefix(c)] AND X[:, last item(c)].
        _check_projection(float(sup[fr].sum()), size, len(fr), what, advice)
        prefix_sup = sup1[prev[:, 0]] if size == 2 else frequent[-1].supports
        assert Xc is not None
        base = Xc[:, prev[:, 0]] if size == 2 else P
        P = _project(base, Xc, rows[fr], cols[fr], prefix_sup[rows[fr]] + sup1[cols[fr]])
        if prune is not None and len(fr):
            keep = ~prune(cand[fr], sup[fr], P)
            fr, P = fr[keep], P[:, np.flatnonzero(keep)]
        frequent.append(ItemsetLevel(size, cand[fr], sup[fr]))
        _report(progress, size, m_eff, is_viol, fr)
        if size >= m_eff or not len(fr):
            break
        prev = cand[fr]
    return violations, frequent


def generalize_matrix(X, mapping: np.ndarray, n_published: int, chunk_rows: int = 1 << 18) -> sp.csr_array:
    """Published incidence matrix of a global recoding.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Original incidence matrix.
    mapping : int array, shape (n_items,)
        Published item id of each original item, or -1 when suppressed.
    n_published : int
        Number of published items.
    chunk_rows : int
        Records recoded at a time (the result does not depend on it): the
        sparse product's temporaries are those of one run of records, not
        of all (at 10^7 Quest records they were several times the result).

    Returns
    -------
    csr_array, shape (n_records, n_published), boolean
        Record r holds published item g when it holds any original item mapped to g.
    """
    X = bool_csr(X, copy=False)
    mapping = np.asarray(mapping, dtype=np.int64)
    keep = mapping >= 0
    R = sp.csr_array(
        (np.ones(int(keep.sum()), dtype=np.int32), (np.flatnonzero(keep), mapping[keep])),
        shape=(X.shape[1], n_published),
    )
    n = X.shape[0]
    # int32 indices and index pointer when they fit (the published matrix has at most X.nnz entries;
    # scipy keeps one index dtype for both)
    dtype = np.int32 if max(X.nnz, n_published) < 2**31 else np.int64
    indices, lengths = [], []
    for a in range(0, n, chunk_rows):  # the product's temporaries (about 12 bytes per occurrence) for one run of rows
        b = min(n, a + chunk_rows)
        lo, hi = int(X.indptr[a]), int(X.indptr[b])
        Xi = sp.csr_array((np.ones(hi - lo, dtype=np.int32), X.indices[lo:hi], X.indptr[a : b + 1] - lo), shape=(b - a, X.shape[1]))
        G = (Xi @ R).tocsr()
        G.sort_indices()
        indices.append(G.indices.astype(dtype, copy=False))
        lengths.append(np.diff(G.indptr))
        del Xi, G
    cols = np.concatenate(indices) if indices else np.zeros(0, dtype=dtype)
    del indices
    indptr = np.zeros(n + 1, dtype=dtype)
    if n:
        np.cumsum(np.concatenate(lengths), out=indptr[1:])
    return sp.csr_array((np.ones(len(cols), dtype=bool), cols, indptr), shape=(n, n_published))
