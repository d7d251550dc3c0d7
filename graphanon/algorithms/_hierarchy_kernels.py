"""The numba kernels of the hierarchy methods.

* :func:`greedy_keep`: the suppression scenarios of
  :meth:`graphanon.algorithms._hierarchy.ThreatSet.keep` (HgHs, mHgHs, AA);
* :func:`first_best`: the candidate the HgHs/mHgHs walk picks
  (:mod:`graphanon.algorithms._hierarchy_walk`).

Apart so that importing a method does not import numba: the function that
runs a kernel imports this module (numba compiles the kernel, or loads it
from its cache, on the first call).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["first_best", "greedy_keep"]


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
def first_best(costs):  # pragma: no cover - compiled
    """Index of the candidate the walk picks: scanning in order, a candidate replaces the best so
    far only when it is cheaper by more than the relative tolerance ``EPS``."""
    best = 0
    for j in range(1, len(costs)):
        if costs[j] < costs[best] - 1e-9 * max(1.0, abs(costs[best])):
            best = j
    return best
