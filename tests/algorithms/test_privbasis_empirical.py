"""The empirical DP audit of PrivBasis: green on the mechanism, red on the planted bugs.

Two neighbouring pairs over the public universe {a, b}, epsilon claimed 2
(the statistically strong runs and the table are in
``benchmarks/dp_audit.py`` and docs/dp.md):

* **bins**: ``D`` = 60 records {b}, ``D' = D + {a, b}``; ``k = 3``,
  ``max_basis = 1``, ``alpha1 = 0.05``, ``alpha2 = 0.01`` (so the bins get
  ``0.94 * epsilon``). lambda = 2 is all but certain (its quality is 60
  better than lambda = 1's), both items are frequent, their one pair is
  selected and cut into the bases {a} and {b}: ``w = 2``, each basis's bin
  at ``0.94 * epsilon / 2``. The event "{a} released with noisy support >= 1
  and {b} with >= 61" has ratio ``e^(0.94 epsilon)`` between ``D'`` and
  ``D``; a bin at the whole ``0.94 epsilon`` (halved noise, or the budget
  spent once per basis instead of shared) doubles it.
* **lambda**: ``D`` = 5 records {a, b}, ``D' = D + {b}``; ``k = 3``,
  default shares. lambda = 1 and 2 tie on ``D`` and lambda = 2 is better on
  ``D'``; with lambda = 2 all three itemsets are released, with lambda = 1
  one. The event "more than one itemset released" is lambda = 2: a lambda
  read from the exact counts (the quality's maximiser, ties to the smaller)
  separates the two for sure.

The planted bugs replace one helper of :mod:`graphanon.algorithms.dp.privbasis`
(``monkeypatch``) or the universe the mechanism is given. Halved noise and the
budget spent per basis need ~500 runs a side to be caught (seconds each):
they are run in ``benchmarks/dp_audit.py`` and, planted in the source, by
the mutation run, where the audit of the shipped mechanism below (500 runs:
a binomial simulation of its counts under either bug caught it in 400 of 400
draws) kills them.
"""

from __future__ import annotations

import numpy as np
import pytest

import graphanon.algorithms.dp.privbasis as pb
from graphanon.data import from_iterable
from graphanon.privacy.dp_empirical import empirical_epsilon

EPS = 2.0
UNIVERSE = ["a", "b"]
BINS = dict(d=from_iterable([["b"]] * 60), d_prime=from_iterable([["b"]] * 60 + [["a", "b"]]),
            kw=dict(k=3, max_basis=1, alpha1=0.05, alpha2=0.01))
LAMBDA = dict(d=from_iterable([["a", "b"]] * 5), d_prime=from_iterable([["a", "b"]] * 5 + [["b"]]), kw=dict(k=3))


def _both_bins_up(rel) -> bool:
    s = rel.itemset_supports()
    return s.get(frozenset("a"), -np.inf) >= 1 and s.get(frozenset("b"), -np.inf) >= 61


EVENTS = {
    # a universe taken from D (no a) never releases {a}: this one event also catches that bug
    "bins": {"{a} >= 1 and {b} >= 61": _both_bins_up},
    "lambda": {"more than one itemset": lambda rel: len(rel) > 1},
}


def mechanism(config: dict, universe=None):
    """One run of PrivBasis on the configuration's data (``universe="data"``: the planted universe bug)."""

    def run(data):
        u = sorted(data.items) if universe == "data" else UNIVERSE
        return pb.anonymize_privbasis(data, epsilon=EPS, universe=u, **config["kw"])

    return run


def audit(name: str, runs: int, universe=None, events=None):
    config = BINS if name == "bins" else LAMBDA
    return empirical_epsilon(mechanism(config, universe), config["d"], config["d_prime"], events or EVENTS[name],
                             runs=runs, alpha=1e-4, claimed=EPS)


@pytest.mark.parametrize("name, runs", [("bins", 500), ("lambda", 150)])
def test_privbasis_passes_the_empirical_audit(name, runs):
    res = audit(name, runs)
    print(f"PrivBasis ({name}): epsilon lower bound {res.epsilon_lower:.3f} (claimed {EPS}), counts {res.counts}")
    assert res.passed, res
    if name == "bins":  # the event is a sharp one: its true ratio is e^(0.94 EPS); ~1.0 expected at 500 runs
        assert res.epsilon_lower > 0.5, res


def _no_noise(values, epsilon, **kw):
    return np.asarray(values, dtype=np.int64)  # planted: bin counts released without noise


def _exact_lambda(f_sorted, theta, eps):
    return int(np.argmax(-np.abs(f_sorted - theta))) + 1  # planted: lambda from the exact counts


@pytest.mark.parametrize("bug, name, runs", [
    ("count without noise", "bins", 150),
    ("lambda from the exact count", "lambda", 150),
    ("universe from the data", "bins", 150),
])
def test_the_audit_fails_on_a_planted_bug(bug, name, runs, monkeypatch):
    universe, events = None, None
    if bug == "count without noise":
        monkeypatch.setattr(pb, "discrete_laplace", _no_noise)
    elif bug == "lambda from the exact count":
        monkeypatch.setattr(pb, "_choose_lambda", _exact_lambda)
    else:  # the sharpest event for few runs (the shipped audit's event catches it with 500)
        universe, events = "data", {"universe names a": lambda rel: "a" in rel.items}
    res = audit(name, runs, universe, events)
    print(f"{bug}: epsilon lower bound {res.epsilon_lower:.3f} (claimed {EPS}), event {res.event!r}, "
          f"counts {res.counts}, runs {runs}")
    assert not res.passed, res
