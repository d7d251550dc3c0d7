"""A person's tendency: the category that dominates their record (Gunawan & Mambo 2019, Sec. 3-4).

With categories given as an :class:`~graphanon.taxonomy.ItemGroups` partition of the items:

* ``WR(t, g)`` -- the weight of category ``g`` in record ``t`` -- is the
  number of items of ``t`` in ``g`` (Eq. 4);
* ``MTV(t) = |t| / (number of categories present in t)`` (Eq. 5);
* record ``t`` *has a tendency* when some category has ``WR > MTV``; its
  *heaviest* category ``h(t)`` is the one of greatest ``WR`` (ties: the
  smallest category index, i.e. the first in ``groups.names``), and its
  *source items* ``S(t)`` are its items in ``h(t)``. A record in which every
  category weighs the same (a single category included) has no tendency.

Every method of :mod:`graphanon.algorithms.swapping` reads these weights.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 3 (Eqs. 4-5).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.taxonomy.categories import category_codes
from graphanon.taxonomy.tree import ItemGroups

__all__ = ["Tendency", "tendencies"]


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



def tendencies(data, categories: ItemGroups) -> Tendency:
    """:class:`Tendency` of every record of ``data`` under ``categories``."""
    return Tendency(data.matrix, category_codes(categories, data.items), len(categories))

