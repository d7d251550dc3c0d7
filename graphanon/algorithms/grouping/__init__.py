"""Local recoding by groups of records: Clump and Partition.

* :func:`anonymize_partition` (:mod:`.partition`): top-down partitioning along a taxonomy
  (He & Naughton);
* :class:`GroupingTrace` (:mod:`.trace`), the trace both methods publish;
* :func:`anonymize_clump` (:mod:`.clump`): clustering by the least common generalization (Gkountouna
  et al.);
* numba kernels in :mod:`._clump_kernel` and :mod:`._partition_kernel` (Partition's Dask path);
  Partition's one-process recursion in numpy in :mod:`._partition_frontier` (no numba to load).
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.grouping.clump": ("anonymize_clump",),
    "graphanon.algorithms.grouping.partition": ("anonymize_partition",),
    "graphanon.algorithms.grouping.trace": ("GroupingTrace",),
})

#: The family's methods: name -> the declaration beside each function (read by
#: :mod:`graphanon.algorithms.registry`; importing this package imports none of them).
METHOD_DECLARATIONS = {
    "clump": "graphanon.algorithms.grouping.clump:CLUMP",
    "partition": "graphanon.algorithms.grouping.partition:PARTITION",
}
