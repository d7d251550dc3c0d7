"""Load and redraw times of the interactive HTML views in headless Chromium, printed as JSON.

Cases:

* ``bms1_similarity_clump``: the record-similarity graph of bms1 (59,602 records) with
  Clump's groups (k=5, taxonomy balanced:5), each record's 3 strongest neighbours drawn; also
  the CPU time of the record layout (``similarity_layout``) and of the whole view builder,
  best of 3;
* ``synthetic_100k``: 100,000 nodes and 300,000 edges (random geometric-like layout), the
  top of the documented range.

For each: the HTML file size, the Python time to build and write it, the page load time
(``goto`` of the file until the first frame is drawn, best of ``--repeat``), the renderer's
own start time (JSON parse, layout, picking grid, first frame: ``data-load-ms``), and the
time of one full redraw and of one redraw while dragging (edges dropped above 30,000
edges), each the median of 15 frames. Needs Playwright and a Chromium (see README).

* ``similarity_icd9_26854``, ``similarity_icd9_100000``: the similarity view of ICD-9-like records in Clump's
  k=5 groups over the ICD-9-like taxonomy (what ``graphanon draw similarity`` builds; Clump's time apart), the
  compact file (typed arrays, the detail panel built in the browser); a click selects a record (issue 35);
* ``search_icd9_26854``, ``search_icd9_100000``: the search view of mHgHs (k=5, m=2) on ICD-9-like records with
  their taxonomy (mHgHs's time apart); a click selects a cut (its detail in the side panel) (issue 35);
* ``constraints_icd9_26854``: COAT's constraint graph of 26,854 ICD-9-like records with pgen's constraints
  (k=5), drawn in blocks; a click on a block draws its constraints and their items (issue 35);
* ``relational_classes_26854`` (``_private``: with the link), ``relational_classes_100000`` (``_fine``: QIs
  less generalized, thousands of classes): the classes view
  of a relational release of rt's shape over the synthetic patients (``shaped_release``); a click on a class
  draws its rows by item set and its items (issue 34); ``relational_rt_26854``: the same view of a real
  ``anonymize_rt`` release (default parameters; its anonymization time apart).

Usage::

    PYTHONPATH=. python benchmarks/views.py        # both cases (PYTHONPATH: this checkout's graphanon)
    python benchmarks/views.py --case bms1_similarity_clump --no-save
    python benchmarks/views.py --case generalization_icd9_26854 --case generalization_icd9_100000 \
        --out views_generalization    # the generalization overview (issue 35)

The numbers are in docs/performance.md ("Interactive views").
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import print_and_save

JS_FRAMES = """async (args) => {  // args.full: the edge layer drawn again (else a selection's redraw)
  const v = window.graphanonViews.at(-1);
  const times = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    v.redraw(args.full); await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[7];
}"""


LAYOUT: dict = {}  # CPU seconds of the record layout inside the view builder, per case


def build_bms1(layout_repeat=3):
    """The Clump view of bms1; the layout inside it (``similarity_layout``) timed best of ``layout_repeat``."""
    from graphanon.algorithms.grouping.clump import anonymize_clump
    from graphanon.datasets import load
    from graphanon.taxonomy import Taxonomy
    from graphanon.viz.views import (
        similarity as views,  # the builder's own module: it looks the layout up there
    )

    data = load("bms1")
    rel = anonymize_clump(data, taxonomy=Taxonomy.balanced(data.items, 5), k=5, rng=0)
    groups = rel.group_ids()[rel.link.row_of_record]
    layout, cpu, builder = views.similarity_layout, [], []

    def timed(*args, **kwargs):  # the builder looks the layout up in its module at call time
        t = time.process_time()
        out = layout(*args, **kwargs)
        cpu.append(time.process_time() - t)
        return out

    views.similarity_layout = timed
    try:
        for _ in range(layout_repeat):
            t = time.process_time()
            view = views.similarity_view(rel.trace.similarity_graph, groups, data=data, neighbors=3)
            builder.append(time.process_time() - t)
    finally:
        views.similarity_layout = layout
    LAYOUT["bms1_similarity_clump"] = {"records": data.n_records, "layout_cpu_s_best": round(min(cpu), 2),
                                       "view_builder_cpu_s_best": round(min(builder), 2),
                                       "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


def build_similarity(n=26_854, k=5, seed=0):
    """The similarity view of ``n`` ICD-9-like records (``icd9_like``) in Clump's groups (k, the ICD-9 taxonomy),
    as ``graphanon draw similarity`` builds it; Clump's time apart from the view's (issue 35)."""
    from graphanon.algorithms.grouping.clump import anonymize_clump
    from graphanon.datasets.synthetic import icd9_like
    from graphanon.viz.views import similarity_view

    data, _, tax = icd9_like(n, n_external=10, rng=seed)
    t = time.perf_counter()
    rel = anonymize_clump(data, taxonomy=tax, k=k, rng=seed)
    clump_s = time.perf_counter() - t
    groups = rel.group_ids()[rel.link.row_of_record]
    t, cpu = time.perf_counter(), time.process_time()
    view = similarity_view(rel.trace.similarity_graph, groups, data=data)
    LAYOUT[f"similarity_icd9_{n}"] = {"records": n, "items": data.n_items, "k": k, "groups": int(len(np.unique(groups))),
                                      "clump_s": round(clump_s, 2), "view_builder_s": round(time.perf_counter() - t, 3),
                                      "view_builder_cpu_s": round(time.process_time() - cpu, 3),
                                      "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


def build_search(n=26_854, k=5, m=2, seed=0):
    """The search view of mHgHs (k, m) on ``n`` ICD-9-like records with their taxonomy (``graphanon draw search``);
    mHgHs's time apart from the view's (issue 35)."""
    from graphanon.algorithms import anonymize_mhghs
    from graphanon.datasets.synthetic import icd9_like
    from graphanon.viz.views import search_view

    data, _, tax = icd9_like(n, n_external=10, rng=seed)
    t = time.perf_counter()
    rel = anonymize_mhghs(data, taxonomy=tax, k=k, m=m)
    search_s = time.perf_counter() - t
    t, cpu = time.perf_counter(), time.process_time()
    view = search_view(rel.trace.search)
    LAYOUT[f"search_icd9_{n}"] = {"records": n, "items": data.n_items, "k": k, "m": m, "steps": len(view.data["steps"]),
                                  "anonymize_s": round(search_s, 2), "view_builder_s": round(time.perf_counter() - t, 3),
                                  "view_builder_cpu_s": round(time.process_time() - cpu, 3),
                                  "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


def build_synthetic(n=100_000, m=300_000, seed=0):
    """``n`` nodes uniformly in a square and ``m`` edges between nodes close in index."""
    from graphanon.viz.views import GraphView

    rng = np.random.default_rng(seed)
    x, y = rng.random(n) * 1000, rng.random(n) * 1000
    src = rng.integers(n, size=m)
    dst = (src + rng.integers(1, 50, size=m)) % n  # short-ish edges in index space
    return GraphView([f"n{i}" for i in range(n)], [("a", "#4c72b0"), ("b", "#dd8452")], rng.integers(2, size=n),
                     x=x, y=y, edges=(src, dst, np.zeros(m)), title="synthetic 100k")


def build_generalization(n=26_854, k=5, seed=0):
    """The overview of the k-regular ring over ``n`` ICD-9-like records (``icd9_like``), coloured by the data.

    The order is a random permutation: the view's cost does not depend on the order's quality, and the
    Gray-TSP order itself (``gray_tsp_order``) is not part of the view (timed apart, ``order_s``, at 26,854).
    """
    from graphanon.datasets.synthetic import icd9_like
    from graphanon.graphs.generalization import ring_graph
    from graphanon.viz.views import generalization_view

    data = icd9_like(n, n_external=10, rng=seed)[0]
    order = np.random.default_rng(seed).permutation(n)
    t = time.perf_counter()
    view = generalization_view(ring_graph(order, k, data.record_ids), order, data=data)
    LAYOUT[f"generalization_icd9_{n}"] = {"records": n, "items": data.n_items, "k": k,
                                          "view_builder_s": round(time.perf_counter() - t, 3),
                                          "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


def build_constraints(n=26_854, k=5, seed=0):
    """COAT's constraint graph of ``n`` ICD-9-like records with pgen's constraints for ``k``: drawn in blocks."""
    from graphanon.algorithms.coat import pgen
    from graphanon.datasets.synthetic import icd9_like
    from graphanon.graphs.constraints import ConstraintGraph
    from graphanon.viz.views import constraint_view

    data = icd9_like(n, n_external=10, rng=seed)[0]
    privacy = pgen(data, k)
    t, cpu = time.perf_counter(), time.process_time()
    view = constraint_view(ConstraintGraph(data, privacy))
    LAYOUT[f"constraints_icd9_{n}"] = {"records": n, "items": data.n_items, "k": k, "privacy_constraints": len(privacy),
                                       "view_builder_s": round(time.perf_counter() - t, 3),
                                       "view_builder_cpu_s": round(time.process_time() - cpu, 3),
                                       "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


COARSE = {"age": 2, "gender": 0, "race": 1, "region": 1, "marital": 0}  # a few hundred classes
FINE = {"age": 1, "gender": 0, "race": 0, "region": 0, "marital": 0}  # thousands of classes


def shaped_release(n, seed=0, levels=COARSE):
    """A relational release of rt's shape: the synthetic patients' QIs generalized at fixed ``levels`` (``COARSE``:
    age by decade, race and region one level up; ``FINE``: age by 5 years, the others as they are), their codes
    published as they are.

    Not anonymous (a view benchmark: the view's cost depends on rows, classes, items and distinct item sets, not
    on how they were chosen); ``rt`` itself merges classes and generalizes items, so its releases are smaller
    (see the ``relational_rt_26854`` case). Rows are shuffled with a link (for the private variant).
    """
    from graphanon.datasets.synthetic import patients_with_demographics
    from graphanon.release import PublishedItem, RelationalRelease
    from graphanon.release.publish import publish

    data, _ = patients_with_demographics(n, seed=seed)
    values, codes = [], []
    for c in data.qi:
        column = np.asarray(data.table.column(c))
        distinct, inverse = np.unique(column, return_inverse=True)
        text = np.array([data.hierarchies[c].generalize(v, levels[c]) for v in distinct.tolist()])
        vocab, code = np.unique(text, return_inverse=True)
        values.append(list(vocab))
        codes.append(code[inverse.ravel()])
    tx = data.transactions
    rel = RelationalRelease.from_codes(qi=data.qi, values=values, codes=np.stack(codes, axis=1),
                                       published_items=[PublishedItem(str(x), (str(x),), 1) for x in tx.items],
                                       records=tx.matrix, universe=tx.n_items + 1)
    return data, publish(tx, rel, unsafe_secret_seed=seed)


def build_relational(n=26_854, private=False, fine=False):
    """The classes view of :func:`shaped_release` (``private``: with the link, records listed per class)."""
    from graphanon.viz.relational import relational_view

    data, rel = shaped_release(n, levels=FINE if fine else COARSE)
    t, cpu = time.perf_counter(), time.process_time()
    view = relational_view(rel, link=rel.link if private else None, record_ids=data.transactions.record_ids)
    LAYOUT[f"relational_classes_{n}{'_fine' if fine else ''}{'_private' if private else ''}"] = {
        "records": n, "classes": view.n_nodes, "published_items": len(rel.published_items),
        "view_builder_s": round(time.perf_counter() - t, 3), "view_builder_cpu_s": round(time.process_time() - cpu, 3),
        "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


def build_relational_rt(n=26_854, k=5, m=2):
    """The classes view of a real ``anonymize_rt`` release (default parameters) of ``n`` synthetic patients."""
    from graphanon.algorithms.relational.rt import anonymize_rt
    from graphanon.datasets.synthetic import patients_with_demographics
    from graphanon.viz.relational import relational_view

    data, tax = patients_with_demographics(n, seed=0)
    t = time.perf_counter()
    rel = anonymize_rt(data, k=k, m=m, taxonomy=tax)
    anonymize_s = time.perf_counter() - t
    t = time.perf_counter()
    view = relational_view(rel)
    LAYOUT[f"relational_rt_{n}"] = {"records": n, "k": k, "m": m, "classes": view.n_nodes,
                                    "published_items": len(rel.published_items), "anonymize_s": round(anonymize_s, 2),
                                    "view_builder_s": round(time.perf_counter() - t, 3),
                                    "load_average_1min": round(os.getloadavg()[0], 2)}
    return view


CASES = {"generalization_icd9_26854": build_generalization,
         "constraints_icd9_26854": build_constraints, "constraints_icd9_100000": lambda: build_constraints(100_000),
         "relational_classes_26854": build_relational,
         "relational_classes_26854_private": lambda: build_relational(private=True),
         "relational_classes_100000": lambda: build_relational(100_000),
         "relational_classes_100000_fine": lambda: build_relational(100_000, fine=True),
         "relational_rt_26854": build_relational_rt,
         "generalization_icd9_100000": lambda: build_generalization(100_000),
         "similarity_icd9_26854": build_similarity, "similarity_icd9_100000": lambda: build_similarity(100_000),
         "search_icd9_26854": build_search, "search_icd9_100000": lambda: build_search(100_000),
         "bms1_similarity_clump": build_bms1, "synthetic_100k": build_synthetic,
         "synthetic_100k_nodes_only": lambda: build_synthetic(m=0)}


def measure(page, build, repeat):
    start = time.perf_counter()
    view = build()
    folder = Path(tempfile.mkdtemp())
    t = time.perf_counter()
    path = view.save(folder / "view.html")
    build_s, save_s = time.perf_counter() - start, time.perf_counter() - t
    loads, starts = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        page.goto(path.resolve().as_uri())
        page.wait_for_selector(".ga-view[data-rendered]", timeout=120_000)
        loads.append(time.perf_counter() - t)
        starts.append(float(page.eval_on_selector(".ga-view", "e => e.dataset.loadMs")))
    full = page.evaluate(JS_FRAMES, {"full": True})
    overlay = page.evaluate(JS_FRAMES, {"full": False})
    page.mouse.move(400, 400)
    page.mouse.down()
    page.mouse.move(420, 420)
    drag = page.evaluate(JS_FRAMES, {"full": False})
    page.mouse.up()
    clicks = {}
    kind = view.data.get("focus", {}).get("kind")
    if kind in ("blocks", "classes"):  # detail on demand: a click on a block or class draws its detail graph
        cats = view.data["nodes"]["cat"]
        targets = [i for i, c in enumerate(cats) if c == 1] if kind == "blocks" else list(range(view.n_nodes))
        click_ms, inner_ms = [], []
        box = page.locator(".ga-view canvas").first.bounding_box()
        page.evaluate("window.graphanonViews.at(-1).root.querySelector('.ga-fit').click()")
        for i in targets[:: max(1, len(targets) // 7)][:7]:
            x, y = page.evaluate(f"window.graphanonViews.at(-1).screenPosition({i})")
            t = time.perf_counter()
            page.mouse.click(box["x"] + x, box["y"] + y)
            page.wait_for_function("document.querySelector('.ga-view').dataset.focusNode !== undefined")
            click_ms.append(1000 * (time.perf_counter() - t))
            inner_ms.append(float(page.eval_on_selector(".ga-view", "e => e.dataset.focusMs")))
            page.click(".ga-focus-close")
        clicks = {"detail_click_ms_median": round(statistics.median(click_ms), 1),
                  "detail_click_ms_max": round(max(click_ms), 1),
                  "detail_script_ms_median": round(statistics.median(inner_ms), 1)}
    elif kind == "candidates":  # detail on demand: a bin clicked, then a record of its list, timed from Python
        bin_ms, record_ms, inner_ms = [], [], []
        box = page.locator(".ga-view canvas").first.bounding_box()
        for b in range(0, view.n_nodes, max(1, view.n_nodes // 7))[:7]:
            x, y = page.evaluate(f"window.graphanonViews.at(-1).screenPosition({b})")
            t = time.perf_counter()
            page.mouse.click(box["x"] + x, box["y"] + y)
            page.wait_for_function(f"document.querySelector('.ga-view').dataset.selected === '{b}'")
            bin_ms.append(1000 * (time.perf_counter() - t))
            link = page.locator(".ga-detail .ga-record").nth(1)
            record = link.get_attribute("data-record")
            t = time.perf_counter()
            link.click()
            page.wait_for_function(f"document.querySelector('.ga-view').dataset.focusRecord === '{record}'")
            record_ms.append(1000 * (time.perf_counter() - t))
            inner_ms.append(float(page.eval_on_selector(".ga-view", "e => e.dataset.focusMs")))
            page.click(".ga-focus-close")
        clicks = {"bin_click_ms_median": round(statistics.median(bin_ms), 1),
                  "record_click_ms_median": round(statistics.median(record_ms), 1),
                  "record_click_ms_max": round(max(record_ms), 1),
                  "record_detail_script_ms_median": round(statistics.median(inner_ms), 1)}
    else:  # no detail on demand: a click selects a node (its detail in the side panel)
        click_ms = []
        box = page.locator(".ga-view canvas").first.bounding_box()
        for i in range(0, view.n_nodes, max(1, view.n_nodes // 7))[:7]:
            page.evaluate("window.graphanonViews.at(-1).select(-1)")
            x, y = page.evaluate(f"window.graphanonViews.at(-1).screenPosition({i})")
            t = time.perf_counter()
            page.mouse.click(box["x"] + x, box["y"] + y)
            page.wait_for_function("document.querySelector('.ga-view').dataset.selected !== '-1'")
            click_ms.append(1000 * (time.perf_counter() - t))
        clicks = {"node_click_ms_median": round(statistics.median(click_ms), 1),
                  "node_click_ms_max": round(max(click_ms), 1)}
    size = path.stat().st_size
    shutil.rmtree(folder)
    return {
        "nodes": view.n_nodes, "edges": view.n_edges, "html_bytes": size,
        "build_and_write_s": round(build_s, 2), "write_s": round(save_s, 3), "page_load_s_best": round(min(loads), 3),
        "page_load_s_median": round(statistics.median(loads), 3), "renderer_start_ms_median": statistics.median(starts),
        "full_redraw_ms": round(full, 1), "selection_redraw_ms": round(overlay, 1),
        "redraw_while_dragging_ms": round(drag, 1),
    } | clicks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--out", default="views", help="results file name: benchmarks/results/OUT.json")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    doc = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
           "viewport": [1300, 850], "cases": {}}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        doc["machine"]["chromium"] = browser.version
        page = browser.new_page(viewport={"width": 1300, "height": 850})
        for name in args.case or sorted(CASES):
            result = measure(page, CASES[name], args.repeat)
            doc["cases"][name] = result | LAYOUT.get(name, {})
            doc["cases"][name]["load_average_1min_after"] = round(os.getloadavg()[0], 2)
        browser.close()
    print_and_save(doc, args.out, save=not args.no_save)


if __name__ == "__main__":
    main()
