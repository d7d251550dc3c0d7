"""Assignment extraction from generalization graphs.

An *assignment* is a perfect matching of the generalization graph: an array
``a`` with ``a[i]`` the published record standing for original record ``i``
(a permutation whose every edge ``i -> a[i]`` is in the graph). A k-regular
graph is the union of k disjoint assignments; this module extracts them.

Three extractors:

* :func:`extract_assignments` with ``method="closed-walk"`` -- the randomized
  closed walk of Xue et al. (Algorithm 1): a walk that may revisit vertices;
  every revisit closes a *deviant cycle*, which is dropped (loop erasure).
* ``method="backtracking"`` -- the WMC baseline of Wong et al.: a
  depth-first search for a simple cycle that backtracks at dead ends.
* :func:`greedy_diverse_assignments` -- l-diverse assignments: by default a
  min-cost l-diverse graph (min-cost flow) separated by the closed walk; or
  the paper's greedy walk (Algorithm 2, ``greedyPick``) on the complete graph.

How a round works (both random extractors)
------------------------------------------
A round keeps a bijection ``A`` (initially the identity, not necessarily made
of usable edges) and a set ``L`` of unprocessed records. A walk starts at a
random ``u in L`` whose slot ``A[u] = u`` is vacated; each step lets the
current record ``x`` take an unused edge ``x -> y`` and moves to the record
``A^{-1}(y)`` it displaces; the walk ends when it reaches ``u``'s vacated
slot. The matchings of the loop-erased walk are written into ``A`` and its
records leave ``L``. ``A`` stays a bijection throughout; when ``L`` is empty
every record holds an unused edge, i.e. ``A`` is a perfect matching of the
remaining graph. Because the remaining graph is regular (Eulerian in the
"displacement" view), a walk that never reuses an edge can only get stuck
where it started, so the closed walk always closes (Xue et al., Theorem 4.1).

Both random extractors keep, per record, the list of its edges not used by
earlier rounds, so a step never looks at a used edge. A closed-walk step
draws uniform proposals among those edges and accepts one only if it is a
preferred next hop, scanning the list once if two proposals fail; the
choice is uniform among the preferred next hops either way (see
:func:`_closed_walk_round`). Backtracking draws its random edge order lazily
(Fisher-Yates), one draw per tried edge.

All hot loops are compiled with numba; randomness comes from the ``rng``
argument (a seed is drawn from it per round: for numba's generator in the
greedy walk, for a splitmix64 stream in the two random extractors).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 4.2 (closed walk, Algorithm 1,
Theorem 4.1) and Sec. 4.4 (greedy assignment extraction, Algorithm 2).
Wong, Liu, Fu, Wang, Wang. Non-homogeneous generalization in privacy
preserving data publishing. SIGMOD 2010 (backtracking extraction, "WMC").
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from graphanon.errors import InfeasibleError, ParameterError
from graphanon.graphs.generalization import GeneralizationGraph, check_order

__all__ = [
    "ExtractionStats",
    "check_assignments",
    "extract_assignments",
    "greedy_diverse_assignments",
    "pack_rows",
]


# ---------------------------------------------------------------------- numba kernels
@numba.njit(cache=True)
def _popcount64(v):
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (v * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True)
def _hamming(P, a, b):
    h = 0
    for w in range(P.shape[1]):
        h += _popcount64(P[a, w] ^ P[b, w])
    return h


# Random numbers of the extraction kernels: splitmix64, a 64-bit generator with a
# single word of state (kept in a 1-element uint64 array), and Lemire's unbiased
# multiply-shift for bounded integers. Both random extractors use them, one
# draw per random choice, so neither method pays more per draw than the other.
@numba.njit(cache=True, inline="always")
def _rng_next(state):
    """Next output of splitmix64 (Steele, Lea, Flood, OOPSLA 2014); advances ``state[0]``."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def _rng_below(state, c):
    """Uniform integer in ``[0, c)`` for ``1 <= c < 2**32``, exactly (no modulo bias).

    Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1), 2019:
    ``(u * c) >> 32`` for a 32-bit ``u``, redrawing while the low word is below ``2**32 mod c``.
    """
    cc = np.uint64(c)
    m = (_rng_next(state) >> np.uint64(32)) * cc
    lo = m & np.uint64(0xFFFFFFFF)
    if lo < cc:
        th = (np.uint64(0x100000000) - cc) % cc
        while lo < th:
            m = (_rng_next(state) >> np.uint64(32)) * cc
            lo = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32))


# Unused edges of every record, kept across rounds: ``ay[x, :cnt[x]]`` are the
# published records ``x`` may still be matched to and ``at[x, :cnt[x]]`` the
# columns of those edges in ``graph.successors``. After a round the edge it
# used is swap-removed (``_drop_used_edges``), so no kernel ever looks at a
# used edge again.
@numba.njit(cache=True)
def _drop_used_edges(ay, at, cnt, slot):
    """Swap-remove edge column ``slot[x]`` from the unused-edge list of every record ``x``."""
    n = ay.shape[0]
    for x in range(n):
        c = cnt[x] - 1
        for j in range(c + 1):
            if at[x, j] == slot[x]:
                ay[x, j] = ay[x, c]
                at[x, j] = at[x, c]
                ay[x, c] = -1
                at[x, c] = slot[x]
                cnt[x] = c
                break


@numba.njit(cache=True)
def _bfs_order(succ):
    """Breadth-first order of the records along out-edges (columns in order).

    Used to relabel the records so that a walk touches nearby memory; on a
    ring graph it recovers the ring order itself.
    """
    n, k = succ.shape
    seen = np.zeros(n, dtype=np.bool_)
    order = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for r in range(n):
        if seen[r]:
            continue
        seen[r] = True
        order[tail] = r
        tail += 1
        while head < tail:
            v = order[head]
            head += 1
            for t in range(k):
                w = succ[v, t]
                if not seen[w]:
                    seen[w] = True
                    order[tail] = w
                    tail += 1
    return order


