r"""Gifts for the records a swap must suppress, so that no row is "its record minus one category" (issue 30).

PartSwap and FullSwap (:mod:`graphanon.algorithms.swapping`) pair the records
with a tendency and exchange their *source items* ``S(T)`` (their items in
their heaviest category ``h(T)``); ``unpaired="splice"`` places the records
the pairing left in 3-cycles or as second receivers of a paired record's
source items. A leftover ``L`` that nothing admits (its source items collide
with every exchange and every host) still loses ``S(L)``. Its row was then
exactly ``K(L) = L \ S(L)``, with no gift, which no swapped row ever is: an
adversary holding ``L`` recognized it (:func:`graphanon.attacks.lost_items_attack`).

:func:`give_gifts` gives each such record a *gift*: part of the items some
other record ``R`` received in the swap (items of one category ``c``, all of
them source items of one or more givers ``P`` of category ``c``). ``L``'s
row becomes ``K(L)`` plus items of one category other than ``h(L)``, none of
``S(L)`` -- what a swapped row looks like to a holder of ``L`` -- and ``R``'s
row keeps at least one received item of ``c``, so it looks swapped too.
:func:`place_sources` then moves what ``L`` still holds of ``h(L)`` to one
*receiver* row instead of removing it. Occurrences are only moved; only
what no receiver admits is removed, and the release then says
``"moves": "swap-suppress"`` (else ``"swap"``), never a count.

Admissible donor ``R`` for ``L``: ``R != L``; ``R`` is not itself suppressed;
``R``'s row holds no item of ``h(R)`` (so removing a received item cannot
bring ``R``'s tendency back); ``R`` received at least two items of a category
``c != h(L)``, at least one of which ``L`` lacks. ``L`` takes the items of
``c`` it lacks, at most half of what ``R`` received of ``c`` (so ``R`` keeps
at least one). Preferred: a category ``c`` that ``L``'s record does not hold,
then the donor of least Jaccard similarity with ``L`` (the paper's partner
rule), ties by a donor order drawn from the structure randomness. A donor
gives once.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4;
issue 30 (item 3) of this package.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["give_gifts", "place_sources"]


def give_gifts(X, current, heaviest: np.ndarray, codes: np.ndarray, n_categories: int, suppressed: np.ndarray,
               order: np.ndarray, rng: np.random.Generator) -> tuple[sp.csr_array, list[tuple[int, int, np.ndarray]]]:
    """Move part of some swapped row's received items to each suppressed record that received nothing.

    Parameters
    ----------
    X : boolean csr_array, shape (n, d)
        The original records (canonical).
    current : boolean csr_array, shape (n, d)
        The rows after the swaps and the suppression (row ``i`` belongs to record ``i``).
    heaviest : ndarray of int64, shape (n,)
        ``h(T)`` of every original record, -1 without a tendency.
    codes : ndarray of int, shape (d,)
        The category of every item.
    n_categories : int
    suppressed : ndarray of bool, shape (n,)
        The records whose source items were removed.
    order : ndarray of int
        The records to serve first (the visiting order); suppressed records not in it come last.
    rng : numpy.random.Generator
        Structure randomness: the donor order for ties.

    Returns
    -------
    current : boolean csr_array
        The rows with the gifts moved.
    gifts : list of (L, R, items)
        ``items`` (column indices) moved from ``R``'s row to ``L``'s. A suppressed record that
        received nothing and that no donor admits is not in the list (its row stays ``K(L)``).

    Notes
    -----
    Complexity: one sparse pass for the received items and their categories, then, per record
    served, a column slice of the received matrix (O(received occurrences)) and a sort of its
    admissible donors.

    Examples
    --------
    Items 0-2 are of category 0, items 3-5 of category 1. Records 0 and 1 swapped their
    source items (0 1 and 4 5); record 2 found no partner and lost its source items 3 4:

    >>> X = sp.csr_array([[1, 1, 0, 1, 0, 0], [0, 0, 1, 0, 1, 1], [0, 0, 1, 1, 1, 0]], dtype=bool)
    >>> cur = sp.csr_array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0]], dtype=bool)
    >>> out, gifts = give_gifts(X, cur, np.array([0, 1, 1]), np.array([0, 0, 0, 1, 1, 1]), 2,
    ...                         np.array([False, False, True]), np.array([2]), np.random.default_rng(0))
    >>> [(L, R, items.tolist()) for L, R, items in gifts]
    [(2, 1, [1])]
    >>> out.toarray().astype(int).tolist()   # record 2 got item 1 of record 1's row: K(2) plus a gift
    [[0, 0, 0, 1, 1, 1], [1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 0, 0]]
    """
    X = sp.csr_array(X, dtype=np.int64)
    M = sp.csr_array(current, dtype=np.int64)
    n, d = M.shape
    received = sp.csr_array(M - M.multiply(X))
    received.eliminate_zeros()
    got = np.diff(received.indptr)
    need = np.flatnonzero(suppressed & (got == 0))
    if not len(need):
        return sp.csr_array(current, dtype=bool), []
    codes = np.asarray(codes, dtype=np.int64)
    onehot = sp.csr_array((np.ones(d, np.int64), (np.arange(d), codes)), shape=(d, n_categories))
    rec_cat = sp.csr_array(received @ onehot)
    two = sp.csr_array(rec_cat >= 2, dtype=np.int64)  # categories a row received at least two items of
    # donors: not suppressed, holding no item of their own heaviest category
    rows = np.repeat(np.arange(n), np.diff(M.indptr))
    own_left = np.bincount(rows[(heaviest[rows] >= 0) & (codes[M.indices] == heaviest[rows])], minlength=n)
    donor = ~suppressed & (own_left == 0) & (got >= 2)
    rank = np.empty(n, dtype=np.int64)
    rank[rng.permutation(n)] = np.arange(n)
    received_csc = sp.csc_array(received)
    first = np.isin(need, order)
    need = np.concatenate([np.asarray(order)[np.isin(order, need)], need[~first]])
    X_len = np.diff(X.indptr)
    gifts: list[tuple[int, int, np.ndarray]] = []
    moves_from: list[np.ndarray] = []
    for L in need.tolist():
        mine = X.indices[X.indptr[L] : X.indptr[L + 1]]
        held = sp.csr_array(received_csc[:, mine] @ onehot[mine]) if len(mine) else sp.csr_array((n, n_categories))
        avail = sp.csr_array((rec_cat - held).multiply(two)).tocoo()
        r, c = avail.row.astype(np.int64), avail.col.astype(np.int64)
        ok = (avail.data >= 1) & donor[r] & (r != L) & (c != heaviest[L])
        r, c = r[ok], c[ok]
        if not len(r):
            continue
        holds_c = np.isin(c, codes[mine])
        over = np.asarray((X[r] @ X[[L]].T).toarray()).reshape(-1) if len(mine) else np.zeros(len(r))
        jac = over / np.maximum(X_len[r] + X_len[L] - over, 1)
        best = np.lexsort((rank[r], jac, holds_c))[0]
        R, cat = int(r[best]), int(c[best])
        items = received.indices[received.indptr[R] : received.indptr[R + 1]]
        of_c = items[codes[items] == cat]
        free = of_c[~np.isin(of_c, mine)]
        take = np.sort(rng.permutation(free)[: max(1, len(of_c) // 2)])
        donor[R] = False
        gifts.append((L, R, take))
        moves_from.append(np.column_stack([np.full(len(take), R), np.full(len(take), L), take]))
    if not gifts:
        return sp.csr_array(current, dtype=bool), []
    moved = np.concatenate(moves_from)
    C = sp.csr_array(current, dtype=bool).tocoo()
    keys = C.row.astype(np.int64) * d + C.col
    out_rows = C.row.astype(np.int64)
    hit = np.isin(keys, moved[:, 0] * d + moved[:, 2])
    order_keys = np.argsort(moved[:, 0] * d + moved[:, 2])
    where = np.searchsorted((moved[:, 0] * d + moved[:, 2])[order_keys], keys[hit])
    out_rows[hit] = moved[order_keys[where], 1]
    out = sp.csr_array((np.ones(len(keys), bool), (out_rows, C.col)), shape=(n, d))
    out.sum_duplicates()
    return out, gifts


def place_sources(X, current, heaviest: np.ndarray, codes: np.ndarray, left: np.ndarray, order: np.ndarray,
                  rng: np.random.Generator) -> tuple[sp.csr_array, list[tuple[int, int]], np.ndarray, int]:
    """Move the items of its heaviest category that each record in ``left`` still holds to another row.

    A record ``L`` that still shows its tendency after the swaps must lose the items of ``h(L)``
    it holds (``Q``). Instead of removing them, they go to one *receiver* ``N``: a record other
    than ``L``, not in ``left``, whose row holds none of ``Q`` and no item of its own heaviest
    category, and whose heaviest category is not ``h(L)`` (so that ``Q`` cannot bring ``N``'s
    tendency back; a record without a tendency qualifies). Preferred: a row whose received items
    are all of category ``h(L)`` (it then looks like a row that received one larger source set),
    then a record with a tendency, then least Jaccard similarity with ``L``, ties by a drawn order.
    A receiver takes one record's items. What no receiver admits is removed.

    Parameters
    ----------
    X, current, heaviest, codes, rng : as :func:`give_gifts`
    left : ndarray of bool, shape (n,)
        The records that still show their tendency.
    order : ndarray of int
        The order in which the records of ``left`` are served.

    Returns
    -------
    current : boolean csr_array
    homes : list of (L, N)
    removed : ndarray of bool, shape (n,)
        The records whose items no receiver admitted (removed).
    occurrences : int
        The occurrences removed.

    Notes
    -----
    Complexity: per record served, one column slice of the rows (O(occurrences of ``Q``'s items))
    and a sort of the admissible receivers.

    Examples
    --------
    Items 0-2 are of category 0, items 3-5 of category 1; record 2 still shows category 1 (items
    3 and 4); record 1 has no tendency and holds neither:

    >>> X = sp.csr_array([[1, 1, 0, 1, 0, 0], [0, 0, 1, 0, 0, 1], [0, 0, 1, 1, 1, 0]], dtype=bool)
    >>> out, homes, removed, occ = place_sources(X, X, np.array([0, -1, 1]), np.array([0, 0, 0, 1, 1, 1]),
    ...                                          np.array([False, False, True]), np.array([2]),
    ...                                          np.random.default_rng(0))
    >>> homes, removed.tolist(), occ
    ([(2, 1)], [False, False, False], 0)
    >>> out.toarray().astype(int).tolist()
    [[1, 1, 0, 1, 0, 0], [0, 0, 1, 1, 1, 1], [0, 0, 1, 0, 0, 0]]
    """
    X = sp.csr_array(X, dtype=np.int64)
    M = sp.csr_array(current, dtype=np.int64)
    n, d = M.shape
    codes = np.asarray(codes, dtype=np.int64)
    rows = np.repeat(np.arange(n), np.diff(M.indptr))
    own = (heaviest[rows] >= 0) & (codes[M.indices] == heaviest[rows])
    own_left = np.bincount(rows[own], minlength=n)
    received = sp.csr_array(M - M.multiply(X))
    received.eliminate_zeros()
    rec_rows = np.repeat(np.arange(n), np.diff(received.indptr))
    rec_cat = codes[received.indices]
    one_cat = np.full(n, -1, dtype=np.int64)  # the one category a row received, -2 for several
    one_cat[rec_rows] = rec_cat
    several = np.zeros(n, dtype=bool)
    several[rec_rows[rec_cat != one_cat[rec_rows]]] = True
    one_cat[several] = -2
    free = ~left & (own_left == 0)
    rank = np.empty(n, dtype=np.int64)
    rank[rng.permutation(n)] = np.arange(n)
    X_len = np.diff(X.indptr)
    M_csc = sp.csc_array(M)
    dest = np.full(M.nnz, -1, dtype=np.int64)
    removed = np.zeros(n, dtype=bool)
    homes: list[tuple[int, int]] = []
    for L in np.asarray(order, dtype=np.int64).tolist():
        lo, hi = M.indptr[L], M.indptr[L + 1]
        q = np.flatnonzero(own[lo:hi]) + lo
        if not len(q):
            continue
        hits = np.asarray(M_csc[:, M.indices[q]].sum(axis=1)).reshape(-1)
        cand = np.flatnonzero(free & (hits == 0) & (heaviest != heaviest[L]))
        cand = cand[cand != L]
        if not len(cand):
            removed[L] = True
            continue
        mine = X.indices[X.indptr[L] : X.indptr[L + 1]]
        over = (X[cand][:, mine].sum(axis=1)).reshape(-1) if len(mine) else np.zeros(len(cand))
        jac = over / np.maximum(X_len[cand] + X_len[L] - over, 1)
        best = cand[np.lexsort((rank[cand], jac, heaviest[cand] < 0, one_cat[cand] != heaviest[L]))[0]]
        free[best] = False
        dest[q] = best
        homes.append((L, int(best)))
    drop = removed[rows] & own
    new_rows = np.where(dest >= 0, dest, rows)
    keep = ~drop
    out = sp.csr_array((np.ones(int(keep.sum()), bool), (new_rows[keep], M.indices[keep])), shape=(n, d))
    out.sum_duplicates()
    return out, homes, removed, int(drop.sum())
