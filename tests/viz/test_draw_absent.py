"""Drawings of a release's cut: suppressed nodes counted apart from nodes absent from the data (issue 32).

A release names only what it publishes; a taxonomy node under no published
node was either suppressed (the data has an item below it) or never occurred.
With the data, ``draw taxonomy --release`` counts the suppressed ones exactly
as the release does (``params["n_suppressed_nodes"]``), in the terminal line,
the PNG legend and the HTML view.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from graphanon.algorithms import anonymize_mhghs
from graphanon.datasets import load, load_taxonomy
from graphanon.viz.taxonomy import draw_taxonomy
from graphanon.viz.views import classify_cut, cut_of_release, taxonomy_view
from tests.conftest import cli as run


def first_records(n):
    data = load("groceries")
    return data.subset(np.arange(n)).drop_unused_items()


@pytest.mark.parametrize("n, k", [(30, 2), (30, 5), (60, 2), (60, 5)])
def test_suppressed_count_equals_the_release(n, k):
    data, tax = first_records(n), load_taxonomy("groceries")
    rel = anonymize_mhghs(data, taxonomy=tax, k=k, m=2)
    labels = [pi.label for pi in rel.published_items if pi.label in tax]
    cut, suppressed, absent = classify_cut(tax, labels, data.items)
    assert len(suppressed) == rel.params["n_suppressed_nodes"]
    assert absent, "the first records leave some of the taxonomy without occurrence"
    # absent nodes hold no item of the data, suppressed ones at least one
    items = set(data.items)
    assert not any(set(tax.leaves_under(v)) & items for v in absent)
    assert all(set(tax.leaves_under(v)) & items for v in suppressed)
    # without the data the two cannot be told apart: all unpublished nodes, as before
    assert sorted(cut_of_release(tax, labels)[1], key=str) == sorted([*suppressed, *absent], key=str)
    # the PNG legend and the HTML view count them apart
    fig = draw_taxonomy(tax, highlight=cut, suppressed=suppressed, absent=absent)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert f"suppressed ({len(suppressed)})" in legend and f"absent from the data ({len(absent)})" in legend
    view = taxonomy_view(tax, cut, suppressed, absent=absent, data=data)
    cats = np.bincount(view.data["nodes"]["cat"], minlength=5)
    assert cats[3] == len(suppressed) and cats[4] == len(absent)
    assert f"{len(suppressed)} suppressed, {len(absent)} absent from the data" in view.data["subtitle"]


def test_cli_counts_with_data_and_says_when_it_cannot(tmp_path):
    data = first_records(30)
    csv = tmp_path / "sub.csv"
    rows = [(r, data.items[j]) for r in range(data.n_records) for j in data.matrix.tocsr()[[r]].indices]
    csv.write_text("tid,item\n" + "".join(f'{r},"{x}"\n' for r, x in rows))
    rel = tmp_path / "r.json"
    res = run("anonymize", csv, "--taxonomy", "groceries", "-a", "mhghs", "-k", 2, "-m", 2, "-o", rel)
    assert res.exit_code == 0, res.output
    from graphanon.release import load_release

    n_supp = load_release(rel).params["n_suppressed_nodes"]
    for suffix in ("png", "html"):
        res = run("draw", "taxonomy", "groceries", "--release", rel, "--data", csv, "-o", tmp_path / f"t.{suffix}")
        assert res.exit_code == 0, res.output
        got = re.search(r"(\d+) suppressed, (\d+) absent from the data", res.output)
        assert got and int(got[1]) == n_supp and int(got[2]) >= 1, res.output
    # SOURCE's bundled data is not the data of this release: no guess, the line says so
    res = run("draw", "taxonomy", "groceries", "--release", rel, "-o", tmp_path / "u.png")
    assert res.exit_code == 0 and "unpublished (suppressed or absent from the data: pass --data" in res.output
    # the wrong data is refused
    res = run("draw", "taxonomy", "groceries", "--release", rel, "--data", "groceries", "-o", tmp_path / "w.png")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1
    # --data belongs to draw taxonomy --release
    res = run("draw", "taxonomy", "groceries", "--data", csv, "-o", tmp_path / "x.png")
    assert res.exit_code == 2 and "--data" in res.output
