"""Nonreciprocal releases that are one release to the adversary (the joint audit's shortcut).

Two nonreciprocal releases of the same records are *alike* when some
bijection ``phi`` of their rows keeps every row's content (base, distance
and threshold, items compared by name) and its printed label, or -- for
releases with label groups -- keeps every row's content and maps each label
group onto a group with the same published label multiset. A release made
with ``--prior`` on identical data is alike its prior (it reuses the prior's
rows, labels and groups in a fresh order), and so is a release published
twice.

**Lemma.** The joint worlds of alike releases ``R1, R2`` are exactly the
worlds of ``R1`` each completed by ``phi``: the joint candidate labels and
rows of every record are those ``R1`` gives alone.

*Proof.* A world of ``R1`` is a label per record and a perfect matching
``M`` of the match graph (for a grouped release: meeting every group's label
counts, :mod:`graphanon.privacy.joint_groups`). Whether record ``a`` matches
row ``j`` depends only on ``a``'s items and ``j``'s content, so ``phi o M``
is a perfect matching of ``R2``; it puts on ``phi(j)`` the record ``M``
puts on ``j``, so on ``phi(G)`` the records of ``G``, whose label counts are
``G``'s, hence ``phi(G)``'s (without groups: the record on ``phi(j)`` has
``j``'s printed label, which is ``phi(j)``'s). So every world of ``R1``
extends to a joint world, and every joint world restricts to one of
``R1``. []

Whether a ``phi`` exists is read from the public files alone (no private
link): rows are sorted into exact content classes
(:func:`~graphanon.counting.rows.row_classes`, hash then entry-by-entry
comparison), and a grouped release's groups into classes of their
(row-class multiset, label multiset); the releases are alike when the two
multisets of classes are equal. Releases that differ in a single row or in
one group's labels or membership are not alike and go through the full
joint audit.

A single labelled release needs no exact step: every viable match edge (one
some perfect matching uses) gives its record its row's label (without
groups), or any label of the row's group (the other records on the group's
rows take the rest of its multiset), so the propagation's label sets are
already those of its worlds. Hence alike releases are audited exactly, in
the time of the propagation on one release.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (possible worlds: perfect
matchings of the match graph).
X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB
2006, Sec. 3 (a group's sensitive values published as a multiset).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import row_classes

__all__ = ["alike_releases", "releases_alike"]


def _row_matrix(release, col: dict, d: int, t_top: int, codes: dict, with_label: bool) -> sp.csr_array:
    """Each row as a set of columns: base items, distance items, its threshold (and its printed label)."""
    where = np.array([col[x] for x in release.items], dtype=np.int64)
    n = release.n_records
    base, dist = sp.csr_array(release.base).tocoo(), sp.csr_array(release.distance).tocoo()
    rows = [base.row, dist.row, np.arange(n)]
    cols = [where[base.col], d + where[dist.col], 2 * d + np.asarray(release.threshold, dtype=np.int64)]
    width = 3 * d + t_top + 1
    if with_label:
        rows.append(np.arange(n))
        cols.append(width + np.array([codes[x] for x in release.labels], dtype=np.int64))
        width += len(codes)
    r, c = np.concatenate(rows), np.concatenate(cols)
    M = sp.csr_array((np.ones(len(r), dtype=np.int8), (r, c)), shape=(n, width))
    M.sum_duplicates()
    M.sort_indices()
    return M


def _multiset_rows(owner: np.ndarray, value: np.ndarray, n_owner: int, n_value: int, top: int) -> sp.csr_array:
    """Per owner, the multiset of its values as a set of columns ``value * (top + 1) + count``."""
    key = owner * n_value + value
    uniq, count = np.unique(key, return_counts=True)
    return sp.csr_array((np.ones(len(uniq), dtype=np.int8), (uniq // n_value, (uniq % n_value) * (top + 1) + count)),
                        shape=(n_owner, n_value * (top + 1)))  # fmt: skip


def releases_alike(a, b) -> bool:
    """Whether two nonreciprocal releases are one release to the adversary (module docstring).

    Parameters
    ----------
    a, b : NonreciprocalRelease

    Returns
    -------
    bool
        True when a bijection of their rows keeps each row's content and its
        printed label (releases without label groups) or its content and
        maps groups onto groups of equal label multisets (grouped releases).
        Releases of different sizes, items, or label publication are not alike.

    Notes
    -----
    Complexity: O(published entries + n log n): exact row classes of both
    releases stacked, then of their groups' multisets.

    Examples
    --------
    >>> from graphanon.release import NonreciprocalRelease
    >>> r = NonreciprocalRelease(["a", "b"], [[1, 0], [0, 1], [1, 1]], [[0, 1], [1, 0], [0, 0]], [1, 1, 0],
    ...                          ["x", "y", "x"], label_groups=[0, 0, 1])
    >>> shuffled = NonreciprocalRelease(["b", "a"], [[1, 1], [0, 1], [1, 0]], [[0, 0], [1, 0], [0, 1]], [0, 1, 1],
    ...                                 ["x", "x", "y"], label_groups=[1, 0, 0])
    >>> releases_alike(r, shuffled)
    True
    >>> other = NonreciprocalRelease(["a", "b"], r.base, r.distance, r.threshold, r.labels, label_groups=[0, 1, 1])
    >>> releases_alike(r, other)
    False
    """
    if a.n_records != b.n_records or set(a.items) != set(b.items) or len(a.items) != len(b.items):
        return False
    if (a.labels is None) != (b.labels is None):
        return False
    ga, gb = getattr(a, "label_groups", None), getattr(b, "label_groups", None)
    if a.labels is not None and (ga is None) != (gb is None):
        return False
    grouped = a.labels is not None and ga is not None
    col = {x: j for j, x in enumerate(a.items)}
    d = len(a.items)
    values = set() if a.labels is None else set(a.labels) | set(b.labels)
    codes = {x: c for c, x in enumerate(sorted(values, key=repr))}
    with_label = a.labels is not None and not grouped
    thresholds = np.concatenate([np.asarray(a.threshold, dtype=np.int64), np.asarray(b.threshold, dtype=np.int64)])
    if len(thresholds) and thresholds.min() < 0:  # pragma: no cover - releases check their thresholds
        return False
    t_top = int(thresholds.max(initial=0))
    Ma, Mb = (_row_matrix(r, col, d, t_top, codes, with_label) for r in (a, b))
    rc = row_classes(sp.vstack([Ma, Mb], format="csr"))
    n = a.n_records
    if not grouped:
        n_rc = int(rc.max(initial=-1)) + 1
        return bool(np.array_equal(np.bincount(rc[:n], minlength=n_rc), np.bincount(rc[n:], minlength=n_rc)))
    # grouped: each group as (its rows' content classes, its label counts), both as multisets
    _, g_a = np.unique(np.asarray(ga, dtype=np.int64), return_inverse=True)
    _, g_b = np.unique(np.asarray(gb, dtype=np.int64), return_inverse=True)
    n_a, n_b = int(g_a.max(initial=-1)) + 1, int(g_b.max(initial=-1)) + 1
    if n_a != n_b:
        return False
    owner = np.concatenate([g_a.reshape(-1), n_a + g_b.reshape(-1)])
    top = int(np.bincount(owner).max(initial=0))
    lab = np.array([codes[x] for x in list(a.labels) + list(b.labels)], dtype=np.int64)
    content = _multiset_rows(owner, rc, 2 * n_a, int(rc.max(initial=-1)) + 1, top)
    labels = _multiset_rows(owner, lab, 2 * n_a, max(len(codes), 1), top)
    G = sp.csr_array(sp.hstack([content, labels], format="csr"))
    G.sort_indices()
    gc = row_classes(G)
    n_gc = int(gc.max(initial=-1)) + 1
    return bool(np.array_equal(np.bincount(gc[:n_a], minlength=n_gc), np.bincount(gc[n_a:], minlength=n_gc)))


def alike_releases(releases: Sequence, members: Sequence | None = None) -> np.ndarray:
    """Per release, the first release it is alike (itself when none before it is).

    Parameters
    ----------
    releases : sequence of NonreciprocalRelease
    members : sequence, optional
        Per release, the positions of its records in the joint data (None:
        every release holds all of it). Releases of different records are
        never alike.

    Returns
    -------
    ndarray of int64 (n_releases,)
        ``rep[r] == r`` for the releases the joint audit must read; the
        others add nothing to them (module docstring).

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.algorithms.prior import reuse_priors
    >>> from graphanon.datasets import load
    >>> table = load("nr_table1")
    >>> first = anonymize_cahd(table, l=3)
    >>> alike_releases([first, reuse_priors(table, first, k=None, l=3)]).tolist()
    [0, 0]
    """
    rep = np.arange(len(releases), dtype=np.int64)
    # the records each release holds, as a key (None: all of the data)
    keys = [None if m is None else np.unique(np.asarray(m, dtype=np.int64)).tobytes()
            for m in (members or [None] * len(releases))]
    for r in range(len(releases)):
        for s in range(r):
            if rep[s] == s and keys[r] == keys[s] and releases_alike(releases[s], releases[r]):
                rep[r] = s
                break
    return rep
