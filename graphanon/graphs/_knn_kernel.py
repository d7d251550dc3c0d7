"""Compiled exact k-nearest-record search by Jaccard similarity, with pruning (numba).

For each query record ``r`` (``L`` items) the kernel keeps the ``k`` best
candidates seen so far (highest similarity, then lower record index) in a
heap whose root is the worst kept one, of similarity ``t``. Candidates come
from the posting lists of ``r``'s items, visited **rarest item first**; each
candidate is verified at once (exact intersection by a merge of the two
sorted item lists), so ``t`` is always a true lower bound of the final
``k``-th similarity. Two bounds then skip candidates that cannot enter:

* **prefix** -- a record first met in the list of ``r``'s ``p``-th item
  (0-based) holds none of ``r``'s ``p`` rarer items, so it shares at most
  ``m = L - p`` items with ``r``; once ``m / L < t`` no unseen record can
  enter and the row is finished (the prefix filter of all-pairs similarity
  joins, Bayardo et al. 2007; Xiao et al. 2009 for top-k).
* **length** -- such a record of length ``l`` has similarity at most
  ``min(m, l) / (L + l - min(m, l))``, largest at ``l = m`` and strictly
  decreasing away from it. Posting lists are sorted by (length, record), so
  a list is scanned outward from length ``m``, always on the side of the
  larger bound, and left as soon as both sides' bounds fall below ``t``
  (above ``m``, within one length, records come in increasing index: the
  first one whose bound equals ``t`` with an index above the worst kept one
  ends that side, since ties go to the lower index).

A candidate is skipped only when its bound is strictly below ``t`` (or equal
to it with a higher index than the worst kept one), so the result is the
exact top-``k`` of the full sparse product ``X @ X.T``, ties included.

References
----------
Bayardo, Ma, Srikant. Scaling up all pairs similarity search. WWW 2007
(prefix filtering). Xiao, Wang, Lin, Shang. Top-k set similarity joins.
ICDE 2009 (prefix and length bounds for top-k). Both describe the bounds;
the code here is ours.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)


@numba.njit(cache=True, inline="always")
def _worse(s1, c1, s2, c2):  # pragma: no cover - compiled
    """Is candidate (s1, c1) worse than (s2, c2): lower similarity, then higher index."""
    return s1 < s2 or (s1 == s2 and c1 > c2)


@numba.njit(cache=True)
def _heap_push(hs, hc, size, k, s, c):  # pragma: no cover - compiled
    """Offer (s, c) to the min-heap of the ``k`` best (root: the worst kept); returns the new size."""
    if size < k:
        pos = size
        size += 1
    else:
        if not _worse(hs[0], hc[0], s, c):
            return size
        # replace the root and sift down
        pos = 0
        while True:
            child = 2 * pos + 1
            if child >= size:
                break
            if child + 1 < size and _worse(hs[child + 1], hc[child + 1], hs[child], hc[child]):
                child += 1
            if _worse(hs[child], hc[child], s, c):
                hs[pos] = hs[child]
                hc[pos] = hc[child]
                pos = child
            else:
                break
        hs[pos] = s
        hc[pos] = c
        return size
    # sift up
    while pos > 0:
        parent = (pos - 1) // 2
        if _worse(s, c, hs[parent], hc[parent]):
            hs[pos] = hs[parent]
            hc[pos] = hc[parent]
            pos = parent
        else:
            break
    hs[pos] = s
    hc[pos] = c
    return size


@numba.njit(cache=True, inline="always")
def _bound(m, L, length):  # pragma: no cover - compiled
    """Largest similarity of a record of ``length`` items sharing at most ``m`` of the query's ``L`` items."""
    a = m if m < length else length
    return a / (L + length - a)


@numba.njit(cache=True)
def _intersection(x_ptr, x_idx, r, b):  # pragma: no cover - compiled
    """``|x_r & x_b|`` by a merge of the two sorted item lists."""
    p, pe = x_ptr[r], x_ptr[r + 1]
    q, qe = x_ptr[b], x_ptr[b + 1]
    n = 0
    while p < pe and q < qe:
        u, v = x_idx[p], x_idx[q]
        if u == v:
            n += 1
            p += 1
            q += 1
        elif u < v:
            p += 1
        else:
            q += 1
    return n


