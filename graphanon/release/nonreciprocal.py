"""The nonreciprocal (bit-voting) publication model.

Each published record is a *base* bitmap, a *distance* bitmap (the positions
where its preimages disagree), a *threshold* (the largest Hamming distance
from the base to a preimage) and, when the data has them, a sensitive label.
Together the distance bitmap and the threshold define the record's *possible
worlds*: every bitmap equal to the base outside the distance positions and
within ``threshold`` flips on them. Its true preimage is one of them.

This module holds the release object; the bit vote, the world counts and the
matching kernel are in :mod:`graphanon.release.bit_voting` (``bit_vote`` and
``possible_world_counts`` are importable from here too).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (publication model, possible
worlds) and Sec. 4 (bit voting: "Fifth, for each anonymized record ...").
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntList, IntRows
from graphanon.release.base import Release
from graphanon.release.bit_voting import (
    bit_vote,
    log_cum_binom,
    match_possible_worlds,
    possible_world_counts,
)
from graphanon.release.shared import json_label, match_digraph
from graphanon.utils.labels import as_labels, display_label

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["NonreciprocalRelease", "bit_vote", "possible_world_counts"]


class NonreciprocalRelease(Release):
    """Published records as base bitmap, distance bitmap, threshold and label.

    Parameters
    ----------
    items : sequence of hashable
        Item labels of the bitmap columns.
    base, distance : sparse boolean matrices, shape (n, len(items))
        Base and distance bitmaps, one row per published record.
    threshold : array of int, shape (n,)
        Maximum number of flips on the distance positions.
    labels : sequence or None
        Sensitive label published with each record.
    label_groups : array of int or None
        Labels published apart from the rows (Anatomy-style label groups,
        ``nr --param l=L``, the default ``l_method="groups"``):
        ``label_groups[j]`` is row ``j``'s group, and the group's labels are
        the multiset of ``labels`` over its rows, dealt to them by a secret
        uniform shuffle. A row's label is then a draw from its group, not
        the label of the record the row stands for. None: one label per row.
    algorithm, params :
        Provenance.

    Notes
    -----
    An anonymizer's release publishes its rows in a secret random order
    (:func:`~graphanon.release.publish.publish`) under pseudonyms. Which row
    is the true match of which record -- the chosen assignment, drawn
    uniformly among ``k`` disjoint ones from operating-system entropy -- is
    only in the private ``release.link``; to anyone without it each of a
    record's ``k`` matches is equally likely to be the true one.

    Examples
    --------
    >>> rel = NonreciprocalRelease(["a", "b", "c"], [[1, 1, 0]], [[0, 1, 1]], [1])
    >>> rel.render_record(0)
    'a b | distance: b c | threshold 1'
    >>> round(rel.estimate_count(["a", "b"]), 4)   # worlds ab, a, abc: two hold a and b
    0.6667
    """

    kind = "nonreciprocal"

    def __init__(
        self,
        items: Sequence[Hashable],
        base,
        distance,
        threshold,
        labels: Sequence[Hashable] | None = None,
        *,
        label_groups=None,
        algorithm: str = "nonreciprocal",
        params: dict | None = None,
    ) -> None:
        threshold = np.asarray(threshold, dtype=np.int64).reshape(-1)
        super().__init__(algorithm=algorithm, params=params, n_records=len(threshold))
        self.items = tuple(items)
        self._index = {x: j for j, x in enumerate(self.items)}
        if len(self._index) != len(self.items):
            raise ReleaseFormatError("item labels of a nonreciprocal release must be distinct")
        n, d = self.n_records, len(self.items)
        self.base = bool_csr(base, (n, d))
        self.distance = bool_csr(distance, (n, d))
        self.threshold = threshold
        dsize = np.diff(self.distance.indptr)
        bad = np.flatnonzero((self.threshold < 0) | (self.threshold > dsize))
        if len(bad):
            p = int(bad[0])
            raise ReleaseFormatError(
                f"record {self.pseudonyms[p]!r}: threshold {int(self.threshold[p])} outside 0..{int(dsize[p])} "
                "(the number of distance positions)"
            )
        self.labels = None if labels is None else tuple(labels)
        if self.labels is not None and len(self.labels) != n:
            raise ReleaseFormatError(f"{len(self.labels)} labels for {n} records")
        self.label_groups = None if label_groups is None else _check_label_groups(label_groups, n, self.labels)
        self._logcum: np.ndarray | None = None
        self._columns: tuple | None = None  # (base, distance, their CSC copies) for world_probabilities

    # ------------------------------------------------------------------ protocol
    def render_record(self, i: int) -> str:
        """Text of published row ``i``.

        Base, distance, threshold (and label), quoted as :func:`display_label` says.
        """
        b = " ".join(
            display_label(self.items[j]) for j in self.base.indices[self.base.indptr[i] : self.base.indptr[i + 1]]
        )
        d = " ".join(
            display_label(self.items[j])
            for j in self.distance.indices[self.distance.indptr[i] : self.distance.indptr[i + 1]]
        )
        text = f"{b or '{}'} | distance: {d or '{}'} | threshold {int(self.threshold[i])}"
        if self.labels is not None:
            text += f" | label {display_label(self.labels[i])}"
            if self.label_groups is not None:
                text += f" (drawn from label group {int(self.label_groups[i])})"
        return text

    def group_label_shares(self, codes: np.ndarray, n_labels: int) -> sp.csr_array:
        """Per row, the probability of each label code: one-hot, or its label group's shares.

        Parameters
        ----------
        codes : ndarray of int64, shape (n_rows,)
            The published labels as codes ``0..n_labels-1``.
        n_labels : int

        Returns
        -------
        scipy.sparse.csr_array of float, shape (n_rows, n_labels)
            Row ``j``: the label distribution a reader of row ``j`` holds.
            Without label groups, ``1`` at row ``j``'s label; with them, the
            share of each label in row ``j``'s group (the row's label is a
            uniform draw from the group's multiset).

        Examples
        --------
        >>> rel = NonreciprocalRelease(["a"], [[1], [1], [0]], [[0], [0], [1]], [0, 0, 1],
        ...                            labels=["x", "y", "x"], label_groups=[0, 0, 1])
        >>> rel.group_label_shares(np.array([0, 1, 0]), 2).toarray().tolist()
        [[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]]
        """
        codes = np.asarray(codes, dtype=np.int64)
        n = len(codes)
        if self.label_groups is None:
            return sp.csr_array((np.ones(n), (np.arange(n), codes)), shape=(n, n_labels))
        g = np.asarray(self.label_groups, dtype=np.int64)
        n_groups = int(g.max()) + 1 if n else 0
        counts = sp.csr_array((np.ones(n), (g, codes)), shape=(n_groups, n_labels))
        counts.sum_duplicates()
        size = np.bincount(g, minlength=n_groups).astype(np.float64)
        shares = sp.csr_array(sp.diags_array(1.0 / np.maximum(size, 1.0)) @ counts)
        return sp.csr_array(shares[g])

    def bitmap_strings(self, i: int) -> tuple[str, str]:
        """Base and distance bitmaps of record ``i`` as 0/1 strings in item order."""
        b = np.zeros(len(self.items), dtype=np.int8)
        d = np.zeros(len(self.items), dtype=np.int8)
        b[self.base.indices[self.base.indptr[i] : self.base.indptr[i + 1]]] = 1
        d[self.distance.indices[self.distance.indptr[i] : self.distance.indptr[i + 1]]] = 1
        return "".join(map(str, b)), "".join(map(str, d))

    def _item_cols(self, labels: Iterable[Hashable], what: str) -> np.ndarray:
        out = []
        for x in as_labels(labels):
            if x not in self._index:
                raise ParameterError(f"{what} item {x!r} is not in the release's vocabulary")
            out.append(self._index[x])
        return np.array(sorted(set(out)), dtype=np.int64)

    def world_probabilities(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> np.ndarray:
        """Per published record, the fraction of its possible worlds holding all of ``include`` and none of ``exclude``.

        Worlds are counted combinatorially: with ``m`` distance positions,
        threshold ``t``, ``a`` query positions that must flip and ``f`` free
        distance positions, the matching worlds number
        ``sum_{j <= t - a} C(f, j)`` out of ``sum_{j <= t} C(m, j)``.
        """
        inc = self._item_cols(include, "include")
        exc = self._item_cols(exclude, "exclude")
        if len(np.intersect1d(inc, exc)):
            return np.zeros(self.n_records)
        n = self.n_records
        ok = np.ones(n, dtype=bool)
        flips = np.zeros(n, dtype=np.int64)
        fixed = np.zeros(n, dtype=np.int64)
        # the column copies are made once per (base, distance) pair, not once per query
        if self._columns is None or self._columns[0] is not self.base or self._columns[1] is not self.distance:
            self._columns = (self.base, self.distance, self.base.tocsc(), self.distance.tocsc())
        bc, dc = self._columns[2], self._columns[3]

        def col(M, j):
            v = np.zeros(n, dtype=bool)
            v[M.indices[M.indptr[j] : M.indptr[j + 1]]] = True
            return v

        for j, want in [(j, True) for j in inc] + [(j, False) for j in exc]:
            b, d = col(bc, j), col(dc, j)
            ok &= d | (b == want)
            flips += d & (b != want)
            fixed += d
        m = np.diff(self.distance.indptr)
        t = self.threshold
        if self._logcum is None:
            self._logcum = log_cum_binom(int(m.max()) if n else 0)
        logcum = self._logcum
        free = m - fixed
        budget = t - flips
        good = ok & (budget >= 0)
        out = np.zeros(n)
        g = np.flatnonzero(good)
        num = logcum[free[g], np.minimum(budget[g], free[g])]
        den = logcum[m[g], np.minimum(t[g], m[g])]
        out[g] = np.exp(num - den)
        return out

    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Expected number of records holding all of ``include`` and none of ``exclude``, each published record's possible worlds being equally likely.

        Notes
        -----
        Complexity: O(n (|include| + |exclude|)) after an O(m_max^2) binomial table.
        """
        return float(self.world_probabilities(include, exclude).sum())

    def _original_matrix(self, original) -> tuple[sp.csr_array, np.ndarray]:
        """Original records in this release's columns, and a mask of records holding items outside the release vocabulary (those match nothing)."""
        cols = np.array([self._index.get(x, -1) for x in original.items], dtype=np.int64)
        X = sp.csr_array(original.matrix)
        unknown = np.zeros(original.n_records, dtype=bool)
        if (cols < 0).any():
            bad = np.flatnonzero(cols < 0)
            unknown = np.asarray(X[:, bad].sum(axis=1)).ravel() > 0
        keep = cols >= 0
        Xk = sp.csr_array(X[:, np.flatnonzero(keep)])
        coo = Xk.tocoo()
        Y = sp.csr_array(
            (np.ones(coo.nnz, dtype=bool), (coo.row, cols[keep][coo.col])),
            shape=(original.n_records, len(self.items)),
        )
        return bool_csr(Y, Y.shape), unknown

    def _matches(self, original, max_edges: int):
        Y, unknown = self._original_matrix(original)
        po, pp, eo, ep, overflow = match_possible_worlds(self.base, self.distance, self.threshold, Y, max_edges)
        if unknown.any():
            keep = ~unknown[eo]
            po = po.copy()
            po[unknown] = 0
            pp = np.bincount(ep[keep], minlength=self.n_records)
            eo, ep = eo[keep], ep[keep]
        return po, pp, eo, ep, overflow

    def match_counts(self, original: TransactionData) -> np.ndarray:
        """Per original record, the number of published records whose possible worlds contain it."""
        return self._matches(original, 0)[0]

    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000):
        """Bipartite DiGraph ``("orig", i) -> ("pub", j)``.

        Original record ``i`` lies in the possible worlds of published record ``j`` (equal
        to the base outside the distance positions, within the threshold on them).
        """
        eo, ep = self.match_arrays(original, max_edges=max_edges)
        return match_digraph(original.n_records, self.n_records, zip(eo, ep, strict=True), n_edges=len(eo),
                             max_edges=max_edges)

    def match_arrays(self, original, *, max_edges: int = 20_000_000):
        """Match edges as arrays ``(orig, pub)`` (faster than :meth:`match_graph`)."""
        _po, _pp, eo, ep, overflow = self._matches(original, max_edges)
        if overflow:
            raise ParameterError(f"the match graph has more than max_edges={max_edges} edges")
        return eo, ep

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        order = np.asarray(order, dtype=np.int64)
        self.base = bool_csr(self.base[order], self.base.shape)
        self.distance = bool_csr(self.distance[order], self.distance.shape)
        self.threshold = self.threshold[order]
        if self.labels is not None:
            self.labels = tuple(self.labels[int(i)] for i in order)
        if self.label_groups is not None:
            # renumbered by first appearance in the new (secret, random) row order: the numbers tell nothing
            # of the order the groups were formed in
            _, first, inverse = np.unique(self.label_groups[order], return_index=True, return_inverse=True)
            rank = np.empty(len(first), dtype=np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(first))
            self.label_groups = rank[inverse.reshape(-1)]

    def _payload(self) -> dict:
        return {
            "items": [json_label(x, "item") for x in self.items],
            "base": IntRows(self.base.indptr, self.base.indices),
            "distance": IntRows(self.distance.indptr, self.distance.indices),
            "threshold": IntList(self.threshold),
            "labels": None if self.labels is None else [json_label(x, "sensitive label") for x in self.labels],
            **({} if self.label_groups is None else {"label_groups": IntList(self.label_groups)}),
        }

    @classmethod
    def _from_payload(cls, payload: dict, *, algorithm: str, params: dict, n_records: int) -> NonreciprocalRelease:
        for key in ("items", "base", "distance", "threshold"):
            if not isinstance(payload.get(key), list):
                raise ReleaseFormatError(f"nonreciprocal release has no {key!r} list")
        items = payload["items"]
        n, d = n_records, len(items)
        if len(payload["threshold"]) != n:
            raise ReleaseFormatError(f"{len(payload['threshold'])} thresholds for n_records={n}")

        def mat(rows, what):
            if len(rows) != n:
                raise ReleaseFormatError(f"{what}: {len(rows)} rows for {n} records")
            indptr = np.zeros(n + 1, dtype=np.int64)
            indptr[1:] = np.cumsum([len(r) for r in rows])
            idx = np.array([j for r in rows for j in r], dtype=np.int64)
            if len(idx) and (idx.min() < 0 or idx.max() >= d):
                raise ReleaseFormatError(f"{what}: item index outside 0..{d - 1}")
            return sp.csr_array((np.ones(len(idx), dtype=bool), idx, indptr), shape=(n, d))

        return cls(
            items,
            mat(payload["base"], "base"),
            mat(payload["distance"], "distance"),
            payload["threshold"],
            payload.get("labels"),
            label_groups=payload.get("label_groups"),
            algorithm=algorithm,
            params=params,
        )

    # ------------------------------------------------------------------ building
    @classmethod
    def from_preimages(
        cls,
        data: TransactionData,
        members: sp.csr_array,
        row_of_record: np.ndarray,
        *,
        labels: Sequence[Hashable] | None = None,
        label_groups=None,
        algorithm: str,
        params: dict | None = None,
    ) -> NonreciprocalRelease:
        """The row-aligned bit-voting release of ``data`` (before :func:`~graphanon.release.publish.publish`).

        Parameters
        ----------
        data : TransactionData
        members : sparse (n, n)
            ``members[j, i]`` when record ``i`` is a preimage of published record ``j``.
        row_of_record : permutation
            The chosen assignment: ``row_of_record[i]`` is the published record
            matched to record ``i``; it becomes row ``i`` of the aligned
            release (``publish`` then shuffles the rows in secret).
        labels : sequence, optional
            Label published in row ``i`` (default: ``data.labels``, i.e. each
            label travels with its record through the chosen assignment).
        label_groups : array of int, optional
            Label group of row ``i`` (labels published apart from the rows).
        """
        base, dist, thr = bit_vote(data.matrix, members)
        sigma = np.asarray(row_of_record, dtype=np.int64)
        if labels is None:
            labels = data.labels
        return cls(
            data.items,
            base[sigma],
            dist[sigma],
            thr[sigma],
            labels,
            label_groups=label_groups,
            algorithm=algorithm,
            params=params,
        )

    def __repr__(self) -> str:
        """A short summary: algorithm, records, mean threshold."""
        return (
            f"<NonreciprocalRelease by {self.algorithm!r}: {self.n_records} records, "
            f"mean threshold {self.threshold.mean() if self.n_records else 0:.2f}>"
        )


def _check_label_groups(label_groups, n: int, labels) -> np.ndarray:
    """Validated label groups: ``n`` integers ``0..G-1``, every number used, labels present."""
    if labels is None:
        raise ReleaseFormatError("label_groups without labels: a label group holds published labels")
    if isinstance(label_groups, (str, bytes)) or not hasattr(label_groups, "__len__"):
        raise ReleaseFormatError("label_groups must be a list of integers, one per row")
    if len(label_groups) != n:
        raise ReleaseFormatError(f"{len(label_groups)} label groups for {n} records")
    if any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) for x in label_groups):
        raise ReleaseFormatError("label_groups must hold integers (the group number of each row)")
    g = np.asarray(label_groups, dtype=np.int64).reshape(-1)
    if n and (g.min() < 0 or np.unique(g).size != int(g.max()) + 1):
        raise ReleaseFormatError("label_groups must number the groups 0..G-1, each used by some row")
    return g
