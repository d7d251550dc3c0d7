"""Compiled greedy loop of Clump (numba): grow groups by least Delta GGD.

A group ``S`` is kept as the sparse vector ``c_S`` (column minima of its
records' node counts, on the nodes every member holds) and
``W_S = sum_x d(x) c_S(x)``; then ``GGD(S) = N_S - |S| W_S``
(:mod:`graphanon.graphs.lcg`) and adding record ``r`` costs

    Delta(r) = |r| - (|S| + 1) W'(r) + |S| W_S,   W'(r) = sum_x d(x) min(c_S(x), a_r(x)),

one merge of two sorted index lists. Numpy cannot express the sequential
greedy (each choice changes ``c_S``), hence numba.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)


@numba.njit(cache=True)
def _gain(a_ptr, a_idx, a_val, r, sup_c, sup_v, m, delta):  # pragma: no cover - compiled
    """``W'(r) = sum_{x in sup} d(x) min(c(x), a_r(x))`` by a sorted merge."""
    total = 0.0
    p = a_ptr[r]
    end = a_ptr[r + 1]
    q = 0
    while p < end and q < m:
        x = a_idx[p]
        y = sup_c[q]
        if x == y:
            v = a_val[p] if a_val[p] < sup_v[q] else sup_v[q]
            total += delta[x] * v
            p += 1
            q += 1
        elif x < y:
            p += 1
        else:
            q += 1
    return total


@numba.njit(cache=True)
def _shrink(a_ptr, a_idx, a_val, r, sup_c, sup_v, m):  # pragma: no cover - compiled
    """``c <- min(c, a_r)`` in place on the support; returns the new support size."""
    p = a_ptr[r]
    end = a_ptr[r + 1]
    out = 0
    for q in range(m):
        y = sup_c[q]
        while p < end and a_idx[p] < y:
            p += 1
        if p < end and a_idx[p] == y:
            v = a_val[p] if a_val[p] < sup_v[q] else sup_v[q]
            sup_c[out] = y
            sup_v[out] = v
            out += 1
    return out


@numba.njit(cache=True)
def _weight(delta, sup_c, sup_v, m):  # pragma: no cover - compiled
    """``W = sum_x d(x) c(x)`` over the support (always summed in support order: the same float for the same support)."""
    w = 0.0
    for q in range(m):
        w += delta[sup_c[q]] * sup_v[q]
    return w


@numba.njit(cache=True)
def _add_candidates(records, group, stamp, gid, cand, n_cand):  # pragma: no cover - compiled
    """Append the unassigned ``records`` not yet candidates of group ``gid``; returns the new count."""
    for v in records:
        if group[v] < 0 and stamp[v] != gid:
            stamp[v] = gid
            cand[n_cand] = v
            n_cand += 1
    return n_cand


@numba.njit(cache=True)
def _unlink(pos, nx_, pv_, head, end):  # pragma: no cover - compiled
    """Remove list position ``pos``; returns the new head (``end`` when empty)."""
    p, q = pv_[pos], nx_[pos]
    if p >= 0:
        nx_[p] = q
    if q < end:
        pv_[q] = p
    return q if pos == head else head


