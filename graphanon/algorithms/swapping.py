"""Swapping to hide personal tendency: PartSwap, FullSwap and three baselines.

A person's *tendency* is the category that dominates their record
(Gunawan & Mambo 2019, Sec. 3-4). With categories given as an
:class:`~graphanon.taxonomy.ItemGroups` partition of the items:

* ``WR(t, g)`` -- the weight of category ``g`` in record ``t`` -- is the
  number of items of ``t`` in ``g`` (Eq. 4);
* ``MTV(t) = |t| / (number of categories present in t)`` (Eq. 5);
* record ``t`` *has a tendency* when some category has ``WR > MTV``; its
  *heaviest* category ``h(t)`` is the one of greatest ``WR`` (ties: the
  smallest category index, i.e. the first in ``groups.names``), and its
  *source items* ``S(t)`` are its items in ``h(t)``. A record in which every
  category weighs the same (a single category included) has no tendency.

Methods (SPEC §4):

PartSwap (:func:`anonymize_partswap`, Sec. 4.1-4.3)
    Records with a tendency are visited in priority order. An unpaired
    record ``t`` takes as destination, among the other unpaired records
    with a tendency, those whose heaviest category differs (*true swap*) and
    that hold none of ``S(t)`` -- nor does ``t`` hold any of theirs (*no
    collision*, checked both ways so that no item is lost) -- the one of
    least Jaccard similarity; ties go to the partner of higher priority. The
    pair exchange their source items. **A record joins at most one pair**
    (our choice: the paper's Algorithm 2 outputs one destination per record
    and does not say whether a destination may be reused; reusing it would
    undo its own swap). A record that finds no admissible partner is left
    alone -- and keeps its tendency, which the audit reports (``unpaired="keep"``).
    By default (``unpaired="splice"``, not in the paper) such a *leftover* ``L``
    is spliced into an exchange ``A -> B`` of a pair, ``A -> L -> B``
    (:func:`_splice`), or, when no exchange admits it (one category holds most
    tendency records), takes part of a paired record's source items
    (:func:`_split_hosts`): its row is then, like every swapped row, its record
    minus its heaviest category plus other records' source items, so a row
    equal to a known record minus one category is not the sign of a leftover
    (:func:`graphanon.attacks.lost_items_attack`). A leftover that nothing
    admits receives part of what another swapped row received and hands its
    source items to a *receiver* row that holds none of them
    (:mod:`graphanon.algorithms.swap_gifts`); only what no receiver admits is
    removed. ``unpaired="suppress"`` suppresses every leftover's source items
    instead: an adversary holding the record finds it.
FullSwap (:func:`anonymize_fullswap`, Sec. 4.4)
    PartSwap, plus *full swapping* of the records it cannot touch: records
    of length > 1 whose items all lie in one category are paired, by the same
    rule (different category, least similarity -- always 0, categories being
    disjoint) and exchange all their items.
RandSwap (:func:`anonymize_randswap`, after Reiss 1984)
    All records are paired at random (a random perfect matching; with an odd
    count one record stays alone); in each pair each record gives a uniformly
    random ``ceil(|t| / 2)`` of its items to the other. An item given to a
    record that already holds it is lost (a *collision*), as in the paper.
PartSupp (:func:`anonymize_partsupp`, after Jia et al. 2014)
    Each record with a tendency loses its source items.
SplitPerson (:func:`anonymize_splitperson`, after Adar 2007)
    Each record becomes one record per category present in it (more rows
    than records; no item lost).

Priority and tie-breaking: the visiting order of the records -- also the
tie-break among partners of equal similarity -- is a permutation drawn from
``rng`` (``visit="random"``, the default) or the input order
(``visit="input"``, the paper's loop over ``D``). Both are *structure*
randomness: the same ``rng`` gives the same pairs. The published rows are
then shuffled by :func:`~graphanon.release.publish.publish` (secret), and
who swapped with whom stays in ``release.trace`` (a :class:`SwapTrace`, memory only)
and the private ``release.link``.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019.
Reiss, S. P. Practical data-swapping: the first steps. ACM TODS 9(1), 1984.
Jia, X. et al. rho-uncertainty, DASFAA 2014 (partial suppression).
Adar, E. User 4XXXXX9: anonymizing query logs. WWW Query Log Workshop, 2007.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.declaration import Advice, MethodDeclaration, Parameter
from graphanon.algorithms.swap_gifts import give_gifts, place_sources
from graphanon.errors import InternalError, ParameterError
from graphanon.release.perturbed import PerturbedRelease, publish_split
from graphanon.release.publish import publish
from graphanon.taxonomy.categories import category_codes, parse_categories
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import COMMON, RNG, Interval, StrOptions, validate_params
from graphanon.utils.progress import ProgressCallback, report
from graphanon.utils.randomness import check_random_state, secret_generator

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.randomness import RandomLike

__all__ = [
    "Tendency",
    "anonymize_fullswap",
    "anonymize_partsupp",
    "anonymize_partswap",
    "anonymize_randswap",
    "anonymize_splitperson",
    "tendencies",
]



class Tendency:
    """Category weights of every record (WR, MTV, heaviest category, source items).

    Parameters
    ----------
    X : boolean CSR matrix, shape (n, d)
        Canonical (sorted indices, no duplicates).
    codes : int array, shape (d,)
        Category index of every item.
    n_categories : int

    Attributes
    ----------
    weights : csr_array, shape (n, n_categories)
        ``WR(t, g)``.
    lengths, n_present : ndarray
        ``|t|`` and the number of categories present.
    heaviest : ndarray of int64
        ``h(t)``, or -1 for records without a tendency.
    single : ndarray of bool
        Records of length > 1 with a single category (FullSwap's candidates).
    source : ndarray of bool, shape (X.nnz,)
        Per stored entry of ``X``: the item lies in its record's heaviest category.

    Examples
    --------
    >>> X = sp.csr_array([[1, 1, 1, 0], [1, 0, 0, 1]], dtype=bool)
    >>> tend = Tendency(X, np.array([0, 0, 1, 1]), 2)
    >>> tend.heaviest.tolist(), tend.source.tolist()
    ([0, -1], [True, True, False, False, False])
    """

    def __init__(self, X, codes, n_categories: int) -> None:
        X = sp.csr_array(X)
        n = X.shape[0]
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        entry_cat = np.asarray(codes, dtype=np.int64)[X.indices]
        W = sp.csr_array((np.ones(X.nnz, np.int64), (rows, entry_cat)), shape=(n, int(n_categories)))
        W.sum_duplicates()
        W.sort_indices()
        self.weights = W
        self.lengths = np.diff(X.indptr).astype(np.int64)
        self.n_present = np.diff(W.indptr).astype(np.int64)
        wmax = np.zeros(n, dtype=np.int64)
        wrows = np.repeat(np.arange(n), self.n_present)
        np.maximum.at(wmax, wrows, W.data)
        has = wmax * self.n_present > self.lengths  # WR > MTV, in integers
        # heaviest: the first (smallest category) entry equal to the row maximum
        at_max = W.data == wmax[wrows]
        first = np.unique(wrows[at_max], return_index=True)
        heaviest = np.full(n, -1, dtype=np.int64)
        heaviest[first[0]] = W.indices[at_max][first[1]]
        heaviest[~has] = -1
        self.heaviest = heaviest
        self.single = (self.n_present == 1) & (self.lengths > 1)
        self.source = (heaviest[rows] >= 0) & (entry_cat == heaviest[rows])
        self.entry_category = entry_cat
        self.entry_row = rows

    @property
    def has_tendency(self) -> np.ndarray:
        """Per record: whether it has a tendency (a heaviest category)."""
        return self.heaviest >= 0


_MEANINGS = {"categories": "the item categories (graphanon.taxonomy.ItemGroups)", "spread": "partners per record"}


def tendencies(data, categories: ItemGroups) -> Tendency:
    """:class:`Tendency` of every record of ``data`` under ``categories``."""
    return Tendency(data.matrix, category_codes(categories, data.items), len(categories))


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


def _release(data, matrix, tend, categories, unpaired: str, details: dict, params: dict, name: str, visit: str,
             gen):
    """The swapped records as a :class:`PerturbedRelease`, records left with their tendency handled.

    With ``unpaired="splice"`` a record that still shows its tendency receives part of another
    row's received items and hands its heaviest category's items to a receiver (:func:`_rehome`):
    no row is its record minus one category with no gift, and items are removed only where no
    receiver admits them.
    """
    removed, lost = 0, np.zeros(data.n_records, dtype=bool)
    if unpaired in ("splice", "suppress"):
        dropped, removed, lost = _hide_what_is_left(data, categories, tend, matrix)
        if unpaired == "suppress" or not lost.any():
            matrix = dropped
        else:
            matrix, removed, lost = _rehome(data, matrix, tend, categories, lost, details, visit, gen)
    details["suppressed_occurrences"] = removed
    details["suppressed_records"] = tuple(np.flatnonzero(lost).tolist())
    params["unpaired"] = unpaired
    moves = "swap-suppress" if removed else "swap"
    return PerturbedRelease.from_matrix(data, matrix, moves=moves, algorithm=name, params=params)


def _rehome(data, matrix, tend, categories, left: np.ndarray, details: dict, visit: str, gen):
    """Records that still show their tendency: a gift from a swapped row, their source items to a receiver.

    :func:`~graphanon.algorithms.swap_gifts.give_gifts` then
    :func:`~graphanon.algorithms.swap_gifts.place_sources`; returns the matrix, the occurrences
    removed (those no receiver admitted) and the mask of the records that lost them.
    """
    X, codes = data.matrix, category_codes(categories, data.items)
    order = _visit(np.flatnonzero(left), visit, gen)
    gifted, gifts = give_gifts(X, matrix, tend.heaviest, codes, len(categories), left, order, gen)
    out, homes, lost, removed = place_sources(X, gifted, tend.heaviest, codes, left, order, gen)
    details["gifted"] = tuple((L, R) for L, R, _ in gifts)
    details["rehomed"] = tuple(homes)
    extra = {(min(L, N), max(L, N)) for L, N in homes} | _givers(X, matrix, gifts, details["pairs"])
    details["pairs"] = tuple(sorted(set(details["pairs"]) | extra))
    return out, removed, lost


def _givers(X, before, gifts, pairs) -> set:
    """``(L, P)`` per gift from ``R``'s row to ``L``: ``P`` a partner of ``R`` that gave one of the items."""
    partners: dict[int, set[int]] = {}
    for u, v in pairs:
        partners.setdefault(u, set()).add(v)
        partners.setdefault(v, set()).add(u)
    out = set()
    for L, R, items in gifts:
        for P in partners.get(R, ()):
            gave = np.setdiff1d(X.indices[X.indptr[P] : X.indptr[P + 1]],
                                before.indices[before.indptr[P] : before.indptr[P + 1]])
            if np.isin(items, gave).any():
                out.add((min(L, P), max(L, P)))
    return out


@dataclass(frozen=True)
class SwapTrace:
    """What a swapping-family method did (``release.trace``; in memory only, never saved).

    Attributes
    ----------
    pairs : tuple of (int, int)
        Swapped record pairs ``(i, j)``, ``i < j``, as original record
        indices (the final partners: full swaps replace partial ones).
    pair_similarity : numpy.ndarray or None
        Per original record, the Jaccard similarity with its partner
        (PartSwap/FullSwap).
    partial_pairs, full_pairs : tuple of (int, int)
        PartSwap's pairs and FullSwap's full-swap pairs (empty when unused).
    with_tendency, single_category : int or None
        Records with a tendency; single-category records (FullSwap).
    suppressed_occurrences : int or None
        PartSupp: occurrences removed. PartSwap/FullSwap: occurrences removed from records no
        partner was left for (``unpaired="suppress"``, or ``"splice"`` when no receiver admits them).
    spliced : tuple of (int, int, int)
        ``unpaired="splice"``: ``(L, A, B)`` per record ``L`` the pairing left alone, spliced into
        the exchange ``A -> B`` (``A`` gives to ``L``, ``L`` to ``B``).
    hosted : tuple of (int, int)
        ``unpaired="splice"``: ``(L, B)`` per leftover that no exchange admitted and that
        took part of record ``B``'s source items (giving its own to ``B``).
    suppressed_records : tuple of int
        ``unpaired="suppress"`` or ``"splice"``: the records whose source items were removed
        (the private truth of :func:`graphanon.attacks.lost_items_attack`).
    gifted : tuple of (int, int)
        ``unpaired="splice"``: ``(L, R)`` per record ``L`` that nothing placed and that received
        part of the items record ``R``'s row had received (:func:`~graphanon.algorithms.swap_gifts.give_gifts`).
    rehomed : tuple of (int, int)
        ``unpaired="splice"``: ``(L, N)`` per such record whose heaviest category's items went to
        record ``N``'s row (:func:`~graphanon.algorithms.swap_gifts.place_sources`).
    """

    pairs: tuple = ()
    pair_similarity: Any = field(default=None, repr=False)
    partial_pairs: tuple = field(default=(), repr=False)
    full_pairs: tuple = field(default=(), repr=False)
    with_tendency: int | None = None
    single_category: int | None = None
    suppressed_occurrences: int | None = None
    spliced: tuple = field(default=(), repr=False)
    hosted: tuple = field(default=(), repr=False)
    suppressed_records: tuple = field(default=(), repr=False)
    gifted: tuple = field(default=(), repr=False)
    rehomed: tuple = field(default=(), repr=False)


def _partial_pairs(X, tend: Tendency, visit: str, rng) -> tuple[np.ndarray, np.ndarray]:
    # numba: PartSwap and FullSwap only
    from graphanon.graphs.least_similar import least_similar_matching

    order = _visit(np.flatnonzero(tend.has_tendency), visit, rng)
    return least_similar_matching(X, order, tend.heaviest[order], tend.source)


def _full_pairs(X, tend: Tendency, visit: str, rng) -> tuple[np.ndarray, np.ndarray]:
    # numba: PartSwap and FullSwap only
    from graphanon.graphs.least_similar import least_similar_matching

    order = _visit(np.flatnonzero(tend.single), visit, rng)
    single_cat = np.full(X.shape[0], -1, dtype=np.int64)
    single_cat[tend.entry_row] = tend.entry_category  # one category per candidate record
    return least_similar_matching(X, order, single_cat[order])


def _pairs_list(partner: np.ndarray) -> tuple[tuple[int, int], ...]:
    t = np.flatnonzero(partner > np.arange(len(partner)))
    return tuple(zip(t.tolist(), partner[t].tolist(), strict=True))


def _source_parts(X, tend: Tendency, spread: int, rng) -> np.ndarray:
    """Per stored entry of ``X``: which of ``spread`` parts of its record's source items it is in (-1: none).

    Each record's source items, in a random order (structure randomness),
    are dealt round-robin, so the parts differ in size by at most one and a
    record with fewer than ``spread`` source items has that many parts.
    """
    keys = rng.random(X.nnz)
    order = np.lexsort((keys, ~tend.source, tend.entry_row))  # per record: its source items first, shuffled
    rank = np.empty(X.nnz, dtype=np.int64)
    rank[order] = np.arange(X.nnz) - X.indptr[tend.entry_row[order]]
    return np.where(tend.source, rank % spread, -1)


def _spread_rounds(X, tend: Tendency, spread: int, visit: str, gen, progress, codes=None, splice: bool = False):
    """PartSwap in ``spread`` rounds, round ``j`` exchanging part ``j`` of every record's source items.

    Each round pairs the records that still hold a part ``j`` with the rule of
    :func:`least_similar_matching` (true swap on the *original* heaviest
    category, no collision with what each record holds *now*, least
    similarity to it now) in a fresh visiting order, and moves only part
    ``j``. A record can meet the same partner twice; an unpaired record keeps
    that part (the audit then reports it if its tendency survives) -- unless
    ``splice``: then the round's leftovers are spliced into its exchanges or
    hosted (:func:`_with_leftovers`, with part ``j`` as the source items).

    Returns
    -------
    X_after : csr_array
    pairs : list of ndarray (n,)
        The partner of each record in each round (-1 none).
    similarity : ndarray (n,)
        Per record, the largest Jaccard similarity with a partner.
    placed : tuple of (list, list)
        With ``splice``: the spliced ``(L, A, B)`` and hosted ``(L, B, items)`` of every round.
    """
    # numba: PartSwap and FullSwap only
    from graphanon.graphs.least_similar import least_similar_matching

    n, d = X.shape
    part = _source_parts(X, tend, spread, gen)
    rows = tend.entry_row
    part_key = {j: np.sort(rows[part == j] * d + X.indices[part == j]) for j in range(spread)}
    current = sp.csr_array(X)
    partners, similarity = [], np.zeros(n)
    all_spliced: list = []
    all_hosted: list = []
    for j in range(spread):
        keys = part_key[j]
        holders = np.unique(keys // d) if len(keys) else np.zeros(0, dtype=np.int64)
        cur_rows = np.repeat(np.arange(n), np.diff(current.indptr))
        give = np.isin(cur_rows * d + current.indices, keys)
        order = _visit(holders, visit, gen)
        partner, sim = least_similar_matching(current, order, tend.heaviest[order], give)
        if splice:
            tj = Tendency(current, codes, tend.weights.shape[1])
            holder = np.zeros(n, dtype=bool)
            holder[holders] = True
            tj.heaviest = np.where(holder, tend.heaviest, -1)
            tj.source = give
            dest, splice_sim, spliced, hosted = _with_leftovers(current, tj, give, partner, visit, gen)
            all_spliced += spliced
            all_hosted += hosted
            sim = np.maximum(sim, splice_sim)
            current = _move(current, dest)
        else:
            current = _exchange(current, give, partner)
        partners.append(partner)
        similarity = np.maximum(similarity, sim)
        report(progress, 1, 3, f"partial swap round {j + 1} of {spread}")
    return current, partners, similarity, (all_spliced, all_hosted)


def _swap(data, categories, *, full: bool, visit, rng, unsafe_secret_seed, progress, name, spread: int = 1,
          unpaired: str = "splice"):
    gen = check_random_state(rng)
    tend = tendencies(data, categories)
    X = data.matrix
    report(progress, 0, 3, "category weights")
    if spread > 1:
        return _swap_spread(data, categories, X, tend, full=full, visit=visit, gen=gen, spread=int(spread),
                            unsafe_secret_seed=unsafe_secret_seed, progress=progress, name=name, unpaired=unpaired)
    partner, sim = _partial_pairs(X, tend, visit, gen)
    give = tend.source.copy()
    details: dict[str, Any] = {"partial_pairs": _pairs_list(partner), "with_tendency": int(tend.has_tendency.sum())}
    report(progress, 1, 3, "partial swap partners")
    if full:
        full_partner, full_sim = _full_pairs(X, tend, visit, gen)
        both = full_partner >= 0
        partner[both], sim[both] = full_partner[both], full_sim[both]
        give |= both[tend.entry_row]  # fully swapped records give every item
        details["full_pairs"] = _pairs_list(full_partner)
        details["single_category"] = int(tend.single.sum())
    report(progress, 2, 3, "exchange")
    pairs = list(_pairs_list(partner))
    if unpaired == "splice":
        dest, splice_sim, spliced, hosted = _with_leftovers(X, tend, give, partner, visit, gen)
        sim = np.maximum(sim, splice_sim)
        details["spliced"] = tuple(spliced)
        details["hosted"] = tuple((L, B) for L, B, _ in hosted)
        pairs = sorted(set(pairs) | _extra_pairs(spliced, hosted))
    else:
        dest = np.where(give & (partner[tend.entry_row] >= 0), partner[tend.entry_row], -1)
    details["pairs"] = tuple(pairs)
    details["pair_similarity"] = sim
    params = {"n_categories": len(categories), "visit": visit}
    release = _release(data, _move(X, dest), tend, categories, unpaired, details, params, name, visit, gen)
    release.trace = SwapTrace(**details)
    report(progress, 3, 3, "done")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


def _swap_spread(data, categories, X, tend, *, full, visit, gen, spread, unsafe_secret_seed, progress, name,
                 unpaired):
    """:func:`_swap` with each record's source items spread over up to ``spread`` partners."""
    codes = category_codes(categories, data.items)
    current, rounds, sim, (spliced, hosted) = _spread_rounds(X, tend, spread, visit, gen, progress, codes=codes,
                                                             splice=unpaired == "splice")
    partial = sorted({p for partner in rounds for p in _pairs_list(partner)} | _extra_pairs(spliced, hosted))
    details = {"partial_pairs": tuple(partial), "with_tendency": int(tend.has_tendency.sum())}
    if unpaired == "splice":
        details["spliced"] = tuple(spliced)
        details["hosted"] = tuple((L, B) for L, B, _ in hosted)
    pairs = list(partial)
    if full:
        # single-category records hold no source items, so PartSwap's rounds never touched them
        full_partner, full_sim = _full_pairs(X, tend, visit, gen)
        both = full_partner >= 0
        current = _exchange(current, both[np.repeat(np.arange(X.shape[0]), np.diff(current.indptr))], full_partner)
        sim[both] = full_sim[both]
        details["full_pairs"] = _pairs_list(full_partner)
        details["single_category"] = int(tend.single.sum())
        pairs += list(details["full_pairs"])
    report(progress, 2, 3, "exchange")
    details["pairs"] = tuple(sorted(pairs))
    details["pair_similarity"] = sim
    params = {"n_categories": len(categories), "visit": visit, "spread": spread}
    release = _release(data, current, tend, categories, unpaired, details, params, name, visit, gen)
    release.trace = SwapTrace(**details)
    report(progress, 3, 3, "done")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"categories": [ItemGroups], "rng": RNG, **COMMON, "visit": [StrOptions(("random", "input"))],
                  "spread": [Interval(Integral, 1, None)], "unpaired": [StrOptions(("splice", "suppress", "keep"))]},
                 meanings=_MEANINGS)
