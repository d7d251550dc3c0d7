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


def test_constraint_graph_cap_says_what_it_dropped():
    data = load("groceries")
    cg = ConstraintGraph(data, pgen(data, 5))
    n_constraints = len(cg.privacy)
    ax = draw_constraint_graph(cg, max_nodes=80)
    note = ax.get_title().splitlines()[1]
    assert note.startswith("showing the first ") and f"of {n_constraints} privacy constraints" in note
    drawn = sum(len(c.get_offsets()) for c in ax.collections if hasattr(c, "get_sizes") and len(c.get_sizes()))
    assert drawn <= 80
    ax.figure.canvas.draw()
    r = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in ax.texts if t.get_text().strip()]
    overlaps = sum(1 for i, a in enumerate(boxes) for b in boxes[i + 1:]
                   if a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5)
    assert overlaps == 0
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
