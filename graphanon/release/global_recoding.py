"""Global recoding: every original item maps to one published item or is suppressed."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import generalize_matrix
from graphanon.data import TransactionData
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntRows
from graphanon.release.base import Release
from graphanon.release.shared import json_items, json_labels, match_digraph, permute_rows
from graphanon.utils.labels import (
    as_label,
    as_labels,
    display_published,
    set_label,  # noqa: F401  (re-exported: its old home)
)

if TYPE_CHECKING:  # networkx: for the match_graph annotation; loaded when a match graph is built
    import networkx as nx

__all__ = ["GlobalRecoding", "PublishedItem", "set_label"]


@dataclass(frozen=True)
class PublishedItem:
    """One published (generalized) item.

    Attributes
    ----------
    label : str or int
        How it is printed: a taxonomy node name, an original item, or a set
        label such as ``"(a,b)"``.
    members : tuple
        The original items it stands for (those present in the data's
        vocabulary).
    leaves : int
        Number of leaves it stands for in the item universe (LM numerator
        plus one); ``len(members)`` unless a taxonomy node covers leaves that
        do not occur in the data.
    """

    label: Hashable
    members: tuple
    leaves: int

    @property
    def is_generalized(self) -> bool:
        """Whether the item stands for more than one leaf."""
        return self.leaves > 1


class GlobalRecoding(Release):
    """A global recoding of transaction data (taxonomy cut or set-based).

    Parameters
    ----------
    published_items : sequence of PublishedItem
        The published item vocabulary; members of distinct items are disjoint.
    records : sparse matrix, shape (n_records, n_published)
        The published transactions (one row per published record; an
        anonymizer's release has them in a secret random order, see
        :func:`~graphanon.release.publish.publish`).
    universe : int
        Number of leaves of the item universe (LM denominator plus one): the
        taxonomy's leaf count, or the number of items for set-based methods.
    suppressed : sequence, optional
        Original items suppressed (known to the producer, in memory only:
        their names are never saved, since the file publishes only what it
        shows; audits learn them from the original data).
    n_suppressed : int, optional
        Count of suppressed items (the only trace of them that is saved).
    algorithm, params :
        Provenance.
    labels : sequence, optional
        Published per-record sensitive labels (they travel with their rows).

    Notes
    -----
    COUNT estimation follows the set-based reading of a generalized item: a
    published item of ``s`` members present in a record stands for each
    non-empty subset of its members with equal probability ``1/(2^s - 1)``,
    independently per published item (Loukides et al., Sec. 6.1). Suppressed
    items are read as absent.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a", "b"], ["a"], ["b", "c"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": None})
    >>> print(rel.to_text())
    p1: (a,b)
    p2: (a,b)
    p3: (a,b)
    >>> round(rel.estimate_count(["a"]), 3)
    2.0
    """

    kind = "global_recoding"

    def __init__(
        self,
        *,
        published_items: Sequence[PublishedItem],
        records,
        universe: int,
        suppressed: Sequence[Hashable] | None = None,
        n_suppressed: int | None = None,
        algorithm: str = "custom",
        params: dict | None = None,
        labels: Sequence[Hashable] | None = None,
    ) -> None:
        recs = sp.csr_array(records)
        super().__init__(algorithm=algorithm, params=params, n_records=recs.shape[0])
        self.published_items = tuple(published_items)
        owner: dict = {}
        for g, pi in enumerate(self.published_items):
            for member in pi.members:
                if member in owner:
                    raise ParameterError(
                        f"item {member!r} is a member of two published items "
                        f"({self.published_items[owner[member]].label!r} and {pi.label!r})"
                    )
                owner[member] = g
        self._owner = owner
        if recs.shape != (self.n_records, len(self.published_items)):
            raise ParameterError(
                f"published records have shape {recs.shape}, expected "
                f"({self.n_records}, {len(self.published_items)})"
            )
        recs = sp.csr_array((np.ones(recs.nnz, bool), recs.indices, recs.indptr), shape=recs.shape)
        recs.sort_indices()
        self.records = recs
        self._csc: sp.csc_array | None = None
        self.universe = int(universe)
        self.suppressed = None if suppressed is None else tuple(suppressed)
        self.n_suppressed = (
            len(self.suppressed) if n_suppressed is None and self.suppressed is not None else n_suppressed
        )
        self.labels = None if labels is None else tuple(labels)
        if self.labels is not None and len(self.labels) != self.n_records:
            raise ParameterError(f"{len(self.labels)} sensitive labels for {self.n_records} published records")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_mapping(
        cls,
        data: TransactionData,
        mapping: Mapping[Hashable, Hashable | None],
        *,
        leaves: Mapping[Hashable, int] | None = None,
        universe: int | None = None,
        algorithm: str = "custom",
        params: dict | None = None,
        keep_labels: bool = True,
    ) -> GlobalRecoding:
        """Recode ``data`` by a mapping ``original item -> published label`` (None = suppress).

        The result is row-aligned with ``data`` (row ``i`` is record ``i``'s
        recoding): an anonymizer passes it to
        :func:`~graphanon.release.publish.publish`, which shuffles the rows.

        Items of ``data`` absent from ``mapping`` are an error (a recoding
        must say what happens to every item). ``leaves`` gives the leaf count
        of taxonomy-node labels (default: number of members); ``universe``
        the LM denominator plus one (default: ``data.n_items``). Labels are
        text (:mod:`graphanon.utils.labels`): int keys and targets stand for their text.
        """
        mapping = {as_label(x): None if t is None else as_label(t, "published label") for x, t in mapping.items()}
        missing = [x for x in data.items if x not in mapping]
        if missing:
            raise ParameterError(
                f"the recoding says nothing of {len(missing)} item(s), e.g. {missing[:5]}; map each "
                f"item to a published label or to None (suppressed)"
            )
        groups: dict = {}
        for j, item in enumerate(data.items):
            target = mapping[item]
            if target is not None:
                groups.setdefault(target, []).append(j)
        labels_order = sorted(groups, key=lambda t: groups[t][0])
        pub_index = {t: g for g, t in enumerate(labels_order)}
        code = np.full(data.n_items, -1, dtype=np.int64)
        published = []
        for t in labels_order:
            ids = groups[t]
            code[ids] = pub_index[t]
            n_leaves = len(ids) if leaves is None or t not in leaves else int(leaves[t])
            published.append(PublishedItem(t, tuple(data.items[j] for j in ids), n_leaves))
        suppressed = [data.items[j] for j in np.flatnonzero(code < 0)]
        recs = generalize_matrix(data.matrix, code, len(published))
        return cls(
            published_items=published,
            records=recs,
            universe=data.n_items if universe is None else universe,
            suppressed=suppressed,
            algorithm=algorithm,
            params=params,
            labels=data.labels if keep_labels else None,
        )

    # ------------------------------------------------------------------ views
    @property
    def n_published_items(self) -> int:
        """The number of published items."""
        return len(self.published_items)

    @property
    def mapping(self) -> dict:
        """Original item -> published item label (suppressed items absent)."""
        return {m: self.published_items[g].label for m, g in self._owner.items()}

    def published_index(self, item: Hashable) -> int:
        """Index of the published item standing for original ``item`` (-1 if suppressed/unknown)."""
        return self._owner.get(item, -1)

    def code_for(self, data: TransactionData) -> np.ndarray:
        """For each item of ``data``, its published item index (-1 when suppressed)."""
        return np.array([self._owner.get(x, -1) for x in data.items], dtype=np.int64)

    def suppressed_items(self, data) -> list:
        """Items of ``data`` the release does not publish."""
        return [x for x in data.items if x not in self._owner]

    def published_data(self):
        """The published records as :class:`~graphanon.data.TransactionData` over published item labels."""
        return TransactionData(
            self.records,
            [pi.label for pi in self.published_items],
            record_ids=self.pseudonyms,
            labels=self.labels,
            name=f"release of {self.algorithm}",
        )

    def render_record(self, i: int) -> str:
        """Text of published record ``i``: its items, quoted as :func:`display_published` says."""
        r = self.records
        items = self.published_items
        return " ".join(
            display_published(items[g].label, items[g].members) for g in r.indices[r.indptr[i] : r.indptr[i + 1]]
        )

    # ------------------------------------------------------------------ queries
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Records holding every ``include`` item and no ``exclude`` item, expected over the recoding's possible worlds."""
        include, exclude = set(as_labels(include)), set(as_labels(exclude))
        if include & exclude:
            return 0.0
        if self._csc is None:
            self._csc = self.records.tocsc()
        col = self._csc
        touched: dict[int, list[int]] = {}
        for it in include:
            g = self._owner.get(it, -1)
            if g < 0:
                return 0.0  # suppressed or unknown items are read as absent
            touched.setdefault(g, [0, 0])[0] += 1
        for it in exclude:
            g = self._owner.get(it, -1)
            if g >= 0:
                touched.setdefault(g, [0, 0])[1] += 1
        prob = np.ones(self.n_records)
        for g, (n_inc, n_exc) in touched.items():
            s = len(self.published_items[g].members)
            rows = col.indices[col.indptr[g] : col.indptr[g + 1]]
            # P(a uniform non-empty subset of s members holds the n_inc and avoids the n_exc)
            free = s - n_inc - n_exc
            hits = 2.0**free - (1.0 if n_inc == 0 else 0.0)
            p_present = hits / (2.0**s - 1.0)
            p_absent = 1.0 if n_inc == 0 else 0.0
            factor = np.full(self.n_records, p_absent)
            factor[rows] = p_present
            prob *= factor
        return float(prob.sum())

    # ------------------------------------------------------------------ matching
    def _original_codes(self, original) -> sp.csr_array:
        if original.n_records != self.n_records:
            raise ParameterError(
                f"the original data has {original.n_records} records but the release {self.n_records}"
            )
        return generalize_matrix(original.matrix, self.code_for(original), self.n_published_items)

    @staticmethod
    def _row_keys(m: sp.csr_array) -> list[bytes]:
        return [m.indices[m.indptr[i] : m.indptr[i + 1]].tobytes() for i in range(m.shape[0])]

    def match_counts(self, original: TransactionData) -> np.ndarray:
        """Per original record: how many published records equal its recoding."""
        keys_orig = self._row_keys(self._original_codes(original))
        keys_pub = self._row_keys(self.records)
        count: dict[bytes, int] = {}
        for key in keys_pub:
            count[key] = count.get(key, 0) + 1
        return np.array([count.get(key, 0) for key in keys_orig], dtype=np.int64)

    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000) -> nx.DiGraph:
        """Bipartite graph: original record ``i`` -> published row ``j`` when ``j`` is ``i``'s recoding."""
        keys_orig = self._row_keys(self._original_codes(original))
        keys_pub = self._row_keys(self.records)
        by_key: dict[bytes, list[int]] = {}
        for j, key in enumerate(keys_pub):
            by_key.setdefault(key, []).append(j)
        n_edges = sum(len(by_key.get(key, ())) for key in keys_orig)
        edges = ((i, j) for i, key in enumerate(keys_orig) for j in by_key.get(key, ()))
        return match_digraph(self.n_records, self.n_records, edges, n_edges=n_edges, max_edges=max_edges)

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        self.records, self.labels = permute_rows(self.records, self.labels, order)
        self._csc = None

    def _payload(self) -> dict:
        return recoding_payload(self)

    @classmethod
    def _from_payload(cls, payload, *, algorithm, params, n_records) -> GlobalRecoding:
        try:
            items, recs = read_recoding_payload(payload, n_records)
            return cls(
                published_items=items,
                records=recs,
                universe=payload["universe"],
                n_suppressed=payload.get("n_suppressed"),
                algorithm=algorithm,
                params=params,
                labels=payload.get("labels"),
            )
        except (KeyError, TypeError) as exc:
            raise ReleaseFormatError(f"malformed global_recoding release: missing or bad field {exc}") from None
        except ParameterError as exc:
            raise ReleaseFormatError(f"malformed global_recoding release: {exc}") from None


