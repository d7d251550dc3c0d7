"""Row blocks on Dask workers: scatter a record matrix, sum per-block results as a tree, report progress.

Shared by every distributed computation of :mod:`graphanon.distributed`.
Nothing here imports dask at module level: a :class:`Blocks` is made from a
``dask.distributed.Client`` the caller already has, and
:func:`as_completed` is imported when progress is reported.
"""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError
from graphanon.utils.progress import ProgressCallback, report

__all__ = ["Blocks", "as_blocks", "count_round_trips", "gather", "map_blocks", "n_blocks", "round_trip", "scatter_blocks",
           "sum_blocks", "track", "tree", "tree_sum"]

_COUNTERS: list[Counter] = []  # the counters of the count_round_trips() blocks now open


@contextmanager
def count_round_trips():
    """Count the client's round trips to the workers inside a ``with`` block, by kind.

    A round trip is one wait of the client for results of the workers (a
    gather, the total of a tree of additions, one run of rows, a broadcast):
    what a question costs in latency whatever its size. Every helper of
    :mod:`graphanon.distributed` that waits reports it (:func:`round_trip`).

    Yields
    ------
    collections.Counter
        Round trips by kind (``"count"``, ``"scatter"``, ``"rows"``, ``"read"``, and the
        callers' own, such as AA's ``"aa sweep"``); ``sum(c.values())`` is
        the total.

    Examples
    --------
    >>> with count_round_trips() as trips:
    ...     round_trip("count")
    >>> dict(trips)
    {'count': 1}
    """
    counter: Counter = Counter()
    _COUNTERS.append(counter)
    try:
        yield counter
    finally:
        _COUNTERS.remove(counter)


def round_trip(kind: str) -> None:
    """Report one round trip of kind ``kind`` to the open :func:`count_round_trips` counters."""
    for counter in _COUNTERS:
        counter[kind] += 1


def gather(client, futures, kind: str = "count"):
    """``client.gather(futures)``, counted as one round trip of ``kind``."""
    round_trip(kind)
    return client.gather(futures)


@dataclass(frozen=True, eq=False)
class Blocks:
    """The row blocks of one boolean record matrix, held on the workers of a Dask client.

    Attributes
    ----------
    futures : list of distributed.Future
        One per block, in record order; each holds a boolean
        ``scipy.sparse.csr_array`` of shape ``(n_rows[b], n_items)``.
    n_rows : ndarray of int64
        Records per block; block ``b`` holds records
        ``n_rows[:b].sum()`` to ``n_rows[:b + 1].sum() - 1``.
    n_items : int
        Columns (items) of every block.
    items : tuple of str, optional
        The column labels, when the blocks were read from a file
        (:func:`graphanon.distributed.read_parquet_blocks`).
    ids : list of distributed.Future, optional
        One per block: its record ids (an Arrow string array), when read
        from a file with ``record_ids=True``.
    """

    futures: list
    n_rows: np.ndarray
    n_items: int
    items: tuple | None = None
    ids: list | None = None

    @property
    def n_records(self) -> int:
        return int(self.n_rows.sum())

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_records, self.n_items

    def __len__(self) -> int:
        return len(self.futures)

    def gather(self, client):
        """The whole matrix on the client (for tests and small data): the blocks stacked."""
        parts = client.gather(self.futures)
        if not parts:
            return sp.csr_array((0, self.n_items), dtype=bool)
        return sp.csr_array(sp.vstack(parts, format="csr"))


def n_blocks(client, n_partitions: int | None) -> int:
    """``n_partitions`` checked (a whole number >= 1), or twice the workers of ``client`` when None."""
    if n_partitions is None:
        round_trip("workers")  # a synchronous client asks the scheduler
        return 2 * max(1, len(client.scheduler_info().get("workers", {})))
    if isinstance(n_partitions, bool) or not isinstance(n_partitions, (int, np.integer)) or n_partitions < 1:
        raise ParameterError(f"n_partitions must be a whole number >= 1, got {n_partitions!r}")
    return int(n_partitions)


