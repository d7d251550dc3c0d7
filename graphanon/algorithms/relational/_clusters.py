"""Relational clusters of >= k records (Mondrian on the hierarchies' leaf order) and their generalization.

Records are points: per QI the preorder position of the value's leaf in the
QI's hierarchy (for a numeric hierarchy that order is the values' order; for
a categorical tree a subtree is a contiguous range). A cluster publishes, per
QI, the lowest hierarchy node covering its values
(:meth:`~graphanon.relational.AttributeHierarchy.lca` of the smallest and
largest position).

References
----------
LeFevre, DeWitt, Ramakrishnan. Mondrian multidimensional k-anonymity.
ICDE 2006, Sec. 4 (strict median partitioning).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphanon.relational import AttributeHierarchy


def cluster_nodes(codes: np.ndarray, cluster: np.ndarray, n_clusters: int,
                  hierarchies: Sequence[AttributeHierarchy]) -> np.ndarray:
    """Per cluster and QI, the hierarchy node (preorder position) covering the cluster's values (clusters x QIs)."""
    out = np.empty((n_clusters, len(hierarchies)), dtype=np.int64)
    for c, h in enumerate(hierarchies):
        lo = np.full(n_clusters, np.iinfo(np.int64).max, dtype=np.int64)
        hi = np.full(n_clusters, -1, dtype=np.int64)
        np.minimum.at(lo, cluster, codes[:, c])
        np.maximum.at(hi, cluster, codes[:, c])
        out[:, c] = h.lca(lo, hi)
    return out


def cluster_ncp(nodes: np.ndarray, hierarchies: Sequence[AttributeHierarchy]) -> np.ndarray:
    """Per cluster, the sum over QIs of the NCP of its published values."""
    return sum((h.ncp_of(nodes[:, c]) for c, h in enumerate(hierarchies)), np.zeros(len(nodes)))


def _spread(h: AttributeHierarchy):
    """``f(lo, hi)``: NCP of the node covering the leaves at positions ``lo .. hi`` (a table look-up when small)."""
    table = h.lca_table()
    if table is not None:
        ncp = h.ncp_of(table)
        return lambda lo, hi: float(ncp[lo, hi])
    return lambda lo, hi: float(h.ncp_of(h.lca(np.array([lo]), np.array([hi])))[0])


def mondrian(codes: np.ndarray, hierarchies: Sequence[AttributeHierarchy], k: int) -> np.ndarray:
    """Cluster records into groups of >= k by strict median cuts; the cluster id of each record.

    Parameters
    ----------
    codes : int array (records, QIs)
        Leaf positions (:meth:`graphanon.relational.RTData.qi_codes`).
    hierarchies : sequence of AttributeHierarchy
        One per QI.
    k : int
        The smallest cluster (``len(codes) >= k``).

    Returns
    -------
    int array (records,)
        Cluster ids ``0 .. C-1``, numbered in the order the partitioning
        finishes them (deterministic: no randomness).

    Notes
    -----
    A partition is cut on the QI whose published value would lose the most
    (largest NCP of the node covering the partition's values), at the median
    position: the records below the median go left, unless fewer than ``k``
    would, and then those at or below it; a cut that leaves fewer than ``k``
    on a side is not made, and the next QI is tried. A partition no QI can
    cut is a cluster (of ``k .. 2k - 1`` records when values are distinct;
    more with ties). Complexity: O(n log n) numpy work in total, O(n / k)
    Python steps.
    """
    spread_of = [_spread(h) for h in hierarchies]
    n = len(codes)
    cluster = np.zeros(n, dtype=np.int64)
    next_id = 0
    stack = [np.arange(n, dtype=np.int64)]
    while stack:
        part = stack.pop()
        done = True
        if len(part) >= 2 * k:
            sub = codes[part]
            lo, hi = sub.min(axis=0), sub.max(axis=0)
            spread = np.array([spread_of[c](lo[c], hi[c]) for c in range(len(hierarchies))])
            for c in np.argsort(-spread, kind="stable"):
                if lo[c] == hi[c]:
                    break
                col = sub[:, c]
                median = np.partition(col, len(col) // 2)[len(col) // 2]
                left = col < median
                if left.sum() < k:
                    left = col <= median
                n_left = int(left.sum())
                if n_left >= k and len(part) - n_left >= k:
                    stack.append(part[~left])
                    stack.append(part[left])
                    done = False
                    break
        if done:
            cluster[part] = next_id
            next_id += 1
    return cluster
