"""The empirical DP audit of DiffPart: green on the mechanism, red on every planted bug.

Neighbouring datasets: ``D`` (five records {b}) and ``D' = D + {a}`` -- one
record holding an item no other record holds. The public
universe is {a, b} (fan-out 2), so the root's split is the last one: the
leaf partition {a} is released with the whole epsilon, and the event "the
release holds the itemset {a}" has probability ratio exactly ``e^epsilon``
between ``D'`` and ``D`` (``P(Z >= 0) / P(Z >= 1)`` for discrete Laplace
noise) -- the tightest event there is. Thresholds are set to 0 so that the
publication rule is ``noisy count >= 1``.

Each planted bug replaces one helper of :mod:`graphanon.algorithms.dp.diffpart`
(``monkeypatch``) or the universe the mechanism is given; the measured lower
bounds (epsilon claimed 2) are in docs/dp.md.
"""

from __future__ import annotations

import numpy as np
import pytest

import graphanon.algorithms.dp.diffpart as diffpart
from graphanon.algorithms.dp.noise import discrete_laplace
from graphanon.data import from_iterable
from graphanon.privacy.dp_empirical import clopper_pearson, empirical_epsilon
from graphanon.taxonomy import Taxonomy

EPS = 2.0
TAX = Taxonomy.balanced(["a", "b"], fanout=2)
D = from_iterable([["b"]] * 5)
D_PRIME = from_iterable([["b"]] * 5 + [["a"]])


def _holds_a_alone(rel) -> bool:
    return rel.estimate_count(["a"], ["b"]) >= 1


def _names_a(rel) -> bool:
    return "a" in rel.items


EVENTS = {"{a} released": _holds_a_alone, "universe names a": _names_a}


def _mechanism(rel_universe=None):
    def run(data):
        if rel_universe == "data":  # planted: the universe taken from the data
            return diffpart.anonymize_diffpart(data, epsilon=EPS, universe=sorted(data.items), c_internal=0.0,
                                               c_leaf=0.0)
        return diffpart.anonymize_diffpart(data, epsilon=EPS, taxonomy=TAX, c_internal=0.0, c_leaf=0.0)

    return run


def _audit(runs, mechanism=None):
    return empirical_epsilon(mechanism or _mechanism(), D, D_PRIME, EVENTS, runs=runs, alpha=1e-4, claimed=EPS)


def test_clopper_pearson_matches_the_binomial_tails():
    from scipy.stats import binom

    lo, hi = clopper_pearson(30, 100, 0.01)
    assert binom.sf(29, 100, lo) == pytest.approx(0.005, rel=1e-6)  # P(X >= 30 | lo) = alpha / 2
    assert binom.cdf(30, 100, hi) == pytest.approx(0.005, rel=1e-6)  # P(X <= 30 | hi) = alpha / 2
    assert clopper_pearson(0, 50, 0.05)[0] == 0.0 and clopper_pearson(50, 50, 0.05)[1] == 1.0


def test_diffpart_passes_the_empirical_audit():
    res = _audit(600)
    print(f"DiffPart: epsilon lower bound {res.epsilon_lower:.3f} (claimed {EPS}), counts {res.counts}")
    assert res.passed, res
    # and the event is the right one: it gets close to the claim (the true ratio is e^EPS)
    assert res.epsilon_lower > 1.0, res


def _halved_noise(values, epsilon, **kw):
    return discrete_laplace(values, 2 * epsilon, **kw)  # planted: noise of half the scale


def _no_noise(values, epsilon, **kw):
    return np.asarray(values, dtype=np.int64)  # planted: a count released without noise


def _exact_threshold(noisy, true, threshold):
    # planted: the threshold read from the exact count (a noisy count below 1 is still never published)
    return (np.asarray(true) >= threshold) & (np.asarray(noisy) >= 1)


def _budget_twice(r, leaf_half):
    return r + 2 * leaf_half  # planted: the leaves' half spent on top of the path's (the budget spent twice)


@pytest.mark.parametrize("bug, runs", [
    ("noise scale halved", 600),
    ("count without noise", 300),
    ("threshold from the exact count", 300),
    ("budget spent twice", 1000),
    ("universe from the data", 300),
])
def test_the_audit_fails_on_a_planted_bug(bug, runs, monkeypatch):
    mechanism = None
    if bug == "noise scale halved":
        monkeypatch.setattr(diffpart, "discrete_laplace", _halved_noise)
    elif bug == "count without noise":
        monkeypatch.setattr(diffpart, "discrete_laplace", _no_noise)
    elif bug == "threshold from the exact count":
        monkeypatch.setattr(diffpart, "_passes", _exact_threshold)
    elif bug == "budget spent twice":
        monkeypatch.setattr(diffpart, "_leaf_budget", _budget_twice)
    else:
        mechanism = _mechanism("data")
    res = _audit(runs, mechanism)
    print(f"{bug}: epsilon lower bound {res.epsilon_lower:.3f} (claimed {EPS}), event {res.event!r}, "
          f"counts {res.counts}, runs {runs}")
    assert not res.passed, res
