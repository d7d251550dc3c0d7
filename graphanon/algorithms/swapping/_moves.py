"""Moving items between records: the exchanges, the leftovers' splices and hosts (PartSwap, FullSwap, RandSwap).

A record with a tendency that the pairing of :mod:`._pairing` leaves alone (a *leftover*)
is spliced into an exchange ``A -> B`` of a pair, ``A -> L -> B`` (:func:`_splice`), or takes
part of a paired record's source items (:func:`_split_hosts`); what still shows its tendency
after the swaps is found by :func:`_hide_what_is_left`. The functions return where each stored
entry goes; :func:`_move` applies it.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4; issue 30 of this package
(the splice and the hosts are not in the paper).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.swapping.tendency import Tendency
from graphanon.errors import InternalError
from graphanon.taxonomy.categories import category_codes
from graphanon.taxonomy.tree import ItemGroups


def _visit(records: np.ndarray, visit: str, rng: np.random.Generator) -> np.ndarray:
    if visit == "input":
        return np.sort(records)
    if visit == "random":
        return rng.permutation(records)
    raise InternalError(f"visit={visit!r} passed the declared options")


def _exchange(X: sp.csr_array, give: np.ndarray, partner: np.ndarray) -> sp.csr_array:
    """Records after each paired record hands its ``give`` entries to its partner (duplicates merge)."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return _move(X, np.where(give & (partner[rows] >= 0), partner[rows], -1))


