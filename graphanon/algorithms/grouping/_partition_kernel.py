"""Compiled top-down partitioning of He & Naughton (numba).

Each item occurrence carries its current cut node (``cur``); a partition is a
segment of a row permutation plus a list of *frozen* nodes (expansions that
already failed for it). The recursion is an explicit stack.

:func:`partition_run` starts from any list of partitions (records, their
occurrences' cut nodes, their frozen lists) and can stop at partitions
smaller than a size, listing them instead (*deferred*): partitions are
independent once split, so the deferred ones can be finished elsewhere
(:func:`run_deferred`, on Dask workers) and the groups renumbered in the
order the whole recursion would have made them.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)


@numba.njit(cache=True)
def _mix(h, v):  # pragma: no cover - compiled
    """One step of a 64-bit hash of a sorted child list (splitmix64 finalizer)."""
    z = (h ^ (v + np.uint64(0x9E3779B97F4A7C15))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def partition_groups(o_ptr, anc, depth, is_leaf, ncp, k, n_nodes):
    """Return (group of each record, final cut node of each occurrence): the whole recursion from the root."""
    n = len(o_ptr) - 1
    cur = np.zeros(o_ptr[n], dtype=np.int64)  # everything starts at the root (node 0)
    group, _, _, _ = partition_run(
        o_ptr, anc, depth, is_leaf, ncp, k, n_nodes, cur,
        np.array([0, n], dtype=np.int64), np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64), 0,
    )
    return group, cur


def run_deferred(task):
    """Finish deferred partitions (one task of :func:`graphanon.algorithms.grouping.partition.anonymize_partition` on Dask): ``task = (o_ptr, anc, cur, bounds, f_ptr, frozen, depth, is_leaf, ncp, k)`` over the partitions' records only, in their order.

    Returns (group of each record, numbered from 0 in processing order, and the final cut node
    of each occurrence).
    """
    o_ptr, anc, cur, bounds, f_ptr, frozen, depth, is_leaf, ncp, k = task
    cur = cur.copy()
    group, _, _, _ = partition_run(o_ptr, anc, depth, is_leaf, ncp, k, len(depth), cur, bounds, f_ptr, frozen, 0)
    return group, cur


@numba.njit(cache=True)
def partition_run(o_ptr, anc, depth, is_leaf, ncp, k, n_nodes, cur, bounds, f_ptr, frozen0, defer_below):  # pragma: no cover - compiled
    """Run the recursion from given partitions; optionally stop at small ones (defer them).

    Parameters
    ----------
    o_ptr : int64 array (n + 1)
        Occurrences of record ``r``: ``o_ptr[r]:o_ptr[r + 1]``.
    anc : int64 array (occurrences, height + 1)
        Each occurrence's ancestor at every depth.
    cur : int64 array (occurrences)
        Each occurrence's current cut node (0, the root, at the start); updated in place.
    bounds : int64 array (p + 1)
        The starting partitions: records ``bounds[j]:bounds[j + 1]``, in this
        order (they are processed in this order, each with its whole subtree).
    f_ptr, frozen0 : int64 arrays
        Partition ``j``'s frozen nodes: ``frozen0[f_ptr[j]:f_ptr[j + 1]]``.
    defer_below : int
        When > 0, a partition of fewer records is not processed but
        *deferred*: it takes one group number (a placeholder) and is listed.

    Returns
    -------
    group : int64 array (n)
        Group of each record, numbered in processing order (depth first);
        a deferred partition's records hold its placeholder.
    rows : int64 array (n)
        The records in final order; a deferred partition is a segment of it.
    deferred : int64 array (d, 4)
        Per deferred partition, in placeholder order: placeholder group,
        segment start and end in ``rows``, and the index of its frozen list.
    frozen : tuple (f_ptr, nodes)
        The deferred partitions' frozen lists, CSR-like.
    """
    n = len(o_ptr) - 1
    rows = np.arange(n, dtype=np.int64)
    group = np.full(n, -1, dtype=np.int64)
    gain = np.zeros(n_nodes, dtype=np.float64)
    touched_flag = np.zeros(n_nodes, dtype=np.bool_)
    touched = np.empty(n_nodes, dtype=np.int64)
    key = np.zeros(n, dtype=np.uint64)
    rgain = np.zeros(n, dtype=np.float64)
    moved = np.zeros(n, dtype=np.bool_)
    childbuf = np.empty(n_nodes, dtype=np.int64)
    n_start = len(bounds) - 1
    # stack of partitions: start, end, frozen start, frozen length
    cap = 1024 + n_start
    st_s = np.empty(cap, dtype=np.int64)
    st_e = np.empty(cap, dtype=np.int64)
    st_fs = np.empty(cap, dtype=np.int64)
    st_fl = np.empty(cap, dtype=np.int64)
    fcap = 1024 + len(frozen0)
    frozen = np.empty(fcap, dtype=np.int64)
    frozen[: len(frozen0)] = frozen0
    f_top = len(frozen0)
    top = 0
    for j in range(n_start - 1, -1, -1):  # the first partition on top: processed first
        st_s[top] = bounds[j]
        st_e[top] = bounds[j + 1]
        st_fs[top] = f_ptr[j]
        st_fl[top] = f_ptr[j + 1] - f_ptr[j]
        top += 1
    d_cap = 64
    deferred = np.empty((d_cap, 4), dtype=np.int64)
    n_def = 0
    d_fptr = np.zeros(d_cap + 1, dtype=np.int64)
    d_nodes = np.empty(64, dtype=np.int64)
    n_groups = 0
    while top > 0:
        top -= 1
        s = st_s[top]
        e = st_e[top]
        fs = st_fs[top]
        fl = st_fl[top]
        if e - s < defer_below:
            if n_def == d_cap:
                d_cap *= 2
                grown = np.empty((d_cap, 4), dtype=np.int64)
                grown[:n_def] = deferred[:n_def]
                deferred = grown
                d_fptr = _grow(d_fptr, d_cap + 1)
            if d_fptr[n_def] + fl > len(d_nodes):
                d_nodes = _grow(d_nodes, 2 * (len(d_nodes) + fl))
            deferred[n_def, 0] = n_groups
            deferred[n_def, 1] = s
            deferred[n_def, 2] = e
            deferred[n_def, 3] = n_def
            d_nodes[d_fptr[n_def] : d_fptr[n_def] + fl] = frozen[fs : fs + fl]
            d_fptr[n_def + 1] = d_fptr[n_def] + fl
            n_def += 1
            for i in range(s, e):
                group[rows[i]] = n_groups
            n_groups += 1
            continue
        # --- pick node: largest total information gain among expandable cut nodes
        n_t = 0
        for i in range(s, e):
            r = rows[i]
            for o in range(o_ptr[r], o_ptr[r + 1]):
                c = cur[o]
                if is_leaf[c]:
                    continue
                is_frozen = False
                for t in range(fl):
                    if frozen[fs + t] == c:
                        is_frozen = True
                        break
                if is_frozen:
                    continue
                ch = anc[o, depth[c] + 1]
                if not touched_flag[c]:
                    touched_flag[c] = True
                    touched[n_t] = c
                    n_t += 1
                gain[c] += ncp[c] - ncp[ch]
        if n_t == 0:
            for i in range(s, e):
                group[rows[i]] = n_groups
            n_groups += 1
            continue
        x = -1
        best = -1.0
        for t in range(n_t):
            c = touched[t]
            if gain[c] > best or (gain[c] == best and c < x):
                best = gain[c]
                x = c
        for t in range(n_t):
            gain[touched[t]] = 0.0
            touched_flag[touched[t]] = False
        dx = depth[x] + 1
        # --- distribute: bucket key = the set of children of x the record holds
        for i in range(s, e):
            r = rows[i]
            m = 0
            g = 0.0
            for o in range(o_ptr[r], o_ptr[r + 1]):
                if cur[o] == x:
                    ch = anc[o, dx]
                    childbuf[m] = ch
                    m += 1
                    g += ncp[x] - ncp[ch]
            sub = np.sort(childbuf[:m])
            h = np.uint64(1469598103934665603)
            prev = -1
            for t in range(m):
                if sub[t] != prev:
                    h = _mix(h, np.uint64(sub[t]))
                    prev = sub[t]
            key[r] = h
            rgain[r] = g
            moved[r] = False
        seg = rows[s:e].copy()
        order = np.argsort(key[seg], kind="mergesort")
        seg = seg[order]
        # bucket boundaries
        nb = 0
        b_start = np.empty(e - s + 1, dtype=np.int64)
        for i in range(e - s):
            if i == 0 or key[seg[i]] != key[seg[i - 1]]:
                b_start[nb] = i
                nb += 1
        b_start[nb] = e - s
        b_size = np.empty(nb, dtype=np.int64)
        b_of = np.empty(e - s, dtype=np.int64)
        for b in range(nb):
            b_size[b] = b_start[b + 1] - b_start[b]
            for i in range(b_start[b], b_start[b + 1]):
                b_of[i] = b
        # --- balance: small buckets to the leftover; top it up to k from big buckets, least gain first
        n_left = 0
        b_alive = np.ones(nb, dtype=np.bool_)
        for b in range(nb):
            if b_size[b] < k:
                b_alive[b] = False
                n_left += b_size[b]
                for i in range(b_start[b], b_start[b + 1]):
                    moved[seg[i]] = True
        if 0 < n_left < k:
            cand = np.empty(e - s, dtype=np.int64)
            nc = 0
            for i in range(e - s):
                if b_alive[b_of[i]]:
                    cand[nc] = i
                    nc += 1
            cg = np.empty(nc, dtype=np.float64)
            for t in range(nc):
                cg[t] = rgain[seg[cand[t]]]
            co = np.argsort(cg, kind="mergesort")
            for t in range(nc):
                if n_left >= k:
                    break
                i = cand[co[t]]
                b = b_of[i]
                if not b_alive[b] or moved[seg[i]]:
                    continue
                if b_size[b] - 1 >= k:
                    moved[seg[i]] = True
                    b_size[b] -= 1
                    n_left += 1
                else:
                    b_alive[b] = False
                    for j in range(b_start[b], b_start[b + 1]):
                        if not moved[seg[j]]:
                            moved[seg[j]] = True
                            n_left += 1
        # --- write back: surviving buckets first, leftover last
        pos = s
        need = nb + 1
        if top + need >= cap:
            while top + need >= cap:
                cap *= 2
            st_s = _grow(st_s, cap)
            st_e = _grow(st_e, cap)
            st_fs = _grow(st_fs, cap)
            st_fl = _grow(st_fl, cap)
        if f_top + fl + 1 >= fcap:
            while f_top + fl + 1 >= fcap:
                fcap *= 2
            frozen = _grow(frozen, fcap)
        for b in range(nb):
            if not b_alive[b]:
                continue
            b0 = pos
            for i in range(b_start[b], b_start[b + 1]):
                r = seg[i]
                if moved[r]:
                    continue
                rows[pos] = r
                pos += 1
                for o in range(o_ptr[r], o_ptr[r + 1]):
                    if cur[o] == x:
                        cur[o] = anc[o, dx]
            st_s[top] = b0
            st_e[top] = pos
            st_fs[top] = fs  # sub-partitions keep the failed expansions of their parent
            st_fl[top] = fl
            top += 1
        if n_left > 0:
            l0 = pos
            for i in range(e - s):
                r = seg[i]
                if moved[r]:
                    rows[pos] = r
                    pos += 1
            for t in range(fl):
                frozen[f_top + t] = frozen[fs + t]
            frozen[f_top + fl] = x
            st_s[top] = l0
            st_e[top] = pos
            st_fs[top] = f_top
            st_fl[top] = fl + 1
            f_top += fl + 1
            top += 1
    return group, rows, deferred[:n_def].copy(), (d_fptr[: n_def + 1].copy(), d_nodes[: d_fptr[n_def]].copy())


@numba.njit(cache=True)
def _grow(a, cap):  # pragma: no cover - compiled
    out = np.empty(cap, dtype=a.dtype)
    out[: len(a)] = a
    return out
