"""An empirical lower bound on the epsilon of a mechanism: the test of a DP guarantee, not a proof.

No audit can check differential privacy from an output. What a test can do
is run the mechanism many times on two **neighbouring** datasets (one
record added or removed), count how often an event happens on each, and
turn the two counts into a statistically valid *lower* bound on the
mechanism's epsilon: with Clopper-Pearson bounds ``p_lo(D)`` and
``p_hi(D')`` (all of them together right with probability ``1 - alpha``,
Bonferroni over the events, their complements and both directions), an epsilon-DP mechanism has

    epsilon >= ln(p_lo(D) / p_hi(D'))   (and the same with D, D' swapped,
                                         and for the complement event)

except with probability ``alpha``. A bound above the claimed epsilon proves
the implementation wrong (a planted bug: halved noise, a count without
noise, a threshold read from an exact count, the budget spent twice, the
universe taken from the data); a bound below it proves nothing -- other
datasets or events may do worse (Jagielski, Ullman, Oprea 2020; Ding et al.
2018). The events are the tester's choice: the best ones separate the two
datasets where the mechanism spends its budget (the count of the record
that differs).

Examples
--------
>>> import numpy as np
>>> from graphanon.data import from_iterable
>>> gen = np.random.default_rng(0)   # a toy "mechanism": randomized response on "is x in the data"
>>> def mech(data):
...     truth = "x" in data.items
...     return truth if gen.random() < np.exp(1) / (1 + np.exp(1)) else not truth
>>> res = empirical_epsilon(mech, from_iterable([["y"]]), from_iterable([["y"], ["x"]]),
...                         {"says x": lambda out: out}, runs=2000, claimed=1.0)
>>> res.passed, 0.6 < res.epsilon_lower < 1.0, res.event
(True, True, 'says x')

References
----------
M. Jagielski, J. Ullman, A. Oprea. *Auditing differentially private
machine learning: how private is private SGD?* NeurIPS 2020 (Clopper-Pearson
lower bounds). Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer. *Detecting
violations of differential privacy.* CCS 2018.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from graphanon.errors import ParameterError

__all__ = ["EmpiricalDPResult", "clopper_pearson", "empirical_epsilon"]


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """The exact two-sided ``1 - alpha`` confidence interval of a binomial proportion.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100, 0.05)
    >>> lo, round(hi, 4)
    (0.0, 0.0362)
    """
    from scipy.stats import beta

    if not 0 <= successes <= trials or trials < 1:
        raise ParameterError(f"need 0 <= successes <= trials and trials >= 1, got {successes} of {trials}")
    lo = 0.0 if successes == 0 else float(beta.ppf(alpha / 2, successes, trials - successes + 1))
    hi = 1.0 if successes == trials else float(beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return lo, hi


@dataclass(frozen=True)
class EmpiricalDPResult:
    """The outcome of :func:`empirical_epsilon`.

    Attributes
    ----------
    epsilon_lower : float
        The largest lower bound over the events (``inf`` when an event never
        happens on one dataset and always on the other, within the bounds).
    event : str
        The event that gave it.
    claimed : float or None
        The epsilon the mechanism claims.
    counts : dict
        Per event, ``(times on D, times on D')`` out of ``runs`` each.
    runs : int
    alpha : float
    """

    epsilon_lower: float
    event: str
    claimed: float | None
    counts: dict
    runs: int
    alpha: float

    @property
    def passed(self) -> bool:
        """Whether the lower bound stays at or below the claimed epsilon (nothing proven wrong)."""
        return self.claimed is None or self.epsilon_lower <= self.claimed


def _log_ratio(num: float, den: float) -> float:
    if num <= 0:
        return -math.inf
    return math.inf if den <= 0 else math.log(num / den)


def empirical_epsilon(
    mechanism: Callable,
    d: object,
    d_prime: object,
    events: Mapping[str, Callable[[object], bool]],
    *,
    runs: int = 2000,
    alpha: float = 1e-4,
    claimed: float | None = None,
) -> EmpiricalDPResult:
    """A ``1 - alpha`` lower bound on the epsilon of ``mechanism`` from neighbouring ``d`` and ``d_prime``.

    Parameters
    ----------
    mechanism : callable(data) -> output
        Runs the mechanism once (fresh randomness each call).
    d, d_prime : datasets
        Neighbours: one record added or removed.
    events : mapping name -> callable(output) -> bool
        The events counted on each output (and their complements).
    runs : int
        Runs on each dataset.
    alpha : float
        The probability that the bound is wrong (Bonferroni over the
        ``8 * len(events)`` one-sided Clopper-Pearson bounds used).
    claimed : float, optional
        The epsilon the mechanism claims (sets :attr:`EmpiricalDPResult.passed`).

    Returns
    -------
    EmpiricalDPResult

    Notes
    -----
    Complexity: ``2 * runs`` calls of the mechanism; each event once per output.
    """
    if not events:
        raise ParameterError("give at least one event")
    if runs < 1 or not 0 < alpha < 1:
        raise ParameterError(f"need runs >= 1 and 0 < alpha < 1, got runs={runs}, alpha={alpha}")
    names = list(events)
    hits = {name: [0, 0] for name in names}
    for side, data in enumerate((d, d_prime)):
        for _ in range(runs):
            out = mechanism(data)
            for name in names:
                if events[name](out):
                    hits[name][side] += 1
    a = alpha / (8 * len(names))  # each one-sided bound fails with probability a
    best, best_event = -math.inf, names[0]
    for name in names:
        k0, k1 = hits[name]
        for s0, s1 in ((k0, k1), (runs - k0, runs - k1)):  # the event and its complement
            lo0, hi0 = clopper_pearson(s0, runs, 2 * a)
            lo1, hi1 = clopper_pearson(s1, runs, 2 * a)
            for value in (_log_ratio(lo0, hi1), _log_ratio(lo1, hi0)):
                if value > best:
                    best, best_event = value, name
    return EmpiricalDPResult(epsilon_lower=max(best, 0.0), event=best_event, claimed=claimed,
                             counts={name: tuple(v) for name, v in hits.items()}, runs=runs, alpha=alpha)
