"""PrivBasis's frequent-pair graph drawn from the release alone: ``graphanon.viz.privbasis`` and ``draw pairs``."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from graphanon.algorithms.dp import anonymize_privbasis
from graphanon.data import from_iterable
from graphanon.errors import ParameterError
from graphanon.release import load_release
from graphanon.viz.privbasis import draw_pair_graph, pair_graph, pair_graph_view
from tests.conftest import cli

UNIVERSE = list("abcdefgh")
RECORDS = [["a", "b", "c"]] * 300 + [["a", "b"]] * 200 + [["c", "d"]] * 150 + [["e"]] * 100 + [["f", "g"]] * 80


@pytest.fixture(scope="module")
def release():
    return anonymize_privbasis(from_iterable(RECORDS), k=12, epsilon=8.0, universe=UNIVERSE)


def test_the_graph_is_the_released_list(release):
    g = pair_graph(release)
    supports = release.itemset_supports()
    # nodes: every item of a released itemset, no other (h is in the universe, in no record)
    assert set(g.nodes) == set().union(*supports) and "h" not in g.nodes
    # edges: exactly the released pairs, with their noisy supports
    edges = {frozenset((g.nodes[i], g.nodes[j])): s for i, j, s in zip(g.src, g.dst, g.edge_support)}
    assert edges == {s: v for s, v in supports.items() if len(s) == 2}
    assert all(i < j for i, j in zip(g.src, g.dst))
    # node support: the released single-item support, NaN where the item is not released alone
    for x, v in zip(g.nodes, g.node_support):
        assert (np.isnan(v) and frozenset([x]) not in supports) or v == supports[frozenset([x])]
    assert {frozenset(c) for c in g.cliques} == {s for s in supports if len(s) >= 3}
    assert g.epsilon == 8.0


def test_it_reads_the_release_only(release, tmp_path):
    path = tmp_path / "r.json"
    release.save(path)
    again, g = pair_graph(load_release(path)), pair_graph(release)
    assert again.nodes == g.nodes and again.edge_support.tolist() == g.edge_support.tolist()
    view = pair_graph_view(load_release(path))
    assert view.n_nodes == g.n_nodes and "never publish one" in view.data["note"]
    ax = draw_pair_graph(load_release(path), ax=Figure().subplots())
    assert f"{len(g.src)} released pairs" in ax.get_title() and len(ax.lines) == len(g.src)


def test_refuses_a_release_of_another_kind():
    with pytest.raises(ParameterError, match="itemset release"):
        pair_graph(type("R", (), {"kind": "synthetic"})())


def test_cli_draw_pairs(release, tmp_path):
    path = tmp_path / "r.json"
    release.save(path)
    for name in ("g.png", "g.svg", "g.html"):
        res = cli("draw", "pairs", path, "-o", tmp_path / name)
        assert res.exit_code == 0, res.output
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    page = (tmp_path / "g.html").read_text()
    assert "PrivBasis pair graph implied by r.json" in page and "http" not in page.split("<script>")[0]
    (tmp_path / "d.txt").write_text("a,b\na,b\nc\nc\n")
    res = cli("anonymize", tmp_path / "d.txt", "-a", "aa", "-k", "2", "-m", "2", "--taxonomy",
                     "balanced:2", "-o", tmp_path / "s.json")
    assert res.exit_code == 0, res.output
    res = cli("draw", "pairs", tmp_path / "s.json", "-o", tmp_path / "x.png")
    assert res.exit_code == 2 and "give an itemset (PrivBasis) release" in res.output
    res = cli("draw", "pairs", "--help")
    assert res.exit_code == 0 and "bases are never drawn" in " ".join(res.output.split())
