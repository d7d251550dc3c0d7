"""Drawings of ring graphs, assignments and closed walks (Agg backend)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from graphanon.algorithms.nonreciprocal import closed_walk_trace, extract_assignments  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.graphs.generalization import ring_graph  # noqa: E402
from graphanon.viz.nonreciprocal import (  # noqa: E402
    draw_assignments,
    draw_closed_walk,
    draw_generalization_graph,
)
from tests.drawing_checks import overlapping_labels  # noqa: E402

ORDER = [1, 3, 2, 0, 4, 5]


def test_drawings():
    data = load("nr_table1")
    g = ring_graph(ORDER, 3, data.record_ids)
    ax = draw_generalization_graph(g, ORDER)
    assert len(ax.patches) == 18  # one arrow (or self-loop circle) per edge
    A = extract_assignments(g, rng=0)
    ax = draw_assignments(g, A, ORDER)
    assert sum(1 for t in ax.texts if t.get_text()) == 12  # 6 records + 6 published records
    ax = draw_assignments(g, A[:1], ORDER, view="unified")
    assert len(ax.patches) == 6
    _, events = closed_walk_trace(g, rng=3)
    fig = draw_closed_walk(g, events, ORDER, max_panels=5)
    titles = [a.get_title() for a in fig.axes if a.get_title()]
    assert len(titles) == min(5, len(events))
    with pytest.raises(ValueError, match="view"):
        draw_assignments(g, A, view="3d")
    assert np.array_equal(np.sort(A[0]), np.arange(6))


def test_sixty_records_stay_legible():
    """At the CLI's limit (60 records, k = 5, the figure `graphanon draw generalization` makes)."""
    import matplotlib.pyplot as plt

    n = 60
    order = np.random.default_rng(0).permutation(n)
    g = ring_graph(order, 5, [f"r{i + 1}" for i in range(n)])
    fig, axes = plt.subplots(1, 2, figsize=(14, 0.16 * n + 1))
    draw_generalization_graph(g, order, ax=axes[0])
    draw_assignments(g, extract_assignments(g, rng=0), order, ax=axes[1])
    fig.canvas.draw()  # once: both panels' checks read this drawing
    for ax in axes:
        assert overlapping_labels(ax, drawn=True) == []
        assert min(t.get_fontsize() for t in ax.texts if t.get_text()) >= 4
    plt.close(fig)
