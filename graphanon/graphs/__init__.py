"""The graphs the algorithms build, each with ``to_networkx()``.

Taxonomy trees live in :mod:`graphanon.taxonomy` (``Taxonomy.to_networkx``);
the structures of each method family live in the modules below.
"""

from graphanon.graphs.constraints import ConstraintGraph, MergeForest  # noqa: E402,F401
