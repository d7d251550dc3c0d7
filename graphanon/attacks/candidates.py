"""Candidate rows: the published rows an adversary who knows a target's record cannot rule out, for every release kind.

* Global recoding: the rows equal to the target's recoded record (the
  recoding is public and deterministic).
* Nonreciprocal (bit voting, also CAHD): the rows whose possible worlds
  contain the target's record -- the match graph of
  :func:`graphanon.privacy.nonreciprocal.nonreciprocal_matches`, computed
  independently of the anonymizer.

Rows are compared through 64-bit random set hashes (the sum, modulo 2^64, of
one random word per item): two distinct rows collide with probability 2^-64.
"""

from __future__ import annotations

import hashlib

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.result import check_release_size
from graphanon.counting.support import generalize_matrix
from graphanon.errors import ParameterError

__all__ = ["CandidateSets", "candidate_sets", "label_codes", "row_signatures"]


def _item_words(labels) -> np.ndarray:
    """One pseudo-random 64-bit word per item label, a function of the label's text only."""
    out = np.empty(len(labels), dtype=np.uint64)
    for j, x in enumerate(labels):
        digest = hashlib.blake2b(
            f"{type(x).__name__}:{x}".encode(), digest_size=8, key=b"graphanon-attacks"
        ).digest()
        out[j] = np.frombuffer(digest, dtype=np.uint64)[0]
    return out


def set_hashes(M, words: np.ndarray) -> np.ndarray:
    """Hash of every row of a sparse 0/1 matrix: ``sum(words[items]) mod 2^64``."""
    M = sp.csr_array(M, copy=True)
    M.sum_duplicates()
    M.eliminate_zeros()
    vals = words[M.indices]
    cs = np.zeros(len(vals) + 1, dtype=np.uint64)
    np.cumsum(vals, dtype=np.uint64, out=cs[1:])
    return cs[M.indptr[1:]] - cs[M.indptr[:-1]]


def row_signatures(release, *, with_labels: bool = False) -> np.ndarray:
    """Per published row, a small array of words identifying its content.

    Two rows get the same signature exactly when they publish the same thing
    (up to a 2^-64 hash collision): the same generalized items (global
    recoding) or the same base, distance and threshold (nonreciprocal), and,
    with ``with_labels``, the same sensitive label.

    Returns
    -------
    ndarray of uint64, shape (n_records, w)
    """
    if getattr(release, "kind", None) == "global_recoding":
        words = _item_words([pi.label for pi in release.published_items])
        cols = [set_hashes(release.records, words)]
    elif all(hasattr(release, a) for a in ("base", "distance", "threshold", "items")):
        words = _item_words(release.items)
        cols = [
            set_hashes(release.base, words),
            set_hashes(release.distance, words),
            np.asarray(release.threshold).astype(np.uint64),
        ]
    else:
        raise ParameterError(
            f"attacks know global recodings and nonreciprocal (bit-voting) releases; got a {type(release).__name__}"
        )
    if with_labels and getattr(release, "labels", None) is not None:
        cols.append(_item_words(list(release.labels)))
    return np.column_stack(cols)


def label_codes(*label_lists):
    """Integer codes of several label sequences in one shared code space."""
    codes: dict = {}
    out = []
    for labels in label_lists:
        out.append(np.array([codes.setdefault(x, len(codes)) for x in labels], dtype=np.int64))
    return out, len(codes)


