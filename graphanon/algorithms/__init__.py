"""Anonymizers, one module per method.

Each module defines ``anonymize_<method>(data, *, ..., rng=None) -> Release``
and, beside it, its declaration (:mod:`graphanon.algorithms.declaration`).
The functions are imported on first use (:mod:`graphanon.utils.lazy`): importing
this package loads no method; :func:`run_method` runs one by name
(:mod:`graphanon.algorithms.registry`).
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.hierarchy.aa": ("anonymize_aa",),
    "graphanon.algorithms.hierarchy.aa_dask": ("write_aa_release",),
    "graphanon.algorithms.nonreciprocal.cahd": ("anonymize_cahd",),
    "graphanon.algorithms.dp.diffpart": ("anonymize_diffpart",),
    "graphanon.algorithms.dp.privbasis": ("anonymize_privbasis",),
    "graphanon.algorithms.grouping.clump": ("anonymize_clump",),
    "graphanon.algorithms.coat": ("anonymize_coat", "pgen"),
    "graphanon.algorithms.hierarchy.cut": ("anonymize_cut",),
    "graphanon.algorithms.hierarchy.hghs": ("anonymize_hghs", "anonymize_mhghs"),
    "graphanon.algorithms.nonreciprocal": ("anonymize_nonreciprocal",),
    "graphanon.algorithms.grouping.partition": ("anonymize_partition",),
    "graphanon.algorithms.prior": ("Prior",),
    "graphanon.algorithms.hierarchy.mm": ("anonymize_mm",),
    "graphanon.algorithms.relational": ("anonymize_rt", "anonymize_rt_naive"),
    "graphanon.algorithms.registry": ("get_method", "method_names", "register_method", "run_method"),
    "graphanon.algorithms.swapping.fullswap": ("anonymize_fullswap",),
    "graphanon.algorithms.swapping.partsupp": ("anonymize_partsupp",),
    "graphanon.algorithms.swapping.partswap": ("anonymize_partswap",),
    "graphanon.algorithms.swapping.randswap": ("anonymize_randswap",),
    "graphanon.algorithms.swapping.splitperson": ("anonymize_splitperson",),
})
