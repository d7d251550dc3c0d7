"""Groups of equal records on Dask: the transactional k-anonymity count, records partitioned.

:func:`equal_row_groups` finds, for a records matrix cut into row blocks on
the workers of a ``dask.distributed.Client``, how many records equal each
record, and returns only what the audit reports: the number of distinct
records, the smallest group, and the records in groups smaller than ``k``.

1. Each block counts its rows by their exact key (the bytes of the row's
   column indices, and of its values when they matter), a ``Counter``.
2. The counters are added as a tree on the workers; the total stays there.
3. Each block looks its rows up in the total and returns the rows whose
   group is smaller than ``k`` (index and size); one small task returns the
   number of groups and the smallest. All of it is submitted at once and
   gathered in one call: two round trips in all (the scatter and the
   gather), whatever the number of blocks.

Keys are exact (no hashing), and the counts are integer sums, so the result
equals the one-process count.

Notes
-----
Complexity: O(occurrences) to build the keys, in blocks; the total counter holds one
entry per distinct record, on one worker.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import row_keys
from graphanon.distributed._blocks import gather, n_blocks, round_trip, row_view, track, tree
from graphanon.utils.progress import ProgressCallback

__all__ = ["equal_row_groups"]


def _count(Xb, with_values: bool) -> Counter:
    return Counter(row_keys(Xb, with_values))


def _add(a: Counter, b: Counter) -> Counter:
    a = a.copy()
    a.update(b)
    return a


def _small(Xb, total: Counter, k: int, with_values: bool) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.array([total[key] for key in row_keys(Xb, with_values)], dtype=np.int64)
    rows = np.flatnonzero(sizes < k)
    return rows, sizes[rows]


def _stats(total: Counter) -> tuple[int, int]:
    return len(total), min(total.values(), default=0)


def equal_row_groups(
    X,
    k: int,
    *,
    client,
    with_values: bool = False,
    n_partitions: int | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Group the rows of ``X`` by equality on the workers of ``client``; the groups smaller than ``k``.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_columns)
        The records (CSR; rows are equal when they hold the same columns,
        and, with ``with_values``, the same values).
    k : int
        Groups of fewer than ``k`` rows are reported.
    client : dask.distributed.Client
    with_values : bool
        Compare the stored values too (a local recoding's copies of a node).
    n_partitions : int, optional
        Record blocks (default twice the workers).
    progress : callable(done, total, message), optional
        Called as each block's count finishes.

    Returns
    -------
    groups : int
        Distinct rows.
    smallest : int
        The size of the smallest group (0 without rows).
    rows : ndarray of int64
        The rows in groups of fewer than ``k``, ascending.
    sizes : ndarray of int64
        Their groups' sizes.

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> with Client(LocalCluster(n_workers=2, processes=False)) as client:  # doctest: +SKIP
    ...     equal_row_groups(X, 5, client=client)
    """
    X = sp.csr_array(X)
    edges = np.linspace(0, X.shape[0], n_blocks(client, n_partitions) + 1).astype(np.int64)
    round_trip("scatter")
    blocks = client.scatter([row_view(X, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)], hash=False)
    counts = [client.submit(_count, b, with_values, pure=False) for b in blocks]
    total = tree(client, counts, _add)
    track(counts, progress, "counting equal records")
    *small, (groups, smallest) = gather(client, [*(client.submit(_small, b, total, k, with_values, pure=False)
                                                   for b in blocks), client.submit(_stats, total, pure=False)])
    rows = np.concatenate([r + a for (r, _), a in zip(small, edges[:-1], strict=True)]).astype(np.int64)
    sizes = np.concatenate([s for _, s in small]).astype(np.int64)
    return int(groups), int(smallest), rows, sizes
