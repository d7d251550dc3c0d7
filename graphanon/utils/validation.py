"""The parameter checks that depend on the data (bottom layer).

What a parameter may be by itself (a whole number >= 1, a number in
(0, 1], one of some texts) is declared once per function with
:func:`graphanon.utils.params.validate_params`; what remains here needs the
data: ``k`` at most the number of records, labels that can support
l-diversity, an order that is a permutation of the records. Each raises a
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
>>> check_order([2, 0, 1], 3)
array([2, 0, 1])
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from graphanon.errors import ParameterError
from graphanon.utils.params import MEANINGS, K, check_params

__all__ = ["DIVERSITY_VARIANTS", "check_diversity_feasible", "check_k", "check_order", "check_positive"]

#: The l-diversity variants a method can promise (CAHD all three, ``nr`` distinct only); here, apart
#: from the methods, so the command line can list them without importing the methods' numba kernels.
DIVERSITY_VARIANTS = ("distinct", "entropy", "recursive")


def check_k(k, n: int, name: str = "k") -> int:
    """Validate ``k`` against the data: a whole number in ``1..n``; return it as int.

    That ``k`` is a whole number >= 1 is declared once
    (:data:`graphanon.utils.params.K`, checked here with it too, for callers
    whose ``k`` was not declared); the bound ``n`` depends on the data.

    Parameters
    ----------
    k : int
        The privacy parameter (a record hides among at least ``k``).
    n : int
        Number of records: ``k > n`` is an error (no release can hide a
        record among more records than there are).
    name : str
        Parameter name used in the message.

    Raises
    ------
    ParameterError
        ``k`` is not a whole number, below 1 or above ``n``.
    """
    check_params({name: K}, {name: k}, meanings={name: MEANINGS["k"]})
    if k > n:
        raise ParameterError(
            f"{name}={k} exceeds the number of records ({n}); no release can hide a record "
            f"among more records than there are"
        )
    return int(k)


def check_diversity_feasible(labels, l: int) -> None:  # noqa: E741
    """Raise :class:`ParameterError` when ``labels`` cannot support l-diversity.

    Infeasible when there are fewer than ``l`` distinct labels, or when one
    label is on more than ``n / l`` of the ``n`` records.
    """
    check_params({"l": K}, {"l": l})
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


def check_positive(name: str, value, *, integer: bool = True):
    """Validate a positive parameter of a generator: a whole number (``integer``) or any number above 0; return it.

    Parameters
    ----------
    name : str
        Parameter name used in the message.
    value : object
        The value given.
    integer : bool
        Whether it must be a whole number.

    Returns
    -------
    int or float
        ``value`` as an int (``integer``) or a float.

    Raises
    ------
    ParameterError
        ``value`` is not a number, not above 0, or not whole when ``integer``.

    Examples
    --------
    >>> check_positive("n_records", 10), check_positive("avg_codes", "2.5", integer=False)
    (10, 2.5)
    """
    kind = int if integer else float
    try:
        out = kind(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a positive number, got {value!r}") from None
    if out <= 0 or (integer and out != value):
        raise ParameterError(f"{name} must be a positive {'integer' if integer else 'number'}, got {value!r}")
    return out
