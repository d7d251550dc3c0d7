"""Figures of docs/clustering.md from benchmarks/results/clustering*.json, plus the two drawings.

Usage: ``python benchmarks/plot_clustering.py``; writes ``docs/img/clustering_*.png``.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from graphanon.algorithms import anonymize_clump  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.graphs.lcg import NodeIndex, lcg_labels  # noqa: E402
from graphanon.viz import draw_group_lcg, draw_similarity_neighborhood  # noqa: E402

HERE = Path(__file__).parent
IMG = HERE.parent / "docs" / "img"


def _ticks(ax, ks):
    ax.minorticks_off()
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])


def curves():
    runs = json.loads((HERE / "results" / "clustering.json").read_text())["runs"]
    ref_path = HERE / "results" / "clustering_reference.json"
    ref = {(r["dataset"], r["k"]): r for r in json.loads(ref_path.read_text())["runs"]} if ref_path.exists() else {}
    names = list(dict.fromkeys(r["dataset"] for r in runs))
    fig, axes = plt.subplots(2, len(names), figsize=(5 * len(names), 8))
    for j, name in enumerate(names):
        rows = [r for r in runs if r["dataset"] == name]
        ks = [r["k"] for r in rows]
        ax = axes[0, j]
        for method, style in (("clump", "o-"), ("partition", "s--")):
            ax.plot(ks, [r[method]["ggd_lcg"] for r in rows], style, label=method)
        ax.set(xscale="log", title=f"{name}: total GGD of the groups", xlabel="k")
        _ticks(ax, ks)
        ax.legend()
        ax = axes[1, j]
        for method, style in (("clump", "o-"), ("partition", "s--")):
            ax.plot(ks, [r[method]["ncp"] for r in rows], style, label=method)
        for method, style in (("aa_m2", "^:"), ("mhghs_m2", "v:")):
            pts = [(k, ref[(name, k)][method]["ncp"]) for k in ks if (name, k) in ref and "ncp" in ref[(name, k)].get(method, {})]
            if pts:
                ax.plot(*zip(*pts), style, label=f"{method.split('_')[0]} (k^2)")
        ax.set(xscale="log", title=f"{name}: NCP (each release under its own reading)", xlabel="k")
        _ticks(ax, ks)
        ax.legend()
    fig.tight_layout()
    fig.savefig(IMG / "clustering_ggd_ncp.png", dpi=80)


def drawings():
    data, tax = load("clump_food"), load_taxonomy("clump_food")
    idx = NodeIndex(tax, data.items)
    fig, axes = plt.subplots(1, 2, figsize=(15, 5))
    for ax, rows in zip(axes, ([2, 3], [7, 8])):
        draw_group_lcg(tax, [data.record(i) for i in rows], lcg_labels(idx, data, rows), ax=ax)
    fig.savefig(IMG / "clustering_lcg.png", dpi=80, bbox_inches="tight")
    groc, gtax = load("groceries"), load_taxonomy("groceries")
    rel = anonymize_clump(groc, taxonomy=gtax, k=5, rng=0, unsafe_secret_seed=0)
    group_of = rel.group_ids()[np.asarray(rel.link.row_of_record)]
    r = int(np.flatnonzero(np.diff(groc.matrix.indptr) == 4)[0])
    ax = draw_similarity_neighborhood(rel.details["similarity_graph"], r, np.flatnonzero(group_of == group_of[r]),
                                      radius=1, max_nodes=40)
    ax.figure.savefig(IMG / "clustering_neighbourhood.png", dpi=80, bbox_inches="tight")


if __name__ == "__main__":
    curves()
    drawings()
