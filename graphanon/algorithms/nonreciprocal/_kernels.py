"""Shared numba kernels and helpers of the assignment extractors.

Random numbers of the extraction kernels (splitmix64 and Lemire's bounded
draw), the unused-edge lists kept across rounds and their breadth-first
relabelling. Used by :mod:`.closed_walk` and :mod:`.backtracking`.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)


# Random numbers of the extraction kernels: splitmix64, a 64-bit generator with a
# single word of state (kept in a 1-element uint64 array), and Lemire's unbiased
# multiply-shift for bounded integers. Both random extractors use them, one
# draw per random choice, so neither method pays more per draw than the other.
@numba.njit(cache=True, inline="always")
def rng_next(state):
    """Next output of splitmix64 (Steele, Lea, Flood, OOPSLA 2014); advances ``state[0]``."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def rng_below(state, c):
    """Uniform integer in ``[0, c)`` for ``1 <= c < 2**32``, exactly (no modulo bias).

    Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1), 2019:
    ``(u * c) >> 32`` for a 32-bit ``u``, redrawing while the low word is below ``2**32 mod c``.
    """
    cc = np.uint64(c)
    m = (rng_next(state) >> np.uint64(32)) * cc
    lo = m & np.uint64(0xFFFFFFFF)
    if lo < cc:
        th = (np.uint64(0x100000000) - cc) % cc
        while lo < th:
            m = (rng_next(state) >> np.uint64(32)) * cc
            lo = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32))


@numba.njit(cache=True)
def rng_state(seed):
    """A splitmix64 state (one word in a 1-element array) seeded with ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed)
    return state


# The arrays every extraction round keeps: the bijection ``A`` (record -> published
# record, initially the identity) and its inverse, the unprocessed records ``in_l``,
# the per-walk stamps of visited records and the walk's path (records and their
# chosen next hops), all of the index type of ``like``.
@numba.njit(cache=True)
def round_arrays(n, like):
    """``(A, inv, in_l, stamp, path_x, path_y)`` of a fresh round over ``n`` records."""
    A = np.arange(n).astype(like.dtype)
    inv = np.arange(n).astype(like.dtype)
    in_l = np.ones(n, dtype=np.bool_)
    stamp = np.zeros(n, dtype=like.dtype)
    path_x = np.empty(n + 1, dtype=like.dtype)
    path_y = np.empty(n + 1, dtype=like.dtype)
    return A, inv, in_l, stamp, path_x, path_y


@numba.njit(cache=True, inline="always")
def open_walk(s, A, stamp, walk):
    """Start the next walk at record ``s``: stamp it.

    Returns the walk's number and its target slot ``A[s]``.
    """
    walk += 1
    stamp[s] = walk
    return walk, A[s]


@numba.njit(cache=True, inline="always")
def erase_cycle(onpath, path_x, p, plen):
    """Drop the deviant cycle after path position ``p``; returns the new path length ``p + 1``."""
    for q in range(p + 1, plen):
        onpath[path_x[q]] = -1
    return p + 1


@numba.njit(cache=True, inline="always")
def push(onpath, path_x, z, plen):
    """Append record ``z`` to the walk's path; returns the new path length."""
    onpath[z] = plen
    path_x[plen] = z
    return plen + 1


@numba.njit(cache=True, inline="always")
def commit_edges(path_x, path_j, plen, ay, at, A, inv, slot, in_l):
    """Write the closed path's matchings (``x -> ay[x, j]``, edge column ``at[x, j]``) into ``A``."""
    for q in range(plen):
        xq = path_x[q]
        j = path_j[q]
        y = ay[xq, j]
        A[xq] = y
        inv[y] = xq
        slot[xq] = at[xq, j]
        in_l[xq] = False


# Unused edges of every record, kept across rounds: ``ay[x, :cnt[x]]`` are the
# published records ``x`` may still be matched to and ``at[x, :cnt[x]]`` the
# columns of those edges in ``graph.successors``. After a round the edge it
# used is swap-removed (``drop_used_edges``), so no kernel ever looks at a
# used edge again.
@numba.njit(cache=True)
def drop_used_edges(ay, at, cnt, slot):
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
def bfs_order(succ):
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


def edge_lists(succ: np.ndarray, relabel: bool):
    """Unused-edge lists ``(ay, at, cnt)`` of a fresh extraction and the record order they use.

    With ``relabel``, record ``order[i]`` becomes record ``i`` (breadth-first
    order, see :func:`bfs_order`) so that walks touch nearby memory; the
    kernels' results are mapped back by the caller. Indices are int32 when
    they fit (halving the memory the kernels touch).
    """
    n, k = succ.shape
    it = np.int32 if n < 2**31 - 1 else np.int64
    if relabel:
        order = bfs_order(succ)
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


class ExtractionStats(dict):
    """Per-round counters of an extraction (``steps``: for the closed walk the edges walked, for backtracking the edges tried plus the backtracks)."""
