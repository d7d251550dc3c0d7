"""PartSwap: each tendency record exchanges its heaviest category's items with its least similar partner.

Records with a tendency are visited in priority order. An unpaired record ``t`` takes as
destination, among the other unpaired records with a tendency, those whose heaviest category
differs (*true swap*) and that hold none of ``S(t)`` -- nor does ``t`` hold any of theirs (*no
collision*, checked both ways so that no item is lost) -- the one of least Jaccard similarity;
ties go to the partner of higher priority. The pair exchange their source items. **A record
joins at most one pair** (our choice: the paper's Algorithm 2 outputs one destination per
record and does not say whether a destination may be reused; reusing it would undo its own
swap). A record that finds no admissible partner (a *leftover*) is handled by ``unpaired``
(:func:`anonymize_partswap`; :mod:`._moves`, :mod:`.gifts`). The engine, shared with
FullSwap, is :mod:`._pairing`.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4.1-4.3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphanon.algorithms.swapping._declared import _MEANINGS, _PAIR_CONSTRAINTS, _swap_declaration
from graphanon.algorithms.swapping._pairing import _swap
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import validate_params

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.release.perturbed import PerturbedRelease
    from graphanon.utils.progress import ProgressCallback
    from graphanon.utils.randomness import RandomLike

__all__ = ["anonymize_partswap"]


@validate_params(_PAIR_CONSTRAINTS, meanings=_MEANINGS)
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
        them (:mod:`graphanon.algorithms.swapping.gifts`; removed only when no row can take them).
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



PARTSWAP = _swap_declaration("partswap", anonymize_partswap, "PartSwap: swap each tendency's items with the least "
                             "similar record (Gunawan & Mambo)", visit=True,
                             less_suppression="fewer categories (--param categories=...), or -a fullswap")
