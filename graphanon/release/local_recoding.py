"""Local recoding: each published record is a multiset of taxonomy nodes.

Unlike a global recoding, the same original item may be published as itself
in one record and as an ancestor in another; records of a group are published
identically. Two readings of a published node exist in the literature and a
release records which one it follows:

``"one"`` (Clump's least common generalization)
    Each copy of node ``x`` stands for exactly one original item under ``x``,
    distinct copies for distinct items; other items of the record were
    suppressed.
``"some"`` (He & Naughton's Partition)
    The nodes of a record are disjoint subtrees; node ``x`` stands for a
    non-empty set of the record's items under ``x``, and no item was
    suppressed -- except in an empty published record, which may stand for
    any record (all its items suppressed).

Possible worlds (COUNT estimation)
----------------------------------
A copy-count ``n`` of a node with ``s`` leaves holds each leaf with
probability ``q = min(1, n/s)`` in the ``"one"`` reading (a uniform
``n``-subset) and ``q = 2^(s-1)/(2^s - 1)`` in the ``"some"`` reading (a
uniform non-empty subset). A leaf under several published nodes of a record
is present unless all of them miss it: ``p = 1 - prod (1 - q_x)``. Leaves
are then taken as independent: marginals (and so single-item counts) are
exact under this model, joint probabilities are the product of marginals
(exact for items published as themselves). Suppressed items are read as
absent.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntRows
from graphanon.release.base import Release
from graphanon.release.shared import json_items, json_labels, match_digraph, permute_rows
from graphanon.utils.labels import display_label

if TYPE_CHECKING:  # networkx: for the match_graph annotation; loaded when a match graph is built
    import networkx as nx

    from graphanon.data import TransactionData

__all__ = ["LocalRecoding", "PublishedNode", "local_recoding_from_counts", "records_fitting"]

READINGS = ("one", "some")


@dataclass(frozen=True)
class PublishedNode:
    """A taxonomy node a local recoding publishes.

    Attributes
    ----------
    label : str or int
        The node's name.
    members : tuple
        The taxonomy leaves under it (public, like the taxonomy: never a list
        derived from the data, which would name items suppressed everywhere).
    leaves : int
        Number of taxonomy leaves under it (LM numerator plus one).
    """

    label: Hashable
    members: tuple
    leaves: int


class LocalRecoding(Release):
    """A local recoding into groups of identical published records.

    Parameters
    ----------
    nodes : sequence of PublishedNode
        The published vocabulary (distinct labels).
    records : sparse matrix, shape (n_records, n_nodes), integer
        ``records[j, x]`` copies of node ``x`` in published record ``j``.
    universe : int
        Leaves of the taxonomy (LM denominator plus one).
    reading : {"one", "some"}
        What a published node stands for (module notes).
    algorithm, params :
        Provenance.
    labels : sequence, optional
        Published per-record sensitive labels (they travel with their rows).

    Examples
    --------
    >>> nodes = [PublishedNode("Fruit", ("Apple", "Orange"), 2), PublishedNode("Beef", ("Beef",), 1)]
    >>> rel = LocalRecoding(nodes=nodes, records=[[1, 1], [1, 1]], universe=3)
    >>> print(rel.to_text())
    p1: Fruit Beef
    p2: Fruit Beef
    >>> rel.estimate_count(["Apple"]), rel.estimate_count(["Beef"], ["Orange"])
    (1.0, 1.0)
    """

    kind = "local_recoding"

    def __init__(
        self,
        *,
        nodes: Sequence[PublishedNode],
        records,
        universe: int,
        reading: str = "one",
        algorithm: str = "custom",
        params: dict | None = None,
        labels: Sequence[Hashable] | None = None,
    ) -> None:
        recs = sp.csr_array(records, dtype=np.int64)
        super().__init__(algorithm=algorithm, params=params, n_records=recs.shape[0])
        if reading not in READINGS:
            raise ParameterError(f"reading must be one of {READINGS}, got {reading!r}")
        self.nodes = tuple(nodes)
        names = [nd.label for nd in self.nodes]
        if len(set(names)) != len(names):
            raise ParameterError("published node labels must be distinct")
        if recs.shape[1] != len(self.nodes):
            raise ParameterError(f"published records have {recs.shape[1]} columns for {len(self.nodes)} nodes")
        recs.eliminate_zeros()
        if recs.nnz and recs.data.min() < 0:
            raise ParameterError("copy counts of published nodes must be >= 0")
        recs.sort_indices()
        self.records = recs
        self.universe = int(universe)
        self.reading = reading
        self._cache: dict = {}
        self.labels = None if labels is None else tuple(labels)
        if self.labels is not None and len(self.labels) != self.n_records:
            raise ParameterError(f"{len(self.labels)} sensitive labels for {self.n_records} published records")

    # ------------------------------------------------------------------ views
    def render_record(self, i: int) -> str:
        """Text of published record ``i``.

        Its nodes, repeated by count, quoted as :func:`display_label` says.
        """
        r = self.records
        lo, hi = r.indptr[i], r.indptr[i + 1]
        return " ".join(
            display_label(self.nodes[x].label) for x, c in zip(r.indices[lo:hi], r.data[lo:hi]) for _ in range(int(c))
        )

    def group_ids(self) -> np.ndarray:
        """Group of each published row (rows with equal records share a group, numbered by first row)."""
        r = self.records
        seen: dict = {}
        out = np.empty(self.n_records, dtype=np.int64)
        for i in range(self.n_records):
            key = (r.indices[r.indptr[i] : r.indptr[i + 1]].tobytes(), r.data[r.indptr[i] : r.indptr[i + 1]].tobytes())
            out[i] = seen.setdefault(key, len(seen))
        return out

    def published_matrix(self) -> tuple[list, sp.csr_array]:
        """Published records as sets: the ``t``-th copy of node ``x`` is the item ``"x#t"`` (``"x"`` for t=1).

        Returns the labels and a boolean CSR matrix; the input of k^m audits.
        """
        r = self.records
        col: dict = {}
        labels: list = []
        rows: list = []
        cols: list = []
        for i in range(self.n_records):
            for x, c in zip(r.indices[r.indptr[i] : r.indptr[i + 1]], r.data[r.indptr[i] : r.indptr[i + 1]]):
                for t in range(int(c)):
                    key = (int(x), t)
                    if key not in col:
                        col[key] = len(labels)
                        lab = self.nodes[int(x)].label
                        labels.append(lab if t == 0 else f"{lab}#{t + 1}")
                    rows.append(i)
                    cols.append(col[key])
        m = sp.csr_array(
            (np.ones(len(rows), bool), (np.array(rows, np.int64), np.array(cols, np.int64))),
            shape=(self.n_records, len(labels)),
        )
        m.sort_indices()
        return labels, m

    # ------------------------------------------------------------------ structure over items
    def member_matrix(self, items: Sequence[Hashable]) -> sp.csr_array:
        """``(len(items), n_nodes)`` int64 incidence.

        ``[j, x] = 1`` when item ``j`` is under published node ``x``.
        """
        pos = {x: j for j, x in enumerate(items)}
        rows, cols = [], []
        for g, nd in enumerate(self.nodes):
            for m in nd.members:
                if m in pos:
                    rows.append(pos[m])
                    cols.append(g)
        return sp.csr_array(
            (np.ones(len(rows), np.int64), (np.array(rows, np.int64), np.array(cols, np.int64))),
            shape=(len(items), len(self.nodes)),
        )

    def _containment(self) -> sp.csr_array:
        """``[y, x] = 1`` when members(y) is a subset of members(x)."""
        if "contain" not in self._cache:
            sets = [frozenset(nd.members) for nd in self.nodes]
            rows, cols = [], []
            for y, sy in enumerate(sets):
                for x, sx in enumerate(sets):
                    if sy <= sx:
                        rows.append(y)
                        cols.append(x)
            self._cache["contain"] = sp.csr_array(
                (np.ones(len(rows), np.int64), (rows, cols)), shape=(len(sets), len(sets))
            )
        return self._cache["contain"]

    # ------------------------------------------------------------------ queries
    def _log_miss(self) -> sp.csc_array:
        """Per row and node: ``log(1 - q)``, ``q`` the chance a given leaf is held (module notes)."""
        if "logmiss" not in self._cache:
            r = self.records
            leaves = np.array([max(nd.leaves, 1) for nd in self.nodes], dtype=float)[r.indices]
            if self.reading == "one":
                q = np.minimum(1.0, r.data / leaves)
            else:
                q = 1.0 / (2.0 - np.exp2(1.0 - leaves))  # 2^(s-1) / (2^s - 1), stable for large s
            with np.errstate(divide="ignore"):
                vals = np.log1p(-q)
            self._cache["logmiss"] = sp.csr_array((vals, r.indices, r.indptr), shape=r.shape).tocsc()
        return self._cache["logmiss"]

    def _presence(self, item: Hashable) -> np.ndarray:
        """Probability that each published row holds ``item``."""
        if "under" not in self._cache:
            under_of: dict = {}
            for g, nd in enumerate(self.nodes):
                for m in nd.members:
                    under_of.setdefault(m, []).append(g)
            self._cache["under"] = under_of
        under = self._cache["under"].get(item, ())
        if not under:
            return np.zeros(self.n_records)
        L = self._log_miss()
        total = np.zeros(self.n_records)
        for g in under:
            lo, hi = L.indptr[g], L.indptr[g + 1]
            total[L.indices[lo:hi]] += L.data[lo:hi]
        return -np.expm1(total)

    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Records holding every ``include`` item and no ``exclude`` item, expected over the possible worlds."""
        include, exclude = set(include), set(exclude)
        if include & exclude:
            return 0.0
        prob = np.ones(self.n_records)
        for it in include:
            prob *= self._presence(it)
        for it in exclude:
            prob *= 1.0 - self._presence(it)
        return float(prob.sum())

    # ------------------------------------------------------------------ matching
    def requirement(self) -> sp.csr_array:
        """Per row and published node of the row: items of the original record needed under that node.

        ``"one"``: the copies of the node and of the nodes inside it (Hall's
        condition on the laminar subtrees); ``"some"``: 1.
        """
        r = sp.csr_array(self.records, dtype=np.int64)
        if self.reading == "some":
            return sp.csr_array((np.ones(r.nnz, np.int64), r.indices, r.indptr), shape=r.shape)
        full = sp.csr_array(r @ self._containment())
        # keep only the row's own nodes
        mask = sp.csr_array((np.ones(r.nnz, np.int64), r.indices, r.indptr), shape=r.shape)
        out = sp.csr_array(full.multiply(mask))
        out.sort_indices()
        return out

    def _match_sets(self, original: TransactionData):
        if original.n_records != self.n_records:
            raise ParameterError(
                f"the original data has {original.n_records} records but the release {self.n_records}"
            )
        A = sp.csr_array(original.matrix.astype(np.int64) @ self.member_matrix(original.items))
        lengths = np.diff(original.matrix.indptr)
        R = self.requirement()
        groups = self.group_ids()
        first = np.unique(groups, return_index=True)[1]
        members = np.argsort(groups, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(groups))]
        C = A.tocsc()
        out = []
        for j in first:
            cols = R.indices[R.indptr[j] : R.indptr[j + 1]]
            need = R.data[R.indptr[j] : R.indptr[j + 1]]
            recs = records_fitting(A, C, lengths, cols, need, cover=self.reading == "some" and len(cols) > 0)
            out.append((members[bounds[groups[j]] : bounds[groups[j] + 1]], recs))
        return out

    def match_counts(self, original: TransactionData) -> np.ndarray:
        """Per original record, the number of published rows it may be.

        Complexity: O(groups * n) -- one vectorized pass per distinct published record.
        """
        counts = np.zeros(original.n_records, dtype=np.int64)
        for rows, recs in self._match_sets(original):
            counts[recs] += len(rows)
        return counts

    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000) -> nx.DiGraph:
        """Bipartite graph: original record ``i`` -> published row ``j`` when ``j`` may stand for ``i``."""
        sets = self._match_sets(original)
        n_edges = sum(len(a) * len(b) for a, b in sets)
        edges = ((i, j) for rows, recs in sets for i in recs for j in rows)
        return match_digraph(self.n_records, self.n_records, edges, n_edges=n_edges, max_edges=max_edges)

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        self.records, self.labels = permute_rows(self.records, self.labels, order)
        self._cache.pop("logmiss", None)

    def _payload(self) -> dict:
        r = self.records
        return {
            "universe": self.universe,
            "reading": self.reading,
            "nodes": json_items(self.nodes, "published node"),
            # a node held c times is listed c times
            "records": IntRows(np.r_[0, np.cumsum(r.data, dtype=np.int64)][r.indptr],
                               np.repeat(r.indices, r.data.astype(np.int64))),
            "labels": json_labels(self.labels),
        }

    @classmethod
    def _from_payload(cls, payload, *, algorithm, params, n_records) -> LocalRecoding:
        try:
            nodes = [PublishedNode(d["label"], tuple(d["members"]), int(d["leaves"])) for d in payload["nodes"]]
            rows = payload["records"]
            if len(rows) != n_records:
                raise ReleaseFormatError(f"{len(rows)} published records for n_records={n_records}")
            flat = np.array([x for row in rows for x in row], dtype=np.int64)
            if flat.size and (flat.min() < 0 or flat.max() >= len(nodes)):
                raise ReleaseFormatError("a record refers to a published node that does not exist")
            ridx = np.repeat(np.arange(len(rows)), [len(row) for row in rows])
            recs = sp.csr_array((np.ones(len(flat), np.int64), (ridx, flat)), shape=(len(rows), len(nodes)))
            recs.sum_duplicates()
            return cls(
                nodes=nodes, records=recs, universe=payload["universe"], reading=payload.get("reading", "one"),
                algorithm=algorithm, params=params, labels=payload.get("labels"),
            )
        except (KeyError, TypeError) as exc:
            raise ReleaseFormatError(f"malformed local_recoding release: missing or bad field {exc}") from None
        except ParameterError as exc:
            raise ReleaseFormatError(f"malformed local_recoding release: {exc}") from None


