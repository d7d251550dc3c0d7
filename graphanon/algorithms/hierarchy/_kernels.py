"""The numba kernels of the hierarchy methods.

* :func:`greedy_keep`: the suppression scenarios of
  :meth:`graphanon.algorithms.hierarchy._index.ThreatSet.keep` (HgHs, mHgHs, AA);
* :func:`first_best`: the candidate the HgHs/mHgHs walk picks and
  :func:`child_cut_deltas`: the cost changes of all its candidates
  (:mod:`graphanon.algorithms.hierarchy._walk`);
* :func:`set_supports`: the supports of node sets over vertical bitmaps (AA's
  questions, :func:`graphanon.algorithms.hierarchy._aa_counts.padded_supports`);
* :func:`incidence`: the node -> threat index of
  :class:`~graphanon.algorithms.hierarchy._index.ThreatSet`; :func:`near_enter`:
  the walk's incidence lists restricted to threats near its cut; :func:`near_relocate`
  and :func:`near_add`: the same lists when the walk mines its pair threats itself.

Apart so that importing a method does not import numba: the function that
runs a kernel imports this module (numba compiles the kernel, or loads it
from its cache, on the first call).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.counting._bitset_kernels import popcount64

__all__ = ["child_cut_deltas", "first_best", "greedy_keep", "incidence", "near_add", "near_enter", "near_relocate",
           "set_supports"]


@njit(cache=True)
def set_supports(bits, sets, sizes, tile=256):  # pragma: no cover - compiled
    """The support of each node set: the popcount of the AND of its members' bitmaps.

    ``sets[s, :sizes[s]]`` are the members of set ``s`` (rows of ``bits``).
    The words are taken ``tile`` at a time, every set per tile: the tiles of
    all rows (``nodes x tile x 8`` bytes, 2 MB for 1,000 nodes) stay in the
    cache, so the bitmaps are read from memory once however many sets name a
    row (set by set, 10^5 pairs over 10^6 records read 17 GB). No temporary
    per set. O(sum of sizes x words) operations.
    """
    out = np.zeros(sets.shape[0], dtype=np.int64)
    n_words = bits.shape[1]
    for lo in range(0, n_words, tile):
        hi = min(n_words, lo + tile)
        for s in range(sets.shape[0]):
            size = sizes[s]
            a = sets[s, 0]
            total = 0
            if size == 1:
                for w in range(lo, hi):
                    total += popcount64(bits[a, w])
            elif size == 2:
                b = sets[s, 1]
                for w in range(lo, hi):
                    total += popcount64(bits[a, w] & bits[b, w])
            else:
                for w in range(lo, hi):
                    v = bits[a, w]
                    for j in range(1, size):
                        v &= bits[sets[s, j], w]
                    total += popcount64(v)
            out[s] += total
    return out


@njit(cache=True)
def _completes(y, ry, ptr, idx, live_n, members, sizes, rank, kept):  # pragma: no cover - compiled
    """Whether ``y`` completes a threat whose other members are all kept and ranked before ``ry``."""
    for q in range(ptr[y], ptr[y] + live_n[y]):
        t = idx[q]
        complete = True
        for a in range(sizes[t]):
            z = members[t, a]
            if z != y and (rank[z] >= ry or not kept[z]):
                complete = False
                break
        if complete:
            return True
    return False


@njit(cache=True)
def greedy_keep(order, ptr, idx, live_n, members, sizes, n_nodes):  # pragma: no cover - compiled
    """Keep each node of ``order`` (in that order) unless it completes a threat with kept nodes.

    This is the greedy first-valid-child descent of the suppression scenario
    enumeration tree (Liu & Wang, Sec. 3.2): headlist = kept nodes. Returns
    a boolean mask over ``order``. Threats with a node outside ``order`` can
    never complete, so no cut filter is needed. O(sum of threat incidences of
    the nodes in ``order`` x threat size). Node ``x``'s threats are
    ``idx[ptr[x]:ptr[x] + live_n[x]]`` (see :func:`child_cut_deltas`).
    """
    kept = np.zeros(n_nodes, dtype=np.bool_)
    pos = np.zeros(n_nodes, dtype=np.int64)
    out = np.zeros(len(order), dtype=np.bool_)
    for a in range(len(order)):
        x = order[a]
        pos[x] = a
        if not _completes(x, a, ptr, idx, live_n, members, sizes, pos, kept):
            kept[x] = True
            out[a] = True
    return out


@njit(cache=True)
def first_best(costs):  # pragma: no cover - compiled
    """Index of the candidate the walk picks.

    Scanning in order, a candidate replaces the best so far only when it is cheaper by more than
    the relative tolerance ``EPS``.
    """
    best = 0
    for j in range(1, len(costs)):
        if costs[j] < costs[best] - 1e-9 * max(1.0, abs(costs[best])):
            best = j
    return best


@njit(cache=True)
def _heap_push(heap, n, v):  # pragma: no cover - compiled
    i = n
    heap[i] = v
    while i > 0:
        p = (i - 1) >> 1
        if heap[p] <= v:
            break
        heap[i] = heap[p]
        i = p
    heap[i] = v
    return n + 1


@njit(cache=True)
def _heap_pop(heap, n):  # pragma: no cover - compiled
    top = heap[0]
    n -= 1
    v = heap[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] >= v:
            break
        heap[i] = heap[c]
        i = c
    if n > 0:
        heap[i] = v
    return top, n


@njit(cache=True)
def child_cut_deltas(xs, in_cut, kept, rank, by_rank, child_ptr, child_idx, ptr, idx, live_n, members, sizes,
                     gen_cost, sup_cost):  # pragma: no cover - compiled
    """(cost change, change in suppressed nodes) of replacing each ``x`` of ``xs`` by its children.

    ``kept`` is :func:`greedy_keep`'s outcome on the current cut (True for
    the cut's kept nodes only). Node ``y``'s threats are read from
    ``idx[ptr[y]:ptr[y] + live_n[y]]``: the full incidence lists, or the
    walk's near lists (:func:`near_enter`) holding every threat that lies
    wholly in the current cut or in one of its child cuts.

    In the greedy scenario a node's fate depends only on the threat
    partners ranked before it, so replacing ``x`` changes
    the fate of a node only if it is a child of ``x`` or a partner ranked
    after a node whose fate changed (``x`` itself, when it was kept, counts
    as changed: it leaves the cut). The changes are found in rank order from
    a min-heap seeded with the children and, if ``x`` was kept, its later
    partners; a popped node's fate is recomputed over its threats, and only
    when it differs from the current scenario (or the node is a new, kept
    child) are its later partners pushed. Nodes never pushed keep their fate.

    Every candidate gets its own stamp in the scratch arrays, and the fates
    it changed are restored afterwards, so a candidate costs only what it
    touches. Cost per candidate: the threat incidences of
    the popped nodes times the threat size, plus O(log) per heap operation.
    """
    n = len(in_cut)
    now = kept.copy()  # fates under the candidate being evaluated; restored after each one
    changed = np.empty(n, dtype=np.int64)  # nodes whose entry of ``now`` the candidate set
    child = np.zeros(n, dtype=np.int64)  # == s: a child of candidate s's node
    queued = np.zeros(n, dtype=np.int64)  # == s: pushed for candidate s
    heap = np.empty(n, dtype=np.int64)
    dc = np.empty(len(xs))
    dn = np.zeros(len(xs), dtype=np.int64)
    for j in range(len(xs)):
        s = j + 1
        x = xs[j]
        d = -gen_cost[x]
        hn = 0
        for q in range(child_ptr[x], child_ptr[x + 1]):
            c = child_idx[q]
            child[c] = s
            queued[c] = s
            d += gen_cost[c]
            hn = _heap_push(heap, hn, rank[c])
        now[x] = False  # x leaves the cut
        changed[0] = x
        n_changed = 1
        if kept[x]:
            hn = _push_later(x, s, x, hn, heap, queued, in_cut, child, rank, ptr, idx, live_n, members, sizes)
        else:
            d -= sup_cost[x]
            dn[j] -= 1
        while hn > 0:
            r, hn = _heap_pop(heap, hn)
            y = by_rank[r]
            ok = not _completes(y, r, ptr, idx, live_n, members, sizes, rank, now)
            now[y] = ok
            changed[n_changed] = y
            n_changed += 1
            was = kept[y]  # False for a new child
            if child[y] == s:
                if not ok:
                    d += sup_cost[y]
                    dn[j] += 1
            elif ok != was:
                if ok:
                    d -= sup_cost[y]
                    dn[j] -= 1
                else:
                    d += sup_cost[y]
                    dn[j] += 1
            if ok != was:
                hn = _push_later(y, s, x, hn, heap, queued, in_cut, child, rank, ptr, idx, live_n, members, sizes)
        for a in range(n_changed):
            now[changed[a]] = kept[changed[a]]
        dc[j] = d
    return dc, dn


@njit(cache=True)
def _push_later(y, s, x, hn, heap, queued, in_cut, child, rank, ptr, idx, live_n, members, sizes):  # pragma: no cover
    """Push the partners of ``y`` ranked after it, in threats lying wholly in the child cut of ``x``."""
    ry = rank[y]
    for q in range(ptr[y], ptr[y] + live_n[y]):
        t = idx[q]
        inside = True
        for a in range(sizes[t]):
            z = members[t, a]
            if z != y and (z == x or not (in_cut[z] or child[z] == s)):
                inside = False
                break
        if not inside:
            continue
        for a in range(sizes[t]):
            z = members[t, a]
            if rank[z] > ry and queued[z] != s:
                queued[z] = s
                hn = _heap_push(heap, hn, rank[z])
    return hn


@njit(cache=True)
def incidence(members, n_nodes):  # pragma: no cover - compiled
    """(ptr, idx): ``idx[ptr[x]:ptr[x+1]]`` are the threats (rows of ``members``, -1 padded) holding node ``x``, ascending.

    A counting sort: O(threats x width).
    """
    ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    for t in range(members.shape[0]):
        for a in range(members.shape[1]):
            y = members[t, a]
            if y >= 0:
                ptr[y + 1] += 1
    for x in range(n_nodes):
        ptr[x + 1] += ptr[x]
    fill = ptr[:-1].copy()
    idx = np.empty(ptr[n_nodes], dtype=np.int64)
    for t in range(members.shape[0]):
        for a in range(members.shape[1]):
            y = members[t, a]
            if y >= 0:
                idx[fill[y]] = t
                fill[y] += 1
    return ptr, idx


@njit(cache=True)
def near_enter(nodes, ptr, idx, members, sizes, count, live_idx, live_n):  # pragma: no cover - compiled
    """Nodes enter the walk's near set.

    A threat whose last member enters is appended to the near incidence list
    ``live_idx[ptr[y]:ptr[y] + live_n[y]]`` of each of its members ``y``.

    ``count[t]`` is the number of members of threat ``t`` in the near set. Each
    node enters once per walk, so the lists cost O(incidences of the nodes
    that ever enter) in all.
    """
    for y in nodes:
        for q in range(ptr[y], ptr[y + 1]):
            t = idx[q]
            count[t] += 1
            if count[t] == sizes[t]:
                for a in range(sizes[t]):
                    z = members[t, a]
                    live_idx[ptr[z] + live_n[z]] = t
                    live_n[z] += 1


@njit(cache=True)
def near_relocate(nodes, new_cap, ptr, cap, live_n, src, dst, used):  # pragma: no cover - compiled
    """Move the lists of ``nodes`` from ``src`` to fresh slots of ``new_cap`` entries at ``dst[used:]``; the new ``used``.

    The mined near lists (:class:`~graphanon.algorithms.hierarchy._walk.MinedNearThreats`)
    live in one arena, node ``y``'s list at ``arena[ptr[y]:ptr[y] + live_n[y]]``
    with room for ``cap[y]`` entries. A list that would overflow moves to the
    arena's end with a larger slot (``src`` is ``dst``; the caller checked
    there is room), its old slot left unused; a full arena is compacted by
    moving every list into a new one (``dst``).
    """
    for a in range(len(nodes)):
        y = nodes[a]
        for q in range(live_n[y]):
            dst[used + q] = src[ptr[y] + q]
        ptr[y] = used
        cap[y] = new_cap[a]
        used += new_cap[a]
    return used


@njit(cache=True)
def near_add(first, members, sizes, ptr, live_n, arena):  # pragma: no cover - compiled
    """Append the threats ``first..len(members)`` to the near list of each of their members.

    The lists have room for them (see :func:`near_relocate`).
    """
    for t in range(first, members.shape[0]):
        for a in range(sizes[t]):
            z = members[t, a]
            arena[ptr[z] + live_n[z]] = t
            live_n[z] += 1
