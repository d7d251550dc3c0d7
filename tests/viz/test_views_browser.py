"""The HTML views in a real browser: headless Chromium through Playwright (system browser).

Skipped when Playwright or a Chromium is missing. Install: ``apt-get install chromium``
(Debian/Ubuntu; or set GRAPHANON_CHROMIUM to a Chrome/Chromium binary) and
``pip install playwright`` (its own browser download is not needed). Each view is opened
from a file with every network request refused, checked to have rendered all its nodes,
clicked, and screenshotted (into GRAPHANON_SCREENSHOTS if set, else the test's tmp folder).
"""

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from graphanon.algorithms import anonymize_mhghs
from graphanon.algorithms.grouping.clump import anonymize_clump
from graphanon.algorithms.nonreciprocal import extract_assignments, gray_tsp_order
from graphanon.datasets import load, load_constraints, load_taxonomy
from graphanon.graphs.constraints import ConstraintGraph
from graphanon.graphs.generalization import ring_graph
from graphanon.viz import views

sync_api = pytest.importorskip("playwright.sync_api")


def _chromium():
    for candidate in (os.environ.get("GRAPHANON_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and (path := shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)):
            return path
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 850})
        requested, errors = [], []
        page.route("**/*", lambda route: (requested.append(route.request.url),
                                          route.continue_() if route.request.url.startswith("file:")
                                          else route.abort()))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.requested, page.errors = requested, errors
        yield page
        browser.close()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("GRAPHANON_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _open(page, view, path):
    view.save(path)
    page.requested.clear()
    page.goto(path.resolve().as_uri())
    page.wait_for_selector(".ga-view[data-rendered]", timeout=30_000)
    assert page.errors == []
    assert all(u.startswith("file:") for u in page.requested), page.requested  # offline: nothing else asked for
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["nodeCount"]) == view.n_nodes and int(state["edgeCount"]) == view.n_edges
    return state


def _click_node(page, i, *, double=False):
    x, y = page.evaluate(f"window.graphanonViews.at(-1).screenPosition({i})")
    box = page.locator(".ga-view canvas").first.bounding_box()
    (page.mouse.dblclick if double else page.mouse.click)(box["x"] + x, box["y"] + y)
    return page.eval_on_selector(".ga-view", "e => ({...e.dataset})")


def _assert_labels_apart(page):
    """The labels the canvas drew: none overlaps another, none leaves the canvas, none covers a drawn node."""
    labels = page.evaluate("window.graphanonViews.at(-1).drawnLabels()")
    assert labels
    boxes = np.array([d["box"] for d in labels])
    x0, y0, x1, y1 = boxes.T
    clash = (x0[:, None] < x1[None, :]) & (x0[None, :] < x1[:, None]) & (y0[:, None] < y1[None, :]) \
        & (y0[None, :] < y1[:, None])
    np.fill_diagonal(clash, False)
    assert not clash.any(), [labels[i]["text"] for i in np.nonzero(clash.any(axis=1))[0]]
    width = page.locator(".ga-view canvas").first.bounding_box()["width"]
    assert x1.max() <= width + 0.5
    view_api = "window.graphanonViews.at(-1)"
    n = page.evaluate(f"{view_api}.data.nodes.label.length")
    centres = np.array(page.evaluate(f"[...Array({n}).keys()].filter(i => {view_api}.isVisible(i))"
                                     f".map(i => {view_api}.screenPosition(i))"))
    inside = (centres[:, None, 0] > x0) & (centres[:, None, 0] < x1) & (centres[:, None, 1] > y0) \
        & (centres[:, None, 1] < y1)
    assert not inside.any(), "a label is drawn over a node"


def _detail(page):
    return page.inner_text(".ga-detail")


