"""The local Gray-TSP solver's driver: segments to the numba kernels of :mod:`._tsp_kernels`, in tasks.

:func:`local_results` yields, in segment order, the result of every segment
of a Gray order (``solver="local"`` of
:func:`~graphanon.algorithms.nonreciprocal.gray_tsp_details`), solving 16
consecutive segments per task here, in a process pool or on a Dask client.
"""

from __future__ import annotations

import time

import numpy as np

from graphanon.distributed.tasks import map_ordered

__all__ = ["local_results", "path_lower_bound"]

#: Nearest neighbours per node tried by a move, longest run swapped by a kick,
#: kicks per kernel call between clock checks (Or-opt moves runs of up to 3).
_NEIGHBOURS = 16
_KICK_WINDOW = 16
_KICKS_PER_ROUND = 100

#: Segments per task handed to a worker process or a Dask worker.
_SEGMENTS_PER_TASK = 16


def path_lower_bound(D: np.ndarray) -> int:
    """Every node but the start is entered once, from a node other than the end."""
    L = D.shape[0]
    Dm = D.astype(np.float64).copy()
    np.fill_diagonal(Dm, np.inf)
    Dm[L - 1, :] = np.inf  # the end has no successor
    Dm[:, 0] = np.inf  # the start has no predecessor
    return int(Dm[:, 1:].min(axis=0).sum())


def row_lengths(words: np.ndarray) -> np.ndarray:
    """Number of set bits (the record length) of every row of a uint64 word matrix."""
    return np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1).sum(axis=1, dtype=np.int64)


def _local_path(seg_words, gcost, seed_seq, time_limit, step_limit, length_weight=0):
    """One segment by the local solver: ``(gray_cost, path or None, cost, solved)`` as :func:`_solve_segment`.

    With ``length_weight = w > 0`` the search minimizes ``H(a, b) + w | |a| - |b| |``
    over the path (records of similar length kept together, docs/order.md, "Why the
    order drives QE"); the path is kept only when it is shorter than the Gray path in
    that objective and not longer in Hamming distance. ``cost`` is always the Hamming length.
    """
    from graphanon.algorithms.nonreciprocal._tsp_kernels import (
        hamming_matrix_kernel,
        improve_path,
        neighbour_lists,
        path_cost,
    )

    L = seg_words.shape[0]
    if L <= 3 or gcost == 0:
        return gcost, None, gcost, False
    H = hamming_matrix_kernel(np.ascontiguousarray(seg_words))
    D = H
    if length_weight:
        lengths = row_lengths(seg_words)
        D = (H + length_weight * np.abs(lengths[:, None] - lengths[None, :])).astype(np.int32)
    objective_gray = int(path_cost(D, np.arange(L, dtype=np.int64)))
    if objective_gray <= path_lower_bound(D):
        return gcost, None, gcost, False
    nbr = neighbour_lists(D, _NEIGHBOURS)
    state = np.asarray(seed_seq.generate_state(1, np.uint64), dtype=np.uint64)
    path = np.arange(L, dtype=np.int64)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    cost = improve_path(D, path, nbr, 0, _KICK_WINDOW, state, True)
    remaining = step_limit
    while remaining is None or remaining > 0:
        kicks = _KICKS_PER_ROUND if remaining is None else min(_KICKS_PER_ROUND, remaining)
        cost = improve_path(D, path, nbr, kicks, _KICK_WINDOW, state, False)
        if remaining is not None:
            remaining -= kicks
        if deadline is not None and time.perf_counter() >= deadline:
            break
    cost = int(path_cost(H, path)) if length_weight else int(cost)
    if int(path_cost(D, path)) < objective_gray and cost <= gcost:  # never worse than the Gray segment
        return gcost, path, cost, True
    return gcost, None, gcost, True


def _solve_local_segments(task):
    """Several consecutive segments by the local solver (one task of the pool or of a Dask worker).

    ``task`` is ``(words, offsets, gray_costs, seed_sequences, (time_limit, step_limit, length_weight))``:
    segment ``s`` is ``words[offsets[s]:offsets[s + 1]]`` in Gray order. Returns
    one :func:`_solve_segment`-style tuple per segment.
    """
    words, offsets, gcosts, seed_seqs, (time_limit, step_limit, length_weight) = task
    return [
        _local_path(
            words[offsets[s] : offsets[s + 1]], int(gcosts[s]), seed_seqs[s], time_limit, step_limit, length_weight
        )
        for s in range(len(seed_seqs))
    ]


def _compile_local_kernels() -> None:
    """Compile (or load from numba's cache) the local solver's kernels by a call on a tiny segment."""
    words = np.array([[0], [1], [3], [7], [15]], dtype=np.uint64)
    _local_path(words, 7, np.random.SeedSequence(0), None, 1)


def local_results(words, gray, bounds, gray_costs, seeds, budget, client, n_jobs, progress):
    """Yield the local solver's result of every segment, in order; tasks of consecutive segments."""
    t = len(bounds) - 1
    starts = list(range(0, t, _SEGMENTS_PER_TASK))

    def tasks():
        for first in starts:
            last = min(first + _SEGMENTS_PER_TASK, t)
            lo, hi = int(bounds[first]), int(bounds[last])
            offsets = bounds[first : last + 1] - lo
            yield words[gray[lo:hi]], offsets, gray_costs[first:last], seeds[first:last], budget

    if client is None and n_jobs > 1 and len(starts) > 1:
        _compile_local_kernels()  # once here: the forked workers inherit the machine code
    done = 0
    for chunk in map_ordered(
        _solve_local_segments, tasks(), client=client, n_jobs=1 if len(starts) <= 1 else int(n_jobs),
        total=len(starts),
    ):
        for result in chunk:
            done += 1
            if progress is not None:
                progress(done, t, "Gray-TSP segments")
            yield result
