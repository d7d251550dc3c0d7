"""Randomness: reproducible structure, secret choices from operating-system entropy.

Two kinds of randomness meet in an anonymizer, and they must never share a
source:

* **Structure** -- a record order, a generalization graph, a query
  workload. Reproducing it from a seed is what
  experiments need, and knowing it gives an adversary nothing the privacy
  model does not already grant. Functions take ``rng`` (``None``, an int seed
  or a :class:`numpy.random.Generator`) and convert it once with
  :func:`check_random_state`.
* **Secrets** -- the decomposition of a generalization graph into ``k``
  disjoint assignments and which of them is published (a seed that fixed
  the decomposition let known labels pin the published one; issue 20), the
  order in which published rows are shuffled. Anyone who can recompute a
  secret choice undoes the protection, so secrets are drawn by
  :func:`secret_generator` from operating-system entropy. Tests that need a
  fixed secret pass ``unsafe_secret_seed``; the name says what it does to a
  release, and no release file ever records it.

Examples
--------
>>> int(check_random_state(3).integers(10)) == int(check_random_state(3).integers(10))
True
>>> int(secret_generator(unsafe_secret_seed=5).integers(9)) == int(secret_generator(unsafe_secret_seed=5).integers(9))
True
"""

from __future__ import annotations

import numbers

import numpy as np

from graphanon.errors import ParameterError

__all__ = ["RandomLike", "check_random_state", "secret_generator", "seed_of"]

#: What ``rng=`` accepts: None (fresh entropy), a non-negative whole-number seed, or a Generator.
RandomLike = int | np.integer | np.random.Generator | None


def check_random_state(rng: RandomLike = None) -> np.random.Generator:
    """A :class:`numpy.random.Generator` for *structure* randomness.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` draws fresh entropy (not reproducible); an int seeds a new
        generator; a Generator is returned as is (its state advances).

    Returns
    -------
    numpy.random.Generator
    """
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng(rng)
    if isinstance(rng, bool) or not isinstance(rng, numbers.Integral) or rng < 0:
        raise ParameterError(f"rng must be None, a non-negative whole-number seed or a numpy Generator, got {rng!r}")
    return np.random.default_rng(int(rng))


def seed_of(rng) -> int | None:
    """The whole-number seed ``rng`` is, to record with a result (None for a Generator or None).

    Examples
    --------
    >>> seed_of(3), seed_of(None)
    (3, None)
    """
    return int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None


def secret_generator(unsafe_secret_seed: int | None = None) -> np.random.Generator:
    """A generator for *secret* choices: operating-system entropy.

    Parameters
    ----------
    unsafe_secret_seed : int, optional
        For tests only: makes the secret choice reproducible, which lets anyone
        who knows or guesses the number undo the release's protection. Never
        use it for data that will be published.

    Returns
    -------
    numpy.random.Generator
    """
    if unsafe_secret_seed is None:
        return np.random.default_rng()  # fresh OS entropy (SeedSequence with entropy=None)
    if isinstance(unsafe_secret_seed, bool) or not isinstance(unsafe_secret_seed, numbers.Integral):
        raise ParameterError(f"unsafe_secret_seed must be a whole number, got {unsafe_secret_seed!r}")
    return np.random.default_rng(int(unsafe_secret_seed))