@numba.njit(cache=True)
def _closed_walk_round(ay, at, cnt, starts, seed, tries, trace):
    """One round of closed-walk extraction. Returns (A, slot, steps, ok, trace_len).

    ``ay``, ``at``, ``cnt``: the unused-edge lists (read only here). ``slot[x]``
    is the column of the edge ``x -> A[x]`` in ``graph.successors``.
    ``trace`` (shape (m, 4), may be empty) receives (walk, x, y, event) rows:
    event 0 = step, 1 = deviant cycle dropped at x, 2 = cycle closed.

    Per walk: ``stamp[z] == walk`` marks records visited by the walk (they
    stay visited when a deviant cycle drops them), ``ystamp[y] == walk`` marks
    published records whose holder ``A^{-1}(y)`` is visited (``A`` does not
    change during a walk, so this is ``stamp[inv[y]] == walk`` in one load),
    ``onpath[z] >= 0`` gives the position of ``z`` on the loop-erased path and
    bit ``j`` of ``tmask[z]`` that ``z`` walked its ``j``-th unused edge.
    """
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed)
    n, k = ay.shape
    W = (k + 63) >> 6
    A = np.arange(n).astype(ay.dtype)
    inv = np.arange(n).astype(ay.dtype)
    in_l = np.ones(n, dtype=np.bool_)
    slot = np.full(n, -1, dtype=np.int64)
    stamp = np.zeros(n, dtype=ay.dtype)
    ystamp = np.zeros(n, dtype=ay.dtype)
    onpath = np.full(n, -1, dtype=ay.dtype)
    tmask = np.zeros((n, W), dtype=np.uint64)
    path_x = np.empty(n + 1, dtype=ay.dtype)
    path_j = np.empty(n + 1, dtype=ay.dtype)
    pref = np.empty(k, dtype=np.int64)
    other = np.empty(k, dtype=np.int64)
    one = np.uint64(1)
    steps = 0
    walk = 0
    tl = 0
    tmax = trace.shape[0]
    for s in starts:
        if not in_l[s]:
            continue
        walk += 1
        target = A[s]
        stamp[s] = walk
        ystamp[target] = walk
        for w in range(W):
            tmask[s, w] = 0
        onpath[s] = 0
        path_x[0] = s
        plen = 1
        x = s
        while True:
            # next hop: uniform among the preferred candidates (unused edges of x not
            # walked from x in this walk that close the walk or lead to an unvisited
            # holder), else uniform among the other candidates. Up to `tries` uniform
            # proposals among the c unused edges, each accepted only if preferred
            # (an accepted one is uniform among the preferred); then one branch-free
            # scan. Whether the scan happens does not depend on which preferred edge
            # a proposal would hit, so the mixture is uniform among the preferred.
            c = cnt[x]
            if c <= 0:
                return A, slot, steps, False, tl
            j = -1
            for _ in range(tries):
                jj = _rng_below(state, c)
                if (tmask[x, jj >> 6] >> np.uint64(jj & 63)) & one:
                    continue
                y = ay[x, jj]
                if y == target or ystamp[y] != walk:
                    j = jj
                    break
            if j < 0:
                npref = 0
                nother = 0
                for jj in range(c):
                    free = 1 - np.int64((tmask[x, jj >> 6] >> np.uint64(jj & 63)) & one)
                    y = ay[x, jj]
                    p = np.int64((y == target) | (ystamp[y] != walk))
                    pref[npref] = jj
                    other[nother] = jj
                    npref += free & p
                    nother += free & (1 - p)
                if npref > 0:
                    j = pref[_rng_below(state, npref)]
                elif nother > 0:
                    j = other[_rng_below(state, nother)]
                else:
                    return A, slot, steps, False, tl
            tmask[x, j >> 6] |= one << np.uint64(j & 63)
            steps += 1
            y = ay[x, j]
            path_j[plen - 1] = j
            if tl < tmax:
                trace[tl, 0] = walk
                trace[tl, 1] = x
                trace[tl, 2] = y
                trace[tl, 3] = 0
                tl += 1
            if y == target:
                break
            z = inv[y]
            if stamp[z] == walk:
                p = onpath[z]
                if p >= 0:  # deviant cycle z -> ... -> z: erase it
                    for q in range(p + 1, plen):
                        onpath[path_x[q]] = -1
                    plen = p + 1
                    if tl < tmax:
                        trace[tl, 0] = walk
                        trace[tl, 1] = z
                        trace[tl, 2] = -1
                        trace[tl, 3] = 1
                        tl += 1
                else:  # visited earlier, dropped with a deviant cycle since
                    onpath[z] = plen
                    path_x[plen] = z
                    plen += 1
            else:
                stamp[z] = walk
                ystamp[y] = walk
                for w in range(W):
                    tmask[z, w] = 0
                onpath[z] = plen
                path_x[plen] = z
                plen += 1
            x = z
        for q in range(plen):
            xq = path_x[q]
            j = path_j[q]
            y = ay[xq, j]
            A[xq] = y
            inv[y] = xq
            slot[xq] = at[xq, j]
            in_l[xq] = False
            onpath[xq] = -1
        if tl < tmax:
            trace[tl, 0] = walk
            trace[tl, 1] = s
            trace[tl, 2] = plen
            trace[tl, 3] = 2
            tl += 1
    return A, slot, steps, True, tl


