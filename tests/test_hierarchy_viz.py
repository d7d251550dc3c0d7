"""Drawings of the hierarchy family (Agg backend): they draw what they say."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from graphanon.algorithms import anonymize_hghs, anonymize_mhghs  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.viz import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut, tree_layout  # noqa: E402


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


def test_draw_taxonomy_cut_colours(rel):
    tax = load_taxonomy("liuwang_fig1")
    ax = draw_taxonomy_cut(tax, rel.trace.cut, rel.trace.suppressed)
    colors = ax.collections[-1].get_facecolors()
    assert len(colors) == len(tax.nodes)
    assert "1 suppressed" in ax.get_title()
    plt.close(ax.figure)


def test_draw_lattice_and_tree(rel):
    ax = draw_cut_lattice(rel.trace.search.lattice())
    texts = [t.get_text() for t in ax.texts]
    assert any("cost 5.6" in t for t in texts) and any("cost 10.2" in t for t in texts)
    plt.close(ax.figure)
    ax = draw_enumeration_tree(rel.trace.search.enumeration_tree())
    assert "['i']" in ax.get_title()
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
