"""CAHD's groups with a secret choice of members: the band's windows, Anatomy's label counts, uniform draws.

``cahd --param l=L`` (default ``grouping="random"``) forms its groups along
CAHD's band order (the Gray order) as :func:`secret_band_groups` does:

1. **which labels** the next group takes is decided from the labels'
   remaining *counts* only, as Anatomy and CAHD's histogram check do
   (:func:`~graphanon.algorithms.nonreciprocal.random_groups.group_label_sets`:
   every label that must go now, then the largest buckets);
2. **where in the band** it forms: the window of the first ``w`` records
   not yet grouped along the order (CAHD's candidate list holds ``alpha *
   l`` records on each side of the visited record, so ``w = 2 alpha p``),
   stretched forward to the first record left of any chosen label it lacks;
3. **which record** of a chosen label joins: a uniform draw, from
   operating-system entropy, among the window's records of that label.

The paper's own construction (``grouping="order"``,
:func:`~graphanon.algorithms.nonreciprocal.cahd_groups.cahd_groups`) puts
the visited record in its group and takes the most similar candidate of
each other label, so the records a group passed over are, far more often
than chance, records of the labels it took (``docs/attacks.md``, (j),
group skips). Here no record is the group's anchor and no record is
passed over for its content.

What holds, and what does not (Notes of :func:`band_grouping_probability`).
With ``S_1, S_2, ...`` the label sets (a function of the histogram) and
``W_t`` the window of step ``t``, ``P(G_1, G_2, ... | lambda) = prod_t
prod_{s in S_t} 1 / |W_t ∩ lambda^-1(s)|`` when every ``G_t`` lies in
``W_t`` and holds the labels ``S_t``, else 0; the unordered partition the
file shows sums this over the orders in which its blocks can have been
formed. Anatomy's proof (:mod:`~graphanon.algorithms.nonreciprocal.random_groups`)
makes every draw among *all* the records left of its label, so the
normalizers multiply to ``prod_s 1 / n_s!`` for every labelling with the
published multisets. In a window they are the window's label counts, which
change when the labels of two records of a later group are exchanged, and
the stretch of a window depends on where a label's next record is; so the
likelihood is **not** the same for every labelling with the published
multisets, and no proof of the ``1/l`` bound against the adversary who
holds every record's items is claimed. (A construction that keeps groups
local cannot have that proof in general: the likelihood is invariant only
when every decision depends on the labels through unions of published
groups, and a region of the band is such a union only if its own labels
are l-diverse, which the band order, putting records with similar items,
hence often similar labels, together, does not give.) The exact posterior
of this construction is computed by :func:`band_grouping_probability`, and
the adversary is measured with it (``docs/attacks.md``, (j)).

References
----------
X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB
2006, Sec. 4 (label sets from the bucket sizes; one random tuple each).
G. Ghinita, Y. Tao, P. Kalnis. On the anonymization of sparse
high-dimensional data. ICDE 2008, Sec. IV (the band, the candidate list of
``alpha * p`` transactions on each side, the histogram check).
R. C.-W. Wong, A. W.-C. Fu, K. Wang, J. Pei. Minimality attack in privacy
preserving data publishing. VLDB 2007 (what a deterministic grouping leaks).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from graphanon.algorithms.nonreciprocal.random_groups import group_label_sets, label_order
from graphanon.errors import ParameterError
from graphanon.utils.validation import check_diversity_feasible, check_order

__all__ = ["band_grouping_probability", "secret_band_groups"]


def _window(alive: np.ndarray, lab: np.ndarray, head: int, wanted, w: int) -> np.ndarray:
    """The positions of step's window: the first ``w`` live positions from ``head``, stretched to hold every label in ``wanted``.

    Examples
    --------
    >>> alive = np.array([False, True, True, True, True, True])
    >>> _window(alive, np.array([0, 0, 1, 1, 0, 2]), 1, [0, 2], 2).tolist()
    [1, 2, 3, 4, 5]
    """
    n = len(alive)
    span = 4 * w
    while True:
        stop = min(head + span, n)
        pos = head + np.flatnonzero(alive[head:stop])
        have = lab[pos]
        end = min(w, len(pos))
        complete = True
        for s in wanted:
            hit = np.flatnonzero(have == s)
            if hit.size == 0:
                complete = False
                break
            end = max(end, int(hit[0]) + 1)
        if complete and (len(pos) >= w or stop == n):
            return pos[:end]
        if stop == n:
            raise AssertionError("a chosen label has no record left")  # the label sets follow the counts
        span *= 4


def _prepare(labels, p: int, order, n: int):
    check_diversity_feasible(labels, p)
    names, codes = label_order(labels)
    order = np.arange(n, dtype=np.int64) if order is None else check_order(order, n)
    return codes[order], group_label_sets(np.bincount(codes, minlength=len(names)), p), order


def secret_band_groups(labels, p: int, *, order=None, window: int, secret: np.random.Generator,
                       progress=None) -> list[np.ndarray]:
    """Partition the records into groups of ``p`` or more distinct labels along the band, members drawn in secret.

    Parameters
    ----------
    labels : sequence
        One sensitive label per record.
    p : int
        Distinct labels per group.
    order : array-like of int, optional
        The band order (a permutation of the records; default the identity).
    window : int
        ``w``: records left at the head of the band a group draws from
        (stretched to hold every label the group takes).
    secret : numpy.random.Generator
        Operating-system entropy (:func:`~graphanon.utils.randomness.secret_generator`).
    progress : callable(done, total, message), optional
        Called with the records grouped so far (out of ``n``) about every 1% of them.

    Returns
    -------
    list of ndarray of int64
        Record indices of each group (listed along the order), in the order formed.

    Raises
    ------
    ParameterError
        When a label is on more than ``n / p`` records, fewer than ``p``
        labels occur, or ``window < p``.

    Notes
    -----
    The module docstring states what holds and what does not.

    Complexity: O(n / p * (w + L)) numpy work for ``L`` labels (each
    window a slice of the live positions), plus O(n log L) for the label sets.

    Examples
    --------
    >>> groups = secret_band_groups(list("abcabcabc"), 3, window=6, secret=np.random.default_rng(0))
    >>> [sorted("abcabcabc"[i] for i in g) for g in groups]
    [['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c']]
    """
    n = len(labels)
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < p:
        raise ParameterError(f"window must be an integer >= p={p}, got {window!r}")
    lab, sets, order = _prepare(labels, p, order, n)
    alive = np.ones(n, dtype=bool)
    head = 0
    groups = []
    step, done = max(n // 100, 1), 0
    for wanted in sets:
        while not alive[head]:
            head += 1
        W = _window(alive, lab, head, wanted, int(window))
        took = np.array([int(secret.choice(W[lab[W] == s])) for s in wanted], dtype=np.int64)
        alive[took] = False
        groups.append(order[np.sort(took)])
        if progress is not None and (done + len(took)) // step != done // step:
            progress(done + len(took), n, "CAHD grouping: records grouped")
        done += len(took)
    return groups


def band_grouping_probability(labels, p: int, groups, *, order=None, window: int) -> Fraction:
    """The exact probability that :func:`secret_band_groups` publishes the partition ``groups`` given ``labels``.

    Parameters
    ----------
    labels : sequence
        A labelling of the records.
    p, order, window :
        As for :func:`secret_band_groups`.
    groups : sequence of int
        Group number of each record (values do not matter).

    Returns
    -------
    Fraction
        The sum, over the orders in which the blocks can have been formed, of
        ``prod_t prod_{s in S_t} 1 / |W_t ∩ lambda^-1(s)|`` (module
        docstring); 0 when no draw gives ``groups``.

    Notes
    -----
    A dynamic program over the sets of blocks already formed (the scan's
    state is the set of records grouped): O(2^G * G * w) for ``G`` groups,
    for small inputs (tests and the exact adversary).

    Examples
    --------
    >>> labels = list("aabb")   # the window of 4 holds both a's and both b's
    >>> [band_grouping_probability(labels, 2, g, window=4) for g in ([0, 1, 0, 1], [0, 1, 1, 0], [0, 0, 1, 1])]
    [Fraction(1, 2), Fraction(1, 2), Fraction(0, 1)]
    >>> band_grouping_probability(list("abab"), 2, [0, 1, 1, 0], window=2)  # the first window is records 0 and 1
    Fraction(0, 1)
    """
    n = len(labels)
    lab, sets, order = _prepare(labels, p, order, n)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    g = np.asarray(groups)
    if g.shape != (n,):
        raise ParameterError(f"groups has {g.size} entries for {n} records; give one group per record")
    blocks = [np.sort(position[g == x]) for x in np.unique(g)]
    if len(blocks) != len(sets):
        return Fraction(0)
    memo: dict[int, Fraction] = {0: Fraction(1)}
    for wanted in sets:
        nxt: dict[int, Fraction] = {}
        for state, prob in memo.items():
            alive = np.ones(n, dtype=bool)
            for b in range(len(blocks)):
                if state >> b & 1:
                    alive[blocks[b]] = False
            head = int(np.argmax(alive))
            W = _window(alive, lab, head, wanted, int(window))
            counts = {s: int((lab[W] == s).sum()) for s in wanted}
            inside = set(W.tolist())
            for b, block in enumerate(blocks):
                if state >> b & 1 or len(block) != len(wanted):
                    continue
                if sorted(lab[block].tolist()) != sorted(wanted) or not inside.issuperset(block.tolist()):
                    continue
                share = prob
                for s in wanted:
                    share /= counts[s]
                key = state | 1 << b
                nxt[key] = nxt.get(key, Fraction(0)) + share
        memo = nxt
        if not memo:
            return Fraction(0)
    return sum(memo.values(), Fraction(0))
