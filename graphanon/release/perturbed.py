"""Perturbed releases: plain transactions after items were moved, removed or split.

The tendency-hiding methods (:mod:`graphanon.algorithms.swapping`) publish
ordinary transactions -- no generalized items, no possible worlds -- whose
items were *moved* between records (PartSwap, FullSwap, RandSwap), *removed*
(PartSupp) or *split* into one record per category (SplitPerson). A
:class:`PerturbedRelease` holds those rows and says which kind of move made
them (``moves``), so that an audit knows which invariants to check.

What the file holds (``graphanon-release/3``, kind ``perturbed``): the rows
in a secret random order as lists of indices into ``items``, the items that
occur in the rows (an item every occurrence of which was removed is not
named), the method, its parameters and the data fingerprint. Never a record
id, the input order, a seed or the swap partners.

What a perturbed row "may stand for". A perturbed row is not a
generalization of its source: swapping replaced some of its items by
another person's, so the release makes no claim that ties a row to a set of
candidate records. Without the private link every published row may stand
for every original record: :meth:`PerturbedRelease.match_counts` is the
number of rows for every record and :meth:`~PerturbedRelease.match_graph`
the complete bipartite graph. This is an honest statement of the model, not
a privacy guarantee: the items a method leaves in place can still single a
person out (re-identification is not what these methods protect; the
:class:`~graphanon.privacy.tendency.TendencyHiding` audit measures what
they do protect).

COUNT queries are answered by the released data as is (one world).

Examples
--------
>>> from graphanon.data import from_iterable
>>> data = from_iterable([["a", "b"], ["c"]])
>>> rel = PerturbedRelease.from_matrix(data, data.matrix, moves="swap", algorithm="custom")
>>> rel.estimate_count(["a"]), rel.match_counts(data).tolist()
(1.0, [2, 2])
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import VerticalBitmaps
from graphanon.data import TransactionData
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.readwrite.files import IntRows, atomic_write
from graphanon.release.base import Release
from graphanon.release.fingerprint import (
    data_counts,
    data_fingerprint,
    new_data_key,
    ordered_digest,
)
from graphanon.release.link import private_fields, read_private_fields
from graphanon.release.shared import json_label, match_digraph, read_json_file
from graphanon.utils.labels import display_label
from graphanon.utils.randomness import secret_generator

if TYPE_CHECKING:  # networkx: for the match_graph annotation; loaded when a match graph is built
    import networkx as nx

__all__ = ["MOVES", "PerturbedRelease", "SplitLink", "load_split_link", "publish_split"]

#: Kinds of moves: items exchanged without loss, exchanged at random (collisions
#: lose items), removed, or split into one row per category.
MOVES = ("swap", "swap-suppress", "random-swap", "suppress", "split")
SPLIT_LINK_TAG = "graphanon-private-split-link/1"


class PerturbedRelease(Release):
    """Plain transactions after moves (swapping, suppression or splitting).

    Parameters
    ----------
    items : sequence of item labels
        The vocabulary of the rows (each occurs in at least one row when built
        by :meth:`from_matrix`).
    records : sparse matrix, shape (n_rows, len(items))
        The published transactions.
    moves : {"swap", "swap-suppress", "random-swap", "suppress", "split"}
        (``swap-suppress``: swaps, and records no swap partner was left for lost the items of
        their heaviest category)
        What the method did to the records.
    algorithm, params :
        Provenance.

    Attributes
    ----------
    conserves_items : bool
        True for ``swap`` and ``split``: every original item occurrence is
        published exactly once (the audit checks it).
    """

    kind = "perturbed"

    def __init__(
        self,
        *,
        items: Sequence[Hashable],
        records,
        moves: str,
        algorithm: str = "custom",
        params: dict | None = None,
    ) -> None:
        if moves not in MOVES:
            raise ParameterError(f"moves must be one of {', '.join(MOVES)}, got {moves!r}")
        recs = sp.csr_array(records)
        super().__init__(algorithm=algorithm, params=params, n_records=recs.shape[0])
        self.items = tuple(items)
        if recs.shape[1] != len(self.items):
            raise ParameterError(f"the rows have {recs.shape[1]} item columns for {len(self.items)} items")
        if len(set(self.items)) != len(self.items):
            raise ParameterError("an item label appears twice in the release vocabulary")
        recs = sp.csr_array((np.ones(recs.nnz, bool), recs.indices, recs.indptr), shape=recs.shape)
        recs.sum_duplicates()
        recs.sort_indices()
        self.records = recs
        self.moves = moves
        self._index = {x: j for j, x in enumerate(self.items)}
        self._bitmaps: VerticalBitmaps | None = None

    @classmethod
    def from_matrix(cls, data: TransactionData, matrix, *, moves: str, algorithm: str = "custom", params: dict | None = None):
        """A row-aligned release over ``data``'s items, keeping only items that occur.

        ``matrix`` has ``data``'s item columns; columns no row holds are dropped
        so that the release never names an item whose occurrences were all removed.
        """
        X = sp.csr_array(matrix)
        if X.shape[1] != data.n_items:
            raise ParameterError(f"the rows have {X.shape[1]} item columns, the data {data.n_items}")
        used = np.flatnonzero(np.bincount(X.indices, minlength=X.shape[1]) > 0)
        return cls(
            items=[data.items[j] for j in used],
            records=X[:, used],
            moves=moves,
            algorithm=algorithm,
            params=params,
        )

    @property
    def conserves_items(self) -> bool:
        """Whether the moves keep every item occurrence (swaps and splits do; removals do not)."""
        return self.moves in ("swap", "split")

    # ------------------------------------------------------------------ views
    def published_data(self):
        """The rows as :class:`~graphanon.data.TransactionData` (record ids are the pseudonyms)."""
        return TransactionData(self.records, self.items, record_ids=self.pseudonyms, name=f"release of {self.algorithm}")

    def matrix_over(self, items: Sequence[Hashable]) -> sp.csr_array:
        """The rows as a boolean matrix over the columns ``items`` (items not published stay empty).

        Raises :class:`~graphanon.errors.ParameterError` when the release holds
        an item outside ``items`` (it was not made from that vocabulary).
        """
        where = {x: j for j, x in enumerate(items)}
        missing = [x for x in self.items if x not in where]
        if missing:
            raise ParameterError(
                f"the release holds {len(missing)} item(s) the data does not, e.g. {missing[:3]}; "
                "compare a release with the data it was made from"
            )
        code = np.fromiter((where[x] for x in self.items), dtype=np.int64, count=len(self.items))
        r = self.records
        out = sp.csr_array((np.ones(r.nnz, bool), code[r.indices], r.indptr), shape=(r.shape[0], len(items)))
        out.sort_indices()
        return out

    def render_record(self, i: int) -> str:
        """Text of published row ``i``: its items, quoted as :func:`display_label` says."""
        r = self.records
        return " ".join(display_label(self.items[j]) for j in r.indices[r.indptr[i] : r.indptr[i + 1]])

    # ------------------------------------------------------------------ queries
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Records of the release holding every ``include`` item and no ``exclude`` item (the data as is)."""
        include, exclude = set(include), set(exclude)
        if include & exclude or any(x not in self._index for x in include):
            return 0.0
        if self._bitmaps is None:
            self._bitmaps = VerticalBitmaps(self.records)
        bitmaps = self._bitmaps
        bm = bitmaps.bitmap([self._index[x] for x in include])
        for x in exclude:
            if x in self._index:
                bm = bm & ~bitmaps.bits[self._index[x]]
        return float(np.bitwise_count(bm).sum())

    # ------------------------------------------------------------------ matching
    def match_counts(self, original: TransactionData) -> np.ndarray:
        """Every row may stand for every record (see the module notes): ``n_rows`` per record."""
        return np.full(original.n_records, self.n_records, dtype=np.int64)

    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000) -> nx.DiGraph:
        """The complete bipartite graph (refused beyond ``max_edges``)."""
        n, m = original.n_records, self.n_records
        edges = ((i, j) for i in range(n) for j in range(m))
        return match_digraph(n, m, edges, n_edges=n * m, max_edges=max_edges, note=" (a perturbed release's is complete)")

    # ------------------------------------------------------------------ persistence
    def _permute_rows(self, order: np.ndarray) -> None:
        self.records = sp.csr_array(self.records[np.asarray(order, dtype=np.int64)])
        self.records.sort_indices()
        self._bitmaps = None

    def _payload(self) -> dict:
        r = self.records
        return {
            "moves": self.moves,
            "items": [json_label(x, "item") for x in self.items],
            "records": IntRows(r.indptr, r.indices),
        }

    @classmethod
    def _from_payload(cls, payload, *, algorithm, params, n_records) -> PerturbedRelease:
        try:
            items, rows = payload["items"], payload["records"]
            if not isinstance(items, list) or not isinstance(rows, list):
                raise ReleaseFormatError("items and records must be lists")
            if len(rows) != n_records:
                raise ReleaseFormatError(f"{len(rows)} published records for n_records={n_records}")
            if not all(isinstance(r, list) and all(isinstance(j, int) and not isinstance(j, bool) for j in r) for r in rows):
                raise ReleaseFormatError("each record must be a list of item indices")
            lengths = np.array([len(r) for r in rows], dtype=np.int64)
            flat = np.array([j for r in rows for j in r], dtype=np.int64)
            if flat.size and (flat.min() < 0 or flat.max() >= len(items)):
                raise ReleaseFormatError("a record refers to an item index that does not exist")
            indptr = np.concatenate([[0], np.cumsum(lengths)])
            recs = sp.csr_array((np.ones(len(flat), bool), flat, indptr), shape=(len(rows), len(items)))
            return cls(items=items, records=recs, moves=payload["moves"], algorithm=algorithm, params=params)
        except KeyError as exc:
            raise ReleaseFormatError(f"malformed perturbed release: missing field {exc}") from None
        except (TypeError, ValueError, OverflowError, ParameterError) as exc:
            raise ReleaseFormatError(f"malformed perturbed release: {exc}") from None


