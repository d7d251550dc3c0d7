"""Interactive views (graphanon.viz.views): what the builders put in a view, the HTML file, the CLI.

The views are rendered and clicked in a real browser in tests/viz/test_views_browser.py.
"""

import base64
import json
import re

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon.algorithms import anonymize_mhghs
from graphanon.algorithms.grouping.clump import anonymize_clump
from graphanon.algorithms.nonreciprocal import extract_assignments, gray_tsp_order
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import OutputError, ParameterError
from graphanon.graphs.generalization import ring_graph
from graphanon.privacy import KmAnonymity, TransactionalKAnonymity
from graphanon.viz.views import (
    GraphView,
    constraint_view,
    cut_of_release,
    generalization_view,
    search_view,
    similarity_layout,
    similarity_view,
    taxonomy_view,
)


@pytest.fixture(scope="module")
def groceries_mhghs():
    data, tax = load("groceries"), load_taxonomy("groceries")
    return data, tax, anonymize_mhghs(data, taxonomy=tax, k=10, m=2)


def _typed_length(packed: dict) -> int:
    """The length of an array written by ``views.core._packed`` (plain typed, differences, runs or counts)."""
    if "d" in packed:
        return _typed_length(packed["d"])
    if "runs" in packed:
        return int(sum(_typed_values(packed["lengths"])))
    if "counts" in packed:
        return int(sum(_typed_values(packed["counts"])))
    return len(_typed_values(packed))


def _typed_values(typed: dict) -> np.ndarray:
    (name, text), = typed.items()
    raw = base64.b64decode(text)
    if name == "u24":
        return np.frombuffer(raw, np.uint8).reshape(-1, 3) @ np.array([1, 256, 65536])
    return np.frombuffer(raw, {"u8": "u1", "i8": "i1", "u16": "<u2", "i16": "<i2", "i32": "<i4", "f32": "<f4",
                               "f64": "<f8"}[name])


def _data_of(view):
    html = view.to_html()
    payload = re.search(r'<script type="application/json" id="graphanon-data">(.*?)</script>', html, re.S).group(1)
    return json.loads(payload)


def test_taxonomy_view_marks_the_cut_and_the_suppressed_nodes(groceries_mhghs):
    data, tax, rel = groceries_mhghs
    assert KmAnonymity(10, 2).audit(data, rel).satisfied  # the release the view shows is what it claims
    cut, suppressed = rel.trace.cut, rel.trace.suppressed
    assert suppressed  # this release suppresses: the view must show it
    view = taxonomy_view(tax, cut, suppressed, data=data)
    names = [c["name"] for c in view.data["categories"]]
    cat = np.array(view.data["nodes"]["cat"])
    labels = view.data["nodes"]["label"]
    assert sorted(labels[i] for i in np.flatnonzero(cat == names.index("suppressed cut node"))) == sorted(suppressed)
    published = np.flatnonzero(cat == names.index("published cut node"))
    assert sorted(labels[i] for i in published) == sorted(set(cut) - set(suppressed))
    assert view.data["categories"][names.index("suppressed cut node")]["cross"]
    # the tree starts collapsed at the cut, and every node of the cut is collapsed
    assert sorted(labels[i] for i in view.data["collapsed"]) == sorted(cut)
    # NCP shares of the cut add up to the release's NCP in the taxonomy convention
    from graphanon.metrics.loss import ncp_taxonomy

    shares = sum(view.data["nodes"]["info"][i].get("NCP share", 0) for i in range(len(labels)))
    assert shares == pytest.approx(ncp_taxonomy(data, rel), abs=1e-3)


def test_cut_of_release_recovers_the_published_partition(groceries_mhghs):
    data, tax, rel = groceries_mhghs
    cut, suppressed = cut_of_release(tax, [pi.label for pi in rel.published_items])
    assert set(cut) - set(suppressed) == {pi.label for pi in rel.published_items}
    # a cut: every leaf lies under exactly one of its nodes
    for leaf in tax.leaves:
        assert sum(tax.is_ancestor(c, leaf) or c == leaf for c in cut) == 1
    # the suppressed leaves are exactly those of the trace's suppressed nodes
    leaves = lambda nodes: {x for v in nodes for x in tax.leaves_under(v)}  # noqa: E731
    assert leaves(suppressed) == leaves(rel.trace.suppressed)


