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
from graphanon.counting.bitset import pack_words, vote_words, words_to_csr
from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError
from graphanon.utils.memory import cost_blocks

__all__ = ["bit_vote", "log_cum_binom", "match_possible_worlds", "possible_world_counts"]


def bit_vote(X, members: sp.csr_array) -> tuple[sp.csr_array, sp.csr_array, np.ndarray]:
    """Base bitmap, distance bitmap and threshold of published records by bit voting.

    Parameters
    ----------
    X : sparse boolean matrix, shape (n, d)
        Original record bitmaps.
    members : sparse matrix, shape (m, n)
        ``members[j, i] != 0`` when original record ``i`` is a preimage of
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
    Complexity: O(nnz(members) * average record length) time; memory O(nnz(members) +
    nnz(X)) plus one block of gathered rows (the thresholds are computed
    in edge blocks).
    """
    X = sp.csr_array(X).astype(np.int32)
    M = sp.csr_array(members).astype(np.int32)
    M.data[:] = 1
    size = np.asarray(M.sum(axis=1)).ravel()
    if (size == 0).any():
        j = int(np.flatnonzero(size == 0)[0])
        raise ParameterError(f"published record {j} has no preimage")
    X.eliminate_zeros()
    shape = (M.shape[0], X.shape[1])
    # the majority rule lives in one place, the packed kernel shared with the nonreciprocal search
    M.sort_indices()
    B = vote_words(pack_words(X), M.indptr.astype(np.int64), M.indices.astype(np.int64))
    base = bool_csr(words_to_csr(B, X.shape[1]), shape)
    del B
    # distance: positions where some but not all preimages have the bit (0 < count < size)
    counts = sp.csr_array(M @ X)
    counts.eliminate_zeros()
    rows = np.repeat(np.arange(M.shape[0]), np.diff(counts.indptr))
    dist = bool_csr(sp.csr_array(((counts.data < size[rows]).astype(np.int8), counts.indices, counts.indptr), shape=shape), shape)
    # threshold: max over preimage edges of |base_j| + |x_i| - 2 |base_j & x_i|
    Mc = M.tocoo()
    ej, ei = Mc.row.astype(np.int64), Mc.col.astype(np.int64)
    bl = np.diff(base.indptr)
    xl = np.diff(X.indptr)
    # |base_j & x_i| per edge, in edge blocks of about 2^24 gathered entries: with k near n the
    # edges are n^2 and gathering all rows at once needs n^2 x record length entries.
    based = base.astype(np.int32)
    inter = np.empty(len(ej), dtype=np.int64)
    for a, b in cost_blocks(bl[ej] + xl[ei], 1 << 24):
        inter[a:b] = np.asarray(sp.csr_array(based[ej[a:b]]).multiply(X[ei[a:b]]).sum(axis=1)).ravel()
    h = bl[ej] + xl[ei] - 2 * inter
    thr = np.zeros(M.shape[0], dtype=np.int64)
    np.maximum.at(thr, ej, h)
    return base, dist, thr


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