def recoding_payload(release) -> dict:
    """The saved fields of a release of published items per row (a global recoding, a relational release).

    ``universe``, ``n_suppressed``, ``published_items`` (label, members,
    leaves), ``records`` (the published items of each row) and ``labels``.
    """
    r = release.records
    return {
        "universe": release.universe,
        "n_suppressed": release.n_suppressed,
        "published_items": json_items(release.published_items, "published item"),
        "records": IntRows(r.indptr, r.indices),
        "labels": json_labels(release.labels),
    }


def read_recoding_payload(payload, n_records: int) -> tuple[list[PublishedItem], sp.csr_array]:
    """The published items and the rows' incidence matrix of :func:`recoding_payload`'s fields, checked.

    Raises :class:`~graphanon.errors.ReleaseFormatError` for a number of rows
    other than ``n_records`` or a row naming an item that does not exist;
    ``KeyError``/``TypeError`` for a missing or malformed field (the caller
    names its release kind).
    """
    items = [PublishedItem(d["label"], tuple(d["members"]), int(d["leaves"])) for d in payload["published_items"]]
    rows = payload["records"]
    if len(rows) != n_records:
        raise ReleaseFormatError(f"{len(rows)} published records for n_records={n_records}")
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    flat = np.array([g for r in rows for g in r], dtype=np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= len(items)):
        raise ReleaseFormatError("a record refers to a published item that does not exist")
    return items, sp.csr_array((np.ones(len(flat), bool), flat, indptr), shape=(len(rows), len(items)))
