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


def _decode(text):
    import base64

    return np.frombuffer(base64.b64decode(text), dtype="<i4")


def test_a_block_detail_carries_its_constraints(graph):
    """The page's data for a block's detail graph: each block's constraints, in the given order, item by item."""
    view = constraint_view(graph, overview=True)
    focus, n_items = view.data["focus"], len(graph.items)
    assert focus["kind"] == "blocks" and focus["first_block"] == n_items
    flat, lengths = _decode(focus["flat"]), _decode(focus["lengths"])
    starts = np.r_[0, np.cumsum(lengths)]
    block_start, block_list, anchors = _decode(focus["block_start"]), _decode(focus["block_list"]), _decode(focus["anchors"])
    labels = view.data["nodes"]["label"]
    order = {x: i for i, x in enumerate(graph.items)}
    for b in range(len(anchors)):
        rarest = graph.items[anchors[b]]
        assert labels[n_items + b] == f"rarest {rarest}"
        expected = [tuple(p) for p in graph.privacy if min(p, key=lambda x: (graph.supports[x], order[x])) == rarest]
        got = [tuple(graph.items[j] for j in flat[starts[c]:starts[c + 1]]) for c in block_list[block_start[b]:block_start[b + 1]]]
        assert got == expected
