"""Nonreciprocal recoding (Xue et al., KDD 2012) and its building blocks.

Laid out the way :mod:`networkx.algorithms.flow` is: one entry point that
picks the implementation, one module per extractor, shared kernels apart.

* :func:`anonymize_nonreciprocal` (:mod:`.anonymize`): the method -- order,
  generalization graph, assignments, publication.
* Record orders: :func:`gray_order` (:mod:`.gray`), the breakpoint DP
  :func:`segment_breakpoints` (:mod:`.segments`), the Gray-TSP order
  :func:`gray_tsp_order` / :func:`gray_tsp_details` (:mod:`.tsp`, OR-Tools and
  a process pool) and :func:`order_report` (:mod:`.report`).
* Assignment extraction: :func:`extract_assignments` (:mod:`.extraction`)
  picks the closed walk (:mod:`.closed_walk`) or WMC backtracking
  (:mod:`.backtracking`); shared numba kernels in :mod:`._kernels`.
* l-diversity: :func:`greedy_diverse_assignments` (:mod:`.diverse`) picks the
  min-cost flow graph (:mod:`.diverse_flow`) or the paper's greedy walk
  (:mod:`.greedy_walk`).

The structures these build live in :mod:`graphanon.graphs`
(:class:`~graphanon.graphs.GeneralizationGraph`,
:class:`~graphanon.graphs.GrayTSPResult`, :class:`~graphanon.graphs.OrderReport`);
CAHD, the other method on record orders, is :mod:`graphanon.algorithms.cahd`.
"""

from graphanon._validation import check_diversity_feasible
from graphanon.algorithms.nonreciprocal._kernels import ExtractionStats
from graphanon.algorithms.nonreciprocal.anonymize import (
    NonreciprocalTrace,
    anonymize_nonreciprocal,
    members_matrix,
    record_order,
    tsp_budget,
)
from graphanon.algorithms.nonreciprocal.closed_walk import closed_walk_trace
from graphanon.algorithms.nonreciprocal.diverse import greedy_diverse_assignments
from graphanon.algorithms.nonreciprocal.extraction import check_assignments, extract_assignments
from graphanon.algorithms.nonreciprocal.gray import (
    consecutive_hamming,
    gray_order,
    hamming_cycle_length,
    hamming_matrix,
)
from graphanon.algorithms.nonreciprocal.report import order_report
from graphanon.algorithms.nonreciprocal.segments import segment_breakpoints
from graphanon.algorithms.nonreciprocal.tsp import (
    DETERMINISTIC_STEP_LIMIT,
    gray_tsp_details,
    gray_tsp_order,
)

__all__ = [
    "DETERMINISTIC_STEP_LIMIT",
    "ExtractionStats",
    "NonreciprocalTrace",
    "anonymize_nonreciprocal",
    "check_assignments",
    "check_diversity_feasible",
    "closed_walk_trace",
    "consecutive_hamming",
    "extract_assignments",
    "gray_order",
    "gray_tsp_details",
    "gray_tsp_order",
    "greedy_diverse_assignments",
    "hamming_cycle_length",
    "hamming_matrix",
    "members_matrix",
    "order_report",
    "record_order",
    "segment_breakpoints",
    "tsp_budget",
]