def _move(X: sp.csr_array, dest: np.ndarray) -> sp.csr_array:
    """Records after each stored entry ``e`` of ``X`` with ``dest[e] >= 0`` moved to row ``dest[e]`` (duplicates merge)."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    new_rows = np.where(dest >= 0, dest, rows)
    out = sp.csr_array((np.ones(X.nnz, np.int8), (new_rows, X.indices)), shape=X.shape)
    out.sum_duplicates()
    return sp.csr_array((np.ones(out.nnz, bool), out.indices, out.indptr), shape=X.shape)


def _hide_what_is_left(data, categories: ItemGroups, tend: Tendency,
                       current: sp.csr_array) -> tuple[sp.csr_array, int, np.ndarray]:
    """Drop, from each record that still shows its own tendency after the swaps, that category's items.

    A record the partner rule could not pair (every candidate shares its tendency or would
    collide) keeps its items, and with them its tendency: the release would break the model
    it is published under (:class:`~graphanon.privacy.TendencyHiding`: no record keeps its
    tendency). With ``unpaired="suppress"`` or ``"splice"`` such a record loses the items of its
    heaviest category instead, as PartSupp does; its row then has another heaviest category
    or none. Returns the matrix, the number of occurrences removed (0 when every record was
    paired, the usual case) and the mask of the records that lost them.
    """
    codes = category_codes(categories, data.items)
    after = Tendency(current, codes, len(categories))
    keeps = (tend.heaviest >= 0) & (after.heaviest == tend.heaviest)
    if not keeps.any():
        return current, 0, keeps
    rows = np.repeat(np.arange(current.shape[0]), np.diff(current.indptr))
    drop = keeps[rows] & (codes[current.indices] == tend.heaviest[rows])
    kept = sp.csr_array((np.ones(int((~drop).sum()), bool), (rows[~drop], current.indices[~drop])),
                        shape=current.shape)
    return kept, int(drop.sum()), keeps


def _splice(X, tend: Tendency, partner: np.ndarray, visit: str, rng) -> tuple[np.ndarray, np.ndarray, list]:
    """Splice each record the pairing left alone into an exchange: ``A -> B`` becomes ``A -> L -> B``.

    ``partner`` holds PartSwap's pairs; each pair ``(A, B)`` is two exchanges, ``A -> B`` (``A``'s
    source items go to ``B``) and ``B -> A``. A record ``L`` with a tendency and no partner takes
    one of them, ``A -> B``: it receives ``S(A)`` and gives ``S(L)`` to ``B`` (a 3-cycle
    ``A -> L -> B -> A``), so its row is, like every swapped row, its record minus its heaviest
    category plus one other record's source items, and its own source items sit in one other row.
    Admissible (*hard*): ``h(L)`` differs from ``h(A)`` and ``h(B)`` (each receiver loses its
    tendency), ``L`` holds none of ``S(A)`` and ``B`` none of ``S(L)`` (no collision: items are
    conserved). Preferred (*signature*), so that to a holder of any one of the three records the
    cycle looks like a pair -- in a pair the row holding your source items has no item of the
    category you received: ``B`` holds no item of ``h(A)``, ``L`` none of ``h(B)``, ``A`` none of
    ``h(L)``. Leftovers are visited in ``visit`` order; each takes, among the free pairs meeting
    the signature (else the hard rule only), the exchange of least ``J(L, A) + J(L, B)`` (Jaccard;
    ties: a pair order drawn from ``rng``). A pair hosts at most one leftover.

    Returns
    -------
    receiver : ndarray of int64, shape (n,)
        Whose row each record's source items go to (-1: none).
    similarity : ndarray, shape (n,)
        For spliced records, the larger Jaccard similarity with ``A`` and ``B`` (else 0).
    spliced : list of (int, int, int)
        ``(L, A, B)`` per spliced record.

    Notes
    -----
    Complexity: per block of ``b`` leftovers, sparse products of their rows with the records and
    the source sets, O(b x pairs) dense memory; then O(pairs) per leftover for the greedy choice.
    A record the rules leave no exchange for is not spliced (``unpaired="splice"`` then
    suppresses its source items).
    """
    n = X.shape[0]
    receiver = partner.copy()
    sim_out = np.zeros(n)
    left = np.flatnonzero(tend.has_tendency & (partner < 0))
    a = np.flatnonzero((partner > np.arange(n)) & tend.has_tendency)
    if not len(left) or not len(a):
        return receiver, sim_out, []
    b = partner[a]
    pair_rank = np.empty(len(a), dtype=np.int64)
    pair_rank[rng.permutation(len(a)) if visit == "random" else np.arange(len(a))] = np.arange(len(a))
    eA = np.concatenate([a, b])  # exchange e: eA gives to eB; pair index e % len(a)
    eB = np.concatenate([b, a])
    e_pair = np.concatenate([np.arange(len(a)), np.arange(len(a))])
    h = tend.heaviest
    Xi = sp.csr_array(X, dtype=np.int64)
    S = sp.csr_array((np.ones(int(tend.source.sum()), np.int64),
                      (tend.entry_row[tend.source], X.indices[tend.source])), shape=X.shape)
    present = sp.csr_array((tend.weights > 0).astype(np.int8))
    lengths = tend.lengths
    cat_b_has_hA = present[eB].toarray()[np.arange(len(eB)), h[eA]] > 0
    cat_eA = sp.csr_array(present[eA])
    order = _visit(left, visit, rng)
    free = np.ones(len(a), dtype=bool)
    spliced: list[tuple[int, int, int]] = []
    block = max(1, 4_000_000 // max(len(eA), n))
    XT, ST = sp.csr_array(Xi.T), sp.csr_array(S.T)
    for lo in range(0, len(order), block):
        Lb = order[lo : lo + block]
        hL = h[Lb]
        over = (Xi[Lb] @ XT).toarray()
        collide = ((Xi[Lb] @ ST).toarray()[:, eA] > 0) | ((S[Lb] @ XT).toarray()[:, eB] > 0)
        hard = (hL[:, None] != h[eA][None, :]) & (hL[:, None] != h[eB][None, :]) & ~collide
        sig = hard & ~cat_b_has_hA[None, :]
        sig &= present[Lb].toarray()[:, h[eB]] == 0
        sig &= cat_eA[:, hL].toarray().T == 0
        oa, ob = over[:, eA], over[:, eB]
        ln = lengths[Lb][:, None]
        ja = oa / (ln + lengths[eA][None, :] - oa)
        jb = ob / (ln + lengths[eB][None, :] - ob)
        score = ja + jb
        for i, L in enumerate(Lb):
            for ok in (sig[i], hard[i]):
                cand = np.flatnonzero(ok & free[e_pair])
                if len(cand):
                    best = cand[np.lexsort((pair_rank[e_pair[cand]], score[i, cand]))[0]]
                    A, B = int(eA[best]), int(eB[best])
                    receiver[A], receiver[L] = L, B
                    free[e_pair[best]] = False
                    sim_out[L] = max(ja[i, best], jb[i, best])
                    spliced.append((int(L), A, B))
                    break
    return receiver, sim_out, spliced


def _split_hosts(X, tend: Tendency, partner: np.ndarray, receiver: np.ndarray, spliced: list, visit: str,
                 rng) -> list[tuple[int, int, np.ndarray]]:
    """Second stage of the splice: a leftover no exchange admits takes part of a paired record's source items.

    When one category holds most records with a tendency, every pair has a record of it and no
    exchange ``A -> B`` avoids it: :func:`_splice` finds nothing. A leftover ``L`` then joins a pair
    ``(A, B)`` untouched by :func:`_splice` as a second receiver of ``B``: ``B`` deals its source
    items between ``A`` and ``L`` (each gets at least one), and receives ``S(A)`` and ``S(L)``.
    Every row is still its record minus its heaviest category plus source items of others, and no
    item is lost. Admissible: ``h(L) != h(B)``; ``B`` holds none of ``S(L)``; ``S(L)`` meets neither
    ``S(A)`` nor what ``B`` already receives from other leftovers; ``L`` gets only items it does not
    hold, at most half of those ``B`` has not dealt yet, and ``A`` keeps at least one. Preferred:
    ``h(L) == h(A)``, so that what ``B`` receives is one category, as in a pair. Among those, the
    host of least Jaccard similarity with ``L`` (ties: a host order drawn from ``rng``). A host may
    take several leftovers while it has items to deal.

    Returns
    -------
    list of (L, B, items)
        ``items``: the column indices of ``S(B)`` that go to ``L`` instead of ``A``.

    Notes
    -----
    Complexity: per block of leftovers a sparse product with the hosts' records and source sets,
    O(block x hosts) dense memory; then, per leftover, the hosts in order of preference until one
    has items left to deal (usually the first).
    """
    left = np.flatnonzero(tend.has_tendency & (receiver < 0))
    used = np.zeros(X.shape[0], dtype=bool)
    for L, A, B in spliced:
        used[[L, A, B]] = True
    hosts = np.flatnonzero(tend.has_tendency & (partner >= 0) & ~used)
    if not len(left) or not len(hosts):
        return []
    h = tend.heaviest
    mate = partner[hosts]
    rank = np.empty(len(hosts), dtype=np.int64)
    rank[rng.permutation(len(hosts)) if visit == "random" else np.arange(len(hosts))] = np.arange(len(hosts))
    Xi = sp.csr_array(X, dtype=np.int64)
    S = sp.csr_array((np.ones(int(tend.source.sum()), np.int64),
                      (tend.entry_row[tend.source], X.indices[tend.source])), shape=X.shape)
    HT, SHT, SMT = sp.csr_array(Xi[hosts].T), sp.csr_array(S[hosts].T), sp.csr_array(S[mate].T)
    lengths = tend.lengths
    undealt: dict[int, list[int]] = {}
    extra: dict[int, set[int]] = {}
    out: list[tuple[int, int, np.ndarray]] = []
    order = _visit(left, visit, rng)
    block = max(1, 4_000_000 // len(hosts))
    for lo in range(0, len(order), block):
        Lb = order[lo : lo + block]
        over = (Xi[Lb] @ HT).toarray()
        hard = (h[Lb][:, None] != h[hosts][None, :]) & ((S[Lb] @ HT).toarray() == 0) & ((S[Lb] @ SMT).toarray() == 0)
        hard &= (Xi[Lb] @ SHT).toarray() < np.diff(S.indptr)[hosts][None, :]  # an item of S(B) that L lacks
        sig = h[Lb][:, None] == h[mate][None, :]
        jac = over / (lengths[Lb][:, None] + lengths[hosts][None, :] - over)
        for i, L in enumerate(Lb):
            cand = np.flatnonzero(hard[i])
            if not len(cand):
                continue
            L_items = set(X.indices[X.indptr[L] : X.indptr[L + 1]].tolist())
            L_source = set(S.indices[S.indptr[L] : S.indptr[L + 1]].tolist())
            for c in cand[np.lexsort((rank[cand], jac[i, cand], ~sig[i, cand]))]:
                B = int(hosts[c])
                if B not in undealt:
                    items = S.indices[S.indptr[B] : S.indptr[B + 1]]
                    undealt[B] = items[rng.permutation(len(items))].tolist()
                    extra[B] = set()
                pool = undealt[B]
                free = [x for x in pool if x not in L_items]
                if len(pool) < 2 or not free or L_source & extra[B]:
                    continue
                take = free[: max(1, len(pool) // 2)]
                taken = set(take)
                undealt[B] = [x for x in pool if x not in taken]
                extra[B] |= L_source
                out.append((int(L), B, np.array(sorted(take), dtype=np.int64)))
                break
    return out


def _with_leftovers(X, tend: Tendency, give: np.ndarray, partner: np.ndarray, visit: str, rng):
    """Where each entry of ``X`` goes: ``give`` entries to the partner; leftovers spliced or hosted.

    Returns ``dest`` (per stored entry, its new row or -1), the similarity of spliced records,
    and the :func:`_splice` and :func:`_split_hosts` lists.
    """
    rows = tend.entry_row
    partial = np.where(tend.has_tendency, partner, -1)
    receiver, sim, spliced = _splice(X, tend, partial, visit, rng)
    hosted = _split_hosts(X, tend, partial, receiver, spliced, visit, rng)
    for L, B, _ in hosted:
        receiver[L] = B
    receiver = np.where(receiver >= 0, receiver, partner)
    dest = np.where(give & (receiver[rows] >= 0), receiver[rows], -1)
    if hosted:
        d = X.shape[1]
        keys = np.concatenate([B * d + items for _, B, items in hosted])
        to = np.concatenate([np.full(len(items), L) for L, _, items in hosted])
        order = np.argsort(keys)
        keys, to = keys[order], to[order]
        entry = rows.astype(np.int64) * d + X.indices
        where = np.minimum(np.searchsorted(keys, entry), len(keys) - 1)
        hit = keys[where] == entry
        dest[hit] = to[where[hit]]
    return dest, sim, spliced, hosted


def _extra_pairs(spliced, hosted) -> set:
    """The record pairs that exchanged items in splices and hosts."""
    return ({(min(u, v), max(u, v)) for L, A, B in spliced for u, v in ((A, L), (L, B))}
            | {(min(L, B), max(L, B)) for L, B, _ in hosted})

