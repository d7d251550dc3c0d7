"""Matplotlib drawings of graphanon's graphs and evaluation results.

Nothing in the core imports this package (it imports matplotlib). It never selects a
matplotlib backend: new figures come from pyplot, so a notebook shows them inline; pass ``ax``
(for instance of a :class:`matplotlib.figure.Figure`) to draw without pyplot.
"""

import io
import warnings
from pathlib import Path

from graphanon.readwrite.files import atomic_write, check_output
from graphanon.utils.lazy import attach

# Each drawing's module is imported on first use (PEP 562): ``from graphanon.viz import views`` (the HTML views)
# and ``save_figure`` import no matplotlib.
__getattr__, __dir__, _DRAWINGS = attach(__name__, globals(), {
    "graphanon.viz.clustering": ("draw_group_lcg", "draw_similarity_neighborhood"),
    "graphanon.viz.coat": ("draw_constraint_graph", "draw_constraint_summary", "draw_merge_forest"),
    "graphanon.viz.dp": ("draw_partition_tree", "partition_tree", "partition_tree_view"),
    "graphanon.viz.hierarchy": ("draw_cut_lattice", "draw_enumeration_tree", "draw_taxonomy_cut"),
    "graphanon.viz.nonreciprocal": ("draw_assignments", "draw_closed_walk", "draw_generalization_graph",
                                    "ring_label_font"),
    "graphanon.viz.privbasis": ("draw_pair_graph", "pair_graph", "pair_graph_view"),
    "graphanon.viz.relational": ("draw_classes", "draw_hierarchies", "hierarchy_view", "relational_view"),
    "graphanon.viz.study": ("draw_pareto", "draw_privacy_vs_k", "draw_time_vs_k", "draw_utility_vs_epsilon",
                            "draw_utility_vs_k"),
    "graphanon.viz.swapping": ("draw_swap_graph", "draw_swap_pair"),
    "graphanon.viz.taxonomy": ("draw_taxonomy", "tree_layout"),
})

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

__all__ = sorted([*_DRAWINGS, "FIGURE_SUFFIXES", "save_figure"])
