"""Itemset releases: frequent itemsets with noisy supports, from a differentially private mechanism.

An :class:`ItemsetRelease` is what PrivBasis
(:func:`graphanon.algorithms.dp.anonymize_privbasis`) publishes: the ``k``
itemsets its mechanism ranks highest, over a **public item universe**, each
with a noisy support (a noisy number of records holding the itemset). It
holds no rows that stand for records, no data fingerprint, no private link
and no exact count of anything: every number in the file is an output of the
mechanism (the itemsets and their noisy supports) or a public setting
(epsilon, the mechanism and its parameters, the universe).

What the file holds (``graphanon-release/3``, kind ``itemsets``): the
universe (``items``, every item of it -- not the items observed in the
data), the released itemsets as lists of indices into ``items``, ranked by
noisy support (ties: shorter first, then by item positions), their noisy
supports (floats: a combination of noisy bin counts), the method and its
parameters. ``n_records`` is the number of released itemsets (the rows of
this release), not a number of records of the data. No support is given as a
fraction: that would need the number of records, which PrivBasis neither
computes nor spends budget on.

COUNT queries: a query "records holding every ``include`` item" is answered
by the released itemset equal to ``include`` (its noisy support); an
``exclude`` part by inclusion-exclusion over released itemsets. A query the
release holds no answer for raises :class:`~graphanon.errors.ParameterError`
naming the missing itemset (a top-k list says nothing exact about the
others). No published row stands for a record: the match counts are zero and
the match graph has no edge.

Examples
--------
>>> import scipy.sparse as sp
>>> rel = ItemsetRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 1, 0], [1, 0, 0], [0, 1, 0]]),
...                      supports=[40.5, 97.0, 60.25], algorithm="custom")
>>> rel.render_record(0), rel.estimate_count(["a", "b"]), rel.estimate_count(["a"], ["b"])
('a  (noisy support 97)', 40.5, 56.5)
>>> rel.estimate_count(["c"])
Traceback (most recent call last):
...
graphanon.errors.ParameterError: the itemset release holds no noisy support for {c}; it publishes 3 itemsets (its top-k), not the others
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.data import TransactionData
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntRows
from graphanon.release.base import Release
from graphanon.release.shared import json_label, match_digraph
from graphanon.utils.labels import display_label

if TYPE_CHECKING:  # networkx: for the match_graph annotation; loaded when a match graph is built
    import networkx as nx

__all__ = ["ItemsetRelease"]


class ItemsetRelease(Release):
    """Itemsets over a public universe with their noisy supports (a DP top-k list).

    Parameters
    ----------
    items : sequence of item labels
        The public universe, every item of it.
    itemsets : sparse matrix, shape (n_itemsets, len(items))
        The released itemsets (rows, distinct, non-empty).
    supports : array of float
        The noisy support of each itemset (a number of records, noisy; may
        be fractional or, for a weak itemset, negative).
    algorithm, params :
        Provenance (a DP method states ``epsilon`` and ``mechanism``).

    Notes
    -----
    The itemsets are stored ranked: by noisy support (highest first), then
    shorter first, then by their item positions.
    """

    kind = "itemsets"

    def __init__(self, *, items: Sequence[Hashable], itemsets, supports, algorithm: str = "custom",
                 params: dict | None = None) -> None:
        s = np.asarray(supports, dtype=np.float64).ravel()
        self.items, S = universe_itemsets(items, itemsets, len(s), "supports")
        if len(s) and not np.isfinite(s).all():
            raise ParameterError("itemset supports must be finite numbers")
        keys = [tuple(S.indices[S.indptr[i] : S.indptr[i + 1]].tolist()) for i in range(S.shape[0])]
        if any(not key for key in keys):
            raise ParameterError("a released itemset is empty")
        if len(set(keys)) != len(keys):
            raise ParameterError("an itemset is released twice")
        order = sorted(range(len(keys)), key=lambda i: (-s[i], len(keys[i]), keys[i]))
        super().__init__(algorithm=algorithm, params=params, n_records=len(keys))
        self.itemsets = _rows([keys[i] for i in order], len(self.items))
        self.supports = s[order] if len(order) else s
        self._index = {x: j for j, x in enumerate(self.items)}
        self._support = {keys[i]: float(s[i]) for i in order}

    # ------------------------------------------------------------------ views
    def itemset_supports(self) -> dict[frozenset, float]:
        """``frozenset of item labels -> noisy support``, in rank order."""
        S = self.itemsets
        return {frozenset(self.items[j] for j in S.indices[S.indptr[i] : S.indptr[i + 1]]): float(self.supports[i])
                for i in range(S.shape[0])}

    def render_record(self, i: int) -> str:
        """Text of released itemset ``i``: its items and noisy support."""
        if not 0 <= i < self.n_records:
            raise IndexError(f"itemset {i} of {self.n_records}")
        S = self.itemsets
        names = " ".join(display_label(self.items[j]) for j in S.indices[S.indptr[i] : S.indptr[i + 1]])
        return f"{names}  (noisy support {float(self.supports[i]):g})"

    # ------------------------------------------------------------------ queries
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """The noisy support of ``include``; with ``exclude``, inclusion-exclusion over released itemsets.

        Raises
        ------
        ParameterError
            When an itemset the answer needs is not released.
        """
        include, exclude = set(include), set(exclude)
        if include & exclude:
            return 0.0
        if any(x not in self._index for x in include | exclude):
            return 0.0  # an item outside the public universe is held by no record
        total = 0.0
        ex = sorted(exclude, key=lambda x: self._index[x])
        for r in range(len(ex) + 1):
            for extra in combinations(ex, r):
                key = tuple(sorted(self._index[x] for x in (*include, *extra)))
                if not key:
                    raise ParameterError("a COUNT query of no include item needs the number of records, which an "
                                         "itemset release does not publish")
                if key not in self._support:
                    names = ", ".join(display_label(self.items[j]) for j in key)
                    raise ParameterError(
                        f"the itemset release holds no noisy support for {{{names}}}; it publishes "
                        f"{self.n_records} itemsets (its top-k), not the others"
                    )
                total += (-1) ** r * self._support[key]
        return float(total)

    # ------------------------------------------------------------------ matching
    def match_counts(self, original: TransactionData) -> np.ndarray:
        """No released row stands for a record: zero for every record."""
        return np.zeros(original.n_records, dtype=np.int64)

    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000) -> nx.DiGraph:
        """The bipartite graph with no edge (an itemset is no record's row)."""
        return match_digraph(original.n_records, self.n_records, (), n_edges=0, max_edges=max_edges)

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        """Itemsets are stored in rank order: a permutation changes nothing stored."""
        check_permutation(order, self.n_records)

    def _payload(self) -> dict:
        S = self.itemsets
        return {
            "items": [json_label(x, "item") for x in self.items],
            "itemsets": IntRows(S.indptr, S.indices),
            "supports": [float(x) for x in self.supports],
        }

    @classmethod
    def _from_payload(cls, payload, *, algorithm, params, n_records) -> ItemsetRelease:
        items, rows, supports = payload.get("items"), payload.get("itemsets"), payload.get("supports")
        if not isinstance(items, list) or not isinstance(rows, list) or not isinstance(supports, list):
            raise ReleaseFormatError("an itemset release needs 'items', 'itemsets' and 'supports' lists")
        if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) for x in supports):
            raise ReleaseFormatError("itemset supports must be finite numbers")
        d = len(items)
        if any(not isinstance(r, list) or not r for r in rows):
            raise ReleaseFormatError("each released itemset must be a non-empty list of item indices")
        flat = np.fromiter((j for r in rows for j in r), dtype=np.int64, count=sum(len(r) for r in rows))
        if len(flat) and (flat.min() < 0 or flat.max() >= d):
            raise ReleaseFormatError(f"an itemset names an item index outside 0..{d - 1}")
        if len(rows) != n_records:
            raise ReleaseFormatError(f"n_records={n_records} but the release holds {len(rows)} itemsets")
        try:
            return cls(items=items, itemsets=_rows([tuple(r) for r in rows], d), supports=supports,
                       algorithm=algorithm, params=params)
        except ParameterError as exc:
            raise ReleaseFormatError(str(exc)) from None