def records_fitting(A: sp.csr_array, C: sp.csc_array, lengths: np.ndarray, cols, need, *, cover: bool) -> np.ndarray:
    """Records ``r`` with ``A[r, cols] >= need`` (and, with ``cover``, ``sum A[r, cols] == lengths[r]``).

    ``A`` holds per record the items under each published node (``C``: the
    same as CSC, built once by the caller). Candidates
    come from the column with the fewest records, so a pattern of rare
    nodes costs little. Complexity: O(nnz(A) once for the column view +
    candidates * len(cols)).
    """
    n = A.shape[0]
    if len(cols) == 0:
        return np.arange(n) if not cover else np.flatnonzero(lengths == 0)
    sizes = np.diff(C.indptr)[cols]
    x0 = int(np.argmin(sizes))
    c0 = cols[x0]
    rows = C.indices[C.indptr[c0] : C.indptr[c0 + 1]]
    rows = np.sort(rows[C.data[C.indptr[c0] : C.indptr[c0 + 1]] >= need[x0]])
    if len(rows) == 0:
        return rows
    have = np.asarray(A[rows][:, np.asarray(cols)].toarray())
    ok = np.all(have >= np.asarray(need)[None, :], axis=1)
    if cover:
        ok &= have.sum(axis=1) == lengths[rows]
    return rows[ok]


