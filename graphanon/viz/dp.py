"""DiffPart's partition tree, drawn from the release alone (matplotlib figure and HTML view).

DiffPart (Chen et al., PVLDB 2011, Section 4) partitions the records top
down over a taxonomy: the partition under the cut ``{root}`` is split by which
children of a cut node each record holds, level by level, down to leaf
partitions whose cut is an itemset. The release keeps only the leaf
partitions that passed their threshold, with their noisy counts. This module
rebuilds, **from those alone**, the tree of partitions they imply: the node
of a leaf itemset at stage ``d`` is its *cut at depth d* -- each item replaced
by its taxonomy ancestor at depth ``d`` (or by itself when it is shallower) --
and its count is the sum of the noisy counts of the released itemsets under
it. Stage 0 is ``{root}``; the last stage is the released itemsets.

Private-safe: everything drawn is computed from the release (post-processing
keeps epsilon-DP). What the drawing does not show, by design: the partitions
that stopped (their noisy counts fell below a threshold) and their counts,
and the intermediate splits within one level (one cut node at a time). A
drawing made from the mechanism's *trace* would show them with their exact
sizes, the empty sub-partitions (which item combinations no record holds)
and the order of the splits; it is not differentially private, which is why
DiffPart keeps no trace and this module never reads one. A custodian who
instruments the mechanism to see it must keep that drawing private.

Examples
--------
>>> import scipy.sparse as sp
>>> from graphanon.release.synthetic import SyntheticRelease
>>> rel = SyntheticRelease(items=["a", "b", "c", "d"], itemsets=sp.csr_array([[1, 1, 0, 0], [0, 0, 1, 0],
...                        [1, 0, 1, 0]]), counts=[30, 12, 5], algorithm="diffpart", params={"fanout": 2})
>>> tree = partition_tree(rel)
>>> [(label, int(n)) for label, n in zip(tree.labels, tree.counts)]
[('{root}', 47), ('{G1_1}', 12), ('{G1_0}', 30), ('{G1_0, G1_1}', 5), ('{c}', 12), ('{a, b}', 30), ('{a, c}', 5)]
>>> tree.parent.tolist(), tree.stage.tolist()
([-1, 0, 0, 0, 1, 2, 3], [0, 1, 1, 1, 2, 2, 2])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.taxonomy.tree import Taxonomy
from graphanon.viz.views import GraphView

__all__ = ["PartitionTree", "draw_partition_tree", "partition_tree", "partition_tree_view"]


@dataclass
class PartitionTree:
    """The partitions a DiffPart release implies, one node per distinct cut at each stage.

    Attributes
    ----------
    labels : list of str
        The cut of each node, ``{G1_0, b}``.
    parent : ndarray of int
        Parent node (-1 for ``{root}``).
    stage : ndarray of int
        Depth of the cut (0: ``{root}``).
    counts : ndarray of int
        Sum of the released noisy counts under the node.
    itemsets : ndarray of int
        Released itemsets under the node.
    """

    labels: list
    parent: np.ndarray
    stage: np.ndarray
    counts: np.ndarray
    itemsets: np.ndarray

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.labels)


def _taxonomy_of(release, taxonomy) -> Taxonomy:
    if taxonomy is not None:
        missing = [x for x in release.items if x not in taxonomy]
        if missing or len(taxonomy.leaves) != len(release.items):
            raise ParameterError("the taxonomy's leaves are not the release's universe: give the taxonomy the "
                                 "release was made with")
        return taxonomy
    fanout = release.params.get("fanout")
    if fanout is None:
        raise ParameterError(f"the {release.algorithm} release was made over a given taxonomy (no fanout in its "
                             "parameters): pass that taxonomy")
    return Taxonomy.balanced(list(release.items), fanout=int(fanout))


def partition_tree(release, taxonomy: Taxonomy | None = None) -> PartitionTree:
    """The tree of partitions a DiffPart release implies (see the module docstring).

    Parameters
    ----------
    release : SyntheticRelease
        A DiffPart release (its ``items`` are the universe, in leaf order).
    taxonomy : Taxonomy, optional
        The taxonomy it was made over; default: the balanced taxonomy of its
        ``fanout`` over its universe (what ``--universe`` builds).

    Returns
    -------
    PartitionTree
        Nodes stage by stage; within a stage, in order of their first itemset.

    Notes
    -----
    Complexity: O(D * nnz) for D the taxonomy's depth and nnz the released
    itemsets' items (one sparse product and one row grouping per stage).

    References
    ----------
    Chen, Mohammed, Fung, Desai, Xiong. Publishing set-valued data via
    differential privacy. PVLDB 4(11), 2011, Section 4 (Algorithm 1).
    """
    if getattr(release, "kind", None) != "synthetic":
        raise ParameterError(f"a partition tree is drawn from a synthetic (DiffPart) release, not a "
                             f"{getattr(release, 'kind', type(release).__name__)} one")
    tax = _taxonomy_of(release, taxonomy)
    S = sp.csr_array(release.itemsets)
    counts = np.asarray(release.counts, dtype=np.int64)
    leaves = list(release.items)
    depth_of = np.array([tax.depth(x) for x in leaves], dtype=np.int64)
    max_depth = int(depth_of.max()) if len(leaves) else 0
    nodes = list(tax.nodes)
    node_pos = {v: i for i, v in enumerate(nodes)}
    # ancestor[d][j]: the node of leaf j at stage d (its ancestor at depth d, or itself when shallower)
    chains = []
    for x in leaves:
        chain = [x]
        while tax.parent(chain[-1]) is not None:
            chain.append(tax.parent(chain[-1]))
        chains.append(chain[::-1])  # root first
    labels, parent, stage = ["{root}"], [-1], [0]
    previous = np.zeros(S.shape[0], dtype=np.int64)  # node of each itemset at the previous stage
    stages = [previous]
    for d in range(1, max_depth + 1):
        anc = np.array([node_pos[c[min(d, len(c) - 1)]] for c in chains], dtype=np.int64)
        G = sp.csr_array((np.ones(S.nnz, dtype=np.int64), anc[S.indices], S.indptr.copy()),
                          shape=(S.shape[0], len(nodes)))  # a copy: sum_duplicates rewrites indptr in place
        G.sum_duplicates()
        G.sort_indices()
        index: dict = {}
        now = np.empty(S.shape[0], dtype=np.int64)
        for r in range(S.shape[0]):  # over the released itemsets (not the records): group equal cuts
            key = (int(previous[r]), tuple(G.indices[G.indptr[r]:G.indptr[r + 1]].tolist()))
            if key not in index:
                index[key] = len(labels)
                labels.append("{" + ", ".join(str(nodes[i]) for i in key[1]) + "}")
                parent.append(key[0])
                stage.append(d)
            now[r] = index[key]
        stages.append(now)
        previous = now
    where = np.concatenate(stages)
    total = np.bincount(where, weights=np.tile(counts, len(stages)), minlength=len(labels)).round().astype(np.int64)
    n_sets = np.bincount(where, minlength=len(labels)).astype(np.int64)  # stage 0 maps every itemset to {root}
    return PartitionTree(labels, np.asarray(parent, dtype=np.int64), np.asarray(stage, dtype=np.int64), total, n_sets)


def _kept(tree: PartitionTree, max_nodes: int) -> np.ndarray:
    """Nodes to draw: stage by stage, the children of kept nodes with the largest counts, at most ``max_nodes``."""
    order = np.lexsort((-tree.counts, tree.stage))
    keep = np.zeros(tree.n_nodes, dtype=bool)
    keep[0] = True
    budget = max_nodes - 1
    for i in order[1:]:
        if budget <= 0:
            break
        if keep[tree.parent[i]]:
            keep[i] = True
            budget -= 1
    return keep


def draw_partition_tree(release, taxonomy: Taxonomy | None = None, *, max_nodes: int = 60, ax=None):
    """The partition tree of a DiffPart release as a matplotlib drawing (stages top to bottom).

    A node's box is shaded by its count (sum of released noisy counts); with
    more than ``max_nodes`` nodes, each stage keeps the largest children of
    the nodes kept above it, and the title says how many were left out.

    Parameters
    ----------
    release : SyntheticRelease
    taxonomy : Taxonomy, optional
        As for :func:`partition_tree`.
    max_nodes : int
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from matplotlib.figure import Figure
    >>> from graphanon.release.synthetic import SyntheticRelease
    >>> rel = SyntheticRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 1, 0], [0, 0, 1]]), counts=[9, 4],
    ...                        algorithm="diffpart", params={"fanout": 2, "epsilon": 1.0})
    >>> ax = draw_partition_tree(rel, ax=Figure().subplots())
    >>> ax.get_title().splitlines()[0]
    'DiffPart partition tree implied by the release (epsilon=1): 5 partitions, 2 released itemsets'
    """
    import matplotlib.pyplot as plt
    from matplotlib import colormaps

    tree = partition_tree(release, taxonomy)
    keep = _kept(tree, max_nodes)
    idx = np.flatnonzero(keep)
    # x: leaves of the kept tree in depth-first order, internal nodes centred over their children
    children: dict = {int(i): [] for i in idx}
    for i in idx[1:]:
        children[int(tree.parent[i])].append(int(i))
    for v in children:
        children[v].sort(key=lambda c: -tree.counts[c])
    x: dict = {}
    slot = [0]

    def place(v: int) -> float:
        if not children[v]:
            x[v] = float(slot[0])
            slot[0] += 1
        else:
            xs = [place(c) for c in children[v]]
            x[v] = (min(xs) + max(xs)) / 2
        return x[v]

    place(0)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 1.3 * slot[0]), 1.6 + 1.4 * (int(tree.stage.max()) + 1)))
    cmap = colormaps["YlGn"]
    top = max(int(tree.counts[idx].max()), 1)
    for v in idx:
        if v:
            p = int(tree.parent[v])
            ax.plot([x[p], x[v]], [-tree.stage[p], -tree.stage[v]], color="#aaaaaa", linewidth=0.8, zorder=1)
    for v in idx:
        shade = 0.15 + 0.75 * np.log1p(tree.counts[v]) / np.log1p(top)
        label = tree.labels[v] if len(tree.labels[v]) <= 28 else tree.labels[v][:26] + "…}"
        ax.text(x[v], -tree.stage[v], f"{label}\n{int(tree.counts[v]):,}", ha="center", va="center", fontsize=7,
                zorder=2, bbox={"boxstyle": "round,pad=0.3", "facecolor": cmap(shade), "edgecolor": "#555555",
                                "linewidth": 0.6})
    ax.set_xlim(-0.7, max(slot[0] - 0.3, 0.7))
    ax.set_ylim(-int(tree.stage.max()) - 0.6, 0.6)
    ax.set_yticks([-s for s in range(int(tree.stage.max()) + 1)])
    ax.set_yticklabels([f"depth {s}" for s in range(int(tree.stage.max()) + 1)], fontsize=8)
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    eps = release.params.get("epsilon")
    left_out = tree.n_nodes - len(idx)
    ax.set_title(f"DiffPart partition tree implied by the release"
                 f"{'' if eps is None else f' (epsilon={eps:g})'}: {tree.n_nodes} partitions, "
                 f"{int(tree.itemsets[0])} released itemsets"
                 + (f"; the {left_out} smallest not drawn" if left_out else "")
                 + "\nnode: the cut at that depth, and the sum of the released noisy counts under it "
                 "(stopped partitions are not in the release)", fontsize=9)
    return ax


def partition_tree_view(release, taxonomy: Taxonomy | None = None, *, title: str | None = None):
    """The partition tree as an interactive HTML view (:class:`~graphanon.viz.views.GraphView`).

    Every node is there (the browser expands and collapses them); its detail
    panel gives its cut, depth, summed noisy count and released itemsets.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from graphanon.release.synthetic import SyntheticRelease
    >>> rel = SyntheticRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 1, 0], [0, 0, 1]]), counts=[9, 4],
    ...                        algorithm="diffpart", params={"fanout": 2})
    >>> v = partition_tree_view(rel)
    >>> v.n_nodes, v.data["nodes"]["info"][0]["noisy count (sum)"]
    (5, 13)
    """
    tree = partition_tree(release, taxonomy)
    last = int(tree.stage.max())
    category = np.where(tree.stage == 0, 0, np.where(tree.stage == last, 2, 1))
    info = [{"cut": tree.labels[i], "depth": int(tree.stage[i]), "noisy count (sum)": int(tree.counts[i]),
             "released itemsets under it": int(tree.itemsets[i])} for i in range(tree.n_nodes)]
    labels = [f"{tree.labels[i]}: {int(tree.counts[i]):,}" for i in range(tree.n_nodes)]
    has_parent = tree.parent >= 0
    eps = release.params.get("epsilon")
    collapsed = np.flatnonzero((tree.stage == 1) & (last > 1)).tolist()
    return GraphView(labels, [("{root}", "#9db4d6"), ("partition (cut at a depth)", "#7fbf7b"),
                              ("released itemset", "#1b7837")], category, parent=tree.parent,
                     edges=(tree.parent[has_parent], np.flatnonzero(has_parent), np.zeros(int(has_parent.sum()))),
                     edge_categories=[{"name": "split", "color": "#aaaaaa"}], info=info, collapsed=collapsed,
                     title=title or "DiffPart partition tree implied by the release",
                     subtitle=(f"epsilon={eps:g}; " if eps is not None else "")
                     + f"{tree.n_nodes} partitions, {int(tree.itemsets[0])} released itemsets. Counts are sums of "
                       "the release's noisy counts; partitions that stopped are not in the release.",
                     note="Drawn from the release alone (post-processing keeps DP). A drawing from the "
                          "mechanism's trace would show exact sizes and stopped partitions: never publish one.")
