"""Dask (``pip install graphanon[dask]``) as the engine past one machine.

Records are partitioned into row blocks on the workers of a
``dask.distributed.Client``; every count is a sum of per-block counts,
tree-reduced, so results equal the single-process ones exactly. The client
decides where the work runs: ``Client(LocalCluster(...))`` on one machine,
``Client("tcp://scheduler:8786")`` on a cluster (see docs/scale.md).

Submodules
----------
support
    Pair supports and the level-wise search for k^m violations.
"""

from graphanon.distributed._blocks import scatter_blocks, tree_sum
from graphanon.distributed.support import minimal_infrequent_itemsets, pair_supports

__all__ = ["minimal_infrequent_itemsets", "pair_supports", "scatter_blocks", "tree_sum"]