def local_recoding_from_counts(index, data, node_counts, *, reading: str, algorithm: str, params: dict) -> LocalRecoding:
    """A row-aligned :class:`LocalRecoding` from per-record copy counts over all taxonomy nodes.

    Parameters
    ----------
    index : graphanon.graphs.lcg.NodeIndex
        The taxonomy as arrays, aligned with ``data``'s items.
    node_counts : sparse matrix, shape (n_records, index.n_nodes)
        Copies of each taxonomy node in each record's published record.
    """
    counts = sp.csr_array(node_counts, dtype=np.int64)
    counts.eliminate_zeros()
    used = np.unique(counts.indices)
    remap = np.full(index.n_nodes, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    # members are the taxonomy's leaves under the node (public), not the data's items: a
    # data-derived list would name items that every record had suppressed
    tax = index.taxonomy
    nodes = [
        PublishedNode(
            index.nodes[x], tuple(tax.leaves_under(index.nodes[x])), int(index.leaves[x])
        )
        for x in used
    ]
    recs = sp.csr_array((counts.data, remap[counts.indices], counts.indptr), shape=(counts.shape[0], len(used)))
    return LocalRecoding(
        nodes=nodes, records=recs, universe=index.universe, reading=reading, algorithm=algorithm, params=params,
        labels=data.labels,
    )
