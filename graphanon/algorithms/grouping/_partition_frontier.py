"""He & Naughton's top-down partitioning in numpy: every open partition of one recursion depth at once.

The compiled kernel (:mod:`graphanon.algorithms.grouping._partition_kernel`)
runs the recursion depth first, one partition at a time, on an explicit stack.
Partitions are independent once split, so the same splits can be made
breadth first: all partitions open at one depth (the *frontier*) pick their
node, bucket their records and balance in a constant number of numpy passes
over their occurrences, and their sub-partitions form the next frontier.
What depth first adds is only the *numbering* of the groups (the order in
which the stack finishes partitions). It is kept by the layout: a partition is
a segment of the record permutation ``rows`` and its sub-partitions are written
into that segment in the order the stack would pop them (the leftover first,
then the kept buckets from the last to the first), so the finished partitions,
read left to right, are numbered as the stack numbers them.

Every choice is the kernel's, made with the same arithmetic in the same order
(gains are summed with :func:`numpy.bincount`, which adds in input order, as
the kernel's loop does), so both give the same groups and the same cut nodes;
``tests/package/test_process_cost.py`` checks that on random data and on bms1. This
path needs no numba: a Partition job does not pay the compiler's import
(about 0.2 s of CPU time and 65 MB) nor the load of its on-disk cache.

References
----------
He, Naughton. Anonymization of set-valued data via top-down, local
generalization. PVLDB 2(1), 2009, Sec. 4 (Algorithm 1).
"""

from __future__ import annotations

import numpy as np

__all__ = ["partition_groups"]