def test_search_view_replays_the_walk(groceries_mhghs):
    data, tax, rel = groceries_mhghs
    search = rel.trace.search
    view = search_view(search)
    rnd = search.rounds[-1]
    assert len(view.data["steps"]) == len(rnd.steps) + 1
    step = np.array(view.data["nodes"]["step"])
    cat = np.array(view.data["nodes"]["cat"])
    path = np.flatnonzero(cat != 1)
    assert sorted(step[path].tolist()) == list(range(len(rnd.steps) + 1))  # one path cut per step
    final = [i for i in path if step[i] == len(rnd.steps)][0]
    assert view.data["categories"][cat[final]]["name"] == "chosen cut"
    assert view.data["nodes"]["info"][final]["cut"] == " ".join(map(str, search.lattice().path[-1]))


def test_generalization_view_holds_the_private_link_only_when_given():
    data = load("bms1").subset(np.arange(300)).drop_unused_items()
    order = gray_tsp_order(data.matrix, time_limit=None, rng=0)
    graph = ring_graph(order, 4, data.record_ids)
    public = generalization_view(graph, order)
    assert [c["name"] for c in public.data["edge_categories"]] == ["candidate (may be published as)"]
    assert "PRIVATE" not in public.to_html()
    src, dst = np.array(public.data["edges"]["src"]), np.array(public.data["edges"]["dst"])
    for i in (0, 17, 299):  # a record's candidates are exactly its graph successors
        assert sorted(dst[src == i] - 300) == sorted(graph.successors[i].tolist())
    chosen = extract_assignments(graph, rng=1)[2]
    private = generalization_view(graph, order, chosen=chosen)
    cat = np.array(private.data["edges"]["cat"])
    psrc, pdst = np.array(private.data["edges"]["src"]), np.array(private.data["edges"]["dst"])
    assert np.array_equal(pdst[cat == 1][np.argsort(psrc[cat == 1])] - 300, chosen)
    assert "PRIVATE" in private.data["note"]
    bad = chosen.copy()
    bad[0] = bad[1]
    with pytest.raises(ParameterError):
        generalization_view(graph, order, chosen=bad)
    not_an_edge = np.roll(np.arange(300), 150)
    with pytest.raises(ParameterError):
        generalization_view(graph, order, chosen=not_an_edge)


def test_similarity_view_keeps_each_records_strongest_neighbours():
    data = load("groceries").subset(np.arange(600)).drop_unused_items()
    tax = load_taxonomy("groceries")
    rel = anonymize_clump(data, taxonomy=tax, k=4, rng=0)
    assert TransactionalKAnonymity(4).audit(data, rel).satisfied
    groups = rel.group_ids()[rel.link.row_of_record]
    assert np.bincount(groups)[np.unique(groups)].min() >= 4
    graph = rel.trace.similarity_graph
    view = similarity_view(graph, groups, data=data, neighbors=2)
    src, dst = np.array(view.data["edges"]["src"]), np.array(view.data["edges"]["dst"])
    W = graph.matrix.tocsr()
    for i in (0, 5, 100):
        cols, sims = W.indices[W.indptr[i]:W.indptr[i + 1]], W.data[W.indptr[i]:W.indptr[i + 1]]
        drawn = set(dst[src == i]) | set(src[dst == i])
        second = np.sort(sims)[::-1][min(1, len(sims) - 1)]
        assert {int(c) for c, s in zip(cols, sims) if s > second} <= drawn  # strictly stronger ones are all kept
    same = np.array(view.data["edges"]["cat"]) == 0
    assert np.array_equal(groups[src] == groups[dst], same)
    # group members sit together: a record is nearer its own group's centre than the median record is
    x, y = np.array(view.data["nodes"]["x"]), np.array(view.data["nodes"]["y"])
    g = groups[0]
    members = groups == g
    cx, cy = x[members].mean(), y[members].mean()
    assert np.hypot(x[members] - cx, y[members] - cy).max() < np.median(np.hypot(x - cx, y - cy))


def test_html_is_self_contained_and_labels_stay_data():
    evil = "</script><script>alert(1)</script>"
    view = GraphView([evil, "b"], [("item", "#4c72b0")], [0, 0], x=[0, 1], y=[0, 1], title=evil)
    html = view.to_html()
    assert "<script>alert(1)" not in html and html.count("<script") == 2
    assert _data_of(view)["nodes"]["label"][0] == evil
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # nothing loaded from the network
    with pytest.raises(ParameterError):
        GraphView(["a"], [("item", "#000")], [1], x=[0], y=[0])
    with pytest.raises(ParameterError):
        GraphView(["a"], [("item", "#000")], [0], x=[0], y=[0], edges=([0], [3], [0]))


