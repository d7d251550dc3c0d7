"""Containment counting on Dask: k^infinity without enumerating itemsets, records partitioned.

:func:`graphanon.counting.containment.record_supports` gives, for every record, the
number of records that contain all of its items; a release is
k^infinity-anonymous exactly when every non-empty record has at least ``k``
(proof in :mod:`graphanon.counting.containment`). Here the records are row blocks on
the workers of a ``dask.distributed.Client`` and the count is a sum over
blocks:

``supp(t) = sum over blocks d of |{s in d : t <= s}|``.

1. Each block ``q`` is reduced to its distinct records ``U_q``
   (:func:`graphanon.counting.containment.distinct_records`).
2. For every pair (query block ``q``, data block ``d``) one task counts, for
   each distinct record of ``q``, the records of ``d`` containing it:
   :func:`graphanon.counting.containment.contained_counts` ``(U_q, X_d)``, the
   single-process counter (candidates through the query's rarest item in
   ``d``, tested by binary search in ``d``'s sorted keys).
3. The ``B`` counts of each query block are summed as a tree on the workers,
   mapped back to the block's records, and only the per-record supports
   (8 bytes a record) come back.

Integer counts summed exactly: the result equals the single-process one,
and whatever speeds up the single-process counter speeds up this one.

Notes
-----
Complexity: ``B^2`` tasks for ``B`` blocks. Task ``(q, d)`` costs the candidate pairs
``sum over distinct records r of q of |posting_d(pivot_d(r))|`` times the
record length: a record's candidates in one process are split over the
blocks, so the total is about the single-process work (the pivot is chosen
per block, and each block's index is rebuilt by every task using it:
``O(B nnz log)`` more). Each block travels to the workers that count against it.
"""

from __future__ import annotations

import numpy as np

from graphanon.counting.containment import contained_counts, distinct_records
from graphanon.distributed._blocks import as_blocks, gather, track, tree
from graphanon.utils.progress import ProgressCallback

__all__ = ["record_supports"]


def _distinct(Xb):
    """``(U, inverse)``: the block's distinct records, and which one each record is."""
    U, inverse, _ = distinct_records(Xb)
    return U, inverse


def _contained(q, Xd) -> np.ndarray:
    """For each distinct record of block ``q``: how many records of block ``Xd`` contain it."""
    return contained_counts(q[0], Xd)


def _per_record(q, distinct_sup: np.ndarray) -> np.ndarray:
    return distinct_sup[q[1]]


def record_supports(
    X, *, client, n_partitions: int | None = None, progress: ProgressCallback | None = None
) -> np.ndarray:
    """:func:`graphanon.counting.containment.record_supports` with records in blocks on the workers of ``client``.

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

    Notes
    -----
    Complexity: see the module docstring: ``B^2`` tasks, about the single-process work
    in total.

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2, processes=False)) as client:  # doctest: +SKIP
    ...     record_supports(X, client=client)
    """
    blocks = as_blocks(X, client, n_partitions)
    indexes = client.map(_distinct, blocks.futures, pure=False)
    counts = [[client.submit(_contained, q, d, pure=False) for d in blocks.futures] for q in indexes]
    distinct = [tree(client, row) for row in counts]
    track([c for row in counts for c in row], progress, "containment counts")
    parts = gather(client, [client.submit(_per_record, q, s) for q, s in zip(indexes, distinct, strict=True)])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

