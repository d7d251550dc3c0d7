"""Support counting on Dask (``pip install graphanon[dask]``): records partitioned, counts tree-reduced.

The records are cut into row blocks, scattered to the workers of a
``dask.distributed.Client``, and every count is a sum of per-block counts:

* :func:`pair_supports` - each block's pair supports, summed pairwise (a tree
  of additions, so no single worker receives every block's matrix);
* :func:`minimal_infrequent_itemsets` - the level-wise search of
  :func:`graphanon.counting.support.minimal_infrequent_itemsets`: levels 1 and 2 from
  the item and pair supports, then per level the Apriori candidates (joins of
  frequent itemsets sharing a prefix, every subset frequent) counted per block
  as ``X_b @ M`` (``M``: items x candidates) and summed.

Counts are integers summed exactly, so the results equal the single-process
ones (same itemsets, same order, same supports). The client decides where the
work runs: ``Client(LocalCluster(...))`` on one machine, ``Client("tcp://
scheduler:8786")`` on a cluster (see docs/scale.md).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import ItemsetLevel, check_search, rows_in
from graphanon.counting.support import pair_supports as support_pairs
from graphanon.distributed._blocks import as_blocks, gather, sum_blocks, track, tree, tree_sum
from graphanon.utils.memory import check_memory
from graphanon.utils.progress import ProgressCallback

__all__ = ["minimal_infrequent_itemsets", "pair_supports"]


def _pairs_block(Xb):
    """One block's pair supports, counted as :func:`graphanon.counting.support.pair_supports` counts them (pair codes tallied with ``np.bincount`` up to 4,096 items: a dense int64 array; a sparse product above)."""
    S = support_pairs(Xb)
    return S.astype(np.int64) if isinstance(S, np.ndarray) else sp.csr_array(S, dtype=np.int64)


def _items_block(Xb):
    return np.bincount(Xb.indices, minlength=Xb.shape[1]).astype(np.int64)


def _count_block(Xb, cand, chunk: int = 4096):
    """Supports of the rows of ``cand`` (itemsets of one size) in block ``Xb``, ``chunk`` candidates at a time."""
    size = cand.shape[1]
    Xi = sp.csr_array((np.ones(Xb.nnz, dtype=np.int32), Xb.indices, Xb.indptr), shape=Xb.shape)
    out = np.zeros(len(cand), dtype=np.int64)
    for a in range(0, len(cand), chunk):
        part = cand[a : a + chunk]
        M = sp.csc_array(
            (np.ones(part.size, dtype=np.int32), part.ravel(), np.arange(0, part.size + 1, size)),
            shape=(Xb.shape[1], len(part)),
        )
        H = (Xi @ M).tocoo()  # H[r, c] = items of candidate c held by record r
        out[a : a + len(part)] = np.bincount(H.col[H.data == size], minlength=len(part))
    return out


def _max_length(Xb) -> int:
    return int(np.diff(Xb.indptr).max()) if Xb.shape[0] else 0


def pair_supports(
    X, *, client, n_partitions: int | None = None, progress: ProgressCallback | None = None
) -> sp.csr_array:
    """All pair supports ``X.T @ X`` (int64, CSR) summed over record blocks on ``client``.

    Equals :func:`graphanon.counting.support.pair_supports` ``(X, dense=False)``.

    Parameters
    ----------
    X : sparse matrix or Blocks
        The records (a matrix is cut into ``n_partitions`` blocks and
        scattered; :class:`~graphanon.distributed.Blocks` are already on the
        workers).
    client : dask.distributed.Client
    n_partitions : int, optional
        Record blocks (default twice the workers).
    progress : callable(done, total, message), optional
        Called as each block's product finishes.

    Notes
    -----
    Complexity: O(sum over records of len(record)^2) work spread over the blocks; the
    reduction moves O(log(blocks)) partial matrices per path.
    """
    blocks = as_blocks(X, client, n_partitions)
    S = tree_sum(client, client.map(_pairs_block, blocks.futures, pure=False), progress, "pair supports")
    return sp.csr_array(S) if isinstance(S, np.ndarray) else S


def _candidates(prev: np.ndarray, n_items: int, what: str, advice: str) -> np.ndarray:
    """Apriori join: pairs of frequent itemsets sharing all but the last item, every subset frequent."""
    size = prev.shape[1] + 1
    prefix = prev[:, :-1]
    new_group = np.ones(len(prev), dtype=bool)
    new_group[1:] = (prefix[1:] != prefix[:-1]).any(axis=1)
    group = np.cumsum(new_group) - 1
    end = np.flatnonzero(np.r_[new_group[1:], True]) + 1  # one past the last row of each group
    partners = end[group] - np.arange(len(prev)) - 1
    check_memory(
        float(partners.sum()) * (size + 2) * 8,
        what=f"{what} at level {size} ({len(prev)} frequent {size - 1}-itemsets to extend)",
        advice=advice.replace("{m}", str(size - 1)),
    )
    left = np.repeat(np.arange(len(prev)), partners)
    right = left + 1 + np.arange(len(left)) - np.repeat(np.cumsum(partners) - partners, partners)
    cand = np.concatenate([prev[left], prev[right, -1:]], axis=1)
    alive = np.ones(len(cand), dtype=bool)
    for drop in range(size - 2):
        alive &= rows_in(np.delete(cand, drop, axis=1), prev, n_items + 1)
    return cand[alive]


