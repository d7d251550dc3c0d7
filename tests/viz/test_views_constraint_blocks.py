"""constraint_view's blocks at scale (issue 35): each privacy constraint in the block of its rarest item,
checked against a brute-force grouping; title and legend count the same blocks."""

import numpy as np
import pytest

from graphanon.datasets.synthetic import icd9_like
from graphanon.graphs.constraints import ConstraintGraph
from graphanon.viz.views import constraint_view


@pytest.fixture(scope="module")
def graph():
    data = icd9_like(400, rng=1)[0]
    rng = np.random.default_rng(2)
    items = list(data.items)
    privacy = [tuple(items[j] for j in rng.choice(len(items), size=rng.integers(1, 4), replace=False))
               for _ in range(300)]
    return ConstraintGraph(data, privacy)


def test_blocks_match_a_brute_force_grouping(graph):
    view = constraint_view(graph, overview=True)
    order = {x: i for i, x in enumerate(graph.items)}
    expected: dict = {}
    for p in graph.privacy:
        rarest = min(p, key=lambda x: (graph.supports[x], order[x]))
        expected.setdefault(rarest, []).append(p)
    nodes, n_items = view.data["nodes"], len(graph.items)
    blocks = [i for i, c in enumerate(nodes["cat"]) if c == 1]
    assert len(blocks) == len(expected)
    src, dst = np.asarray(view.data["edges"]["src"]), np.asarray(view.data["edges"]["dst"])
    for b in blocks:
        info = nodes["info"][b]
        members = expected[info["rarest item"]]
        assert info["privacy constraints"] == len(members)
        got = {graph.items[j] for j in dst[src == b].tolist() if j < n_items}
        assert got == {x for p in members for x in p}
        assert info["items in its constraints"] == len(got)
    assert sum(nodes["info"][b]["privacy constraints"] for b in blocks) == len(graph.privacy)


def test_title_and_legend_count_the_same_blocks(graph):
    view = constraint_view(graph, overview=True)
    n_blocks = view.data["nodes"]["cat"].count(1)
    assert f"{len(graph.privacy):,} privacy constraints in {n_blocks:,} blocks" in view.data["title"]
    assert f"{view.data['nodes']['cat'].count(2):,} utility block" in view.data["title"]
    assert view.n_nodes == len(graph.items) + n_blocks + len(graph.blocks)


def test_blocks_only_above_the_threshold(graph):
    full = constraint_view(graph)  # 300 constraints: every one drawn
    names = [c["name"] for c in full.data["categories"]]
    assert full.data["nodes"]["cat"].count(names.index("privacy constraint")) == len(graph.privacy)
    assert constraint_view(graph, overview=False).n_nodes == full.n_nodes
