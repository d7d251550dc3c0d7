"""Label groups: the sensitive labels of an l-diverse ``nr`` release published apart from its rows.

The labels of ``nr --param l=L`` (default ``l_method="groups"``) are
published Anatomy-style, apart from the rows. By default the groups are
drawn in secret (``grouping="random"``, :mod:`.random_groups`); this module
holds what both groupings share (:func:`group_size_for`,
:func:`deal_labels`, :func:`check_l_params`) and ``grouping="order"``, the
former default, described here: the records are first
partitioned into **label groups** formed along the record order, under
CAHD's histogram check (:func:`label_groups`), so that every group holds
``p`` or more pairwise distinct labels, and groups smaller than ``k`` are
merged with the next (:func:`ring_groups`; a label's share stays ``<=
1/p``). The k-regular generalization graph is then one ring per group
(:func:`grouped_ring`): ``k`` disjoint assignments, one chosen in secret,
bit voting, as in the k-anonymous pipeline, but every record's graph
candidates are rows of its own group. The labels of a group are dealt to
its rows by a secret uniform shuffle. The release says so in its
``label_groups`` field: a row's label is a draw from its group.

What ``grouping="order"`` does not hide (``docs/attacks.md``, (j), group
skips): membership is a function of the public order and the labels, so an
adversary holding every record's items reads labels from which records a
group skipped; :mod:`.random_groups` removes that.

Why rings inside the groups (``docs/attacks.md``, (j)): with one ring over
the whole order, a record's candidate rows spanned two or three groups of
similar records whose labels lean towards the record's, so the label
present in all of them won a majority vote over the candidates (above
``1/l`` on e-book sessions). Inside a group the graph candidates show
each label of the group equally often.

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
Every group has no label on more than ``1/p`` of its rows, so its label distribution -- and
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
high-dimensional data. ICDE 2008, Sec. IV (CAHD's histogram check).
M. Xue, P. Karras, C. Raïssi, J. Vaidya, K.-L. Tan. Anonymizing set-valued
data by nonreciprocal recoding. KDD 2012, Sec. 3-4 (the rows).
A. Machanavajjhala et al. l-Diversity: privacy beyond k-anonymity. ACM TKDD
1(1), 2007, Sec. 4.1 (entropy and recursive (c, l)-diversity).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from graphanon.errors import ParameterError
from graphanon.utils.validation import check_diversity_feasible, check_k

__all__ = ["check_l_params", "deal_labels", "group_size_for", "grouped_ring", "label_groups",
           "ring_groups"]


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


def label_groups(labels, p: int, row_order: np.ndarray) -> np.ndarray:
    """Partition rows into groups of ``p`` or more pairwise distinct labels along ``row_order``.

    Groups are formed one after the other, each with one row from each of its
    labels. With ``R`` rows left and ``m = floor(R / p)``, a partition into
    groups of ``p`` or more rows with no label above ``1/p`` of a group
    exists iff no label is on more than ``m`` of them (CAHD's histogram
    check, Ghinita et al., Sec. IV: deal the rows round-robin into ``m``
    groups). That is kept as an invariant: the labels on exactly ``m`` rows
    join the group being formed (Anatomy's largest buckets, Xiao and Tao,
    Sec. 4); if they are ``p`` or more they form it alone (at most ``p + (R
    mod p) / m`` of them, so the invariant holds after), else the labels
    whose earliest ungrouped row comes first in ``row_order`` fill it to
    ``p``. From each label its earliest ungrouped row is taken, so the rows
    are taken nearly in order (a row waits only while its label is already
    in the group being formed). The last rows (fewer than ``2p``) carry
    pairwise distinct labels and form the last group.

    Parameters
    ----------
    labels : sequence
        The true label of each row (that of the record the row is published for).
    p : int
        Group size (:func:`group_size_for`).
    row_order : permutation of the rows
        The order the groups are formed along.

    Returns
    -------
    ndarray of int64, shape (n,)
        Group number of each row, ``0..G-1`` in the order the groups were formed;
        every group has ``p`` or more rows with pairwise distinct labels.

    Raises
    ------
    ParameterError
        When a label is on more than ``n / p`` rows, or fewer than ``p`` labels occur
        (the message names the label and the largest feasible ``l``).

    Notes
    -----
    Complexity: O(n log L) time for ``L`` distinct labels (two heaps: the
    labels by earliest ungrouped row and by rows left), O(n) memory; a
    Python loop over the ``n / p`` groups, no per-row array work.

    Examples
    --------
    >>> label_groups(list("aabbcc"), 3, np.arange(6)).tolist()
    [0, 1, 0, 1, 0, 1]
    >>> label_groups(list("aaabbbcd"), 2, np.arange(8)).tolist()   # 'a' and 'b' must go first
    [0, 1, 2, 0, 1, 2, 3, 3]
    """
    check_diversity_feasible(labels, p)
    index: dict = {}
    codes = np.fromiter((index.setdefault(x, len(index)) for x in labels), dtype=np.int64, count=len(labels))
    order = np.asarray(row_order, dtype=np.int64)
    n, n_labels = len(codes), len(index)
    lab = codes[order]  # label by position
    by_label = np.argsort(lab, kind="stable")  # positions grouped by label, in order
    start = np.searchsorted(lab[by_label], np.arange(n_labels + 1))
    positions = [by_label[start[s]:start[s + 1]].tolist() for s in range(n_labels)]
    head = [0] * n_labels  # per label: its rows before head are grouped (always a prefix, earliest first)
    left = [len(x) for x in positions]
    by_head = [(positions[s][0], s) for s in range(n_labels)]
    heapq.heapify(by_head)
    by_count = [(-left[s], s) for s in range(n_labels)]
    heapq.heapify(by_count)
    out = np.empty(n, dtype=np.int64)
    remaining, group = n, 0
    while remaining:
        most = remaining // p  # the invariant: no label on more than floor(R / p) of the R rows left
        chosen, used = [], set()
        while by_count and -by_count[0][0] >= most:  # on floor(R / p) rows: must go now, or never fit
            c, s = heapq.heappop(by_count)
            if -c != left[s] or s in used:
                continue  # stale entry
            chosen.append(s)
            used.add(s)
        while len(chosen) < p:
            h, s = heapq.heappop(by_head)
            if s in used or not left[s] or positions[s][head[s]] != h:
                continue  # stale entry, or already in this group
            chosen.append(s)
            used.add(s)
        for s in chosen:
            out[order[positions[s][head[s]]]] = group
            head[s] += 1
            left[s] -= 1
            remaining -= 1
            if left[s]:
                heapq.heappush(by_head, (positions[s][head[s]], s))
                heapq.heappush(by_count, (-left[s], s))
        group += 1
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


def check_l_params(labels, n: int, *, k, l, l_method: str, diversity: str, c) -> int | None:  # noqa: E741
    """Check ``nr``'s l-diversity options up front (one-line :class:`ParameterError`); the label group size.

    Parameters
    ----------
    labels : sequence or None
        The records' labels.
    n : int
        Records.
    k, l : int or None
    l_method : {"groups", "flow", "greedy-walk"}
    diversity : {"distinct", "entropy", "recursive"}
    c : float or None

    Returns
    -------
    int or None
        ``p`` (:func:`group_size_for`) for label groups; None for the paper's
        construction.

    Examples
    --------
    >>> check_l_params(list("aabbcc"), 6, k=5, l=3, l_method="groups", diversity="distinct", c=None)
    3
    """
    if l_method == "groups":
        p = group_size_for(l, diversity, c)
        check_diversity_feasible(labels, p)  # a label on more than n / p records: refused in one line
        if diversity != "distinct":
            from graphanon.algorithms.nonreciprocal.cahd import check_table_diversity

            check_table_diversity(labels, l, diversity, c)
        return check_k(p, n, "l")
    if diversity != "distinct":
        raise ParameterError(
            f"l_method={l_method} promises distinct l-diversity only (rows matching a record beyond its "
            f"l-regular graph may carry any label); use l_method=groups for diversity={diversity}"
        )
    if k is not None and k > l:
        raise ParameterError(
            f"k={k} > l={l}: l_method={l_method} builds an l-regular generalization graph (Xue et al., "
            "Sec. 4, step 2), so each record gets exactly l matches; drop k, or use l_method=groups "
            "(the k-regular ring, labels in groups of l)"
        )
    check_diversity_feasible(labels, l)
    return None


def ring_groups(labels, p: int, k: int, perm: np.ndarray) -> np.ndarray:
    """Label groups of records along ``perm``, each of ``max(k, p)`` or more records (see :func:`label_groups`).

    Groups of :func:`label_groups` (``p`` or more pairwise distinct labels,
    formed along ``perm``) are merged with the next one while smaller
    than ``k``; a merged group's largest label share stays ``<= 1/p``.

    Parameters
    ----------
    labels : sequence
        The records' labels.
    p : int
        Distinct labels per group (:func:`group_size_for`).
    k : int
        Fewest records per group (the ring's degree).
    perm : ndarray
        The record order.

    Returns
    -------
    ndarray of int64, shape (n,)
        Group number of each record, ``0..G-1`` in the order the groups were formed.

    Examples
    --------
    >>> ring_groups(list("abcabc"), 3, 3, np.arange(6)).tolist()
    [0, 0, 0, 1, 1, 1]
    >>> ring_groups(list("abababab"), 2, 3, np.arange(8)).tolist()   # pairs merged to reach k = 3
    [0, 0, 0, 0, 1, 1, 1, 1]
    """
    groups = label_groups(labels, p, perm)
    sizes = np.bincount(groups)
    merged = np.empty(len(sizes), dtype=np.int64)
    g, size = 0, 0
    for j, s in enumerate(sizes.tolist()):  # a loop over the groups, not the records
        if size >= k:
            g, size = g + 1, 0
        merged[j] = g
        size += s
    if size < k and g:  # the last group too small: into the one before
        merged[merged == g] = g - 1
    return merged[groups]


def grouped_ring(perm: np.ndarray, groups: np.ndarray, k: int) -> np.ndarray:
    """Successors of the k-regular graph made of one ring per group (members in ``perm`` order).

    Parameters
    ----------
    perm : ndarray
        The record order.
    groups : ndarray of int64
        Group of each record; every group has ``k`` or more records.
    k : int

    Returns
    -------
    ndarray of int64, shape (n, k)
        Record ``i``'s successors: itself and the next ``k - 1`` members of its
        group along ``perm``, cyclically within the group.

    Examples
    --------
    >>> grouped_ring(np.arange(5), np.array([0, 0, 1, 1, 1]), 2).tolist()
    [[0, 1], [1, 0], [2, 3], [3, 4], [4, 2]]
    """
    perm = np.asarray(perm, dtype=np.int64)
    n = len(perm)
    position = np.empty(n, dtype=np.int64)
    position[perm] = np.arange(n)
    seq = np.lexsort((position, groups))  # records by group, then along the order
    g = np.asarray(groups, dtype=np.int64)[seq]
    start = np.searchsorted(g, g, side="left")
    size = np.searchsorted(g, g, side="right") - start
    t = np.arange(n) - start
    succ = np.empty((n, k), dtype=np.int64)
    succ[seq] = seq[start[:, None] + (t[:, None] + np.arange(k)[None, :]) % size[:, None]]
    return succ


def group_params(p: int, diversity: str, c: float | None) -> dict:
    """The published parameters of label groups: their size, and the variant when not distinct."""
    params: dict[str, object] = {"label_group_size": p}
    if diversity != "distinct":
        params["diversity"] = diversity
        if c is not None:
            params["c"] = float(c)
    return params
