"""The counts Apriori Anonymization (:mod:`graphanon.algorithms.hierarchy.aa`) asks for, in one process or on Dask.

AA asks three kinds of question about the extended matrix ``E`` (records x
taxonomy nodes: a record holds a node when it holds a leaf under it):

* the minimal violations of k^i over the current cut's columns ``E[:, cut]``
  (once per recount),
* the supports of batches of node sets (the sweep's re-counts of stale
  violations, padded rows),
* the supports of the candidate fixes of one violation.

:class:`LocalCounts` answers them from ``E`` and its vertical bitmaps in this
process, as they come. :class:`BlockCounts` holds the records as row blocks
on the workers of a ``dask.distributed.Client``; each worker builds its
blocks of ``E`` and their bitmaps, and every answer is a sum of per-block
integer counts, so it equals the one-process answer. The client keeps only
the taxonomy arrays, the questions and the answers.

A sweep's questions depend on each other (a fix moves the cut the next
violation is mapped through), but every set a sweep can ask about is known
when it starts: the support of a node set does not depend on the cut, and a
violation's mapped itemset and each of its candidate fixes take, for every
member, an ancestor-or-self of the member's cut node at the start of the
sweep (cuts only move up). :func:`fix_universe` lists those sets (the
antichains of the products of the members' root paths), and
:meth:`BlockCounts.prefetch` counts all of them in one round trip before the
sweep, which then asks nothing of the workers: its round trips no longer
grow with the number of fixes.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.hierarchy._index import CHUNK_ROWS, extended_matrix
from graphanon.counting.support import minimal_infrequent_itemsets, sparse_bitmaps
from graphanon.utils.progress import ProgressCallback

__all__ = ["BlockCounts", "LocalCounts", "compiled_supports", "drop_repeats", "fix_universe", "padded_supports", "set_keys"]

#: sets counted per round trip by :meth:`BlockCounts.prefetch` (a reply of 32 MB of int64 per block at most)
PREFETCH_SETS = 1 << 22


def padded_supports(bits: np.ndarray, sets: np.ndarray, sentinel: int) -> np.ndarray:
    """Supports of node sets over vertical bitmaps: AND of the sets' rows, popcount, grouped by size.

    Parameters
    ----------
    bits : ndarray of uint64, shape (n_nodes, n_words)
        Vertical bitmaps (:func:`graphanon.counting.support.sparse_bitmaps`).
    sets : ndarray of int64, shape (n_sets, width)
        One non-empty node set per row, sorted, padded at the end with ``sentinel``.
    sentinel : int
        The padding value (larger than every node).

    Returns
    -------
    ndarray of int64
        The support of each row.

    Examples
    --------
    >>> bits = sparse_bitmaps(sp.csr_array([[1, 1, 0], [1, 0, 1], [1, 1, 1]], dtype=bool)).bits
    >>> padded_supports(bits, np.array([[0, 3], [0, 1], [1, 2]]), 3).tolist()
    [3, 2, 1]
    """
    vals = np.zeros(len(sets), dtype=np.int64)
    sizes = (sets < sentinel).sum(axis=1)
    for size in np.unique(sizes).tolist():
        idx = np.flatnonzero(sizes == size)
        for a in range(0, len(idx), 2048):
            part = sets[idx[a : a + 2048], :size]
            acc = bits[part[:, 0]].copy()
            for c in range(1, size):
                acc &= bits[part[:, c]]
            vals[idx[a : a + 2048]] = np.bitwise_count(acc).sum(axis=1)
    return vals


def compiled_supports(bits: np.ndarray, sets: np.ndarray, sentinel: int) -> np.ndarray:
    """:func:`padded_supports` by the compiled kernel :func:`~graphanon.algorithms.hierarchy._kernels.set_supports`.

    What a Dask worker runs for a sweep's prefetch (often 10^5 sets), with
    no temporary per set: 134,749 pairs over bitmaps of 10^6 records took
    1.8 s of CPU, where :func:`padded_supports` took 3.1 s for 20,000 of
    them (load 8). A worker pays numba's start-up once; the
    in-process path keeps :func:`padded_supports`, so ``anonymize -a aa``
    does not import numba.

    Examples
    --------
    >>> bits = sparse_bitmaps(sp.csr_array([[1, 1, 0], [1, 0, 1], [1, 1, 1]], dtype=bool)).bits
    >>> compiled_supports(bits, np.array([[0, 3], [0, 1], [1, 2]]), 3).tolist()
    [3, 2, 1]
    """
    from graphanon.algorithms.hierarchy._kernels import set_supports

    sets = np.ascontiguousarray(sets, dtype=np.int64)
    if not len(sets):
        return np.zeros(0, dtype=np.int64)
    return set_supports(bits, sets, (sets < sentinel).sum(axis=1))


def set_keys(sets: np.ndarray, sentinel: int) -> np.ndarray:
    """One sortable key per row of ``sets`` (sorted, ``sentinel``-padded), in the rows' lexicographic order.

    An int64 ``sum(row[c] * (sentinel + 1)^(width - 1 - c))`` when it fits,
    else the row's big-endian bytes (a ``void`` key: byte order is numeric
    order for non-negative values).

    Examples
    --------
    >>> set_keys(np.array([[1, 3], [0, 3], [2, 3]]), 3).tolist()
    [7, 3, 11]
    """
    width = sets.shape[1]
    if (sentinel + 1) ** width < 2**62:
        key = np.zeros(len(sets), dtype=np.int64)
        for c in range(width):
            key = key * (sentinel + 1) + sets[:, c]
        return key
    return np.ascontiguousarray(sets.astype(">i8")).view(np.dtype((np.void, 8 * width))).ravel()


def _antichains(index, rows: np.ndarray, sentinel: int) -> np.ndarray:
    """``rows`` (node sets, ``sentinel``-padded) sorted and deduplicated per row, without those holding a node and its ancestor."""
    out = np.sort(rows, axis=1)
    keep = np.ones(len(out), dtype=bool)
    end = np.r_[index.end, sentinel]
    for x, y in itertools.combinations(range(out.shape[1]), 2):
        a, b = out[:, x], out[:, y]
        keep &= ~((a < b) & (b < end[np.minimum(a, sentinel)]))  # b strictly under a
    return drop_repeats(out[keep], sentinel)


def drop_repeats(out: np.ndarray, sentinel: int) -> np.ndarray:
    """Rows of ``out`` (each sorted) with a repeated node replaced by ``sentinel`` and moved to the end, in place.

    Examples
    --------
    >>> drop_repeats(np.array([[1, 1, 2], [0, 3, 3]]), 9).tolist()
    [[1, 2, 9], [0, 3, 9]]
    """
    if out.shape[1] > 1:
        dup = np.zeros(out.shape, dtype=bool)
        dup[:, 1:] = out[:, 1:] == out[:, :-1]
        out[dup] = sentinel
        out.sort(axis=1)
    return out


def fix_universe(index, owner: np.ndarray, members: np.ndarray, chunk: int = 1 << 21) -> np.ndarray:
    """Every node set a sweep over the violations ``members`` can ask about, distinct, in lexicographic order.

    Parameters
    ----------
    index : HierarchyIndex
        The taxonomy arrays (``parent``, ``end``, ``n_nodes``).
    owner : ndarray of int64
        Node -> its cut node at the start of the sweep.
    members : ndarray of int64, shape (n_violations, width)
        The violations (original cut nodes, padded with -1).
    chunk : int
        Candidate rows built at a time (memory: ``chunk x width`` int64).

    Returns
    -------
    ndarray of int64, shape (n_sets, width)
        Sorted rows padded with ``index.n_nodes``: for every violation, every
        choice of one ancestor-or-self of each member's cut node whose nodes
        are pairwise unrelated (no node under another), duplicates removed.

    Notes
    -----
    During the sweep the cut only moves up, so a violation's members map to
    ancestors-or-self of their cut nodes now, and a candidate fix replaces
    each by an ancestor-or-self of that: every set the sweep counts (a stale
    violation re-mapped, a candidate fix's recoded itemset, the root) is in
    this list, and it is an antichain (the cut is one, and a fix's nodes are
    maximal). Complexity: O(violations x (height + 1)^width) rows built
    (distinct violations only), then sorted.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.algorithms.hierarchy._index import HierarchyIndex
    >>> data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    >>> index = HierarchyIndex(data, tax)
    >>> a, d = index.nodes.index("a"), index.nodes.index("d")  # a under H, d under K, both under P
    >>> sets = fix_universe(index, np.arange(index.n_nodes), np.array([[a, d]]))
    >>> [[index.nodes[v] for v in row if v < index.n_nodes] for row in sets.tolist()]
    [['T'], ['P'], ['H', 'K'], ['H', 'd'], ['a', 'K'], ['a', 'd']]
    """
    sentinel = index.n_nodes
    width = members.shape[1]
    paths = [np.r_[np.arange(sentinel), sentinel]]  # paths[d][x]: the d-th ancestor of x (sentinel past the root)
    while True:
        up = paths[-1]
        nxt = np.where((up == 0) | (up == sentinel), sentinel, np.r_[index.parent, sentinel][up])
        if (nxt == sentinel).all():
            break
        paths.append(nxt)
    if not len(members):
        return np.zeros((0, width), dtype=np.int64)
    cur = np.where(members >= 0, owner[np.maximum(members, 0)], sentinel)
    cur = np.unique(_antichains(index, cur, sentinel), axis=0)
    per = max(1, chunk // len(paths) ** width)
    keys, sets = [], []
    for a in range(0, len(cur), per):
        part = cur[a : a + per]
        rows = []
        for combo in itertools.product(range(len(paths)), repeat=width):
            row = np.stack([paths[d][part[:, j]] for j, d in enumerate(combo)], axis=1)
            ok = ((row < sentinel) | (part == sentinel)).all(axis=1)  # no member lifted past the root
            rows.append(row[ok])
        got = _antichains(index, np.concatenate(rows), sentinel)
        key, first = np.unique(set_keys(got, sentinel), return_index=True)
        keys.append(key)
        sets.append(got[first])
    key, first = np.unique(np.concatenate(keys), return_index=True)
    return np.concatenate(sets)[first]


class LocalCounts:
    """AA's counts in this process: the extended matrix of ``index`` and its vertical bitmaps.

    ``batch = 1``: candidate fixes are counted one at a time, in ascending
    cost, until one fixes the violation (most violations are fixed by the
    first). ``prefetch = None``: a question costs no round trip here, so
    nothing is counted ahead.
    """

    batch: int | None = 1
    prefetch = None

    def __init__(self, index) -> None:
        self.E = index.extended
        self.bits = block_bits(self.E)

    def violations(self, cut: np.ndarray, k: int, size: int, *, what: str, advice: str) -> list:
        """The minimal itemsets of at most ``size`` cut nodes with support in ``(0, k)``, by level."""
        return minimal_infrequent_itemsets(self.E[:, cut], k, size, what=what, advice=advice)[0]

    def padded(self, sets: np.ndarray, sentinel: int) -> np.ndarray:
        """:func:`padded_supports` of ``sets``."""
        return padded_supports(self.bits, sets, sentinel)


def columns(Eb, cut: np.ndarray) -> sp.csr_array:
    """The columns ``cut`` of a block (the records as published by the cut)."""
    return sp.csr_array(Eb[:, cut])


def block_bits(Eb, chunk: int = CHUNK_ROWS) -> np.ndarray:
    """The vertical bitmaps of an extended matrix or block (:func:`graphanon.counting.support.sparse_bitmaps`), packed ``chunk`` rows (``chunk / 64`` words) at a time, so the packing's temporaries (8 to 32 bytes per nonzero) never hold more than one chunk."""
    n_words = max(1, (Eb.shape[0] + 63) // 64)
    bits = np.zeros((Eb.shape[1], n_words), dtype=np.uint64)
    for a in range(0, Eb.shape[0], chunk):
        part = sparse_bitmaps(Eb[a : a + chunk]).bits
        bits[:, a // 64 : a // 64 + part.shape[1]] = part
    return bits


class BlockCounts:
    """AA's counts summed over record blocks on the workers of a ``dask.distributed.Client``.

    The records of ``index.data`` are cut into ``n_partitions`` row blocks
    (default one per worker) and scattered (or ``blocks``, records already
    on the workers, are used); each worker builds its blocks of the extended matrix
    (:func:`~graphanon.algorithms.hierarchy._index.extended_matrix`) and their vertical bitmaps, which stay there.

    Before each sweep, :meth:`prefetch` counts every set the sweep can ask
    about (:func:`fix_universe`) in one round trip (one per
    :data:`PREFETCH_SETS` sets) and keeps the supports; :meth:`padded` answers
    from them, and asks the workers only for a set it does not know
    (``misses`` counts those; none in a sweep). ``batch = None``: the
    candidate fixes of a violation are looked up at once.

    Memory: the workers hold the extended blocks (``occurrences x (height +
    1)`` nonzeros) and bitmaps (``nodes x records / 8`` bytes) between them;
    the client the scattered data once while it is sent, and the known
    supports (16 bytes a set for int64 keys).
    """

    batch: int | None = None

    def __init__(self, index, client, n_partitions: int | None, progress: ProgressCallback | None,
                 blocks=None) -> None:
        import graphanon.distributed as distributed

        self.distributed = distributed
        self.client = client
        self.progress = progress
        self.index = index
        self.width = 1  # the known sets (sorted rows padded to this width), their keys (set_keys) and supports
        self.sets = np.zeros((0, 1), dtype=np.int64)
        self.keys = set_keys(self.sets, index.n_nodes)
        self.supports = np.zeros(0, dtype=np.int64)
        self.misses = 0
        if blocks is not None:  # the records are on the workers already (graphanon.distributed.Blocks)
            X = blocks
        else:
            if n_partitions is None:  # one block per worker: fewer tasks per question
                n_partitions = max(1, len(client.scheduler_info().get("workers", {})))
            X = distributed.scatter_blocks(index.data.matrix, client, n_partitions)
        self.E = distributed.map_blocks(X, client, extended_matrix, index.ancestor_matrix(), n_items=index.n_nodes)
        self.bits = client.map(block_bits, self.E.futures)

    def violations(self, cut: np.ndarray, k: int, size: int, *, what: str, advice: str) -> list:
        """:meth:`LocalCounts.violations`, level by level on the blocks (equal result)."""
        Ec = self.distributed.map_blocks(self.E, self.client, columns, cut, n_items=len(cut))
        viol, _ = self.distributed.minimal_infrequent_itemsets(
            Ec, k, size, client=self.client, progress=self.progress, what=what, advice=advice
        )
        return viol

    def prefetch(self, owner: np.ndarray, members: np.ndarray) -> None:
        """Count, in one round trip, every set a sweep over ``members`` from the cut ``owner`` can ask about."""
        sets = fix_universe(self.index, owner, members)
        self._count(sets, "aa sweep")

    def _count(self, sets: np.ndarray, kind: str) -> None:
        """Count the sorted ``sets`` not known yet on the blocks (one round trip per :data:`PREFETCH_SETS`), keep their supports."""
        sentinel = self.index.n_nodes
        if sets.shape[1] > self.width:  # a wider pass: the known sets padded to its width (same order)
            self.width = sets.shape[1]
            self.sets = _widen(self.sets, self.width, sentinel)
            self.keys = set_keys(self.sets, sentinel)
        sets = _widen(sets, self.width, sentinel)
        key, first = np.unique(set_keys(sets, sentinel), return_index=True)
        new = ~_isin_sorted(key, self.keys)
        sets, key = sets[first[new]], key[new]
        for a in range(0, len(sets), PREFETCH_SETS):
            part = sets[a : a + PREFETCH_SETS]
            sup = self.distributed.sum_blocks(self.client, self.bits, compiled_supports, part, sentinel, small=True,
                                              kind=kind)
            keys = np.concatenate([self.keys, key[a : a + PREFETCH_SETS]])
            order = np.argsort(keys, kind="stable")
            self.keys = keys[order]
            self.sets = np.concatenate([self.sets, part])[order]
            self.supports = np.concatenate([self.supports, sup])[order]

    def padded(self, sets: np.ndarray, sentinel: int) -> np.ndarray:
        """:func:`padded_supports` of ``sets`` summed over the blocks: looked up, counted only when unknown."""
        if not len(sets):
            return np.zeros(0, dtype=np.int64)
        sets = np.sort(np.asarray(sets, dtype=np.int64), axis=1)
        if sets.shape[1] > self.width or not _isin_sorted(set_keys(_widen(sets, self.width, sentinel), sentinel),
                                                           self.keys).all():
            self.misses += 1
            self._count(sets, "aa sweep miss")
        return self.supports[np.searchsorted(self.keys, set_keys(_widen(sets, self.width, sentinel), sentinel))]


def _widen(sets: np.ndarray, width: int, sentinel: int) -> np.ndarray:
    """``sets`` padded with ``sentinel`` columns to ``width``."""
    if sets.shape[1] >= width:
        return sets
    return np.pad(sets, ((0, 0), (0, width - sets.shape[1])), constant_values=sentinel)


def _isin_sorted(key: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Whether each of ``key`` is in the sorted ``known``."""
    if not len(known):
        return np.zeros(len(key), dtype=bool)
    pos = np.minimum(np.searchsorted(known, key), len(known) - 1)
    return known[pos] == key
