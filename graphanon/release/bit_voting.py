"""Bit voting and possible worlds: the arithmetic of the nonreciprocal publication model.

A published record is the *bit vote* of its preimages (:func:`bit_vote`): a
base bitmap (the majority per position), a distance bitmap (the positions
where the preimages disagree) and a threshold (the largest Hamming distance
from the base to a preimage). Its *possible worlds* are the bitmaps equal to
the base outside the distance positions, within ``threshold`` flips on them;
:func:`possible_world_counts` counts them and :func:`match_possible_worlds`
finds the original records among them. :class:`~graphanon.release.nonreciprocal.NonreciprocalRelease`
is the release built on these functions.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (possible worlds) and Sec. 4 (bit
voting: "Fifth, for each anonymized record ...").
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.counting._bitset_kernels import popcount64, vote_words
from graphanon.counting.bitset import pack_words
from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError

__all__ = ["bit_vote", "log_cum_binom", "match_possible_worlds", "possible_world_counts"]


def bit_vote(X, members: sp.csr_array) -> tuple[sp.csr_array, sp.csr_array, np.ndarray]:
    """Base bitmap, distance bitmap and threshold of published records by bit voting.

    Parameters
    ----------
    X : sparse boolean matrix, shape (n, d)
        Original record bitmaps (an entry is a 1 when its value is non-zero).
    members : sparse matrix, shape (m, n)
        A stored entry ``members[j, i]`` (whatever its value; stored twice,
        it counts once) when original record ``i`` is a preimage of
        published record ``j``.

    Returns
    -------
    base : csr_array (m, d)
        Majority vote of the preimages per position (a tie gives 0).
    distance : csr_array (m, d)
        Positions where the preimages disagree.
    threshold : ndarray (m,)
        ``max_i H(base_j, X_i)`` over the preimages ``i`` of ``j``.

    Notes
    -----
    All three are computed on the records packed into ``uint64`` words
    (:func:`~graphanon.counting.bitset.pack_words`, ``W = ceil(d / 64)`` words a
    record): the base by the shared majority kernel
    (:func:`~graphanon.counting.bitset.vote_words`), the distance as the OR of
    the preimages' words without their AND, the threshold as the largest
    popcount of ``base XOR preimage``. Both bitmaps are written straight into
    CSR arrays (a counting pass, then a filling pass), so no product
    ``members @ X``, no per-edge gather of rows and no dense unpacked rows
    are formed.

    Complexity: O(nnz(members) * W) time; memory O((n + m) W) words for the
    packed records and the base, plus the CSR outputs.
    """
    X = bool_csr(X, copy=False)
    M = sp.csr_array(members)
    if not M.has_canonical_format:  # a preimage stored twice is one preimage (summed on a copy)
        M = M.copy()
        M.sum_duplicates()
    pre_ptr = M.indptr.astype(np.int64)
    size = np.diff(pre_ptr)
    if (size == 0).any():
        j = int(np.flatnonzero(size == 0)[0])
        raise ParameterError(f"published record {j} has no preimage")
    pre_idx = M.indices.astype(np.int64)
    shape = (M.shape[0], X.shape[1])
    b_ptr, b_idx, d_ptr, d_idx, thr = _vote_rows(pack_words(X), pre_ptr, pre_idx)
    return _bool_rows(b_ptr, b_idx, shape), _bool_rows(d_ptr, d_idx, shape), thr


def _bool_rows(indptr: np.ndarray, indices: np.ndarray, shape: tuple[int, int]) -> sp.csr_array:
    """The boolean CSR array of rows with sorted, distinct ``indices``."""
    return sp.csr_array((np.ones(len(indices), dtype=bool), indices, indptr), shape=shape)


@numba.njit(cache=True, inline="always")
def _spread_words(P, pre_ptr, pre_idx, v, some, every):  # pragma: no cover - compiled
    """Published record ``v``'s distance words into ``some`` (bits some but not all preimages have)."""
    some[:] = 0
    every[:] = ~np.uint64(0)
    for e in range(pre_ptr[v], pre_ptr[v + 1]):
        x = pre_idx[e]
        for w in range(P.shape[1]):
            some[w] |= P[x, w]
            every[w] &= P[x, w]
    for w in range(P.shape[1]):
        some[w] &= ~every[w]