def clump_groups(a_ptr, a_idx, a_val, lengths, delta, nb_ptr, nb_idx, cl_of, cl_ptr, cl_idx, group, fixed_rep,
                 seed_order, pool_order, k, pool_size):
    """Greedy k-member clustering; returns the group of each record.

    Parameters are CSR arrays of the node counts (sorted indices), the
    similarity graph, the classes of identical records (``cl_of``, CSR
    ``cl_ptr``/``cl_idx``), the groups already fixed (``group``: -1 for
    free records; fixed group ``g`` has representative ``fixed_rep[g]``), the seed priority
    and the fallback pool order.

    Returns
    -------
    ndarray of int64
        The group of each record (``group`` is not modified).

    Notes
    -----
    The work arrays are allocated here, not in the compiled kernel, so a
    process that loads the kernel from numba's cache imports none of numba's
    array-allocation code (``numba.np.arrayobj``). Complexity: O(sum over
    steps of candidates * (row + support length)).

    Examples
    --------
    Records {a}, {a}, {b}, {c} on leaves a, b, c under one root (node counts:
    the leaf, then the root); the two identical records are a fixed group,
    the other two are grouped (no similarity edges: from the fallback pool).
    The similarity graph's arrays are int32, as Clump passes them, so this
    call runs the kernel Clump compiles (int64 ones would compile another,
    about 4 s of CPU):

    >>> import numpy as np
    >>> ptr, idx, val = np.arange(0, 10, 2), np.array([0, 3, 0, 3, 1, 3, 2, 3]), np.ones(8, np.int64)
    >>> clump_groups(ptr, idx, val, np.ones(4, np.int64), np.array([1.0, 1.0, 1.0, 0.25]), np.zeros(5, np.int32),
    ...              np.zeros(0, np.int32), np.array([0, 0, 1, 2]), np.array([0, 2, 3, 4]), np.arange(4),
    ...              np.array([0, 0, -1, -1]), np.array([0]), np.arange(4), np.arange(4), 2, 4).tolist()
    [0, 0, 1, 1]
    """
    n = len(lengths)
    nnz = int(a_ptr[n])
    return _clump_groups(
        a_ptr, a_idx, a_val, lengths, delta, nb_ptr, nb_idx, cl_of, cl_ptr, cl_idx, group.astype(np.int64, copy=True),
        fixed_rep, seed_order, pool_order, k, pool_size, np.empty((11, n + 1), dtype=np.int64),
        np.empty((4, nnz + 1), dtype=np.int64), np.empty(n + 1, dtype=np.float64),
    )


