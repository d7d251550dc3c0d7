"""The match graph of a nonreciprocal release, rebuilt from the original data alone.

Original record ``i`` *matches* published row ``j`` when ``i`` lies in the
possible worlds of ``j``: equal to ``j``'s base bitmap outside its distance
positions, and at most ``threshold[j]`` flips away from the base on them.
The audits only read the release's public arrays (``items``, ``base``,
``distance``, ``threshold``, ``labels``, ``n_records``); they never use row
order, pseudonyms or identifiers, and share no code with the anonymizers or
with the release's own matcher.

Both sides are first compressed to *classes*: identical original records
(same items) form one record class, identical published rows (same base,
distance, threshold, and label when asked) form one row class. Every record
of a class has the same matches, so the graph is stored once per class pair
and a class pair ``(A, B)`` stands for the complete bipartite block ``A x B``.
Matches are found per row class by candidate generation
(:mod:`graphanon.privacy._match_candidates`): the record classes holding the
row's rarest *core* item (in the base, not in the distance) whose own rarest
item lies in the row, or, for a row without core items, the record classes
inside the distance positions, each screened by an item signature and
checked item by item.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (possible worlds, match graph).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.privacy._match_candidates import CandidateIndex, class_edges
from graphanon.utils.memory import check_memory
from graphanon.utils.progress import ProgressCallback

__all__ = ["MatchClasses", "match_classes", "nonreciprocal_matches", "row_classes"]

#: peak memory of the audit per original item occurrence (measured: quest 10^6, k = 5: 1.1 GB for 10^7)
_BYTES_PER_OCCURRENCE = 120



def require_nr(release, model: str) -> None:
    for attr in ("base", "distance", "threshold", "items", "n_records"):
        if not hasattr(release, attr):
            raise ParameterError(
                f"{model} audits nonreciprocal releases (base/distance/threshold per row); "
                f"got a {type(release).__name__}"
            )


def _segment_hash(M: sp.csr_array, weights: np.ndarray) -> np.ndarray:
    """Per row, the wrap-around uint64 sum of ``weights`` over its columns."""
    cs = np.zeros(M.nnz + 1, dtype=np.uint64)
    np.cumsum(weights[M.indices], out=cs[1:])
    return (cs[M.indptr[1:]] - cs[M.indptr[:-1]]).view(np.int64)


def row_classes(matrices, keys=()) -> tuple[np.ndarray, np.ndarray]:
    """Classes of identical rows across sparse boolean ``matrices`` and integer ``keys``.

    Rows are sorted by (length, two random column hashes, keys) and then
    compared *exactly* with their predecessor: a class never mixes different
    rows, whatever the hashes do (a collision can only split a class, which
    every consumer tolerates, never merge two).

    Parameters
    ----------
    matrices : sequence of csr_array with sorted indices, same number of rows
    keys : sequence of int arrays, one value per row

    Returns
    -------
    cls : ndarray of int64, shape (n,)
        Class of each row, numbered by first appearance in sorted order.
    size : ndarray of int64
        Rows per class.

    Notes
    -----
    Complexity: O(nnz + n log n).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> M = sp.csr_array(np.array([[1, 0], [0, 1], [1, 0]], dtype=bool))
    >>> cls, size = row_classes([M])
    >>> bool(cls[0] == cls[2] != cls[1]), sorted(size.tolist())
    (True, [1, 2])
    """
    n = matrices[0].shape[0] if matrices else len(keys[0])
    gen = np.random.default_rng(0x5EED)  # hashing only: nothing secret depends on it
    cols = []
    for M in matrices:
        cols.append(np.diff(M.indptr).astype(np.int64))
        for _ in range(2):
            cols.append(_segment_hash(M, gen.integers(0, 2**63, size=M.shape[1], dtype=np.uint64)))
    cols.extend(np.asarray(k, dtype=np.int64) for k in keys)
    order = np.lexsort(cols[::-1]) if cols else np.arange(n)
    same = np.ones(max(n - 1, 0), dtype=bool)
    for c in cols:
        cs = c[order]
        same &= cs[1:] == cs[:-1]
    for M in matrices:
        S = M[order]
        ln = np.diff(S.indptr)
        rows = np.flatnonzero(same) + 1  # row r equal in length (and hash) to row r - 1
        cnt = ln[rows]
        if cnt.sum() == 0:
            continue
        owner = np.repeat(np.arange(len(rows)), cnt)
        within = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        cur = S.indices[S.indptr[rows][owner] + within]
        prev = S.indices[S.indptr[rows - 1][owner] + within]
        differ = np.bincount(owner, weights=cur != prev, minlength=len(rows)) > 0
        same[rows[differ] - 1] = False
    start = np.concatenate([[True], ~same]) if n else np.zeros(0, dtype=bool)
    sorted_cls = np.cumsum(start) - 1
    cls = np.empty(n, dtype=np.int64)
    cls[order] = sorted_cls
    return cls, np.bincount(cls, minlength=int(start.sum())).astype(np.int64)


def _representatives(cls: np.ndarray, n_classes: int) -> np.ndarray:
    rep = np.empty(n_classes, dtype=np.int64)
    rep[cls[::-1]] = np.arange(len(cls))[::-1]
    return rep


def _members(cls: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR-style (indptr, rows) listing the rows of each class."""
    order = np.argsort(cls, kind="stable")
    ptr = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(cls, minlength=n_classes), out=ptr[1:])
    return ptr, order