@numba.njit(cache=True, inline="always")
def _emit_bits(word, w, idx, q):  # pragma: no cover - compiled
    """Write the items of the set bits of word ``w`` (ascending) to ``idx[q:]``; return the next ``q``."""
    while word:
        low = word & (~word + np.uint64(1))
        idx[q] = w * 64 + int(popcount64(low - np.uint64(1)))
        q += 1
        word ^= low
    return q


@numba.njit(cache=True)
def _vote_rows(P, pre_ptr, pre_idx):  # pragma: no cover - compiled
    """Base and distance rows (CSR pointer and items) and thresholds of the published records.

    The base words come from the shared majority kernel; a counting pass sizes
    both row sets and takes each threshold (the largest popcount of ``base
    XOR preimage``), a filling pass writes the items.
    """
    B = vote_words(P, pre_ptr, pre_idx)
    m, W = B.shape
    b_ptr = np.zeros(m + 1, dtype=np.int64)
    d_ptr = np.zeros(m + 1, dtype=np.int64)
    thr = np.zeros(m, dtype=np.int64)
    some = np.empty(W, dtype=np.uint64)
    every = np.empty(W, dtype=np.uint64)
    for v in range(m):
        _spread_words(P, pre_ptr, pre_idx, v, some, every)
        nb = 0
        nd = 0
        for w in range(W):
            nb += popcount64(B[v, w])
            nd += popcount64(some[w])
        b_ptr[v + 1] = b_ptr[v] + nb
        d_ptr[v + 1] = d_ptr[v] + nd
        far = 0
        for e in range(pre_ptr[v], pre_ptr[v + 1]):
            x = pre_idx[e]
            h = 0
            for w in range(W):
                h += popcount64(B[v, w] ^ P[x, w])
            far = max(far, h)
        thr[v] = far
    b_idx = np.empty(b_ptr[m], dtype=np.int32)
    d_idx = np.empty(d_ptr[m], dtype=np.int32)
    for v in range(m):
        _spread_words(P, pre_ptr, pre_idx, v, some, every)
        qb = b_ptr[v]
        qd = d_ptr[v]
        for w in range(W):
            qb = _emit_bits(B[v, w], w, b_idx, qb)
            qd = _emit_bits(some[w], w, d_idx, qd)
    return b_ptr, b_idx, d_ptr, d_idx, thr


def log_cum_binom(mmax: int) -> np.ndarray:
    """``out[f, t] = log(sum_{j<=t} C(f, j))`` for 0 <= f, t <= mmax (t > f saturates)."""
    from scipy.special import gammaln

    f = np.arange(mmax + 1)[:, None]
    j = np.arange(mmax + 1)[None, :]
    with np.errstate(invalid="ignore"):
        logc = gammaln(f + 1) - gammaln(j + 1) - gammaln(np.maximum(f - j, 0) + 1)
    logc = np.where(j <= f, logc, -np.inf)
    return np.logaddexp.accumulate(logc, axis=1)


def possible_world_counts(distance_sizes, thresholds) -> np.ndarray:
    """Number of possible worlds of each published record: ``sum_{j<=t} C(|d|, j)`` (float)."""
    m = np.asarray(distance_sizes, dtype=np.int64)
    t = np.minimum(np.asarray(thresholds, dtype=np.int64), m)
    if len(m) == 0:
        return np.zeros(0)
    table = log_cum_binom(int(m.max()))
    return np.exp(table[m, t])


@numba.njit(cache=True, inline="always")
def _add_match(rec, p, per_orig, per_pub, e_o, e_p, ne):  # pragma: no cover - compiled
    """Count the match (original ``rec``, published ``p``), store it if there is room; return ``ne + 1``."""
    per_orig[rec] += 1
    per_pub[p] += 1
    if ne < len(e_o):
        e_o[ne] = rec
        e_p[ne] = p
    return ne + 1


