"""Numba kernels of the local-search Gray-TSP solver (2-opt, Or-opt, iterated local search).

A fixed-end Hamiltonian path is improved by 2-opt and Or-opt moves over
nearest-neighbour candidate lists, then by iterated local search.

Used by :mod:`.tsp` (``solver="local"``). A path is an array ``p`` of the
segment's ``L`` nodes with ``pos[p[i]] = i``; positions ``0`` and ``L - 1``
never change (the segment ends of the Gray order stay in place). Every move
only ever touches positions ``1 .. L - 2``.

References
----------
- G. A. Croes. A method for solving traveling-salesman problems. Operations
  Research 6(6), 1958 (2-opt).
- I. Or. Traveling salesman-type combinatorial problems and their relation to
  the logistics of regional blood banking. PhD thesis, Northwestern, 1976 (Or-opt).
- J. L. Bentley. Fast algorithms for geometric traveling salesman problems.
  ORSA J. Computing 4(4), 1992 (neighbour lists, don't-look bits).
- H. R. Lourenco, O. C. Martin, T. Stuetzle. Iterated local search.
  Handbook of Metaheuristics, 2003 (double-bridge kicks, Sec. 3).
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.algorithms.nonreciprocal._kernels import rng_below
from graphanon.counting._bitset_kernels import popcount64


@numba.njit(cache=True)
def hamming_matrix_kernel(words):
    """Pairwise Hamming distances (int32) of the rows of a uint64 word matrix."""
    L, w = words.shape
    D = np.zeros((L, L), dtype=np.int32)
    for a in range(L):
        for b in range(a + 1, L):
            d = 0
            for t in range(w):
                d += popcount64(words[a, t] ^ words[b, t])
            D[a, b] = d
            D[b, a] = d
    return D


@numba.njit(cache=True)
def neighbour_lists(D, K):
    """The ``K`` nearest other nodes of every node, nearest first (ties: lower index first)."""
    L = D.shape[0]
    K = min(K, L - 1)
    nbr = np.empty((L, K), dtype=np.int64)
    dist = np.empty(K, dtype=np.int64)
    for a in range(L):
        m = 0
        for c in range(L):
            if c == a:
                continue
            d = D[a, c]
            if m == K and d >= dist[K - 1]:
                continue
            # insertion into the sorted prefix (stable: equal distances keep index order)
            q = m if m < K else K - 1
            while q > 0 and dist[q - 1] > d:
                if q < K:
                    dist[q] = dist[q - 1]
                    nbr[a, q] = nbr[a, q - 1]
                q -= 1
            dist[q] = d
            nbr[a, q] = c
            if m < K:
                m += 1
    return nbr


@numba.njit(cache=True, inline="always")
def _reverse(p, pos, i, j):
    while i < j:
        a = p[i]
        b = p[j]
        p[i] = b
        pos[b] = i
        p[j] = a
        pos[a] = j
        i += 1
        j -= 1


@numba.njit(cache=True, inline="always")
def _push(stack, top, inq, a):
    if not inq[a]:
        inq[a] = True
        stack[top] = a
        top += 1
    return top


@numba.njit(cache=True)
def _move_segment(p, pos, i, s, j, flip, buf):
    """Move ``p[i .. i+s-1]`` between positions ``j`` and ``j + 1`` (reversed if ``flip``)."""
    for t in range(s):
        buf[t] = p[i + s - 1 - t] if flip else p[i + t]
    if j >= i + s:  # target after the segment: shift p[i+s .. j] left by s
        for q in range(i + s, j + 1):
            p[q - s] = p[q]
            pos[p[q - s]] = q - s
        start = j - s + 1
    else:  # target before: shift p[j+1 .. i-1] right by s
        for q in range(i - 1, j, -1):
            p[q + s] = p[q]
            pos[p[q + s]] = q + s
        start = j + 1
    for t in range(s):
        p[start + t] = buf[t]
        pos[buf[t]] = start + t


@numba.njit(cache=True)
def _two_opt(D, p, pos, nbr, a, stack, top, inq):
    """First improving 2-opt move at node ``a``; returns ``(gain, top)`` (gain 0: none)."""
    L = p.shape[0]
    i = pos[a]
    K = nbr.shape[1]
    if i <= L - 2:  # edge (a, successor)
        b = p[i + 1]
        dab = D[a, b]
        for t in range(K):
            c = nbr[a, t]
            if D[a, c] >= dab:
                break
            j = pos[c]
            if j == L - 1:
                continue
            d = p[j + 1]
            delta = D[a, c] + D[b, d] - dab - D[c, d]
            if delta < 0:
                if i < j:
                    _reverse(p, pos, i + 1, j)
                else:
                    _reverse(p, pos, j + 1, i)
                for x in (a, b, c, d):
                    top = _push(stack, top, inq, x)
                return -delta, top
    if i >= 1:  # edge (predecessor, a)
        b = p[i - 1]
        dab = D[a, b]
        for t in range(K):
            c = nbr[a, t]
            if D[a, c] >= dab:
                break
            j = pos[c]
            if j == 0:
                continue
            d = p[j - 1]
            delta = D[a, c] + D[b, d] - dab - D[c, d]
            if delta < 0:
                if j > i:
                    _reverse(p, pos, i, j - 1)
                else:
                    _reverse(p, pos, j, i - 1)
                for x in (a, b, c, d):
                    top = _push(stack, top, inq, x)
                return -delta, top
    return 0, top


@numba.njit(cache=True)
def _or_opt(D, p, pos, nbr, a, max_len, stack, top, inq, buf):
    """First improving Or-opt move of a run of 1..max_len nodes with ``a`` at one end."""
    L = p.shape[0]
    ia = pos[a]
    K = nbr.shape[1]
    for s in range(1, max_len + 1):
        for side in range(2):  # 0: a first of the run, 1: a last of the run
            i = ia if side == 0 else ia - s + 1
            if i < 1 or i + s - 1 > L - 2:
                continue
            f = p[i]
            lst = p[i + s - 1]
            prv = p[i - 1]
            nxt = p[i + s]
            removal = D[prv, f] + D[lst, nxt] - D[prv, nxt]
            if removal <= 0:
                continue
            other = lst if side == 0 else f
            for t in range(K):
                c = nbr[a, t]
                dac = D[a, c]
                if dac >= removal:
                    break
                j = pos[c]
                if j >= i and j <= i + s - 1:
                    continue
                for where in range(2):  # 0: between c and its successor, 1: between its predecessor and c
                    if where == 0:
                        x = j
                    else:
                        x = j - 1
                    if x < 0 or x + 1 > L - 1:
                        continue
                    if not (x + 1 <= i - 1 or x >= i + s):
                        continue
                    u = p[x]
                    v = p[x + 1]
                    # the run sits between u and v with a next to c
                    if where == 0:
                        added = dac + D[other, v] - D[u, v]
                    else:
                        added = D[u, other] + dac - D[u, v]
                    delta = added - removal
                    if delta < 0:
                        # laid out from u to v: forward run is f..lst
                        first_at_u = other if where == 1 else a
                        flip = first_at_u != f
                        _move_segment(p, pos, i, s, x, flip, buf)
                        for y in (a, other, prv, nxt, u, v):
                            top = _push(stack, top, inq, y)
                        return -delta, top
    return 0, top


@numba.njit(cache=True)
def _descend(D, p, pos, nbr, max_len, stack, top, inq, buf):
    """Apply improving moves until no queued node has one; returns the total gain."""
    gain = 0
    while top > 0:
        top -= 1
        a = stack[top]
        inq[a] = False
        g, top = _two_opt(D, p, pos, nbr, a, stack, top, inq)
        if g == 0:
            g, top = _or_opt(D, p, pos, nbr, a, max_len, stack, top, inq, buf)
        if g > 0:
            gain += g
            top = _push(stack, top, inq, a)
    return gain


@numba.njit(cache=True)
def path_cost(D, p):
    c = 0
    for i in range(p.shape[0] - 1):
        c += D[p[i], p[i + 1]]
    return c


@numba.njit(cache=True)
def improve_path(D, p, nbr, n_kicks, window, state, descend_all, or_len=3):
    """Local search then ``n_kicks`` rounds of iterated local search on a fixed-end path.

    ``p`` (modified in place) is the path to improve; with ``descend_all``
    every node is first checked for an improving move (the first call on the
    Gray path), otherwise ``p`` is taken as the best path of an earlier call
    and only the kicks run, so calls of ``a`` then ``b`` kicks with the same
    ``state`` give exactly one call of ``a + b`` kicks. A kick is a local
    double bridge (two adjacent runs of at most ``window`` nodes swap places,
    drawn from the splitmix64 ``state``); the result of its descent is kept
    when not longer than the best path, else the best path is restored.
    Returns the cost of ``p``, the best path.
    """
    L = p.shape[0]
    pos = np.empty(L, dtype=np.int64)
    for i in range(L):
        pos[p[i]] = i
    stack = np.empty(L, dtype=np.int64)
    inq = np.zeros(L, dtype=np.bool_)
    buf = np.empty(max(L, 3), dtype=np.int64)
    cost = path_cost(D, p)
    if descend_all:
        top = 0
        for i in range(L - 1, -1, -1):
            top = _push(stack, top, inq, p[i])
        cost -= _descend(D, p, pos, nbr, or_len, stack, top, inq, buf)
    if L < 5:
        return cost
    best = p.copy()
    best_cost = cost
    tmp = np.empty(L, dtype=np.int64)
    for _ in range(n_kicks):
        # positions 1 <= i < j < k <= L - 1: runs B = p[i:j], C = p[j:k] swap
        i = 1 + rng_below(state, L - 3)
        lb = 1 + rng_below(state, window)
        j = i + lb
        if j > L - 2:
            j = L - 2
        if j <= i:
            continue
        lc = 1 + rng_below(state, window)
        k = j + lc
        if k > L - 1:
            k = L - 1
        if k <= j:
            continue
        a0 = p[i - 1]
        b0 = p[i]
        b1 = p[j - 1]
        c0 = p[j]
        c1 = p[k - 1]
        d0 = p[k]
        delta = D[a0, c0] + D[c1, b0] + D[b1, d0] - D[a0, b0] - D[b1, c0] - D[c1, d0]
        m = 0
        for q in range(j, k):
            tmp[m] = p[q]
            m += 1
        for q in range(i, j):
            tmp[m] = p[q]
            m += 1
        for q in range(m):
            p[i + q] = tmp[q]
            pos[tmp[q]] = i + q
        top = 0
        for x in (a0, b0, b1, c0, c1, d0):
            top = _push(stack, top, inq, x)
        cost = cost + delta - _descend(D, p, pos, nbr, or_len, stack, top, inq, buf)
        if cost <= best_cost:
            best_cost = cost
            best[:] = p
        else:
            p[:] = best
            for q in range(L):
                pos[p[q]] = q
            cost = best_cost
    p[:] = best
    return best_cost