def test_taxonomy_view_expands_and_selects(page, tmp_path, shots):
    data, tax = load("groceries"), load_taxonomy("groceries")
    rel = anonymize_mhghs(data, taxonomy=tax, k=10, m=2)
    view = views.taxonomy_view(tax, rel.trace.cut, rel.trace.suppressed, data=data)
    state = _open(page, view, tmp_path / "taxonomy.html")
    below_cut = view.data["nodes"]["cat"].count(2)
    assert below_cut > 0 and int(state["visibleCount"]) == view.n_nodes - below_cut  # shown down to the cut
    labels = view.data["nodes"]["label"]
    supp = labels.index(rel.trace.suppressed[0])
    state = _click_node(page, supp)
    assert int(state["selected"]) == supp
    text = _detail(page)
    assert str(rel.trace.suppressed[0]) in text and "suppressed cut node" in text and "NCP share" in text
    page.screenshot(path=str(shots / "taxonomy_groceries_mhghs.png"))
    expandable = next(labels.index(c) for c in rel.trace.cut if tax.children(c))
    before = int(state["visibleCount"])
    state = _click_node(page, expandable, double=True)
    assert int(state["visibleCount"]) == before + len(tax.children(labels[expandable]))


def test_search_view_steps_through_the_walk(page, tmp_path, shots):
    data, tax = load("groceries"), load_taxonomy("groceries")
    rel = anonymize_mhghs(data, taxonomy=tax, k=10, m=2)
    view = views.search_view(rel.trace.search)
    state = _open(page, view, tmp_path / "search.html")
    n_steps = len(view.data["steps"]) - 1
    assert int(state["step"]) == n_steps and int(state["visibleCount"]) == view.n_nodes
    _assert_labels_apart(page)
    drawn = {d["node"] for d in page.evaluate("window.graphanonViews.at(-1).drawnLabels()")}
    cats = view.data["nodes"]["cat"]
    path = [i for i, c in enumerate(cats) if c != 1]
    assert set(path[:-1]) <= drawn  # every cut along the main path keeps a label (cut to its room if long)
    page.click(".ga-prev")
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    steps = np.array(view.data["nodes"]["step"])
    assert int(state["step"]) == n_steps - 1 and int(state["visibleCount"]) == int((steps <= n_steps - 1).sum())
    chosen = view.data["nodes"]["cat"].index(2)
    page.click(".ga-next")
    state = _click_node(page, chosen)
    assert int(state["selected"]) == chosen and "chosen cut" in _detail(page)
    page.screenshot(path=str(shots / "search_groceries_mhghs.png"))


def test_search_view_at_scale_labels_apart(page, tmp_path, shots):
    """mHgHs (k=5, m=2) on 26,854 ICD-9-like records with their taxonomy: labels never overlap, a click answers."""
    from graphanon.datasets.synthetic import icd9_like

    data, _, tax = icd9_like(26_854, n_external=10, rng=0)
    rel = anonymize_mhghs(data, taxonomy=tax, k=5, m=2)
    view = views.search_view(rel.trace.search)
    state = _open(page, view, tmp_path / "search_26854.html")
    assert int(state["visibleCount"]) == view.n_nodes
    _assert_labels_apart(page)
    drawn = {d["node"] for d in page.evaluate("window.graphanonViews.at(-1).drawnLabels()")}
    cats = view.data["nodes"]["cat"]
    path = [i for i, c in enumerate(cats) if c != 1]
    assert set(path[:-1]) <= drawn  # every cut along the main path keeps a label
    page.screenshot(path=str(shots / "search_icd9_26854_overview.png"))
    chosen = cats.index(2)
    state = _click_node(page, chosen)
    assert int(state["selected"]) == chosen
    text = _detail(page)
    assert "chosen cut" in text and str(view.data["nodes"]["label"][chosen]) in text
    for key, value in view.data["nodes"]["info"][chosen].items():  # every detail row of the chosen cut
        assert f"{key}\t{value}" in text or f"{key}\n{value}" in text, (key, value, text)
    for step in range(len(view.data["steps"]) - 1, -1, -1):  # every step of the walk: labels still apart
        page.evaluate(f"window.graphanonViews.at(-1).setStep({step})")
        page.wait_for_function(f"document.querySelector('.ga-view').dataset.step === '{step}'")
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        _assert_labels_apart(page)
    page.evaluate(f"window.graphanonViews.at(-1).setStep({len(view.data['steps']) - 1})")
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    _click_node(page, chosen)
    box = page.locator(".ga-view canvas").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] + 5, box["y"] + 5)  # off the canvas: no tooltip over the picture
    page.screenshot(path=str(shots / "search_icd9_26854_detail.png"))


