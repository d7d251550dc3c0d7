"""Candidate generation for the match graph: which record classes can match a row class.

A record ``r`` matches a published row with base ``B``, distance positions
``D`` and threshold ``t`` when ``r`` holds every *core* item (``B`` minus
``D``), no item outside ``B | D``, and at most ``t`` flips on ``D``. So
``r``'s *rarest item* (fewest live record classes; ties by index), ``rho(r)``,
lies in ``B | D`` and is at most as frequent as the row's rarest core item
``c``. Records are indexed by the pair ``(rho(r), x)`` for each of their items
``x``; a row with core items reads the lists ``(y, c)`` for the items ``y`` of
``B | D`` no more frequent than ``c``, and every matching record class lies in
exactly one of them. A row without core items reads the records whose rarest
item lies in ``D`` (each class in one list). Compared with reading every
holder of ``c``, this leaves out the holders whose rarest item is outside
the row, the bulk of them on large data.

Each candidate is then screened by a 64-bit item signature (one hashed bit
per item, ORed over the record's items: a bit outside the row's items, or a
core bit missing, rules it out without reading the record) and checked item
by item. Candidates of a row are emitted in increasing class order.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)

__all__ = ["CandidateIndex", "class_edges"]


class CandidateIndex:
    """The lists of live record classes by (rarest item, item) and by rarest item, with signatures.

    Parameters
    ----------
    X : csr_array, shape (classes, items)
        One row per record class (sorted indices).
    live : ndarray of int
        The classes that can match (no unknown item), in increasing order.

    Notes
    -----
    Complexity: O(nnz log nnz) time (one sort of the pair keys), O(nnz) memory.
    """

    def __init__(self, X: sp.csr_array, live: np.ndarray) -> None:
        d = X.shape[1]
        i64 = np.int64
        self.n_items = d
        self.item_bit = np.left_shift(  # one of 64 bits per item (Fibonacci hashing)
            np.uint64(1), (np.arange(d, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(58)
        )
        XL = sp.csr_array(X[live])
        lens = np.diff(XL.indptr)
        freq = np.bincount(XL.indices, minlength=d)
        self.rank = np.empty(d, dtype=i64)
        self.rank[np.argsort(freq, kind="stable")] = np.arange(d)
        filled = lens > 0
        rho = np.full(len(live), -1, dtype=i64)
        sig = np.zeros(len(live), dtype=np.uint64)
        if filled.any():  # reduceat over the starts of non-empty rows only: each range is one row
            starts = XL.indptr[:-1][filled]
            rho[filled] = np.argsort(self.rank)[np.minimum.reduceat(self.rank[XL.indices], starts)]
            sig[filled] = np.bitwise_or.reduceat(self.item_bit[XL.indices], starts)
        owner = np.repeat(np.arange(len(live)), lens)
        # (rarest item, item) lists, classes in increasing order inside each list
        key = rho[owner] * d + XL.indices.astype(i64)
        order = np.argsort(key, kind="stable")
        self.keys, first = np.unique(key[order], return_index=True)
        self.key_ptr = np.append(first, len(key)).astype(i64)
        self.key_cls = live[owner[order]].astype(i64)
        self.key_sig = sig[owner[order]]
        # rarest-item lists (each non-empty class once)
        cls = np.flatnonzero(filled)
        by_rho = cls[np.argsort(rho[cls], kind="stable")]
        self.rho_ptr = np.zeros(d + 1, dtype=i64)
        np.cumsum(np.bincount(rho[cls], minlength=d), out=self.rho_ptr[1:])
        self.rho_cls = live[by_rho].astype(i64)
        self.rho_sig = sig[by_rho]

    def arrays(self) -> tuple:
        return (
            self.keys, self.key_ptr, self.key_cls, self.key_sig,
            self.rho_ptr, self.rho_cls, self.rho_sig, self.rank, self.item_bit, self.n_items,
        )  # fmt: skip


@numba.njit(cache=True)
def _mark(flag, items, bit):
    """``flag[items] |= bit``, or clear them when ``bit`` is 0."""
    for it in items:
        flag[it] = flag[it] | bit if bit else 0


@numba.njit(cache=True)
def _check(a, x_ptr, x_idx, flag, n_core, n_bd, thr):
    """Whether record class ``a`` matches the marked row (``flag``: 1 core, 2 distance only, 3 both)."""
    core_hits = 0
    flips = n_bd
    for t in range(x_ptr[a], x_ptr[a + 1]):
        f = flag[x_idx[t]]
        if f == 0:
            return False
        if f == 1:
            core_hits += 1
        elif f == 2:
            flips += 1
        else:
            flips -= 1
    return core_hits == n_core and flips <= thr


@numba.njit(cache=True)
def _scan(lo, hi, cls, sigs, allowed, core_sig, x_ptr, x_idx, flag, n_core, n_bd, thr, p, out_a, out_b, ne):
    """Append the classes of list ``[lo, hi)`` that match row class ``p``; returns the new edge count."""
    for r in range(lo, hi):
        sig = sigs[r]
        if (sig & ~allowed) != 0 or (sig & core_sig) != core_sig:
            continue  # an item outside base and distance, or a core item missing
        a = cls[r]
        if _check(a, x_ptr, x_idx, flag, n_core, n_bd, thr):
            out_a[ne] = a
            out_b[ne] = p
            ne += 1
    return ne


@numba.njit(cache=True)
def _class_candidates(
    lo, hi, b_ptr, b_idx, d_ptr, d_idx, thr, x_ptr, x_idx, empty_cls,
    keys, key_ptr, key_cls, key_sig, rho_ptr, rho_cls, rho_sig, rank, item_bit, d, flag, out_a, out_b,
):  # fmt: skip
    """Record classes matching row classes ``lo..hi-1`` (stops early when ``out`` may overflow).

    Returns (number of edges written, first row class not processed).
    """
    cap = len(out_a)
    n_a = len(x_ptr) - 1
    ne = 0
    for p in range(lo, hi):
        if ne + n_a > cap:
            return ne, p
        start = ne
        _mark(flag, b_idx[b_ptr[p] : b_ptr[p + 1]], 1)  # 1 core, 2 distance only, 3 both
        _mark(flag, d_idx[d_ptr[p] : d_ptr[p + 1]], 2)
        n_core = 0
        n_bd = 0
        pivot = -1
        allowed = np.uint64(0)
        core_sig = np.uint64(0)
        for q in range(d_ptr[p], d_ptr[p + 1]):
            allowed |= item_bit[d_idx[q]]
        for q in range(b_ptr[p], b_ptr[p + 1]):
            it = b_idx[q]
            allowed |= item_bit[it]
            if flag[it] == 1:
                core_sig |= item_bit[it]
                n_core += 1
                if pivot < 0 or rank[it] < rank[pivot]:
                    pivot = it
            else:
                n_bd += 1
        if pivot >= 0:  # lists (y, pivot) for the row's items y no more frequent than the pivot
            for q in range(b_ptr[p] + d_ptr[p], b_ptr[p + 1] + d_ptr[p + 1]):
                y = b_idx[q - d_ptr[p]] if q < b_ptr[p + 1] + d_ptr[p] else d_idx[q - b_ptr[p + 1]]
                if rank[y] > rank[pivot] or (q >= b_ptr[p + 1] + d_ptr[p] and flag[y] == 3):
                    continue  # too frequent to be the rarest, or in base and distance (read already)
                s = np.searchsorted(keys, y * d + pivot)
                if s < len(keys) and keys[s] == y * d + pivot:
                    ne = _scan(
                        key_ptr[s], key_ptr[s + 1], key_cls, key_sig, allowed, core_sig,
                        x_ptr, x_idx, flag, n_core, n_bd, thr[p], p, out_a, out_b, ne,
                    )  # fmt: skip
        else:  # no core item: the record lies inside the distance positions
            for q in range(d_ptr[p], d_ptr[p + 1]):
                y = d_idx[q]
                ne = _scan(
                    rho_ptr[y], rho_ptr[y + 1], rho_cls, rho_sig, allowed, core_sig,
                    x_ptr, x_idx, flag, n_core, n_bd, thr[p], p, out_a, out_b, ne,
                )  # fmt: skip
            if empty_cls >= 0 and n_bd <= thr[p]:
                out_a[ne] = empty_cls
                out_b[ne] = p
                ne += 1
        out_a[start:ne].sort()
        _mark(flag, b_idx[b_ptr[p] : b_ptr[p + 1]], 0)
        _mark(flag, d_idx[d_ptr[p] : d_ptr[p + 1]], 0)
    return ne, hi


def class_edges(rows: tuple, X: sp.csr_array, index: CandidateIndex, empty_cls: int, *, block_edges, progress):
    """All (record class, row class) matches, row class by row class, in blocks of at most ``block_edges``.

    ``rows`` = (base indptr, base indices, distance indptr, distance indices,
    thresholds) of the row classes; ``X`` the record classes.
    """
    i64 = np.int64
    nb = len(rows[0]) - 1
    na = X.shape[0]
    args = (*rows, X.indptr.astype(i64), X.indices.astype(i64), int(empty_cls), *index.arrays())
    flag = np.zeros(index.n_items, dtype=np.int8)
    cap = max(int(block_edges), na + 1)
    out_a, out_b = np.empty(cap, dtype=i64), np.empty(cap, dtype=i64)
    parts_a, parts_b = [], []
    p = 0
    step = max(1, nb // 50)
    while p < nb:
        ne, p = _class_candidates(p, min(nb, p + step), *args, flag, out_a, out_b)  # type: ignore[call-arg]  # numba Dispatcher stub
        parts_a.append(out_a[:ne].copy())
        parts_b.append(out_b[:ne].copy())
        if progress is not None:
            progress(p, nb, "match graph")
    ea = np.concatenate(parts_a) if parts_a else np.zeros(0, i64)
    eb = np.concatenate(parts_b) if parts_b else np.zeros(0, i64)
    return ea, eb
