"""Shared parameter checks (bottom layer: imports numpy and :mod:`graphanon.errors` only).

Every anonymizer and audit validates its privacy parameters with these
functions, so one parameter gets one rule and one message everywhere: a
:class:`~graphanon.errors.ParameterError` naming the parameter, the value
given and what to do.

Examples
--------
>>> check_k(3, 10)
3
>>> check_k(11, 10)
Traceback (most recent call last):
...
graphanon.errors.ParameterError: k=11 exceeds the number of records (10); no release can hide a record among more records than there are
>>> check_m(None), check_m(2), check_h("0.5")
(None, 2, 0.5)
>>> check_order([2, 0, 1], 3)
array([2, 0, 1])
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from graphanon.errors import ParameterError

__all__ = ["check_diversity_feasible", "check_h", "check_k", "check_m", "check_order"]


def check_k(k, n: int, name: str = "k", *, what: str | None = None) -> int:
    """Validate ``1 <= k <= n``; return ``k`` as int.

    Parameters
    ----------
    k : int
        The privacy parameter (a record hides among at least ``k``).
    n : int
        Number of records: ``k > n`` is an error (no release can hide a
        record among more records than there are).
    name : str
        Parameter name used in the message (``what`` is an older alias).

    Raises
    ------
    ParameterError
        ``k`` is not a whole number, below 1 or above ``n``.
    """
    name = what if what is not None else name
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ParameterError(f"{name} must be a whole number, got {k!r}")
    if k < 1:
        raise ParameterError(f"{name} must be at least 1, got {k}")
    if k > n:
        raise ParameterError(
            f"{name}={k} exceeds the number of records ({n}); no release can hide a record "
            f"among more records than there are"
        )
    return int(k)


def check_m(m, *, allow_none: bool = True, name: str = "m", what: str | None = None) -> int | None:
    """Validate the attacker-knowledge bound ``m`` (>= 1, or None for unbounded).

    Raises
    ------
    ParameterError
        ``m`` is not a whole number >= 1 (or None when ``allow_none``).
    """
    name = what if what is not None else name
    if m is None and allow_none:
        return None
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)):
        raise ParameterError(f"{name} must be a whole number >= 1{' or None' if allow_none else ''}, got {m!r}")
    if m < 1:
        raise ParameterError(f"{name} must be at least 1 (the largest itemset an attacker knows), got {m}")
    return int(m)


def check_h(h) -> float:
    """Validate the confidence bound ``h`` in (0, 1]; return it as float.

    Raises
    ------
    ParameterError
        ``h`` is not a number in (0, 1].
    """
    if isinstance(h, bool):
        raise ParameterError(f"h must be a number in (0, 1], got {h!r}")
    try:
        h = float(h)
    except (TypeError, ValueError):
        raise ParameterError(f"h must be a number in (0, 1], got {h!r}") from None
    if not 0.0 < h <= 1.0:
        raise ParameterError(
            f"h must be in (0, 1] (the largest allowed probability of inferring a private item), got {h}"
        )
    return h


def check_diversity_feasible(labels, l: int) -> None:  # noqa: E741
    """Raise :class:`ParameterError` when ``labels`` cannot support l-diversity.

    Infeasible when there are fewer than ``l`` distinct labels, or when one
    label is on more than ``n / l`` of the ``n`` records.
    """
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ParameterError(f"l must be a whole number >= 1, got {l!r}")
    if labels is None:
        raise ParameterError(
            "l-diversity needs sensitive labels: the data has none (give TransactionData(..., labels=...), "
            "or read_long_csv(..., label=COLUMN))"
        )
    n = len(labels)
    counts = Counter(labels)
    if len(counts) < l:
        raise ParameterError(
            f"l={l} needs at least {l} distinct sensitive labels, the data has {len(counts)}: {sorted(map(str, counts))}"
        )
    label, top = counts.most_common(1)[0]
    if top * l > n:
        raise ParameterError(
            f"l={l} is infeasible: label {label!r} is on {top} of {n} records, more than n/l = {n / l:.1f}; "
            f"lower l to at most {n // top}"
        )


def check_order(order, n: int) -> np.ndarray:
    """Validate that ``order`` is a permutation of ``0..n-1``; return it as int64.

    Raises
    ------
    ParameterError
        Wrong shape or dtype, an index outside ``0..n-1``, or a repeated
        record (the message names the first offending position).
    """
    arr = np.asarray(order)
    if arr.ndim != 1 or len(arr) != n:
        raise ParameterError(f"order must be a permutation of the {n} record indices, got shape {arr.shape}")
    if n and not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(f"order must hold integer record indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if not n:
        return arr
    bad = np.flatnonzero((arr < 0) | (arr >= n))
    if len(bad):
        p = int(bad[0])
        raise ParameterError(f"order[{p}] = {arr[p]} is not a record index in 0..{n - 1}")
    seen = np.zeros(n, dtype=np.int64)
    np.add.at(seen, arr, 1)
    if (seen > 1).any():
        repeated = int(np.flatnonzero(seen > 1)[0])
        p = int(np.flatnonzero(arr == repeated)[1])
        raise ParameterError(f"order[{p}] = {repeated} repeats a record; order must be a permutation")
    return arr
