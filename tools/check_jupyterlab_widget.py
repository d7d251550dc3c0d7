"""Check the notebook widget in a live JupyterLab: headless Chromium runs the widget cell and looks.

A manual check (it needs JupyterLab, which graphanon does not depend on). It starts JupyterLab
headless on 127.0.0.1 with a throwaway token on a temporary copy of ``notebooks/views.ipynb``
(JupyterLab saves outputs and checkpoints: the stored notebook stays stripped), opens it in headless
Chromium through Playwright, runs the first cells (the imports and the groceries taxonomy
widget), waits for the widget's canvas, checks that it rendered every node of the view (the
renderer's ``data-node-count`` against the view built in the kernel), clicks a node and checks
the detail panel, saves a screenshot, and stops JupyterLab. Exit status 0 when all holds.

Setup, in a throwaway virtual environment (the editable install imports this checkout)::

    python -m venv --system-site-packages /tmp/jl
    /tmp/jl/bin/pip install -e ".[views]" jupyterlab
    /tmp/jl/bin/pip install --ignore-installed --no-deps anywidget ipywidgets jupyterlab_widgets
    /tmp/jl/bin/python tools/check_jupyterlab_widget.py --shot /tmp/jupyterlab_widget.png

The third line matters with ``--system-site-packages``: JupyterLab looks for front-end
extensions under its own prefix, so widget packages found only in the base environment import
in the kernel but have no front end, and the cell prints ``<...GraphWidget object at ...>``
instead of the view (seen on the first run of this check). The script checks for that first.

Playwright must be importable by that Python and a Chromium installed (README: the browser tests).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "notebooks/views.ipynb"
WIDGET_CELL = 3  # view = taxonomy_view(...); view.widget(height=620)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_server(url: str, timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"JupyterLab did not answer at {url} within {timeout:.0f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shot", default="jupyterlab_widget.png", help="screenshot file")
    ap.add_argument("--chromium", default=os.environ.get("GRAPHANON_CHROMIUM") or shutil.which("chromium"))
    ap.add_argument("--timeout", type=float, default=180.0)
    args = ap.parse_args()
    if args.chromium is None:
        raise SystemExit("no Chromium found: apt-get install chromium, or pass --chromium")
    from jupyter_core.paths import jupyter_path
    from playwright.sync_api import sync_playwright

    found = {name for folder in jupyter_path("labextensions") for name in ("anywidget", "@jupyter-widgets")
             if (Path(folder) / name).is_dir()}
    if found != {"anywidget", "@jupyter-widgets"}:  # JupyterLab would print the widget's repr, not draw it
        raise SystemExit("JupyterLab cannot see the widget front ends (anywidget, @jupyter-widgets) in "
                         f"{jupyter_path('labextensions')}: install anywidget, ipywidgets and jupyterlab_widgets "
                         "into this environment itself (pip install --ignore-installed anywidget ipywidgets "
                         "jupyterlab_widgets when it was made with --system-site-packages)")
    cells = json.loads((ROOT / NOTEBOOK).read_text())["cells"]
    assert "widget(" in "".join(cells[WIDGET_CELL]["source"]), "the widget cell moved: update WIDGET_CELL"
    port, token = _free_port(), secrets.token_hex(16)
    # JupyterLab saves what it runs (outputs, checkpoints): it works on a copy, never on the
    # stored, stripped notebook
    scratch = Path(tempfile.mkdtemp(prefix="graphanon-jupyterlab-"))
    (scratch / "notebooks").mkdir()
    shutil.copy(ROOT / NOTEBOOK, scratch / NOTEBOOK)
    lab = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={scratch}", "--ServerApp.open_browser=False"]
        + (["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_for_server(f"{base}/api/status?token={token}", 120)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            start = time.perf_counter()
            page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=args.timeout * 1000)
            page.wait_for_selector("text=/\\| Idle/", timeout=args.timeout * 1000)  # the kernel is up
            page.wait_for_timeout(1000)
            cell_nodes = page.locator(".jp-Notebook .jp-Cell")
            cell_nodes.nth(1).locator(".jp-InputPrompt").click()  # the imports cell, in command mode
            for _ in range(WIDGET_CELL):  # run it and the cells down to the widget cell
                page.keyboard.press("Shift+Enter")
                page.wait_for_timeout(300)
            view = page.locator(".jp-Notebook .jp-Cell").nth(WIDGET_CELL).locator(".ga-view[data-rendered]")
            try:
                view.wait_for(timeout=args.timeout * 1000)
            except Exception:
                page.screenshot(path=args.shot + ".failed.png")  # what the page showed instead
                raise
            took = time.perf_counter() - start
            state = view.evaluate("e => ({...e.dataset})")
            canvas = view.locator("canvas")
            assert canvas.count() >= 1, "the widget has no canvas"
            nodes = int(state["nodeCount"])
            # the kernel's own count of the view's nodes, printed into a scratch cell
            page.keyboard.press("Escape")
            page.keyboard.press("b")  # a new cell below the widget cell (it becomes the active one)
            page.keyboard.press("Enter")
            page.keyboard.type("print('NODES', view.n_nodes)")
            page.keyboard.press("Shift+Enter")
            page.wait_for_selector("text=/NODES \\d+/", timeout=60_000)
            kernel_nodes = int(page.locator("text=/NODES \\d+/").first.inner_text().split()[1])
            assert nodes == kernel_nodes, f"widget shows {nodes} nodes, the view has {kernel_nodes}"
            view.scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            view.screenshot(path=args.shot)
            xy = view.evaluate("e => e.graphanonView.screenPosition(0)")
            box = canvas.first.bounding_box()
            page.mouse.click(box["x"] + xy[0], box["y"] + xy[1])
            page.wait_for_timeout(300)
            selected = view.evaluate("e => e.dataset.selected")
            detail = view.locator(".ga-detail").inner_text()
            view.screenshot(path=str(Path(args.shot).with_suffix("")) + "_clicked.png")
            browser.close()
        assert errors == [], errors
        assert selected == "0" and detail.strip(), (selected, detail)
        print(json.dumps({"jupyterlab_widget": "ok", "nodes_rendered": nodes, "nodes_in_kernel": kernel_nodes,
                          "selected_after_click": selected, "detail_panel": detail.splitlines()[:3],
                          "open_to_rendered_s": round(took, 1), "screenshot": args.shot}, indent=1))
        return 0
    finally:
        os.killpg(lab.pid, signal.SIGTERM)  # JupyterLab and the kernel it started (its own session)
        lab.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
