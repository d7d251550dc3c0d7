"""Independent tasks on a Dask client or a local process pool, results in order.

:func:`map_ordered` runs ``fn(task)`` for a stream of independent tasks and
yields the results in task order, reporting progress as they arrive. Where
they run is the caller's choice, the results are not: ``client`` (a
``dask.distributed.Client``) submits them to its workers, ``n_jobs > 1`` to a
local process pool, otherwise they run here, one after the other. Tasks are
drawn from the iterator lazily and at most ``in_flight`` are pending at a
time, so a long stream of large tasks never sits in memory at once.

The function and the tasks must be picklable (a module-level function, numpy
arrays and plain values) for the pool and for a cluster of processes.

Examples
--------
>>> list(map_ordered(abs, [-3, 1, -2]))
[3, 1, 2]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized

from graphanon.errors import ParameterError
from graphanon.utils.progress import ProgressCallback, report

__all__ = ["map_ordered"]

_END = object()


def _workers(client) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def map_ordered(
    fn: Callable,
    tasks: Iterable,
    *,
    client=None,
    n_jobs: int = 1,
    in_flight: int | None = None,
    total: int | None = None,
    progress: ProgressCallback | None = None,
    message: str = "tasks",
) -> Iterator:
    """Yield ``fn(task)`` for every task, in task order, wherever the tasks run.

    Parameters
    ----------
    fn : callable
        A function of one task; picklable for the pool and for clusters of processes.
    tasks : iterable
        Independent tasks, drawn lazily.
    client : dask.distributed.Client, optional
        Submit the tasks to this client's workers (``pure=False``: every task
        runs, none is taken from an earlier call's cache); each task's data is
        scattered first, so it travels as data, not in the task graph.
    n_jobs : int, default 1
        Without ``client``: worker processes of a local pool (``fork`` where
        available); 1 runs the tasks here, one after the other.
    in_flight : int, optional
        Tasks submitted but not yet yielded, at most (default twice the
        workers or processes).
    total : int, optional
        Number of tasks, for the progress report (default ``len(tasks)`` when
        it has one).
    progress : callable(done, total, message), optional
        Called after each result, in order.
    message : str
        The phase named in the progress report.

    Yields
    ------
    object
        ``fn(task)``, in the order of ``tasks``.

    Raises
    ------
    ParameterError
        On ``n_jobs`` or ``in_flight`` below 1.

    Notes
    -----
    Complexity: the tasks' own cost, plus one submission and one result transfer per
    task on a client or pool.

    Examples
    --------
    >>> seen = []
    >>> list(map_ordered(len, ["ab", "c"], progress=lambda d, t, m: seen.append((d, t, m)), message="words"))
    [2, 1]
    >>> seen
    [(1, 2, 'words'), (2, 2, 'words')]
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    if in_flight is not None and (isinstance(in_flight, bool) or not isinstance(in_flight, int) or in_flight < 1):
        raise ParameterError(f"in_flight must be an integer >= 1, got {in_flight!r}")
    if total is None and isinstance(tasks, Sized):
        total = len(tasks)
    done = 0

    def count(result):
        nonlocal done
        done += 1
        report(progress, done, total if total is not None else done, message)
        return result

    if client is None and n_jobs == 1:
        for task in tasks:
            yield count(fn(task))
        return
    if client is not None:
        width = in_flight or 2 * _workers(client)
        yield from (count(r) for r in _windowed(lambda t: client.submit(fn, _scattered(client, t), pure=False),
                                                tasks, width))
        return
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in mp.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=n_jobs, mp_context=mp.get_context(method)) as pool:
        width = in_flight or 2 * n_jobs
        yield from (count(r) for r in _windowed(lambda t: pool.submit(fn, t), tasks, width))


def _scattered(client, task):
    """``task`` sent to the workers ahead of the task that uses it (a future), so large arrays travel as data and not inside the task graph (which Dask warns about from a few MB)."""
    return client.scatter([task], hash=False)[0]


def _windowed(submit: Callable, tasks: Iterable, width: int) -> Iterator:
    """Results of ``submit(task).result()`` in order, at most ``width`` futures pending."""
    pending: deque = deque()
    it = iter(tasks)
    for task in it:
        pending.append(submit(task))
        if len(pending) >= width:
            break
    while pending:
        result = pending.popleft().result()
        task = next(it, _END)
        if task is not _END:
            pending.append(submit(task))
        yield result