@numba.njit(cache=True)
def _backtracking_round(ay, at, cnt, starts, seed, unmark):
    """One round of WMC-style extraction: DFS for a simple closing cycle with backtracking.

    Returns (A, slot, steps, ok). Each visited record tries its unused edges
    in uniformly random order, one per step, drawn lazily (Fisher-Yates: the
    ``ptr[x]`` edges tried so far form the prefix of ``ay[x]``, the next one is
    uniform among the rest), which is the same order distribution as a full
    shuffle on arrival without its O(k) cost. An edge whose slot is held by a
    record of the search (``ystamp[y] == walk``) is rejected; when ``x`` runs
    out of edges the search backtracks. With ``unmark`` false (WMC as used
    here) a record left by backtracking stays blocked for the rest of the
    search; with ``unmark`` true it is freed (pure backtracking, exponential).
    """
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed)
    n = ay.shape[0]
    A = np.arange(n).astype(ay.dtype)
    inv = np.arange(n).astype(ay.dtype)
    in_l = np.ones(n, dtype=np.bool_)
    slot = np.full(n, -1, dtype=np.int64)
    stamp = np.zeros(n, dtype=ay.dtype)
    ystamp = np.zeros(n, dtype=ay.dtype)
    ptr = np.zeros(n, dtype=ay.dtype)
    path_x = np.empty(n + 1, dtype=ay.dtype)
    path_j = np.empty(n + 1, dtype=ay.dtype)
    steps = 0
    walk = 0
    for s in starts:
        if not in_l[s]:
            continue
        walk += 1
        target = A[s]
        stamp[s] = walk
        ystamp[target] = walk
        ptr[s] = 0
        path_x[0] = s
        plen = 1
        closed = False
        while not closed:
            x = path_x[plen - 1]
            advanced = False
            c = cnt[x]
            while ptr[x] < c:
                p = ptr[x]
                j = p + _rng_below(state, c - p)
                if j != p:
                    y = ay[x, p]
                    ay[x, p] = ay[x, j]
                    ay[x, j] = y
                    t = at[x, p]
                    at[x, p] = at[x, j]
                    at[x, j] = t
                ptr[x] = p + 1
                steps += 1
                y = ay[x, p]
                if y == target:
                    path_j[plen - 1] = p
                    closed = True
                    break
                if ystamp[y] == walk:
                    continue
                z = inv[y]
                path_j[plen - 1] = p
                stamp[z] = walk
                ystamp[y] = walk
                ptr[z] = 0
                path_x[plen] = z
                plen += 1
                advanced = True
                break
            if closed or advanced:
                continue
            steps += 1  # dead end: backtrack
            if unmark:
                stamp[x] = 0  # x may be reached again along another branch
                ystamp[A[x]] = 0
            plen -= 1
            if plen == 0:
                return A, slot, steps, False
        for q in range(plen):
            xq = path_x[q]
            p = path_j[q]
            y = ay[xq, p]
            A[xq] = y
            inv[y] = xq
            slot[xq] = at[xq, p]
            in_l[xq] = False
    return A, slot, steps, True