def test_save_refuses_other_endings(tmp_path):
    view = GraphView(["a"], [("item", "#000")], [0], x=[0], y=[0])
    with pytest.raises(OutputError):
        view.save(tmp_path / "v.png")
    assert view.save(tmp_path / "v.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    "args, nodes",
    [
        (("taxonomy", "liuwang_fig1"), 18),
        (("search", "liuwang_fig1", "-k", "2", "-m", "2"), None),
        (("constraints", "coat_fig1"), None),
        (("generalization", "chess", "--records", "200", "-k", "3"), 400),
        (("similarity", "groceries", "--records", "300", "-k", "3"), 300),
    ],
)
def test_cli_writes_html_views(run, tmp_path, args, nodes):
    res = run("draw", *args, "-o", "v.html")
    assert res.exit_code == 0, res.output
    view = json.loads(re.search(r'id="graphanon-data">(.*?)</script>', (tmp_path / "v.html").read_text(), re.S)
                      .group(1))
    if nodes is not None:
        labels = view["nodes"]["label"]  # a list, or (compact views) whole numbers as a typed array
        assert (len(labels) if isinstance(labels, list) else _typed_length(labels)) == nodes


def test_cli_taxonomy_view_of_a_release_marks_suppressed_nodes(run, tmp_path, groceries_mhghs):
    assert run("anonymize", "groceries", "-a", "mhghs", "-k", "10", "-m", "2", "-o", "r.json").exit_code == 0
    assert run("draw", "taxonomy", "groceries", "--release", "r.json", "-o", "t.html").exit_code == 0
    view = json.loads(re.search(r'id="graphanon-data">(.*?)</script>', (tmp_path / "t.html").read_text(), re.S)
                      .group(1))
    names = [c["name"] for c in view["categories"]]
    n_supp = view["nodes"]["cat"].count(names.index("suppressed cut node"))
    assert n_supp >= 1 and f"{n_supp} suppressed" in view["subtitle"]


def test_cli_view_refusals(run):
    res = run("draw", "similarity", "groceries", "-k", "3", "-o", "s.png")
    assert res.exit_code == 2 and "html" in res.output
    res = run("draw", "similarity", "bms1", "-k", "3", "-o", "s.html")
    assert res.exit_code == 2 and "taxonomy" in res.output
    res = run("draw", "generalization", "chess", "-k", "3", "-o", "g.png")
    assert res.exit_code == 2 and "--records 60" in res.output


def test_executed_notebook_holds_the_current_widget_state(groceries_mhghs):
    """docs/notebooks/views_executed.ipynb (tools/execute_views_notebook.py) shows the widgets working."""
    from pathlib import Path

    import nbformat

    path = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "views_executed.ipynb"
    nb = nbformat.read(path, as_version=4)
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    datas = [json.loads(m["state"]["data"]) for m in state.values() if m["model_name"] == "AnyModel"]
    shown = [cell for cell in nb.cells if cell.cell_type == "code" and "widget(" in cell.source]
    assert len(datas) == len(shown) == 3
    assert all(any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in c.outputs) for c in shown)
    data, tax, rel = groceries_mhghs
    fresh = json.loads(taxonomy_view(tax, rel.trace.cut, rel.trace.suppressed, data=data).to_json())
    assert [d for d in datas if d["title"] == fresh["title"]] == [fresh]


def test_static_taxonomy_of_a_release_marks_suppressed_nodes_with_a_legend(groceries_mhghs):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from graphanon.viz import draw_taxonomy

    data, tax, rel = groceries_mhghs
    cut, suppressed = cut_of_release(tax, [pi.label for pi in rel.published_items])
    ax = Figure(figsize=(10, 8)).subplots()
    draw_taxonomy(tax, highlight=cut, suppressed=suppressed, ax=ax)
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex

    crosses = [c for c in ax.collections if isinstance(c, PathCollection) and len(c.get_offsets()) == 1
               and to_hex(c.get_facecolors()[0]) == to_hex("tab:red")]
    assert len(crosses) == len(suppressed) == 5
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["other node", f"cut node ({len(cut) - 5})", "suppressed (5)"]