@fill_doc(secret='the row shuffle')
def anonymize_partswap(data: TransactionData, *, categories: ItemGroups, visit: str = "random", spread: int = 1,
                       unpaired: str = "splice",
                       rng: RandomLike = None, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """PartSwap: exchange each tendency record's heaviest-category items with its least similar partner.

    Parameters
    ----------
    data : TransactionData
    categories : ItemGroups
        A category for every item of ``data`` (:mod:`graphanon.taxonomy.categories`).
    visit : {"random", "input"}
        Visiting order and tie-break of the partner search (module notes).
    spread : int, default 1
        Partners per record (a mitigation, not in the paper). With ``spread
        > 1`` each record's source items are dealt into ``spread`` parts
        (random order) and exchanged in ``spread`` rounds, part ``j`` in round
        ``j``, each round pairing by the paper's rule on the current records.
        A record then receives items from up to ``spread`` partners of
        different tendencies, so the items its row received no longer name
        one partner's tendency (:func:`graphanon.attacks.partner_tendency`;
        ``docs/swapping.md`` measures both ways). Published in the params.
    unpaired : {"splice", "suppress", "keep"}, default "splice"
        A record with a tendency that no partner is left for (every candidate shares its
        tendency or would collide) keeps its tendency under the paper's rule (``"keep"``: the
        tendency audit then reports it). ``"suppress"`` removes that record's heaviest-category
        items instead, as PartSupp does (``moves="swap-suppress"``): the release meets the model,
        but an adversary holding the record recognizes its row -- the record minus one category,
        no gift (issue 30; :func:`graphanon.attacks.lost_items_attack`). ``"splice"`` places the
        record in a 3-cycle ``A -> L -> B`` of exchanges or, failing that, as a second receiver of a
        paired record's source items (module notes); a record nothing admits receives part of what
        another swapped row received and its source items go to a receiver row that holds none of
        them (:mod:`graphanon.algorithms.swap_gifts`; removed only when no row can take them).
        With ``spread > 1`` each round splices or hosts its own leftovers, part ``j`` standing
        for the source items. Published in the params.
    rng : None, int or numpy.random.Generator
        Structure randomness (the visiting order; with ``spread``, the parts).
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional

    Returns
    -------
    PerturbedRelease
        ``moves="swap"`` (``"swap-suppress"`` when a record lost its heaviest category's items,
        ``unpaired``); ``trace`` is a :class:`SwapTrace`: ``pairs`` lists
        the record pairs that exchanged items (original indices, memory only; with
        ``unpaired="splice"`` also the spliced and hosted records' exchanges, ``spliced`` and
        ``hosted`` say which),
        ``pair_similarity`` their Jaccard similarity; ``link`` is private.

    See Also
    --------
    graphanon.privacy.TendencyHiding : The audit of its releases.
    graphanon.algorithms.anonymize_fullswap : PartSwap plus full swaps.

    Notes
    -----
    Complexity: O(occurrences) for the weights and the exchange, plus the partner search
    of :func:`~graphanon.graphs.least_similar.least_similar_matching`.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a1", "a2", "b1"], ["b2", "b3", "a3"]])
    >>> cats = ItemGroups({"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]})
    >>> rel = anonymize_partswap(data, categories=cats, rng=0, unsafe_secret_seed=0)
    >>> sorted(rel.render_record(int(rel.link.row_of_record[0])).split())
    ['b1', 'b2', 'b3']
    """
    return _swap(data, categories, full=False, visit=visit, rng=rng, unsafe_secret_seed=unsafe_secret_seed,
                 progress=progress, name="partswap", spread=spread, unpaired=unpaired)


@validate_params({"categories": [ItemGroups], "rng": RNG, **COMMON, "visit": [StrOptions(("random", "input"))],
                  "spread": [Interval(Integral, 1, None)], "unpaired": [StrOptions(("splice", "suppress", "keep"))]},
                 meanings=_MEANINGS)
def anonymize_fullswap(data: TransactionData, *, categories: ItemGroups, visit: str = "random", spread: int = 1,
                       unpaired: str = "splice",
                       rng: RandomLike = None, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """FullSwap: PartSwap plus full exchange between single-category records (Sec. 4.4).

    Parameters, Returns, Complexity: as :func:`anonymize_partswap`;
    ``trace.full_pairs`` lists the fully swapped pairs.

    See Also
    --------
    graphanon.privacy.TendencyHiding : The audit of its releases.
    graphanon.algorithms.anonymize_partswap : Partial swaps only.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a1", "a2"], ["b1", "b2"]])
    >>> cats = ItemGroups({"A": ["a1", "a2"], "B": ["b1", "b2"]})
    >>> rel = anonymize_fullswap(data, categories=cats, rng=0, unsafe_secret_seed=0)
    >>> rel.render_record(int(rel.link.row_of_record[0]))
    'b1 b2'
    """
    return _swap(data, categories, full=True, visit=visit, rng=rng, unsafe_secret_seed=unsafe_secret_seed,
                 progress=progress, name="fullswap", spread=spread, unpaired=unpaired)


@validate_params({**COMMON})
@fill_doc(secret='the pairs, the items exchanged and the row shuffle')
def anonymize_randswap(data: TransactionData, *, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """RandSwap: random record pairs exchange random halves of their items (collisions lose items).

    The pairs and the items exchanged are *secret* (operating-system entropy,
    :func:`graphanon.utils.randomness.secret_generator`): they depend on nothing but
    the number of records (public) and the record lengths, so drawing them
    from a shared seed would tell a seed holder which input position swapped
    with which, and hence whose items a known target's row received.

    Parameters
    ----------
    data : TransactionData
    %(unsafe_secret_seed)s
    progress : as :func:`anonymize_partswap`

    Returns
    -------
    PerturbedRelease
        ``moves="random-swap"``.

    See Also
    --------
    graphanon.privacy.TendencyHiding : The audit of its releases.
    graphanon.algorithms.anonymize_partswap : Swaps chosen by tendency.

    Notes
    -----
    Complexity: O(occurrences log occurrences) (one sort of random keys).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> rel = anonymize_randswap(from_iterable([["a", "b"], ["c", "d"]]), unsafe_secret_seed=0)
    >>> sorted(len(rel.render_record(i).split()) for i in range(2))
    [2, 2]

    References
    ----------
    Reiss, S. P. Practical data-swapping: the first steps. ACM TODS 9(1), 1984;
    issue 20 (what a shared seed may fix).
    """
    gen = secret_generator(unsafe_secret_seed)  # the pairs are the secret: never from the seed
    X = data.matrix
    n = X.shape[0]
    perm = gen.permutation(n)
    partner = np.full(n, -1, dtype=np.int64)
    half = n // 2
    partner[perm[0 : 2 * half : 2]] = perm[1 : 2 * half : 2]
    partner[perm[1 : 2 * half : 2]] = perm[0 : 2 * half : 2]
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    order = np.lexsort((gen.random(X.nnz), rows))  # a random order of the items within each record
    rank = np.empty(X.nnz, dtype=np.int64)
    rank[order] = np.arange(X.nnz) - X.indptr[rows[order]]
    lengths = np.diff(X.indptr)
    give = rank < (lengths[rows] + 1) // 2
    release = PerturbedRelease.from_matrix(data, _exchange(X, give, partner), moves="random-swap",
                                           algorithm="randswap", params={})
    release.trace = SwapTrace(pairs=_pairs_list(partner))
    report(progress, 1, 1, "random swap")
    return publish(data, release, secret=gen)


@validate_params({"categories": [ItemGroups], **COMMON}, meanings=_MEANINGS)
def anonymize_partsupp(data: TransactionData, *, categories: ItemGroups, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """PartSupp: each record with a tendency loses its heaviest category's items.

    Parameters
    ----------
    data, categories : as :func:`anonymize_partswap`
    unsafe_secret_seed, progress : as :func:`anonymize_partswap`

    Returns
    -------
    PerturbedRelease
        ``moves="suppress"``; items whose every occurrence was removed are not named.

    See Also
    --------
    graphanon.privacy.TendencyHiding : The audit of its releases.
    graphanon.algorithms.anonymize_partswap : Swaps instead of removals.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a1", "a2", "b1"]])
    >>> cats = ItemGroups({"A": ["a1", "a2"], "B": ["b1"]})
    >>> rel = anonymize_partsupp(data, categories=cats, unsafe_secret_seed=0)
    >>> rel.render_record(0), rel.items
    ('b1', ('b1',))
    """
    tend = tendencies(data, categories)
    X = data.matrix
    keep = ~tend.source
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    kept = sp.csr_array((np.ones(int(keep.sum()), bool), (rows[keep], X.indices[keep])), shape=X.shape)
    release = PerturbedRelease.from_matrix(data, kept, moves="suppress", algorithm="partsupp",
                                           params={"n_categories": len(categories)})
    release.trace = SwapTrace(suppressed_occurrences=int(tend.source.sum()))
    report(progress, 1, 1, "partial suppression")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"categories": [ItemGroups], **COMMON}, meanings=_MEANINGS)
def anonymize_splitperson(data: TransactionData, *, categories: ItemGroups, unsafe_secret_seed: int | None = None,
                          progress: ProgressCallback | None = None) -> PerturbedRelease:
    """SplitPerson: one published row per (record, category present in it).

    Parameters are those of :func:`anonymize_partsupp`.

    Returns
    -------
    PerturbedRelease
        ``moves="split"``, with more rows than records; ``link`` is a private
        :class:`~graphanon.release.perturbed.SplitLink` (row -> record).

    See Also
    --------
    graphanon.privacy.TendencyHiding : The audit of its releases.
    graphanon.algorithms.anonymize_partswap : Swaps instead of splits.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a1", "a2", "b1"]])
    >>> cats = ItemGroups({"A": ["a1", "a2"], "B": ["b1"]})
    >>> rel = anonymize_splitperson(data, categories=cats, unsafe_secret_seed=0)
    >>> sorted(rel.render_record(i) for i in range(rel.n_records))
    ['a1 a2', 'b1']
    """
    X = data.matrix
    codes = category_codes(categories, data.items)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)).astype(np.int64)
    key = rows * len(categories) + codes[X.indices]
    uniq, new_row = np.unique(key, return_inverse=True)
    split = sp.csr_array((np.ones(X.nnz, bool), (new_row, X.indices)), shape=(len(uniq), X.shape[1]))
    owner = uniq // len(categories)
    empty = np.flatnonzero(np.diff(X.indptr) == 0)
    if len(empty):  # an empty record stays one empty row
        split = sp.vstack([split, sp.csr_array((len(empty), X.shape[1]), dtype=bool)], format="csr")
        owner = np.concatenate([owner, empty])
    release = PerturbedRelease.from_matrix(data, split, moves="split", algorithm="splitperson",
                                           params={"n_categories": len(categories)})
    report(progress, 1, 1, "split")
    return publish_split(data, release, owner, unsafe_secret_seed=unsafe_secret_seed)


