"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib). It never selects a
matplotlib backend: new figures come from pyplot, so a notebook shows them inline; pass ``ax``
(for instance of a :class:`matplotlib.figure.Figure`) to draw without pyplot.
"""

import io
import warnings
from pathlib import Path

from graphanon.readwrite.files import atomic_write, check_output
from graphanon.viz.clustering import draw_group_lcg, draw_similarity_neighborhood
from graphanon.viz.coat import draw_constraint_graph, draw_constraint_summary, draw_merge_forest
from graphanon.viz.dp import draw_partition_tree, partition_tree, partition_tree_view
from graphanon.viz.hierarchy import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut
from graphanon.viz.nonreciprocal import (
    draw_assignments,
    draw_closed_walk,
    draw_generalization_graph,
    ring_label_font,
)
from graphanon.viz.privbasis import draw_pair_graph, pair_graph, pair_graph_view
from graphanon.viz.relational import draw_classes, draw_hierarchies, hierarchy_view, relational_view
from graphanon.viz.study import (
    draw_pareto,
    draw_privacy_vs_k,
    draw_time_vs_k,
    draw_utility_vs_epsilon,
    draw_utility_vs_k,
)
from graphanon.viz.swapping import draw_swap_graph, draw_swap_pair
from graphanon.viz.taxonomy import draw_taxonomy, tree_layout

# Endings matplotlib writes (checked before any drawing is made).
FIGURE_SUFFIXES = (".png", ".svg", ".svgz", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def save_figure(fig, path, *, dpi: int = 120, close: bool = False) -> None:
    """Write ``fig`` to ``path`` atomically; the format follows the ending (see ``FIGURE_SUFFIXES``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or PathLike
        Output file; its folder must exist.
    dpi : int
        Resolution of raster formats.
    close : bool
        Close the figure afterwards (frees pyplot's reference to it).

    Raises
    ------
    graphanon.errors.OutputError
        When the ending is not one of ``FIGURE_SUFFIXES``.
    """
    path = check_output(path, suffixes=FIGURE_SUFFIXES)
    buffer = io.BytesIO()
    try:
        with warnings.catch_warnings():
            # labels with control characters (a stray \r in a file) have no glyph; drawn as boxes
            warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font")
            fig.savefig(buffer, format=path.suffix[1:].lower(), dpi=dpi, bbox_inches="tight")
    finally:
        if close:
            import matplotlib.pyplot as plt

            plt.close(fig)
    atomic_write(Path(path), buffer.getvalue())

__all__ = [
    "FIGURE_SUFFIXES",
    "draw_assignments",
    "draw_classes",
    "draw_closed_walk",
    "draw_constraint_graph",
    "draw_constraint_summary",
    "draw_cut_lattice",
    "draw_enumeration_tree",
    "draw_generalization_graph",
    "draw_group_lcg",
    "draw_hierarchies",
    "draw_merge_forest",
    "draw_pair_graph",
    "draw_partition_tree",
    "draw_pareto",
    "draw_privacy_vs_k",
    "draw_similarity_neighborhood",
    "draw_swap_graph",
    "draw_swap_pair",
    "draw_taxonomy",
    "draw_taxonomy_cut",
    "draw_time_vs_k",
    "draw_utility_vs_epsilon",
    "draw_utility_vs_k",
    "hierarchy_view",
    "pair_graph",
    "pair_graph_view",
    "partition_tree",
    "partition_tree_view",
    "relational_view",
    "ring_label_font",
    "save_figure",
    "tree_layout",
]