def _planted_clusters(n_clusters=6, per=40, seed=0):
    """Records in clusters: similar inside a cluster (several groups each), never across clusters."""
    rng = np.random.default_rng(seed)
    n = n_clusters * per
    cluster = np.repeat(np.arange(n_clusters), per)
    a, b = rng.integers(n, size=(2, 20 * n))
    a, b = a[cluster[a] == cluster[b]], b[cluster[a] == cluster[b]]
    keep = a != b
    W = sp.csr_array((rng.random(keep.sum()) + 0.1, (a[keep], b[keep])), shape=(n, n))
    groups = np.arange(n) // 5  # groups of 5 inside the clusters
    return W.maximum(W.T), groups, cluster


def test_similarity_layout_places_similar_records_together():
    """Planted clusters of similar records (no similarity between clusters) come out as separate
    clouds: every record is nearer its own cluster's centre than any other cluster's, the group
    members sit within their disc, and the same input gives the same picture (issue 23: the
    spiral by group placed clusters at random, failing the first check)."""
    W, groups, cluster = _planted_clusters()
    x, y, summary = similarity_layout(W, groups)
    assert summary == {"groups": len(np.unique(groups)), "linked_groups": len(np.unique(groups)), "apart_records": 0}
    centres = np.array([[x[cluster == c].mean(), y[cluster == c].mean()] for c in range(cluster.max() + 1)])
    dist = np.hypot(x[:, None] - centres[None, :, 0], y[:, None] - centres[None, :, 1])
    assert np.array_equal(dist.argmin(axis=1), cluster)
    for g in np.unique(groups):
        m = groups == g
        assert np.hypot(x[m] - x[m].mean(), y[m] - y[m].mean()).max() <= np.sqrt(m.sum()) + 1e-9
    x2, y2, _ = similarity_layout(W, groups)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)


