"""SplitPerson (after Adar 2007): one published row per (record, category present in it).

More rows than records; no item lost. A baseline of Gunawan & Mambo (2019).

References
----------
Adar, E. User 4XXXXX9: anonymizing query logs. WWW Query Log Workshop, 2007.
Gunawan, D., Mambo, M. Future Internet 11(6):138, 2019, Sec. 5 (the baselines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.swapping._declared import _MEANINGS, _swap_declaration
from graphanon.release.perturbed import PerturbedRelease, publish_split
from graphanon.taxonomy.categories import category_codes
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.params import COMMON, validate_params
from graphanon.utils.progress import report

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["anonymize_splitperson"]


@validate_params({"categories": [ItemGroups], **COMMON}, meanings=_MEANINGS)
def anonymize_splitperson(data: TransactionData, *, categories: ItemGroups, unsafe_secret_seed: int | None = None,
                          progress: ProgressCallback | None = None) -> PerturbedRelease:
    """SplitPerson: one published row per (record, category present in it).

    Parameters are those of :func:`~graphanon.algorithms.anonymize_partsupp`.

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


SPLITPERSON = _swap_declaration("splitperson", anonymize_splitperson, "SplitPerson baseline: one record per category "
                                "of each record", visit=False)