class SplitLink:
    """The private link of a release with more rows than records (SplitPerson).

    Parameters
    ----------
    record_of_row : array of int, shape (n_rows,)
        The original record each published row was split from.
    record_ids : sequence, optional
        Original record ids (default ``0..n-1``).
    fingerprint, data_digest, key, counts :
        As for :class:`~graphanon.release.ReleaseLink`.

    Attributes
    ----------
    record_of_row : ndarray of int64
    n_records : int
    """

    def __init__(self, record_of_row, *, record_ids=None, n_records: int | None = None,
                 fingerprint: dict | None = None, data_digest: str | None = None, key: str | None = None,
                 counts: dict | None = None) -> None:
        owner = np.asarray(record_of_row)
        if owner.ndim != 1 or (owner.size and not np.issubdtype(owner.dtype, np.integer)):
            raise ReleaseFormatError("a split link's record_of_row must be a 1-D list of whole numbers")
        n = len(record_ids) if record_ids is not None else (n_records if n_records is not None else
                                                            (int(owner.max()) + 1 if owner.size else 0))
        if owner.size and (owner.min() < 0 or owner.max() >= n):
            raise ReleaseFormatError(f"a split link names a record outside 0..{n - 1}")
        self.record_of_row = owner.astype(np.int64)
        self.record_of_row.flags.writeable = False
        self.n_records = int(n)
        self.record_ids = tuple(range(n)) if record_ids is None else tuple(record_ids)
        self.fingerprint = None if fingerprint is None else dict(fingerprint)
        self.data_digest = data_digest
        self.key = key
        self.counts = None if counts is None else dict(counts)

    def rows_of(self, i: int) -> np.ndarray:
        """Published rows split from original record ``i``."""
        return np.flatnonzero(self.record_of_row == int(i))

    def to_dict(self) -> dict:
        """The private JSON document (what :meth:`save` writes)."""
        return {
            "format": SPLIT_LINK_TAG,
            "never_publish": True,
            "warning": "PRIVATE: this file links published rows to original records. Never publish it.",
            **private_fields(self.fingerprint, self.data_digest, self.key, self.counts),
            "record_ids": [json_label(r, "record id") for r in self.record_ids],
            "record_of_row": self.record_of_row.tolist(),
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the link as JSON, mode 0600; keep the file private."""
        atomic_write(Path(path), json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False), private=True)

    def __repr__(self) -> str:
        """A short summary, marked private."""
        return f"<SplitLink (private): {len(self.record_of_row)} rows of {self.n_records} records>"


def load_split_link(path: str | os.PathLike) -> SplitLink:
    """Read a link written by :meth:`SplitLink.save`."""
    doc = read_json_file(Path(path), "private split link")
    if not isinstance(doc, dict) or doc.get("format") != SPLIT_LINK_TAG:
        raise ReleaseFormatError(f"{path}: not a {SPLIT_LINK_TAG} file")
    try:
        return SplitLink(np.array(doc["record_of_row"], dtype=np.int64), record_ids=doc["record_ids"],
                         **read_private_fields(doc, path))
    except (KeyError, TypeError, ValueError) as exc:
        raise ReleaseFormatError(f"{path}: malformed private split link ({exc})") from None


def publish_split(data, release: PerturbedRelease, owner, *, unsafe_secret_seed: int | None = None):
    """:func:`~graphanon.release.publish.publish` for releases with more rows than records.

    ``owner[r]`` is the original record aligned row ``r`` was split from. The
    rows are shuffled by the secret generator, the data fingerprint attached,
    and ``release.link`` set to a private :class:`SplitLink`.

    Notes
    -----
    Complexity: O(rows + occurrences) plus the fingerprint.
    """
    owner = np.asarray(owner, dtype=np.int64)
    if len(owner) != release.n_records:
        raise ParameterError(f"{len(owner)} owners for {release.n_records} rows")
    if release.link is not None:
        raise ParameterError("this release is already published (it has a link); publish each release once")
    gen = secret_generator(unsafe_secret_seed)
    order = gen.permutation(release.n_records)
    key = new_data_key(gen)
    release._permute_rows(order)
    release.fingerprint = data_fingerprint(data, key=key)
    release.link = SplitLink(owner[order], record_ids=data.record_ids, fingerprint=release.fingerprint,
                             data_digest=ordered_digest(data, key=key), key=key, counts=data_counts(data))
    return release