@numba.njit(cache=True)
def _clump_groups(a_ptr, a_idx, a_val, lengths, delta, nb_ptr, nb_idx, cl_of, cl_ptr, cl_idx, group, fixed_rep, seed_order, pool_order, k, pool_size, iw, sw, fw):  # pragma: no cover - compiled
    """:func:`clump_groups` on the caller's ``group`` (modified) and work arrays.

    ``iw`` int64 (11, n + 1), ``sw`` int64 (4, occurrences + 1), ``fw`` float64 (n + 1), any content.
    """
    n = len(lengths)
    stamp, cand, g_ptr, g_len, g_size = iw[0], iw[1], iw[2], iw[3], iw[4]
    free, where, nx_, pv_, cand_g, gstamp = iw[5], iw[6], iw[7], iw[8], iw[9], iw[10]
    sup_c, sup_v, g_col, g_val = sw[0], sw[1], sw[2], sw[3]
    g_w = fw
    for v in range(n + 1):
        stamp[v] = -1
        g_ptr[v] = 0
        g_len[v] = 0
        g_size[v] = 0
        where[v] = -1
        gstamp[v] = -1
        g_w[v] = 0.0
    # stored groups: supports in a flat buffer (a group's support never exceeds its seed's row)
    n_groups = len(fixed_rep)
    for gid in range(n_groups):  # fixed groups of identical records: support = any member's row
        rep = fixed_rep[gid]
        start = g_ptr[gid]
        m = 0
        for p in range(a_ptr[rep], a_ptr[rep + 1]):
            g_col[start + m] = a_idx[p]
            g_val[start + m] = a_val[p]
            m += 1
        g_len[gid] = m
        g_ptr[gid + 1] = start + m
        g_w[gid] = _weight(delta, g_col[start:], g_val[start:], m)
    for v in range(n):
        if group[v] >= 0:
            g_size[group[v]] += 1
    # the unassigned records in pool order: a doubly linked list (O(1) removal, order kept)
    n_free = 0
    for v in pool_order:
        if group[v] < 0:
            free[n_free] = v
            where[v] = n_free
            n_free += 1
    for j in range(n_free):
        nx_[j] = j + 1
        pv_[j] = j - 1
    head = 0 if n_free > 0 else n_free
    unassigned = n_free
    for seed in seed_order:
        if group[seed] >= 0:
            continue
        if unassigned < k:
            break
        gid = n_groups
        n_groups += 1
        m = 0
        for p in range(a_ptr[seed], a_ptr[seed + 1]):
            sup_c[m] = a_idx[p]
            sup_v[m] = a_val[p]
            m += 1
        w = _weight(delta, sup_c, sup_v, m)
        size = 1
        group[seed] = gid
        unassigned -= 1
        head = _unlink(where[seed], nx_, pv_, head, n_free)
        n_cand = 0
        last = seed
        while size < k:
            # candidates: unassigned similarity-graph neighbours of the members, and their duplicates
            n_cand = _add_candidates(nb_idx[nb_ptr[last] : nb_ptr[last + 1]], group, stamp, gid, cand, n_cand)
            cl = cl_of[last]
            n_cand = _add_candidates(cl_idx[cl_ptr[cl] : cl_ptr[cl + 1]], group, stamp, gid, cand, n_cand)
            # drop assigned ones
            j = 0
            for t in range(n_cand):
                if group[cand[t]] < 0:
                    cand[j] = cand[t]
                    j += 1
            n_cand = j
            if n_cand == 0:
                # fallback: the first unassigned records of a fixed random order
                pos = head
                while pos < n_free and n_cand < pool_size:
                    cand[n_cand] = free[pos]
                    n_cand += 1
                    pos = nx_[pos]
            best = -1
            best_d = np.inf
            for t in range(n_cand):
                r = cand[t]
                d = lengths[r] - (size + 1) * _gain(a_ptr, a_idx, a_val, r, sup_c, sup_v, m, delta) + size * w
                if d < best_d:
                    best_d = d
                    best = t
            r = cand[best]
            cand[best] = cand[n_cand - 1]
            n_cand -= 1
            m = _shrink(a_ptr, a_idx, a_val, r, sup_c, sup_v, m)
            w = _weight(delta, sup_c, sup_v, m)
            size += 1
            group[r] = gid
            unassigned -= 1
            head = _unlink(where[r], nx_, pv_, head, n_free)
            last = r
        start = g_ptr[gid]
        for q in range(m):
            g_col[start + q] = sup_c[q]
            g_val[start + q] = sup_v[q]
        g_len[gid] = m
        g_ptr[gid + 1] = start + m
        g_size[gid] = size
        g_w[gid] = w
    # leftovers: to the group of least Delta GGD among their neighbours' groups (all groups if none)
    for r in range(n):
        if group[r] >= 0:
            continue
        n_cg = 0
        for p in range(nb_ptr[r], nb_ptr[r + 1]):
            g = group[nb_idx[p]]
            if g >= 0 and gstamp[g] != r:
                gstamp[g] = r
                cand_g[n_cg] = g
                n_cg += 1
        if n_cg == 0:
            for g in range(n_groups):
                cand_g[n_cg] = g
                n_cg += 1
        best = -1
        best_d = np.inf
        for t in range(n_cg):
            g = cand_g[t]
            s = g_size[g]
            st = g_ptr[g]
            d = lengths[r] - (s + 1) * _gain(
                a_ptr, a_idx, a_val, r, g_col[st : st + g_len[g]], g_val[st : st + g_len[g]], g_len[g], delta
            ) + s * g_w[g]
            if d < best_d:
                best_d = d
                best = g
        st = g_ptr[best]
        g_len[best] = _shrink(a_ptr, a_idx, a_val, r, g_col[st : st + g_len[best]], g_val[st : st + g_len[best]], g_len[best])
        g_w[best] = _weight(delta, g_col[st:], g_val[st:], g_len[best])
        g_size[best] += 1
        group[r] = best
    return group
