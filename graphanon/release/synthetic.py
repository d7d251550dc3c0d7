"""Synthetic releases: a set-valued dataset drawn by a differentially private mechanism.

A :class:`SyntheticRelease` is what DiffPart
(:func:`graphanon.algorithms.dp.anonymize_diffpart`) publishes: distinct
itemsets over a **public item universe**, each with a noisy number of
copies. Its rows are synthetic -- no row stands for a particular person --
so, unlike every other release kind, it carries no data fingerprint, no
private link and no exact count of anything: every number in the file is an
output of the mechanism (the noisy counts, and ``n_records``, their sum) or
a public setting (epsilon, the mechanism's parameters, the universe).

What the file holds (``graphanon-release/2``, kind ``synthetic``): the
universe (``items``, every item of it, in the taxonomy's leaf order -- not
the items observed in the data), the distinct itemsets as lists of indices
into ``items`` in a canonical order (sorted by content), their noisy counts,
the method and its parameters (``epsilon``, ``mechanism``, the neighbouring
relation and the method's settings).

COUNT queries are answered by the synthetic data as is (one world, every
copy of an itemset counted). A row may stand for every original record:
:meth:`SyntheticRelease.match_counts` is the number of rows for each record
and the match graph is complete -- the DP guarantee, not a match graph, is
what protects a person (``docs/dp.md``).

Examples
--------
>>> import scipy.sparse as sp
>>> rel = SyntheticRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 1, 0], [0, 0, 1]]), counts=[3, 2],
...                        algorithm="custom")
>>> rel.n_records, rel.estimate_count(["a"]), rel.estimate_count([], ["c"]), rel.render_record(0)
(5, 3.0, 3.0, 'c')
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.data import TransactionData
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntRows
from graphanon.release.base import Release
from graphanon.release.itemsets import check_permutation, universe_itemsets
from graphanon.release.shared import json_label, match_digraph
from graphanon.utils.labels import display_label

if TYPE_CHECKING:  # networkx: for the match_graph annotation; loaded when a match graph is built
    import networkx as nx

__all__ = ["SyntheticRelease"]


class SyntheticRelease(Release):
    """Distinct itemsets over a public universe with their (noisy) numbers of copies.

    Parameters
    ----------
    items : sequence of item labels
        The public universe, every item of it.
    itemsets : sparse matrix, shape (n_itemsets, len(items))
        The distinct published itemsets (rows; duplicates are merged, their
        counts added).
    counts : array of int
        Copies of each itemset (>= 1; itemsets with 0 are dropped).
    algorithm, params :
        Provenance (a DP method states ``epsilon`` and ``mechanism``).

    Notes
    -----
    Row ``i`` of the synthetic dataset is a copy of the itemset whose
    cumulative count range holds ``i``; ``n_records`` is the sum of counts.
    """

    kind = "synthetic"

    def __init__(self, *, items: Sequence[Hashable], itemsets, counts, algorithm: str = "custom",
                 params: dict | None = None) -> None:
        c = np.asarray(counts, dtype=np.int64).ravel()
        self.items, S = universe_itemsets(items, itemsets, len(c), "counts")
        if len(c) and c.min() < 0:
            raise ParameterError("itemset counts must be >= 0")
        S, c = _canonical(S, c)
        super().__init__(algorithm=algorithm, params=params, n_records=int(c.sum()))
        self.itemsets = S
        self.counts = c
        self._index = {x: j for j, x in enumerate(self.items)}
        self._ends = np.cumsum(c)

    # ------------------------------------------------------------------ views
    def published_data(self):
        """The synthetic rows as :class:`~graphanon.data.TransactionData` (each itemset repeated by its count)."""
        rows = sp.csr_array(self.itemsets[np.repeat(np.arange(len(self.counts)), self.counts)])
        return TransactionData(rows, self.items, record_ids=self.pseudonyms, name=f"release of {self.algorithm}")

    def render_record(self, i: int) -> str:
        """Text of synthetic row ``i``: its itemset's items."""
        if not 0 <= i < self.n_records:
            raise IndexError(f"row {i} of {self.n_records}")
        s = int(np.searchsorted(self._ends, i, side="right"))
        S = self.itemsets
        return " ".join(display_label(self.items[j]) for j in S.indices[S.indptr[s] : S.indptr[s + 1]])

    # ------------------------------------------------------------------ queries
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Synthetic rows holding every ``include`` item and no ``exclude`` item."""
        include, exclude = set(include), set(exclude)
        if include & exclude or any(x not in self._index for x in include):
            return 0.0
        S = self.itemsets
        keep = np.ones(S.shape[0], dtype=bool)
        if include:
            cols = [self._index[x] for x in include]
            keep &= np.asarray(S[:, cols].sum(axis=1)).ravel() == len(cols)
        ex = [self._index[x] for x in exclude if x in self._index]
        if ex:
            keep &= np.asarray(S[:, ex].sum(axis=1)).ravel() == 0
        return float(self.counts[keep].sum())

    # ------------------------------------------------------------------ matching
    def match_counts(self, original: TransactionData) -> np.ndarray:
        """Every synthetic row may stand for every record: ``n_records`` per record."""
        return np.full(original.n_records, self.n_records, dtype=np.int64)

    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000) -> nx.DiGraph:
        """The complete bipartite graph (refused beyond ``max_edges``)."""
        n, m = original.n_records, self.n_records
        edges = ((i, j) for i in range(n) for j in range(m))
        return match_digraph(n, m, edges, n_edges=n * m, max_edges=max_edges,
                             note=" (a synthetic release's is complete)")

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        """Synthetic rows are copies of itemsets stored in canonical order: a permutation changes nothing stored."""
        check_permutation(order, self.n_records)

    def _payload(self) -> dict:
        S = self.itemsets
        return {
            "items": [json_label(x, "item") for x in self.items],
            "itemsets": IntRows(S.indptr, S.indices),
            "counts": self.counts.tolist(),
        }

    @classmethod
    def _from_payload(cls, payload, *, algorithm, params, n_records) -> SyntheticRelease:
        items, rows, counts = payload.get("items"), payload.get("itemsets"), payload.get("counts")
        if not isinstance(items, list) or not isinstance(rows, list) or not isinstance(counts, list):
            raise ReleaseFormatError("a synthetic release needs 'items', 'itemsets' and 'counts' lists")
        if any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in counts):
            raise ReleaseFormatError("synthetic itemset counts must be whole numbers >= 1")
        d = len(items)
        lengths = [len(r) for r in rows]
        flat = np.fromiter((j for r in rows for j in r), dtype=np.int64, count=sum(lengths))
        if len(flat) and (flat.min() < 0 or flat.max() >= d):
            raise ReleaseFormatError(f"an itemset names an item index outside 0..{d - 1}")
        ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        S = sp.csr_array((np.ones(len(flat), bool), flat, ptr), shape=(len(rows), d))
        rel = cls(items=items, itemsets=S, counts=counts, algorithm=algorithm, params=params)
        if rel.n_records != n_records:
            raise ReleaseFormatError(f"n_records={n_records} but the counts sum to {rel.n_records}")
        return rel


def _canonical(S: sp.csr_array, c: np.ndarray) -> tuple[sp.csr_array, np.ndarray]:
    """Equal itemsets merged (counts added), zero counts dropped, itemsets sorted by (length, items)."""
    keys = [tuple(S.indices[S.indptr[i] : S.indptr[i + 1]].tolist()) for i in range(S.shape[0])]
    merged: dict[tuple, int] = {}
    for key, n in zip(keys, c.tolist()):
        merged[key] = merged.get(key, 0) + n
    rows = sorted((k for k, n in merged.items() if n > 0), key=lambda k: (len(k), k))
    ptr = np.concatenate([[0], np.cumsum([len(k) for k in rows])]).astype(np.int64)
    flat = np.fromiter((j for k in rows for j in k), dtype=np.int64, count=int(ptr[-1]))
    out = sp.csr_array((np.ones(len(flat), bool), flat, ptr), shape=(len(rows), S.shape[1]))
    return out, np.asarray([merged[k] for k in rows], dtype=np.int64)