@pytest.mark.parametrize("private", [False, True])
def test_generalization_view_shows_candidates_and_the_link_only_when_given(page, tmp_path, shots, private):
    data = load("bms1").subset(np.arange(2000)).drop_unused_items()
    order = gray_tsp_order(data.matrix, time_limit=None, rng=0)
    graph = ring_graph(order, 5, data.record_ids)
    chosen = extract_assignments(graph, rng=3)[1] if private else None
    view = views.generalization_view(graph, order, chosen=chosen)
    _open(page, view, tmp_path / "generalization.html")
    record = int(order[0])
    state = _click_node(page, record)
    assert int(state["selected"]) == record
    text = _detail(page)
    assert "candidate (may be published as) (5)" in text
    for j in graph.successors[record]:
        assert f"published {data.record_ids[j]}" in text
    assert ("PRIVATE link" in text) == private
    if private:
        assert f"published {data.record_ids[chosen[record]]}" in text.split("PRIVATE link")[1]
    page.screenshot(path=str(shots / f"generalization_bms1_2000{'_private' if private else ''}.png"))


@pytest.mark.parametrize("private", [False, True])
def test_generalization_overview_answers_a_click_with_the_records_candidates(page, tmp_path, shots, private):
    """Overview (bins) of 26,854 ICD-like records; a bin's record clicked, another searched by id: the detail panel
    and the small graph hold exactly the record's k candidate rows, the private link only when given."""
    from graphanon.datasets.synthetic import icd9_like

    data = icd9_like(26_854, n_external=10, rng=0)[0]
    n, k = data.n_records, 5
    order = np.random.default_rng(1).permutation(n)  # the layout does not depend on the order's quality
    graph = ring_graph(order, k, data.record_ids)
    chosen = extract_assignments(graph, rng=3)[1] if private else None
    view = views.generalization_view(graph, order, chosen=chosen, data=data)
    state = _open(page, view, tmp_path / "generalization_overview.html")
    assert int(state["nodeCount"]) == 360 and float(state["loadMs"]) >= 0  # times: benchmarks/views.py, not here
    assert (tmp_path / "generalization_overview.html").stat().st_size < 3_000_000
    page.screenshot(path=str(shots / f"generalization_overview_26854{'_private' if private else ''}.png"))
    state = _click_node(page, 40)
    assert int(state["selected"]) == 40
    links = page.locator(".ga-detail .ga-record")
    start = 40 * n // 360  # bin b holds the positions b n // 360 .. (b + 1) n // 360 - 1
    assert links.count() == 41 * n // 360 - start
    record = int(links.nth(2).get_attribute("data-record"))
    assert record == order[start + 2]
    links.nth(2).click()
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["focusRecord"]) == record and float(state["focusMs"]) >= 0
    text = _detail(page)
    ids = data.record_ids
    assert f"candidate (may be published as) ({k})" in text
    listed = re.search(r"candidate \(may be published as\) \(5\)\s+(.*)", text).group(1)
    assert sorted(listed.split(", ")) == sorted(f"published {ids[j]}" for j in graph.successors[record])
    assert ("PRIVATE link" in text) == private
    if private:
        assert f"published {ids[chosen[record]]}" in text.split("PRIVATE link")[1]
    small = page.locator(".ga-focus .ga-view")
    assert int(small.get_attribute("data-node-count")) == 1 + k + len(
        set(graph.preimages()[graph.successors[record]].ravel()) - {record})
    page.screenshot(path=str(shots / f"generalization_detail_26854{'_private' if private else ''}.png"))
    other = int(order[12_345])  # search by id: the same detail for another record
    page.fill(".ga-search", str(ids[other]))
    page.press(".ga-search", "Enter")
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["focusRecord"]) == other
    assert int(state["selected"]) == int(np.searchsorted((np.arange(361) * n) // 360, 12_345, side="right") - 1)


def _similarity_detail_rows(page):
    """The detail panel's table as {first cell: second cell}."""
    return dict(page.eval_on_selector_all(".ga-detail tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"))


def _expected_similarity_detail(view, data, groups, i):
    """What the detail panel of record ``i`` must show: its kind, group, group size, items and drawn neighbours."""
    X = data.matrix.tocsr()
    items = [str(data.items[j]) for j in np.sort(X.indices[X.indptr[i]:X.indptr[i + 1]])]
    src, dst, cat = (np.asarray(view.data["edges"][key]) for key in ("src", "dst", "cat"))
    names = [c["name"] for c in view.data["edge_categories"]]
    labels = view.data["nodes"]["label"]
    expected = {"kind": view.data["categories"][int(view.data["nodes"]["cat"][i])]["name"],
                "group": str(int(groups[i])), "group size": str(int((groups == groups[i]).sum())),
                "items": " ".join(items)}
    for c, name in enumerate(names):
        mine = ((src == i) | (dst == i)) & (cat == c)
        if mine.any():
            expected[f"{name} ({int(mine.sum())})"] = sorted(labels[o] for o in np.where(src[mine] == i, dst[mine],
                                                                                       src[mine]))
    return expected


def _check_similarity_detail(page, view, data, groups, i):
    rows = _similarity_detail_rows(page)
    expected = _expected_similarity_detail(view, data, groups, i)
    for key, value in expected.items():
        if isinstance(value, list) and len(value) > 60:  # the panel lists 60 and an ellipsis
            shown = rows[key].split(", ")
            assert shown[-1] == "…" and len(shown) == 61 and set(shown[:-1]) <= set(value), (key, shown)
            continue
        shown = sorted(rows[key].split(", ")) if isinstance(value, list) else rows[key]
        assert shown == value, (key, shown, value)
    assert page.inner_text(".ga-detail-label") == view.data["nodes"]["label"][i]


def test_similarity_view_with_clump_groups(page, tmp_path, shots):
    data = load("groceries")
    rel = anonymize_clump(data, taxonomy=load_taxonomy("groceries"), k=5, rng=0)
    groups = rel.group_ids()[rel.link.row_of_record]
    view = views.similarity_view(rel.trace.similarity_graph, groups, data=data)
    _open(page, view, tmp_path / "similarity.html")
    i = 123
    page.fill(".ga-search", view.data["nodes"]["label"][i])
    page.press(".ga-search", "Enter")
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["selected"]) == i
    text = _detail(page)
    assert re.search(r"group size\s+(\d+)", text).group(1) == str(int((groups == groups[i]).sum()))
    _check_similarity_detail(page, view, data, groups, i)  # everything the per-record info showed, from the arrays
    state = _click_node(page, i)  # centred by the search: a click picks it too
    assert int(state["selected"]) == i
    assert int(state["groupRinged"]) == int((groups == groups[i]).sum())  # the clicked record's group, ringed
    page.screenshot(path=str(shots / "similarity_groceries_clump.png"))


def test_similarity_view_at_scale_answers_a_click(page, tmp_path, shots):
    """26,854 ICD-9-like records in Clump's k=5 groups: a compact file; a click shows the record's detail."""
    from graphanon.datasets.synthetic import icd9_like

    data, _, tax = icd9_like(26_854, n_external=10, rng=0)
    rel = anonymize_clump(data, taxonomy=tax, k=5, rng=0)
    groups = rel.group_ids()[rel.link.row_of_record]
    view = views.similarity_view(rel.trace.similarity_graph, groups, data=data)
    view.data["note"] = ("PRIVATE: the groups are read through the release's private link (which records were "
                         "generalized together). Do not publish this file.")  # as graphanon draw similarity writes it
    path = tmp_path / "similarity_26854.html"
    _open(page, view, path)
    assert path.stat().st_size < 3_000_000
    page.screenshot(path=str(shots / "similarity_icd9_26854_overview.png"))
    sizes = np.bincount(np.unique(groups, return_inverse=True)[1])
    for i in (0, 4_321, int(np.argmax(sizes[np.unique(groups, return_inverse=True)[1]]))):  # the last: biggest group
        page.evaluate("window.graphanonViews.at(-1).root.querySelector('.ga-fit').click()")
        state = _click_node(page, i)
        if int(state["selected"]) != i:  # records of a group are a dot apart at this zoom: find it by its id
            page.fill(".ga-search", view.data["nodes"]["label"][i])
            page.press(".ga-search", "Enter")
            state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
        assert int(state["selected"]) == i
        assert int(state["groupRinged"]) == int((groups == groups[i]).sum())
        _check_similarity_detail(page, view, data, groups, i)
    src, dst = np.asarray(view.data["edges"]["src"]), np.asarray(view.data["edges"]["dst"])
    hub = int(np.argmax(np.bincount(np.r_[src, dst], minlength=view.n_nodes)))  # the most drawn neighbours
    page.fill(".ga-search", view.data["nodes"]["label"][hub])  # centred: then zoomed in on its neighbourhood
    page.press(".ga-search", "Enter")
    _check_similarity_detail(page, view, data, groups, hub)
    box = page.locator(".ga-view canvas").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(5):  # about 40 times: the labels of the records around it drawn, few other edges on screen
        page.mouse.wheel(0, -500)
    page.mouse.move(box["x"] + box["width"] + 5, box["y"] + 5)  # off the canvas: no tooltip over the picture
    page.wait_for_timeout(400)  # the full redraw after the zoom gesture
    page.screenshot(path=str(shots / "similarity_icd9_26854_detail.png"))


def test_constraint_view(page, tmp_path, shots):
    c = load_constraints("coat_fig1")
    view = views.constraint_view(ConstraintGraph(load("coat_fig1"), c["privacy"], c["utility"]))
    _open(page, view, tmp_path / "constraints.html")
    state = _click_node(page, 0)
    assert int(state["selected"]) == 0 and view.data["nodes"]["label"][0] in _detail(page)
    page.screenshot(path=str(shots / "constraints_coat_fig1.png"))


def test_constraint_blocks_at_scale_answer_a_click(page, tmp_path, shots):
    """26,854 ICD-9-like records, pgen's constraints for k=5 (about 10^4): blocks, and a block's detail."""
    from graphanon.algorithms.coat import pgen
    from graphanon.datasets.synthetic import icd9_like

    data = icd9_like(26_854, n_external=10, rng=0)[0]
    graph = ConstraintGraph(data, pgen(data, 5))
    view = views.constraint_view(graph)
    n_items, cats = data.n_items, view.data["nodes"]["cat"]
    assert cats.count(1) < len(view.data["nodes"]["label"]) and "blocks (by their rarest item)" in view.data["title"]
    _open(page, view, tmp_path / "constraints_blocks.html")
    page.screenshot(path=str(shots / "constraints_icd9_26854_overview.png"))
    block = max((i for i, c in enumerate(cats) if c == 1),
                key=lambda i: view.data["nodes"]["info"][i]["privacy constraints"])
    page.fill(".ga-search", view.data["nodes"]["label"][block])  # centres and selects it: its detail graph opens
    page.press(".ga-search", "Enter")
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["focusNode"]) == block and float(state["focusMs"]) >= 0
    info = view.data["nodes"]["info"][block]
    # the small graph: the block's first BLOCK_DETAIL constraints (in pgen's order) and their items
    anchor = info["rarest item"]
    order = {x: j for j, x in enumerate(data.items)}
    members = [p for p in pgen(data, 5) if len(p)
               and min(p, key=lambda x: (graph.supports[x], order[x])) == anchor][:views.BLOCK_DETAIL]
    small = page.locator(".ga-focus .ga-view")
    drawn_items = {x for p in members for x in p}
    assert int(small.get_attribute("data-node-count")) == len(members) + len(drawn_items)
    assert int(small.get_attribute("data-edge-count")) == sum(len(p) for p in members)
    labels = page.evaluate("window.graphanonViews.at(-1).root.querySelector('.ga-focus .ga-view').graphanonView"
                           ".data.nodes.label")
    assert set(labels[len(members):]) == {str(x) for x in drawn_items}
    page.screenshot(path=str(shots / "constraints_icd9_26854_block_detail.png"))
    page.click(".ga-focus-close")
    state = _click_node(page, block)
    assert int(state["selected"]) == block
    text = _detail(page)
    assert anchor in text
    assert re.search(r"privacy constraints\s+(\d+)", text).group(1) == str(info["privacy constraints"])
    page.screenshot(path=str(shots / "constraints_icd9_26854_block.png"))
    assert n_items == cats.count(0)


