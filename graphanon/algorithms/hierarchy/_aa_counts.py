"""The counts Apriori Anonymization (:mod:`graphanon.algorithms.hierarchy.aa`) asks for, in one process or on Dask.

AA asks three kinds of question about the extended matrix ``E`` (records x
taxonomy nodes: a record holds a node when it holds a leaf under it):

* the minimal violations of k^i over the current cut's columns ``E[:, cut]``
  (once per recount),
* the supports of batches of node sets (the sweep's re-counts of stale
  violations, padded rows),
* the supports of the candidate fixes of one violation.

:class:`LocalCounts` answers them from ``E`` and its vertical bitmaps in this
process. :class:`BlockCounts` holds the records as row blocks on the workers
of a ``dask.distributed.Client``; each worker builds its blocks of ``E`` and
their bitmaps, and every answer is a sum of per-block integer counts, so it
equals the one-process answer. The client keeps only the taxonomy arrays and
the questions.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.hierarchy._index import CHUNK_ROWS, extended_matrix
from graphanon.counting.support import minimal_infrequent_itemsets, sparse_bitmaps
from graphanon.utils.progress import ProgressCallback

__all__ = ["BlockCounts", "LocalCounts", "padded_supports"]


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


class LocalCounts:
    """AA's counts in this process: the extended matrix of ``index`` and its vertical bitmaps.

    ``batch = 1``: candidate fixes are counted one at a time, in ascending
    cost, until one fixes the violation (most violations are fixed by the
    first).
    """

    batch: int | None = 1

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
    (:func:`~graphanon.algorithms.hierarchy._index.extended_matrix`) and their vertical bitmaps, which stay there. ``batch =
    None``: the candidate fixes of a violation are counted in one round trip.

    Memory: the workers hold the extended blocks (``occurrences x (height +
    1)`` nonzeros) and bitmaps (``nodes x records / 8`` bytes) between them;
    the client the scattered data once while it is sent.
    """

    batch: int | None = None

    def __init__(self, index, client, n_partitions: int | None, progress: ProgressCallback | None,
                 blocks=None) -> None:
        import graphanon.distributed as distributed

        self.distributed = distributed
        self.client = client
        self.progress = progress
        if blocks is not None:  # the records are on the workers already (graphanon.distributed.Blocks)
            X = blocks
        else:
            if n_partitions is None:  # one block per worker: AA asks many short questions, each a task per block
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

    def padded(self, sets: np.ndarray, sentinel: int) -> np.ndarray:
        """:func:`padded_supports` of ``sets`` summed over the blocks (one round trip)."""
        if not len(sets):
            return np.zeros(0, dtype=np.int64)
        return self.distributed.sum_blocks(self.client, self.bits, padded_supports, sets, sentinel, small=True)
