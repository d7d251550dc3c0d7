"""Drawings of clustering releases: LCG over the taxonomy, similarity neighbourhood."""

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.graphs.lcg import NodeIndex, lcg_labels  # noqa: E402
from graphanon.graphs.similarity import RecordSimilarityGraph  # noqa: E402
from graphanon.viz import draw_group_lcg, draw_similarity_neighborhood  # noqa: E402
from graphanon.viz.clustering import assign_lcg  # noqa: E402


@pytest.fixture
def food():
    return load("clump_food"), load_taxonomy("clump_food")


def test_assignment_marks_suppressed_items(food):
    data, tax = food
    # S3: <Fruit, Fruit>: Milk and Beef are suppressed
    stands = assign_lcg(tax, ["Fruit", "Fruit"], data.record(5))
    assert sorted(stands.values()) == ["Fruit", "Fruit"] and "Milk" not in stands
    # S4: <Fruit, Food>: Food stands for Beef (record 1) and Milk (record 2)
    assert assign_lcg(tax, ["Fruit", "Food"], data.record(7)) == {"Orange": "Fruit", "Beef": "Food"}
    assert assign_lcg(tax, ["Fruit", "Food"], data.record(8))["Milk"] == "Food"
    with pytest.raises(ValueError):
        assign_lcg(tax, ["Meat"], data.record(2))


def test_draw_group_lcg(food):
    data, tax = food
    idx = NodeIndex(tax, data.items)
    rows = [4, 5, 6]
    ax = draw_group_lcg(tax, [data.record(i) for i in rows], lcg_labels(idx, data, rows))
    texts = [t.get_text() for t in ax.texts]
    assert "Fruit x2" in texts and "record 3" in texts
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["Fruit", "suppressed"]


def test_draw_neighbourhood_highlights_group():
    X = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 1, 1], [0, 0, 0, 1]])
    g = RecordSimilarityGraph.knn(X, 2)
    ax = draw_similarity_neighborhood(g, 0, [0, 1, 4], radius=1)
    colours = [tuple(c) for c in ax.collections[-1].get_facecolor()] if ax.collections else []
    assert len(colours) == len({0, *g.neighbors(0)[0].tolist(), 4})
    assert "group of 3" in ax.get_title()


@pytest.mark.parametrize("name", ["groceries", "bms1"])
def test_neighbourhood_nodes_never_overlap(name):
    """The spring layout is spread until no two node discs meet (issue 23); on these 200-record
    samples the plain spring layout put 1 (groceries) and 2 (bms1) pairs of nodes on each other."""
    import matplotlib.pyplot as plt

    from tests.drawing_checks import figure_problems, overlapping_nodes

    data = load(name).subset(np.arange(200)).drop_unused_items()
    g = RecordSimilarityGraph.knn(data.matrix, 5)
    ax = draw_similarity_neighborhood(g, 0, [0, 1, 2], radius=2, max_nodes=40)
    assert overlapping_nodes(ax) == [] and figure_problems(ax.figure, nodes=True) == []
    assert {t.get_text() for t in ax.texts} >= {"0", "1", "2"}
    ax.collections[-1].set_offsets(np.zeros((len(ax.collections[-1].get_offsets()), 2)))  # all on one spot
    assert overlapping_nodes(ax)
    plt.close(ax.figure)