def test_notebook_widget_module_renders_and_reports_the_selection(page, tmp_path, shots):
    """The widget's ES module, as anywidget loads it (render({model, el})), with a stand-in model."""
    pytest.importorskip("anywidget")
    import json

    view = views.taxonomy_view(load_taxonomy("liuwang_fig1"), ["P", "Q", "e", "i"], ["i"])
    widget = view.widget(height=420)
    host = tmp_path / "widget.html"
    host.write_text(
        "<!DOCTYPE html><html><body><div id='host'></div><script type='module'>\n"
        f"const esm = {json.dumps(widget._esm)};\n"
        f"const state = {{data: {json.dumps(widget.data)}, height: 420, selected: -1}};\n"
        "window.sets = [];\n"
        "const model = {get: k => state[k], set: (k, v) => { state[k] = v; window.sets.push([k, v]); },"
        " save_changes() {}, on() {}};\n"
        "const mod = await import(URL.createObjectURL(new Blob([esm], {type: 'text/javascript'})));\n"
        "mod.default.render({model, el: document.getElementById('host')});\n"
        "</script></body></html>\n"
    )
    page.errors.clear()
    page.goto(host.as_uri())
    page.wait_for_selector(".ga-view[data-rendered]", timeout=30_000)
    assert page.errors == []
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["nodeCount"]) == view.n_nodes
    p = view.data["nodes"]["label"].index("P")
    _click_node(page, p)
    assert page.evaluate("window.sets") == [["selected", p]]
    page.screenshot(path=str(shots / "widget_liuwang_taxonomy.png"))


