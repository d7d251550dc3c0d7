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
privacy.* CCS 2012. C. Canonne, G. Kamath, T. Steinke. *The discrete Gaussian
for differential privacy.* NeurIPS 2020 (the exact discrete Laplace sampler
OpenDP implements). OpenDP: https://docs.opendp.org.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from graphanon.errors import ParameterError

__all__ = ["check_epsilon", "discrete_laplace", "discrete_laplace_tail"]

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
