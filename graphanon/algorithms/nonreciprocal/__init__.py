"""Nonreciprocal recoding (Xue et al., KDD 2012) and its building blocks.

Laid out the way :mod:`networkx.algorithms.flow` is: one entry point that
picks the implementation, one module per extractor, shared kernels apart.

* :func:`anonymize_nonreciprocal` (:mod:`.anonymize`): the method -- order,
  generalization graph, assignments, publication.
* Record orders: :func:`gray_order` (:mod:`.gray`), the breakpoint DP
  :func:`segment_breakpoints` (:mod:`.segments`), the Gray-TSP order
  :func:`gray_tsp_order` / :func:`gray_tsp_details` (:mod:`.tsp`: OR-Tools, or
  iterated 2-opt / Or-opt in numba, :mod:`._tsp_kernels`; a process pool) and :func:`order_report` (:mod:`.report`).
* Assignment extraction: :func:`extract_assignments` (:mod:`.extraction`)
  picks the closed walk (:mod:`.closed_walk`) or WMC backtracking
  (:mod:`.backtracking`); shared numba kernels in :mod:`._kernels`.
* l-diversity: :func:`greedy_diverse_assignments` (:mod:`.diverse`) picks the
  min-cost flow graph (:mod:`.diverse_flow`) or the paper's greedy walk
  (:mod:`.greedy_walk`); :func:`draw_label_matching` (:mod:`.label_draw`), a
  random l-diverse perfect matching for the labels (measured, not used by
  ``nr``: ``docs/attacks.md`` (j)).

The structures these build live in :mod:`graphanon.graphs`
(:class:`~graphanon.graphs.GeneralizationGraph`,
:class:`~graphanon.graphs.GrayTSPResult`, :class:`~graphanon.graphs.OrderReport`);
CAHD, the other method on record orders, is :mod:`graphanon.algorithms.nonreciprocal.cahd_groups` (the paper's
scan) and :mod:`graphanon.algorithms.nonreciprocal.cahd_secret` (members drawn in secret, the default).
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.utils.validation": ("check_diversity_feasible",),
    "graphanon.algorithms.nonreciprocal._kernels": ("ExtractionStats",),
    "graphanon.algorithms.nonreciprocal.anonymize": (
        "NonreciprocalTrace", "anonymize_nonreciprocal", "members_matrix", "record_order", "tsp_budget",
    ),
    "graphanon.algorithms.nonreciprocal.closed_walk": ("closed_walk_trace",),
    "graphanon.algorithms.nonreciprocal.diverse": ("greedy_diverse_assignments",),
    "graphanon.algorithms.nonreciprocal.extraction": ("check_assignments", "extract_assignments"),
    "graphanon.algorithms.nonreciprocal.label_draw": ("draw_label_matching",),
    "graphanon.algorithms.nonreciprocal.gray": (
        "consecutive_hamming", "gray_order", "hamming_cycle_length", "hamming_matrix",
    ),
    "graphanon.algorithms.nonreciprocal.report": ("order_report",),
    "graphanon.algorithms.nonreciprocal.segments": ("segment_breakpoints",),
    "graphanon.algorithms.nonreciprocal.tsp": (
        "DETERMINISTIC_STEP_LIMIT", "LOCAL_STEP_LIMIT", "TSP_SOLVERS", "default_step_limit",
        "gray_tsp_details", "gray_tsp_order",
    ),
})

#: The family's methods: name -> the declaration beside each function (read by
#: :mod:`graphanon.algorithms.registry`; importing this package imports none of them).
METHOD_DECLARATIONS = {
    "cahd": "graphanon.algorithms.nonreciprocal.cahd:CAHD",
    "nr": "graphanon.algorithms.nonreciprocal.anonymize:NR",
}
