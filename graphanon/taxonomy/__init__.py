"""The taxonomy layer: item taxonomies, their builders, item groups, categories, constraint sets.

* :mod:`.tree` -- :class:`Taxonomy` (a rooted tree of items) and :func:`read_taxonomy`;
* :mod:`.build` -- balanced and level-table taxonomies;
* :mod:`.itemgroups` -- :class:`ItemGroups`, a partition of the items into named blocks;
* :mod:`.categories` -- item categories for the swapping methods;
* :mod:`.constraint_sets` -- COAT's privacy and utility constraint sets and Pgen.

``from graphanon.taxonomy import Taxonomy`` reads the tree module on first use
(:mod:`graphanon.utils.lazy`).

Examples
--------
>>> from graphanon.taxonomy import Taxonomy
>>> Taxonomy.__module__
'graphanon.taxonomy.tree'
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.taxonomy.itemgroups": ("ItemGroups",),
    "graphanon.taxonomy.tree": ("Taxonomy", "read_taxonomy"),
})
