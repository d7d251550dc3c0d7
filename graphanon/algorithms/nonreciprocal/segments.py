"""The breakpoint DP: cut an order into segments of bounded length (Xue et al., Eq. 1).

A partition of a cyclic order into consecutive segments of length in
``[min_len, max_len]`` minimizing the sum of Hamming distances across the
breakpoints.
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.nonreciprocal.gray import consecutive_packed
from graphanon.counting.bitset import bytes_to_words, pack_bytes
from graphanon.errors import ParameterError
from graphanon.utils.validation import check_order

__all__ = ["segment_breakpoints"]


def check_lengths(min_len, max_len, names=("min_len", "max_len")) -> tuple[int, int]:
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


def segment_bounds(h: np.ndarray, n: int, m: int, M: int, strict: bool) -> np.ndarray:
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
        assert bounds is not None  # t segments of length in [n // t, M] always hold n records
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

    Notes
    -----
    Complexity: O(n * (max_len - min_len + 1)) time, vectorized in blocks of ``min_len``
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
    m, M = check_lengths(min_len, max_len)
    packed, _ = pack_bytes(X)
    n = packed.shape[0]
    order = check_order(order, n)
    h = consecutive_packed(bytes_to_words(packed), order, cyclic=False)
    return segment_bounds(h, n, m, M, strict)
