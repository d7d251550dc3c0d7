"""The exact posterior of the group-skip adversary (:func:`~graphanon.attacks.group_skip_attack`, ``method="exact"``).

The adversary knows every record's items, the public order, each record's
group and each group's published label multiset. Under a uniform prior over
the labellings those multisets allow (each group's labels arranged over its
records in any way), the posterior of a labelling is uniform over the
labellings on which the **public grouping procedure** -- re-run as the
anonymizer runs it -- reproduces the published grouping, and zero on the
others. CAHD's secret draws (``grouping=random``) are not a function of the
labels: there each labelling is weighted by the exact probability that the
draws give the published groups on it
(:func:`~graphanon.algorithms.nonreciprocal.cahd_secret.band_grouping_probability`). This module enumerates every arrangement, re-runs the procedure
(:func:`~graphanon.algorithms.nonreciprocal.label_groups.ring_groups` for
label groups formed along the order,
:func:`~graphanon.algorithms.nonreciprocal.cahd_groups.cahd_groups` for
CAHD), keeps the labellings that reproduce the partition of the records,
and counts each record's labels over them. Exact, and refused in one line
above ``max_worlds`` arrangements (the product over the groups of their
distinct label arrangements): no approximation is made silently.

References
----------
Machanavajjhala et al., ACM TKDD 1(1), 2007, Sec. 3 (the Bayes-optimal
adversary: posterior over the worlds consistent with the release). Xue et al.,
KDD 2012 (uniform possible worlds).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups
from graphanon.algorithms.nonreciprocal.cahd_secret import band_grouping_probability
from graphanon.algorithms.nonreciprocal.label_groups import ring_groups
from graphanon.errors import ParameterError

__all__ = ["canonical_partition", "check_reproduces", "exact_posterior"]


def canonical_partition(group) -> np.ndarray:
    """Group numbers renumbered by first appearance in record order: equal arrays iff equal partitions.

    Examples
    --------
    >>> canonical_partition([5, 2, 5, 7]).tolist()
    [0, 1, 0, 2]
    """
    _, first, inverse = np.unique(np.asarray(group), return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def _arrangements(multiset: list[int]) -> list[tuple[int, ...]]:
    """The distinct orderings of a multiset of label codes (sorted)."""
    return sorted(set(itertools.permutations(multiset)))


def _n_arrangements(counts: np.ndarray) -> int:
    """Multinomial: distinct orderings of a multiset with these counts."""
    c = [int(x) for x in counts if x]
    return math.factorial(sum(c)) // math.prod(math.factorial(x) for x in c)


def _procedure(original, release, order: np.ndarray, procedure: str, group: np.ndarray, *, apart: bool = True):
    """The public grouping procedure as a function of a labelling (label values, one per record).

    For CAHD's secret scan (``"secret-scan"``) it returns the likelihood
    instead: a function of a labelling giving the exact probability that the
    scan forms the records' groups ``group`` on it.
    """
    params = getattr(release, "params", None) or {}
    if procedure == "random":
        raise ParameterError("the exact posterior re-runs the public grouping along the order; this release's groups "
                             "were drawn at random (grouping=random), so there is no public procedure to re-run")
    if procedure == "order":
        p, k = params.get("label_group_size"), params.get("k")
        if not isinstance(p, int) or not isinstance(k, int):
            raise ParameterError("the release does not publish label_group_size and k: the order grouping cannot be "
                                 "re-run")
        return lambda labels: ring_groups(labels, p, k, order)
    size, alpha = params.get("group_size", params.get("l")), params.get("alpha", 3)
    if not isinstance(size, int):
        raise ParameterError("the release does not publish its group size: CAHD's grouping cannot be re-run")
    big = np.bincount(group).max(initial=0)
    if apart and big >= 2 * size:
        raise ParameterError(f"{int(big)} records share one published content: two CAHD groups (at most "
                             f"{2 * size - 1} records each) published the same rows, and the exact posterior needs "
                             "the groups apart")
    X = original.matrix
    if procedure == "secret-scan":
        return lambda labels: band_grouping_probability(labels, size, group, order=order, window=2 * alpha * size)

    def rerun(labels):
        out = np.empty(len(labels), dtype=np.int64)
        for g, members in enumerate(cahd_groups(X, labels, size, order=order, alpha=alpha)):
            out[members] = g
        return out

    return rerun


def check_reproduces(original, release, order: np.ndarray, group: np.ndarray, procedure: str) -> bool:
    """Whether the public procedure, run on the true labels along ``order``, gives the records' groups.

    The scorer holds the labels: a False means the order (or the seed it was
    recomputed from) is not the one the release was made along, and every
    reading of the skips would be noise. Groups drawn at random are not
    checked (True). CAHD's classes of one content may hold several groups:
    there the groups must refine the classes.
    """
    group = np.asarray(group, dtype=np.int64)
    if procedure == "random" or (group < 0).any():
        return True
    rerun = _procedure(original, release, np.asarray(order, dtype=np.int64), procedure, group, apart=False)
    if procedure == "secret-scan":  # the groups the scan could draw on the true labels
        size = (getattr(release, "params", None) or {}).get("group_size", 0)
        if np.bincount(group).max(initial=0) >= 2 * size:
            return True  # two groups published one content: their classes cannot be replayed apart
        return rerun(list(original.labels)) > 0
    again = rerun(list(original.labels))
    if procedure == "scan":
        pairs = np.unique(np.column_stack([again, group]), axis=0)
        return len(pairs) == len(np.unique(again))
    return bool(np.array_equal(canonical_partition(again), canonical_partition(group)))


def exact_posterior(original, release, order: np.ndarray, group: np.ndarray, counts: np.ndarray, value_of: dict,
                    procedure: str, *, max_worlds: int = 200_000) -> tuple[np.ndarray, dict]:
    """Each record's posterior label distribution given the published grouping, by enumeration.

    Parameters
    ----------
    original : TransactionData
        Every record's items (what the procedure reads besides the labels).
    release : NonreciprocalRelease
        Its published parameters configure the procedure.
    order : ndarray of int64
        The public record order.
    group : ndarray of int64
        Each record's group (``0..G-1``).
    counts : ndarray, shape (G, L)
        Each group's published label counts (label codes ``0..L-1``).
    value_of : dict
        Label code -> label value (what the procedure is run on).
    procedure : {"order", "scan", "secret-scan", "random"}
        :func:`~graphanon.attacks.group_skips.public_groups`.
    max_worlds : int
        Most arrangements enumerated.

    Returns
    -------
    posterior : ndarray, shape (n, L)
        ``posterior[i, a]``: the share of the consistent labellings giving
        record ``i`` label ``a`` (for the secret scan, weighted by their likelihood).
    details : dict
        ``worlds`` (arrangements enumerated), ``consistent_worlds``.

    Raises
    ------
    ParameterError
        Above ``max_worlds`` (naming the enumeration size), for groups drawn at
        random, when the records' groups disagree with the published sizes, or
        when no labelling reproduces the grouping (wrong order or parameters).

    Notes
    -----
    Complexity: O(W x cost of one grouping run) for ``W`` the product over
    the groups of their distinct label arrangements (``p!`` for a group of
    ``p`` distinct labels): exponential in the number of groups, hence the limit.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import NonreciprocalRelease
    >>> data = from_iterable([["x"]] * 6, labels=list("abcabc"))
    >>> rel = NonreciprocalRelease(items=["x"], base=np.ones((6, 1)), distance=np.zeros((6, 1)),
    ...                            threshold=np.zeros(6, dtype=int), labels=list("abcabc"),
    ...                            label_groups=[0, 0, 0, 1, 1, 1], params={"k": 3, "label_group_size": 3})
    >>> counts = np.array([[1, 1, 1], [1, 1, 1]])
    >>> post, info = exact_posterior(data, rel, np.arange(6), np.array([0, 0, 0, 1, 1, 1]), counts,
    ...                              {0: "a", 1: "b", 2: "c"}, "order")
    >>> info
    {'worlds': 36, 'consistent_worlds': 36}
    """
    group = np.asarray(group, dtype=np.int64)
    n, n_groups = len(group), counts.shape[0]
    sizes = np.bincount(group, minlength=n_groups)
    if (sizes != counts.sum(axis=1)).any():
        g = int(np.flatnonzero(sizes != counts.sum(axis=1))[0])
        raise ParameterError(f"group {g} holds {int(sizes[g])} records but publishes {int(counts[g].sum())} labels: "
                             "the records' groups do not match the release")
    worlds = math.prod(_n_arrangements(counts[g]) for g in range(n_groups))
    if worlds > max_worlds:
        raise ParameterError(f"the exact group-skip posterior would enumerate {worlds:,} labellings (the product over "
                             f"the {n_groups} groups of their label arrangements), above max_worlds={max_worlds:,}; "
                             "use the heuristic reading (method='heuristic'; on the command line, leave out "
                             "--param exact=true), or fewer records")
    rerun = _procedure(original, release, np.asarray(order, dtype=np.int64), procedure, group)
    target = canonical_partition(group)
    if procedure == "secret-scan":
        def weight(labels) -> float:
            return float(rerun(labels))
    else:
        def weight(labels) -> float:
            return float(np.array_equal(canonical_partition(rerun(labels)), target))
    members = [np.flatnonzero(group == g) for g in range(n_groups)]
    options = [_arrangements([a for a in range(counts.shape[1]) for _ in range(int(counts[g, a]))])
               for g in range(n_groups)]
    acc = np.zeros((n, counts.shape[1]))
    labelling = np.empty(n, dtype=np.int64)
    consistent, total = 0, 0.0
    rows = np.arange(n)
    for combo in itertools.product(*options):
        for m, arrangement in zip(members, combo, strict=True):
            labelling[m] = arrangement
        w = weight([value_of[c] for c in labelling.tolist()])
        if w > 0:
            consistent += 1
            total += w
            acc[rows, labelling] += w
    if not consistent:
        raise ParameterError("no labelling reproduces the published grouping: the order or the release's parameters "
                             "are not those it was made with")
    return acc / total, {"worlds": int(worlds), "consistent_worlds": consistent}
