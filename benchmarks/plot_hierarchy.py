"""Plot benchmarks/results/hierarchy.json: NCP and runtime of AA, mHgHs, MM vs k.

Usage::

    python benchmarks/plot_hierarchy.py [--results benchmarks/results/hierarchy.json] [--out docs/img]

Writes ``hierarchy_ncp.png`` and ``hierarchy_runtime.png`` (one panel per
dataset x m; a timed-out or infeasible run leaves a gap).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"aa": ("AA", "s--"), "mhghs": ("mHgHs", "o-"), "mm": ("MM", "^:")}


def panel_plot(doc, key: str, ylabel: str, path: Path, log: bool = False) -> None:
    grid = doc["grid"]
    names, ms = grid["datasets"], grid["m"]
    fig, axes = plt.subplots(len(names), len(ms), figsize=(4 * len(ms), 3.2 * len(names)), squeeze=False)
    for i, name in enumerate(names):
        for j, m in enumerate(ms):
            ax = axes[i][j]
            for method, (label, fmt) in STYLE.items():
                pts = [
                    (r["k"], r[key])
                    for r in doc["runs"]
                    if r["dataset"] == name and r["m"] == m and r["method"] == method and r["status"] == "ok"
                ]
                pts.sort()
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], fmt, label=label)
            ax.set_xscale("log")
            ax.set_xticks(grid["k"])
            ax.set_xticklabels([str(k) for k in grid["k"]])
            ax.minorticks_off()
            if log:
                ax.set_yscale("log")
            ax.set_title(f"{name}, m = {m}")
            ax.set_xlabel("k")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    here = Path(__file__).parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(here / "results" / "hierarchy.json"))
    ap.add_argument("--out", default=str(here.parent / "docs" / "img"))
    args = ap.parse_args()
    doc = json.loads(Path(args.results).read_text())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    panel_plot(doc, "ncp", "NCP", out / "hierarchy_ncp.png")
    panel_plot(doc, "runtime_s", "runtime (s)", out / "hierarchy_runtime.png", log=True)
    print("wrote", out / "hierarchy_ncp.png", out / "hierarchy_runtime.png")


if __name__ == "__main__":
    main()
