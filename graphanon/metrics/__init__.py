"""Utility metrics: information loss of recodings and COUNT-query accuracy.

Query workloads are generated from a seed over the ORIGINAL data and reused
across methods, so that every method is measured on the same queries.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.metrics.loss": ("RecodingLoss", "ncp", "ncp_taxonomy", "recoding_loss", "suppression_ratio"),
    "graphanon.metrics.queries": (
        "CountQuery", "QueryWorkload", "average_relative_error", "generate_workload", "true_counts",
    ),
    "graphanon.metrics.relational": (
        "AttributeDomain", "RTQuery", "RelationalLoss", "attribute_domains", "relational_loss", "rt_count_error",
        "rt_estimated_counts", "rt_true_counts", "rt_workload",
    ),
    "graphanon.metrics.rtviews": ("RTViews", "rt_utility", "rt_views"),
    "graphanon.metrics.utility_loss": ("ULReport", "semantic_weight", "ul", "ul_metrics"),
    "graphanon.metrics.nonreciprocal": ("error_rate", "evaluate_nonreciprocal", "query_error"),
    "graphanon.metrics.clustering": ("ggd_per_record", "ggd_total", "ncp_he_naughton", "ncp_lm"),
    "graphanon.metrics.evaluate": ("evaluate_release",),
    "graphanon.metrics.caveats": ("Advice", "ReleaseWarning", "release_warnings"),
    "graphanon.metrics.meaning": ("METRIC_MEANINGS", "describe_metrics"),
    "graphanon.metrics.itemsets": ("top_k_accuracy", "top_k_itemsets"),
})
