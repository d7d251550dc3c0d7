"""PartSwap's and FullSwap's engine: the pairs, the ``spread`` rounds, the leftovers, the release.

:func:`_swap` runs both methods (``full=True`` adds FullSwap's full swaps of single-category
records); the functions and their declarations are in :mod:`.partswap` and :mod:`.fullswap`.
The item moves are in :mod:`._moves`, the gifts and receivers in :mod:`.gifts`.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4.1-4.4.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.swapping._moves import (
    _exchange,
    _extra_pairs,
    _hide_what_is_left,
    _move,
    _visit,
    _with_leftovers,
)
from graphanon.algorithms.swapping.gifts import give_gifts, place_sources
from graphanon.algorithms.swapping.tendency import Tendency, tendencies
from graphanon.algorithms.swapping.trace import SwapTrace, _pairs_list
from graphanon.release.perturbed import PerturbedRelease
from graphanon.release.publish import publish
from graphanon.taxonomy.categories import category_codes
from graphanon.utils.progress import report
from graphanon.utils.randomness import check_random_state


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

    :func:`~graphanon.algorithms.swapping.gifts.give_gifts` then
    :func:`~graphanon.algorithms.swapping.gifts.place_sources`; returns the matrix, the occurrences
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