@numba.njit(cache=True)
def _match_kernel(b_ptr, b_idx, d_ptr, d_idx, thr, x_ptr, x_idx, c_ptr, c_idx, d_items, max_edges):
    """Original records matching each published record (postings over the record CSC)."""
    m = len(thr)
    n = len(x_ptr) - 1
    xlen = np.diff(x_ptr)
    cnt = np.zeros(n, dtype=np.int64)
    cd = np.zeros(n, dtype=np.int64)
    cbd = np.zeros(n, dtype=np.int64)
    ccore = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    flag = np.zeros(d_items, dtype=np.int8)  # 1 = base only, 2 = distance only, 3 = both
    per_orig = np.zeros(n, dtype=np.int64)
    per_pub = np.zeros(m, dtype=np.int64)
    e_o = np.empty(max_edges, dtype=np.int64)
    e_p = np.empty(max_edges, dtype=np.int64)
    ne = 0  # matches found; the first max_edges are stored
    empties = np.flatnonzero(xlen == 0)
    for p in range(m):
        for q in range(b_ptr[p], b_ptr[p + 1]):
            flag[b_idx[q]] |= 1
        for q in range(d_ptr[p], d_ptr[p + 1]):
            flag[d_idx[q]] |= 2
        n_core = 0
        n_bd = 0
        nt = 0
        # union of base and distance items
        for src in range(2):
            lo = b_ptr[p] if src == 0 else d_ptr[p]
            hi = b_ptr[p + 1] if src == 0 else d_ptr[p + 1]
            for q in range(lo, hi):
                it = b_idx[q] if src == 0 else d_idx[q]
                f = flag[it]
                if src == 1 and (f & 1):
                    continue  # already counted via the base list
                if f == 1:
                    n_core += 1
                elif f == 3:
                    n_bd += 1
                for r in range(c_ptr[it], c_ptr[it + 1]):
                    rec = c_idx[r]
                    if cnt[rec] == 0:
                        touched[nt] = rec
                        nt += 1
                    cnt[rec] += 1
                    if f & 2:
                        cd[rec] += 1
                    if f == 3:
                        cbd[rec] += 1
                    if f == 1:
                        ccore[rec] += 1
        for q in range(nt):
            rec = touched[q]
            if cnt[rec] == xlen[rec] and ccore[rec] == n_core and cd[rec] + n_bd - 2 * cbd[rec] <= thr[p]:
                ne = _add_match(rec, p, per_orig, per_pub, e_o, e_p, ne)
            cnt[rec] = 0
            cd[rec] = 0
            cbd[rec] = 0
            ccore[rec] = 0
        if n_core == 0 and n_bd <= thr[p]:
            for rec in empties:
                ne = _add_match(rec, p, per_orig, per_pub, e_o, e_p, ne)
        for q in range(b_ptr[p], b_ptr[p + 1]):
            flag[b_idx[q]] = 0
        for q in range(d_ptr[p], d_ptr[p + 1]):
            flag[d_idx[q]] = 0
    stored = min(ne, max_edges)
    return per_orig, per_pub, e_o[:stored], e_p[:stored], ne > max_edges


def match_possible_worlds(base, distance, threshold, Y, max_edges: int):
    """The original records lying in each published record's possible worlds.

    Original record ``i`` matches published record ``j`` when it equals
    ``base[j]`` outside the distance positions and differs from it in at most
    ``threshold[j]`` of them.

    Parameters
    ----------
    base, distance : csr_array of bool, shape (m, d)
    threshold : array of int, shape (m,)
    Y : csr_array of bool, shape (n, d)
        The original records in the release's columns (sorted indices).
    max_edges : int
        How many match edges to return at most (0: counts only).

    Returns
    -------
    per_original : ndarray (n,)
        Matches per original record.
    per_published : ndarray (m,)
        Matches per published record.
    orig, pub : ndarray of int64
        The first ``max_edges`` match edges.
    overflow : bool
        Whether there were more than ``max_edges`` matches.

    Notes
    -----
    Complexity: O(sum over published records of the postings of their base and distance
    items) with an inverted index (the records' CSC); memory O(n + d + max_edges).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> B, D = sp.csr_array([[True, True, False]]), sp.csr_array([[False, True, True]])
    >>> Y = sp.csr_array([[True, False, False], [True, True, False], [False, True, False]])
    >>> po, pp, eo, ep, over = match_possible_worlds(B, D, [1], Y, 10)
    >>> po.tolist(), eo.tolist(), bool(over)
    ([1, 1, 0], [0, 1], False)
    """
    C = Y.tocsc()
    return _match_kernel(
        base.indptr.astype(np.int64),
        base.indices.astype(np.int64),
        distance.indptr.astype(np.int64),
        distance.indices.astype(np.int64),
        np.asarray(threshold, dtype=np.int64),
        Y.indptr.astype(np.int64),
        Y.indices.astype(np.int64),
        C.indptr.astype(np.int64),
        C.indices.astype(np.int64),
        base.shape[1],
        int(max_edges),
    )
