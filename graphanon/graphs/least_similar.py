"""Least-similar partner matching: the swap partners of the swapping methods.

Each record of a priority list is paired with its *least* Jaccard-similar
admissible partner (another group, no item collision). A record that shares
no item with ``t`` -- one not adjacent to ``t`` in
:meth:`RecordSimilarityGraph.overlap <graphanon.graphs.similarity.RecordSimilarityGraph.overlap>`
-- has similarity 0, so the greedy walk stops at the first such record and
never compares all pairs. The result is a matching on the records (arrays
``partner`` and ``similarity``), the structure
:func:`graphanon.algorithms.swapping.anonymize_partswap` and its relatives
exchange items along.

References
----------
Gunawan, Mambo. Data anonymization for hiding personal tendency in set-valued
database publication. Future Internet 11(6):138, 2019, Sec. 4.3-4.4.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError

__all__ = ["least_similar_matching"]


@numba.njit(cache=True)
def _least_similar_greedy(indptr, indices, give, order, group, n_items):  # pragma: no cover - compiled
    """Greedy matching on the priority list; see :func:`least_similar_matching`."""
    m = len(order)
    nxt = np.arange(1, m + 1)
    prv = np.arange(-1, m - 1)
    if m:
        nxt[m - 1] = -1
    head = 0 if m else -1
    partner = np.full(m, -1, dtype=np.int64)
    sims = np.zeros(m)
    mark_t = np.full(n_items, -1, dtype=np.int64)
    mark_give = np.full(n_items, -1, dtype=np.int64)
    for p in range(m):
        if partner[p] >= 0:
            continue
        t = order[p]
        for q in range(indptr[t], indptr[t + 1]):
            mark_t[indices[q]] = p
            if give[q]:
                mark_give[indices[q]] = p
        len_t = indptr[t + 1] - indptr[t]
        best = -1
        best_sim = 2.0
        pos = head
        while pos != -1:
            if pos != p and group[pos] != group[p]:
                u = order[pos]
                inter = 0
                collide = False
                for q in range(indptr[u], indptr[u + 1]):
                    it = indices[q]
                    if mark_t[it] == p:
                        inter += 1
                        if give[q]:
                            collide = True  # t already holds an item u would give
                    if mark_give[it] == p:
                        collide = True  # u already holds an item t would give
                if not collide:
                    union = len_t + (indptr[u + 1] - indptr[u]) - inter
                    s = inter / union if union > 0 else 0.0
                    if s < best_sim:
                        best_sim = s
                        best = pos
                        if s == 0.0:
                            break  # the list is in priority order: the first similarity-0 partner wins
            pos = nxt[pos]
        if best >= 0:
            partner[p] = best
            partner[best] = p
            sims[p] = best_sim
            sims[best] = best_sim
            for x in (p, best):
                if prv[x] != -1:
                    nxt[prv[x]] = nxt[x]
                else:
                    head = nxt[x]
                if nxt[x] != -1:
                    prv[nxt[x]] = prv[x]
    return partner, sims


def least_similar_matching(X, order, group, give=None) -> tuple[np.ndarray, np.ndarray]:
    """Pair records greedily, each with its least similar admissible partner.

    Records are visited in ``order`` (which is also their priority). A visited
    record that is still unpaired takes, among the unpaired records of
    ``order`` that are admissible for it, the one of least Jaccard similarity;
    ties go to the earlier record of ``order``. A record joins at most one
    pair; a visited record that finds no admissible partner stays unpaired but
    remains available to later records. A pair ``(t, u)`` is admissible when
    ``group[t] != group[u]`` and neither record already holds an item the
    other would give (``give``): exchanging the given items then loses no
    item (no *collision*).

    Every record that shares no item with ``t`` -- every record *not adjacent*
    to ``t`` in :meth:`RecordSimilarityGraph.overlap` -- has similarity 0 and
    cannot collide, so the search walks the priority list and stops at the
    first such record; only when every remaining candidate overlaps ``t`` does
    it compare all of them. The list is doubly linked, so paired records leave
    it in O(1).

    Parameters
    ----------
    X : boolean matrix, shape (n, d)
    order : array of int
        Distinct record indices taking part, in visiting (= priority) order.
    group : array of int, shape (len(order),)
        Group of each record of ``order``; partners differ in group.
    give : boolean array, shape (X.nnz,), optional
        Per stored entry of ``X`` (CSR, sorted indices), whether the record
        would give that item; default all (the whole record).

    Returns
    -------
    partner : ndarray of int64, shape (n,)
        The partner's record index, -1 for records not paired (or not in ``order``).
    similarity : ndarray of float, shape (n,)
        Jaccard similarity within each pair (0 for unpaired records).

    Notes
    -----
    Complexity: O(sum over visited records of the record lengths walked): O(L) per record
    when a similarity-0 partner comes early in the list, O(m L) per record in
    the worst case (m candidates of mean length L); memory O(n + d).

    References
    ----------
    Gunawan, Mambo. Future Internet 11(6):138, 2019, Sec. 4.3 (destination by
    least Jaccard similarity, true swap, no collision) and Sec. 4.4.

    Examples
    --------
    >>> X = [[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 0]]
    >>> partner, sim = least_similar_matching(X, [0, 1, 2, 3], [0, 0, 1, 1])
    >>> partner.tolist(), sim.tolist()
    ([2, 3, 0, 1], [0.0, 0.0, 0.0, 0.0])
    """
    X = bool_csr(X)
    n, d = X.shape
    order = np.asarray(order, dtype=np.int64)
    group = np.asarray(group, dtype=np.int64)
    if order.ndim != 1 or len(group) != len(order):
        raise ParameterError(f"order and group must be 1-d of equal length, got {order.shape} and {group.shape}")
    if len(order) and (order.min() < 0 or order.max() >= n or len(np.unique(order)) != len(order)):
        raise ParameterError(f"order must list distinct record indices in 0..{n - 1}")
    give = np.ones(X.nnz, dtype=np.bool_) if give is None else np.asarray(give, dtype=np.bool_)
    if give.shape != (X.nnz,):
        raise ParameterError(f"give must have one flag per stored entry ({X.nnz}), got shape {give.shape}")
    local, sims = _least_similar_greedy(
        X.indptr.astype(np.int64), X.indices.astype(np.int64), give, order, group, d
    )
    partner = np.full(n, -1, dtype=np.int64)
    similarity = np.zeros(n)
    paired = local >= 0
    partner[order[paired]] = order[local[paired]]
    similarity[order[paired]] = sims[paired]
    return partner, similarity
