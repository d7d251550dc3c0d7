"""The legibility checker (``tests/drawing_checks.py``) finds planted problems.

``figure_problems`` draws a figure once and runs every check on that drawing; each check called
alone draws it itself. Both must find the same problems on figures built to have them.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from tests.drawing_checks import (  # noqa: E402
    figure_problems,
    hidden_series,
    legends_over_data,
    overlapping_labels,
    overlapping_nodes,
)


def _labels_on_each_other():
    fig, (left, right) = plt.subplots(1, 2, figsize=(4, 2))
    right.annotate("apples", (0.5, 0.5))
    right.annotate("pears", (0.5, 0.5))
    left.annotate("alone", (0.2, 0.2))
    return fig, right


def _legend_on_a_bar():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar([0, 1, 2], [1, 1, 1], label="bars")
    ax.legend(loc="center")
    return fig, ax


def _series_under_another():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [1, 2, 3], "o-", markersize=5, label="first")
    ax.plot([0, 1, 2], [1, 2, 3], "s-", markersize=8, label="second")
    ax.legend(loc="lower right")
    return fig, ax


def _nodes_on_each_other():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.scatter([0.5, 0.501, 0.9], [0.5, 0.5, 0.9], s=200)
    return fig, ax


@pytest.mark.parametrize(("build", "check", "words"), [
    (_labels_on_each_other, lambda fig, ax: overlapping_labels(ax, 1.0), "'apples' overlaps 'pears'"),
    (_legend_on_a_bar, lambda fig, ax: legends_over_data(fig), "covers a bar"),
    (_series_under_another, lambda fig, ax: hidden_series(ax), "series 'first' is hidden under 'second'"),
    (_nodes_on_each_other, lambda fig, ax: overlapping_nodes(ax, 1.0), "nodes 0 and 1 overlap"),
])
def test_one_drawing_finds_what_each_check_finds(build, check, words):
    fig, ax = build()
    alone = check(fig, ax)
    together = figure_problems(fig, nodes=True)
    plt.close(fig)
    assert alone and len(alone) == 1
    assert [p for p in together if words in p], together
