"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib).
"""

from graphanon.viz.coat import draw_constraint_graph, draw_merge_forest  # noqa: E402,F401
