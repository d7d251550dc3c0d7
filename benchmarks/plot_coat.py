"""Plots of benchmarks/results/coat.json into docs/img/ (matplotlib PNG).

Usage: python benchmarks/plot_coat.py [results.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401

ROOT = Path(__file__).resolve().parent.parent


def main(path: str | None = None) -> None:
    res = json.loads(Path(path or ROOT / "benchmarks" / "results" / "coat.json").read_text())
    out = ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    for key, xname, fname in (("vary_k_m2", "k", "coat_avgre_k.png"), ("vary_m_k5", "m", "coat_avgre_m.png")):
        rows = res[key]
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
        for ax, q in zip(axes, (1, 3), strict=True):
            ok = [r for r in rows if r.get(f"coat_avgre_q{q}_gen") is not None]
            xs = [r[xname] for r in ok]
            ax.plot(xs, [r[f"coat_avgre_q{q}_gen"] for r in ok], "o-", label="COAT")
            if res.get("aa_available"):
                ax.plot(xs, [r[f"aa_avgre_q{q}_gen"] for r in ok], "s--", label="AA")
            ax.set_xlabel(xname)
            ax.set_ylabel("AvgRE")
            ax.set_yscale("log")
            ax.set_title(f"q = {q}" + (", m = 2" if xname == "k" else ", k = 5"))
            if xname == "k":
                ax.set_xscale("log")
                ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
            ax.set_xticks(xs)
            ax.set_xticklabels([str(x) for x in xs])
            ax.legend()
        fig.suptitle(f"{res['dataset']}: average relative error of {res['queries']} COUNT queries")
        fig.tight_layout()
        fig.savefig(out / fname, dpi=110)
        plt.close(fig)
    rows = res["scalability_k5_m2"]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot([r["records"] for r in rows], [r["coat_seconds"] for r in rows], "o-", label="COAT")
    if res.get("aa_available"):
        ax.plot([r["records"] for r in rows], [r["aa_seconds"] for r in rows], "s--", label="AA")
    ax.set_xlabel("records |D|")
    ax.set_ylabel("seconds")
    ax.set_title("runtime, k = 5, m = 2 (shared 2-core machine)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "coat_runtime.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