def test_similarity_layout_discs_do_not_overlap_and_lone_groups_stand_apart():
    """Group discs (area = group size) never overlap after the post-pass, records of a group never
    share a point, and groups similar to nothing outside are set apart to the right of the others."""
    W, groups, _ = _planted_clusters(n_clusters=3, per=60, seed=1)
    n = W.shape[0]
    lone = np.arange(n, n + 50)  # 50 records similar to nothing, in groups of 10
    W = sp.csr_array((W.data, W.indices, np.r_[W.indptr, np.full(50, W.indptr[-1])]), shape=(n + 50, n + 50))
    groups = np.r_[groups, 1000 + (lone - n) // 10]
    x, y, summary = similarity_layout(W, groups)
    assert summary["apart_records"] == 50 and summary["linked_groups"] == len(np.unique(groups)) - 5
    assert x[lone].min() > x[:n].max()
    assert len(set(zip(x.round(6), y.round(6)))) == n + 50
    u = np.unique(groups)
    cx = np.array([x[groups == g].mean() for g in u])
    cy = np.array([y[groups == g].mean() for g in u])
    r = np.sqrt(np.array([(groups == g).sum() for g in u]))
    d = np.hypot(cx[:, None] - cx[None], cy[:, None] - cy[None])
    clash = d < (r[:, None] + r[None]) - 0.5
    np.fill_diagonal(clash, False)
    assert not clash.any()


def _decode(b64):
    import base64

    return np.frombuffer(base64.b64decode(b64), dtype="<i4")


@pytest.mark.parametrize("private", [False, True])
def test_generalization_overview_bins_the_order_and_carries_the_graph_compactly(private):
    from graphanon.graphs.generalization import GeneralizationGraph

    data = load("bms1").subset(np.arange(3000)).drop_unused_items()
    n, k = data.n_records, 4
    order = np.random.default_rng(5).permutation(n)
    graph = ring_graph(order, k, data.record_ids)
    chosen = extract_assignments(graph, rng=1)[2] if private else None
    view = generalization_view(graph, order, chosen=chosen, data=data, bins=50)
    assert view.n_nodes == 50 and "focus" in view.data
    focus = view.data["focus"]
    assert focus["ring"] and "succ" not in focus and np.array_equal(_decode(focus["order"]), order)
    assert np.array_equal(_decode(focus["ids"]["i32"]), np.asarray(data.record_ids))
    start = _decode(focus["bins"])
    assert start[0] == 0 and start[-1] == n and len(start) == 51
    assert ("chosen" in focus) == private and ("PRIVATE" in view.to_html()) == private
    if private:
        assert np.array_equal(_decode(focus["chosen"]), chosen)
    # the measure, by brute force: a row covers the union of its preimages' items; a bin's mean over its rows
    X = data.matrix.tocsr()
    rows = [set(X.indices[X.indptr[i]:X.indptr[i + 1]]) for i in range(n)]
    pre = graph.preimages()
    cover = np.array([len(set().union(*(rows[i] for i in pre[j]))) for j in range(n)])
    for b in (0, 17, 49):
        want = cover[order[start[b]:start[b + 1]]].mean()
        assert view.data["nodes"]["info"][b]["mean items a row must cover (its possible records' items together)"] \
            == pytest.approx(want, abs=1e-3)
    # arcs join the bins of a record and of its candidate rows, and only those
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    bin_of = np.searchsorted(start, pos, side="right") - 1
    src, dst = graph.edges()
    want_arcs = {(min(a, b), max(a, b)) for a, b in zip(bin_of[src], bin_of[dst]) if a != b}
    got = set(zip(view.data["edges"]["src"], view.data["edges"]["dst"]))
    assert got == want_arcs
    # a graph that is not the ring over the order ships its candidate lists; string ids as one text
    other = GeneralizationGraph(graph.successors[::-1][::-1].copy(), [f"r{i}" for i in range(n)])
    shuffled = np.roll(order, 7)[::-1].copy()
    v2 = generalization_view(other, shuffled, bins=30)
    assert not v2.data["focus"]["ring"]
    assert np.array_equal(_decode(v2.data["focus"]["succ"]).reshape(n, k), graph.successors)
    assert v2.data["focus"]["ids"]["text"].split("\n")[:2] == ["r0", "r1"]
    with pytest.raises(ParameterError):
        generalization_view(graph, order, data=data.subset(np.arange(10)))
    assert generalization_view(graph, order, overview=False).n_nodes == 2 * n  # the full drawing on demand


def test_similarity_view_colours_by_group_only_when_the_groups_are_few():
    from graphanon.graphs.similarity import RecordSimilarityGraph

    data = load("groceries").subset(np.arange(400)).drop_unused_items()
    graph = RecordSimilarityGraph.knn(data.matrix, 3)
    few = np.arange(400) % 7
    view = similarity_view(graph, few)
    names = [c["name"] for c in view.data["categories"]]
    assert names == [f"group {g}" for g in range(7)]
    assert np.array_equal(view.data["nodes"]["cat"], few) and np.array_equal(view.data["nodes"]["group"], few)
    many = np.arange(400) // 3  # 134 groups: 133 of 3 records and one of 1
    view = similarity_view(graph, many)
    cats, cat = view.data["categories"], np.array(view.data["nodes"]["cat"])
    assert [c["name"] for c in cats] == ["records in a group of 1", "records in a group of 3"]
    assert cat[-1] == 0 and (cat[:-1] == 1).all() and "colour = group size" in view.data["subtitle"]
    assert len({c["color"] for c in cats}) == len(cats)
    sizes = np.random.default_rng(0).integers(2, 40, size=60)
    varied = np.repeat(np.arange(60), sizes)[:400]
    view = similarity_view(graph, varied)
    cats, cat = view.data["categories"], np.array(view.data["nodes"]["cat"])
    assert 2 <= len(cats) <= 6 and len({c["color"] for c in cats}) == len(cats)
    size_of = np.bincount(varied)[varied]
    for c, category in enumerate(cats):  # each class names the sizes of the records in it
        lo, _, hi = category["name"].removeprefix("records in a group of ").partition("-")
        members = size_of[cat == c]
        assert len(members) and members.min() >= int(lo) and members.max() <= int(hi or lo)


def test_constraint_view_title_counts_what_the_legend_counts():
    from graphanon.datasets import load_constraints
    from graphanon.graphs.constraints import ConstraintGraph

    c = load_constraints("coat_fig1")
    graph = ConstraintGraph(load("coat_fig1"), c["privacy"], c["utility"])
    view = constraint_view(graph)
    cat = np.bincount(view.data["nodes"]["cat"], minlength=len(view.data["categories"]))
    legend = {c["name"]: int(n) for c, n in zip(view.data["categories"], cat)}
    counts = dict((name, int(num.replace(",", ""))) for num, name in
                  re.findall(r"([\d,]+) (items|privacy constraints|utility blocks?)", view.data["title"]))
    assert counts == {"items": legend["item"], "privacy constraints": legend["privacy constraint"],
                      "utility blocks": legend["utility block (partition)"]}
    assert counts["privacy constraints"] == len(c["privacy"]) and counts["items"] == load("coat_fig1").n_items
    ecat = np.array(view.data["edges"]["cat"])
    assert (ecat == 1).sum() == counts["items"]  # each item in one block of the utility partition