@numba.njit(cache=True, nogil=True)
def knn_fill(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start, rows, k, counts, cols, sims):  # pragma: no cover - compiled
    """:func:`knn_rows` into the caller's arrays: ``counts`` (len(rows)), ``cols`` and ``sims`` (len(rows) * k slots).

    Returns the slots filled (``counts.sum()``), from the start of ``cols`` and
    ``sims``; threads fill disjoint slices of one output (no per-block arrays
    to join).
    """
    n = len(x_ptr) - 1
    n_items = len(p_ptr) - 1
    n_rows = len(rows)
    stamp = np.full(n, -1, dtype=np.int32)
    mark = np.full(n_items, -1, dtype=np.int32)
    hs = np.empty(k, dtype=np.float64)
    hc = np.empty(k, dtype=np.int64)
    filled = 0
    for i in range(n_rows):
        r = rows[i]
        L = x_ptr[r + 1] - x_ptr[r]
        size = 0
        stamp[r] = i
        for q in range(x_ptr[r], x_ptr[r + 1]):
            mark[x_idx[q]] = i
        for p in range(L):
            m = L - p
            if size == k and m / L < hs[0]:
                break
            x = x_idx[x_ptr[r] + p]
            lo, hi = p_ptr[x], p_ptr[x + 1]
            # first entry of length >= m
            a, b = lo, hi
            while a < b:
                mid = (a + b) // 2
                if p_len[mid] < m:
                    a = mid + 1
                else:
                    b = mid
            up, down = a, a - 1
            up_open, down_open = up < hi, down >= lo
            while up_open or down_open:
                bu = _bound(m, L, p_len[up]) if up_open else -1.0
                bd = _bound(m, L, p_len[down]) if down_open else -1.0
                if bu >= bd:
                    e = up
                    c = p_rec[up]
                    if size == k and (bu < hs[0] or (bu == hs[0] and c > hc[0])):
                        up_open = False  # every later entry here is no better
                        continue
                    up += 1
                    up_open = up < hi
                else:
                    e = down
                    c = p_rec[down]
                    if size == k and bd < hs[0]:
                        down_open = False
                        continue
                    down -= 1
                    down_open = down >= lo
                lc = p_len[e]
                if size == k:
                    # positional bound (from the list alone, before touching c's record): an unseen c
                    # holds none of r's rarer items, so it shares at most x and the items after x on
                    # both sides. A seen c is skipped either way; one skipped earlier by a bound
                    # cannot enter, so a bound that is too low for it does no harm.
                    after = p_after[e]
                    cap = 1 + (m - 1 if m - 1 < after else after)
                    ub = cap / (L + lc - cap)
                    if ub < hs[0] or (ub == hs[0] and c > hc[0]):
                        continue
                if stamp[c] == i:
                    continue
                stamp[c] = i
                # c holds x; an unseen c that can still enter holds none of r's rarer items, so only
                # its items after x can be shared (one skipped earlier by a bound is undercounted,
                # which keeps it out as the bound did)
                inter = 1
                stop = p_start[e] + lc
                for q in range(stop - p_after[e], stop):
                    if mark[x_idx[q]] == i:
                        inter += 1
                size = _heap_push(hs, hc, size, k, inter / (L + lc - inter), c)
        counts[i] = size
        # the row's neighbours by increasing record index (CSR order): insertion sort of the heap
        base = filled
        filled += size
        for t in range(size):
            c, v = hc[t], hs[t]
            pos = base + t
            while pos > base and cols[pos - 1] > c:
                cols[pos] = cols[pos - 1]
                sims[pos] = sims[pos - 1]
                pos -= 1
            cols[pos] = c
            sims[pos] = v
    return filled


@numba.njit(cache=True, nogil=True)
def knn_rows(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start, rows, k):  # pragma: no cover - compiled
    """The exact ``k`` most similar records of each of ``rows`` (see the module notes).

    Parameters
    ----------
    x_ptr, x_idx : int64 and int32 (or int64) arrays
        The records as CSR, items renumbered rarest first (sorted in each row).
    p_ptr, p_rec, p_len, p_after : int64, then int32 (or int64) arrays
        Posting lists: the records holding item ``x`` are
        ``p_rec[p_ptr[x]:p_ptr[x + 1]]``, sorted by (length, record);
        ``p_len`` their lengths, ``p_after`` how many of their items
        come after ``x`` in the rarest-first order, ``p_start`` where their
        items start in ``x_idx`` (read in list order, not by record).
    rows : int64 array
        The query records.
    k : int

    Returns
    -------
    counts : int64 array (len(rows),)
        Neighbours found per query row (at most ``k``).
    cols : int32 array, sims : float64 array (counts.sum(),)
        The neighbours of ``rows[0]``, then of ``rows[1]``, ...; each row's by
        increasing record index (CSR order). Views of ``len(rows) * k`` slots.
    """
    counts = np.zeros(len(rows), dtype=np.int64)
    cols = np.empty(len(rows) * k, dtype=np.int32)
    sims = np.empty(len(rows) * k, dtype=np.float64)
    filled = knn_fill(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start, rows, k, counts, cols, sims)
    return counts, cols[:filled], sims[:filled]
