"""The Gray-TSP order: the Gray order cut by the breakpoint DP, each segment re-ordered by a TSP path with fixed ends.

Two solvers: ``"ortools"`` (default), OR-Tools routing with guided local
search, and ``"local"``, iterated 2-opt / Or-opt local search in numba
started from the Gray path (:mod:`._tsp_kernels`): about ten times faster,
shorter orders and a lower ER, but a higher QE on Quest-like data
(docs/order.md, "The local solver"). Segments run in order, in a
process pool (``n_jobs``) or on a Dask client (:mod:`graphanon.distributed.tasks`).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from graphanon.algorithms.nonreciprocal.gray import (
    consecutive_packed,
    gray_order_packed,
    hamming_matrix_words,
)
from graphanon.algorithms.nonreciprocal.segments import check_lengths, segment_bounds
from graphanon.algorithms.nonreciprocal.tsp_local import local_results, path_lower_bound
from graphanon.counting.bitset import bytes_to_words, pack_bytes
from graphanon.distributed.tasks import map_ordered
from graphanon.errors import ParameterError
from graphanon.graphs.order import GrayTSPResult
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.randomness import check_random_state

__all__ = [
    "DETERMINISTIC_STEP_LIMIT",
    "LOCAL_STEP_LIMIT",
    "TSP_SOLVERS",
    "default_step_limit",
    "gray_tsp_details",
    "gray_tsp_order",
    "tsp_budget",
]


_METAHEURISTICS = (
    "guided_local_search",
    "greedy_descent",
    "simulated_annealing",
    "tabu_search",
    "automatic",
)


#: The solvers of a segment's path: OR-Tools routing (default) or iterated local search in numba,
#: on the Hamming distance (``"local"``) or on the Hamming distance plus the records' length
#: difference (``"local-length"``, issue 24: docs/order.md, "Why the order drives QE").
TSP_SOLVERS = ("ortools", "local", "local-length")

#: The local solvers and the weight of the length difference ``| |a| - |b| |`` added to the
#: Hamming distance of two records in their path objective.
LOCAL_LENGTH_WEIGHTS = {"local": 0, "local-length": 1}

#: Steps per segment of the ``"ortools"`` solver's deterministic search
#: (``time_limit=None``). A step is one check of the solver's search limit,
#: which OR-Tools makes at every move it tries, so steps count work on any
#: machine and load; 40,000 cost about 0.15 s of CPU per chess, mushroom or
#: bms1 segment, about what 0.2 s of wall-clock search spends on an idle core
#: (docs/order.md, "Deterministic budget"). Counting solutions instead is no
#: budget: guided local search can go on for seconds without a new one.
DETERMINISTIC_STEP_LIMIT = 40000

#: Steps per segment of the ``"local"`` solver's deterministic search. A step
#: is one kick of its iterated local search (a local double bridge and the
#: 2-opt / Or-opt descent after it). 1,500 cost about 10 ms of CPU per
#: 300-350-record segment of Quest data and give paths 5-6% shorter than
#: 40,000 OR-Tools steps (about 100 ms) on the same segments (docs/order.md,
#: "The local solver"; docs/scale.md, "Gray-TSP at 10^6").
LOCAL_STEP_LIMIT = 1500

def default_step_limit(solver: str) -> int:
    """The deterministic step budget per segment of ``solver`` when none is given.

    Parameters
    ----------
    solver : {"ortools", "local", "local-length"}

    Returns
    -------
    int
        :data:`DETERMINISTIC_STEP_LIMIT` search steps for ``"ortools"``,
        :data:`LOCAL_STEP_LIMIT` kicks for ``"local"`` and ``"local-length"``.

    Examples
    --------
    >>> default_step_limit("ortools"), default_step_limit("local")
    (40000, 1500)
    """
    return LOCAL_STEP_LIMIT if solver in LOCAL_LENGTH_WEIGHTS else DETERMINISTIC_STEP_LIMIT


_SAFETY_SECONDS = 3600.0



def tsp_budget(
    tsp_time_limit: float | None, tsp_step_limit: int | None, tsp_solver: str = "local-length"
) -> tuple[float | None, int | None]:
    """The Gray-TSP search budget per segment, ``(time_limit, step_limit)``: an explicit choice.

    The default is a fixed number of solver steps (a count of work, no
    clock): the order then never depends on machine load, and the recorded
    budget (``params``) is the same whether a run was seeded or not. A
    wall-clock budget is used only when asked for with ``tsp_time_limit``;
    the order then depends on the load, whatever ``rng`` is (the command
    line refuses it together with ``--seed``).

    Parameters
    ----------
    tsp_time_limit : float or None
        Seconds of search per segment, only when the caller asks for them.
    tsp_step_limit : int or None
        Solver steps per segment (default
        :func:`~graphanon.algorithms.nonreciprocal.default_step_limit` of the
        solver when no time limit is given: 40,000 OR-Tools steps, 1,500
        kicks of the local solver).
    tsp_solver : {"local-length", "ortools", "local"}, default "local-length"
        The segment solver (:func:`gray_tsp_details`).

    Returns
    -------
    (float or None, int or None)

    Examples
    --------
    >>> tsp_budget(None, None), tsp_budget(None, 500), tsp_budget(0.5, None)
    ((None, 1500), (None, 500), (0.5, None))
    >>> tsp_budget(None, None, "local")
    (None, 1500)

    References
    ----------
    Xue et al., KDD 2012, Sec. 4.1 (the Gray-TSP order); docs/order.md
    ("Deterministic budget").
    """
    if tsp_time_limit is None:
        return None, (default_step_limit(tsp_solver) if tsp_step_limit is None else tsp_step_limit)
    return tsp_time_limit, tsp_step_limit


def _path_cost(D: np.ndarray, path: np.ndarray) -> int:
    return int(D[path[:-1], path[1:]].sum())


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
    if gcost <= path_lower_bound(D):
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
    time_limit: float | None = None,
    solution_limit: int | None = None,
    step_limit: int | None = None,
    metaheuristic: str | None = None,
    solver: str = "ortools",
    rng=0,
    progress: ProgressCallback | None = None,
    n_jobs: int = 1,
    client=None,
) -> GrayTSPResult:
    """The Gray-TSP order of the records, with its segments and their costs.

    Sorts the records by Gray rank (:func:`gray_order`), cuts the order into
    segments with :func:`segment_breakpoints`, and re-orders each segment's
    interior by a short Hamiltonian path from its first to its last record
    (Hamming distances): by default with OR-Tools routing
    (``solver="ortools"``, ``RoutingIndexManager(L, 1, [start], [end])``), or
    by an iterated 2-opt / Or-opt local search started from the Gray path
    (``solver="local"``). The first and last record
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
    time_limit : float or None, default None
        Wall-clock seconds of solver search per segment. The outcome then
        depends on machine speed and load (see Notes). ``None``: no clock;
        the search stops after ``step_limit`` steps (default
        :func:`default_step_limit` of the solver), so the order is the same
        on every machine, every run and every ``n_jobs``.
    solution_limit : int, optional
        ``solver="ortools"`` only: also stop each segment's search after this
        many solutions.
    step_limit : int, optional
        Stop each segment's search after this many steps: checks of
        OR-Tools' search limit, made at every move it tries (``"ortools"``;
        default :data:`DETERMINISTIC_STEP_LIMIT`), or kicks of the iterated
        local search (``"local"``; default :data:`LOCAL_STEP_LIMIT`): a count
        of work, not of time. With
        ``time_limit=None`` (or a ``time_limit`` that never binds first)
        the result is fully deterministic.
    metaheuristic : str, optional
        ``solver="ortools"`` only: its local-search metaheuristic,
        "guided_local_search" (default), "greedy_descent",
        "simulated_annealing", "tabu_search" or "automatic".
    solver : {"ortools", "local", "local-length"}, default "ortools"
        ``"local-length"``: the local solver on the objective ``H(a, b) +
        | |a| - |b| |`` (twice the larger of ``|a - b|`` and ``|b - a|``),
        which keeps records of similar length together: lower bit-vote
        thresholds, so a lower QE than either other solver on Quest data
        (docs/order.md, "Why the order drives QE"); a segment's path is kept
        only when it is shorter in that objective and not longer in Hamming
        distance than the Gray path. ``"local"``: 2-opt and Or-opt (runs of
        up to 3 records, either way round) moves over each record's 16 nearest records, from the Gray
        path to a local optimum, then iterated local search: each kick swaps
        two adjacent runs of at most 16 records and descends again, keeping
        the result when it is not longer. ``"ortools"``: OR-Tools routing from
        a PATH_CHEAPEST_ARC first solution with the ``metaheuristic``.
    rng : None, int or numpy.random.Generator, default 0
        Seeds each segment's search: the kicks of ``"local"``, or the
        numbering of the interior records handed to ``"ortools"`` (which
        draws no random numbers and breaks ties by node index). Each segment
        gets its own stream, spawned from the generator's seed sequence (an
        int ``s`` gives the streams of ``SeedSequence(s).spawn``).
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
        On bad segment lengths, time, step or solution limits, solver,
        metaheuristic (or either OR-Tools option with ``solver="local"``) or seed.

    Notes
    -----
    The paper solves each segment with a genetic algorithm; any TSP heuristic
    fits, as the goal is only to improve on the Gray order. The local solver
    starts from the Gray path itself (nothing is lost before the search
    begins) and on Quest-like segments of 300-350 records reaches paths 5-6%
    shorter than OR-Tools with 40,000 steps in a tenth of its time
    (docs/order.md, "The local solver"). A shorter order is not better on
    every count: on Quest data its nonreciprocal release has a lower ER but
    a higher QE (larger bit-vote thresholds) than OR-Tools' order, which is
    why OR-Tools stays the default. ``"local-length"`` adds the records'
    length difference to the objective: windows of the order then hold
    records of similar length, the bit-vote threshold (set by a window's
    longest record) drops, and on Quest data both ER and QE are lower than
    with the default order. OR-Tools starts from
    PATH_CHEAPEST_ARC and improves it by the chosen metaheuristic with the
    2-opt, or-opt, relocate and exchange operators. Segments whose Gray path
    already meets a lower bound (every record but the first entered by its
    cheapest admissible arc), in particular segments of identical records,
    and segments with at most one interior record, skip the solver. Both
    solvers are single-threaded and deterministic for a given seed; the only
    nondeterminism is the wall-clock ``time_limit`` (checked every 100 kicks
    by the local solver). Leave ``time_limit=None`` for bit-for-bit
    reproducible orders (what
    :func:`~graphanon.algorithms.nonreciprocal.anonymize_nonreciprocal` does
    unless asked for a clock). With ``n_jobs`` or ``client`` the local solver
    hands out 16 consecutive segments per task.

    Complexity: O(n log n * b / 64) for the Gray order, O(n * (M - m)) for the DP,
    O(n * M * b / 64) for the distance matrices, plus at most
    ``time_limit`` per segment (about ``n / M`` segments), or
    ``step_limit`` search steps per segment (a kick of the local solver
    costs about 7 microseconds on 300-record segments).

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal import hamming_cycle_length
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> order = gray_tsp_details(data).order  # deterministic budget
    >>> hamming_cycle_length(data, order)  # Gray order: 12
    10
    >>> data.record_ids[order[0]], data.record_ids[order[-1]]  # fixed segment ends
    ('r2', 'r6')

    References
    ----------
    Xue et al., Anonymizing set-valued data by nonreciprocal recoding, KDD 2012,
    Sec. 4.1 (Gray-TSP order) and Figure 4(a). Croes 1958 (2-opt); Or 1976
    (Or-opt); Bentley 1992 (neighbour lists, don't-look bits); Lourenco,
    Martin and Stuetzle 2003 (iterated local search, double-bridge kicks).
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
    if solver not in TSP_SOLVERS:
        raise ParameterError(f"solver must be one of {TSP_SOLVERS}, got {solver!r}")
    if solver in LOCAL_LENGTH_WEIGHTS:
        for name, option in (("solution_limit", solution_limit), ("metaheuristic", metaheuristic)):
            if option is not None:
                raise ParameterError(
                    f"{name}={option!r} is an OR-Tools option: pass solver='ortools' with it, or drop it "
                    "(the local solver stops on step_limit kicks or time_limit seconds)"
                )
    elif metaheuristic is None:
        metaheuristic = "guided_local_search"
    if time_limit is None and step_limit is None:
        step_limit = default_step_limit(solver)
    if solver == "ortools" and metaheuristic not in _METAHEURISTICS:
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
    seconds = None if time_limit is None else float(time_limit)
    # the Gray path length of segment s: the gaps h[lo .. hi - 2] inside it
    cumulative = np.concatenate(([0], np.cumsum(h, dtype=np.int64)))
    segment_gray_costs = cumulative[np.maximum(bounds[1:] - 1, 0)] - cumulative[bounds[:-1]]
    if solver == "ortools":
        budget = (seconds, solution_limit, step_limit, metaheuristic)

        def tasks():
            for s in range(t):
                lo, hi = int(bounds[s]), int(bounds[s + 1])
                yield words[gray[lo:hi]], int(segment_gray_costs[s]), seeds[s], budget

        results = map_ordered(
            _solve_segment,
            tasks(),
            client=client,
            n_jobs=1 if t <= 1 else int(n_jobs),
            total=t,
            progress=progress,
            message="Gray-TSP segments",
        )
    else:
        results = local_results(
            words, gray, bounds, segment_gray_costs, seeds, (seconds, step_limit, LOCAL_LENGTH_WEIGHTS[solver]),
            client, n_jobs, progress,
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
