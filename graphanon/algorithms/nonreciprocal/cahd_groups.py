"""CAHD: l-diverse grouping of records along a band / Gray order.

CAHD (Correlation-aware Anonymization of High-dimensional Data) forms groups
of records that are consecutive, or nearly so, in an order where similar
records sit next to each other (the band-matrix order of the ICDE paper, or the
Gray order of its journal version), such that no sensitive label accounts for
more than ``1 / l`` of any group. The nonreciprocal-recoding paper uses it as
its l-diversity baseline and publishes every group by bit voting
(:mod:`graphanon.algorithms.nonreciprocal.cahd`); this module only forms the groups.

References
----------
G. Ghinita, Y. Tao, P. Kalnis. On the anonymization of sparse high-dimensional
data. ICDE 2008, Sec. IV (the group-formation heuristic: candidate list of
``alpha * p`` non-conflicting transactions on each side, the ``p - 1`` most
similar join, the histogram check on the remaining transactions, the last
group).
G. Ghinita, P. Kalnis, Y. Tao. Anonymous publication of sensitive
transactional data. IEEE TKDE 23(2), 2011 (Gray-code sorting as the order).
M. Xue, P. Karras, C. Raïssi, J. Vaidya, K.-L. Tan. Anonymizing set-valued data
by nonreciprocal recoding. KDD 2012, Sec. 5.1 (CAHD as the l-diversity
baseline, published by bit voting).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from graphanon.algorithms.nonreciprocal.gray import gray_order
from graphanon.counting.bitset import bytes_to_words, pack_bytes
from graphanon.errors import ParameterError
from graphanon.utils.validation import check_diversity_feasible, check_order

__all__ = ["cahd_groups", "check_l_diverse_labels"]

_METRICS = ("hamming", "common_items")


def check_l_diverse_labels(labels: Sequence[Hashable] | None, l: int) -> tuple[np.ndarray, list]:  # noqa: E741
    """Encode sensitive labels and check that an l-diverse grouping can exist.

    The check is :func:`graphanon.utils.validation.check_diversity_feasible` (one
    copy for every l-diverse method). A partition of the records into groups in which no label exceeds
    ``|group| / l`` exists iff at least ``l`` distinct labels occur and no label
    is on more than ``n / l`` records (summing the group condition over groups
    gives the second condition; the first follows from it).

    Parameters
    ----------
    labels : sequence of hashable or None
        One sensitive label per record (``None`` is a label like any other);
        no sequence (None) is refused: the data has no labels.
    l : int
        Diversity level, ``>= 1``.

    Returns
    -------
    codes : ndarray of int64
        ``codes[i]`` indexes record ``i``'s label in ``values``.
    values : list
        Distinct labels in first-occurrence order.

    Raises
    ------
    ParameterError
        If ``l`` is not a positive integer, or the labels cannot support it
        (the message names the offending label and the largest feasible ``l``).

    Examples
    --------
    >>> check_l_diverse_labels(["a", "b", "a", "c"], 2)[0].tolist()
    [0, 1, 0, 2]
    """
    check_diversity_feasible(labels, l)
    assert labels is not None  # refused above
    index: dict = {}
    codes = np.fromiter(
        (index.setdefault(lab, len(index)) for lab in labels), dtype=np.int64, count=len(labels)
    )
    values = list(index)
    return codes, values


def cahd_groups(
    X,
    labels: Sequence[Hashable] | None,
    l: int,  # noqa: E741
    *,
    order=None,
    alpha: int = 3,
    metric: str = "hamming",
    progress=None,
) -> list[np.ndarray]:
    """Partition the records into l-diverse groups with the CAHD heuristic.

    Records are visited along ``order``. For the visited record ``t`` (still
    ungrouped), the candidate list holds up to ``alpha * l`` ungrouped records
    whose label differs from ``t``'s on each side of ``t`` in the order (the
    nearest such records). From it, ``l - 1`` records with pairwise distinct
    labels, all different from ``t``'s, join ``t``: the most similar to ``t``
    first. The group is kept only if the records left ungrouped can still be
    grouped, i.e. no label is on more than ``1 / l`` of them (CAHD's histogram
    check); otherwise it is undone and the scan moves on. When a full pass
    over the order forms no group, the scan is repeated with every ungrouped
    record as a candidate; the records still left (CAHD would publish them as
    one last group) are dealt round-robin by label into ``r // l`` groups,
    which the histogram check keeps feasible.

    Every group has at least ``l`` records with pairwise distinct labels (so
    no label occurs more than ``|group| / l`` times), and every record is in
    exactly one group. Groups formed by the scans have exactly ``l`` records.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
        Records x items (the quasi-identifying items).
    labels : sequence of hashable, or None
        One sensitive label per record; ``None`` takes ``X.labels`` (a
        TransactionData with labels).
    l : int
        Diversity level.
    order : array-like of int, optional
        Permutation of the records to scan (default: :func:`gray_order`, as in
        the TKDE version of CAHD; a Gray-TSP order works too).
    alpha : int, default 3
        Candidate-list factor: ``alpha * l`` candidates on each side.
    metric : {"hamming", "common_items"}, default "hamming"
        Similarity of a candidate to ``t``: smallest Hamming distance (what bit
        voting loses), or CAHD's original largest number of items in common.
        Ties go to the candidate nearer to ``t`` in the order, then earlier.
    progress : callable(done, total, message), optional
        Called with the records grouped so far (out of ``n``) about every 1% of them.

    Returns
    -------
    groups : list of ndarray of int64
        Record indices of each group, each listed in scan order; groups in the
        order they were formed, the dealt groups (if any) last.

    Raises
    ------
    ParameterError
        Up front, when ``l`` is not a positive integer, fewer than ``l``
        distinct labels occur, or a label is on more than ``n / l`` records;
        on a bad ``alpha``, ``metric``, ``order`` or label count.

    Notes
    -----
    Choices where the papers are silent or differ from this setting:

    * CAHD has sensitive *items* and non-sensitive transactions; here every
      record carries exactly one sensitive label, so every record is
      "sensitive" and two records conflict iff their labels are equal.
    * Labels that the remaining records could no longer absorb if left out of
      the group (``l * count > remaining - l``) are put in the group first, by
      their most similar candidate; the histogram check then always passes
      when the window holds them. This makes the rollback rare instead of
      scanning on; a window lacking them still rolls back.
    * The scan restarts from the beginning after a pass that formed groups,
      so records skipped early get a second chance (a public C++
      implementation of CAHD also restarts its scan).
    * CAHD publishes the records it cannot place as one last group. Here they
      first get a scan with an unlimited candidate list (when at most 5000 are
      left), then the rest (``r`` records) are dealt into ``r // l`` groups in
      decreasing label frequency, so no group is larger than ``2 l - 1``.

    Complexity: O(n * alpha * l * b / 64) for the candidate lists and similarities in the
    typical case, plus a pass per restart and O(r^2 * b / 64) for the ``r``
    records the windows leave; O(n * b / 8) memory.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> groups = cahd_groups(data, None, 2)
    >>> [[data.record_ids[i] for i in g] for g in groups]
    [['r2', 'r4'], ['r1', 'r3'], ['r5', 'r6']]

    References
    ----------
    Ghinita, Tao, Kalnis. On the anonymization of sparse high-dimensional data.
    ICDE 2008, Sec. IV. Xue et al., KDD 2012, Sec. 5.1.
    """
    if labels is None:
        labels = getattr(X, "labels", None)
    codes, values = check_l_diverse_labels(labels, l)
    l = int(l)  # noqa: E741
    if isinstance(alpha, bool) or not isinstance(alpha, (int, np.integer)) or alpha < 1:
        raise ParameterError(f"alpha must be an integer >= 1, got {alpha!r}")
    if metric not in _METRICS:
        raise ParameterError(f"metric must be one of {_METRICS}, got {metric!r}")
    packed, b = pack_bytes(X)
    n = packed.shape[0]
    if codes.size != n:
        raise ParameterError(
            f"labels has {codes.size} entries for {n} records; give one label per record"
        )
    order = gray_order(X) if order is None else check_order(order, n)
    if l == 1:
        return [np.array([r], dtype=np.int64) for r in order]
    words = bytes_to_words(packed)
    lab = codes[order]  # labels by position
    n_labels = len(values)
    counts = np.bincount(codes, minlength=n_labels).astype(np.int64)
    window = int(alpha) * l
    step = max(n // 100, 1)  # progress about every 1% of the records
    full_window_limit = 5000  # O(r^2) second phase only for small leftovers

    # Doubly linked list over the positions of ungrouped records (sentinels -1 and n).
    nxt = np.arange(1, n + 1, dtype=np.int64)
    prv = np.arange(-1, n - 1, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    head = 0 if n else n
    remaining = n
    groups: list[np.ndarray] = []

    def unlink(p: int) -> None:
        nonlocal head
        a, c = prv[p], nxt[p]
        if a >= 0:
            nxt[a] = c
        else:
            head = c
        if c < n:
            prv[c] = a
        alive[p] = False

    def try_group(p: int) -> list[int] | None:
        own = int(lab[p])
        # labels the others could not absorb if absent from this group
        critical = np.flatnonzero(l * counts > remaining - l)
        if critical.size > l or (critical.size == l and own not in critical):
            return None
        cands = _candidate_window(alive, lab, p, own, window)
        if cands.size < l - 1:
            return None
        rows = order[cands]
        t = order[p]
        if metric == "hamming":
            score = np.bitwise_count(words[rows] ^ words[t]).sum(axis=1, dtype=np.int64)
        else:
            score = -np.bitwise_count(words[rows] & words[t]).sum(axis=1, dtype=np.int64)
        rank = np.lexsort((cands, np.abs(cands - p), score))
        cands, cl = cands[rank], lab[cands[rank]]
        chosen = [p]
        used = {own}
        for c in critical:
            if c == own:
                continue
            hit = np.flatnonzero(cl == c)
            if hit.size == 0:
                return None  # the histogram check would fail: roll back
            chosen.append(int(cands[hit[0]]))
            used.add(int(c))
        for q, c in zip(cands.tolist(), cl.tolist(), strict=True):
            if len(chosen) == l:
                break
            if c not in used:
                chosen.append(q)
                used.add(c)
        if len(chosen) < l:
            return None
        return chosen

    def scan() -> None:
        nonlocal remaining
        while remaining:
            formed = 0
            p = head
            while p < n and remaining:
                g = try_group(p)
                if g is None:
                    p = int(nxt[p])
                    continue
                g.sort()
                for q in g:
                    unlink(q)
                counts[:] -= np.bincount(lab[g], minlength=n_labels)
                remaining -= len(g)
                groups.append(order[np.asarray(g, dtype=np.int64)])
                formed += 1
                if progress is not None and (n - remaining) // step != (n - remaining - len(g)) // step:
                    progress(n - remaining, n, "CAHD grouping: records grouped")
                while p < n and not alive[p]:
                    p = int(nxt[p])
            if not formed:
                return

    scan()  # CAHD: candidate windows of alpha * l records on each side
    if remaining and remaining <= full_window_limit:
        window = n  # records the windows could not place: any remaining record may join
        scan()
    if remaining:
        # Deal the rest round-robin into remaining // l groups, labels by decreasing
        # count: a label on c <= remaining / l records lands in c different groups.
        rest = np.flatnonzero(alive)
        rl = lab[rest]
        k = np.lexsort((rest, rl, -counts[rl]))
        n_groups = remaining // l
        dealt = np.arange(remaining) % n_groups
        for j in range(n_groups):
            groups.append(order[np.sort(rest[k[dealt == j]])])
    return groups


def _candidate_window(alive: np.ndarray, lab: np.ndarray, p: int, own: int, window: int) -> np.ndarray:
    """CAHD's candidate list of position ``p``: the ``window`` nearest live positions on each side whose label is not ``own``.

    Parameters
    ----------
    alive : ndarray of bool, shape (n,)
        Positions (along the scan order) of the records not grouped yet.
    lab : ndarray of int, shape (n,)
        Label code by position.
    p : int
        The visited position.
    own : int
        Its label code (candidates must differ from it).
    window : int
        Candidates wanted on each side (fewer when a side has fewer).

    Returns
    -------
    ndarray of int64
        The positions before ``p``, nearest first, then those after ``p``,
        nearest first: what walking the list of live positions from ``p`` in
        each direction, skipping labels equal to ``own``, collects.

    Notes
    -----
    Complexity: O(s) per side, ``s`` the stretch of positions scanned (live or
    not) before ``window`` candidates are met: slices of 16, 64, 256, ... times
    ``window`` positions are tested by numpy at once (the Python walk it
    replaces took one interpreter step per live position, which on 25,000
    patients with a skewed label was 7.4 million steps and most of CAHD's time).

    References
    ----------
    Ghinita, Tao, Kalnis. On the anonymization of sparse high-dimensional data.
    ICDE 2008, Sec. IV (the candidate list of ``alpha * p`` non-conflicting
    transactions on each side).

    Examples
    --------
    >>> alive = np.array([True, True, False, True, True, True])
    >>> lab = np.array([0, 1, 1, 1, 0, 2])
    >>> _candidate_window(alive, lab, 3, 1, 1).tolist()
    [0, 4]
    """
    n = len(alive)
    span = 16 * window
    while True:  # before p, nearest first
        start = max(p - span, 0)
        hit = (alive[start:p] & (lab[start:p] != own)).nonzero()[0]
        if hit.size >= window or start == 0:
            before = hit[::-1][:window] + start
            break
        span *= 4
    span = 16 * window
    while True:  # after p, nearest first
        stop = min(p + 1 + span, n)
        hit = (alive[p + 1:stop] & (lab[p + 1:stop] != own)).nonzero()[0]
        if hit.size >= window or stop == n:
            after = hit[:window] + (p + 1)
            break
        span *= 4
    return np.concatenate((before, after)).astype(np.int64, copy=False)
