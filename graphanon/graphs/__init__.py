"""The graphs the algorithms build, each with ``to_networkx()``.

Taxonomy trees live in :mod:`graphanon.taxonomy` (``Taxonomy.to_networkx``);
the structures of each method family live in the modules below.
"""

from graphanon.graphs.constraints import ConstraintGraph, MergeForest
from graphanon.graphs.enumeration import SuppressionEnumerationTree
from graphanon.graphs.lattice import CutLattice

__all__ = ["ConstraintGraph", "CutLattice", "MergeForest", "SuppressionEnumerationTree"]
