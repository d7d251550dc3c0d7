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

__all__ = ["map_batched", "map_ordered"]

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


def map_batched(
    fn: Callable,
    tasks: Iterable,
    *,
    client,
    progress: ProgressCallback | None = None,
    message: str = "tasks",
    kind: str = "tasks",
) -> list:
    """``[fn(task) for task in tasks]`` on the workers of ``client`` in two round trips, whatever the number of tasks.

    Every task's data is scattered in one call (one round trip, ``"scatter"``),
    every task is submitted at once (``client.map``, ``pure=False``), and the
    results are gathered in one call (one round trip of ``kind``,
    :func:`graphanon.distributed.count_round_trips`). Where :func:`map_ordered`
    keeps a window of tasks in flight and waits for each result in turn (two
    waits a task: its scatter and its result), this waits twice in all; the
    price is that the client holds every task and every result at once, so it
    suits a bounded number of tasks whose data the client holds anyway.

    Parameters
    ----------
    fn : callable
        A module-level function of one task (the workers import it).
    tasks : iterable
        Independent tasks (numpy arrays and plain values).
    client : dask.distributed.Client
    progress : callable(done, total, message), optional
        Called as each task finishes (in completion order).
    message : str
        The phase named in the progress report.
    kind : str
        The round trip kind of the gather.

    Returns
    -------
    list
        ``fn(task)`` for every task, in task order.

    Notes
    -----
    Complexity: the tasks' own cost; each task's data crosses the network
    once each way; two round trips (none without tasks).

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2, processes=False)) as client:  # doctest: +SKIP
    ...     map_batched(abs, [-3, 1, -2], client=client)
    [3, 1, 2]
    """
    from graphanon.distributed._blocks import gather, round_trip, track

    tasks = list(tasks)
    if not tasks:
        return []
    round_trip("scatter")
    data = client.scatter(tasks, hash=False)
    futures = client.map(fn, data, pure=False)
    track(futures, progress, message)
    return list(gather(client, futures, kind))


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
