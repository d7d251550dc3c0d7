"""Containment counting on Dask: k^infinity without enumerating itemsets, records partitioned.

:func:`graphanon.containment.record_supports` gives, for every record, the
number of records that contain all of its items; a release is
k^infinity-anonymous exactly when every non-empty record has at least ``k``
(proof in :mod:`graphanon.containment`). Here the records are row blocks on
the workers of a ``dask.distributed.Client`` and the count is a sum over
blocks:

``supp(t) = sum over blocks d of |{s in d : t <= s}|``.

1. Each block is reduced to its distinct records with their multiplicities
   (:func:`graphanon.containment.distinct_records`), its item posting lists
   (CSC) and the sorted ``(record, item)`` keys: the *index* of the block.
2. For every pair (query block ``q``, data block ``d``) one task counts, for
   each distinct record of ``q``, the records of ``d`` containing it: the
   candidates are the records of ``d`` holding the query's rarest item in
   ``d`` (the pivot), each tested against the query's other items by binary
   search in ``d``'s keys - the single-process kernel, with ``d``'s index.
3. The ``B`` counts of each query block are summed as a tree on the workers,
   and only the per-record supports (8 bytes a record) come back.

Integer counts summed exactly: the result equals the single-process one.

Complexity
----------
``B^2`` tasks for ``B`` blocks; task ``(q, d)`` costs the candidate pairs
``sum over distinct records r of q of |posting_d(pivot_d(r))|`` times the
record length, the same total as one process (a record's pivot posting list
is split over the blocks) up to the choice of pivot per block. Each block
index travels to the workers that count against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon._memory import available_memory, cost_blocks
from graphanon._progress import ProgressCallback
from graphanon.containment import _block_supports, distinct_records
from graphanon.distributed._blocks import as_blocks, track, tree

__all__ = ["record_supports"]

_PAIR_BYTES = 48  # per candidate pair: (row, candidate, key) arrays and the search's temporaries
_MIN_PAIRS, _MAX_PAIRS = 1 << 16, 1 << 22


@dataclass(frozen=True)
class _Index:
    """One block's distinct records, their multiplicities and the lookup structures of the kernel."""

    U: sp.csr_array  # distinct records (bool, sorted indices)
    inverse: np.ndarray  # record i of the block is U[inverse[i]]
    counts: np.ndarray  # multiplicity of each distinct record
    Uc: sp.csc_array  # posting lists: the distinct records holding each item
    keys: np.ndarray  # sorted row * n_items + item of U

    @classmethod
    def of(cls, Xb) -> _Index:
        U, inverse, counts = distinct_records(Xb)
        Uc = U.tocsc()
        Uc.sort_indices()
        lengths = np.diff(U.indptr)
        keys = np.arange(U.shape[0], dtype=np.int64).repeat(lengths) * U.shape[1] + U.indices
        return cls(U, inverse, counts, Uc, keys)


def _contained(q: _Index, d: _Index) -> np.ndarray:
    """For each distinct record of ``q``: the records of ``d`` (with multiplicity) that contain it."""
    U, n_items = q.U, q.U.shape[1]
    lengths = np.diff(U.indptr)
    out = np.zeros(U.shape[0], dtype=np.int64)
    out[lengths == 0] = d.counts.sum()  # an empty record is contained in every record
    nonempty = np.flatnonzero(lengths > 0)
    if not len(nonempty) or d.U.nnz == 0:
        return out
    post = np.diff(d.Uc.indptr)
    # Items of each query record, rarest in d first: the first one is the pivot.
    row_of = np.repeat(np.arange(U.shape[0]), lengths)
    items = U.indices[np.lexsort((U.indices, post[U.indices], row_of))].astype(np.int64)
    pivot_len = post[items[U.indptr[nonempty]]]
    budget = max(_MIN_PAIRS, min(_MAX_PAIRS, available_memory() // (2 * _PAIR_BYTES)))
    for a, b in cost_blocks(pivot_len, budget):
        rows = nonempty[a:b]
        out[rows] = _block_supports(rows, U.indptr, items, d.Uc, d.keys, d.counts, n_items)
    return out


def _per_record(q: _Index, distinct_sup: np.ndarray) -> np.ndarray:
    return distinct_sup[q.inverse]


def record_supports(
    X, *, client, n_partitions: int | None = None, progress: ProgressCallback | None = None
) -> np.ndarray:
    """:func:`graphanon.containment.record_supports` with records in blocks on the workers of ``client``.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items), or Blocks
        Boolean incidence matrix (cut into ``n_partitions`` blocks and
        scattered), or :class:`~graphanon.distributed.Blocks` already on the
        workers.
    client : dask.distributed.Client
    n_partitions : int, optional
        Record blocks (default twice the workers).
    progress : callable(done, total, message), optional
        Called as each of the ``B^2`` (query block, data block) counts finishes.

    Returns
    -------
    ndarray of int64, shape (n_records,)
        For each record, the number of records containing all of its items
        (an empty record: ``n_records``). Equal to the single-process result.

    Complexity
    ----------
    See the module docstring: ``B^2`` tasks, about the single-process work
    in total, one index per block.

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2, processes=False)) as client:  # doctest: +SKIP
    ...     record_supports(X, client=client)
    """
    blocks = as_blocks(X, client, n_partitions)
    indexes = client.map(_Index.of, blocks.futures)
    counts = [[client.submit(_contained, q, d) for d in indexes] for q in indexes]
    distinct = [tree(client, row) for row in counts]
    track([c for row in counts for c in row], progress, "containment counts")
    parts = client.gather([client.submit(_per_record, q, s) for q, s in zip(indexes, distinct, strict=True)])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