def _shaped_release(n, seed=3):
    """A relational release of rt's shape with varied item sets: the synthetic patients' QIs generalized at fixed
    levels, their codes published as they are (not anonymous: a view test), rows shuffled with a link."""
    from graphanon.datasets.synthetic import patients_with_demographics
    from graphanon.release import PublishedItem, RelationalRelease
    from graphanon.release.publish import publish

    data, _ = patients_with_demographics(n, seed=seed)
    levels = {"age": 2, "gender": 0, "race": 1, "region": 1, "marital": 1}
    values, codes = [], []
    for c in data.qi:
        text = np.array([data.hierarchies[c].generalize(v, levels[c]) for v in data.table.column(c)])
        vocab, code = np.unique(text, return_inverse=True)
        values.append(list(vocab))
        codes.append(code)
    tx = data.transactions
    rel = RelationalRelease.from_codes(qi=data.qi, values=values, codes=np.stack(codes, axis=1),
                                       published_items=[PublishedItem(str(x), (str(x),), 1) for x in tx.items],
                                       records=tx.matrix, universe=tx.n_items + 1)
    return data, publish(tx, rel, unsafe_secret_seed=0)


@pytest.mark.parametrize("private", [False, True])
def test_relational_classes_view_answers_a_click(page, tmp_path, shots, private):
    """A relational release's classes: a click on a class draws its rows by item set and its items; records only
    with the link."""
    from graphanon.viz.relational import relational_view

    data, rel = _shaped_release(2000)
    ids = data.transactions.record_ids
    view = relational_view(rel, link=rel.link if private else None, record_ids=ids)
    _open(page, view, tmp_path / "classes.html")
    page.screenshot(path=str(shots / f"relational_classes{'_private' if private else ''}.png"))
    _assert_labels_apart(page)
    rows, items = rel.relational_rows(), rel.item_rows()
    info = view.data["nodes"]["info"]
    j = max((c for c in range(view.n_nodes) if info[c]["distinct item sets"] <= 40 and info[c]["published items"] <= 40),
            key=lambda c: (info[c]["distinct item sets"], -c))  # a class whose whole detail is drawn
    label = view.data["nodes"]["label"][j]
    members = [i for i, r in enumerate(rows) if " · ".join(r) == label]
    page.fill(".ga-search", label)  # centres and selects the class: its detail graph opens
    page.press(".ga-search", "Enter")
    state = page.eval_on_selector(".ga-view", "e => ({...e.dataset})")
    assert int(state["selected"]) == j and int(state["focusNode"]) == j and float(state["focusMs"]) >= 0
    text = _detail(page)
    assert re.search(r"rows\s+(\d+)", text).group(1) == str(len(members))
    counts: dict = {}
    for i in members:
        for x in items[i]:
            counts[x] = counts.get(x, 0) + 1
    listed = re.search(r"published items \(\d+\)\s+(.*)", text).group(1)
    assert dict(re.findall(r"(\S+) \((\d+)\)", listed)) == {x: str(c) for x, c in counts.items()}
    sets = {frozenset(items[i]) for i in members}
    assert 1 < len(sets) <= 40 and len(counts) <= 40  # every set and item drawn
    small = page.locator(".ga-focus .ga-view")
    assert int(small.get_attribute("data-node-count")) == len(sets) + len(counts)
    assert int(small.get_attribute("data-edge-count")) == sum(len(s) for s in sets)
    assert ("PRIVATE link" in text) == private
    if private:
        got = re.search(r"records \(PRIVATE link\) \(\d+\)\s+(.*)", text).group(1).split(", ")
        assert sorted(got) == sorted(str(ids[r]) for r in np.flatnonzero(np.isin(rel.link.row_of_record, members)))
    page.screenshot(path=str(shots / f"relational_class_detail{'_private' if private else ''}.png"))
    page.click(".ga-focus-close")
    assert page.locator(".ga-focus").is_hidden()


