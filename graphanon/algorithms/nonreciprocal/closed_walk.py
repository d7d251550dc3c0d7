"""The randomized closed-walk extractor of Xue et al. (Algorithm 1).

A walk that may revisit vertices; every revisit closes a *deviant cycle*,
which is dropped (loop erasure). See :mod:`graphanon.algorithms.nonreciprocal.extraction`
for how a round works.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 4.2 (Algorithm 1, Theorem 4.1).
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.algorithms.nonreciprocal._kernels import (
    commit_edges,
    edge_lists,
    erase_cycle,
    open_walk,
    push,
    rng_below,
    rng_state,
    round_arrays,
)
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.graphs.generalization import GeneralizationGraph
from graphanon.utils.randomness import check_random_state

# Uniform proposals the closed walk makes before it scans all edges of a record
# (any value gives the same distribution; 2 was fastest on chess rings, k = 4..20).
CW_PROPOSALS = 2


@numba.njit(cache=True, inline="always")
def _event(trace, tl, walk, x, y, kind):
    """Record event ``(walk, x, y, kind)`` in row ``tl`` of ``trace`` if it has room; returns the next row."""
    if tl < trace.shape[0]:
        trace[tl, 0] = walk
        trace[tl, 1] = x
        trace[tl, 2] = y
        trace[tl, 3] = kind
        return tl + 1
    return tl


@numba.njit(cache=True)
def closed_walk_round(ay, at, cnt, starts, seed, tries, trace):
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
    state = rng_state(seed)
    n, k = ay.shape
    W = (k + 63) >> 6
    A, inv, in_l, stamp, path_x, path_j = round_arrays(n, ay)
    slot = np.full(n, -1, dtype=np.int64)
    ystamp = np.zeros(n, dtype=ay.dtype)
    onpath = np.full(n, -1, dtype=ay.dtype)
    tmask = np.zeros((n, W), dtype=np.uint64)
    pref = np.empty(k, dtype=np.int64)
    other = np.empty(k, dtype=np.int64)
    one = np.uint64(1)
    steps = 0
    walk = 0
    tl = 0
    for s in starts:
        if not in_l[s]:
            continue
        walk, target = open_walk(s, A, stamp, walk)
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
                jj = rng_below(state, c)
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
                    j = pref[rng_below(state, npref)]
                elif nother > 0:
                    j = other[rng_below(state, nother)]
                else:
                    return A, slot, steps, False, tl
            tmask[x, j >> 6] |= one << np.uint64(j & 63)
            steps += 1
            y = ay[x, j]
            path_j[plen - 1] = j
            tl = _event(trace, tl, walk, x, y, 0)
            if y == target:
                break
            z = inv[y]
            if stamp[z] == walk:
                p = onpath[z]
                if p >= 0:  # deviant cycle z -> ... -> z: erase it
                    plen = erase_cycle(onpath, path_x, p, plen)
                    tl = _event(trace, tl, walk, z, -1, 1)
                else:  # visited earlier, dropped with a deviant cycle since
                    plen = push(onpath, path_x, z, plen)
            else:
                stamp[z] = walk
                ystamp[y] = walk
                for w in range(W):
                    tmask[z, w] = 0
                plen = push(onpath, path_x, z, plen)
            x = z
        commit_edges(path_x, path_j, plen, ay, at, A, inv, slot, in_l)
        for q in range(plen):
            onpath[path_x[q]] = -1
        tl = _event(trace, tl, walk, s, plen, 2)
    return A, slot, steps, True, tl


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

    Notes
    -----
    Complexity: that of one round of :func:`extract_assignments` (records are not
    relabelled here, so the events use the graph's own record indices).
    """
    rng = check_random_state(rng)
    if not graph.is_k_regular():
        raise ParameterError("closed_walk_trace needs a k-regular generalization graph")
    n = graph.n
    ay, at, cnt, _ = edge_lists(np.ascontiguousarray(graph.successors), relabel=False)
    trace = np.zeros((max_events, 4), dtype=np.int64)
    starts = rng.permutation(n).astype(ay.dtype)
    seed = rng.integers(2**64, dtype=np.uint64)
    A, _slot, _st, ok, tl = closed_walk_round(ay, at, cnt, starts, seed, CW_PROPOSALS, trace)
    if not ok:
        raise InfeasibleError("closed walk got stuck (graph is not k-regular)")
    names = {0: "step", 1: "drop", 2: "close"}
    events: list[tuple] = []
    for w, x, y, e in trace[:tl].tolist():
        if e == 1:
            events.append((names[e], w, x))
        else:
            events.append((names[e], w, x, y))
    return A.astype(np.int64), events
