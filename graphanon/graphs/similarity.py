"""Record-similarity graphs: records joined by their Jaccard similarity.

Two records are *similar* in proportion to the items they share:
``J(a, b) = |a & b| / |a | b|``. A record-similarity graph keeps, for each
record, the other records it shares at least one item with (every pair of
positive similarity, :meth:`RecordSimilarityGraph.overlap`) or only its
``k`` most similar ones (:meth:`RecordSimilarityGraph.knn`). Clustering
methods (Clump) draw their candidate group members from the nearest
neighbours; swapping methods look for the *least* similar partner, and every
record *not* adjacent in the overlap graph has similarity 0.

The overlap graph is computed by blocked sparse products ``X[rows] @ X.T``
(the intersection sizes); the kNN graph by an exact pruned search that never
forms that product (:mod:`graphanon.graphs._knn_kernel`: candidates from the
records' rarest items first, prefix and length bounds, each candidate
verified exactly), on threads or Dask workers in row blocks if asked. Never a
Python loop over record pairs; the graph is stored as one CSR matrix of
similarities. Pass any boolean record x item
matrix: the original records, or records generalized to a taxonomy level
(``taxonomy-aware`` similarity: two records that buy different cheeses are
similar at the level "Dairy").

References
----------
Jaccard, P. Étude comparative de la distribution florale dans une portion
des Alpes et du Jura. Bull. Soc. Vaudoise Sci. Nat. 37, 1901 (the coefficient).
Gunawan, Mambo. Data anonymization for hiding personal tendency in set-valued
database publication. Future Internet 11(6):138, 2019, Sec. 4 (least-similar
swap partner). Clump (SPEC §3): candidates from a similarity graph.

The least-similar partner matching of the swapping methods lives in
:mod:`graphanon.graphs.least_similar` (also importable from here).
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import bool_csr
from graphanon.errors import ParameterError
from graphanon.utils.progress import ProgressCallback

__all__ = ["RecordSimilarityGraph", "jaccard_to", "least_similar_matching"]  # noqa: F822 (the last through __getattr__)


def __getattr__(name: str):
    """``least_similar_matching``, imported on first use: its module compiles kernels a kNN graph does not need."""
    if name == "least_similar_matching":
        from graphanon.graphs.least_similar import least_similar_matching

        globals()[name] = least_similar_matching
        return least_similar_matching
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Intersection entries one block of the sparse product may hold (bounds memory: ~16 bytes each).
_BLOCK_NNZ = 4_000_000

#: Query rows from which ``knn(n_jobs=None)`` runs on every usable core; below, one thread
#: (the search then takes milliseconds, less than starting threads saves).
THREAD_ROWS = 5_000


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system reports it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def knn_jobs(n_jobs: int | None, n_rows: int) -> int:
    """Threads for ``n_rows`` query rows: ``n_jobs``, or with None every usable core from :data:`THREAD_ROWS` rows."""
    if n_jobs is None:
        return usable_cores() if n_rows >= THREAD_ROWS else 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ParameterError(f"n_jobs must be a whole number >= 1 or None, got {n_jobs!r}")
    return int(n_jobs)


def _bool_rows(X) -> sp.csr_array:
    """The records as a CSR of 0/1 ``int32`` (the sparse products count intersections)."""
    return bool_csr(X).astype(np.int32)


def jaccard_to(X, i: int, others) -> np.ndarray:
    """Exact Jaccard similarity of record ``i`` to each record in ``others``.

    Parameters
    ----------
    X : sparse or dense boolean matrix, shape (n, d)
    i : int
    others : array of int

    Returns
    -------
    ndarray of float
        ``|x_i & x_j| / |x_i | x_j|``, 0 when both records are empty.

    Notes
    -----
    Complexity: O(|others| * average record length).

    Examples
    --------
    >>> jaccard_to([[1, 1, 0], [0, 1, 1], [1, 1, 0]], 0, [1, 2]).tolist()
    [0.3333333333333333, 1.0]
    """
    X = _bool_rows(X)
    others = np.asarray(others, dtype=np.int64)
    sizes = np.diff(X.indptr)
    inter = np.asarray((X[others] @ X[[int(i)]].T).toarray()).ravel()
    union = sizes[others] + sizes[int(i)] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.maximum(union, 1), 0.0)


def _posting_index(X):
    """The records (items renumbered rarest first) and the posting lists of :func:`~graphanon.graphs._knn_kernel.knn_rows`.

    Returns ``(x_ptr, x_idx, p_ptr, p_rec, p_len, p_after, p_start)``,
    pointers ``int64`` and the rest ``int32`` (``int64`` past 2**31 records or items):
    the records as CSR over items ranked by increasing support (ties by
    item), and per item the records holding it sorted by (length, record),
    with their lengths, the number of their items after it and where their
    items start in ``x_idx``.
    """
    X = bool_csr(X)
    n, d = X.shape
    support = np.bincount(X.indices, minlength=d)
    rank = np.empty(d, dtype=np.int64)
    rank[np.lexsort((np.arange(d), support))] = np.arange(d)
    lengths = np.diff(X.indptr).astype(np.int64)
    record = np.repeat(np.arange(n, dtype=np.int64), lengths)
    item = rank[X.indices]
    # CSR of the renumbered items, sorted within each row
    order = np.lexsort((item, record))
    x_idx = item[order]
    x_ptr = X.indptr.astype(np.int64)
    # posting lists: by item, then record length, then record
    post = np.lexsort((record, lengths[record], item))
    p_rec = record[post]
    p_ptr = np.r_[0, np.cumsum(np.bincount(item, minlength=d))].astype(np.int64)
    after = np.empty(len(order), dtype=np.int64)  # items after this one in its record (rarest first)
    after[order] = x_ptr[record[order] + 1] - 1 - np.arange(len(order))
    small = np.int32 if max(n, d) < 2**31 else np.int64  # halves the memory the kernel walks
    return (x_ptr, x_idx.astype(small), p_ptr, p_rec.astype(small), lengths[p_rec].astype(small),
            after[post].astype(small), x_ptr[p_rec])


def _knn_matrix(n: int, rows: np.ndarray, counts, cols, sims) -> sp.csr_array:
    """The ``n x n`` CSR of the neighbour lists: ``counts[i]`` entries for row ``rows[i]``, in row order.

    Index arrays are ``int32`` while they fit (``cols`` is then kept, not
    copied into ``int64``).
    """
    small = np.int32 if max(n, len(cols)) < 2**31 else np.int64
    indptr = np.zeros(n + 1, dtype=small)
    indptr[rows + 1] = counts
    np.cumsum(indptr, out=indptr)
    M = sp.csr_array((sims, cols.astype(small, copy=False), indptr), shape=(n, n))
    M.has_sorted_indices = True
    return M


def _knn_block(index, rows: np.ndarray, k: int, *out):
    """One row block: ``knn_rows(*index, rows, k)`` (on a Dask worker), or with ``out`` its ``knn_fill`` into them.

    ``out`` is ``(counts, cols, sims)``, the block's slices of one output
    (``len(rows)`` counts, ``len(rows) * k`` slots); then the slots filled
    are returned.
    """
    from graphanon.graphs._knn_kernel import knn_fill, knn_rows, knn_work

    if out:
        work = knn_work(len(index[0]) - 1, len(index[2]) - 1, k)
        return knn_fill(*index, rows, k, *out, *work)  # type: ignore[call-arg]  # numba dispatcher
    return knn_rows(*index, rows, k)  # type: ignore[call-arg]  # index: the 7 arrays of _posting_index


def _knn_threads(index, rows: np.ndarray, k: int, n_jobs: int, progress: ProgressCallback | None):
    """``knn_rows(*index, rows, k)``, in ``4 * n_jobs`` consecutive row blocks on ``n_jobs`` threads when > 1.

    Every block fills its own slices of one preallocated output (``len(rows) * k``
    slots); the filled parts are then moved down in place, so no block's
    arrays are ever joined into a second copy.
    """
    if progress is not None:
        progress(0, len(rows), "k nearest records")
    n_rows = len(rows)
    counts = np.zeros(n_rows, dtype=np.int64)
    cols = np.empty(n_rows * k, dtype=np.int32)
    sims = np.empty(n_rows * k, dtype=np.float64)

    def block(ab):
        a, b = int(ab[0]), int(ab[1])
        return _knn_block(index, rows[a:b], k, counts[a:b], cols[a * k:b * k], sims[a * k:b * k])

    if n_jobs == 1 or n_rows < 2:
        starts, filled = [0], [block((0, n_rows))]
    else:
        from concurrent.futures import ThreadPoolExecutor

        edges = np.linspace(0, n_rows, 4 * n_jobs + 1).astype(np.int64)
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            filled = list(pool.map(block, zip(edges[:-1], edges[1:])))
        starts = [int(a) * k for a in edges[:-1]]
    end = 0
    for start, size in zip(starts, filled, strict=True):
        if start != end:  # move down (numpy copes with the overlap)
            cols[end:end + size] = cols[start:start + size]
            sims[end:end + size] = sims[start:start + size]
        end += int(size)
    if progress is not None:
        progress(n_rows, n_rows, "k nearest records")
    return counts, cols[:end], sims[:end]


def _knn_on_client(index, rows: np.ndarray, k: int, *, client, n_partitions: int | None,
                   progress: ProgressCallback | None):
    """``knn_rows(*index, rows, k)`` in row blocks on ``client``'s workers, joined in row order.

    The posting index is scattered to every worker once (``broadcast``); each
    task carries only its block of row numbers. The blocks are consecutive
    slices of ``rows``, so concatenating their outputs gives the one-process
    arrays.
    """
    if n_partitions is None:
        n_partitions = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    if isinstance(n_partitions, bool) or not isinstance(n_partitions, (int, np.integer)) or n_partitions < 1:
        raise ParameterError(f"n_partitions must be a whole number >= 1, got {n_partitions!r}")
    shared = client.scatter(index, broadcast=True, hash=False)
    edges = np.linspace(0, len(rows), int(n_partitions) + 1).astype(np.int64)
    futures = [client.submit(_knn_block, shared, rows[a:b], k, pure=False) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    parts = []
    for stop, future in zip(edges[1:], futures, strict=True):
        parts.append(future.result())
        if progress is not None:
            progress(int(stop), len(rows), "k nearest records")
    del futures, shared
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return tuple(np.concatenate([part[j] for part in parts]) for j in range(3))


class RecordSimilarityGraph:
    """A sparse graph of records weighted by Jaccard similarity.

    Build it with :meth:`overlap` (every pair sharing an item) or
    :meth:`knn` (each record's ``k`` most similar records).

    Parameters
    ----------
    matrix : sparse array, shape (n, n)
        ``matrix[i, j]`` is the similarity of records ``i`` and ``j`` for each
        kept pair (``i != j``); absent entries are pairs not kept. Symmetric
        for :meth:`overlap`; row ``i`` holds ``i``'s neighbours for :meth:`knn`.
    kind : str
        ``"overlap"``, ``"knn"`` or ``"custom"``.

    Attributes
    ----------
    n_records : int
    n_edges : int
        Stored (directed) entries.

    Examples
    --------
    >>> X = [[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 0]]
    >>> g = RecordSimilarityGraph.overlap(X)
    >>> g.neighbors(0)
    (array([1]), array([0.5]))
    >>> RecordSimilarityGraph.knn(X, 1).neighbors(2)
    (array([3]), array([0.5]))
    """

    def __init__(self, matrix, *, kind: str = "custom") -> None:
        M = sp.csr_array(matrix, dtype=np.float64)
        if M.shape[0] != M.shape[1]:
            raise ParameterError(f"a similarity graph needs a square matrix, got shape {M.shape}")
        M.sort_indices()
        self.matrix = M
        self.kind = kind

    # ------------------------------------------------------------------ building
    @staticmethod
    def _blocks(X: sp.csr_array, rows: np.ndarray):
        """Row blocks whose intersection products stay under ``_BLOCK_NNZ`` entries (estimated)."""
        col_support = np.diff(X.tocsc().indptr)
        # candidates of a row: sum over its items of the item's support (an upper bound)
        work = np.asarray(X @ col_support.astype(np.int64)).ravel()[rows]
        cum = np.cumsum(work)
        start = 0
        while start < len(rows):
            before = cum[start - 1] if start else 0
            stop = max(start + 1, int(np.searchsorted(cum, before + _BLOCK_NNZ, side="right")))
            yield rows[start:stop]
            start = stop

    @classmethod
    def _build(cls, X, rows, keep, progress: ProgressCallback | None, message: str):
        X = _bool_rows(X)
        n = X.shape[0]
        rows = np.arange(n, dtype=np.int64) if rows is None else np.unique(np.asarray(rows, dtype=np.int64))
        if len(rows) and (rows[0] < 0 or rows[-1] >= n):
            raise ParameterError(f"rows must be record indices in 0..{n - 1}")
        sizes = np.diff(X.indptr)
        XT = X.T.tocsr()
        parts_r, parts_c, parts_v = [], [], []
        done = 0
        for block in cls._blocks(X, rows):
            inter = sp.csr_array(X[block] @ XT)
            local = np.repeat(np.arange(len(block)), np.diff(inter.indptr))
            r, c, v = block[local], inter.indices.astype(np.int64), inter.data.astype(np.float64)
            off = r != c  # rows stay grouped (CSR order) after this filter
            r, c, v = r[off], c[off], v[off]
            sim = v / (sizes[r] + sizes[c] - v)
            r, c, sim = keep(r, c, sim)
            parts_r.append(r)
            parts_c.append(c)
            parts_v.append(sim)
            done += len(block)
            if progress is not None:
                progress(done, len(rows), message)
        if parts_r:
            r, c, v = np.concatenate(parts_r), np.concatenate(parts_c), np.concatenate(parts_v)
        else:
            r = c = np.zeros(0, np.int64)
            v = np.zeros(0)
        return sp.csr_array((v, (r, c)), shape=(n, n))

    @classmethod
    def overlap(
        cls, X, *, min_similarity: float = 0.0, rows=None, progress: ProgressCallback | None = None
    ) -> RecordSimilarityGraph:
        """Every pair of records sharing at least one item (similarity > ``min_similarity``).

        Parameters
        ----------
        X : boolean matrix, shape (n, d)
            Records (original or generalized items).
        min_similarity : float in [0, 1)
            Keep pairs whose similarity exceeds it.
        rows : array of int, optional
            Only the edges of these records (and their partners); default all.
        progress : callable(done, total, message), optional

        Returns
        -------
        RecordSimilarityGraph
            Symmetric when ``rows`` is None.

        Notes
        -----
        Complexity: O(sum over items of support^2) time for the sparse products, in blocks
        of at most a few million intersections; memory O(edges kept).
        """
        if not 0.0 <= float(min_similarity) < 1.0:
            raise ParameterError(f"min_similarity must lie in [0, 1), got {min_similarity!r}")

        def keep(r, c, sim):
            ok = sim > min_similarity
            return r[ok], c[ok], sim[ok]

        return cls(cls._build(X, rows, keep, progress, "similarity graph"), kind="overlap")

    @classmethod
    def knn(
        cls, X, k: int, *, rows=None, progress: ProgressCallback | None = None, n_jobs: int | None = None, client=None,
        n_partitions: int | None = None,
    ) -> RecordSimilarityGraph:
        """Each record's ``k`` most similar other records (positive similarity only).

        Ties are broken by the lower record index, so the graph is a function of
        the data alone. Exact: the same graph as keeping, per row, the ``k``
        best entries of the full product ``X @ X.T`` (tested against it), found
        without forming that product (:mod:`graphanon.graphs._knn_kernel`:
        candidates from the posting lists of the record's items, rarest first,
        each verified exactly, with prefix and length bounds that skip only
        records that cannot enter).

        Parameters
        ----------
        X : boolean matrix, shape (n, d)
        k : int >= 1
        rows : array of int, optional
            Only the neighbour lists of these records.
        progress : callable(done, total, message), optional
        n_jobs : int or None, default None
            Threads of this process computing row blocks (the kernel runs
            without the GIL); the same graph for every ``n_jobs``. None: every
            usable core from 5,000 query rows (:data:`THREAD_ROWS`), else one.
        client : dask.distributed.Client, optional
            Compute blocks of rows on this client's workers (the records and
            posting lists are scattered once); the same graph as without it.
        n_partitions : int, optional
            With ``client``: row blocks (default twice the workers).

        Returns
        -------
        RecordSimilarityGraph
            Row ``i`` holds at most ``k`` neighbours (fewer when fewer records
            share an item with ``i``); not symmetric.

        Notes
        -----
        Complexity: at worst one verification (a pass over the candidate's
        items) per pair of the sparse product, far less in practice: a row
        stops once its ``k``-th similarity exceeds what its unvisited items
        and the record lengths allow (full bms1, 50 neighbours: 14.0 M
        verifications, against 158 M item co-occurrences summed by the
        product; see ``docs/performance.md``). Memory O(nnz + n k).

        Examples
        --------
        >>> X = [[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 1]]
        >>> g = RecordSimilarityGraph.knn(X, 2)
        >>> g.neighbors(0)
        (array([1, 2]), array([0.5       , 0.66666667]))

        References
        ----------
        Xiao, Wang, Lin, Shang. Top-k set similarity joins. ICDE 2009 (the bounds).
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError(f"k must be a whole number >= 1, got {k!r}")
        knn_jobs(n_jobs, 0)  # refuse a bad n_jobs before any work
        index = _posting_index(X)
        n = len(index[0]) - 1
        if n >= 2**31:
            raise ParameterError(f"knn supports fewer than 2**31 records, got {n}")
        rows = np.arange(n, dtype=np.int64) if rows is None else np.unique(np.asarray(rows, dtype=np.int64))
        if len(rows) and (rows[0] < 0 or rows[-1] >= n):
            raise ParameterError(f"rows must be record indices in 0..{n - 1}")
        if client is not None:
            counts, cols, sims = _knn_on_client(index, rows, int(k), client=client, n_partitions=n_partitions,
                                                progress=progress)
        else:
            counts, cols, sims = _knn_threads(index, rows, int(k), knn_jobs(n_jobs, len(rows)), progress)
        return cls(_knn_matrix(n, rows, counts, cols, sims), kind="knn")

    # ------------------------------------------------------------------ queries
    @property
    def n_records(self) -> int:
        """The number of records."""
        return self.matrix.shape[0]

    @property
    def n_edges(self) -> int:
        """The number of stored similarity entries."""
        return self.matrix.nnz

    def neighbors(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Neighbours of record ``i`` and their similarities (by record index)."""
        lo, hi = self.matrix.indptr[i], self.matrix.indptr[i + 1]
        return self.matrix.indices[lo:hi].astype(np.int64), self.matrix.data[lo:hi].copy()

    def degrees(self) -> np.ndarray:
        """Stored neighbours per record."""
        return np.diff(self.matrix.indptr)

    def subgraph(self, nodes) -> RecordSimilarityGraph:
        """The graph induced on ``nodes`` (renumbered ``0..len(nodes)-1`` in the given order)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        return RecordSimilarityGraph(self.matrix[nodes][:, nodes], kind=self.kind)

    def to_networkx(self, *, max_edges: int = 200_000):
        """An undirected :class:`networkx.Graph` (edge attribute ``weight`` = similarity).

        Raises :class:`ParameterError` past ``max_edges`` stored entries: take a
        :meth:`subgraph` first.
        """
        import networkx as nx

        if self.n_edges > max_edges:
            raise ParameterError(
                f"the similarity graph has {self.n_edges} entries, more than max_edges={max_edges}: "
                "draw a subgraph(nodes) or raise max_edges"
            )
        coo = self.matrix.tocoo()
        g = nx.Graph()
        g.add_nodes_from(range(self.n_records))
        g.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True))
        return g

    def to_igraph(self):
        """An undirected :class:`igraph.Graph` (edge attribute ``weight``); duplicates merged by max."""
        import igraph as ig

        upper = sp.triu(self.matrix.maximum(self.matrix.T), k=1).tocoo()
        g = ig.Graph(n=self.n_records, edges=np.column_stack([upper.row, upper.col]).tolist(), directed=False)
        g.es["weight"] = upper.data.tolist()
        return g

    def __repr__(self) -> str:
        """A short summary: kind, records and entries."""
        return f"<RecordSimilarityGraph ({self.kind}): {self.n_records} records, {self.n_edges} entries>"
