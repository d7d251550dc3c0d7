"""The structures the algorithms build (graphs with ``to_networkx()``, results).

Only structures live here; the engines that build them live in
:mod:`graphanon.algorithms`.

Taxonomy trees live in :mod:`graphanon.taxonomy` (``Taxonomy.to_networkx``);
the structures of each method family live in the modules below:

* :mod:`~graphanon.graphs.lattice` and :mod:`~graphanon.graphs.enumeration`:
  the cut lattice and suppression enumeration tree of hierarchy recoding;
* :mod:`~graphanon.graphs.constraints`: COAT's constraint graph and merge forest;
* :mod:`~graphanon.graphs.order` and :mod:`~graphanon.graphs.generalization`:
  the Gray-TSP order result and report, k-regular generalization graphs
  (nonreciprocal recoding; the engines that build them are in
  :mod:`graphanon.algorithms.nonreciprocal`);
* :mod:`~graphanon.graphs.similarity`: record-similarity graphs (Jaccard overlap
  and k nearest records) for clustering and swapping;
  :mod:`~graphanon.graphs.least_similar`: the least-similar partner matching
  of the swapping methods.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.graphs.constraints": ("ConstraintGraph", "MergeForest"),
    "graphanon.graphs.enumeration": ("SuppressionEnumerationTree",),
    "graphanon.graphs.generalization": ("GeneralizationGraph", "ring_graph"),
    "graphanon.graphs.lattice": ("CutLattice",),
    "graphanon.graphs.order": ("GrayTSPResult", "OrderReport"),
    "graphanon.graphs.similarity": ("RecordSimilarityGraph",),
})
