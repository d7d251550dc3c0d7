"""The COAT constraint graph drawing: capped with a note, legible at its cap."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from graphanon.algorithms.coat import pgen  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.errors import ParameterError  # noqa: E402
from graphanon.graphs.constraints import ConstraintGraph  # noqa: E402
from graphanon.viz import draw_constraint_graph  # noqa: E402
from tests.drawing_checks import overlapping_labels  # noqa: E402


def test_constraint_graph_cap_says_what_it_dropped():
    data = load("groceries")
    cg = ConstraintGraph(data, pgen(data, 5))
    n_constraints = len(cg.privacy)
    ax = draw_constraint_graph(cg, max_nodes=80)
    note = ax.get_title().splitlines()[1]
    assert note.startswith("showing the first ") and f"of {n_constraints} privacy constraints" in note
    drawn = sum(len(c.get_offsets()) for c in ax.collections if hasattr(c, "get_sizes") and len(c.get_sizes()))
    assert drawn <= 80
    assert overlapping_labels(ax) == []
    plt.close(ax.figure)
    with pytest.raises(ParameterError, match="max_nodes"):
        draw_constraint_graph(cg, max_nodes=3)


def test_small_constraint_graph_is_drawn_whole():
    from graphanon.datasets import load_constraints

    data, c = load("coat_fig1"), load_constraints("coat_fig1")
    ax = draw_constraint_graph(ConstraintGraph(data, c["privacy"], c["utility"]))
    assert "showing" not in ax.get_title()
    assert {t.get_text() for t in ax.texts} >= {"abc", "defgh", "u1", "a\n6", "b\n3"}
    plt.close(ax.figure)


def test_merge_forest_cap_and_labels():
    """A COAT run on groceries merges long chains: the largest trees are drawn, labels do not collide."""
    from graphanon.algorithms.coat import anonymize_coat
    from graphanon.graphs import MergeForest
    from graphanon.viz import draw_merge_forest

    data = load("groceries")
    trace = anonymize_coat(data, privacy=pgen(data, 5)[:30], utility=None, k=5, s=0.1).trace
    forest = MergeForest(trace, data.items)
    n = forest.to_networkx().number_of_nodes()
    ax = draw_merge_forest(forest, max_nodes=120)
    title = ax.get_title()
    assert f"of {n} nodes, max_nodes=120" in title and "published or suppressed sets, the largest first" in title
    assert overlapping_labels(ax) == []
    plt.close(ax.figure)


def test_constraint_summary_counts_every_constraint():
    """`graphanon draw constraints groceries -k 5` summarizes 4,046 constraints instead of drawing 4 (issue 23)."""
    from collections import Counter

    from graphanon.algorithms.coat import pgen
    from graphanon.viz.coat import draw_constraint_summary

    data = load("groceries")
    privacy = pgen(data, 5)
    cg = ConstraintGraph(data, privacy)
    left, right = draw_constraint_summary(cg, top=15)
    per_item = Counter(x for p in privacy for x in p)
    bars = {t.get_text(): p.get_width() for t, p in zip(left.get_yticklabels(), left.patches)}
    assert len(bars) == 15
    assert sorted(bars.values(), reverse=True) == sorted(per_item.values(), reverse=True)[:15]
    assert all(per_item[x] == w for x, w in bars.items())
    sizes = Counter(len(p) for p in privacy)
    assert {round(p.get_x() + p.get_width() / 2): p.get_height() for p in right.patches} == sizes
    assert f"{len(privacy):,} privacy constraints" in left.get_title()
    assert left.get_legend() and right.get_legend()
    plt.close(left.figure)


@pytest.mark.parametrize("name", ["coat_fig1", "groceries"])
def test_constraint_summary_whole_ticks_and_legends_clear_of_bars(name):
    """Tiny data (COAT's Fig. 1 example: 5 constraints) and groceries: count axes tick whole
    numbers only, and no legend covers a bar or a title (issue 23: fractional ticks, legends over
    the bars). The check itself catches a legend put back over the bars."""
    from graphanon.algorithms.coat import pgen
    from graphanon.datasets import load_constraints
    from graphanon.viz.coat import draw_constraint_summary
    from tests.drawing_checks import figure_problems, legends_over_data

    data = load(name)
    privacy = load_constraints(name)["privacy"] if name == "coat_fig1" else pgen(data, 5)
    left, right = draw_constraint_summary(ConstraintGraph(data, privacy), top=15)
    fig = left.figure
    assert figure_problems(fig) == []
    for axis in (left.xaxis, right.xaxis, right.yaxis):
        low, high = sorted(axis.get_view_interval())
        ticks = [t for t in axis.get_ticklocs() if low <= t <= high]
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks)
    tallest = max(right.patches, key=lambda p: p.get_height())  # a legend put on a bar: found
    right.legend(loc="center", bbox_to_anchor=(tallest.get_x() + tallest.get_width() / 2, tallest.get_height() / 2),
                 bbox_transform=right.transData)
    assert any("covers a bar" in p for p in legends_over_data(fig))
    plt.close(fig)
