"""Noise for differentially private counts, from OpenDP's vetted samplers.

Every random draw that carries a DP guarantee in graphanon comes from here,
and every one of them is made by OpenDP (``opendp.measurements.make_laplace``
on an integer domain: the *discrete* Laplace, or two-sided geometric,
distribution), sampled exactly from operating-system entropy. Nothing here
takes a seed: a seed would let anyone who learns it subtract the noise.

Why not ``numpy.random.laplace``: a textbook Laplace sampler on
floating-point numbers leaks the true value through the pattern of the
low-order bits of its output (Mironov 2012), and a seeded generator is
reproducible. Counts are integers, so integer noise loses nothing: the
discrete Laplace with scale ``b = sensitivity / epsilon`` gives
``P(Z = z) ∝ exp(-|z| / b)`` and ``epsilon``-DP for a count of sensitivity
``sensitivity`` (Ghosh, Roughgarden and Sundararajan 2009; Canonne, Kamath
and Steinke 2020).

Examples
--------
>>> import numpy as np
>>> noisy = discrete_laplace(np.array([10, 0, 3]), epsilon=1.0)
>>> noisy.dtype, noisy.shape
(dtype('int64'), (3,))
>>> discrete_laplace(np.array([1]), epsilon=0.0)
Traceback (most recent call last):
...
graphanon.errors.ParameterError: epsilon must be a finite number > 0, got 0.0

References
----------
I. Mironov. *On significance of the least significant bits for differential
privacy.* CCS 2012. R. McKenna, D. Sheldon. *Permute-and-flip: a new
mechanism for differentially private selection.* NeurIPS 2020 (the
selections). C. Canonne, G. Kamath, T. Steinke. *The discrete Gaussian
for differential privacy.* NeurIPS 2020 (the exact discrete Laplace sampler
OpenDP implements). OpenDP: https://docs.opendp.org.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from graphanon.errors import ParameterError

__all__ = ["check_epsilon", "discrete_laplace", "discrete_laplace_tail", "noisy_max", "noisy_top_k"]

#: the largest count the i32 domain of the sampler holds (counts are numbers of records)
_MAX_COUNT = 2**31 - 1 - 2**24


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """``epsilon`` as a float, or a one-line :class:`ParameterError` unless it is finite and > 0."""
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a finite number > 0, got {epsilon!r}") from None
    if isinstance(epsilon, bool) or not math.isfinite(value) or value <= 0:
        raise ParameterError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return value


@lru_cache(maxsize=256)
def _measurement(scale: float):
    """OpenDP's vector discrete Laplace mechanism of scale ``scale`` (built once per scale)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale)


def discrete_laplace(values, epsilon: float, *, sensitivity: int = 1) -> np.ndarray:
    """``values`` plus independent discrete Laplace noise of scale ``sensitivity / epsilon``.

    Parameters
    ----------
    values : array of int
        True counts (each of sensitivity ``sensitivity`` under add/remove
        of one record, or disjoint counts a record enters one of).
    epsilon : float
        The privacy loss each count is released at.
    sensitivity : int
        How much one record can change one count.

    Returns
    -------
    ndarray of int64
        The noisy counts (may be negative; callers clip after the fact,
        which is post-processing).

    Notes
    -----
    Complexity: O(len(values)) exact samples in OpenDP (one call).
    """
    eps = check_epsilon(epsilon)
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, int) or sensitivity < 1:
        raise ParameterError(f"sensitivity must be a whole number >= 1, got {sensitivity!r}")
    arr = np.asarray(values, dtype=np.int64).ravel()
    if arr.size == 0:
        return arr.copy()
    if arr.min() < -_MAX_COUNT or arr.max() > _MAX_COUNT:
        raise ParameterError(f"counts beyond ±{_MAX_COUNT} cannot be noised by the i32 sampler")
    noisy = _measurement(sensitivity / eps)(arr.tolist())
    return np.asarray(noisy, dtype=np.int64)