_FNV_OFFSET = np.uint64(1469598103934665603)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The kernel's hash step (splitmix64 finalizer) on arrays; uint64 arithmetic wraps as in the kernel."""
    z = (h ^ (v + _GOLDEN)) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _segment_positions(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + l) for s, l in zip(starts, lengths)])`` without a Python loop."""
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) + np.repeat(starts - offsets, lengths)


def _run_starts(keys: np.ndarray) -> np.ndarray:
    """Boolean mask of the first element of each run of equal values in ``keys``."""
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return first


def _rank_in_runs(first: np.ndarray) -> np.ndarray:
    """Position of each element within its run (runs start where ``first`` is True)."""
    index = np.arange(len(first), dtype=np.int64)
    return index - np.maximum.accumulate(np.where(first, index, 0))


def partition_groups(o_ptr, anc, depth, is_leaf, ncp, k, n_nodes):
    """Return (group of each record, final cut node of each occurrence): the whole recursion from the root.

    The same result as the compiled ``_partition_kernel.partition_groups``.

    Parameters
    ----------
    o_ptr : int64 array (n + 1)
        Occurrences of record ``r``: ``o_ptr[r]:o_ptr[r + 1]`` (the rows of a CSR matrix).
    anc : int64 array (occurrences, height + 1)
        Each occurrence's ancestor at every depth (:func:`~graphanon.algorithms.grouping.partition.ancestor_table`).
    depth, is_leaf, ncp : arrays over the taxonomy's nodes
        Node depth, leaf flag and He & Naughton's NCP; node 0 is the root.
    k : int
        Group size.
    n_nodes : int
        Number of taxonomy nodes.

    Returns
    -------
    group : int64 array (n)
        Group of each record, numbered in the depth-first order of the recursion.
    cur : int64 array (occurrences)
        The cut node each occurrence is published as.

    Examples
    --------
    A root (node 0) with two leaves; records 0 and 1 hold leaf 1, record 2 holds leaf 2.
    At k=1 the root is expanded and the records holding the same children share a group:

    >>> import numpy as np
    >>> anc = np.array([[0, 1], [0, 1], [0, 2]])  # root 0 with leaves 1, 2
    >>> group, cur = partition_groups(np.array([0, 1, 2, 3]), anc, np.array([0, 1, 1]),
    ...                               np.array([False, True, True]), np.array([1.0, 0.0, 0.0]), 1, 3)
    >>> group.tolist(), cur.tolist()
    ([0, 0, 1], [1, 1, 2])
    """
    o_ptr = np.asarray(o_ptr, dtype=np.int64)
    n = len(o_ptr) - 1
    cur = np.zeros(int(o_ptr[n]), dtype=np.int64)  # everything starts at the root (node 0)
    rows = np.arange(n, dtype=np.int64)
    if n == 0:
        return np.zeros(0, dtype=np.int64), cur
    k = int(k)
    # the frontier: open partitions as segments of `rows`, in layout order, and their frozen nodes
    starts = np.zeros(1, dtype=np.int64)
    sizes = np.full(1, n, dtype=np.int64)
    frozen_part = np.zeros(0, dtype=np.int64)  # (partition, node) pairs, partition = frontier index
    frozen_node = np.zeros(0, dtype=np.int64)
    finished = np.zeros(n + 1, dtype=bool)  # finished[s]: a finished partition starts at position s
    while len(starts):
        n_part = len(starts)
        pos = _segment_positions(starts, sizes)
        part = np.repeat(np.arange(n_part, dtype=np.int64), sizes)
        rec = rows[pos]
        rec_len = o_ptr[rec + 1] - o_ptr[rec]
        occ = _segment_positions(o_ptr[rec], rec_len)
        occ_rec = np.repeat(np.arange(len(rec), dtype=np.int64), rec_len)  # index into `rec`
        occ_part = part[occ_rec]
        node = cur[occ]
        # --- pick node: largest total information gain among expandable (not leaf, not frozen) cut nodes
        open_ = ~is_leaf[node]
        if len(frozen_node):
            open_ &= ~np.isin(occ_part * n_nodes + node, frozen_part * n_nodes + frozen_node)
        node_open = node[open_]
        pair, pair_of = np.unique(occ_part[open_] * n_nodes + node_open, return_inverse=True)
        step_gain = ncp[node_open] - ncp[anc[occ[open_], depth[node_open] + 1]]
        del open_, node_open
        gain = np.bincount(pair_of.ravel(), weights=step_gain, minlength=len(pair))
        del pair_of, step_gain
        pair_part, pair_node = pair // n_nodes, pair % n_nodes
        best = np.lexsort((pair_node, -gain, pair_part))  # per partition: most gain, then the smallest node
        best = best[_run_starts(pair_part[best])]
        x_of = np.full(n_part, -1, dtype=np.int64)
        x_of[pair_part[best]] = pair_node[best]
        done = x_of < 0
        finished[starts[done]] = True
        if done.all():
            break
        # --- distribute: per record the children of x it holds, their gain and a hash of the child set
        hit = node == x_of[occ_part]
        del node, occ_part
        h_occ, h_rec = occ[hit], occ_rec[hit]
        h_x = x_of[part[h_rec]]
        del occ, occ_rec, hit
        h_child = anc[h_occ, depth[h_x] + 1]
        rec_gain = np.bincount(h_rec, weights=ncp[h_x] - ncp[h_child], minlength=len(rec))
        order = np.lexsort((h_child, h_rec))
        d_rec, d_child = h_rec[order], h_child[order]
        distinct = np.ones(len(d_rec), dtype=bool)
        distinct[1:] = (d_rec[1:] != d_rec[:-1]) | (d_child[1:] != d_child[:-1])
        d_rec, d_child = d_rec[distinct], d_child[distinct]
        rank = _rank_in_runs(_run_starts(d_rec))
        key = np.full(len(rec), _FNV_OFFSET, dtype=np.uint64)
        for t in range(int(rank.max()) + 1 if len(rank) else 0):
            at = rank == t
            key[d_rec[at]] = _mix(key[d_rec[at]], d_child[at].astype(np.uint64))
        # --- buckets: the records of each splitting partition stably sorted by key (the kernel's seg)
        live = ~done[part]
        seg = np.flatnonzero(live)
        seg = seg[np.lexsort((key[seg], part[seg]))]
        seg_part = part[seg]
        bucket_first = _run_starts(seg_part) | _run_starts(key[seg])
        bucket = np.cumsum(bucket_first) - 1
        bucket_size = np.bincount(bucket)
        moved = bucket_size[bucket] < k  # small buckets go to the leftover
        n_left = np.bincount(seg_part, weights=moved, minlength=n_part).astype(np.int64)
        # --- balance: top a leftover of 0 < size < k up from the kept buckets, least record gain first
        topped = (n_left > 0) & (n_left < k)
        cand = np.flatnonzero(topped[seg_part] & ~moved)
        if len(cand):
            cand = cand[np.lexsort((rec_gain[seg[cand]], seg_part[cand]))]
            c_part, c_bucket = seg_part[cand], bucket[cand]
            by_bucket = np.argsort(c_bucket, kind="stable")
            c_rank = np.empty(len(cand), dtype=np.int64)
            c_rank[by_bucket] = _rank_in_runs(_run_starts(c_bucket[by_bucket]))
            kill = c_rank == bucket_size[c_bucket] - k  # the bucket would drop below k: all of it moves
            single = (~kill).astype(np.int64)
            part_first = _run_starts(c_part)
            singles = np.cumsum(single)
            singles -= np.repeat((singles - single)[part_first], np.diff(np.r_[np.flatnonzero(part_first), len(cand)]))
            stop = kill | (n_left[c_part] + singles >= k)
            stop_at = np.full(n_part, len(cand), dtype=np.int64)
            np.minimum.at(stop_at, c_part[stop], np.flatnonzero(stop))
            taken = np.arange(len(cand)) <= stop_at[c_part]
            moved[cand[taken & ~kill]] = True
            killed = np.zeros(len(bucket_size), dtype=bool)
            killed[c_bucket[taken & kill]] = True
            moved |= killed[bucket]
            n_left = np.bincount(seg_part, weights=moved, minlength=n_part).astype(np.int64)
        # --- write back in the stack's pop order: leftover first, then kept buckets last to first
        place = np.where(moved, -len(bucket_size) - 1, -bucket)
        new_order = np.lexsort((place, seg_part))
        live_pos = pos[live]  # the splitting partitions' segments, in order
        rows[live_pos] = rec[seg[new_order]]
        kept = ~moved
        k_rec = rec[seg[kept]]
        up = np.zeros(n, dtype=bool)
        up[k_rec] = True
        lift = up[rec[h_rec]]
        cur[h_occ[lift]] = h_child[lift]
        # the next frontier, in layout order: per splitting partition its leftover, then its buckets
        o_part, o_moved = seg_part[new_order], moved[new_order]
        o_bucket = np.where(o_moved, -1, bucket[new_order])
        o_first = _run_starts(o_part) | _run_starts(o_bucket)
        first_at = np.flatnonzero(o_first)
        new_parent = o_part[first_at]
        new_is_left = o_moved[first_at]
        new_sizes = np.diff(np.r_[first_at, len(o_part)])
        new_starts = live_pos[first_at]
        # frozen nodes: every sub-partition keeps its parent's; the leftover also freezes x
        f_order = np.argsort(frozen_part, kind="stable")
        f_part, f_node = frozen_part[f_order], frozen_node[f_order]
        f_count = np.bincount(f_part, minlength=n_part)
        f_begin = np.cumsum(f_count) - f_count
        copies = _segment_positions(f_begin[new_parent], f_count[new_parent])
        new_index = np.arange(len(new_parent), dtype=np.int64)
        frozen_part = np.r_[np.repeat(new_index, f_count[new_parent]), new_index[new_is_left]]
        frozen_node = np.r_[f_node[copies], x_of[new_parent[new_is_left]]]
        starts, sizes = new_starts, new_sizes
    group_of_position = np.cumsum(finished[:n]) - 1
    group = np.empty(n, dtype=np.int64)
    group[rows] = group_of_position
    return group, cur
