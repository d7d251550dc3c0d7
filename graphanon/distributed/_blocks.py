"""Row blocks on Dask workers: scatter a record matrix, sum per-block results as a tree.

Shared by every distributed computation of :mod:`graphanon.distributed`.
"""

from __future__ import annotations

import numpy as np

from graphanon.errors import ParameterError
from graphanon.support import as_csr

__all__ = ["scatter_blocks", "tree_sum"]


def scatter_blocks(X, client, n_partitions: int | None = None) -> list:
    """Cut ``X`` into row blocks and scatter them (one future per block).

    ``n_partitions`` defaults to twice the number of workers.
    """
    X = as_csr(X)
    if n_partitions is None:
        n_partitions = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    if n_partitions < 1:
        raise ParameterError(f"n_partitions must be at least 1, got {n_partitions}")
    edges = np.linspace(0, X.shape[0], n_partitions + 1).astype(np.int64)
    blocks = [X[a:b] for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return client.scatter(blocks, hash=False)  # fresh keys: equal blocks of an earlier call may be released


def tree_sum(client, futures):
    """Sum the results of ``futures`` on the workers, pairwise (a tree of additions), and fetch the total."""
    while len(futures) > 1:
        pairs = [client.submit(_add, a, b) for a, b in zip(futures[::2], futures[1::2], strict=False)]
        futures = pairs + ([futures[-1]] if len(futures) % 2 else [])
    return futures[0].result()


def _add(a, b):
    return a + b
