"""Label groups: the sensitive labels of an l-diverse ``nr`` release published apart from its rows.

The rows of ``nr --param l=L`` (default ``l_method="groups"``) are those of
the k-anonymous pipeline: the k-regular ring over the record order, ``k``
disjoint assignments, one chosen in secret, bit voting. The labels are then
published Anatomy-style: the rows are partitioned into **label groups** of
rows that stand near each other in the record order (a row stands where its
postimage's record stands), formed by the CAHD heuristic
(:func:`~graphanon.algorithms.nonreciprocal.cahd_groups.cahd_groups`) so
that every group holds ``p`` or more pairwise distinct labels; the labels of
a group are dealt to its rows by a secret uniform shuffle. The release says
so in its ``label_groups`` field: a row's label is a draw from its group.

Why it holds against an adversary who ranks rows by their contents
(``docs/attacks.md``, (j)): the shuffle is drawn from operating-system
entropy independently of every published row, so whatever row ``r`` an
adversary picks for a target, from any function of the rows and the
target's items, the label ``r`` shows is a uniform draw from the multiset
of ``r``'s group. If ``r`` is the target's own row, the target's label is
read with probability ``count / |G|``, at most ``1/p <= 1/l``; if it is
not, with probability at most the label's share in ``r``'s group, also
``<= 1/p``. So success ``<= 1/p`` for every target and every score.

Group size ``p``: ``l`` for distinct and entropy l-diversity, ``l - 1 +
floor(1/c) + 1`` for recursive (c, l) (then ``r_1 = 1 < c (p - l + 1)``).
Every group has pairwise distinct labels, so its label distribution -- and
any mixture of such distributions, e.g. the labels of a record's candidate
rows -- has largest share ``<= 1/p`` (min-entropy, hence entropy, ``>= log
p``) and, with ``q_1 <= 1/p`` and ``q_l + ... >= 1 - (l-1)/p``, meets
``q_1 < c (q_l + ...)`` whenever ``c (p - l + 1) > 1``.

References
----------
X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB
2006, Sec. 3 (quasi-identifiers and sensitive values published in separate
tables linked by a group id; the ``1/l`` bound of Lemma 2).
G. Ghinita, Y. Tao, P. Kalnis. On the anonymization of sparse
high-dimensional data. ICDE 2008, Sec. IV (CAHD group formation).
M. Xue, P. Karras, C. Raïssi, J. Vaidya, K.-L. Tan. Anonymizing set-valued
data by nonreciprocal recoding. KDD 2012, Sec. 3-4 (the rows).
A. Machanavajjhala et al. l-Diversity: privacy beyond k-anonymity. ACM TKDD
1(1), 2007, Sec. 4.1 (entropy and recursive (c, l)-diversity).
"""

from __future__ import annotations

import math

import numpy as np

from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups
from graphanon.errors import ParameterError
from graphanon.utils.validation import check_diversity_feasible

__all__ = ["deal_labels", "group_size_for", "label_groups"]


def group_size_for(l: int, diversity: str = "distinct", c: float | None = None) -> int:  # noqa: E741
    """The number ``p`` of pairwise distinct labels a label group needs for the variant.

    Parameters
    ----------
    l : int
    diversity : {"distinct", "entropy", "recursive"}
    c : float, optional
        The recursive constant (``diversity="recursive"`` only, then required).

    Returns
    -------
    int
        ``l``, or ``l - 1 + floor(1/c) + 1`` for recursive (c, l).

    Examples
    --------
    >>> group_size_for(3), group_size_for(3, "entropy"), group_size_for(3, "recursive", 2.0)
    (3, 3, 3)
    >>> group_size_for(3, "recursive", 1.0)
    4
    """
    if diversity == "recursive":
        if c is None:
            raise ParameterError("diversity=recursive needs c: r_1 < c (r_l + ... + r_m)")
        return int(l) - 1 + math.floor(1.0 / float(c)) + 1
    if c is not None:
        raise ParameterError(f"c applies to diversity=recursive only, not {diversity!r}")
    return int(l)


def label_groups(X, labels, p: int, row_order: np.ndarray, *, alpha: int = 3) -> np.ndarray:
    """Partition rows into groups of ``p`` or more pairwise distinct labels, near each other in ``row_order``.

    Parameters
    ----------
    X : sparse matrix (n, d)
        Per row, the items its position stands for (CAHD's similarity among the
        candidates of a group).
    labels : sequence
        The true label of each row (that of the record the row is published for).
    p : int
        Group size (:func:`group_size_for`).
    row_order : permutation of the rows
        The order the groups are formed along.
    alpha : int, default 3
        CAHD candidate list: ``alpha * p`` rows on each side.

    Returns
    -------
    ndarray of int64, shape (n,)
        Group number of each row, ``0..G-1`` in the order the groups were formed.

    Raises
    ------
    ParameterError
        When a label is on more than ``n / p`` rows, or fewer than ``p`` labels occur
        (the message names the label and the largest feasible ``l``).

    Notes
    -----
    Complexity: that of :func:`~graphanon.algorithms.nonreciprocal.cahd_groups.cahd_groups`,
    O(n alpha p d / 64) in the typical case.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array(np.eye(6, dtype=bool))
    >>> label_groups(X, list("aabbcc"), 3, np.arange(6)).tolist()
    [0, 1, 0, 1, 0, 1]
    """
    check_diversity_feasible(labels, p)
    groups = cahd_groups(X, list(labels), p, order=row_order, alpha=alpha)
    out = np.empty(len(labels), dtype=np.int64)
    for g, members in enumerate(groups):
        out[members] = g
    return out


def deal_labels(labels, groups: np.ndarray, secret: np.random.Generator) -> list:
    """Deal each group's labels to its rows by a uniform random permutation drawn from ``secret``.

    Parameters
    ----------
    labels : sequence
        The true label of each row.
    groups : ndarray of int64
        Label group of each row.
    secret : numpy.random.Generator
        Operating-system entropy (:func:`~graphanon.utils.randomness.secret_generator`).

    Returns
    -------
    list
        The published label of each row: within every group, the group's labels
        in a uniformly random order (every group keeps its multiset).

    Examples
    --------
    >>> dealt = deal_labels(list("abcxyz"), np.array([0, 0, 0, 1, 1, 1]), np.random.default_rng(0))
    >>> sorted(dealt[:3]), sorted(dealt[3:])
    (['a', 'b', 'c'], ['x', 'y', 'z'])
    """
    groups = np.asarray(groups, dtype=np.int64)
    by_group = np.argsort(groups, kind="stable")  # rows sorted by group
    shuffled = np.lexsort((secret.random(len(groups)), groups))  # the same groups, random order inside each
    out = np.empty(len(groups), dtype=object)
    out[by_group] = np.asarray(list(labels), dtype=object)[shuffled]
    return out.tolist()
