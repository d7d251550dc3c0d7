"""The numba kernels of the hierarchy and suppression methods.

* :func:`greedy_keep`: the suppression scenarios of
  :meth:`graphanon.algorithms._hierarchy.ThreatSet.keep` (HgHs, mHgHs, AA);
* :func:`first_best`: the candidate the HgHs/mHgHs walk picks
  (:mod:`graphanon.algorithms._hierarchy_walk`);
* :func:`mm_greedy`: MM's greedy item suppression
  (:func:`graphanon.algorithms.suppression.anonymize_mm`).

Apart so that importing a method does not import numba: the function that
runs a kernel imports this module (numba compiles the kernel, or loads it
from its cache, on the first call).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["first_best", "greedy_keep", "mm_greedy"]


@njit(cache=True)
def greedy_keep(order, ptr, idx, members, sizes, n_nodes):  # pragma: no cover - compiled
    """Keep each node of ``order`` (in that order) unless it completes a threat with kept nodes.

    This is the greedy first-valid-child descent of the suppression scenario
    enumeration tree (Liu & Wang, Sec. 3.2): headlist = kept nodes. Returns
    a boolean mask over ``order``. Threats with a node outside ``order`` can
    never complete, so no cut filter is needed. O(sum of threat incidences of
    the nodes in ``order`` x threat size).
    """
    kept = np.zeros(n_nodes, dtype=np.bool_)
    out = np.zeros(len(order), dtype=np.bool_)
    for a in range(len(order)):
        x = order[a]
        ok = True
        for q in range(ptr[x], ptr[x + 1]):
            t = idx[q]
            complete = True
            for c in range(sizes[t]):
                y = members[t, c]
                if y != x and not kept[y]:
                    complete = False
                    break
            if complete:
                ok = False
                break
        if ok:
            kept[x] = True
            out[a] = True
    return out


@njit(cache=True)
def mm_greedy(members, ptr, idx, occ):  # pragma: no cover - compiled
    """Suppress argmax (live minimal moles containing e) / occ(e) until no mole lives."""
    n_items = len(ptr) - 1
    n_moles = members.shape[0]
    count = np.zeros(n_items, dtype=np.float64)
    for j in range(n_items):
        count[j] = ptr[j + 1] - ptr[j]
    alive = np.ones(n_moles, dtype=np.bool_)
    left = n_moles
    out = np.empty(n_items, dtype=np.int64)
    n_out = 0
    while left > 0:
        best = -1
        best_score = -1.0
        for j in range(n_items):
            if count[j] > 0:
                sc = count[j] / occ[j] if occ[j] > 0 else np.inf
                if sc > best_score:
                    best_score = sc
                    best = j
        out[n_out] = best
        n_out += 1
        for q in range(ptr[best], ptr[best + 1]):
            t = idx[q]
            if alive[t]:
                alive[t] = False
                left -= 1
                for c in range(members.shape[1]):
                    y = members[t, c]
                    if y >= 0:
                        count[y] -= 1
        count[best] = 0
    return out[:n_out]


@njit(cache=True)
def first_best(costs):  # pragma: no cover - compiled
    """Index of the candidate the walk picks: scanning in order, a candidate replaces the best so
    far only when it is cheaper by more than the relative tolerance ``EPS``."""
    best = 0
    for j in range(1, len(costs)):
        if costs[j] < costs[best] - 1e-9 * max(1.0, abs(costs[best])):
            best = j
    return best
