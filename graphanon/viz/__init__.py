"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib).
"""

from graphanon.viz.nonreciprocal import (  # noqa: E402, F401
    draw_assignments,
    draw_closed_walk,
    draw_generalization_graph,
)
