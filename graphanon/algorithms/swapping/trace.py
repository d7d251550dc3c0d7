"""The trace of a swapping-family method (``release.trace``; memory only, never saved)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SwapTrace"]


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
        part of the items record ``R``'s row had received (:func:`~graphanon.algorithms.swapping.gifts.give_gifts`).
    rehomed : tuple of (int, int)
        ``unpaired="splice"``: ``(L, N)`` per such record whose heaviest category's items went to
        record ``N``'s row (:func:`~graphanon.algorithms.swapping.gifts.place_sources`).
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



def _pairs_list(partner: np.ndarray) -> tuple[tuple[int, int], ...]:
    t = np.flatnonzero(partner > np.arange(len(partner)))
    return tuple(zip(t.tolist(), partner[t].tolist(), strict=True))