@dataclass
class MatchClasses:
    """The match graph compressed to classes.

    Attributes
    ----------
    record_class : ndarray (n_original,)
        Class of each original record (identical records share one).
    record_size : ndarray (n_record_classes,)
        Records per class.
    row_class : ndarray (n_published,)
        Class of each published row (identical base, distance, threshold
        [and label when built with ``by_label=True``]).
    row_size : ndarray (n_row_classes,)
        Rows per class.
    edge_record, edge_row : ndarray (n_edges,)
        Class pairs ``(A, B)``: every record of ``A`` matches every row of ``B``.
    unknown : ndarray of bool (n_original,)
        Records holding an item the release does not know (they match nothing).
    row_label : ndarray or None (n_row_classes,)
        Label code of each row class (``by_label=True`` only); ``labels`` lists
        the label values by code.
    """

    record_class: np.ndarray
    record_size: np.ndarray
    row_class: np.ndarray
    row_size: np.ndarray
    edge_record: np.ndarray
    edge_row: np.ndarray
    unknown: np.ndarray
    row_label: np.ndarray | None = None
    labels: tuple | None = None

    @property
    def n_edges(self) -> int:
        """Edges of the uncompressed record-by-row match graph."""
        return int((self.record_size[self.edge_record] * self.row_size[self.edge_row]).sum())

    def degrees(self) -> tuple[np.ndarray, np.ndarray]:
        """Matches per record class and per row class (uncompressed counts)."""
        ea, eb = self.edge_record, self.edge_row
        per_a = np.bincount(ea, weights=self.row_size[eb], minlength=len(self.record_size))
        per_b = np.bincount(eb, weights=self.record_size[ea], minlength=len(self.row_size))
        return per_a.astype(np.int64), per_b.astype(np.int64)


def _original_in_release_columns(original, release) -> tuple[sp.csr_array, np.ndarray]:
    """Original records in the release's item columns, and records with unknown items."""
    index = {x: j for j, x in enumerate(release.items)}
    cols = np.array([index.get(x, -1) for x in original.items], dtype=np.int64)
    X = sp.csr_array(original.matrix)
    n, d = X.shape[0], len(release.items)
    unknown = np.zeros(n, dtype=bool)
    if (cols < 0).any():
        unknown = np.asarray(X[:, np.flatnonzero(cols < 0)].sum(axis=1)).ravel() > 0
    coo = X.tocoo()
    keep = (cols[coo.col] >= 0) & (coo.data != 0)
    Y = sp.csr_array(
        (np.ones(int(keep.sum()), dtype=bool), (coo.row[keep], cols[coo.col[keep]])), shape=(n, d)
    )
    Y.sum_duplicates()
    Y.sort_indices()
    return Y, unknown


def _label_codes(values) -> tuple[np.ndarray, tuple]:
    codes: dict = {}
    arr = np.array([codes.setdefault(v, len(codes)) for v in values], dtype=np.int64)
    return arr, tuple(codes)