def test_relational_hierarchy_view_expands_with_labels_apart(page, tmp_path, shots):
    """The QIs' hierarchies as trees: published values highlighted, large trees collapsed, labels never overlap."""
    from graphanon.datasets.synthetic import patients_with_demographics
    from graphanon.viz.relational import hierarchy_view

    data, _ = patients_with_demographics(3000, seed=1)
    published = {"age": ["[0-39]", "[40-59]", "[60-79]", "[80-99]", "[0-79]", "*"], "race": ["White", "Black"]}
    view = hierarchy_view({c: data.hierarchies[c] for c in ("age", "race", "region")}, table=data.table,
                          published=published)
    state = _open(page, view, tmp_path / "hierarchies.html")
    _assert_labels_apart(page)
    page.screenshot(path=str(shots / "relational_hierarchies.png"))
    shown = int(state["visibleCount"])
    assert shown < view.n_nodes  # the age tree starts collapsed at its published values
    i = view.data["nodes"]["label"].index("[40-59]")
    state = _click_node(page, i, double=True)  # expands one level
    assert int(state["visibleCount"]) > shown
    assert re.search(r"records under it\s+(\d+)", _detail(page)).group(1) == str(
        int(((np.asarray(data.table.column("age")) >= 40) & (np.asarray(data.table.column("age")) <= 59)).sum()))
    _assert_labels_apart(page)
    page.click(".ga-expand-all")
    assert int(page.eval_on_selector(".ga-view", "e => e.dataset.visibleCount")) == view.n_nodes
    _assert_labels_apart(page)
    page.screenshot(path=str(shots / "relational_hierarchies_expanded.png"))