# ---------------------------------------------------------------------- CLI


# -- the declarations (``-a partswap`` ...): ``categories=random:N[:SEED]``, ``taxonomy-level:DEPTH`` or a CSV file
# become the ItemGroups the functions take (graphanon.taxonomy.categories.parse_categories)

_CATEGORIES = Parameter("categories", str, None, "random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV "
                        "file", argument=None)
_VISIT = Parameter("visit", str, "random", "visiting order and tie-break of the partner search")
_SPREAD = Parameter("spread", int, 1, "partners per record: source items dealt into this many parts, one partner "
                    "each (mitigates the partner-tendency attack)")
_UNPAIRED = Parameter("unpaired", str, "splice", "a record no partner is left for: splice (it joins an exchange "
                      "A -> L -> B, or takes part of a paired record's source items; when nothing admits it, it gets "
                      "part of another row's gift and its source items go to a row that lacks them), suppress (its heaviest category's items are removed: an adversary holding the "
                      "record sees it) or keep (the paper's rule: it keeps its tendency and the audit reports it)")


def _prepare_categories(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """The swaps: ``--param categories=`` becomes the ItemGroups; ``--taxonomy`` only for ``taxonomy-level:``."""
    name, spec = declaration.name, values["categories"]
    if opts.k is not None or opts.m is not None:
        raise ParameterError(f"{name} takes no -k or -m: it hides tendencies, it does not count records")
    if opts.is_given("taxonomy") and not str(spec or "").startswith("taxonomy-level:"):
        raise ParameterError(f"{name} reads --taxonomy only for categories=taxonomy-level:DEPTH; drop it")
    if spec is None:
        raise ParameterError(
            f"{name} needs --param categories=random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV file"
        )
    kwargs["categories"] = parse_categories(spec, data, opts.taxonomy)
    return kwargs


def _prepare_randswap(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    if opts.k is not None or opts.m is not None:
        raise ParameterError(f"{declaration.name} takes no -k or -m")
    return kwargs


def _swap_declaration(name: str, function, summary: str, *, visit: bool, less_suppression: str | None = None
                      ) -> MethodDeclaration:
    params = (_CATEGORIES, _VISIT, _SPREAD, _UNPAIRED) if visit else (_CATEGORIES,)
    return MethodDeclaration(
        name=name, family="swapping", function=function, privacy_model="tendency", summary=summary, params=params,
        audit_params=("categories",),
        published=frozenset({"n_categories", "visit", "spread", "unpaired"} if visit else {"n_categories"}),
        options=("taxonomy", "seed") if visit else ("taxonomy",), prepare=_prepare_categories,
        advice=Advice(less_suppression=less_suppression),
    )


PARTSWAP = _swap_declaration("partswap", anonymize_partswap, "PartSwap: swap each tendency's items with the least "
                             "similar record (Gunawan & Mambo)", visit=True,
                             less_suppression="fewer categories (--param categories=...), or -a fullswap")
FULLSWAP = _swap_declaration("fullswap", anonymize_fullswap, "FullSwap: PartSwap plus full swaps of single-category "
                             "records", visit=True, less_suppression="fewer categories (--param categories=...)")
PARTSUPP = _swap_declaration("partsupp", anonymize_partsupp, "PartSupp baseline: remove each record's heaviest "
                             "category", visit=False,
                             less_suppression="-a partswap (it swaps items between records instead of removing them)")
SPLITPERSON = _swap_declaration("splitperson", anonymize_splitperson, "SplitPerson baseline: one record per category "
                                "of each record", visit=False)
RANDSWAP = MethodDeclaration(
    name="randswap", family="swapping", function=anonymize_randswap, privacy_model="tendency",
    summary="RandSwap baseline: random pairs exchange random halves (secret pairs: no --seed)",
    published=frozenset(), options=(), prepare=_prepare_randswap,
)

#: The family's methods: name -> its declaration (read by :mod:`graphanon.algorithms.registry`).
METHOD_DECLARATIONS = {declaration.name: f"{__name__}:{attribute}" for attribute, declaration in (
    ("PARTSWAP", PARTSWAP), ("FULLSWAP", FULLSWAP), ("PARTSUPP", PARTSUPP), ("SPLITPERSON", SPLITPERSON),
    ("RANDSWAP", RANDSWAP))}
