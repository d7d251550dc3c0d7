"""Drawings of the hierarchy family (Agg backend): they draw what they say."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from graphanon.algorithms import anonymize_hghs, anonymize_mhghs  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.viz import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut, tree_layout  # noqa: E402
from tests.drawing_checks import overlapping_labels  # noqa: E402


@pytest.fixture(scope="module")
def rel():
    return anonymize_hghs(load("liuwang_fig1"), taxonomy=load_taxonomy("liuwang_fig1"), k=2)


def test_tree_layout_places_parents_above_children():
    tax = load_taxonomy("liuwang_fig1")
    pos = tree_layout(tax.graph, tax.root)
    assert set(pos) == set(tax.nodes)
    for u, v in tax.graph.edges:
        assert pos[u][1] == pos[v][1] + 1
    xs = sorted(pos[leaf][0] for leaf in tax.leaves)
    assert xs == [float(i) for i in range(len(tax.leaves))]


def _colour_counts(ax) -> dict:
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex

    counts: dict = {}
    for c in ax.collections:
        if isinstance(c, PathCollection) and len(c.get_offsets()) == 1:  # one scatter per node
            key = to_hex(c.get_facecolors()[0])
            counts[key] = counts.get(key, 0) + 1
    return counts


def test_draw_taxonomy_cut_colours(rel):
    tax = load_taxonomy("liuwang_fig1")
    ax = draw_taxonomy_cut(tax, rel.trace.cut, rel.trace.suppressed)
    counts = _colour_counts(ax)
    # cut {P,f,g,M,e,i}: 5 kept (blue), i suppressed (red), below the cut H,K,a,b,c,d,x,y,z faded
    assert counts == {"#1f77b4": 5, "#d62728": 1, "#cccccc": 9, "#555555": 3}
    assert "1 suppressed" in ax.get_title()
    plt.close(ax.figure)


def test_draw_lattice_and_tree(rel):
    ax = draw_cut_lattice(rel.trace.search.lattice())
    texts = [t.get_text() for t in ax.texts]
    # the search path ends at cost 5.6 after expanding N; expanding P first would cost 10.2
    assert "+N\n5.6" in texts and "+P\n10.2" in texts
    plt.close(ax.figure)
    ax = draw_enumeration_tree(rel.trace.search.enumeration_tree())
    assert "suppresses i" in ax.get_title()
    plt.close(ax.figure)


def test_draw_on_groceries_mhghs():
    data, tax = load("groceries"), load_taxonomy("groceries")
    r = anonymize_mhghs(data, taxonomy=tax, k=10, m=2)
    fig, axes = plt.subplots(1, 3)
    draw_taxonomy_cut(tax, r.trace.cut, r.trace.suppressed, ax=axes[0])
    draw_cut_lattice(r.trace.search.lattice(), ax=axes[1], max_nodes=20)
    draw_enumeration_tree(r.trace.search.enumeration_tree(), ax=axes[2], max_nodes=20)
    assert all(a.get_title() for a in axes)
    plt.close(fig)


def test_search_figure_titles_never_overlap_and_tree_labels_have_room():
    """`graphanon draw search groceries -k 10 -m 2` (issue 23): three panels, three separate titles."""
    from matplotlib.figure import Figure

    data, tax = load("groceries"), load_taxonomy("groceries")
    r = anonymize_mhghs(data, taxonomy=tax, k=10, m=2)
    fig = Figure(figsize=(20, 9))
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.0, 1.3, 0.8], "wspace": 0.25})
    draw_taxonomy_cut(tax, r.trace.cut, r.trace.suppressed, ax=axes[0])
    draw_cut_lattice(r.trace.search.lattice(), ax=axes[1], max_nodes=25)
    draw_enumeration_tree(r.trace.search.enumeration_tree(), ax=axes[2], max_nodes=25)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    boxes = [a.title.get_window_extent(renderer) for a in axes]
    assert not any(boxes[i].overlaps(boxes[j]) for i in range(3) for j in range(i + 1, 3))
    assert overlapping_labels(axes[2]) == []
    assert "suppresses 5 nodes" in axes[2].get_title()


def test_groceries_level_2_taxonomy_is_legible():
    """At its documented limit (169 leaves, a level-2 cut) every label has its own room."""
    from graphanon.viz import draw_taxonomy

    tax = load_taxonomy("groceries")
    fig = draw_taxonomy(tax, highlight=tax.level(2))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == 1 + len(tax.level(1)) + len(tax.level(2))  # collapsed below the cut, all named
    assert "showing 66 of 235 nodes" in ax.get_title()
    assert min(t.get_fontsize() for t in ax.texts) >= 7
    assert overlapping_labels(ax) == []
    plt.close(fig)


def test_bms1_search_lattice_is_legible():
    """The cut lattice of HgHs on bms1 (balanced taxonomy, k=5, m=2) as ``graphanon draw search`` shows it."""
    from graphanon.taxonomy import Taxonomy

    data = load("bms1")
    r = anonymize_hghs(data, taxonomy=Taxonomy.balanced(data.items, 5), k=5, m=2)
    fig, axes = plt.subplots(1, 3, figsize=(20, 15))
    ax = draw_cut_lattice(r.trace.search.lattice(), ax=axes[1], max_nodes=25)
    assert "25 cuts shown" in ax.get_title()
    assert overlapping_labels(ax) == []
    plt.close(fig)


def test_enumeration_tree_outline_labels_every_node_apart():
    """The outline puts each scenario on its own row (issue 23): on the papers' food example every
    node of the drawn tree carries its full kept|left lists and no two labels meet; a long greedy
    walk (groceries, 32 cut nodes) falls back to counts that fit the panel."""
    data, tax = load("clump_food"), load_taxonomy("clump_food")
    tree = anonymize_hghs(data, taxonomy=tax, k=3, m=1).trace.search.enumeration_tree()
    g = tree.to_networkx(max_nodes=20)
    ax = draw_enumeration_tree(tree, max_nodes=20)
    texts = {t.get_text() for t in ax.texts}
    expected = {f"{{{','.join(map(str, d['head']))}}} | {{{','.join(map(str, d['tail']))}}}"
                for _, d in g.nodes(data=True)}
    assert texts == expected
    ys = sorted(t.xy[1] for t in ax.texts)
    assert len(set(ys)) == len(ys)  # one row each
    assert overlapping_labels(ax) == []
    plt.close(ax.figure)
    r = anonymize_mhghs(load("groceries"), taxonomy=load_taxonomy("groceries"), k=10, m=2)
    ax = draw_enumeration_tree(r.trace.search.enumeration_tree(), max_nodes=25)
    assert all(" kept | " in t.get_text() for t in ax.texts) and overlapping_labels(ax) == []
    renderer = ax.figure.canvas.get_renderer()
    right = ax.get_window_extent(renderer).x1
    assert max(t.get_window_extent(renderer).x1 for t in ax.texts) <= right + 1
    plt.close(ax.figure)