@lru_cache(maxsize=256)
def _selection(k: int | None, scale: float, monotonic: bool):
    """OpenDP's report-noisy-max (``k`` None) or noisy top-``k`` on integer scores of L-inf sensitivity 1."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain, metric = dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int, monotonic=monotonic)
    if k is None:
        meas = dp.m.make_noisy_max(domain, metric, dp.max_divergence(), scale=scale)
    else:
        meas = dp.m.make_noisy_top_k(domain, metric, dp.max_divergence(), k=k, scale=scale)
    return meas, float(meas.map(1))  # the epsilon it spends for scores of sensitivity 1, by OpenDP's own map


def _scores(scores) -> list[int]:
    arr = np.asarray(scores, dtype=np.int64).ravel()
    if arr.size == 0:
        raise ParameterError("a private selection needs at least one candidate")
    if arr.min() < -_MAX_COUNT or arr.max() > _MAX_COUNT:
        raise ParameterError(f"scores beyond ±{_MAX_COUNT} cannot be ranked by the i32 sampler")
    return arr.tolist()


def _checked(built, epsilon: float):
    """The measurement of ``built`` after checking with OpenDP's privacy map that it spends at most ``epsilon``."""
    meas, spent = built
    if spent > epsilon * (1 + 1e-9):
        raise ParameterError(f"the selection would spend epsilon={spent:g}, more than its budget {epsilon:g}")
    return meas


def noisy_max(scores, epsilon: float, *, monotonic: bool = False) -> int:
    """The index of a candidate chosen privately by its integer ``scores`` (sensitivity 1): report-noisy-max.

    OpenDP's ``make_noisy_max`` under max-divergence (pure epsilon-DP) at
    noise scale ``2 / epsilon``, or ``1 / epsilon`` when the scores are
    ``monotonic`` (every score moves the same way when a record is added);
    OpenDP's privacy map is checked to give ``epsilon``. Under
    max-divergence OpenDP adds exponential noise: report-noisy-max with
    exponential noise is the permute-and-flip mechanism (McKenna and
    Sheldon 2020), epsilon-DP like the exponential mechanism with the same
    quality and sensitivity, and never less accurate than it. (The Gumbel
    form, which *is* the exponential mechanism, is
    ``make_report_noisy_max_gumbel``, deprecated in the installed OpenDP.)

    Parameters
    ----------
    scores : array of int
        The quality of each candidate (higher is better), each of L-inf
        sensitivity 1 under add/remove of one record.
    epsilon : float
        The privacy loss of the choice.
    monotonic : bool
        Whether the scores are monotonic (then the scale halves).

    Returns
    -------
    int
        The index of the chosen candidate.

    Notes
    -----
    Complexity: O(len(scores)) exact samples in OpenDP, from OS entropy.

    Examples
    --------
    >>> noisy_max([0, -1000, -1000], epsilon=1.0)
    0
    """
    eps = check_epsilon(epsilon)
    scale = (1.0 if monotonic else 2.0) / eps
    return int(_checked(_selection(None, scale, bool(monotonic)), eps)(_scores(scores)))


def noisy_top_k(scores, k: int, epsilon: float, *, monotonic: bool = True) -> list[int]:
    """``k`` distinct candidates chosen by ``k`` rounds of private selection (peeling), at ``epsilon`` in all.

    OpenDP's ``make_noisy_top_k`` (max-divergence, exponential noise, as :func:`noisy_max`) at noise scale
    ``k / epsilon`` (monotonic scores) or ``2k / epsilon``: each round
    spends ``epsilon / k``; OpenDP's privacy map is checked to give
    ``epsilon``. ``k`` larger than the number of candidates takes them all
    (an ordering with no data-dependent set).

    Returns
    -------
    list of int
        The chosen indices, best noisy score first.

    Notes
    -----
    Complexity: O(len(scores) + k log k) exact samples in OpenDP, from OS entropy.

    Examples
    --------
    >>> sorted(noisy_top_k([1000, 0, 999, 1], k=2, epsilon=1.0))
    [0, 2]
    """
    eps = check_epsilon(epsilon)
    values = _scores(scores)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"k must be a whole number >= 1, got {k!r}")
    k = min(int(k), len(values))
    scale = (1.0 if monotonic else 2.0) * k / eps
    return [int(i) for i in _checked(_selection(k, scale, bool(monotonic)), eps)(values)]


def discrete_laplace_tail(threshold: int, epsilon: float) -> float:
    """``P(Z >= threshold)`` for discrete Laplace noise ``Z`` of scale ``1 / epsilon`` (exact formula, float).

    For the documentation and the tests (the probability that an empty
    partition is published); never used to draw.

    Examples
    --------
    >>> round(discrete_laplace_tail(0, 1.0), 4), round(discrete_laplace_tail(3, 1.0), 4)
    (0.7311, 0.0364)
    """
    eps = check_epsilon(epsilon)
    a = math.exp(-eps)
    t = int(threshold)
    if t <= 0:  # by symmetry, P(Z >= t) = 1 - P(Z >= 1 - t)
        return 1.0 - a ** (1 - t) / (1 + a)
    return a**t / (1 + a)
