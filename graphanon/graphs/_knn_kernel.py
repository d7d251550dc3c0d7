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

Similarities and bounds are fractions of small integers (shared items over
the union's size) and are compared by cross-multiplication, never divided in
the search (the output similarities are divided once, at the end, by the
same expression as before: the same floats). Exact: two distinct fractions
of integers below ``2**26`` never round to one double, so the order is that
of the floats. A list is scanned one *run* of equal lengths at a time (its
bound is the run's), the side of the larger bound first; a candidate's
shared items are counted only up to the query's last item (both item lists
are sorted). These changes keep the visited records and the result, and
remove per-entry divisions and branches (measured in ``docs/performance.md``).

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
def _worse(i1, u1, c1, i2, u2, c2):  # pragma: no cover - compiled
    """Is candidate ``i1 / u1`` (record ``c1``) worse than ``i2 / u2`` (record ``c2``): lower similarity, then higher index.

    Similarities are compared as fractions (intersection over union), by
    cross-multiplication: exact, and no division in the search.
    """
    a = i1 * u2
    b = i2 * u1
    return a < b or (a == b and c1 > c2)


@numba.njit(cache=True)
def _heap_push(hi, hu, hc, size, k, s_i, s_u, c):  # pragma: no cover - compiled
    """Offer ``s_i / s_u`` (record ``c``) to the min-heap of the ``k`` best (root: the worst kept); returns the new size."""
    if size < k:
        pos = size
        size += 1
    else:
        if not _worse(hi[0], hu[0], hc[0], s_i, s_u, c):
            return size
        # replace the root and sift down
        pos = 0
        while True:
            child = 2 * pos + 1
            if child >= size:
                break
            if child + 1 < size and _worse(hi[child + 1], hu[child + 1], hc[child + 1], hi[child], hu[child], hc[child]):
                child += 1
            if _worse(hi[child], hu[child], hc[child], s_i, s_u, c):
                hi[pos] = hi[child]
                hu[pos] = hu[child]
                hc[pos] = hc[child]
                pos = child
            else:
                break
        hi[pos] = s_i
        hu[pos] = s_u
        hc[pos] = c
        return size
    # sift up
    while pos > 0:
        parent = (pos - 1) // 2
        if _worse(s_i, s_u, c, hi[parent], hu[parent], hc[parent]):
            hi[pos] = hi[parent]
            hu[pos] = hu[parent]
            hc[pos] = hc[parent]
            pos = parent
        else:
            break
    hi[pos] = s_i
    hu[pos] = s_u
    hc[pos] = c
    return size


@numba.njit(cache=True, nogil=True)
def knn_fill(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start, rows, k, counts, cols, sims, stamp, mark, heap):  # pragma: no cover - compiled
    """:func:`knn_rows` into the caller's arrays: ``counts`` (len(rows)), ``cols`` and ``sims`` (len(rows) * k slots).

    Returns the slots filled (``counts.sum()``), from the start of ``cols`` and
    ``sims``; threads fill disjoint slices of one output (no per-block arrays
    to join). ``stamp`` (int32, one per record) and ``mark`` (int32, one per
    item) must hold no value in ``0..len(rows) - 1`` (-1 everywhere will do)
    and ``heap`` is an int64 ``(3, k)`` work array (:func:`knn_work`): the
    caller allocates them, so a process that loads this kernel from numba's
    cache imports none of numba's array-allocation code (``numba.np.arrayobj``).

    The ``k``-th similarity so far is held as the fraction ``ti / tu`` of the
    heap's root (record ``tc``), valid once ``full``; every bound is compared
    with it by cross-multiplication.
    """
    n_rows = len(rows)
    hi = heap[0]
    hu = heap[1]
    hc = heap[2]
    filled = 0
    for i in range(n_rows):
        r = rows[i]
        L = x_ptr[r + 1] - x_ptr[r]
        size = 0
        stamp[r] = i
        for q in range(x_ptr[r], x_ptr[r + 1]):
            mark[x_idx[q]] = i
        last = x_idx[x_ptr[r + 1] - 1] if L > 0 else -1
        ti = 0
        tu = 1
        tc = -1
        full = False
        for p in range(L):
            m = L - p
            if full and m * tu < ti * L:
                break  # prefix bound: no unseen record can enter
            x = x_idx[x_ptr[r] + p]
            lo, hi_ = p_ptr[x], p_ptr[x + 1]
            # first entry of length >= m
            a, b = lo, hi_
            while a < b:
                mid = (a + b) // 2
                if p_len[mid] < m:
                    a = mid + 1
                else:
                    b = mid
            up, down = a, a - 1
            up_open, down_open = up < hi_, down >= lo
            while up_open or down_open:
                # the next run of one length on the side of the larger bound: m / (L + l - m) above, l / L below
                go_up = up_open
                if up_open and down_open:
                    go_up = m * L >= p_len[down] * (L + p_len[up] - m)
                if go_up:
                    lc = p_len[up]
                    bd = L + lc - m
                    if full and m * tu < ti * bd:
                        up_open = False
                        continue
                    e = up
                    while e < hi_ and p_len[e] == lc:
                        c = p_rec[e]
                        after = p_after[e]
                        if full:
                            lhs = m * tu
                            rhs = ti * bd
                            if lhs < rhs or (lhs == rhs and c > tc):
                                up_open = False  # this run's later records and every longer run are no better
                                break
                            # positional bound: an unseen c shares at most x and its items after x
                            cap = 1 + (m - 1 if m - 1 < after else after)
                            lhs = cap * tu
                            rhs = ti * (L + lc - cap)
                            if lhs < rhs or (lhs == rhs and c > tc):
                                e += 1
                                continue
                        e += 1
                        if stamp[c] == i:
                            continue
                        stamp[c] = i
                        inter = 1
                        stop = p_start[e - 1] + lc
                        for q in range(stop - after, stop):
                            v = x_idx[q]
                            if v > last:
                                break  # r's items are all passed (both lists sorted)
                            if mark[v] == i:
                                inter += 1
                        un = L + lc - inter
                        if full:
                            lhs = inter * tu
                            rhs = ti * un
                            if lhs < rhs or (lhs == rhs and c > tc):
                                continue
                        size = _heap_push(hi, hu, hc, size, k, inter, un, c)
                        if size == k:
                            full = True
                            ti = hi[0]
                            tu = hu[0]
                            tc = hc[0]
                    if up_open:
                        up = e
                        up_open = up < hi_
                else:
                    lc = p_len[down]
                    if full and lc * tu < ti * L:
                        down_open = False
                        continue
                    e = down
                    while e >= lo and p_len[e] == lc:
                        c = p_rec[e]
                        after = p_after[e]
                        if full:
                            if lc * tu < ti * L:
                                down_open = False  # records come by decreasing index here: only a strict stop
                                break
                            cap = 1 + (m - 1 if m - 1 < after else after)
                            lhs = cap * tu
                            rhs = ti * (L + lc - cap)
                            if lhs < rhs or (lhs == rhs and c > tc):
                                e -= 1
                                continue
                        e -= 1
                        if stamp[c] == i:
                            continue
                        stamp[c] = i
                        # c holds x; an unseen c that can still enter holds none of r's rarer items, so only
                        # its items after x can be shared (one skipped earlier by a bound is undercounted,
                        # which keeps it out as the bound did)
                        inter = 1
                        stop = p_start[e + 1] + lc
                        for q in range(stop - after, stop):
                            v = x_idx[q]
                            if v > last:
                                break
                            if mark[v] == i:
                                inter += 1
                        un = L + lc - inter
                        if full:
                            lhs = inter * tu
                            rhs = ti * un
                            if lhs < rhs or (lhs == rhs and c > tc):
                                continue
                        size = _heap_push(hi, hu, hc, size, k, inter, un, c)
                        if size == k:
                            full = True
                            ti = hi[0]
                            tu = hu[0]
                            tc = hc[0]
                    if down_open:
                        down = e
                        down_open = down >= lo
        counts[i] = size
        # the row's neighbours by increasing record index (CSR order): insertion sort of the heap
        base = filled
        filled += size
        for t in range(size):
            c = hc[t]
            v = hi[t] / hu[t]
            pos = base + t
            while pos > base and cols[pos - 1] > c:
                cols[pos] = cols[pos - 1]
                sims[pos] = sims[pos - 1]
                pos -= 1
            cols[pos] = c
            sims[pos] = v
    return filled


def knn_work(n: int, n_items: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of one :func:`knn_fill` call: ``stamp`` (n), ``mark`` (n_items), ``heap`` (3, k)."""
    return np.full(n, -1, dtype=np.int32), np.full(n_items, -1, dtype=np.int32), np.empty((3, k), dtype=np.int64)


def knn_rows(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start, rows, k):
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

    Examples
    --------
    Records {0, 1}, {0}, {0, 1, 2} (items numbered rarest first: 2, 1, 0):

    >>> import numpy as np
    >>> from graphanon.graphs.similarity import _posting_index
    >>> index = _posting_index(np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1]]))
    >>> counts, cols, sims = knn_rows(*index, np.arange(3), 1)
    >>> counts.tolist(), cols.tolist(), sims.tolist()
    ([1, 1, 1], [2, 0, 0], [0.6666666666666666, 0.5, 0.6666666666666666])
    """
    counts = np.zeros(len(rows), dtype=np.int64)
    cols = np.empty(len(rows) * k, dtype=np.int32)
    sims = np.empty(len(rows) * k, dtype=np.float64)
    filled = knn_fill(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start, rows, k, counts, cols, sims,
                      *knn_work(len(x_ptr) - 1, len(p_ptr) - 1, k))
    return counts, cols[:filled], sims[:filled]