def scatter_blocks(X, client, n_partitions: int | None = None) -> Blocks:
    """Cut ``X`` into ``n_partitions`` row blocks of near-equal size and scatter them.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Boolean incidence matrix (on the client).
    client : dask.distributed.Client
    n_partitions : int, optional
        Number of blocks; default twice the number of workers.

    Returns
    -------
    Blocks
    """
    X = bool_csr(X, copy=False)
    n_partitions = n_blocks(client, n_partitions)
    edges = np.linspace(0, X.shape[0], n_partitions + 1).astype(np.int64)
    blocks = [row_view(X, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    round_trip("scatter")
    futures = client.scatter(blocks, hash=False)  # fresh keys: equal blocks of an earlier call may be released
    return Blocks(futures, np.diff(edges), X.shape[1])


def row_view(X: sp.csr_array, a: int, b: int) -> sp.csr_array:
    """Rows ``a:b`` of the CSR array ``X`` sharing its data and indices (only the index pointer is new).

    ``X[a:b]`` copies the rows; cutting a matrix into blocks that way held
    a second copy of all records on the client while they were sent.

    Examples
    --------
    >>> X = sp.csr_array(np.eye(3, dtype=bool))
    >>> V = row_view(X, 1, 3)
    >>> V.toarray().tolist(), np.shares_memory(V.indices, X.indices)
    ([[False, True, False], [False, False, True]], True)
    """
    lo, hi = int(X.indptr[a]), int(X.indptr[b])
    view = sp.csr_array((b - a, X.shape[1]), dtype=X.dtype)
    view.data, view.indices, view.indptr = X.data[lo:hi], X.indices[lo:hi], X.indptr[a : b + 1] - lo
    return view


def as_blocks(X, client, n_partitions: int | None = None) -> Blocks:
    """``X`` itself when it is already :class:`Blocks`, else :func:`scatter_blocks` of it."""
    if client is None:
        raise ParameterError("client must be a dask.distributed.Client (got None)")
    if isinstance(X, Blocks):
        if n_partitions is not None:
            raise ParameterError("n_partitions cuts a matrix into blocks; these records are already Blocks")
        return X
    return scatter_blocks(X, client, n_partitions)


def _broadcast(client, args: tuple) -> tuple:
    """``args`` with every array of over 1 MB sent to all workers once (a future each).

    Smaller values travel inside the tasks.
    """
    out = tuple(client.scatter(a, broadcast=True, hash=False) if _nbytes(a) > 1 << 20 else a for a in args)
    for a in args:
        if _nbytes(a) > 1 << 20:
            round_trip("scatter")
    return out


def _nbytes(a) -> int:
    if isinstance(a, np.ndarray):
        return a.nbytes
    if isinstance(a, (sp.sparray, sp.spmatrix)) and hasattr(a, "indices"):
        return a.data.nbytes + a.indices.nbytes + a.indptr.nbytes
    return 0


def map_blocks(blocks: Blocks, client, fn, *args, n_items: int | None = None) -> Blocks:
    """The :class:`Blocks` of ``fn(X_b, *args)`` for every block ``X_b`` of ``blocks``, computed on the workers.

    ``fn`` must keep the rows of a block (a column selection, a product with
    an items x columns matrix); ``n_items`` is the columns of its results
    (default: those of ``blocks``). Array arguments are broadcast to the
    workers once.
    """
    args = _broadcast(client, args)
    # fresh keys (pure=False): an equal call made before (AA asks for the same cut's columns at the end of
    # one pass and the start of the next) may be in the middle of being released, and a task taking its
    # key would be cancelled with it ("already forgotten")
    futures = [client.submit(fn, b, *args, pure=False) for b in blocks.futures]
    return Blocks(futures, blocks.n_rows, blocks.n_items if n_items is None else int(n_items))


def sum_blocks(client, futures, fn, *args, small: bool = False, progress: ProgressCallback | None = None,
               message: str = "counting blocks", kind: str = "count"):
    """``sum over blocks b of fn(b, *args)`` for the block results ``futures`` on the workers.

    Tree-reduced on the workers (:func:`tree_sum`), or with ``small`` (a
    result of a few kilobytes, such as a vector of counts) gathered and
    added here: one round trip instead of ``log2(blocks)`` hops, which is
    what a short question costs. Array arguments of over 1 MB are broadcast
    to the workers once. One round trip of ``kind`` (:func:`count_round_trips`).
    """
    args = _broadcast(client, args)
    parts = [client.submit(fn, b, *args, pure=False) for b in futures]
    if not small:
        return tree_sum(client, parts, progress, message, kind=kind)
    track(parts, progress, message)
    total = None
    for part in gather(client, parts, kind):
        total = part if total is None else total + part
    return total


def track(futures, progress: ProgressCallback | None, message: str) -> None:
    """Report ``progress(done, len(futures), message)`` as each of ``futures`` finishes (returns when all have)."""
    if progress is None or not futures:
        return
    from distributed import as_completed

    report(progress, 0, len(futures), message)
    for done, _ in enumerate(as_completed(futures), start=1):
        report(progress, done, len(futures), message)


def tree(client, futures, combine=None):
    """The sum of the results of ``futures`` as one future: pairwise additions on the workers (a tree).

    ``combine(a, b)`` replaces the addition (any associative operation).
    """
    combine = combine or _add
    while len(futures) > 1:
        pairs = [client.submit(combine, a, b, pure=False) for a, b in zip(futures[::2], futures[1::2], strict=False)]
        futures = pairs + ([futures[-1]] if len(futures) % 2 else [])
    return futures[0]


def tree_sum(client, futures, progress: ProgressCallback | None = None, message: str = "counting blocks",
             kind: str = "count"):
    """Sum the results of ``futures`` on the workers, pairwise (a tree of additions), and fetch the total.

    The whole tree is submitted at once (one round trip of ``kind``); with
    ``progress`` the leaves (``futures``, one per block) are reported as
    they complete.
    """
    total = tree(client, list(futures))
    track(futures, progress, message)
    round_trip(kind)
    return total.result()


def _add(a, b):
    return a + b
