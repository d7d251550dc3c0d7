"""Drawings of tendency-hiding swaps: category bars of a pair, the similarity graph around pairs.

Both need the producer's view of a swapping release: the original data, the
release with its private ``link`` (who is whose row) and
``release.trace.pairs`` -- they are for understanding a method, never
for publication.

References
----------
Gunawan, Mambo. Future Internet 11(6):138, 2019, Fig. 2 (swapping strategy).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from graphanon.errors import ParameterError
from graphanon.graphs.similarity import RecordSimilarityGraph
from graphanon.taxonomy.categories import category_codes

__all__ = ["draw_swap_graph", "draw_swap_pair"]

_BEFORE, _AFTER = "#9ecae1", "#fd8d3c"


def _weights(items_idx: np.ndarray, codes: np.ndarray, n_cat: int) -> np.ndarray:
    return np.bincount(codes[items_idx], minlength=n_cat)


def _published_rows(data, release, i: int) -> np.ndarray:
    if release.link is None:
        raise ParameterError("drawing a swap needs the release's private link (release.link)")
    P = release.matrix_over(data.items)
    row = int(release.link.row_of_record[i])
    return P.indices[P.indptr[row] : P.indptr[row + 1]]


def draw_swap_pair(data, release, categories, pair=None, *, axes=None):
    """Category weights (WR) of the two records of a swap pair, before and after.

    Parameters
    ----------
    data : TransactionData
        The original data.
    release : PerturbedRelease
        A swapping release with its private link.
    categories : ItemGroups
    pair : (int, int), optional
        Original record indices; default the first of ``release.trace.pairs``.
    axes : two matplotlib Axes, optional

    Returns
    -------
    matplotlib Figure
    """
    pairs = getattr(release.trace, "pairs", ())
    if pair is None:
        if not pairs:
            raise ParameterError("the release has no swap pairs to draw")
        pair = pairs[0]
    codes = category_codes(categories, data.items)
    names = [str(x) for x in categories.names]
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    fig = axes[0].figure
    before = [_weights(data.record_items(i), codes, len(names)) for i in pair]
    after = [_weights(_published_rows(data, release, i), codes, len(names)) for i in pair]
    shown = np.flatnonzero(sum(before) + sum(after))
    x = np.arange(len(shown))
    top = max(float(max(v[shown].max() for v in before + after)), 1.0)
    for ax, i, b, a in zip(axes, pair, before, after):
        length = int(b.sum())
        mtv = length / max(int((b > 0).sum()), 1)
        ax.bar(x - 0.2, b[shown], 0.4, color=_BEFORE, label="before")
        ax.bar(x + 0.2, a[shown], 0.4, color=_AFTER, label="after")
        ax.axhline(mtv, color="grey", ls="--", lw=1, label=f"MTV before = {mtv:.2g}")
        ax.set_xticks(x, [names[c] for c in shown], rotation=45 if len(shown) > 8 else 0)
        ax.set_title(f"record {data.record_ids[i]}")
        ax.set_ylabel("items in category (WR)")
        ax.set_ylim(0, top * 1.4)  # headroom: the legend sits above every bar, never on one
        ax.legend(fontsize=8, loc="upper center", ncol=3, handlelength=1.5, columnspacing=1.0)
    fig.suptitle("a swap pair: category weights before and after")
    fig.tight_layout()
    return fig


def draw_swap_graph(data, release, categories, *, max_pairs: int = 6, neighbours: int = 3, ax=None):
    """The record-similarity graph around swap pairs, the pairs as highlighted edges.

    Nodes: the records of the first ``max_pairs`` pairs and each one's
    ``neighbours`` most similar records (:meth:`RecordSimilarityGraph.knn`),
    coloured by their original heaviest category. Grey edges: Jaccard
    similarity (width grows with it). Red dashed edges: swap pairs (their
    similarity is the least available, often 0, so they are rarely grey edges).

    Returns
    -------
    matplotlib Axes
    """
    pairs = [tuple(p) for p in getattr(release.trace, "pairs", ())[:max_pairs]]
    if not pairs:
        raise ParameterError("the release has no swap pairs to draw")
    ends = np.unique(np.array(pairs).ravel())
    knn = RecordSimilarityGraph.knn(data.matrix, neighbours, rows=ends)
    nodes = np.unique(np.concatenate([ends, knn.matrix[ends].indices]))
    sub = RecordSimilarityGraph.overlap(data.matrix[nodes]).to_networkx()
    g = nx.relabel_nodes(sub, {j: int(v) for j, v in enumerate(nodes)})
    codes = category_codes(categories, data.items)
    heavy = []
    for v in g.nodes:
        w = _weights(data.record_items(v), codes, len(categories))
        heavy.append(int(np.argmax(w)) if w.max() * (w > 0).sum() > w.sum() else -1)
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 6))
    pos = nx.spring_layout(g, seed=0, weight="weight")
    cmap = plt.get_cmap("tab20")
    colors = ["#dddddd" if h < 0 else cmap(h % 20) for h in heavy]
    widths = [0.5 + 4 * d["weight"] for _, _, d in g.edges(data=True)]
    nx.draw_networkx_edges(g, pos, ax=ax, width=widths, edge_color="#999999")
    nx.draw_networkx_edges(g, pos, ax=ax, edgelist=pairs, width=2.5, edge_color="#d62728", style="dashed")
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, edgecolors="black", node_size=380)
    nx.draw_networkx_labels(g, pos, ax=ax, labels={v: str(data.record_ids[v]) for v in g.nodes}, font_size=7)
    ax.set_title("similarity graph around swap pairs (red dashed: swapped; colour: heaviest category)")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    names = list(categories.names)
    handles: list = [Patch(facecolor=cmap(h % 20), edgecolor="black", label=str(names[h])) for h in sorted(set(heavy) - {-1})]
    if -1 in heavy:
        handles.append(Patch(facecolor="#dddddd", edgecolor="black", label="no single heaviest"))
    handles.append(Line2D([], [], color="#d62728", lw=2.5, ls="--", label="swap pair"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(handles), 5), fontsize=7,
              frameon=False, title="heaviest category of the original record", title_fontsize=7)
    ax.axis("off")
    return ax
