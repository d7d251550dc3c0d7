"""Dask (``pip install graphanon[dask]``) as the engine past one machine.

Records are partitioned into row blocks on the workers of a
``dask.distributed.Client``; every count is a sum of per-block counts,
tree-reduced, so results equal the single-process ones exactly. The client
decides where the work runs: ``Client(LocalCluster(...))`` on one machine,
``Client("tcp://scheduler:8786")`` on a cluster (see docs/scale.md).

The package imports without dask (nothing here imports it at module level);
the functions take the ``client`` the caller made, and :func:`connect` says
what to install when dask is missing.

Submodules
----------
support
    Pair supports and the level-wise search for k^m violations.
containment
    Per-record containment counts (the k^infinity audit).
groups
    Groups of equal records (the transactional k-anonymity audit).
parquet
    Parquet row groups read on the workers into blocks.
rows
    Rows of the blocks brought to the client in a chosen order, a run at a time.
"""

from graphanon.distributed._blocks import (
    Blocks,
    count_round_trips,
    map_blocks,
    round_trip,
    scatter_blocks,
    sum_blocks,
    tree_sum,
)
from graphanon.distributed._client import connect, require_dask
from graphanon.distributed.containment import record_supports
from graphanon.distributed.groups import equal_row_groups
from graphanon.distributed.parquet import read_parquet_blocks
from graphanon.distributed.rows import take_rows
from graphanon.distributed.support import minimal_infrequent_itemsets, pair_supports

__all__ = [
    "Blocks",
    "connect",
    "count_round_trips",
    "equal_row_groups",
    "map_blocks",
    "minimal_infrequent_itemsets",
    "pair_supports",
    "read_parquet_blocks",
    "record_supports",
    "require_dask",
    "round_trip",
    "scatter_blocks",
    "sum_blocks",
    "take_rows",
    "tree_sum",
]
