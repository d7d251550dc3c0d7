"""Cyclic record orders for nonreciprocal recoding: Gray order and Gray-TSP order.

Records are bitmaps over the items. Nonreciprocal recoding (Xue et al.) builds
its generalization graph along a *cyclic* order of the records in which
consecutive records are close in Hamming distance. This module computes

* the **Gray order** (:func:`gray_order`): records sorted by their Gray rank,
  the integer whose reflected-binary Gray code is the record's bitmap, item 0
  being the most significant bit;
* the **breakpoint DP** (:func:`segment_breakpoints`): a partition of an order
  into consecutive segments of length in ``[min_len, max_len]`` minimizing the
  sum of Hamming distances across the breakpoints;
* the **Gray-TSP order** (:func:`gray_tsp_order`): the Gray order cut by the
  DP, each segment's interior re-ordered by a TSP path with fixed first and
  last record, solved with OR-Tools routing;
* the total cyclic Hamming length of an order (:func:`hamming_cycle_length`)
  and a comparison of the identity, Gray and Gray-TSP orders
  (:func:`order_report`).

The Gray rank is never materialized as an integer (a bitmap of ``b`` items has
``2**b`` possible ranks). The Gray-to-binary conversion is a prefix XOR along
the bits, so the binary digits of the rank are computed on packed bytes (a
256-entry table for the prefix XOR inside a byte, and the running parity of the
preceding bytes), and ranks are compared by a stable lexicographic sort of the
packed binary rows.

References
----------
M. Xue, P. Karras, C. Raïssi, J. Vaidya, K.-L. Tan. Anonymizing set-valued data
by nonreciprocal recoding. KDD 2012, Sec. 4.1 (The Gray-TSP order, Equation 1
for the breakpoint DP, Table 5 for Gray codes, Figure 4(a) for the example).
F. Gray. Pulse code communication. US Patent 2632058, 1953.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataFormatError, ParameterError

__all__ = [
    "DETERMINISTIC_STEP_LIMIT",
    "GrayTSPResult",
    "OrderReport",
    "consecutive_hamming",
    "gray_order",
    "gray_tsp_details",
    "gray_tsp_order",
    "hamming_cycle_length",
    "hamming_matrix",
    "order_report",
    "pack_rows",
    "segment_breakpoints",
]

# ---------------------------------------------------------------------------
# Packed bit rows
# ---------------------------------------------------------------------------


def _prefix_xor_table() -> np.ndarray:
    """``T[v]``: prefix XOR of the bits of byte ``v``, most significant bit first."""
    v = np.arange(256, dtype=np.uint8)
    bits = np.unpackbits(v[:, None], axis=1)  # MSB first
    pref = np.bitwise_xor.accumulate(bits, axis=1)
    return np.packbits(pref, axis=1)[:, 0]


_PREFIX_XOR = _prefix_xor_table()


def pack_rows(X) -> tuple[np.ndarray, int]:
    """Pack the record bitmaps of ``X`` into bytes, item 0 as the most significant bit.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix/array, or 2-D array-like of 0/1 or bool
        Records x items. Sparse inputs are packed without densifying.

    Returns
    -------
    packed : ndarray of uint8, shape (n, ceil(b / 8))
        Row ``i`` holds record ``i``'s bitmap; bit ``j`` of the record is bit
        ``7 - j % 8`` of byte ``j // 8`` (the ``numpy.packbits`` big-endian
        layout), so byte-wise lexicographic order is bit-wise lexicographic
        order. Padding bits are 0.
    b : int
        Number of items (bits per record).

    Raises
    ------
    DataFormatError
        If ``X`` is not two-dimensional or holds values other than 0/1.

    Complexity
    ----------
    O(n * b / 8 + occurrences).

    Examples
    --------
    >>> packed, b = pack_rows([[1, 1, 0, 0], [0, 1, 1, 0]])
    >>> packed[:, 0].tolist(), b
    ([192, 96], 4)
    """
    matrix = getattr(X, "matrix", X)  # TransactionData -> its CSR matrix
    if sp.issparse(matrix):
        csr = sp.csr_array(matrix)
        if csr.ndim != 2:
            raise DataFormatError(
                f"expected a 2-D records x items matrix, got {csr.ndim} dimensions"
            )
        n, b = csr.shape
        csr.sum_duplicates()
        data = csr.data
        if data.size and not np.all((data == 0) | (data == 1)):
            bad = np.flatnonzero((data != 0) & (data != 1))[0]
            row = int(np.searchsorted(csr.indptr, bad, side="right") - 1)
            raise DataFormatError(
                f"record {row} item {int(csr.indices[bad])} has value {data[bad].item()!r}; bitmaps must be 0/1 "
                "(binarize the matrix first, e.g. X != 0)"
            )
        nb = (b + 7) // 8
        nz = np.asarray(data != 0)
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(csr.indptr))[nz]
        cols = csr.indices[nz].astype(np.int64)
        weights = (1 << (7 - cols % 8)).astype(np.float64)
        flat = np.bincount(rows * nb + cols // 8, weights=weights, minlength=n * nb)
        return flat.astype(np.uint8).reshape(n, nb), int(b)
    arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise DataFormatError(
            f"expected a 2-D records x items matrix, got an array of shape {arr.shape}"
        )
    if arr.dtype != np.bool_:
        if arr.size and not np.all((arr == 0) | (arr == 1)):
            row, col = np.argwhere((arr != 0) & (arr != 1))[0]
            raise DataFormatError(
                f"record {int(row)} item {int(col)} has value {arr[row, col].item()!r}; bitmaps must be 0/1 "
                "(binarize the matrix first, e.g. X != 0)"
            )
        arr = arr != 0
    return np.packbits(arr, axis=1, bitorder="big"), int(arr.shape[1])


def _pad_words(packed: np.ndarray) -> np.ndarray:
    """View packed rows as native uint64 words (big-endian value order), zero padded."""
    n, nb = packed.shape
    nw = max(1, (nb + 7) // 8)
    buf = np.zeros((n, nw * 8), dtype=np.uint8)
    buf[:, :nb] = packed
    return buf.view(">u8").astype(np.uint64)


def _binary_rank_bits(packed: np.ndarray, b: int) -> np.ndarray:
    """Binary digits of the Gray rank of each packed row (prefix XOR along the bits)."""
    if packed.shape[1] == 0:
        return packed.copy()
    parity = (np.bitwise_count(packed) & 1).astype(np.uint8)
    carry = (np.cumsum(parity, axis=1, dtype=np.int64) - parity) & 1  # parity of preceding bytes
    out = _PREFIX_XOR[packed] ^ (carry.astype(np.uint8) * np.uint8(0xFF))
    rem = b % 8
    if rem:
        out[:, -1] &= np.uint8((0xFF << (8 - rem)) & 0xFF)
    return out


def _gray_order_packed(packed: np.ndarray, b: int) -> np.ndarray:
    n = packed.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    words = _pad_words(_binary_rank_bits(packed, b))
    # np.lexsort sorts by the LAST key first and is stable: ties keep input order.
    return np.lexsort(words.T[::-1]).astype(np.int64)


def gray_order(X) -> np.ndarray:
    """Order the records by the Gray rank of their bitmaps.

    The Gray rank of a bitmap ``g`` (item 0 = most significant bit) is the
    integer ``r`` whose reflected-binary Gray code ``r ^ (r >> 1)`` equals
    ``g``. Its binary digits are prefix XORs of the bitmap,
    ``r_j = g_0 ^ g_1 ^ ... ^ g_j``; records are sorted lexicographically by
    those digits, computed on packed bytes, so no ``2**b`` integer is formed.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
        Records x items.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        A permutation of ``range(n)``: ``order[p]`` is the record at position
        ``p``. Records with equal bitmaps keep their input order (stable).

    Complexity
    ----------
    O(n * b / 8) to convert and O(n log n * b / 64) to sort.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> [data.record_ids[i] for i in gray_order(data)]
    ['r2', 'r4', 'r1', 'r3', 'r5', 'r6']

    References
    ----------
    Xue et al., Anonymizing set-valued data by nonreciprocal recoding, KDD 2012,
    Sec. 4.1 and Table 5.
    """
    packed, b = pack_rows(X)
    return _gray_order_packed(packed, b)


# ---------------------------------------------------------------------------
# Hamming distances
# ---------------------------------------------------------------------------


def _check_order(order, n: int) -> np.ndarray:
    arr = np.asarray(order)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ParameterError(
            f"order must be a 1-D permutation of the {n} record indices, got shape {arr.shape}"
        )
    if n and not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(f"order must hold integer record indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if n and (arr.min() < 0 or arr.max() >= n or np.unique(arr).size != n):
        seen = np.zeros(n, dtype=bool)
        for p, v in enumerate(arr):
            if v < 0 or v >= n:
                raise ParameterError(f"order[{p}] = {v} is not a record index in [0, {n})")
            if seen[v]:
                raise ParameterError(
                    f"order[{p}] = {v} repeats a record; order must be a permutation"
                )
            seen[v] = True
    return arr


def _consecutive_packed(words: np.ndarray, order: np.ndarray, cyclic: bool) -> np.ndarray:
    if order.size == 0:
        return np.zeros(0, dtype=np.int64)
    nxt = np.roll(order, -1) if cyclic else order[1:]
    cur = order if cyclic else order[:-1]
    return np.bitwise_count(words[cur] ^ words[nxt]).sum(axis=1, dtype=np.int64)


def consecutive_hamming(X, order, *, cyclic: bool = True) -> np.ndarray:
    """Hamming distances between consecutive records of ``order``.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    order : array-like of int
        A permutation of the record indices.
    cyclic : bool, default True
        Include the closing distance from the last record back to the first.

    Returns
    -------
    ndarray of int64
        ``d[p] = H(X[order[p]], X[order[p + 1]])`` (indices modulo ``n`` when
        ``cyclic``); length ``n`` if cyclic, else ``n - 1``.

    Examples
    --------
    >>> consecutive_hamming([[1, 0], [0, 1], [1, 1]], [0, 2, 1]).tolist()
    [1, 1, 2]
    """
    packed, _ = pack_rows(X)
    order = _check_order(order, packed.shape[0])
    return _consecutive_packed(_pad_words(packed), order, cyclic)


def hamming_cycle_length(X, order) -> int:
    """Total cyclic Hamming length of ``order``.

    The sum of ``H(r_{order[p]}, r_{order[p+1]})`` over consecutive positions,
    including the closing pair (last record, first record).

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    order : array-like of int
        A permutation of the record indices.

    Returns
    -------
    int

    Complexity
    ----------
    O(n * b / 64).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> hamming_cycle_length(data, range(6)), hamming_cycle_length(data, gray_order(data))
    (14, 12)
    """
    return int(consecutive_hamming(X, order, cyclic=True).sum())


def _hamming_matrix_words(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words[:, None, :] ^ words[None, :, :]).sum(axis=2, dtype=np.int64)


def hamming_matrix(X, rows=None) -> np.ndarray:
    """Pairwise Hamming distances between records (popcount of XOR of packed rows).

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    rows : array-like of int, optional
        Records to compare (default: all). Memory is O(len(rows)**2 * b / 64).

    Returns
    -------
    ndarray of int64, shape (s, s)

    Examples
    --------
    >>> hamming_matrix([[1, 0, 1], [0, 0, 1]]).tolist()
    [[0, 1], [1, 0]]
    """
    packed, _ = pack_rows(X)
    words = _pad_words(packed)
    if rows is not None:
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size and (rows.min() < 0 or rows.max() >= packed.shape[0]):
            raise ParameterError(f"rows must be record indices in [0, {packed.shape[0]})")
        words = words[rows]
    return _hamming_matrix_words(words)


# ---------------------------------------------------------------------------
# Breakpoint DP
# ---------------------------------------------------------------------------


def _check_lengths(min_len, max_len, names=("min_len", "max_len")) -> tuple[int, int]:
    for name, v in zip(names, (min_len, max_len), strict=True):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ParameterError(f"{name} must be an integer, got {v!r}")
        if v < 1:
            raise ParameterError(f"{name} must be >= 1, got {v}")
    if max_len < min_len:
        raise ParameterError(f"{names[1]} ({max_len}) must be >= {names[0]} ({min_len})")
    return int(min_len), int(max_len)


def _breakpoints_from_gaps(h: np.ndarray, n: int, m: int, M: int) -> np.ndarray | None:
    """DP over gaps ``h[p] = H(pos p, pos p+1)``; returns bounds or None if infeasible."""
    inf = np.inf
    C = np.full(n + 1, inf)
    prev = np.full(n + 1, -1, dtype=np.int64)
    C[0] = 0.0
    # E[j] = C[j] + cost of a breakpoint before position j (none for j = 0).
    E = np.full(n + 1, inf)
    E[0] = 0.0
    W = M - m + 1
    hpad = np.append(h.astype(np.float64), 0.0)  # E[n] is never used as a window entry
    # Epad[k] = E[k - M]; the window of i is E[i-M .. i-m] = Epad[i .. i+W-1].
    Epad = np.full(n + 1 + M, inf)
    Epad[M] = 0.0
    s = m  # first i with a possibly finite C[i]
    while s <= n:
        e = min(n, s + m - 1)  # C[s..e] only needs E[j], j <= e - m <= s - 1 (final)
        win = np.lib.stride_tricks.sliding_window_view(Epad[s : e + W], W)
        arg = np.argmin(win, axis=1)
        val = win[np.arange(win.shape[0]), arg]
        idx = np.arange(s, e + 1)
        C[s : e + 1] = val
        prev[s : e + 1] = np.where(np.isfinite(val), idx - M + arg, -1)
        Eblk = val + hpad[idx - 1]
        E[s : e + 1] = Eblk
        Epad[s + M : e + 1 + M] = Eblk
        s = e + 1
    if not np.isfinite(C[n]):
        return None
    bounds = [n]
    while bounds[-1] > 0:
        bounds.append(int(prev[bounds[-1]]))
    return np.asarray(bounds[::-1], dtype=np.int64)


def _segment_bounds(h: np.ndarray, n: int, m: int, M: int, strict: bool) -> np.ndarray:
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    if n < m:
        return np.array([0, n], dtype=np.int64)
    bounds = _breakpoints_from_gaps(h, n, m, M)
    if bounds is None:
        t = -(-n // M)
        if strict:
            raise ParameterError(
                f"{n} records cannot be cut into segments of length in [{m}, {M}] "
                f"({t} segments hold at least {t * m} records); lower min_len to {n // t} or raise max_len, "
                "or pass strict=False to relax min_len automatically"
            )
        bounds = _breakpoints_from_gaps(h, n, n // t, M)
    return bounds


def segment_breakpoints(
    X, order, min_len: int = 300, max_len: int = 350, *, strict: bool = False
) -> np.ndarray:
    """Cut an order into segments, placing breakpoints at small Hamming distances.

    Minimizes the sum of Hamming distances between the last record of a segment
    and the first record of the next one, over all partitions of ``order`` into
    consecutive segments whose lengths lie in ``[min_len, max_len]`` (the
    dynamic program ``C(i) = min_{j in [i-M, i-m]} C(j) + H(r_j, r_{j+1})`` of
    the paper). The closing pair of the cyclic order (last record, first
    record) is a breakpoint of every partition and is not counted.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    order : array-like of int
        A permutation of the record indices (typically :func:`gray_order`).
    min_len, max_len : int, default 300 and 350
        Allowed segment lengths.
    strict : bool, default False
        What to do when no partition fits (``ceil(n / max_len) * min_len > n``,
        e.g. 400 records with [300, 350]). ``False``: lower ``min_len`` to
        ``n // ceil(n / max_len)``, the largest value with a feasible partition
        (the number of segments stays minimal). ``True``: raise.
        With ``n < min_len`` the whole order is one segment either way.

    Returns
    -------
    bounds : ndarray of int64, shape (t + 1,)
        Segment boundaries in positions of ``order``: ``bounds[0] = 0``,
        ``bounds[-1] = n``, segment ``s`` is ``order[bounds[s]:bounds[s+1]]``.
        Among optimal partitions, the DP keeps the earliest last breakpoint
        (ties broken towards longer trailing segments).

    Raises
    ------
    ParameterError
        Bad lengths, a bad order, or (``strict=True``) an infeasible partition.

    Complexity
    ----------
    O(n * (max_len - min_len + 1)) time, vectorized in blocks of ``min_len``
    positions; O(n) memory.

    Examples
    --------
    >>> X = [[0, 0], [0, 0], [1, 1], [1, 1], [0, 1], [0, 1]]  # gaps 0 2 0 1 0
    >>> segment_breakpoints(X, range(6), min_len=2, max_len=3).tolist()
    [0, 3, 6]
    >>> segment_breakpoints(X, range(6), min_len=2, max_len=2).tolist()
    [0, 2, 4, 6]

    References
    ----------
    Xue et al., KDD 2012, Sec. 4.1, Equation 1.
    """
    m, M = _check_lengths(min_len, max_len)
    packed, _ = pack_rows(X)
    n = packed.shape[0]
    order = _check_order(order, n)
    h = _consecutive_packed(_pad_words(packed), order, cyclic=False)
    return _segment_bounds(h, n, m, M, strict)


# ---------------------------------------------------------------------------
# Per-segment TSP with fixed ends (OR-Tools routing)
# ---------------------------------------------------------------------------

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
    D = _hamming_matrix_words(seg_words)
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


@dataclass
class GrayTSPResult:
    """The Gray-TSP order with its intermediate steps.

    Attributes
    ----------
    order : ndarray of int64
        The Gray-TSP order (a permutation of the records).
    gray : ndarray of int64
        The Gray order it started from.
    bounds : ndarray of int64
        Segment boundaries (positions, shared by both orders; see
        :func:`segment_breakpoints`).
    gray_costs, tsp_costs : ndarray of int64
        Hamming path length of each segment in the Gray order and in the
        Gray-TSP order (``tsp_costs <= gray_costs``).
    solved : ndarray of bool
        Segments handed to the TSP solver (others were already optimal by the
        lower bound, or had at most one interior record).
    """

    order: np.ndarray
    gray: np.ndarray
    bounds: np.ndarray
    gray_costs: np.ndarray
    tsp_costs: np.ndarray
    solved: np.ndarray


def gray_tsp_details(
    X,
    *,
    min_segment: int = 300,
    max_segment: int = 350,
    time_limit: float | None = 0.2,
    solution_limit: int | None = None,
    step_limit: int | None = None,
    metaheuristic: str = "guided_local_search",
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
    n_jobs: int = 1,
) -> GrayTSPResult:
    """Compute the Gray-TSP order and return it with its segments and costs.

    Same parameters as :func:`gray_tsp_order`, which returns ``.order`` of
    this result.
    """
    m, M = _check_lengths(min_segment, max_segment, ("min_segment", "max_segment"))
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
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ParameterError(f"seed must be an integer or None, got {seed!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    packed, b = pack_rows(X)
    n = packed.shape[0]
    words = _pad_words(packed)
    gray = _gray_order_packed(packed, b)
    h = _consecutive_packed(words, gray, cyclic=False)
    bounds = _segment_bounds(h, n, m, M, strict=False)
    t = len(bounds) - 1
    # One independent stream per segment: results do not depend on n_jobs.
    seeds = np.random.SeedSequence(seed).spawn(t)
    order = gray.copy()
    gray_costs = np.zeros(t, dtype=np.int64)
    tsp_costs = np.zeros(t, dtype=np.int64)
    solved = np.zeros(t, dtype=bool)
    solver = (None if time_limit is None else float(time_limit), solution_limit, step_limit, metaheuristic)

    def tasks():
        for s in range(t):
            lo, hi = int(bounds[s]), int(bounds[s + 1])
            yield words[gray[lo:hi]], int(h[lo : hi - 1].sum()), seeds[s], solver

    def apply(s, result):
        lo, hi = int(bounds[s]), int(bounds[s + 1])
        gcost, path, cost, was_solved = result
        gray_costs[s] = gcost
        tsp_costs[s] = cost
        solved[s] = was_solved
        if path is not None:
            order[lo:hi] = gray[lo:hi][path]
        if progress is not None:
            progress(s + 1, t)

    if n_jobs == 1 or t <= 1:
        for s, task in enumerate(tasks()):
            apply(s, _solve_segment(task))
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        method = "fork" if "fork" in mp.get_all_start_methods() else None
        with ProcessPoolExecutor(max_workers=n_jobs, mp_context=mp.get_context(method)) as ex:
            pending = []
            it = tasks()
            for task in it:  # keep at most 2 * n_jobs segments in flight
                pending.append(ex.submit(_solve_segment, task))
                if len(pending) >= 2 * n_jobs:
                    break
            done = 0
            while pending:
                apply(done, pending.pop(0).result())
                done += 1
                task = next(it, None)
                if task is not None:
                    pending.append(ex.submit(_solve_segment, task))
    return GrayTSPResult(
        order=order,
        gray=gray,
        bounds=bounds,
        gray_costs=gray_costs,
        tsp_costs=tsp_costs,
        solved=solved,
    )


def gray_tsp_order(
    X,
    *,
    min_segment: int = 300,
    max_segment: int = 350,
    time_limit: float | None = 0.2,
    solution_limit: int | None = None,
    step_limit: int | None = None,
    metaheuristic: str = "guided_local_search",
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
    n_jobs: int = 1,
) -> np.ndarray:
    """The cyclic Gray-TSP order of the records.

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
    seed : int or None, default 0
        Seeds the numbering of the interior records handed to the solver (the
        solver itself draws no random numbers and breaks ties by node index);
        each segment gets its own stream (``SeedSequence(seed).spawn``).
    progress : callable, optional
        Called as ``progress(done, total)`` after each segment, in order.
    n_jobs : int, default 1
        Worker processes solving segments in parallel (segments are
        independent and each has its own seed stream, so the result does not
        depend on ``n_jobs`` when ``time_limit=None`` makes the search
        deterministic).

    Returns
    -------
    order : ndarray of int64
        A permutation of ``range(n)``.

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

    Complexity
    ----------
    O(n log n * b / 64) for the Gray order, O(n * (M - m)) for the DP,
    O(n * M * b / 64) for the distance matrices, plus at most
    ``time_limit`` per segment (about ``n / M`` segments), or
    ``step_limit`` search steps per segment.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> order = gray_tsp_order(data, time_limit=None)  # deterministic budget
    >>> hamming_cycle_length(data, order)  # Gray order: 12
    10
    >>> data.record_ids[order[0]], data.record_ids[order[-1]]  # fixed segment ends
    ('r2', 'r6')

    References
    ----------
    Xue et al., Anonymizing set-valued data by nonreciprocal recoding, KDD 2012,
    Sec. 4.1 (Gray-TSP order) and Figure 4(a).
    """
    return gray_tsp_details(
        X,
        min_segment=min_segment,
        max_segment=max_segment,
        time_limit=time_limit,
        solution_limit=solution_limit,
        step_limit=step_limit,
        metaheuristic=metaheuristic,
        seed=seed,
        progress=progress,
        n_jobs=n_jobs,
    ).order


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


@dataclass
class OrderReport:
    """Total cyclic Hamming length of the identity, Gray and Gray-TSP orders.

    Attributes
    ----------
    n_records, n_items : int
    identity, gray, gray_tsp : int
        Total cyclic Hamming lengths.
    n_segments : int
        Segments of the Gray-TSP order.
    seconds_gray, seconds_gray_tsp : float
        Wall-clock time to compute each order (Gray-TSP includes the Gray order).
    params : dict
        The Gray-TSP parameters used.
    """

    n_records: int
    n_items: int
    identity: int
    gray: int
    gray_tsp: int
    n_segments: int
    seconds_gray: float
    seconds_gray_tsp: float
    params: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """A JSON-serializable dict of the report."""
        return asdict(self)


def order_report(X, **tsp_params) -> OrderReport:
    """Compare the total cyclic Hamming length of the identity, Gray and Gray-TSP orders.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    **tsp_params
        Keyword arguments of :func:`gray_tsp_order`.

    Returns
    -------
    OrderReport

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rep = order_report(load("nr_table1"), time_limit=0.1, solution_limit=50)
    >>> rep.identity, rep.gray, rep.gray_tsp
    (14, 12, 10)
    """
    packed, b = pack_rows(X)
    n = packed.shape[0]
    words = _pad_words(packed)
    t0 = time.perf_counter()
    gray = _gray_order_packed(packed, b)
    t1 = time.perf_counter()
    res = gray_tsp_details(X, **tsp_params)
    t2 = time.perf_counter()
    ident = np.arange(n, dtype=np.int64)
    return OrderReport(
        n_records=int(n),
        n_items=int(b),
        identity=int(_consecutive_packed(words, ident, True).sum()),
        gray=int(_consecutive_packed(words, gray, True).sum()),
        gray_tsp=int(_consecutive_packed(words, res.order, True).sum()),
        n_segments=int(len(res.bounds) - 1),
        seconds_gray=t1 - t0,
        seconds_gray_tsp=t2 - t1,
        params={k: v for k, v in tsp_params.items() if k != "progress"},
    )
