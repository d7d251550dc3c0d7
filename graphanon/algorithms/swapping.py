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
    alone -- and keeps its tendency, which the audit reports.
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

from graphanon.errors import InternalError
from graphanon.release.perturbed import PerturbedRelease, publish_split
from graphanon.release.publish import publish
from graphanon.taxonomy.categories import category_codes
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
    moving = give & (partner[rows] >= 0)
    new_rows = np.where(moving, partner[rows], rows)
    out = sp.csr_array((np.ones(X.nnz, np.int8), (new_rows, X.indices)), shape=X.shape)
    out.sum_duplicates()
    return sp.csr_array((np.ones(out.nnz, bool), out.indices, out.indptr), shape=X.shape)


def _hide_what_is_left(data, categories: ItemGroups, tend: Tendency, current: sp.csr_array) -> tuple[sp.csr_array, int]:
    """Drop, from each record that still shows its own tendency after the swaps, that category's items.

    A record the partner rule could not pair (every candidate shares its tendency or would
    collide) keeps its items, and with them its tendency: the release would break the model
    it is published under (:class:`~graphanon.privacy.TendencyHiding`: no record keeps its
    tendency). With ``unpaired="suppress"`` (the default) such a record loses the items of its
    heaviest category instead, as PartSupp does; its row then has another heaviest category
    or none. Returns the matrix and the number of occurrences removed (0 when every record was
    paired, the usual case).
    """
    codes = category_codes(categories, data.items)
    after = Tendency(current, codes, len(categories))
    keeps = (tend.heaviest >= 0) & (after.heaviest == tend.heaviest)
    if not keeps.any():
        return current, 0
    rows = np.repeat(np.arange(current.shape[0]), np.diff(current.indptr))
    drop = keeps[rows] & (codes[current.indices] == tend.heaviest[rows])
    kept = sp.csr_array((np.ones(int((~drop).sum()), bool), (rows[~drop], current.indices[~drop])),
                        shape=current.shape)
    return kept, int(drop.sum())


def _release(data, matrix, tend, categories, unpaired: str, details: dict, params: dict, name: str):
    """The swapped records as a :class:`PerturbedRelease`, records left with their tendency handled."""
    removed = 0
    if unpaired == "suppress":
        matrix, removed = _hide_what_is_left(data, categories, tend, matrix)
    details["suppressed_occurrences"] = removed
    params["unpaired"] = unpaired
    moves = "swap-suppress" if removed else "swap"
    return PerturbedRelease.from_matrix(data, matrix, moves=moves, algorithm=name, params=params)


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
        partner was left for (``unpaired="suppress"``); usually 0.
    """

    pairs: tuple = ()
    pair_similarity: Any = field(default=None, repr=False)
    partial_pairs: tuple = field(default=(), repr=False)
    full_pairs: tuple = field(default=(), repr=False)
    with_tendency: int | None = None
    single_category: int | None = None
    suppressed_occurrences: int | None = None


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


def _spread_rounds(X, tend: Tendency, spread: int, visit: str, gen, progress):
    """PartSwap in ``spread`` rounds, round ``j`` exchanging part ``j`` of every record's source items.

    Each round pairs the records that still hold a part ``j`` with the rule of
    :func:`least_similar_matching` (true swap on the *original* heaviest
    category, no collision with what each record holds *now*, least
    similarity to it now) in a fresh visiting order, and moves only part
    ``j``. A record can meet the same partner twice; an unpaired record keeps
    that part (the audit then reports it if its tendency survives).

    Returns
    -------
    X_after : csr_array
    pairs : list of ndarray (n,)
        The partner of each record in each round (-1 none).
    similarity : ndarray (n,)
        Per record, the largest Jaccard similarity with a partner.
    """
    # numba: PartSwap and FullSwap only
    from graphanon.graphs.least_similar import least_similar_matching

    n, d = X.shape
    part = _source_parts(X, tend, spread, gen)
    rows = tend.entry_row
    part_key = {j: np.sort(rows[part == j] * d + X.indices[part == j]) for j in range(spread)}
    current = sp.csr_array(X)
    partners, similarity = [], np.zeros(n)
    for j in range(spread):
        keys = part_key[j]
        holders = np.unique(keys // d) if len(keys) else np.zeros(0, dtype=np.int64)
        cur_rows = np.repeat(np.arange(n), np.diff(current.indptr))
        give = np.isin(cur_rows * d + current.indices, keys)
        order = _visit(holders, visit, gen)
        partner, sim = least_similar_matching(current, order, tend.heaviest[order], give)
        current = _exchange(current, give, partner)
        partners.append(partner)
        similarity = np.maximum(similarity, sim)
        report(progress, 1, 3, f"partial swap round {j + 1} of {spread}")
    return current, partners, similarity


def _swap(data, categories, *, full: bool, visit, rng, unsafe_secret_seed, progress, name, spread: int = 1,
          unpaired: str = "suppress"):
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
    details["pairs"] = _pairs_list(partner)
    details["pair_similarity"] = sim
    params = {"n_categories": len(categories), "visit": visit}
    release = _release(data, _exchange(X, give, partner), tend, categories, unpaired, details, params, name)
    release.trace = SwapTrace(**details)
    report(progress, 3, 3, "done")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


def _swap_spread(data, categories, X, tend, *, full, visit, gen, spread, unsafe_secret_seed, progress, name,
                 unpaired):
    """:func:`_swap` with each record's source items spread over up to ``spread`` partners."""
    current, rounds, sim = _spread_rounds(X, tend, spread, visit, gen, progress)
    partial = sorted({p for partner in rounds for p in _pairs_list(partner)})
    details = {"partial_pairs": tuple(partial), "with_tendency": int(tend.has_tendency.sum())}
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
    release = _release(data, current, tend, categories, unpaired, details, params, name)
    release.trace = SwapTrace(**details)
    report(progress, 3, 3, "done")
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed)


@validate_params({"categories": [ItemGroups], "rng": RNG, **COMMON, "visit": [StrOptions(("random", "input"))],
                  "spread": [Interval(Integral, 1, None)], "unpaired": [StrOptions(("suppress", "keep"))]},
                 meanings=_MEANINGS)
@fill_doc(secret='the row shuffle')
def anonymize_partswap(data: TransactionData, *, categories: ItemGroups, visit: str = "random", spread: int = 1,
                       unpaired: str = "suppress",
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
    unpaired : {"suppress", "keep"}, default "suppress"
        A record with a tendency that no partner is left for (every candidate shares its
        tendency or would collide) keeps its tendency under the paper's rule (``"keep"``: the
        tendency audit then reports it). ``"suppress"`` removes that record's heaviest-category
        items instead, as PartSupp does, so the release meets the model it is published under;
        the release then says ``moves="swap-suppress"``. Published in the params.
    rng : None, int or numpy.random.Generator
        Structure randomness (the visiting order; with ``spread``, the parts).
    %(unsafe_secret_seed)s
    progress : callable(done, total, message), optional

    Returns
    -------
    PerturbedRelease
        ``moves="swap"`` (``"swap-suppress"`` when a record lost its heaviest category's items,
        ``unpaired``); ``trace`` is a :class:`SwapTrace`: ``pairs`` lists
        the swapped record pairs (original indices, memory only),
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
                  "spread": [Interval(Integral, 1, None)], "unpaired": [StrOptions(("suppress", "keep"))]},
                 meanings=_MEANINGS)
def anonymize_fullswap(data: TransactionData, *, categories: ItemGroups, visit: str = "random", spread: int = 1,
                       unpaired: str = "suppress",
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
