"""The graphs the algorithms build, each with ``to_networkx()``.

Taxonomy trees live in :mod:`graphanon.taxonomy` (``Taxonomy.to_networkx``);
the structures of each method family live in the modules below:

* :mod:`~graphanon.graphs.lattice` and :mod:`~graphanon.graphs.enumeration`:
  the cut lattice and suppression enumeration tree of hierarchy recoding;
* :mod:`~graphanon.graphs.constraints`: COAT's constraint graph and merge forest;
* :mod:`~graphanon.graphs.order`, :mod:`~graphanon.graphs.generalization` and
  :mod:`~graphanon.graphs.assignment`: the Gray(-TSP) record order, k-regular
  generalization graphs and their assignment extraction (nonreciprocal recoding);
* :mod:`~graphanon.graphs.similarity`: record-similarity graphs (Jaccard overlap
  and k nearest records) for clustering and swapping.
"""

from graphanon.graphs.assignment import (
    check_assignments,
    extract_assignments,
    greedy_diverse_assignments,
)
from graphanon.graphs.constraints import ConstraintGraph, MergeForest
from graphanon.graphs.enumeration import SuppressionEnumerationTree
from graphanon.graphs.generalization import GeneralizationGraph, ring_graph
from graphanon.graphs.lattice import CutLattice
from graphanon.graphs.order import (
    GrayTSPResult,
    OrderReport,
    gray_order,
    gray_tsp_order,
    hamming_cycle_length,
    order_report,
    segment_breakpoints,
)
from graphanon.graphs.similarity import RecordSimilarityGraph

__all__ = [
    "ConstraintGraph",
    "CutLattice",
    "GeneralizationGraph",
    "GrayTSPResult",
    "MergeForest",
    "OrderReport",
    "RecordSimilarityGraph",
    "SuppressionEnumerationTree",
    "check_assignments",
    "extract_assignments",
    "gray_order",
    "gray_tsp_order",
    "greedy_diverse_assignments",
    "hamming_cycle_length",
    "order_report",
    "ring_graph",
    "segment_breakpoints",
]
