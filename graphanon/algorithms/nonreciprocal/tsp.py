"""The Gray-TSP order: the Gray order cut by the breakpoint DP, each segment re-ordered by an OR-Tools TSP path with fixed ends (optionally in a process pool or on a Dask client, :mod:`graphanon.distributed.tasks`)."""

from __future__ import annotations

from typing import cast

import numpy as np

from graphanon.algorithms.nonreciprocal.gray import (
    consecutive_packed,
    gray_order_packed,
    hamming_matrix_words,
)
from graphanon.algorithms.nonreciprocal.segments import check_lengths, segment_bounds
from graphanon.counting.bitset import bytes_to_words, pack_bytes
from graphanon.distributed.tasks import map_ordered
from graphanon.errors import ParameterError
from graphanon.graphs.order import GrayTSPResult
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.randomness import check_random_state

__all__ = ["DETERMINISTIC_STEP_LIMIT", "gray_tsp_details", "gray_tsp_order"]


_METAHEURISTICS = (
    "guided_local_search",
    "greedy_descent",
    "simulated_annealing",
    "tabu_search",
    "automatic",
)


#: Search steps per segment of the deterministic search (``time_limit=None``).
#: A step is one check of the solver's search limit, which OR-Tools makes at
#: every move it tries, so steps count work on any machine and load; 40,000
#: cost about 0.15 s of CPU per chess, mushroom or bms1 segment, about what
#: the 0.2 s default spends on an idle core (docs/order.md, "Deterministic
#: budget"). Counting solutions instead is no budget: guided local search can
#: go on for seconds without a new one.
DETERMINISTIC_STEP_LIMIT = 40000


_SAFETY_SECONDS = 3600.0


def _path_cost(D: np.ndarray, path: np.ndarray) -> int:
    return int(D[path[:-1], path[1:]].sum())


def _path_lower_bound(D: np.ndarray) -> int:
    """Every node but the start is entered once, from a node other than the end."""
    L = D.shape[0]
    Dm = D.astype(np.float64).copy()
    np.fill_diagonal(Dm, np.inf)
    Dm[L - 1, :] = np.inf  # the end has no successor
    Dm[:, 0] = np.inf  # the start has no predecessor
    return int(Dm[:, 1:].min(axis=0).sum())


def _tsp_path(
    D: np.ndarray,
    *,
    time_limit: float | None,
    solution_limit: int | None,
    step_limit: int | None,
    metaheuristic: str,
) -> np.ndarray:
    """Shortest (heuristic) Hamiltonian path from node 0 to node L-1 by OR-Tools routing."""
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2
    from ortools.util import optional_boolean_pb2

    L = D.shape[0]
    manager = pywrapcp.RoutingIndexManager(L, 1, [0], [L - 1])
    routing = pywrapcp.RoutingModel(manager)
    cb = routing.RegisterTransitMatrix(D.tolist())
    routing.SetArcCostEvaluatorOfAllVehicles(cb)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    params.local_search_metaheuristic = getattr(
        routing_enums_pb2.LocalSearchMetaheuristic, metaheuristic.upper()
    )
    ops = params.local_search_operators
    keep = {"use_two_opt", "use_or_opt", "use_relocate", "use_exchange"}
    for f in ops.DESCRIPTOR.fields:
        setattr(
            ops,
            f.name,
            optional_boolean_pb2.BOOL_TRUE if f.name in keep else optional_boolean_pb2.BOOL_FALSE,
        )
    # time_limit=None: the step limit stops the search; the hour-long cap never binds
    # before it (it only tells OR-Tools the guided local search has a timeout)
    seconds = _SAFETY_SECONDS if time_limit is None else time_limit
    params.time_limit.FromNanoseconds(max(1, int(seconds * 1e9)))
    if time_limit is None:  # no clock anywhere: OR-Tools' per-neighbour completion limit is 0.1 s by default
        params.lns_time_limit.FromNanoseconds(int(_SAFETY_SECONDS * 1e9))
    if solution_limit is not None:
        params.solution_limit = int(solution_limit)
    if step_limit is not None:  # a deterministic budget: count the solver's limit checks
        steps = iter(range(int(step_limit)))
        limit = routing.solver().CustomLimit(lambda: next(steps, None) is None)
        routing.AddSearchMonitor(limit)
    sol = routing.SolveWithParameters(params)
    if sol is None:  # pragma: no cover - a complete graph always has a path
        return np.arange(L)
    route = []
    idx = routing.Start(0)
    while not routing.IsEnd(idx):
        route.append(manager.IndexToNode(idx))
        idx = sol.Value(routing.NextVar(idx))
    route.append(manager.IndexToNode(idx))
    return np.asarray(route, dtype=np.int64)


