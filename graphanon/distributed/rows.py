"""Rows of record blocks brought to the client in a chosen order, a run at a time.

A writer that must emit every record in one global order (a release's secret
row order, the fingerprint's canonical order) but must not hold all records
asks :func:`take_rows` for them: the order is cut into runs of ``chunk``
positions; for each run every block returns the rows it holds (an optional
function transforms them on the worker first), and the client interleaves
them into run order. One run is assembled while the next is fetched.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> runs = _assemble(2, {0: (np.array([1]), np.array([2], dtype=np.int32), np.array([7, 8])),
...                      1: (np.array([0]), np.array([1], dtype=np.int32), np.array([5]))})
>>> [x.tolist() for x in runs]
[[1, 2], [5, 7, 8]]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from graphanon.distributed._blocks import Blocks, round_trip

__all__ = ["take_rows"]


def _take(X, rows, fn, *args) -> tuple[np.ndarray, np.ndarray]:
    """Row lengths and concatenated indices of ``X[rows]`` (``rows``: local positions, or an ``(a, b)`` range), through ``fn``."""
    if isinstance(rows, tuple):
        a, b = rows
        lo, hi = int(X.indptr[a]), int(X.indptr[b])
        part = sp.csr_array((X.data[lo:hi], X.indices[lo:hi], X.indptr[a : b + 1] - lo), shape=(b - a, X.shape[1]))
    else:
        part = sp.csr_array(X[rows])
    if fn is not None:
        part = fn(part, *args)
    return np.diff(part.indptr).astype(np.int32), np.asarray(part.indices)


def _assemble(size: int, replies: dict) -> tuple[np.ndarray, np.ndarray]:
    """The row lengths and indices of a run of ``size`` rows, in run order.

    ``replies[b]`` is ``(positions in the run, lengths, indices)`` of the rows block ``b`` returned.
    """
    lengths = np.zeros(size, dtype=np.int64)
    for pos, lens, _ in replies.values():
        lengths[pos] = lens
    start = np.cumsum(lengths) - lengths
    total = int(lengths.sum())
    dtype = np.result_type(*[vals.dtype for _, _, vals in replies.values()]) if replies else np.int64
    out = np.empty(total, dtype=dtype)
    for pos, lens, vals in replies.values():
        if len(vals):
            lens = lens.astype(np.int64)
            src = np.cumsum(lens) - lens
            out[np.repeat(start[pos] - src, lens) + np.arange(len(vals))] = vals
    return lengths, out


def take_rows(blocks: Blocks, client, order: np.ndarray | None = None, fn=None, *args,
              chunk: int = 1 << 17) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The rows of ``blocks`` in the global ``order``, as runs ``(lengths, indices)`` of at most ``chunk`` rows.

    Parameters
    ----------
    blocks : Blocks
        Record blocks on the workers (CSR).
    client : dask.distributed.Client
    order : ndarray of int, optional
        Global row numbers in the order wanted (a permutation, or any
        selection); None: every row in stored order.
    fn : callable, optional
        ``fn(rows, *args)`` applied on the worker to the selected rows of a
        block (a CSR array) before they are sent; must keep the rows.
    chunk : int
        Rows per run.

    Yields
    ------
    lengths : ndarray of int64
        The run's row lengths.
    indices : ndarray
        Their column indices, concatenated.

    Notes
    -----
    Complexity: every selected row crosses the network once; the client holds
    two runs (the one yielded and the next, fetched meanwhile). A run costs
    one task per block holding some of its rows, and one round trip
    (``"rows"``, :func:`graphanon.distributed.count_round_trips`).
    """
    offsets = np.r_[0, np.cumsum(blocks.n_rows)].astype(np.int64)
    n = int(offsets[-1]) if order is None else len(order)

    def request(a: int):
        b = min(n, a + chunk)
        if order is None:  # stored order: each block's slice of [a, b)
            wanted = None
            asks = {}
            for blk in range(len(blocks)):
                lo, hi = max(a, offsets[blk]), min(b, offsets[blk + 1])
                if lo < hi:
                    asks[blk] = (np.arange(lo - a, hi - a), (int(lo - offsets[blk]), int(hi - offsets[blk])))
        else:
            wanted = np.asarray(order[a:b], dtype=np.int64)
            blk_of = np.searchsorted(offsets, wanted, side="right") - 1
            asks = {}
            for blk in np.unique(blk_of).tolist():
                pos = np.flatnonzero(blk_of == blk)
                asks[blk] = (pos, wanted[pos] - offsets[blk])
        futures = {blk: (pos, client.submit(_take, blocks.futures[blk], rows, fn, *args, pure=False))
                   for blk, (pos, rows) in asks.items()}
        return b - a, futures

    pending: deque = deque()
    starts = iter(range(0, n, chunk))
    first = next(starts, None)
    if first is not None:
        pending.append(request(first))
    while pending:
        size, futures = pending.popleft()
        nxt = next(starts, None)
        if nxt is not None:
            pending.append(request(nxt))
        round_trip("rows")
        replies = {blk: (pos, *fut.result()) for blk, (pos, fut) in futures.items()}
        yield _assemble(size, replies)
