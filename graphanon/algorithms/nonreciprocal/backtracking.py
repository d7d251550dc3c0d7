"""The WMC backtracking extractor of Wong et al. (the baseline).

A depth-first search for a simple cycle that backtracks at dead ends; its
random edge order is drawn lazily (Fisher-Yates), one draw per tried edge.

References
----------
Wong, Liu, Fu, Wang, Wang. Non-homogeneous generalization in privacy
preserving data publishing. SIGMOD 2010.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.algorithms.nonreciprocal._kernels import (
    commit_edges,
    open_walk,
    rng_below,
    rng_state,
    round_arrays,
)


@numba.njit(cache=True)
def backtracking_round(ay, at, cnt, starts, seed, unmark):
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
    state = rng_state(seed)
    n = ay.shape[0]
    A, inv, in_l, stamp, path_x, path_j = round_arrays(n, ay)
    slot = np.full(n, -1, dtype=np.int64)
    ystamp = np.zeros(n, dtype=ay.dtype)
    ptr = np.zeros(n, dtype=ay.dtype)
    steps = 0
    walk = 0
    for s in starts:
        if not in_l[s]:
            continue
        walk, target = open_walk(s, A, stamp, walk)
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
                j = p + rng_below(state, c - p)
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
        commit_edges(path_x, path_j, plen, ay, at, A, inv, slot, in_l)
    return A, slot, steps, True
