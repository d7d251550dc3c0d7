"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib).
"""

from graphanon.viz.clustering import draw_group_lcg, draw_similarity_neighborhood
from graphanon.viz.coat import draw_constraint_graph, draw_merge_forest
from graphanon.viz.hierarchy import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut
from graphanon.viz.nonreciprocal import (
    draw_assignments,
    draw_closed_walk,
    draw_generalization_graph,
)
from graphanon.viz.swapping import draw_swap_graph, draw_swap_pair
from graphanon.viz.taxonomy import draw_taxonomy, tree_layout

__all__ = [
    "draw_assignments",
    "draw_closed_walk",
    "draw_constraint_graph",
    "draw_cut_lattice",
    "draw_enumeration_tree",
    "draw_generalization_graph",
    "draw_group_lcg",
    "draw_merge_forest",
    "draw_similarity_neighborhood",
    "draw_swap_graph",
    "draw_swap_pair",
    "draw_taxonomy",
    "draw_taxonomy_cut",
    "tree_layout",
]