def _solve_segment(task):
    """Re-order one segment (rows in Gray order) by a fixed-end TSP path.

    Returns ``(gray_cost, path or None, cost, solved)`` where ``path`` permutes
    the segment's positions (first and last fixed) and is given only when it is
    strictly shorter than the Gray path.
    """
    seg_words, gcost, seed_seq, (time_limit, solution_limit, step_limit, metaheuristic) = task
    L = seg_words.shape[0]
    if L <= 3 or gcost == 0:
        return gcost, None, gcost, False
    D = hamming_matrix_words(seg_words)
    if gcost <= _path_lower_bound(D):
        return gcost, None, gcost, False
    # Seeded numbering of the interior nodes: the solver breaks ties by node index.
    rng = np.random.default_rng(seed_seq)
    nodes = np.concatenate(([0], 1 + rng.permutation(L - 2), [L - 1]))
    route = _tsp_path(
        D[np.ix_(nodes, nodes)],
        time_limit=time_limit,
        solution_limit=solution_limit,
        step_limit=step_limit,
        metaheuristic=metaheuristic,
    )
    path = nodes[route]
    valid = path.size == L and path[0] == 0 and path[-1] == L - 1 and np.unique(path).size == L
    if valid:
        cost = _path_cost(D, path)
        if cost < gcost:  # never worse than the Gray segment
            return gcost, path, cost, True
    return gcost, None, gcost, True


