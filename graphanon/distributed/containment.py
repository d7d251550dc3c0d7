"""Containment counting on Dask: k^infinity without enumerating itemsets, records partitioned.

:func:`graphanon.containment.record_supports` gives, for every record, the
number of records that contain all of its items; a release is
k^infinity-anonymous exactly when every non-empty record has at least ``k``
(proof in :mod:`graphanon.containment`). Here the records are row blocks on
the workers of a ``dask.distributed.Client`` and the count is a sum over
blocks:

``supp(t) = sum over blocks d of |{s in d : t <= s}|``.

1. Each block ``q`` is reduced to its distinct records ``U_q``
   (:func:`graphanon.containment.distinct_records`) and their containment
   counts among themselves, ``c_q = record_supports(U_q)``.
2. For every pair (query block ``q``, data block ``d``) one task counts, for
   each distinct record of ``q``, the records of ``d`` containing it, with
   the single-process counter on the stacked rows:
   ``record_supports(vstack(U_q, X_d))[:|U_q|] - c_q`` (a record of ``U_q``
   is contained in rows of ``U_q`` and of ``X_d``; the first are ``c_q``).
3. The ``B`` counts of each query block are summed as a tree on the workers,
   mapped back to the block's records, and only the per-record supports
   (8 bytes a record) come back.

Integer counts summed exactly: the result equals the single-process one,
and whatever speeds up the single-process counter speeds up this one.

Complexity
----------
``B^2`` tasks for ``B`` blocks. Task ``(q, d)`` runs the single-process
counter on ``|U_q| + |X_d|`` rows: about the work of both blocks' records as
queries against both blocks, so in total about twice the single-process
work (the rows of ``X_d`` are counted as queries too and thrown away), spread
over the workers. Each block travels to the workers that count against it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon._progress import ProgressCallback
from graphanon.containment import distinct_records
from graphanon.containment import record_supports as local_record_supports
from graphanon.distributed._blocks import as_blocks, track, tree

__all__ = ["record_supports"]


def _distinct(Xb):
    """``(U, inverse, c)``: the block's distinct records, which one each record is, their mutual containment counts."""
    U, inverse, _ = distinct_records(Xb)
    return U, inverse, local_record_supports(U)


def _contained(q, Xd) -> np.ndarray:
    """For each distinct record of block ``q``: how many records of block ``Xd`` contain it."""
    U, _, own = q
    both = sp.csr_array(sp.vstack([U, Xd], format="csr"))
    return local_record_supports(both)[: U.shape[0]] - own


def _per_record(q, distinct_sup: np.ndarray) -> np.ndarray:
    return distinct_sup[q[1]]


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
    See the module docstring: ``B^2`` tasks, about twice the single-process
    work in total.

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2, processes=False)) as client:  # doctest: +SKIP
    ...     record_supports(X, client=client)
    """
    blocks = as_blocks(X, client, n_partitions)
    indexes = client.map(_distinct, blocks.futures)
    counts = [[client.submit(_contained, q, d) for d in blocks.futures] for q in indexes]
    distinct = [tree(client, row) for row in counts]
    track([c for row in counts for c in row], progress, "containment counts")
    parts = client.gather([client.submit(_per_record, q, s) for q, s in zip(indexes, distinct, strict=True)])
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

