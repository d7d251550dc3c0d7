"""Label groups drawn at random: membership that says nothing about who holds which label.

``nr --param l=L`` (default ``grouping="random"``) forms its label groups by
Anatomy's secret selection (Xiao and Tao, VLDB 2006, Sec. 4): the rows are
put in buckets by label; which labels form the next group is decided from
the buckets' remaining *counts* only (:func:`group_label_sets`), and from
each chosen bucket one row is taken uniformly at random among *all* its
remaining rows, drawn from operating-system entropy
(:func:`random_label_groups`). The k-regular generalization graph is then
the k-anonymous pipeline's own ring over the whole record order: the rows
are those of ``nr -k K`` with the same seed.

Why (``docs/attacks.md``, (j), group skips): groups formed along the public
order (``grouping="order"``, :func:`~graphanon.algorithms.nonreciprocal.label_groups.label_groups`)
take from each label its earliest ungrouped row, so an adversary who holds
every record's items recomputes the order and reads a record's label from
which groups skipped it.

The proof (:func:`grouping_probability`). The label sets ``S_1, S_2, ...``
of the groups, in the order they are formed, are a function of the label
histogram alone. Label ``s`` gives one row to each group whose set holds it,
each time uniformly among its ``c`` rows left: over the whole run its rows
are drawn in a uniform random order, a probability ``1 / n_s!``. So for a
labelling ``lambda`` of the records, ``P(groups G_1, G_2, ... | lambda) =
prod_s 1 / n_s!`` when every ``G_t`` holds exactly the labels ``S_t`` under
``lambda``, and 0 otherwise; the published (unordered) partition adds a
factor, the number of ways to order its blocks along ``S_1, S_2, ...``,
that depends on the histogram only. The likelihood is therefore the *same*
for every labelling that gives each group its published multiset: the
grouping, read with every record's items, the order and the seed, tells
nothing beyond the groups' multisets. An adversary with no background
knowledge tying items to labels (any labelling consistent with the
multisets as likely as any other a priori) has a posterior for a record's
label equal to its group's label shares, ``<= 1/p <= 1/l``; one with such
knowledge keeps exactly what that knowledge and the multisets give (as in
Anatomy, Lemma 2). The labels are then dealt to each group's rows by a
secret shuffle (:func:`~graphanon.algorithms.nonreciprocal.label_groups.deal_labels`),
so a row chosen by any function of the published rows shows a draw from its
group's multiset.

References
----------
X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB
2006, Sec. 4 (the group-creation step: the largest buckets, one random
tuple each; Lemma 2, the ``1/l`` bound).
G. Ghinita, Y. Tao, P. Kalnis. On the anonymization of sparse
high-dimensional data. ICDE 2008, Sec. IV (the histogram check kept as an
invariant).
R. C.-W. Wong, A. W.-C. Fu, K. Wang, J. Pei. Minimality attack in privacy
preserving data publishing. VLDB 2007 (what a deterministic grouping leaks).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from fractions import Fraction

import numpy as np

from graphanon.utils.validation import check_diversity_feasible

__all__ = ["group_label_sets", "grouping_probability", "label_order", "random_label_groups"]


def label_order(labels) -> tuple[list, np.ndarray]:
    """The distinct labels in a fixed order (by type name, then text) and each row's code in it.

    The order depends on the label values only, never on where they occur,
    so the label sets of :func:`group_label_sets` are the same for every
    arrangement of the same labels.

    Examples
    --------
    >>> names, codes = label_order(["b", "a", "b", 3])
    >>> names, codes.tolist()
    ([3, 'a', 'b'], [2, 1, 2, 0])
    """
    first = list(dict.fromkeys(labels))
    names = sorted(first, key=lambda x: (type(x).__name__, str(x)))
    code = {x: s for s, x in enumerate(names)}
    return names, np.fromiter((code[x] for x in labels), dtype=np.int64, count=len(labels))


def group_label_sets(counts, p: int) -> list[list[int]]:
    """The label codes of each group, in the order the groups are formed, from the label counts alone.

    With ``R`` rows left and ``m = floor(R / p)``, no label is on more than
    ``m`` of them (CAHD's histogram check, kept as an invariant as in
    :func:`~graphanon.algorithms.nonreciprocal.label_groups.label_groups`):
    if ``p`` or more labels have ``m`` rows left they all form the next group
    (they must go now or never fit); otherwise the ``p`` labels with the most
    rows left do (Anatomy's largest buckets), ties broken by label code. The
    last group (fewer than ``2p`` rows left, so ``m = 1``) takes every label
    left.

    Parameters
    ----------
    counts : sequence of int
        Rows of each label code, ``0..L-1`` (no label above ``n / p``, ``p``
        or more labels: :func:`~graphanon.utils.validation.check_diversity_feasible`).
    p : int
        Distinct labels per group.

    Returns
    -------
    list of list of int
        Group ``t``'s label codes (``p`` or more, pairwise distinct).

    Notes
    -----
    Complexity: O(n log L) for ``n`` rows and ``L`` labels (a heap of labels
    by rows left, stale entries skipped).

    Examples
    --------
    >>> group_label_sets([2, 2, 2], 3)
    [[0, 1, 2], [0, 1, 2]]
    >>> group_label_sets([3, 3, 1, 1], 2)   # the largest buckets first
    [[0, 1], [0, 1], [0, 1], [2, 3]]
    >>> group_label_sets([2, 2, 2, 1], 2)   # then R = 5, m = 2: label 2 must go; the last takes all left
    [[0, 1], [0, 2], [1, 2, 3]]
    """
    left = [int(x) for x in counts]
    heap = [(-c, s) for s, c in enumerate(left) if c]
    heapq.heapify(heap)
    remaining = sum(left)
    out = []
    while remaining:
        most = remaining // p
        chosen: list[int] = []
        while heap and (len(chosen) < p or -heap[0][0] >= most):
            c, s = heapq.heappop(heap)
            if -c != left[s]:
                continue  # stale entry
            chosen.append(s)
        for s in chosen:
            left[s] -= 1
            remaining -= 1
            if left[s]:
                heapq.heappush(heap, (-left[s], s))
        out.append(sorted(chosen))
    return out


def random_label_groups(labels, p: int, secret: np.random.Generator) -> np.ndarray:
    """Partition rows into groups of ``p`` or more distinct labels; which row of a label goes where is secret.

    The groups' label sets come from :func:`group_label_sets` (counts only);
    the row a group takes from a label is a uniform draw, from ``secret``,
    among all that label's rows left. Drawing one row at a time uniformly
    without replacement is the same as dealing the label's rows in a uniform
    random order, which is how it is done, at once for all labels.

    Parameters
    ----------
    labels : sequence
        The true label of each row (that of the record the row is published for).
    p : int
        Distinct labels per group (:func:`~graphanon.algorithms.nonreciprocal.label_groups.group_size_for`).
    secret : numpy.random.Generator
        Operating-system entropy (:func:`~graphanon.utils.randomness.secret_generator`).

    Returns
    -------
    ndarray of int64, shape (n,)
        Group number of each row, ``0..G-1`` in the order the groups were
        formed; every group has ``p`` or more rows with pairwise distinct labels.

    Raises
    ------
    ParameterError
        When a label is on more than ``n / p`` rows, or fewer than ``p`` labels occur.

    Notes
    -----
    ``P(groups | labels) = prod_s 1 / n_s!`` for the groups in the order
    formed (module docstring; :func:`grouping_probability`): the same for
    every labelling that gives each group its label set.

    Complexity: O(n log L) for the label sets and O(n log n) for the deal (a
    sort of the rows by label and a random key).

    Examples
    --------
    >>> g = random_label_groups(list("aabbcc"), 3, np.random.default_rng(0))
    >>> sorted(np.bincount(g).tolist()), [sorted("aabbcc"[i] for i in np.flatnonzero(g == t)) for t in (0, 1)]
    ([3, 3], [['a', 'b', 'c'], ['a', 'b', 'c']])
    """
    check_diversity_feasible(labels, p)
    names, codes = label_order(labels)
    sets = group_label_sets(np.bincount(codes, minlength=len(names)), p)
    slot_group = np.repeat(np.arange(len(sets), dtype=np.int64), [len(s) for s in sets])
    slot_label = np.fromiter((s for chosen in sets for s in chosen), dtype=np.int64, count=len(slot_group))
    dealt = np.lexsort((secret.random(len(codes)), codes))  # rows by label, uniformly shuffled within each
    out = np.empty(len(codes), dtype=np.int64)
    out[dealt] = slot_group[np.argsort(slot_label, kind="stable")]  # label s's t-th row to its t-th group
    return out


def grouping_probability(labels, groups, p: int) -> Fraction:
    """The exact probability that :func:`random_label_groups` publishes the partition ``groups`` given ``labels``.

    Parameters
    ----------
    labels : sequence
        A labelling of the rows.
    groups : sequence of int
        A partition of the rows (group numbers; their values do not matter).
    p : int

    Returns
    -------
    Fraction
        ``prod_s 1 / n_s!`` times the number of ways to order the blocks
        along the label sets of :func:`group_label_sets` (for each distinct
        label set, the factorial of how often it occurs), when every block's
        labels are one of those sets as often as the sets say; else 0.

    Examples
    --------
    >>> grouping_probability(list("abab"), [0, 0, 1, 1], 2), grouping_probability(list("abab"), [0, 1, 0, 1], 2)
    (Fraction(1, 2), Fraction(0, 1))
    """
    names, codes = label_order(labels)
    counts = np.bincount(codes, minlength=len(names))
    sets = Counter(tuple(s) for s in group_label_sets(counts, p))
    g = np.asarray(groups)
    blocks = Counter(tuple(sorted(codes[g == x].tolist())) for x in np.unique(g))
    if blocks != sets:
        return Fraction(0)
    out = Fraction(1)
    for c in counts.tolist():
        out /= math.factorial(c)
    for m in sets.values():
        out *= math.factorial(m)
    return out
