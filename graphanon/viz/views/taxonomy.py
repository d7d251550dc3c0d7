"""Taxonomy and search views: a taxonomy with its published cut, and the HgHs/mHgHs walk through the cut lattice."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from graphanon.errors import ParameterError
from graphanon.utils.labels import lookup_key
from graphanon.viz.views.core import (
    GraphView,
    _rounded,
)

__all__ = ["classify_cut", "cut_of_release", "search_view", "taxonomy_view"]


def _label_index(taxonomy, nodes: Iterable[Hashable], what: str) -> np.ndarray:
    pos = {v: i for i, v in enumerate(taxonomy.nodes)}
    missing = [v for v in nodes if v not in pos]
    if missing:
        raise ParameterError(f"{what}: {missing[0]!r} is not a node of the taxonomy")
    return np.asarray([pos[v] for v in nodes], dtype=np.int64)


def taxonomy_view(taxonomy, cut: Iterable[Hashable] = (), suppressed: Iterable[Hashable] = (), *,
                  data=None, title: str | None = None, absent: Iterable[Hashable] = ()) -> GraphView:
    """A taxonomy with a cut: cut nodes highlighted, suppressed ones crossed, absent ones apart, LM (and NCP) per node.

    The tree starts collapsed at the cut (what is published); the browser
    expands and collapses nodes (double-click, or the button in the detail
    panel). Each node's detail lists its leaves and its LM ``(leaves - 1) /
    (N - 1)`` (N = the taxonomy's leaves); with ``data``, also the original
    occurrences under it and, for cut nodes, their share of the recoding's
    NCP (a suppressed node costs 1 per occurrence).

    Parameters
    ----------
    taxonomy : Taxonomy
    cut, suppressed : iterables of nodes
        The full cut (suppressed and absent nodes included) and the suppressed cut nodes.
    data : TransactionData, optional
        Original data, for occurrence counts and NCP shares.
    title : str, optional
    absent : iterable of nodes
        Cut nodes with no occurrence in the data (nothing was published or
        suppressed there; :func:`classify_cut`), drawn and counted apart.

    Returns
    -------
    GraphView

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> v = taxonomy_view(load_taxonomy("liuwang_fig1"), cut=["P", "Q", "e", "i"], suppressed=["i"])
    >>> v.n_nodes, v.data["collapsed"][:2]
    (18, [1, 8])

    References
    ----------
    Liu, Wang, PAKDD 2010, Sec. 2 (cuts, IL_G / IL_S); Terrovitis et al., PVLDB 2008 (NCP).
    """
    nodes = list(taxonomy.nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    cut_idx, supp_idx = _label_index(taxonomy, cut, "cut"), _label_index(taxonomy, suppressed, "suppressed")
    absent_idx = _label_index(taxonomy, absent, "absent")
    if not np.isin(supp_idx, cut_idx).all() or not np.isin(absent_idx, cut_idx).all():
        raise ParameterError("every suppressed and absent node must be a node of the cut")
    if np.isin(absent_idx, supp_idx).any():
        raise ParameterError("a node is either suppressed or absent from the data, not both")
    parent = np.array([pos[taxonomy.parent(v)] if taxonomy.parent(v) is not None else -1 for v in nodes])
    leaves = np.array([taxonomy.leaf_count(v) for v in nodes], dtype=np.int64)
    n_leaves = int(leaves[parent == -1].sum())
    lm = (leaves - 1) / max(n_leaves - 1, 1)
    category = np.zeros(len(nodes), dtype=np.int64)  # 0 above the cut
    below = np.zeros(len(nodes), dtype=bool)
    for c in cut_idx:  # preorder: a subtree is a contiguous block
        below[c + 1: c + 1 + _subtree_size(parent, c)] = True
    category[below] = 2
    category[cut_idx] = 1
    category[supp_idx] = 3
    category[absent_idx] = 4
    occurrences = None
    if data is not None:
        leaf_pos = {v: pos[v] for v in nodes if taxonomy.leaf_count(v) == 1 and not taxonomy.children(v)}
        item_support = np.asarray(data.matrix.sum(axis=0)).reshape(-1)
        occ = np.zeros(len(nodes), dtype=np.int64)
        for item, s in zip(data.items, item_support):
            p = leaf_pos.get(item)
            while p is not None and p >= 0:
                occ[p] += int(s)
                p = int(parent[p]) if parent[p] >= 0 else None
        occurrences = occ
    total_occ = int(occurrences[parent == -1].sum()) if occurrences is not None else 0
    info = []
    for i, v in enumerate(nodes):
        d = {"leaves": int(leaves[i]), "depth": taxonomy.depth(v), "LM": _rounded(lm[i], 4)}
        if occurrences is not None:
            d["occurrences"] = int(occurrences[i])
            if category[i] in (1, 3) and total_occ:
                cost = occurrences[i] * (1.0 if category[i] == 3 else lm[i])
                d["NCP share"] = _rounded(cost / total_occ, 5)
        info.append(d)
    cats = [("above the cut", "#9db4d6"), ("published cut node", "#2a7f3f"),
            ("below the cut (generalized away)", "#c8c8c8"), ("suppressed cut node", "#d62728")]
    if len(absent_idx):
        cats.append(("absent from the data (nothing to publish)", "#f2e6c9"))
    cut_set = set(cut_idx.tolist())
    n_supp = len(supp_idx)
    n_absent = f", {len(absent_idx)} absent from the data" if len(absent_idx) else ""
    sub = (f"{len(cut_idx)} cut nodes, {n_supp} suppressed{n_absent}; {len(nodes)} taxonomy nodes, "
           f"{n_leaves} leaves. Double-click a node to expand or collapse it.")
    view = GraphView(nodes, cats, category, parent=parent,
                     edges=(parent[parent >= 0], np.flatnonzero(parent >= 0), np.zeros(int((parent >= 0).sum()))),
                     edge_categories=[{"name": "parent / child", "color": "#aaaaaa"}], info=info,
                     collapsed=sorted(cut_set), title=title or "Taxonomy with its published cut", subtitle=sub)
    view.data["categories"][3]["cross"] = True
    return view


def cut_of_release(taxonomy, published: Iterable[Hashable]) -> tuple[list, list]:
    """The cut a global-recoding release shows: its published nodes, plus the unpublished parts as suppressed.

    A release names only what it publishes. Every leaf under no published
    node was suppressed -- or never occurred in the data: without the data
    the two look alike (:func:`classify_cut` tells them apart); the largest
    subtrees holding no published node are returned as the suppressed cut
    nodes (a release that suppressed two siblings separately and one that
    suppressed their parent publish the same data, and are drawn alike).

    Parameters
    ----------
    taxonomy : Taxonomy
    published : iterable of nodes
        ``[pi.label for pi in release.published_items]``.

    Returns
    -------
    cut, suppressed : list, list

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> tax = load_taxonomy("liuwang_fig1")
    >>> cut_of_release(tax, ["P", "Q", "e"])
    (['P', 'Q', 'e', 'i'], ['i'])
    """
    cut, suppressed, absent = classify_cut(taxonomy, published)
    return cut, suppressed


def classify_cut(taxonomy, published: Iterable[Hashable], present: Iterable[Hashable] | None = None
                 ) -> tuple[list, list, list]:
    """A release's cut with its unpublished nodes split: suppressed, or absent from the data.

    The unpublished part of the taxonomy (no published node at, above or
    below) falls into its largest subtrees. With ``present`` -- the items
    that occur in the data the release was made from -- a subtree holding
    one of them is *suppressed* (the release hid occurrences), one holding
    none is *absent* (there was nothing to publish); without it every such
    subtree counts as suppressed, as :func:`cut_of_release` does.

    Parameters
    ----------
    taxonomy : Taxonomy
    published : iterable of nodes
        ``[pi.label for pi in release.published_items]``.
    present : iterable of items, optional
        The data's items (``data.items``); taxonomy leaves not among them
        never occur.

    Returns
    -------
    cut, suppressed, absent : list, list, list
        The full cut (published, suppressed and absent nodes, in taxonomy
        order), the suppressed cut nodes and the absent ones.

    Notes
    -----
    Complexity: O(nodes x depth) (each published node marks its ancestors).

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> tax = load_taxonomy("liuwang_fig1")
    >>> classify_cut(tax, ["P", "Q", "e"], present=["a", "b", "c", "d", "e", "f", "g", "h", "i"])
    (['P', 'Q', 'e', 'i'], ['i'], [])
    >>> classify_cut(tax, ["P", "Q", "e"], present=["a", "b", "c", "d", "e", "f", "g", "h"])
    (['P', 'Q', 'e', 'i'], [], ['i'])
    """
    nodes = list(taxonomy.nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    pub = _label_index(taxonomy, list(published), "published")
    parent = np.array([pos[taxonomy.parent(v)] if taxonomy.parent(v) is not None else -1 for v in nodes])
    has_pub = np.zeros(len(nodes), dtype=bool)  # a published node at or below
    covered = np.zeros(len(nodes), dtype=bool)  # at or below a published node
    for c in pub:
        covered[c: c + 1 + _subtree_size(parent, c)] = True
        p = c
        while p >= 0:
            has_pub[p] = True
            p = parent[p]
    free = ~has_pub & ~covered
    roots = [i for i in range(len(nodes)) if free[i] and (parent[i] < 0 or not free[parent[i]])]
    if present is None:
        occurs = np.ones(len(nodes), dtype=bool)
    else:
        keys = {lookup_key(x) for x in present}
        occurs = np.array([bool(taxonomy.is_leaf(v)) and lookup_key(v) in keys for v in nodes])
        for i in range(len(nodes) - 1, 0, -1):  # preorder: children after their parent
            if occurs[i] and parent[i] >= 0:
                occurs[parent[i]] = True
    suppressed = [i for i in roots if occurs[i]]
    absent = [i for i in roots if not occurs[i]]
    cut = sorted(set(pub.tolist()) | set(roots))
    return [nodes[i] for i in cut], [nodes[i] for i in suppressed], [nodes[i] for i in absent]


def _subtree_size(parent: np.ndarray, v: int) -> int:
    """Descendants of ``v`` when nodes are in preorder (they follow ``v`` contiguously)."""
    size, i, n = 0, v + 1, len(parent)
    depth_ok = {v}
    while i < n and parent[i] in depth_ok:
        depth_ok.add(i)
        size += 1
        i += 1
    return size


def search_view(search, round: int = -1, *, title: str | None = None) -> GraphView:
    """The HgHs/mHgHs walk through the cut lattice, one step at a time.

    Column ``s`` holds the cut reached after ``s`` moves and, above and below
    it, the child cuts evaluated from the previous cut (sorted by cost; the
    cheapest is the one moved to). The step control replays the walk; a node's
    detail gives its cut, cost and the node it expanded.

    Parameters
    ----------
    search : HierarchySearch
        ``release.trace.search`` of :func:`~graphanon.algorithms.hierarchy.hghs.anonymize_hghs`
        or ``anonymize_mhghs``.
    round : int
        Which mHgHs round (default: the last).

    Returns
    -------
    GraphView

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.algorithms.hierarchy.hghs import anonymize_hghs
    >>> rel = anonymize_hghs(load("liuwang_fig1"), taxonomy=load_taxonomy("liuwang_fig1"), k=2, m=2)
    >>> v = search_view(rel.trace.search)
    >>> v.data["steps"][0]
    'start: T'

    References
    ----------
    Liu, Wang, PAKDD 2010, Sec. 4 (the greedy top-down search, Algorithm 1).
    """
    rnd = search.rounds[round]
    lattice = search.lattice(round)
    cuts = [lattice.key(c) for c in rnd.cuts()]
    labels: list = []
    category: list = []
    xs: list = []
    ys: list = []
    steps_of: list = []
    info: list = []
    src, dst, ecat = [], [], []
    path_index = []
    costs = [rnd.start_cost[0]] + [st["cost"] for st in rnd.steps]
    candidates = [st["candidates"] for st in rnd.steps] + [rnd.final_candidates]
    captions = [f"start: {CutLabel.of(cuts[0])}"]
    for st in rnd.steps:
        captions.append(f"expand {st['expanded']} -> cost {st['cost']:.4g}")
    for s, cut in enumerate(cuts):
        me = len(labels)
        path_index.append(me)
        labels.append(CutLabel.of(cut))
        category.append(2 if s == len(cuts) - 1 else 0)
        xs.append(s * 100.0)
        ys.append(0.0)
        steps_of.append(s)
        d = {"step": s, "cost": _rounded(costs[s], 6), "cut size": len(cut), "cut": " ".join(map(str, cut))}
        if s:
            d["expanded"] = str(rnd.steps[s - 1]["expanded"])
            d["suppressed"] = " ".join(map(str, rnd.steps[s - 1]["suppressed"])) or "none"
        info.append(d)
        if s:
            src.append(path_index[s - 1])
            dst.append(me)
            ecat.append(0)
    for s, cands in enumerate(candidates):
        if not cands:
            continue
        children = dict(lattice.children(cuts[s]))
        moved_to = cuts[s + 1] if s + 1 < len(cuts) else None
        ranked = sorted(cands, key=lambda c: c[1])
        offset = 0
        for node, cost, n_supp in ranked:
            child = children[node]
            if child == moved_to:
                continue
            offset += 1
            me = len(labels)
            labels.append(f"+{node}")
            category.append(1)
            xs.append((s + 1) * 100.0 - 30)
            ys.append(offset * 14.0 * (1 if offset % 2 else -1) + (14.0 if offset % 2 else 0))
            steps_of.append(s + 1 if s + 1 < len(cuts) else s)
            info.append({"evaluated at step": s, "expand": str(node), "cost": _rounded(cost, 6),
                         "suppressed nodes": int(n_supp), "cut": " ".join(map(str, child))})
            src.append(path_index[s])
            dst.append(me)
            ecat.append(1)
    n_cand = sum(len(c) for c in candidates if c)
    view = GraphView(
        labels, [("cut on the search path", "#4c72b0"), ("evaluated child cut (not taken)", "#c8c8c8"),
                 ("chosen cut", "#2a7f3f")],
        category, x=xs, y=ys, edges=(src, dst, ecat),
        edge_categories=[{"name": "move", "color": "#4c72b0"}, {"name": "evaluated", "color": "#dddddd"}],
        info=info, step=steps_of, steps=captions,
        title=title or f"Greedy search through the cut lattice (k={rnd.k}, m={rnd.m})",
        subtitle=(f"{len(cuts) - 1} moves, {n_cand} child cuts evaluated; final cost {costs[-1]:.4g}. "
                  "Use the step control to replay the walk."),
    )
    view.data["label_room"] = 160  # pixels right of the last column, for its labels (the renderer cuts longer ones)
    return view


class CutLabel:
    """Short label of a cut: its nodes joined by spaces, cut to 60 characters."""

    @staticmethod
    def of(cut: Sequence[Hashable]) -> str:
        text = " ".join(map(str, cut))
        return text if len(text) <= 60 else text[:57] + "..."
