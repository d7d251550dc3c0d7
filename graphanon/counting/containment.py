"""Containment counting: k^infinity-anonymity without enumerating itemsets.

The support of an itemset ``I`` in a multiset of records ``D`` is
``supp(I) = |{t in D : I <= t}|``. k^infinity-anonymity asks that every
non-empty itemset have support 0 or at least ``k``, whatever its size. The
level-wise search for minimal violations can need exponentially many
itemsets; this module decides the question from the records alone.

**Criterion.** ``D`` is k^infinity-anonymous if and only if every non-empty
record ``t`` of ``D`` has ``supp(t) >= k`` (the number of records that
contain all of ``t``, itself included).

*Proof.* (only if) a record ``t`` contains itself, so ``supp(t) >= 1`` and
the model demands ``supp(t) >= k``. (if) let ``I`` be non-empty with
``supp(I) >= 1`` and pick a record ``t`` containing ``I``. Every record that
contains ``t`` contains ``I``, so ``supp(I) >= supp(t) >= k``. QED.

The same holds for k^m-anonymity whenever ``m`` is at least the length of
the longest record: an itemset longer than every record has support 0, so
the two models coincide. In the language of closed itemsets: the closure of
a record ``t`` (the intersection of the records containing it) has the
support of ``t``, and the smallest positive support of any itemset is
reached at a record.

**Violations and their witnesses.** A record with ``supp(t) < k`` is a
*violating record*: an adversary who knows all of it narrows its owner to
fewer than ``k`` rows. Every minimal violating itemset lies in a violating
record (the record used in the proof), and every violating record contains
one: :func:`shrink_to_minimal` drops items while the support stays below
``k``; when no single item can go, every proper subset has support ``>= k``
(support only grows when items are removed), so the result is minimal.

**Counting.** :func:`record_supports` works on the distinct records (with
their multiplicities). For each distinct record it takes the item with the
shortest posting list (the distinct records that hold it) as the *pivot*;
the candidates are those records, and each candidate is tested against the
record's other items, rarest first, by binary search in the sorted
(record, item) keys of the incidence matrix. A pair is dropped at its first
missing item.

Notes
-----
Complexity: ``T = sum over distinct records r of |posting(pivot(r))|`` candidate pairs,
each tested against at most ``|r| - 1`` items in ``O(log nnz)``. Memory is
``O(nnz)`` plus one block of candidate pairs, 24 bytes each; blocks are
sized to the memory budget (:mod:`graphanon.utils.memory`), so memory stays
bounded whatever ``k`` and the record lengths.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (k^m-anonymity; k^infinity when m is unbounded).
Pasquier, Bastide, Taouil, Lakhal. Discovering frequent closed itemsets for
association rules. ICDT 1999 (closures as intersections of records).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import VerticalBitmaps
from graphanon.utils.memory import available_memory, check_memory, cost_blocks

__all__ = ["contained_counts", "distinct_records", "itemset_rows", "record_supports", "shrink_to_minimal"]

_PAIR_BYTES = 48  # pair arrays (row, candidate, key) plus the search's temporaries, per pair
_MIN_BLOCK_PAIRS = 1 << 16
_MAX_BLOCK_PAIRS = 1 << 22  # about 200 MB of pair arrays per block
_MAX_BITMAP_BYTES = 1 << 28  # the bitmap method only when its bitmaps take at most 256 MB


def _csr_bool(X) -> sp.csr_array:
    X = sp.csr_array(X)
    X = sp.csr_array((np.ones(X.nnz, dtype=bool), X.indices, X.indptr), shape=X.shape)
    X.sum_duplicates()
    X.sort_indices()
    return X


def distinct_records(X) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
    """Distinct rows of a boolean incidence matrix.

    Returns
    -------
    U : csr_array, shape (u, n_items)
        The distinct records (sorted indices; in no particular order).
    inverse : ndarray, shape (n_records,)
        ``U[inverse[i]]`` is record ``i``.
    counts : ndarray, shape (u,)
        Multiplicity of each distinct record.

    Complexity: O(nnz log n) (one sort of the rows by hashed content).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 0], [1, 0], [0, 1]], dtype=bool)
    >>> U, inv, cnt = distinct_records(X)
    >>> U.shape[0], sorted(cnt.tolist()), (U[inv] != X).nnz
    (2, [1, 2], 0)
    """
    X = _csr_bool(X)
    n = X.shape[0]
    lengths = np.diff(X.indptr)
    # Hash each row; rows with equal (length, hash) are then compared exactly.
    rng = np.random.default_rng(0x6A09E667)  # fixed: a hash, not a secret
    weights = rng.integers(1, 2**62, size=X.shape[1], dtype=np.int64)
    h = np.zeros(n, dtype=np.int64)
    if X.nnz:
        np.add.at(h, np.repeat(np.arange(n), lengths), weights[X.indices])  # wraps: fine for a hash
    order = np.lexsort((h, lengths))
    ls, hs = lengths[order], h[order]
    same = (ls[1:] == ls[:-1]) & (hs[1:] == hs[:-1])
    a, b = order[:-1][same], order[1:][same]
    seg = lengths[a]
    pair = np.repeat(np.arange(len(a)), seg)
    offset = np.arange(len(pair)) - np.repeat(np.cumsum(seg) - seg, seg)
    differ = X.indices[X.indptr[a][pair] + offset] != X.indices[X.indptr[b][pair] + offset]
    if differ.any():  # a hash collision (about 2^-60 per pair): exact grouping by content
        keys = [X.indices[X.indptr[r] : X.indptr[r + 1]].tobytes() for r in range(n)]
        first: dict[bytes, int] = {}
        inverse = np.array([first.setdefault(key, len(first)) for key in keys], dtype=np.int64)
        reps = np.unique(inverse, return_index=True)[1]
    else:
        new_group = np.concatenate([[True], ~same]) if n else np.zeros(0, dtype=bool)
        group_of_sorted = np.cumsum(new_group) - 1
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = group_of_sorted
        reps = order[new_group]
    counts = np.bincount(inverse, minlength=len(reps)).astype(np.int64)
    return _csr_bool(X[reps]), inverse, counts


def record_supports(X, *, method: str = "auto") -> np.ndarray:
    """For each record, the number of records that contain all of its items.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Boolean incidence matrix.
    method : {"auto", "pairs", "bitmaps"}
        ``"pairs"``: candidate pairs through the rarest item (module
        docstring). ``"bitmaps"``: AND of the items' record bitmaps
        (:class:`~graphanon.counting.support.VerticalBitmaps`, ``items x records / 8``
        bytes), for few items or popular ones. ``"auto"`` picks the one with
        less estimated work whose memory fits.

    Returns
    -------
    ndarray of int64, shape (n_records,)
        ``supp(record i)``; an empty record is contained in every record, so
        its value is ``n_records``.

    Notes
    -----
    Complexity: pairs: see the module docstring (blocks sized to the memory budget).
    Bitmaps: O(occurrences of the distinct records x n_records / 64) word
    operations, ``n_items x n_records / 8`` bytes.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [1, 1, 1], [1, 0, 0], [0, 0, 1]], dtype=bool)
    >>> record_supports(X).tolist()
    [2, 1, 3, 2]
    """
    U, inverse, counts = distinct_records(X)
    u, n_items = U.shape
    sup = np.zeros(u, dtype=np.int64)
    lengths = np.diff(U.indptr)
    sup[lengths == 0] = X.shape[0]
    if U.nnz == 0:
        return sup[inverse]
    Uc = U.tocsc()
    Uc.sort_indices()
    post_len = np.diff(Uc.indptr)
    # Items of each distinct record, rarest (shortest posting list) first.
    row_of = np.repeat(np.arange(u), lengths)
    order = np.lexsort((U.indices, post_len[U.indices], row_of))
    items = U.indices[order].astype(np.int64)
    keys = np.arange(u, dtype=np.int64).repeat(lengths) * n_items + U.indices  # sorted: CSR, sorted indices
    pivot_len = np.zeros(u, dtype=np.int64)
    nonempty = np.flatnonzero(lengths > 0)
    pivot_len[nonempty] = post_len[items[U.indptr[nonempty]]]
    if method not in ("auto", "pairs", "bitmaps"):
        raise ValueError(f"method must be 'auto', 'pairs' or 'bitmaps', got {method!r}")
    words = (X.shape[0] + 63) // 64
    bitmap_fits = 8 * n_items * words <= min(available_memory() // 4, _MAX_BITMAP_BYTES)
    if method == "bitmaps" or (
        method == "auto" and bitmap_fits and U.nnz * words < float((pivot_len * lengths).sum())
    ):
        row_items = np.split(U.indices, U.indptr[1:-1])
        sup[nonempty] = VerticalBitmaps(X).supports([row_items[i] for i in nonempty])
        return sup[inverse]
    budget_pairs = max(_MIN_BLOCK_PAIRS, min(_MAX_BLOCK_PAIRS, available_memory() // (2 * _PAIR_BYTES)))
    check_memory(
        min(int(pivot_len.max()), budget_pairs) * _PAIR_BYTES + 16 * U.nnz,
        what=f"containment counting over {u} distinct records",
        advice="audit a smaller sample of the records",
    )
    for a, b in cost_blocks(pivot_len[nonempty], budget_pairs):
        rows = nonempty[a:b]
        sup[rows] = _block_supports(rows, U.indptr, items, Uc, keys, counts, n_items)
    return sup[inverse]


def _block_supports(rows, indptr, items, Uc, keys, counts, n_items) -> np.ndarray:
    """Weighted count of the distinct records containing each of ``rows``."""
    first = indptr[rows]
    pivots = items[first]
    plen = Uc.indptr[pivots + 1] - Uc.indptr[pivots]
    pair_row = np.repeat(np.arange(len(rows)), plen)  # index into rows
    offsets = np.arange(len(pair_row)) - np.repeat(np.cumsum(plen) - plen, plen)
    cand = Uc.indices[np.repeat(Uc.indptr[pivots], plen) + offsets].astype(np.int64)
    length = indptr[rows + 1] - first
    t = 1
    while len(pair_row):
        live = length[pair_row] > t
        if not live.any():
            break
        item = items[first[pair_row[live]] + t]
        want = cand[live] * n_items + item
        pos = np.searchsorted(keys, want)
        pos[pos == len(keys)] = 0
        found = keys[pos] == want
        keep = np.ones(len(pair_row), dtype=bool)
        keep[np.flatnonzero(live)[~found]] = False
        pair_row, cand = pair_row[keep], cand[keep]
        t += 1
    return np.bincount(pair_row, weights=counts[cand], minlength=len(rows)).astype(np.int64)


def itemset_rows(Xc: sp.csc_array, itemset) -> np.ndarray:
    """Rows holding every item of ``itemset`` (``Xc``: CSC with sorted indices), by posting-list intersection."""
    cols = sorted((int(j) for j in itemset), key=lambda j: Xc.indptr[j + 1] - Xc.indptr[j])
    if not cols:
        return np.arange(Xc.shape[0])
    rows = Xc.indices[Xc.indptr[cols[0]] : Xc.indptr[cols[0] + 1]]
    for j in cols[1:]:
        rows = np.intersect1d(rows, Xc.indices[Xc.indptr[j] : Xc.indptr[j + 1]], assume_unique=True)
        if not len(rows):
            break
    return rows


def shrink_to_minimal(Xc: sp.csc_array, itemset, k: int) -> tuple[list[int], int]:
    """A minimal itemset with support in ``[1, k)`` inside ``itemset`` (whose support must be in ``[1, k)``).

    Drops the items of ``itemset`` one by one, most frequent first, whenever
    the rest still has support below ``k``. See the module docstring for why
    the result is minimal. ``Xc`` is the CSC incidence matrix (sorted
    indices). Returns the itemset (sorted) and its support. O(|itemset|)
    posting-list intersections.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> Xc = sp.csc_array([[1, 1, 1], [1, 1, 0], [1, 0, 0]], dtype=bool)
    >>> shrink_to_minimal(Xc, [0, 1, 2], k=2)
    ([2], 1)
    """
    post = np.diff(Xc.indptr)
    kept = sorted((int(j) for j in itemset), key=lambda j: (-post[j], j))
    support = len(itemset_rows(Xc, kept))
    if not 0 < support < k:
        raise ValueError(f"the itemset has support {support}, not in [1, {k})")
    for j in list(kept):
        rest = [x for x in kept if x != j]
        if not rest:
            break
        s = len(itemset_rows(Xc, rest))
        if s < k:
            kept, support = rest, s
    return sorted(kept), support


def contained_counts(Q, X) -> np.ndarray:
    """For each row of ``Q``, the number of rows of ``X`` that contain all of its items.

    The counter of :func:`record_supports` (pairs through the rarest item,
    here rarest *in X*) with the queries apart from the records:
    ``record_supports(X)`` equals ``contained_counts(X, X)``. Used by
    :mod:`graphanon.distributed.containment` to count one block's records
    inside another's.

    Parameters
    ----------
    Q, X : sparse matrices with the same columns
        Query rows and records (boolean incidence).

    Returns
    -------
    ndarray of int64, shape (Q.shape[0],)
        An empty query row is contained in every record: ``X.shape[0]``.

    Notes
    -----
    Complexity: ``sum over query rows q of |posting_X(pivot(q))|`` candidate pairs,
    each tested against at most ``|q| - 1`` items in ``O(log nnz)``; pair
    blocks sized to the memory budget.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [1, 1, 1], [0, 0, 1]], dtype=bool)
    >>> contained_counts(sp.csr_array([[1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool), X).tolist()
    [2, 2, 3]
    """
    Q = _csr_bool(Q)
    U, _, counts = distinct_records(X)
    n_items = U.shape[1]
    lengths = np.diff(Q.indptr)
    out = np.zeros(Q.shape[0], dtype=np.int64)
    out[lengths == 0] = X.shape[0]
    nonempty = np.flatnonzero(lengths > 0)
    if not len(nonempty) or U.nnz == 0:
        return out
    Uc = U.tocsc()
    Uc.sort_indices()
    post = np.diff(Uc.indptr)
    keys = np.arange(U.shape[0], dtype=np.int64).repeat(np.diff(U.indptr)) * n_items + U.indices
    row_of = np.repeat(np.arange(Q.shape[0]), lengths)
    items = Q.indices[np.lexsort((Q.indices, post[Q.indices], row_of))].astype(np.int64)  # rarest in X first
    pivot_len = post[items[Q.indptr[nonempty]]]
    budget_pairs = max(_MIN_BLOCK_PAIRS, min(_MAX_BLOCK_PAIRS, available_memory() // (2 * _PAIR_BYTES)))
    for a, b in cost_blocks(pivot_len, budget_pairs):
        rows = nonempty[a:b]
        out[rows] = _block_supports(rows, Q.indptr, items, Uc, keys, counts, n_items)
    return out
