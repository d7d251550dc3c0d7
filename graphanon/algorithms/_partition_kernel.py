"""Compiled top-down partitioning of He & Naughton (numba).

Each item occurrence carries its current cut node (``cur``); a partition is a
segment of a row permutation plus a list of *frozen* nodes (expansions that
already failed for it). The recursion is an explicit stack.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _mix(h, v):  # pragma: no cover - compiled
    """One step of a 64-bit hash of a sorted child list (splitmix64 finalizer)."""
    z = (h ^ (v + np.uint64(0x9E3779B97F4A7C15))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def partition_groups(o_ptr, anc, depth, is_leaf, ncp, k, n_nodes):  # pragma: no cover - compiled
    """Return (group of each record, final cut node of each occurrence)."""
    n = len(o_ptr) - 1
    n_occ = o_ptr[n]
    cur = np.zeros(n_occ, dtype=np.int64)  # everything starts at the root (node 0)
    rows = np.arange(n, dtype=np.int64)
    group = np.full(n, -1, dtype=np.int64)
    gain = np.zeros(n_nodes, dtype=np.float64)
    touched_flag = np.zeros(n_nodes, dtype=np.bool_)
    touched = np.empty(n_nodes, dtype=np.int64)
    key = np.zeros(n, dtype=np.uint64)
    rgain = np.zeros(n, dtype=np.float64)
    moved = np.zeros(n, dtype=np.bool_)
    childbuf = np.empty(n_nodes, dtype=np.int64)
    # stack of partitions: start, end, frozen start, frozen length
    cap = 1024
    st_s = np.empty(cap, dtype=np.int64)
    st_e = np.empty(cap, dtype=np.int64)
    st_fs = np.empty(cap, dtype=np.int64)
    st_fl = np.empty(cap, dtype=np.int64)
    fcap = 1024
    frozen = np.empty(fcap, dtype=np.int64)
    f_top = 0
    top = 0
    st_s[0] = 0
    st_e[0] = n
    st_fs[0] = 0
    st_fl[0] = 0
    top = 1
    n_groups = 0
    while top > 0:
        top -= 1
        s = st_s[top]
        e = st_e[top]
        fs = st_fs[top]
        fl = st_fl[top]
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
    return group, cur


@numba.njit(cache=True)
def _grow(a, cap):  # pragma: no cover - compiled
    out = np.empty(cap, dtype=a.dtype)
    out[: len(a)] = a
    return out