def match_classes(
    original,
    release,
    *,
    by_label: bool = False,
    block_edges: int = 4_000_000,
    progress: ProgressCallback | None = None,
) -> MatchClasses:
    """The class-compressed match graph of ``release`` against ``original``.

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease (or any object with ``items``, ``base``,
        ``distance``, ``threshold``, ``labels`` and ``n_records``)
    by_label : bool
        Put the published label in the row-class key (for l-diversity).
    block_edges : int
        Class edges found per call of the candidate kernel (bounds memory).
    progress : callable(done, total, message), optional
        Called after each block of row classes.

    Returns
    -------
    MatchClasses

    Notes
    -----
    Complexity: O(nnz log nnz) to form the classes and the candidate index, then, per
    row class, the record classes holding its rarest core item whose rarest
    item lies in the row (or lying inside its distance positions when the
    base does), screened in O(1) and checked in O(record length) each.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> mc = match_classes(data, anonymize_nonreciprocal(data, k=3, order="identity", rng=0))
    >>> int(mc.degrees()[0].min()) >= 3
    True
    """
    require_nr(release, "the match graph")
    if by_label and release.labels is None:
        raise ParameterError("the release publishes no labels")
    nnz = int(sp.csr_array(original.matrix).nnz)
    check_memory(
        _BYTES_PER_OCCURRENCE * nnz,
        what=f"the match graph of {original.n_records} records ({nnz} item occurrences)",
        advice="audit on a machine with more memory (the classes, candidate index and class edges are held at once)",
    )
    Y, unknown = _original_in_release_columns(original, release)
    a_of, a_size = row_classes([Y], [unknown.astype(np.int64)])
    B = sp.csr_array(release.base, dtype=bool)
    D = sp.csr_array(release.distance, dtype=bool)
    B.sort_indices()
    D.sort_indices()
    thr = np.asarray(release.threshold, dtype=np.int64)
    keys = [thr]
    row_label, labels = None, None
    if by_label:
        lab_codes, labels = _label_codes(release.labels)
        keys.append(lab_codes)
    b_of, b_size = row_classes([B, D], keys)
    na, nb = len(a_size), len(b_size)
    ra, rb = _representatives(a_of, na), _representatives(b_of, nb)
    if by_label:
        row_label = lab_codes[rb]
    alive = ~unknown[ra]
    X = Y[ra]
    empties = np.flatnonzero(alive & (np.diff(X.indptr) == 0))
    empty_cls = int(empties[0]) if len(empties) else -1
    index = CandidateIndex(X, np.flatnonzero(alive))
    Bc, Dc = B[rb], D[rb]
    i64 = np.int64
    rows = (Bc.indptr.astype(i64), Bc.indices.astype(i64), Dc.indptr.astype(i64), Dc.indices.astype(i64), thr[rb])
    ea, eb = class_edges(rows, X, index, empty_cls, block_edges=block_edges, progress=progress)
    return MatchClasses(a_of, a_size, b_of, b_size, ea, eb, unknown, row_label, labels)


def _segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concat(arange(s, s + n) for s, n in zip(starts, lengths))``."""
    total = int(lengths.sum())
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)


def expand_edges(
    mc: MatchClasses, *, max_edges: int = 50_000_000, block: int = 4_000_000
) -> tuple[np.ndarray, np.ndarray]:
    """Record-level edges ``(orig, pub)`` of a class-compressed match graph, sorted by (orig, pub).

    Every record of a class gets the same sorted row list, so the output is
    filled record by record in blocks of about ``block`` edges (bounded
    temporaries, no global sort).
    """
    total = mc.n_edges
    if total > max_edges:
        raise ParameterError(
            f"the match graph has {total:,} record-row edges, more than max_edges={max_edges:,}; "
            "raise max_edges or work on the classes (graphanon.privacy.match_graph.match_classes)"
        )
    # the sorted rows matched by each record class, one after another
    b_ptr, b_rows = _members(mc.row_class, len(mc.row_size))
    by_a = np.argsort(mc.edge_record, kind="stable")
    ea, eb = mc.edge_record[by_a], mc.edge_row[by_a]
    rows = b_rows[_segments(b_ptr[eb], mc.row_size[eb])]
    owner = np.repeat(ea, mc.row_size[eb])
    rows = rows[np.lexsort((rows, owner))]
    deg = np.bincount(owner, minlength=len(mc.record_size))
    first = np.cumsum(deg) - deg
    rec_deg = deg[mc.record_class]
    orig = np.repeat(np.arange(len(rec_deg), dtype=np.int64), rec_deg)
    pub = np.empty(total, dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(rec_deg)])
    lo = 0
    while lo < len(rec_deg):
        hi = int(np.searchsorted(ptr, ptr[lo] + block, side="right"))
        hi = max(hi - 1, lo + 1)
        pub[ptr[lo] : ptr[hi]] = rows[_segments(first[mc.record_class[lo:hi]], rec_deg[lo:hi])]
        lo = hi
    return orig, pub


def nonreciprocal_matches(
    original, release, *, max_edges: int = 50_000_000, progress: ProgressCallback | None = None
):
    """Every (original record, published row) match pair, computed independently.

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease
    max_edges : int
        Refuse (``ParameterError``) to expand more record-row edges than this;
        use :func:`match_classes` for very large graphs.
    progress : callable(done, total, message), optional

    Returns
    -------
    orig, pub : ndarray of int64
        Edge endpoints: original record ``orig[e]`` (row of ``original``)
        lies in the possible worlds of published row ``pub[e]``; sorted by
        ``(orig, pub)``.
    unknown : ndarray of bool
        Original records holding an item the release does not know (they
        match nothing).

    Notes
    -----
    Complexity: that of :func:`match_classes` plus O(edges) to expand the classes.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> orig, pub, unknown = nonreciprocal_matches(data, anonymize_nonreciprocal(data, k=2, order="identity", rng=0))
    >>> bool((np.bincount(orig, minlength=6) >= 2).all()), bool(unknown.any())
    (True, False)
    """
    mc = match_classes(original, release, progress=progress)
    orig, pub = expand_edges(mc, max_edges=max_edges)
    return orig, pub, mc.unknown
