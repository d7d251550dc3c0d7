"""FullSwap: PartSwap plus full swapping of the records PartSwap cannot touch.

Records of length > 1 whose items all lie in one category are paired by PartSwap's rule
(different category, least similarity -- always 0, categories being disjoint) and exchange
all their items. The engine, shared with PartSwap, is :mod:`._pairing`.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4.4.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphanon.algorithms.swapping._declared import _MEANINGS, _PAIR_CONSTRAINTS, _swap_declaration
from graphanon.algorithms.swapping._pairing import _swap
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.params import validate_params

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.release.perturbed import PerturbedRelease
    from graphanon.utils.progress import ProgressCallback
    from graphanon.utils.randomness import RandomLike

__all__ = ["anonymize_fullswap"]


@validate_params(_PAIR_CONSTRAINTS, meanings=_MEANINGS)
def anonymize_fullswap(data: TransactionData, *, categories: ItemGroups, visit: str = "random", spread: int = 1,
                       unpaired: str = "splice",
                       rng: RandomLike = None, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """FullSwap: PartSwap plus full exchange between single-category records (Sec. 4.4).

    Parameters, Returns, Complexity: as :func:`~graphanon.algorithms.anonymize_partswap`;
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



FULLSWAP = _swap_declaration("fullswap", anonymize_fullswap, "FullSwap: PartSwap plus full swaps of single-category "
                             "records", visit=True, less_suppression="fewer categories (--param categories=...)")