def universe_itemsets(items: Sequence[Hashable], itemsets, n_values: int, values: str) -> tuple[tuple, sp.csr_array]:
    """The universe and the boolean, sorted itemset rows of a release of itemsets over a public universe.

    Checks that the rows have one column per item, that there is one of
    ``values`` (their supports or counts, ``n_values`` of them) per row and
    that no item label is named twice; raises
    :class:`~graphanon.errors.ParameterError` otherwise.
    """
    S = sp.csr_array(itemsets)
    universe = tuple(items)
    if S.shape[1] != len(universe):
        raise ParameterError(f"the itemsets have {S.shape[1]} item columns for {len(universe)} items")
    if S.shape[0] != n_values:
        raise ParameterError(f"{S.shape[0]} itemsets for {n_values} {values}")
    if len(set(universe)) != len(universe):
        raise ParameterError("an item label appears twice in the release universe")
    S = sp.csr_array((np.ones(S.nnz, bool), S.indices, S.indptr), shape=S.shape)
    S.sum_duplicates()
    S.sort_indices()
    return universe, S


def check_permutation(order, n: int) -> None:
    """Refuse an ``order`` that is not a permutation of ``0..n-1`` (a release whose stored rows have no order)."""
    if sorted(np.asarray(order, dtype=np.int64).tolist()) != list(range(n)):
        raise ParameterError("order must be a permutation of the rows")


def _rows(keys: list[tuple[int, ...]], d: int) -> sp.csr_array:
    ptr = np.concatenate([[0], np.cumsum([len(k) for k in keys])]).astype(np.int64)
    flat = np.fromiter((j for k in keys for j in k), dtype=np.int64, count=int(ptr[-1]))
    return sp.csr_array((np.ones(len(flat), bool), flat, ptr), shape=(len(keys), d))
