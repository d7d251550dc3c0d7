"""PartSupp (after Jia et al. 2014): each record with a tendency loses its heaviest category's items.

A baseline of Gunawan & Mambo (2019).

References
----------
Jia, X. et al. rho-uncertainty, DASFAA 2014 (partial suppression).
Gunawan, D., Mambo, M. Future Internet 11(6):138, 2019, Sec. 5 (the baselines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.swapping._declared import _MEANINGS, _swap_declaration
from graphanon.algorithms.swapping.tendency import tendencies
from graphanon.algorithms.swapping.trace import SwapTrace
from graphanon.release.perturbed import PerturbedRelease
from graphanon.release.publish import publish
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.params import COMMON, validate_params
from graphanon.utils.progress import report

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["anonymize_partsupp"]


@validate_params({"categories": [ItemGroups], **COMMON}, meanings=_MEANINGS)
def anonymize_partsupp(data: TransactionData, *, categories: ItemGroups, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """PartSupp: each record with a tendency loses its heaviest category's items.

    Parameters
    ----------
    data, categories : as :func:`~graphanon.algorithms.anonymize_partswap`
    unsafe_secret_seed, progress : as :func:`~graphanon.algorithms.anonymize_partswap`

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


PARTSUPP = _swap_declaration("partsupp", anonymize_partsupp, "PartSupp baseline: remove each record's heaviest "
                             "category", visit=False,
                             less_suppression="-a partswap (it swaps items between records instead of removing them)")
