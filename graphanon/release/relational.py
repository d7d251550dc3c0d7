"""Relational-transaction releases: generalized relational values beside generalized items.

A :class:`RelationalRelease` publishes, per row, the generalized values of the
quasi-identifier columns (text: a value, ``[lo-hi]``, a hierarchy node, or
``*``; :mod:`graphanon.relational.hierarchy`) and a set of published items
(taxonomy nodes, set labels ``(a,b)`` or original items). Rows with equal
relational values form a *relational group*; the items of a group were
recoded by one recoding (the group's transaction method run), and a label
means the same original items in every group (its ``members``: the union of
what it stands for over the groups).

Nothing else is saved: no cluster id, no merge order, no record order (the
rows are shuffled by :func:`~graphanon.release.publish.publish`), no name
of a suppressed item. The privacy model is (k, k^m)-anonymity
(``privacy_model = "rt"``): an adversary who knows a record's QI values and
up to ``m`` of its items finds at least ``k`` rows (Poulis et al., ECML PKDD
2013); :meth:`relational_rows` and :meth:`item_rows` are what the audit reads.

Examples
--------
>>> rel = RelationalRelease(
...     qi=("age", "gender"),
...     relational=[["[40-49]", "*"], ["[40-49]", "*"]],
...     published_items=[PublishedItem("Diabetes", ("250.0", "250.1"), 2)],
...     records=[[0], [0]],
...     universe=10,
... )
>>> rel.relational_rows(), rel.item_rows()
([('[40-49]', '*'), ('[40-49]', '*')], [{'Diabetes'}, {'Diabetes'}])
>>> rel.render_record(0)
'[40-49] * | Diabetes'
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import generalize_matrix
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntRows
from graphanon.release.base import Release
from graphanon.release.global_recoding import PublishedItem, read_recoding_payload, recoding_payload
from graphanon.release.shared import match_digraph, permute_rows
from graphanon.utils.labels import as_labels, display_published

if TYPE_CHECKING:
    import networkx as nx

    from graphanon.relational import RTData

__all__ = ["RelationalRelease"]


class RelationalRelease(Release):
    """A release of relational-transaction data: per row generalized QI values and published items.

    Parameters
    ----------
    qi : sequence of str
        The quasi-identifier columns, in order.
    relational : sequence of sequences of str, shape (n_records, len(qi))
        Per row, the published (generalized) value of each QI (or, from
        :meth:`from_codes` and loading, a pair ``(values per column, codes)``).
    published_items : sequence of PublishedItem
        The published item vocabulary (a label may appear in several
        relational groups; its members are the union over them).
    records : sparse matrix or list of lists of int, shape (n_records, n_published)
        The published items of each row.
    universe : int
        Leaves of the item universe (LM denominator plus one).
    n_suppressed : int, optional
        Items suppressed in some group (a count only).
    algorithm, params :
        Provenance.
    labels : sequence, optional
        Published per-row sensitive labels.
    """

    kind = "relational"
    privacy_model = "rt"

    def __init__(
        self,
        *,
        qi: Sequence[str],
        relational,
        published_items: Sequence[PublishedItem],
        records,
        universe: int,
        n_suppressed: int | None = None,
        algorithm: str = "custom",
        params: dict | None = None,
        labels: Sequence[Hashable] | None = None,
    ) -> None:
        self.qi = tuple(str(c) for c in qi)
        if not self.qi:
            raise ParameterError("a relational release needs at least one quasi-identifier column")
        if isinstance(relational, tuple) and len(relational) == 2 and isinstance(relational[1], np.ndarray):
            vocab, codes = relational  # (per-column sorted values, row codes): from_codes
            self.values: tuple[tuple[str, ...], ...] = tuple(tuple(v) for v in vocab)
            self.relational = np.asarray(codes, dtype=np.int64).reshape(-1, len(self.qi))
        else:
            rows = [tuple(str(v) for v in row) for row in relational]
            for i, row in enumerate(rows):
                if len(row) != len(self.qi):
                    raise ParameterError(f"relational row {i} has {len(row)} values for {len(self.qi)} columns {self.qi}")
            self.values = tuple(tuple(sorted({row[c] for row in rows})) for c in range(len(self.qi)))
            index = [{v: j for j, v in enumerate(vals)} for vals in self.values]
            self.relational = np.array([[index[c][row[c]] for c in range(len(self.qi))] for row in rows],
                                       dtype=np.int64).reshape(len(rows), len(self.qi))
        self.published_items = tuple(published_items)
        if isinstance(records, list):
            lengths = np.array([len(r) for r in records], dtype=np.int64)
            indptr = np.concatenate([[0], np.cumsum(lengths)])
            flat = np.array([g for r in records for g in r], dtype=np.int64)
            if flat.size and (flat.min() < 0 or flat.max() >= len(published_items)):
                raise ParameterError("a record refers to a published item that does not exist")
            records = sp.csr_array((np.ones(len(flat), bool), flat, indptr), shape=(len(records), len(published_items)))
        recs = sp.csr_array(records)
        super().__init__(algorithm=algorithm, params=params, n_records=recs.shape[0])
        if len(self.relational) != self.n_records:
            raise ParameterError(f"{len(self.relational)} relational rows for {self.n_records} published records")
        if recs.shape[1] != len(self.published_items):
            raise ParameterError(f"published records have {recs.shape[1]} item columns for "
                                 f"{len(self.published_items)} published items")
        recs = sp.csr_array((np.ones(recs.nnz, bool), recs.indices, recs.indptr), shape=recs.shape)
        recs.sort_indices()
        self.records = recs
        self.universe = int(universe)
        self.n_suppressed = n_suppressed
        self.labels = None if labels is None else tuple(labels)
        if self.labels is not None and len(self.labels) != self.n_records:
            raise ParameterError(f"{len(self.labels)} sensitive labels for {self.n_records} published records")

    @classmethod
    def from_codes(cls, *, qi: Sequence[str], values: Sequence[Sequence[str]], codes: np.ndarray,
                   **kwargs) -> RelationalRelease:
        """The release whose row ``i`` has the value ``values[c][codes[i, c]]`` in column ``c`` (vectorized).

        Only the values some row uses are kept in the published vocabulary.
        ``kwargs`` are the constructor's other arguments.
        """
        codes = np.asarray(codes, dtype=np.int64).reshape(-1, len(qi))
        vocab, rel_codes = [], np.empty_like(codes)
        for c in range(len(qi)):
            used, inverse = np.unique(codes[:, c], return_inverse=True)
            names = [str(values[c][j]) for j in used]
            order = np.argsort(names, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            vocab.append(tuple(names[j] for j in order))
            rel_codes[:, c] = rank[inverse.ravel()]
        return cls(qi=qi, relational=(vocab, rel_codes), **kwargs)

    # ------------------------------------------------------------------ the audit's view
    def relational_rows(self) -> list[tuple[str, ...]]:
        """Per published row, its generalized QI values (text; what ``audit_rt`` reads)."""
        return [tuple(self.values[c][j] for c, j in enumerate(row)) for row in self.relational.tolist()]

    def item_rows(self) -> list[set[str]]:
        """Per published row, the labels of its published items (what ``audit_rt`` reads)."""
        r, items = self.records, self.published_items
        return [{str(items[g].label) for g in r.indices[r.indptr[i]: r.indptr[i + 1]]} for i in range(self.n_records)]

    def groups(self) -> list[np.ndarray]:
        """The relational groups: row positions of each distinct relational tuple (in tuple order)."""
        if not self.n_records:
            return []
        _, inverse = np.unique(self.relational, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        order = np.argsort(inverse, kind="stable")
        bounds = np.flatnonzero(np.diff(inverse[order])) + 1
        return np.split(order, bounds)

    def render_record(self, i: int) -> str:
        """Text of row ``i``: its QI values, ``|``, its published items."""
        r, items = self.records, self.published_items
        rel = " ".join(self.values[c][j] for c, j in enumerate(self.relational[i]))
        its = " ".join(display_published(items[g].label, items[g].members)
                       for g in r.indices[r.indptr[i]: r.indptr[i + 1]])
        return f"{rel} | {its}".rstrip()

    # ------------------------------------------------------------------ queries
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Rows holding every ``include`` item and no ``exclude`` item, expected over the possible worlds.

        A published item of ``s`` members stands for each non-empty subset of
        them with probability ``1 / (2^s - 1)``, independently (as
        :class:`~graphanon.release.GlobalRecoding`); within a row each
        original item is a member of at most one of its published items.
        """
        include, exclude = set(as_labels(include)), set(as_labels(exclude))
        if include & exclude:
            return 0.0
        n = self.n_records
        prob = np.ones(n)
        csc = self.records.tocsc()
        member_of: dict[str, list[int]] = {}
        for g, pi in enumerate(self.published_items):
            for x in pi.members:
                member_of.setdefault(str(x), []).append(g)
        touched: dict[int, list[int]] = {}
        for x in include:
            covered = np.zeros(n, dtype=bool)
            for g in member_of.get(str(x), []):
                covered[csc.indices[csc.indptr[g]: csc.indptr[g + 1]]] = True
                touched.setdefault(g, [0, 0])[0] += 1
            prob[~covered] = 0.0
        for x in exclude:
            for g in member_of.get(str(x), []):
                touched.setdefault(g, [0, 0])[1] += 1
        for g, (n_inc, n_exc) in touched.items():
            s = len(self.published_items[g].members)
            rows = csc.indices[csc.indptr[g]: csc.indptr[g + 1]]
            free = s - n_inc - n_exc
            hits = 2.0 ** max(free, 0) - (1.0 if n_inc == 0 else 0.0)
            prob[rows] *= max(hits, 0.0) / (2.0 ** s - 1.0)
        return float(prob.sum())

    # ------------------------------------------------------------------ matching
    def _matches(self, original: RTData):
        """Per relational group: (its rows, the original records it may hold, each one's matching rows)."""
        from graphanon.relational import RTData

        if not isinstance(original, RTData):
            raise ParameterError(
                "a relational release is matched against relational-transaction data (graphanon.relational.RTData: "
                "the transactions with their relational table), not against the transactions alone"
            )
        if original.n_records != self.n_records:
            raise ParameterError(f"the original data has {original.n_records} records but the release {self.n_records}")
        if tuple(original.qi) != self.qi:
            raise ParameterError(f"the release's quasi-identifiers are {self.qi}, the data's {tuple(original.qi)}")
        codes = original.qi_codes()
        tx = original.transactions
        item_pos = {str(x): j for j, x in enumerate(tx.items)}
        r = self.records
        for rows in self.groups():
            first = int(rows[0])
            cand = np.ones(original.n_records, dtype=bool)
            for c, name in enumerate(self.qi):
                h = original.hierarchies[name]
                node = h.node(self.values[c][self.relational[first, c]])
                cand &= h.covers_codes(node, codes[:, c])
            cand_idx = np.flatnonzero(cand)
            vocab = np.unique(r[rows].indices)
            code = np.full(tx.n_items, -1, dtype=np.int64)
            for g in vocab.tolist():
                for x in self.published_items[g].members:
                    j = item_pos.get(str(x))
                    if j is not None:
                        code[j] = g
            recoded = generalize_matrix(tx.matrix[cand_idx], code, len(self.published_items))
            by_key: dict[bytes, list[int]] = {}
            for j in rows.tolist():
                by_key.setdefault(r.indices[r.indptr[j]: r.indptr[j + 1]].tobytes(), []).append(j)
            yield cand_idx, [by_key.get(np.sort(recoded.indices[recoded.indptr[i]: recoded.indptr[i + 1]]).tobytes(),
                                        []) for i in range(len(cand_idx))]

    def match_counts(self, original: RTData) -> np.ndarray:  # type: ignore[override]  # needs the relational table
        """Per original record, how many published rows may be it (QI values covered, items recoded equal).

        ``original`` is the :class:`~graphanon.relational.RTData` the release
        was made from (with its hierarchies).
        """
        out = np.zeros(self.n_records, dtype=np.int64)
        for cand, hits in self._matches(original):
            out[cand] += np.array([len(h) for h in hits], dtype=np.int64)
        return out

    def match_graph(self, original: RTData, *, max_edges: int = 2_000_000) -> nx.DiGraph:  # type: ignore[override]
        """Bipartite graph: record ``i`` -> row ``j`` when ``j`` may be ``i`` (see :meth:`match_counts`)."""
        edges = [(int(i), j) for cand, hits in self._matches(original) for i, h in zip(cand, hits) for j in h]
        return match_digraph(self.n_records, self.n_records, edges, n_edges=len(edges), max_edges=max_edges)

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        self.records, self.labels = permute_rows(self.records, self.labels, order)
        self.relational = self.relational[np.asarray(order, dtype=np.int64)]

    def _payload(self) -> dict:
        q = len(self.qi)
        return {
            "qi": list(self.qi),
            "relational_values": [list(v) for v in self.values],
            "relational": IntRows(np.arange(self.n_records + 1) * q, self.relational.ravel()),
            **recoding_payload(self),
        }

    @classmethod
    def _from_payload(cls, payload, *, algorithm, params, n_records) -> RelationalRelease:
        try:
            qi = [str(c) for c in payload["qi"]]
            values = [[str(v) for v in col] for col in payload["relational_values"]]
            if len(values) != len(qi):
                raise ReleaseFormatError(f"{len(values)} value lists for {len(qi)} quasi-identifiers")
            rel = payload["relational"]
            if len(rel) != n_records:
                raise ReleaseFormatError(f"{len(rel)} relational rows for n_records={n_records}")
            codes = np.array([list(row) for row in rel], dtype=np.int64).reshape(len(rel), len(qi))
            if any(((codes[:, c] < 0) | (codes[:, c] >= len(values[c]))).any() for c in range(len(qi))):
                raise ReleaseFormatError("a relational row refers to a value that does not exist")
            items, records = read_recoding_payload(payload, n_records)
            return cls(qi=qi, relational=(values, codes), published_items=items, records=records,
                       universe=payload["universe"], n_suppressed=payload.get("n_suppressed"),
                       algorithm=algorithm, params=params, labels=payload.get("labels"))
        except (KeyError, TypeError, IndexError) as exc:
            raise ReleaseFormatError(f"malformed relational release: missing or bad field {exc}") from None
        except ParameterError as exc:
            raise ReleaseFormatError(f"malformed relational release: {exc}") from None
