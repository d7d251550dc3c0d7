"""Utility metrics: information loss of recodings and COUNT-query accuracy.

Query workloads are generated from a seed over the ORIGINAL data and reused
across methods, so that every method is measured on the same queries.
"""

from graphanon.metrics.loss import RecodingLoss, ncp, ncp_taxonomy, recoding_loss, suppression_ratio
from graphanon.metrics.queries import (
    CountQuery,
    QueryWorkload,
    average_relative_error,
    generate_workload,
    true_counts,
)
from graphanon.metrics.utility_loss import ULReport, semantic_weight, ul, ul_metrics

__all__ = [
    "CountQuery",
    "QueryWorkload",
    "RecodingLoss",
    "average_relative_error",
    "generate_workload",
    "ncp",
    "ncp_taxonomy",
    "recoding_loss",
    "suppression_ratio",
    "true_counts",
    "ULReport",
    "semantic_weight",
    "ul",
    "ul_metrics",
]
from graphanon.metrics.nonreciprocal import (  # noqa: E402
    error_rate,
    evaluate_nonreciprocal,
    query_error,
)

__all__ += ["error_rate", "evaluate_nonreciprocal", "query_error"]
from graphanon.metrics.clustering import (  # noqa: E402
    ggd_per_record,
    ggd_total,
    ncp_he_naughton,
    ncp_lm,
)

__all__ += ["ggd_per_record", "ggd_total", "ncp_he_naughton", "ncp_lm"]
from graphanon.metrics.evaluate import evaluate_release  # noqa: E402

__all__ += ["evaluate_release"]