def gray_tsp_details(
    X,
    *,
    min_segment: int = 300,
    max_segment: int = 350,
    time_limit: float | None = 0.2,
    solution_limit: int | None = None,
    step_limit: int | None = None,
    metaheuristic: str = "guided_local_search",
    rng=0,
    progress: ProgressCallback | None = None,
    n_jobs: int = 1,
    client=None,
) -> GrayTSPResult:
    """The Gray-TSP order of the records, with its segments and their costs.

    Sorts the records by Gray rank (:func:`gray_order`), cuts the order into
    segments with :func:`segment_breakpoints`, and re-orders each segment's
    interior by a shortest Hamiltonian path from its first to its last record
    (Hamming distances), solved with OR-Tools routing
    (``RoutingIndexManager(L, 1, [start], [end])``). The first and last record
    of every segment stay in place, so the Hamming distances at the
    breakpoints (and the closing pair of the cycle) are those of the Gray
    order. A segment's TSP path replaces its Gray path only when it is
    strictly shorter, so no segment gets longer.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
        Records x items.
    min_segment, max_segment : int, default 300 and 350
        Segment lengths for the breakpoint DP. Fewer than ``min_segment``
        records form one segment; an infeasible length range is relaxed as in
        :func:`segment_breakpoints` with ``strict=False``.
    time_limit : float or None, default 0.2
        Wall-clock seconds of solver search per segment. The outcome then
        depends on machine speed and load (see Notes). ``None``: no clock;
        the search stops after ``step_limit`` steps (default
        :data:`DETERMINISTIC_STEP_LIMIT`, about 0.2 s of search), so the
        order is the same on every machine, every run and every ``n_jobs``.
    solution_limit : int, optional
        Also stop each segment's search after this many solutions.
    step_limit : int, optional
        Stop each segment's search after this many steps (checks of the
        solver's search limit, made at every move it tries: a count of work,
        not of time). With ``time_limit=None`` (or a ``time_limit`` that never
        binds first) the result is fully deterministic.
    metaheuristic : str, default "guided_local_search"
        OR-Tools local-search metaheuristic: "guided_local_search",
        "greedy_descent", "simulated_annealing", "tabu_search" or "automatic".
    rng : None, int or numpy.random.Generator, default 0
        Seeds the numbering of the interior records handed to the solver (the
        solver itself draws no random numbers and breaks ties by node index);
        each segment gets its own stream, spawned from the generator's seed
        sequence (an int ``s`` gives the streams of ``SeedSequence(s).spawn``).
    progress : callable, optional
        Called as ``progress(done, total, "Gray-TSP segments")`` after each segment, in order.
    n_jobs : int, default 1
        Worker processes solving segments in parallel (segments are
        independent and each has its own seed stream, so the result does not
        depend on ``n_jobs`` when ``time_limit=None`` makes the search
        deterministic).
    client : dask.distributed.Client, optional
        Solve the segments on this client's workers instead
        (:func:`graphanon.distributed.tasks.map_ordered`); with
        ``time_limit=None`` the order equals the single-process one.

    Returns
    -------
    GrayTSPResult
        ``order`` (a permutation of ``range(n)``), the Gray order ``gray``,
        the segment ``bounds`` and per segment the Gray and TSP path costs and
        whether the solver ran (:func:`gray_tsp_order` returns ``order`` alone).

    Raises
    ------
    ParameterError
        On bad segment lengths, time or solution limits, metaheuristic or seed.

    Notes
    -----
    The paper solves each segment with a genetic algorithm; any TSP heuristic
    fits, as the goal is only to improve on the Gray order. Here the first
    solution is OR-Tools' PATH_CHEAPEST_ARC, improved by the chosen
    metaheuristic with the 2-opt, or-opt, relocate and exchange operators.
    Segments whose Gray path already meets a lower bound (every record but
    the first entered by its cheapest admissible arc), in particular
    segments of identical records, and segments with at most one interior
    record, skip the solver. OR-Tools is single-threaded and deterministic
    for a fixed model; the only nondeterminism is the wall-clock
    ``time_limit``. Pass ``time_limit=None`` for bit-for-bit reproducible
    orders (what :func:`~graphanon.algorithms.nonreciprocal.anonymize_nonreciprocal`
    does when given a seed).

    Complexity: O(n log n * b / 64) for the Gray order, O(n * (M - m)) for the DP,
    O(n * M * b / 64) for the distance matrices, plus at most
    ``time_limit`` per segment (about ``n / M`` segments), or
    ``step_limit`` search steps per segment.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal import hamming_cycle_length
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> order = gray_tsp_details(data, time_limit=None).order  # deterministic budget
    >>> hamming_cycle_length(data, order)  # Gray order: 12
    10
    >>> data.record_ids[order[0]], data.record_ids[order[-1]]  # fixed segment ends
    ('r2', 'r6')

    References
    ----------
    Xue et al., Anonymizing set-valued data by nonreciprocal recoding, KDD 2012,
    Sec. 4.1 (Gray-TSP order) and Figure 4(a).
    """
    m, M = check_lengths(min_segment, max_segment, ("min_segment", "max_segment"))
    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, (int, float, np.integer, np.floating))
        or not (time_limit > 0 and np.isfinite(time_limit))
    ):
        raise ParameterError(
            f"time_limit must be a positive number of seconds per segment or None, got {time_limit!r}"
        )
    for name, value in (("solution_limit", solution_limit), ("step_limit", step_limit)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1
        ):
            raise ParameterError(f"{name} must be a positive integer or None, got {value!r}")
    if time_limit is None and step_limit is None:
        step_limit = DETERMINISTIC_STEP_LIMIT
    if metaheuristic not in _METAHEURISTICS:
        raise ParameterError(
            f"metaheuristic must be one of {_METAHEURISTICS}, got {metaheuristic!r}"
        )
    gen = check_random_state(rng)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    packed, b = pack_bytes(X)
    n = packed.shape[0]
    words = bytes_to_words(packed)
    gray = gray_order_packed(packed, b)
    h = consecutive_packed(words, gray, cyclic=False)
    bounds = segment_bounds(h, n, m, M, strict=False)
    t = len(bounds) - 1
    # One independent stream per segment: results do not depend on n_jobs or client.
    seeds = cast(np.random.SeedSequence, gen.bit_generator.seed_seq).spawn(t)
    order = gray.copy()
    gray_costs = np.zeros(t, dtype=np.int64)
    tsp_costs = np.zeros(t, dtype=np.int64)
    solved = np.zeros(t, dtype=bool)
    solver = (None if time_limit is None else float(time_limit), solution_limit, step_limit, metaheuristic)

    def tasks():
        for s in range(t):
            lo, hi = int(bounds[s]), int(bounds[s + 1])
            yield words[gray[lo:hi]], int(h[lo : hi - 1].sum()), seeds[s], solver

    results = map_ordered(
        _solve_segment,
        tasks(),
        client=client,
        n_jobs=1 if t <= 1 else int(n_jobs),
        total=t,
        progress=progress,
        message="Gray-TSP segments",
    )
    for s, (gcost, path, cost, was_solved) in enumerate(results):
        lo, hi = int(bounds[s]), int(bounds[s + 1])
        gray_costs[s] = gcost
        tsp_costs[s] = cost
        solved[s] = was_solved
        if path is not None:
            order[lo:hi] = gray[lo:hi][path]
    return GrayTSPResult(
        order=order,
        gray=gray,
        bounds=bounds,
        gray_costs=gray_costs,
        tsp_costs=tsp_costs,
        solved=solved,
    )


def gray_tsp_order(X, **options) -> np.ndarray:
    """The cyclic Gray-TSP order of the records: ``gray_tsp_details(X, **options).order``.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    **options
        The keyword parameters of :func:`gray_tsp_details` (segment lengths,
        search budget, seed, ``n_jobs``, ``client``, progress).

    Returns
    -------
    ndarray of int64
        A permutation of ``range(n)``.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> gray_tsp_order(load("nr_table1"), time_limit=None).tolist()
    [1, 4, 0, 2, 3, 5]
    """
    return gray_tsp_details(X, **options).order
