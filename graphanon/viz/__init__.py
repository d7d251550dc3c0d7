"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib).
"""

from graphanon.viz.hierarchy import (
    draw_cut_lattice,
    draw_enumeration_tree,
    draw_taxonomy_cut,
    tree_layout,
)

__all__ = ["draw_cut_lattice", "draw_enumeration_tree", "draw_taxonomy_cut", "tree_layout"]
