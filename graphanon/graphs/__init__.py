"""The graphs the algorithms build, each with ``to_networkx()``.

Taxonomy trees live in :mod:`graphanon.taxonomy` (``Taxonomy.to_networkx``);
the structures of each method family live in the modules below.
"""

from graphanon.graphs.assignment import (  # noqa: E402, F401
    check_assignments,
    extract_assignments,
    greedy_diverse_assignments,
)
from graphanon.graphs.generalization import GeneralizationGraph, ring_graph  # noqa: E402, F401
from graphanon.graphs.order import (  # noqa: F401
    GrayTSPResult,
    OrderReport,
    gray_order,
    gray_tsp_order,
    hamming_cycle_length,
    order_report,
    segment_breakpoints,
)
