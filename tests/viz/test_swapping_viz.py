"""Drawings of swaps: the bars show the category weights, the pairs are the highlighted edges."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from graphanon.algorithms import anonymize_partswap
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.taxonomy import ItemGroups
from graphanon.viz import draw_swap_graph, draw_swap_pair

CATS = {"A": ["1", "2", "3", "8"], "B": ["6", "7"], "C": ["4", "9", "12"], "D": ["5", "10", "11"]}


@pytest.fixture
def swapped():
    data = load("swap_table1")
    groups = ItemGroups(CATS)
    return data, groups, anonymize_partswap(data, categories=groups, visit="input", unsafe_secret_seed=0)


def test_pair_bars_are_the_weights(swapped):
    data, groups, rel = swapped
    fig = draw_swap_pair(data, rel, groups, pair=(0, 6))
    ax = fig.axes[0]  # record 001: A=3, D=2 before; C=3, D=2 after (categories A, B, C, D shown)
    heights = [p.get_height() for p in ax.patches]
    assert heights == [3, 0, 0, 2, 0, 0, 3, 2]
    plt.close(fig)


def test_graph_highlights_pairs(swapped):
    data, groups, rel = swapped
    ax = draw_swap_graph(data, rel, groups)
    dashed = [c for c in ax.collections if getattr(c, "get_linestyle", None) and c.get_linestyle()[0][1] is not None]
    assert dashed  # the pair edges are drawn dashed
    assert {t.get_text() for t in ax.texts} >= {"001", "007", "002", "004"}
    plt.close(ax.figure)
    rel.link = None
    with pytest.raises(ParameterError, match="link"):
        draw_swap_pair(data, rel, groups)
    rel.trace = None
    with pytest.raises(ParameterError):
        draw_swap_graph(data, rel, groups)