@numba.njit(cache=True)
def _greedy_pick(
    x, rank, order, P, lab, ml, mlc, inv, stamp, walk, target, ehead_stamp, ehead, enext, ey, window, lookahead
):
    n = order.shape[0]
    i = rank[x]
    last = -1
    dlast = 0
    found = -1
    found_h = 1 << 30
    dfound = 0
    half = min(n // 2 + 1, 4 * window + 64)
    for d in range(half + 1):
        best = -1
        best_unv = False
        best_h = 1 << 30
        for side in range(2):
            if d == 0 and side == 1:
                continue
            if side == 0:
                p = (i + d) % n
            else:
                p = (i - d) % n
                if p == (i + d) % n:
                    continue
            y = order[p]
            bad = False
            for c in range(mlc[x]):
                if ml[x, c] == lab[y]:
                    bad = True
                    break
            if bad:
                continue
            if ehead_stamp[x] == walk:
                e = ehead[x]
                while e >= 0:
                    if ey[e] == y:
                        bad = True
                        break
                    e = enext[e]
            if bad:
                continue
            unv = y == target or stamp[inv[y]] != walk
            h = _hamming(P, x, y)
            if best < 0 or (unv and not best_unv) or (unv == best_unv and h < best_h):
                best = y
                best_unv = unv
                best_h = h
        if best >= 0:
            if best_unv:
                if found < 0 or best_h < found_h:
                    if found < 0:
                        dfound = d
                    found = best
                    found_h = best_h
                if d - dfound >= lookahead:
                    return found
                continue
            if last < 0:
                last = best
                dlast = d
        if found >= 0 and d - dfound >= lookahead:
            return found
        if found < 0 and last >= 0 and d - dlast > window:
            break
    if found >= 0:
        return found
    return last


@numba.njit(cache=True)
def _random_pick(x, n, lab, ml, mlc, inv, stamp, walk, target):
    # fallback when every eligible edge of x was walked already: any label-eligible record
    first = -1
    for _ in range(256):
        y = np.random.randint(n)
        bad = False
        for c in range(mlc[x]):
            if ml[x, c] == lab[y]:
                bad = True
                break
        if bad:
            continue
        if y == target or stamp[inv[y]] != walk:
            return y
        if first < 0:
            first = y
    if first >= 0:
        return first
    for y in range(n):
        bad = False
        for c in range(mlc[x]):
            if ml[x, c] == lab[y]:
                bad = True
                break
        if not bad:
            return y
    return -1


@numba.njit(cache=True)
def _greedy_round(order, rank, P, lab, ml, mlc, starts, seed, window, greedy, max_steps, lookahead):
    """One round of greedy (or label-aware random) closed-walk extraction on the complete graph."""
    np.random.seed(seed)
    n = order.shape[0]
    A = np.arange(n)
    inv = np.arange(n)
    in_l = np.ones(n, dtype=np.bool_)
    stamp = np.zeros(n, dtype=np.int64)
    onpath = np.full(n, -1, dtype=np.int64)
    path_x = np.empty(n + 1, dtype=np.int64)
    path_y = np.empty(n + 1, dtype=np.int64)
    ehead_stamp = np.zeros(n, dtype=np.int64)
    ehead = np.full(n, -1, dtype=np.int64)
    enext = np.empty(max_steps + 1, dtype=np.int64)
    ey = np.empty(max_steps + 1, dtype=np.int64)
    walk = 0
    steps = 0
    for s in starts:
        if not in_l[s]:
            continue
        walk += 1
        target = A[s]
        stamp[s] = walk
        onpath[s] = 0
        path_x[0] = s
        plen = 1
        x = s
        wsteps = 0
        while True:
            if greedy:
                y = _greedy_pick(
                    x, rank, order, P, lab, ml, mlc, inv, stamp, walk, target, ehead_stamp, ehead, enext, ey, window,
                    lookahead,
                )
            else:
                y = -1
            if y < 0 and not greedy:
                y = _random_pick(x, n, lab, ml, mlc, inv, stamp, walk, target)
            if y < 0 or wsteps >= max_steps or (greedy and steps >= 300 * n):
                return A, False, steps
            if ehead_stamp[x] != walk:
                ehead_stamp[x] = walk
                ehead[x] = -1
            ey[wsteps] = y
            enext[wsteps] = ehead[x]
            ehead[x] = wsteps
            wsteps += 1
            steps += 1
            path_y[plen - 1] = y
            if y == target:
                break
            z = inv[y]
            if stamp[z] == walk and onpath[z] >= 0:
                p = onpath[z]
                for q in range(p + 1, plen):
                    onpath[path_x[q]] = -1
                plen = p + 1
            else:
                stamp[z] = walk
                onpath[z] = plen
                path_x[plen] = z
                plen += 1
            x = z
        for q in range(plen):
            xq = path_x[q]
            y = path_y[q]
            A[xq] = y
            inv[y] = xq
            in_l[xq] = False
            onpath[xq] = -1
    return A, True, steps


@numba.njit(cache=True)
def _window_arcs(order, rank, lab, window):
    """Candidate arcs ``x -> y`` of the l-diverse flow: ``y`` within ``window``
    positions of ``x`` in the cyclic order (all records when ``2 window + 1 >= n``)
    with ``lab[y] != lab[x]`` (so ``y != x``)."""
    n = order.shape[0]
    width = min(2 * window + 1, n)
    left = np.empty(n * width, dtype=np.int64)
    right = np.empty(n * width, dtype=np.int64)
    m = 0
    for x in range(n):
        i = rank[x]
        for d in range(width):
            y = order[(i - window + d) % n] if width < n else d
            if lab[y] == lab[x]:
                continue
            left[m] = x
            right[m] = y
            m += 1
    return left[:m], right[:m]


@numba.njit(cache=True)
def _cross_costs(P, Q, left, right, lens, scale):
    """``round(scale H(P[left[i]], Q[right[i]]) / lens[left[i]])`` per arc."""
    cost = np.empty(left.shape[0], dtype=np.int64)
    for i in range(left.shape[0]):
        x = left[i]
        y = right[i]
        h = 0
        for w in range(P.shape[1]):
            h += _popcount64(P[x, w] ^ Q[y, w])
        cost[i] = (scale * h + lens[x] // 2) // lens[x]
    return cost


@numba.njit(cache=True)
def _vote_packed(P, pre_ptr, pre_idx):
    """Packed base bitmaps by bit voting: published record ``v``'s bit is 1 when
    more than half of its preimages ``pre_idx[pre_ptr[v]:pre_ptr[v + 1]]`` have it
    (a tie gives 0, as in :func:`graphanon.release.nonreciprocal.bit_vote`)."""
    n = pre_ptr.shape[0] - 1
    W = P.shape[1]
    counts = np.zeros(W * 64, dtype=np.int64)
    B = np.zeros((n, W), dtype=np.uint64)
    for v in range(n):
        counts[:] = 0
        size = pre_ptr[v + 1] - pre_ptr[v]
        for e in range(pre_ptr[v], pre_ptr[v + 1]):
            x = pre_idx[e]
            for w in range(W):
                word = P[x, w]
                while word:
                    low = word & (~word + np.uint64(1))
                    counts[w * 64 + int(_popcount64(low - np.uint64(1)))] += 1
                    word ^= low
        for w in range(W):
            word = np.uint64(0)
            for b in range(64):
                if 2 * counts[w * 64 + b] > size:
                    word |= np.uint64(1) << np.uint64(b)
            B[v, w] = word
    return B


# ---------------------------------------------------------------------- helpers
def _as_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def pack_rows(X) -> np.ndarray:
    """Rows of a boolean sparse/dense matrix packed into ``uint64`` words, shape (n, ceil(d/64))."""
    import scipy.sparse as sp

    if sp.issparse(X):
        X = sp.csr_array(X)
        n, d = X.shape
        W = max(1, (d + 63) // 64)
        out = np.zeros((n, W), dtype=np.uint64)
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        cols = X.indices.astype(np.int64)
        np.bitwise_or.at(out, (rows, cols >> 6), np.left_shift(np.uint64(1), (cols & 63).astype(np.uint64)))
        return out
    X = np.asarray(X, dtype=bool)
    n, d = X.shape
    W = max(1, (d + 63) // 64)
    pad = np.zeros((n, W * 64), dtype=bool)
    pad[:, :d] = X
    bits = np.packbits(pad.reshape(n, W, 64), axis=2, bitorder="little")
    return bits.view(np.uint64).reshape(n, W)


def _edge_lists(succ: np.ndarray, relabel: bool):
    """Unused-edge lists ``(ay, at, cnt)`` of a fresh extraction and the record order they use.

    With ``relabel``, record ``order[i]`` becomes record ``i`` (breadth-first
    order, see :func:`_bfs_order`) so that walks touch nearby memory; the
    kernels' results are mapped back by the caller. Indices are int32 when
    they fit (halving the memory the kernels touch).
    """
    n, k = succ.shape
    it = np.int32 if n < 2**31 - 1 else np.int64
    if relabel:
        order = _bfs_order(succ)
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        ay = rank[succ[order]].astype(it)
    else:
        order = np.arange(n, dtype=np.int64)
        ay = succ.astype(it)
    # a copy, not ascontiguousarray: for n == 1 the broadcast view already counts as
    # contiguous and would stay read-only, which the kernels cannot write
    at = np.broadcast_to(np.arange(k, dtype=it), (n, k)).copy()
    cnt = np.full(n, k, dtype=it)
    return ay, at, cnt, order


# Uniform proposals the closed walk makes before it scans all edges of a record
# (any value gives the same distribution; 2 was fastest on chess rings, k = 4..20).
_CW_PROPOSALS = 2


class ExtractionStats(dict):
    """Per-round counters of an extraction (``steps``: for the closed walk the
    edges walked, for backtracking the edges tried plus the backtracks)."""


def check_assignments(graph: GeneralizationGraph, assignments) -> None:
    """Raise ``InfeasibleError`` unless ``assignments`` are ``graph.k`` disjoint perfect
    matchings inside ``graph`` that together use every edge exactly once."""
    a = np.asarray(assignments, dtype=np.int64)
    n, k = graph.n, graph.k
    if a.shape != (k, n):
        raise InfeasibleError(f"expected {k} assignments of {n} records, got shape {a.shape}")
    for r in range(k):
        if not np.array_equal(np.sort(a[r]), np.arange(n)):
            raise InfeasibleError(f"assignment {r} is not a permutation (not a perfect matching)")
        if not graph.contains_assignment(a[r]):
            bad = int(np.flatnonzero(~(graph.successors == a[r][:, None]).any(axis=1))[0])
            raise InfeasibleError(f"assignment {r} uses edge {bad} -> {int(a[r][bad])}, which is not in the graph")
    for i in range(n):
        if len(set(a[:, i].tolist())) != k:
            raise InfeasibleError(f"record {i} is matched to the same published record twice: {a[:, i].tolist()}")


def extract_assignments(
    graph: GeneralizationGraph,
    *,
    method: str = "closed-walk",
    rng=None,
    stats: dict | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> np.ndarray:
    """Extract ``k`` disjoint assignments from a k-regular generalization graph.

    Parameters
    ----------
    graph : GeneralizationGraph
        A k-regular graph (``graph.is_k_regular()``).
    method : {"closed-walk", "backtracking"}
        ``closed-walk``: the randomized closed walk of Xue et al. (revisits
        allowed, deviant cycles dropped; next hop uniform among the unused,
        not yet walked edges whose record is not yet visited by the walk,
        else uniform among the other unused, not yet walked edges).
        ``backtracking``: the WMC baseline of Wong et al. (depth-first search
        for a simple cycle trying edges in random order; a vertex left by
        backtracking stays blocked for the rest of that search, which keeps
        each search linear in the edges).
    rng : numpy Generator or int seed, optional
        Source of randomness.
    stats : dict, optional
        Filled with ``steps`` (list, per round) for benchmarking: edges walked
        (closed walk), or edges tried plus backtracks (backtracking).
    progress : callable(done, total, message), optional

    Returns
    -------
    ndarray of int64, shape (k, n)
        ``out[r, i]`` is the published record of ``i`` in assignment ``r``.
        The k rows are disjoint perfect matchings whose union is the graph.

    Raises
    ------
    ParameterError
        If the graph is not k-regular or ``method`` is unknown.

    Notes
    -----
    Both methods share the same machinery: records relabelled in
    breadth-first order (memory locality), per-record lists of the edges not
    used by earlier rounds (swap-removal after each round), one splitmix64
    draw per random choice, and a per-walk stamp on published records whose
    holder is visited (one load to test "visited"). The closed walk draws up
    to two uniform proposals and accepts one only if it is a preferred next
    hop, else scans the record's unused edges once (the result is uniform
    among preferred edges either way); backtracking draws its random edge
    order lazily (Fisher-Yates, one draw per tried edge).

    Complexity
    ----------
    Let ``c <= k`` be the number of unused edges of the current record.
    Closed walk: a step costs O(1) when a proposal is accepted and O(c) when
    the record's unused edges are scanned (every preferred next hop is then
    visited or rare); backtracking: O(1) per tried edge and per backtrack.
    A walk or search makes O(n k) steps; a round O(n^2 k) in the worst case
    (the bound Xue et al. quote for WMC), near-linear in practice on ring
    graphs. Bookkeeping is O(n k) per round, O(n k^2) overall; memory
    O(n k).

    Examples
    --------
    >>> from graphanon.graphs.generalization import ring_graph
    >>> g = ring_graph(range(6), 3)
    >>> A = extract_assignments(g, rng=0)
    >>> A.shape, sorted(A[0].tolist())
    ((3, 6), [0, 1, 2, 3, 4, 5])

    References
    ----------
    Xue et al., KDD 2012, Sec. 4.2, Algorithm 1. Wong et al., SIGMOD 2010.
    """
    if method not in ("closed-walk", "backtracking"):
        raise ParameterError(f"method must be 'closed-walk' or 'backtracking', got {method!r}")
    if not graph.is_k_regular():
        raise ParameterError(
            "assignment extraction needs a k-regular generalization graph (every record with k out- and k in-edges)"
        )
    rng = _as_rng(rng)
    n, k = graph.n, graph.k
    ay, at, cnt, order = _edge_lists(np.ascontiguousarray(graph.successors), relabel=True)
    out = np.empty((k, n), dtype=np.int64)
    steps = []
    empty_trace = np.zeros((0, 4), dtype=np.int64)
    for r in range(k):
        starts = rng.permutation(n).astype(ay.dtype)
        seed = rng.integers(2**64, dtype=np.uint64)
        if method == "closed-walk":
            A, slot, st, ok, _ = _closed_walk_round(ay, at, cnt, starts, seed, _CW_PROPOSALS, empty_trace)
        else:
            A, slot, st, ok = _backtracking_round(ay, at, cnt, starts, seed, False)
        if not ok:
            raise InfeasibleError(
                f"assignment extraction got stuck in round {r + 1}; the graph is not the union of {k} "
                "disjoint perfect matchings"
            )
        _drop_used_edges(ay, at, cnt, slot)
        out[r, order] = order[A]
        steps.append(int(st))
        if progress is not None:
            progress(r + 1, k, f"assignment {r + 1}/{k} ({method})")
    if stats is not None:
        stats["steps"] = steps
    return out


def closed_walk_trace(graph: GeneralizationGraph, *, rng=None, max_events: int = 10_000):
    """The first round of a closed-walk extraction, step by step (for drawing).

    Parameters
    ----------
    graph : GeneralizationGraph
        A k-regular graph.
    rng : numpy Generator or int seed, optional
        Source of randomness.
    max_events : int
        At most this many events are recorded (the round still completes).

    Returns
    -------
    assignment : ndarray
        The assignment the round produced.
    events : list of tuple
        ``("step", walk, x, y)`` when record ``x`` takes the edge to
        published record ``y``; ``("drop", walk, x)`` when a deviant cycle
        closing at ``x`` is dropped; ``("close", walk, start, length)`` when a
        cycle of ``length`` matchings is committed.

    Complexity
    ----------
    That of one round of :func:`extract_assignments` (records are not
    relabelled here, so the events use the graph's own record indices).
    """
    rng = _as_rng(rng)
    if not graph.is_k_regular():
        raise ParameterError("closed_walk_trace needs a k-regular generalization graph")
    n = graph.n
    ay, at, cnt, _ = _edge_lists(np.ascontiguousarray(graph.successors), relabel=False)
    trace = np.zeros((max_events, 4), dtype=np.int64)
    starts = rng.permutation(n).astype(ay.dtype)
    seed = rng.integers(2**64, dtype=np.uint64)
    A, _slot, _st, ok, tl = _closed_walk_round(ay, at, cnt, starts, seed, _CW_PROPOSALS, trace)
    if not ok:
        raise InfeasibleError("closed walk got stuck (graph is not k-regular)")
    names = {0: "step", 1: "drop", 2: "close"}
    events = []
    for w, x, y, e in trace[:tl].tolist():
        if e == 1:
            events.append((names[e], w, x))
        else:
            events.append((names[e], w, x, y))
    return A.astype(np.int64), events


def _label_codes(labels) -> np.ndarray:
    index: dict = {}
    return np.array([index.setdefault(v, len(index)) for v in labels], dtype=np.int64)


def check_diversity_feasible(labels, l: int) -> None:  # noqa: E741
    """Raise ``ParameterError`` when ``labels`` cannot support l-diversity: fewer than
    ``l`` distinct labels, or a label on more than ``n / l`` records."""
    from collections import Counter

    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ParameterError(f"l must be a whole number >= 1, got {l!r}")
    if labels is None:
        raise ParameterError("l-diversity needs sensitive labels: the data has none (give labels=...)")
    n = len(labels)
    counts = Counter(labels)
    if len(counts) < l:
        raise ParameterError(
            f"l={l} needs at least {l} distinct sensitive labels, the data has {len(counts)}: {sorted(map(str, counts))}"
        )
    label, top = counts.most_common(1)[0]
    if top * l > n:
        raise ParameterError(
            f"l={l} is infeasible: label {label!r} is on {top} of {n} records, more than n/l = {n / l:.1f}; "
            f"lower l to at most {n // top}"
        )



_COST_SCALE = 1024  # flow arc cost = round(_COST_SCALE * H(u, v) / |u|): ER's per-record weight, in integers


def _certificate_arcs(lab, l: int):  # noqa: E741
    """``l - 1`` arcs per record that form, with the identity, a feasible l-diverse graph.

    Records sorted by label (contiguous label groups) sit at positions
    ``0..n-1``; the record at position ``p`` gets the records at positions
    ``p + j s (mod n)``, ``j = 1..l-1``, with ``s = floor(n / l)``. Every label
    group has at most ``s`` records (``check_diversity_feasible``: at most
    ``n / l``), and two of these positions are at least ``s`` apart both ways
    round the cycle, so they fall in different label groups; every position is
    reached from exactly ``l - 1`` others. The circulant is the proof that the
    flow problem is feasible whatever the order window holds.
    """
    n = lab.shape[0]
    grouped = np.argsort(lab, kind="stable")
    s = n // l
    pos = np.arange(n)
    left = np.tile(grouped, l - 1)
    right = grouped[(pos[None, :] + s * np.arange(1, l)[:, None]) % n].ravel()
    return left.astype(np.int64), right.astype(np.int64)


def _solve_diverse_flow(left, right, cost, lab, l: int):  # noqa: E741
    """Min-cost flow over the candidate arcs; returns the successor matrix ``(n, l - 1)``."""
    from ortools.graph.python import min_cost_flow

    n = lab.shape[0]
    n_labels = int(lab.max()) + 1
    rl, rl_arc = np.unique(left * n_labels + lab[right], return_inverse=True)
    n_rl = rl.shape[0]
    # OR-Tools takes int32 node and arc ids and int64 costs; costs are at most 2048 d (d items), so
    # the cost scaling's cost * (nodes + 1) stays far inside int64 for any d below 10^6
    if 2 * n + n_rl >= 2**31 or n_rl + left.shape[0] >= 2**31:
        raise ParameterError(
            f"the l-diverse flow needs {2 * n + n_rl} nodes and {n_rl + left.shape[0]} arcs, more than OR-Tools' "
            "int32 ids; lower window"
        )
    # nodes: records 0..n-1, published n..2n-1, (record, label) 2n..2n+n_rl-1
    tails = np.concatenate([rl // n_labels, 2 * n + rl_arc]).astype(np.int32)
    heads = np.concatenate([2 * n + np.arange(n_rl), n + right]).astype(np.int32)
    caps = np.ones(tails.shape[0], dtype=np.int64)
    costs = np.concatenate([np.zeros(n_rl, dtype=np.int64), cost])
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, costs)
    supply = np.concatenate([np.full(n, l - 1), np.full(n, -(l - 1))]).astype(np.int64)
    flow.set_nodes_supplies(np.arange(2 * n, dtype=np.int32), supply)
    status = flow.solve()
    if status != flow.OPTIMAL:
        # the certificate arcs make the problem feasible; anything else is a solver failure
        raise InfeasibleError(f"min-cost flow for the l-diverse graph ended with status {status!r}")
    used = flow.flows(np.arange(n_rl, n_rl + left.shape[0], dtype=np.int32)) > 0
    u, v = left[used], right[used]
    if u.shape[0] != n * (l - 1) or not np.array_equal(np.bincount(u, minlength=n), np.full(n, l - 1)):
        raise InfeasibleError("min-cost flow returned an irregular l-diverse graph")
    return v[np.argsort(u, kind="stable")].reshape(n, l - 1), used


def _expected_error(P, succ, lens):
    """Mean of ``H(x, base of v) / lens[x]`` over the edges ``x -> v`` of ``succ``: the
    error rate of a release averaged over the assignments that partition the graph."""
    n, k = succ.shape
    flat = succ.ravel()
    pre_idx = np.argsort(flat, kind="stable") // k
    pre_ptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=n))]).astype(np.int64)
    B = _vote_packed(P, pre_ptr, pre_idx.astype(np.int64))
    h = _cross_costs(P, B, np.repeat(np.arange(n), k), succ.ravel(), np.ones(n, dtype=np.int64), 1)
    return float(np.mean(h.reshape(n, k) / lens[:, None])), B


def _diverse_flow(P, lab, lens, l: int, order, rank, window: int, refine: int, stats):  # noqa: E741
    """Successor matrix ``(n, l - 1)``: the min-cost l-diverse edges besides the identity.

    A min-cost flow on ``record u -> (u, label c) -> published v``: each record
    sends ``l - 1`` units, each (record, label) node passes at most one (so a
    record's published records carry distinct labels, none its own), each
    published record absorbs ``l - 1``. Candidate arcs are the label-eligible
    pairs within ``window`` positions in ``order`` plus the certificate arcs
    of :func:`_certificate_arcs`, so a feasible flow always exists. The first
    solve costs ``u -> v`` by ``H(u, v) / |u|``; each of the ``refine``
    further solves by ``H(u, base of v) / |u|`` with the bases voted on the
    previous graph. The graph of least expected error rate is returned.
    """
    n = lab.shape[0]
    wl, wr = _window_arcs(order, rank, lab, window)
    cl, cr = _certificate_arcs(lab, l)
    key = np.concatenate([wl, cl]) * n + np.concatenate([wr, cr])
    key, first = np.unique(key, return_index=True)
    left, right = key // n, key % n
    in_window = first < wl.shape[0]
    identity = np.arange(n, dtype=np.int64)[:, None]
    Q = P
    best = None
    errors = []
    for it in range(refine + 1):
        cost = _cross_costs(P, Q, left, right, lens, _COST_SCALE)
        succ, used = _solve_diverse_flow(left, right, cost, lab, l)
        err, Q = _expected_error(P, np.hstack([identity, succ]), lens)
        errors.append(err)
        if best is None or err < best[0]:
            best = (err, it, succ, used)
    err, it, succ, used = best
    if stats is not None:
        ones = np.ones(n, dtype=np.int64)
        stats["candidate_arcs"] = int(left.shape[0])
        stats["certificate_edges"] = int((used & ~in_window).sum())
        stats["mean_hamming"] = float(np.mean(_cross_costs(P, P, np.repeat(identity[:, 0], l - 1), succ.ravel(), ones, 1)))
        stats["expected_error_rate"] = errors
        stats["chosen_solve"] = it
    return succ


def _greedy_walk_rounds(P, lab, l, order, rank, rng, window, lookahead, progress, stats):  # noqa: E741
    """The paper's rounds: greedy closed walks (``greedyPick``), label-aware random fallback."""
    n = lab.shape[0]
    ml = np.full((n, l), -1, dtype=np.int64)
    mlc = np.zeros(n, dtype=np.int64)
    out = np.empty((l, n), dtype=np.int64)
    max_steps = 20 * n + 1000
    fallback_rounds = []
    for r in range(l):
        starts = rng.permutation(n).astype(np.int64)
        seed = int(rng.integers(2**31 - 1))
        A, ok, _ = _greedy_round(order, rank, P, lab, ml, mlc, starts, seed, window, True, max_steps, lookahead)
        attempt = 0
        while not ok and attempt < 4:
            # label-aware random closed walks (no greedy scan), generous step budget
            attempt += 1
            starts = rng.permutation(n).astype(np.int64)
            seed = int(rng.integers(2**31 - 1))
            A, ok, _ = _greedy_round(order, rank, P, lab, ml, mlc, starts, seed, window, False, 20 * n + 1000, 0)
        if not ok:
            raise InfeasibleError(
                f"greedy l-diverse extraction could not complete round {r + 1} of {l}: its walks did not close "
                "(earlier rounds may have left no label-eligible perfect matching); method='flow' always "
                "completes for a feasible l"
            )
        if attempt:
            fallback_rounds.append(r)
        out[r] = A
        ml[np.arange(n), mlc] = lab[A]
        mlc += 1
        if progress is not None:
            progress(r + 1, l, f"greedy assignment {r + 1}/{l}")
    if stats is not None:
        stats["fallback_rounds"] = fallback_rounds
    return out


def _check_diverse_rounds(out, lab, l: int) -> None:  # noqa: E741
    """Raise ``InfeasibleError`` unless ``out`` holds ``l`` permutations giving every
    record ``l`` distinct labels (hence ``l`` distinct published records)."""
    n = lab.shape[0]
    if out.shape != (l, n) or not (np.sort(out, axis=1) == np.arange(n)).all():
        raise InfeasibleError("l-diverse assignments are not perfect matchings")
    labs = np.sort(lab[out], axis=0)
    if l > 1 and (labs[1:] == labs[:-1]).any():
        bad = int(np.flatnonzero((labs[1:] == labs[:-1]).any(axis=0))[0])
        raise InfeasibleError(f"record {bad} has two matches with the same label: {out[:, bad].tolist()}")


def greedy_diverse_assignments(
    X,
    labels,
    l: int,  # noqa: E741
    order,
    *,
    rng=None,
    method: str = "flow",
    window: int | None = None,
    refine: int = 2,
    lookahead: int = 0,
    stats: dict | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> np.ndarray:
    """Build ``l`` disjoint assignments whose union makes every record l-diverse.

    An assignment is a perfect matching of records to published records
    (published record ``v`` carries record ``v``'s label). The result holds
    ``l`` of them such that every record's ``l`` published records carry
    ``l`` distinct labels -- hence are ``l`` distinct published records, so
    the assignments are disjoint and their union is an l-regular
    generalization graph. The first assignment is the identity (each record's
    own published record is one of its matches). Two methods:

    * ``method="flow"`` (default): the union graph is built at once as a
      minimum-cost l-diverse graph by a min-cost flow (OR-Tools
      ``SimpleMinCostFlow``) on ``record u -> (u, label c) -> published v``:
      every record gets ``l - 1`` published records besides itself, at most
      one per label and none of its own label; every published record gets
      ``l - 1`` preimages besides its own record. The cost of ``u -> v`` is
      ``H(u, v) / |u|`` (ER's per-record term with ``v``'s own bitmap
      standing in for its vote; scaled by 1024 and rounded to integers);
      then ``refine`` more solves cost ``u -> v`` by ``H(u, b_v) / |u|``
      with ``b_v`` the bit vote of ``v``'s preimages in the previous graph,
      and the graph of least expected ER (the mean of ``H(u, b_v) / |u|``
      over its edges, i.e. ER averaged over the assignments) is kept.
      Candidate pairs are the label-eligible records within ``window``
      positions in ``order``, plus ``l - 1`` *certificate* pairs per record
      that by themselves form a feasible solution (records sorted by label,
      each joined to the records ``j floor(n/l)`` positions on,
      ``j = 1..l-1``), so the flow always has a solution. The ``l - 1``
      non-identity assignments are then separated by the random closed walk
      (:func:`extract_assignments`; the graph is (l-1)-regular).

    * ``method="greedy-walk"`` (the paper, Algorithm 2, ``greedyPick``):
      ``l`` rounds of greedy closed walks on the complete generalization
      graph; the next hop of record ``u`` is the record nearest to ``u`` in
      ``order`` (alternating after/before, the lower Hamming distance first)
      whose label is not yet among ``u``'s matches and whose edge was not
      walked yet, preferring records not yet visited by the current walk.

    Parameters
    ----------
    X : sparse or dense boolean matrix, shape (n, d)
        Record bitmaps (for Hamming distances).
    labels : sequence, length n
        Sensitive label of each record.
    l : int
        Diversity level; feasibility is checked up front
        (:func:`check_diversity_feasible`).
    order : permutation of ``0..n-1``
        Cyclic record order (the Gray-TSP order in the paper).
    rng : Generator or seed, optional
        Randomness of the walks (both methods).
    method : {"flow", "greedy-walk"}
        How the l-diverse graph is built (see above).
    window : int, optional
        ``flow`` (default 128): half-width of the order window of candidate
        pairs (the whole data when ``2 window + 1 >= n``); wider windows
        lower ER and cost time (docs/performance_nonreciprocal.md).
        ``greedy-walk`` (default 64): once a visited (last-resort) candidate
        is found, keep scanning at most this many further positions for an
        unvisited one (the paper scans the whole order; the bound keeps each
        pick O(window)).
    refine : int
        ``flow`` only: number of re-solves with costs to the previous
        graph's voted bases (0: Hamming to the published record's own
        bitmap only).
    lookahead : int
        ``greedy-walk`` only. 0 (the paper): return the first eligible
        unvisited record found scanning outward. ``h > 0``: keep scanning
        ``h`` more positions and return the eligible unvisited record of
        least Hamming distance.
    stats : dict, optional
        ``flow``: filled with ``candidate_arcs``, ``certificate_edges``
        (chosen edges outside the window), ``mean_hamming`` (of the chosen
        non-identity edges), ``expected_error_rate`` (per solve) and
        ``chosen_solve``. ``greedy-walk``: ``fallback_rounds``.
    progress : callable(done, total, message), optional

    Returns
    -------
    ndarray of int64, shape (l, n)
        Disjoint assignments, row 0 the identity; row ``r`` column ``i`` is
        the published record of ``i`` in assignment ``r``. For every ``i``
        the labels of ``out[:, i]`` are distinct (checked before returning).

    Raises
    ------
    ParameterError
        For an infeasible ``l`` (fewer than ``l`` labels, or a label on more
        than ``n / l`` records) or an unknown ``method``.
    InfeasibleError
        ``greedy-walk``: if a round cannot be completed (earlier rounds can
        leave no label-eligible perfect matching even when ``l`` is
        feasible). ``flow``: only on a solver failure.

    Notes
    -----
    Why not round by round. Building one assignment per round (the paper's
    walk, or a min-cost perfect matching per round) can paint itself into a
    corner: with labels ``a a a b b b c d e`` and l = 3, a second round
    matching the ``a`` records to ``b`` records and vice versa is valid and
    cheapest when those records are alike, but leaves six records needing
    labels ``c``, ``d`` or ``e`` in the third round, which only three
    published records carry. The flow decides all ``l - 1`` matches of every
    record jointly, and the certificate arcs guarantee a solution whenever
    ``check_diversity_feasible`` passes.

    ``greedy-walk``: the label constraint also breaks the regularity that
    guarantees a closed walk closes (Theorem 4.1): in late rounds a walk may
    wander without reaching its start's slot. A greedy walk longer than
    ``20 n + 1000`` steps (or a round longer than ``300 n`` steps, or a pick
    that finds no eligible record within ``4 window + 64`` positions)
    abandons the greedy walk for that round, which is redone by label-aware
    *random* closed walks (uniform eligible next hops, same preference for
    unvisited records). Those rounds cost utility;
    ``stats["fallback_rounds"]`` lists them.

    Complexity
    ----------
    ``flow``: per solve, O(n (window + l) w) for the arc costs (``w``
    64-bit words per bitmap) and OR-Tools' cost-scaling min-cost flow on
    O(n (window + l)) arcs, O(n^2 (window + l) log(n C)) in the worst case
    and seconds in practice (docs/performance_nonreciprocal.md); O(n l d)
    for each vote; then the closed-walk separation, O(n l) steps in
    practice. ``greedy-walk``: O(n (window + w)) per round
    in practice.

    References
    ----------
    Xue et al., KDD 2012, Sec. 4.4, Algorithm 2 (greedyPick). Ahuja,
    Magnanti, Orlin, *Network Flows*, 1993, Ch. 9-10 (min-cost flow; a
    degree-constrained subgraph as a flow).
    """
    if method not in ("flow", "greedy-walk"):
        raise ParameterError(f"method must be 'flow' or 'greedy-walk', got {method!r}")
    n = len(labels) if labels is not None else 0
    check_diversity_feasible(labels, l)
    order = check_order(order, n)
    if window is None:
        window = 128 if method == "flow" else 64
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ParameterError(f"window must be a whole number >= 1, got {window!r}")
    if isinstance(refine, bool) or not isinstance(refine, (int, np.integer)) or refine < 0:
        raise ParameterError(f"refine must be a whole number >= 0, got {refine!r}")
    rng = _as_rng(rng)
    P = pack_rows(X)
    if P.shape[0] != n:
        raise ParameterError(f"X has {P.shape[0]} rows but {n} labels were given")
    lab = _label_codes(labels)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    if method == "greedy-walk":
        out = _greedy_walk_rounds(P, lab, l, order, rank, rng, window, lookahead, progress, stats)
    else:
        out = np.empty((l, n), dtype=np.int64)
        out[0] = np.arange(n)
        if l > 1:
            if progress is not None:
                progress(0, 2, "l-diverse graph (min-cost flow)")
            lens = np.maximum(np.bitwise_count(P).sum(axis=1), 1).astype(np.int64)
            succ = _diverse_flow(P, lab, lens, l, order, rank, int(window), int(refine), stats)
            if progress is not None:
                progress(1, 2, "separating the l-diverse graph into assignments")
            out[1:] = extract_assignments(GeneralizationGraph(succ), rng=rng)
        elif stats is not None:
            stats.update(candidate_arcs=0, certificate_edges=0, mean_hamming=0.0, expected_error_rate=[0.0],
                         chosen_solve=0)
        if progress is not None:
            progress(2, 2, "l-diverse assignments")
    _check_diverse_rounds(out, lab, l)
    return out