def minimal_infrequent_itemsets(
    X,
    k: int,
    m: int | None,
    *,
    client,
    n_partitions: int | None = None,
    progress: ProgressCallback | None = None,
    what: str | None = None,
    advice: str | None = None,
):
    """:func:`graphanon.counting.support.minimal_infrequent_itemsets` with counts summed over blocks on ``client``.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items), or Blocks
        The records (see :func:`pair_supports`).
    k, m :
        Support threshold and largest itemset size (None: unbounded).
    client : dask.distributed.Client
    n_partitions : int, optional
        Record blocks (default twice the workers).
    progress : callable(done, total, message), optional
        Called as each block's count of a level finishes.
    what, advice : str, optional
        How a :class:`~graphanon.errors.MemoryBudgetError` (candidates of a
        level too many for the client's memory budget) names the search and
        what to change; ``{m}`` in ``advice`` becomes the last level that fits.

    Returns
    -------
    violations, frequent : lists of ItemsetLevel
        Equal to the single-process search's.

    Notes
    -----
    Complexity: per level, each block costs its share of ``X_b @ M`` (record items times
    candidates holding them); the candidates themselves are made on the
    client, O(frequent itemsets of the previous level^2) in the worst case
    per prefix group.

    Round trips (:func:`graphanon.distributed.count_round_trips`): one for
    levels 1 and 2 together (the item supports, the longest record and the
    pair supports are tree-reduced on the workers and gathered in one call),
    then one per level above 2 (its candidates travel inside the tasks, or
    are broadcast first, one more, when over 1 MB), plus the scatter of a
    matrix: at most ``1 + 2 (m - 2) + 1`` for ``m >= 2``, whatever the number of blocks.
    """
    check_search(k, m)
    blocks = as_blocks(X, client, n_partitions)
    n_items = blocks.n_items
    what = what or f"the itemset search (k={k}, m={'inf' if m is None else m})"
    advice = advice or "bound the attacker knowledge, e.g. m={m} (CLI: -m {m})"
    # one question for levels 1 and 2: the item supports, the longest record and (when the search can reach
    # level 2) the pair supports, each tree-reduced on the workers, gathered together
    items = client.map(_items_block, blocks.futures, pure=False)
    asks = [tree(client, items), tree(client, client.map(_max_length, blocks.futures, pure=False), max)]
    pairs = client.map(_pairs_block, blocks.futures, pure=False) if m is None or m >= 2 else []
    if pairs:
        asks.append(tree(client, pairs))
    track(items + pairs, progress, "levels 1-2: counting items and pairs")
    sup1, max_len, *S_all = gather(client, asks)
    present = np.flatnonzero(sup1 > 0)
    viol1, freq1 = present[sup1[present] < k], present[sup1[present] >= k]
    violations = [ItemsetLevel(1, viol1[:, None], sup1[viol1])]
    frequent = [ItemsetLevel(1, freq1[:, None], sup1[freq1])]
    max_len = int(max_len)
    m_eff = max_len if m is None else min(m, max_len)
    prev, size = frequent[0].itemsets, 1
    while size < m_eff and len(prev):
        size += 1
        if size == 2:  # the pair supports of the frequent items, tree-reduced over the blocks
            S = sp.csr_array(S_all[0])[freq1][:, freq1]
            S = sp.triu(S, k=1).tocsr()
            S.sort_indices()
            S = S.tocoo()
            cand = np.stack([freq1[S.row], freq1[S.col]], axis=1).astype(np.int64)
            sup = S.data.astype(np.int64)
        else:
            cand = _candidates(prev, n_items, what, advice)
            sup = np.zeros(0, dtype=np.int64)
        if size > 2 and len(cand):  # one round trip a level (and a broadcast first when over 1 MB)
            sup = sum_blocks(client, blocks.futures, _count_block, cand, progress=progress,
                             message=f"level {size}: counting {len(cand)} candidates")
        pos = sup > 0
        cand, sup = cand[pos], sup[pos]
        is_viol = sup < k
        violations.append(ItemsetLevel(size, cand[is_viol], sup[is_viol]))
        frequent.append(ItemsetLevel(size, cand[~is_viol], sup[~is_viol]))
        prev = cand[~is_viol]
        if not len(prev):
            break
    return violations, frequent
