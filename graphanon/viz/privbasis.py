"""PrivBasis's frequent-pair graph, drawn from the release alone (matplotlib figure and HTML view).

PrivBasis (Li, Qardaji, Su, Cao, PVLDB 2012, Sections 4-5) selects frequent
items and frequent pairs privately, builds its bases from the cliques of the
graph whose nodes are the frequent items and whose edges the frequent pairs,
and releases the top-k itemsets with noisy supports. This module draws, **from
the released list alone**, the graph it implies: the nodes are the items of
the released itemsets (sized by their released single-item support, when the
list holds it), the edges the released pairs (width: their noisy support),
and each released itemset of three or more items -- a subset of one basis --
is listed as a *released clique*, its edges coloured apart.

Private-safe: everything drawn is computed from the release (post-processing
keeps epsilon-DP). What the drawing does not show, by design: the mechanism's
trace -- lambda, the frequent items and pairs it selected that did not make
the top k, the bases themselves and their exact or noisy bin counts. The
selections are outputs of epsilon-DP steps (the release's epsilon covers them
by composition), but they are not in the release, and a drawing of them
states more than it does; drawn with the exact bin counts, the trace shows
the exact number of records holding each item combination of a basis, which
is not differentially private at all. This module never reads a trace; a
custodian who instruments the mechanism to see it must keep that drawing
private.

Examples
--------
>>> import scipy.sparse as sp
>>> from graphanon.release.itemsets import ItemsetRelease
>>> rel = ItemsetRelease(items=["a", "b", "c", "d"], itemsets=sp.csr_array([[1, 0, 0, 0], [1, 1, 0, 0],
...                      [1, 1, 1, 0], [0, 0, 1, 1]]), supports=[50.0, 30.0, 12.0, 9.0])
>>> g = pair_graph(rel)
>>> g.nodes, g.node_support.tolist()
(('a', 'b', 'c', 'd'), [50.0, nan, nan, nan])
>>> [(g.nodes[i], g.nodes[j], s) for i, j, s in zip(g.src, g.dst, g.edge_support.tolist())]
[('a', 'b', 30.0), ('c', 'd', 9.0)]
>>> g.cliques
(('a', 'b', 'c'),)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphanon.errors import ParameterError
from graphanon.viz.views import GraphView

__all__ = ["PairGraph", "draw_pair_graph", "pair_graph", "pair_graph_view"]


@dataclass
class PairGraph:
    """The frequent-pair graph a PrivBasis release implies.

    Attributes
    ----------
    nodes : tuple
        The items of the released itemsets, in the release's universe order.
    node_support : array of float
        The released noisy support of each node's single-item set (NaN when
        the list does not hold it).
    src, dst : array of int
        The released pairs (indices into ``nodes``, ``src < dst``).
    edge_support : array of float
        Their noisy supports.
    cliques : tuple of tuple
        The released itemsets of three or more items (their labels), in rank
        order.
    epsilon : float or None
        The release's epsilon.
    """

    nodes: tuple
    node_support: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    edge_support: np.ndarray
    cliques: tuple
    epsilon: float | None

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.nodes)


def pair_graph(release) -> PairGraph:
    """The frequent-pair graph of a released top-k list (see the module docstring).

    Parameters
    ----------
    release : ItemsetRelease
        A PrivBasis release (kind ``itemsets``), as saved and loaded.

    Returns
    -------
    PairGraph

    Notes
    -----
    Complexity: O(nnz) over the released itemsets' sparse rows.

    References
    ----------
    N. Li, W. Qardaji, D. Su, J. Cao. *PrivBasis: frequent itemset mining with
    differential privacy.* PVLDB 5(11), 2012, Section 4 (the frequent-pair
    graph and its cliques).
    """
    if getattr(release, "kind", None) != "itemsets":
        raise ParameterError(f"a pair graph is drawn from an itemset release (privbasis); got a "
                             f"{getattr(release, 'kind', type(release).__name__)} release")
    S = release.itemsets
    sizes = np.diff(S.indptr)
    used = np.unique(S.indices)
    pos = np.full(len(release.items), -1)
    pos[used] = np.arange(len(used))
    supports = np.asarray(release.supports, dtype=np.float64)
    node_support = np.full(len(used), np.nan)
    single = np.flatnonzero(sizes == 1)
    node_support[pos[S.indices[S.indptr[single]]]] = supports[single]
    pairs = np.flatnonzero(sizes == 2)
    a, b = pos[S.indices[S.indptr[pairs]]], pos[S.indices[S.indptr[pairs] + 1]]
    big = np.flatnonzero(sizes >= 3)
    cliques = tuple(tuple(release.items[j] for j in S.indices[S.indptr[i]:S.indptr[i + 1]]) for i in big)
    return PairGraph(nodes=tuple(release.items[j] for j in used), node_support=node_support,
                     src=np.minimum(a, b), dst=np.maximum(a, b), edge_support=supports[pairs], cliques=cliques,
                     epsilon=release.params.get("epsilon"))


def _layout(g: PairGraph) -> np.ndarray:
    """Node positions: a spring layout of the pair graph (networkx, fixed seed: data-independent randomness)."""
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(g.n_nodes))
    G.add_weighted_edges_from(zip(g.src.tolist(), g.dst.tolist(), np.ones(len(g.src)).tolist()))
    pos = nx.spring_layout(G, seed=0)
    return np.array([pos[i] for i in range(g.n_nodes)]).reshape(-1, 2)


def _in_cliques(g: PairGraph) -> np.ndarray:
    """Boolean per edge: both ends lie in one released itemset of three or more items."""
    index = {x: i for i, x in enumerate(g.nodes)}
    members = [{index[x] for x in c} for c in g.cliques]
    return np.array([any(i in m and j in m for m in members) for i, j in zip(g.src.tolist(), g.dst.tolist())],
                    dtype=bool)


def draw_pair_graph(release, *, ax=None):
    """The frequent-pair graph of a PrivBasis release as a matplotlib drawing.

    Parameters
    ----------
    release : ItemsetRelease
    ax : matplotlib Axes, optional
        Drawn into (default: a new :class:`matplotlib.figure.Figure`).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from graphanon.release.itemsets import ItemsetRelease
    >>> rel = ItemsetRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 1, 0], [1, 1, 1]]),
    ...                      supports=[30.0, 12.0], params={"epsilon": 1.0})
    >>> ax = draw_pair_graph(rel)
    >>> ax.get_title().splitlines()[0]
    'PrivBasis pair graph implied by the release (epsilon=1): 3 items, 1 released pairs, 1 released itemsets of 3+ items'
    """
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(9, 8)).subplots()
    g = pair_graph(release)
    xy = _layout(g)
    inside = _in_cliques(g)
    top = float(np.nanmax(g.edge_support)) if len(g.edge_support) else 1.0
    for e in range(len(g.src)):
        i, j = g.src[e], g.dst[e]
        ax.plot(xy[[i, j], 0], xy[[i, j], 1], color="#d95f02" if inside[e] else "#7570b3",
                lw=0.5 + 4.0 * max(g.edge_support[e], 0.0) / max(top, 1e-9), alpha=0.7, zorder=1)
    s = np.nan_to_num(g.node_support, nan=0.0).clip(min=0.0)
    ax.scatter(xy[:, 0], xy[:, 1], s=30 + 400 * s / max(float(s.max()) if len(s) else 1.0, 1e-9),
               c=np.where(np.isnan(g.node_support), "#bbbbbb", "#1b9e77"), edgecolors="black", linewidths=0.5,
               zorder=2)
    for i, label in enumerate(g.nodes):
        ax.annotate(str(label), xy[i], fontsize=7, ha="center", va="bottom", xytext=(0, 5),
                    textcoords="offset points")
    eps = f" (epsilon={g.epsilon:g})" if g.epsilon is not None else ""
    ax.set_title(f"PrivBasis pair graph implied by the release{eps}: {g.n_nodes} items, {len(g.src)} released "
                 f"pairs, {len(g.cliques)} released itemsets of 3+ items\nnode size: released noisy item support "
                 "(grey: item not released alone); edge width: noisy pair support; orange: pair inside a "
                 "released 3+ itemset", fontsize=9)
    ax.set_axis_off()
    return ax


def pair_graph_view(release, *, title: str | None = None):
    """The frequent-pair graph as an interactive HTML view (:class:`~graphanon.viz.views.GraphView`).

    Each node's detail panel gives its noisy item support and the released
    itemsets of 3+ items that hold it.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from graphanon.release.itemsets import ItemsetRelease
    >>> rel = ItemsetRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 0, 0], [1, 1, 0], [1, 1, 1]]),
    ...                      supports=[40.0, 30.0, 12.0])
    >>> v = pair_graph_view(rel)
    >>> v.n_nodes, v.data["nodes"]["info"][0]["noisy item support"]
    (3, 40.0)
    """
    g = pair_graph(release)
    xy = _layout(g)
    inside = _in_cliques(g)
    released = ~np.isnan(g.node_support)
    info = [{"item": str(x), "noisy item support": float(g.node_support[i]) if released[i] else "not released alone",
             "in released 3+ itemsets": "; ".join("{" + ", ".join(map(str, c)) + "}" for c in g.cliques if x in c)
             or "none"} for i, x in enumerate(g.nodes)]
    return GraphView([str(x) for x in g.nodes], [("item released alone", "#1b9e77"), ("item only in sets", "#bbbbbb")],
                     np.where(released, 0, 1), x=xy[:, 0], y=xy[:, 1],
                     edges=(g.src, g.dst, inside.astype(int)),
                     edge_categories=[{"name": "released pair", "color": "#7570b3"},
                                      {"name": "pair inside a released 3+ itemset", "color": "#d95f02"}],
                     info=info, title=title or "PrivBasis pair graph implied by the release",
                     subtitle=(f"epsilon={g.epsilon:g}; " if g.epsilon is not None else "")
                     + f"{g.n_nodes} items, {len(g.src)} released pairs, {len(g.cliques)} released itemsets of 3+ "
                       "items. Supports are the release's noisy ones.",
                     note="Drawn from the release alone (post-processing keeps DP). A drawing from the "
                          "mechanism's trace (lambda, the selected items and pairs, the bases) is not released: "
                          "never publish one.")
