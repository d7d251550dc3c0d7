"""Anonymizers, one module per method.

Each module defines ``anonymize_<method>(data, *, ..., rng=None) -> Release``
and registers a CLI adapter in :mod:`graphanon.algorithms.registry`.
The functions are imported on first use (:mod:`graphanon.utils.lazy`): importing
this package loads no method, and :func:`registered` imports the built-in
method modules, which keep their compiled kernels and solvers out of module
level.
"""

from graphanon.algorithms.registry import (  # noqa: F401
    AlgorithmSpec,
    RunOptions,
    get_algorithm,
    register,
    registered,
)
from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.hierarchy.aa": ("anonymize_aa",),
    "graphanon.algorithms.nonreciprocal.cahd": ("anonymize_cahd",),
    "graphanon.algorithms.grouping.clump": ("anonymize_clump",),
    "graphanon.algorithms.coat": ("anonymize_coat", "pgen"),
    "graphanon.algorithms.hierarchy.cut": ("anonymize_cut",),
    "graphanon.algorithms.hierarchy.hghs": ("anonymize_hghs", "anonymize_mhghs"),
    "graphanon.algorithms.nonreciprocal": ("anonymize_nonreciprocal",),
    "graphanon.algorithms.grouping.partition": ("anonymize_partition",),
    "graphanon.algorithms.prior": ("Prior",),
    "graphanon.algorithms.hierarchy.mm": ("anonymize_mm",),
    "graphanon.algorithms.swapping": ("anonymize_fullswap", "anonymize_partsupp", "anonymize_partswap",
                                      "anonymize_randswap", "anonymize_splitperson"),
})
__all__ = sorted([*__all__, "AlgorithmSpec", "RunOptions", "get_algorithm", "register", "registered"])