class CandidateSets:
    """The candidate rows of each original record.

    Built by :func:`candidate_sets`. Two representations share one interface:
    *groups* (global recoding: a record's candidates are the rows of its
    group, so a group of any size costs nothing) and *edges* (nonreciprocal:
    the match graph).
    """

    def __init__(self, n_records, n_rows, *, orig_group=None, row_group=None, edges=None):
        self.n_records = int(n_records)
        self.n_rows = int(n_rows)
        self._og, self._rg = orig_group, row_group
        if edges is not None:
            o, p = (np.asarray(a, dtype=np.int64) for a in edges)
            order = np.lexsort((p, o))
            self._o, self._p = o[order], p[order]
            self._ptr = np.zeros(self.n_records + 1, dtype=np.int64)
            np.cumsum(np.bincount(self._o, minlength=self.n_records), out=self._ptr[1:])
            self._keys = self._o * self.n_rows + self._p
        else:
            self._o = None

    @property
    def grouped(self) -> bool:
        """Whether the sets are given by groups (orig_group/row_group) rather than by match-graph edges."""
        return self._o is None

    def sizes(self, targets) -> np.ndarray:
        """Number of candidate rows of each target."""
        targets = np.asarray(targets, dtype=np.int64)
        if self.grouped:
            counts = np.bincount(
                self._rg, minlength=int(max(self._og.max(initial=-1), self._rg.max(initial=-1)) + 1)
            )
            return counts[self._og[targets]]
        return self._ptr[targets + 1] - self._ptr[targets]

    def contains(self, targets, rows) -> np.ndarray:
        """Whether ``rows[i]`` is a candidate of ``targets[i]`` (rows < 0: False)."""
        targets = np.asarray(targets, dtype=np.int64)
        rows = np.asarray(rows, dtype=np.int64)
        ok = rows >= 0
        out = np.zeros(len(targets), dtype=bool)
        if self.grouped:
            out[ok] = self._og[targets[ok]] == self._rg[rows[ok]]
            return out
        if len(self._keys):
            keys = targets[ok] * self.n_rows + rows[ok]
            pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
            out[ok] = self._keys[pos] == keys
        return out

    def label_counts(self, targets, row_labels: np.ndarray, n_labels: int) -> sp.csr_array:
        """Sparse (len(targets), n_labels): how many candidate rows carry each label."""
        targets = np.asarray(targets, dtype=np.int64)
        if self.grouped:
            n_groups = int(max(self._og.max(initial=-1), self._rg.max(initial=-1)) + 1)
            G = sp.csr_array(
                (np.ones(self.n_rows, dtype=np.int64), (self._rg, row_labels)),
                shape=(n_groups, n_labels),
            )
            G.sum_duplicates()
            return sp.csr_array(G[self._og[targets]])
        lo, hi = self._ptr[targets], self._ptr[targets + 1]
        lens = hi - lo
        t_idx = np.repeat(np.arange(len(targets)), lens)
        starts = np.repeat(lo - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        edge = np.arange(lens.sum()) + starts
        M = sp.csr_array(
            (np.ones(len(edge), dtype=np.int64), (t_idx, row_labels[self._p[edge]])),
            shape=(len(targets), n_labels),
        )
        M.sum_duplicates()
        return M


    def label_weights(self, targets, row_label_dist: sp.csr_array) -> sp.csr_array:
        """Sparse (len(targets), n_labels): the summed label distributions of each target's candidate rows.

        ``row_label_dist`` holds one distribution per row (one-hot for a row's
        own label; its label group's shares when labels are published in
        groups, :meth:`~graphanon.release.NonreciprocalRelease.group_label_shares`).
        """
        targets = np.asarray(targets, dtype=np.int64)
        if self.grouped:
            og, rg = self._og, self._rg
            n_groups = int(max(og.max(initial=-1), rg.max(initial=-1)) + 1)
            member = sp.csr_array((np.ones(self.n_rows), (rg, np.arange(self.n_rows))), shape=(n_groups, self.n_rows))
            return sp.csr_array(sp.csr_array(member @ row_label_dist)[og[targets]])
        lo, hi = self._ptr[targets], self._ptr[targets + 1]
        lens = hi - lo
        t_idx = np.repeat(np.arange(len(targets)), lens)
        starts = np.repeat(lo - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        edge = np.arange(lens.sum()) + starts
        T = sp.csr_array((np.ones(len(edge)), (t_idx, self._p[edge])), shape=(len(targets), self.n_rows))
        return sp.csr_array(T @ sp.csr_array(row_label_dist))


def candidate_sets(original, release) -> CandidateSets:
    """Candidate rows of every original record against ``release``.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from (what the adversary may know of
        each target).
    release : GlobalRecoding or NonreciprocalRelease

    Returns
    -------
    CandidateSets

    Notes
    -----
    Complexity: global recoding: O(occurrences + n log n). Nonreciprocal: that of
    :func:`~graphanon.privacy.nonreciprocal.nonreciprocal_matches`
    (blocked sparse products, O(n^2) cells).
    """
    check_release_size(original, release)
    n = original.n_records
    if getattr(release, "kind", None) == "global_recoding":
        words = _item_words([pi.label for pi in release.published_items])
        code = release.code_for(original)
        recoded = generalize_matrix(original.matrix, code, release.n_published_items)
        h_orig = set_hashes(recoded, words)
        h_pub = set_hashes(release.records, words)
        uniq, inv = np.unique(np.concatenate([h_orig, h_pub]), return_inverse=True)
        return CandidateSets(
            n, n, orig_group=inv[:n].astype(np.int64), row_group=inv[n:].astype(np.int64)
        )
    from graphanon.privacy.nonreciprocal import nonreciprocal_matches

    row_signatures(release)  # validates the kind
    o, p, _unknown = nonreciprocal_matches(original, release)
    return CandidateSets(n, n, edges=(o, p))


def row_label_hit(release, pub_code: np.ndarray, n_labels: int, rows: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Probability that reading row ``rows[e]`` gives label ``truth[e]``.

    ``1``/``0`` for a row's own label; with label groups
    (``release.label_groups``) the share of ``truth[e]`` in the row's group:
    the printed label is a uniform draw from the group.
    """
    groups = getattr(release, "label_groups", None)
    if groups is None:
        return (pub_code[rows] == truth).astype(float)
    g = np.asarray(groups, dtype=np.int64)
    G = np.zeros((int(g.max()) + 1 if len(g) else 0, n_labels))
    np.add.at(G, (g, pub_code), 1.0)
    G /= np.maximum(G.sum(axis=1), 1.0)[:, None]
    return G[g[rows], truth]
