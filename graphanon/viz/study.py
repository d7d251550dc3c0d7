"""Figures of a study's tidy table (:mod:`graphanon.study`): utility, time and privacy against k.

Every function takes the table (a pandas DataFrame with the columns of
:data:`graphanon.study.COLUMNS`; this module only reads it) and returns a
matplotlib Figure with a legend and units on both axes. A series is one
method (with its dataset, ``m`` and parameters when a study varies them);
colours are the Okabe-Ito colour-blind-safe palette, and markers and line
styles vary too, so that 12 methods stay apart in grey print.

References
----------
Okabe, M. & Ito, K. (2008). Color Universal Design. https://jfly.uni-koeln.de/color/
"""

from __future__ import annotations

import io
import math

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np

__all__ = [
    "figure_png",
    "METRIC_LABELS",
    "draw_pareto",
    "draw_privacy_vs_k",
    "draw_time_vs_k",
    "draw_utility_vs_epsilon",
    "draw_utility_vs_k",
    "pareto_front",
    "series_styles",
]

#: Okabe-Ito: black first is left out (kept for reference lines)
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p")
LINESTYLES = ("-", "--", "-.", ":")

#: metric column -> axis label with its unit (all are lower-is-better but fi_similarity)
METRIC_LABELS = {
    "ncp": "NCP (share of information lost, 0-1)",
    "ncp_taxonomy": "NCP over the taxonomy (0-1)",
    "ul": "UL (utility loss, summed over published items)",
    "ggd": "GGD (group generalization distance, items)",
    "suppression_ratio": "suppressed occurrences (share, 0-1)",
    "avg_relative_error": "AvgRE of COUNT queries (ratio, 0 = exact)",
    "rt_gcp": "relational loss: GCP of the QI values (0-1)",
    "rt_query_error": "AvgRE, QI ranges + items (ratio)",
    "error_rate": "ER (error rate, share of records)",
    "query_error": "QE (query error, share)",
    "fi_similarity": "FI similarity (0-1, higher is better)",
    "dif": "Dif of frequent itemsets (0-1)",
    "topk_precision": "top-100 itemsets: precision (0-1, higher is better)",
    "topk_recall": "top-100 itemsets: recall (0-1, higher is better)",
    "topk_f": "top-100 itemsets: F-score (0-1, higher is better)",
}
#: the metrics both families are scored on (the panels of :func:`draw_utility_vs_epsilon`)
SHARED_METRICS = ("avg_relative_error", "topk_f")


def figure_png(fig, *, dpi: int = 110, close: bool = False) -> bytes:
    r"""``fig`` as PNG bytes (for embedding in a report); ``close`` frees pyplot's reference to it.

    Examples
    --------
    >>> fig, _ = plt.subplots()
    >>> figure_png(fig, close=True)[:4]
    b'\x89PNG'
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    if close:
        plt.close(fig)
    return buffer.getvalue()


def _series_names(table) -> list:
    """One label per row: the method, plus what else varies (dataset, m, params)."""
    varies = [col for col in ("dataset", "m", "params") if table[col].astype("string").nunique(dropna=False) > 1]
    names = []
    for _, row in table.iterrows():
        parts = [str(row["method"])]
        for col in varies:
            value = row[col]
            if value is None or (not isinstance(value, str) and _isna(value)) or value == "":
                continue
            parts.append(f"m={value}" if col == "m" else str(value))
        names.append(" ".join(parts))
    return names


def _isna(value) -> bool:
    try:
        return bool(value != value) or value is None or str(value) == "<NA>"
    except (TypeError, ValueError):
        return str(value) == "<NA>"


def series_styles(names) -> dict:
    """Series name -> ``dict(color=, marker=, linestyle=)``, distinct for up to 7 x 12 series.

    Examples
    --------
    >>> s = series_styles(["aa", "coat"])
    >>> s["aa"]["color"] != s["coat"]["color"], s["aa"]["marker"] != s["coat"]["marker"]
    (True, True)
    """
    out = {}
    for i, name in enumerate(dict.fromkeys(names)):
        out[name] = {"color": OKABE_ITO[i % 7], "marker": MARKERS[i % len(MARKERS)],
                     "linestyle": LINESTYLES[(i // 7) % len(LINESTYLES)]}
    return out


def _ok(table):
    return table[table["status"] == "ok"]


def _plain_log(axis) -> None:
    """Log-scale ticks at 1, 2, 5 x 10^n labelled as plain numbers (0.2, 1, 50), no minor labels."""
    axis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(mticker.NullFormatter())


def _k_axis(ax, ks) -> None:
    ax.set_xlabel("k (privacy parameter asked, log scale)")
    ax.set_xscale("log")
    ticks = sorted({int(k) for k in ks})
    if ticks:
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks])
        ax.minorticks_off()
    ax.grid(True, alpha=0.3)


def _lines(ax, table, column, styles, names) -> None:
    """One line per series; a series on the points of earlier ones is drawn around them, not over them.

    Where a series shares a point with ``level`` series drawn before it, its markers are hollow
    rings ``3 * level`` points wider and its line dashed, so the series under it stays visible
    (two methods with 0 audit violations at every k, for instance).
    """
    frame = table.assign(_series=names)
    frame = frame[frame["k"].notna() & frame[column].notna()]
    drawn: dict = {}  # (k, value) -> series drawn there so far
    for name, part in frame.groupby("_series", sort=False):
        part = part.sort_values("k")
        points = list(zip(part["k"].astype(float), part[column].astype(float)))
        level = max((drawn.get(p, 0) for p in points), default=0)
        style = dict(styles[name])
        if level:
            style |= {"markerfacecolor": "none", "markeredgewidth": 1.5, "linestyle": (0, (4, 2))}
        ax.plot([p[0] for p in points], [p[1] for p in points], label=name, markersize=6 + 3 * level,
                linewidth=1.4, **style)
        for p in points:
            drawn[p] = drawn.get(p, 0) + 1


def _legend(fig, axes, styles) -> None:
    handles = [plt.Line2D([], [], label=name, **style) for name, style in styles.items()]
    fig.legend(handles=handles, loc="outside right upper", title="method", fontsize=9, title_fontsize=9,
               frameon=False)


def draw_utility_vs_k(table, metrics=None, *, ncols: int = 3):
    """Utility metrics against k, one panel per metric, one line per method.

    Parameters
    ----------
    table : pandas.DataFrame
        A study's tidy table.
    metrics : sequence of str, optional
        Metric columns (default: every column of :data:`METRIC_LABELS` some run measured).
    ncols : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from graphanon.study import expand_grid, run_study
    >>> t = run_study(expand_grid(["mhghs"], ["groceries"], k=[2, 5], m=1, taxonomy="balanced:5").runs)
    >>> fig = draw_utility_vs_k(t)
    >>> fig.axes[0].get_ylabel()
    'NCP (share of information lost, 0-1)'
    """
    ok = _ok(table)
    ok = ok[ok["epsilon"].isna()] if "epsilon" in ok else ok  # DP runs (no k) are drawn against epsilon
    if metrics is None:
        metrics = [name for name in METRIC_LABELS if name in ok and ok[name].notna().any()]
    metrics = list(metrics) or ["ncp"]
    ncols = max(1, min(ncols, len(metrics)))
    nrows = math.ceil(len(metrics) / ncols)
    names = _series_names(ok)
    styles = series_styles(names)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols + 2.6, 3.3 * nrows), squeeze=False,
                             layout="constrained")
    for ax, metric in zip(axes.flat, metrics):
        _lines(ax, ok, metric, styles, names)
        ax.set_ylabel(METRIC_LABELS.get(metric, metric), fontsize=9)
        ax.set_title(metric, fontsize=10)
        _k_axis(ax, ok["k"].dropna())
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    fig.suptitle("Utility against k (lower is better, except FI similarity and top-k)")
    _legend(fig, axes, styles)
    return fig


def draw_time_vs_k(table):
    """Wall-clock seconds of the anonymizer call against k, one line per method (log scales).

    Parameters
    ----------
    table : pandas.DataFrame

    Returns
    -------
    matplotlib.figure.Figure
    """
    ok = _ok(table)
    names = _series_names(ok)
    styles = series_styles(names)
    fig, ax = plt.subplots(figsize=(7.6, 4.2), layout="constrained")
    _lines(ax, ok, "wall_seconds", styles, names)
    ax.set_yscale("log")
    _plain_log(ax.yaxis)
    ax.set_ylabel("wall time of the method (seconds, log scale)")
    _k_axis(ax, ok["k"].dropna())
    ax.set_title("Running time against k")
    _legend(fig, [ax], styles)
    return fig


def draw_privacy_vs_k(table):
    """Privacy achieved against privacy asked.

    Left: the effective k against full-record row linkage (1 / the attack's
    success; the adversary knows the target's whole record) against the k
    asked, with the diagonal ``achieved = asked``; a hollow marker is a run
    whose audit failed. Right: the audit's violations at the asked k
    (0 everywhere when every release meets its model).

    Parameters
    ----------
    table : pandas.DataFrame

    Returns
    -------
    matplotlib.figure.Figure
    """
    ok = _ok(table)
    names = _series_names(ok)
    styles = series_styles(names)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.2), layout="constrained")
    frame = ok.assign(_series=names)
    attacked = frame[frame["k"].notna() & frame["attack_success"].notna()]
    for name, part in attacked.groupby("_series", sort=False):
        part = part.sort_values("k")
        effective = 1.0 / np.maximum(part["attack_success"].to_numpy(float), 1e-9)
        style = dict(styles[name])
        left.plot(part["k"].astype(float), effective, label=name, linewidth=1.4, markersize=6, **style)
        failed = ~part["audit_satisfied"].fillna(False).to_numpy(bool)
        if failed.any():
            left.plot(part["k"].astype(float)[failed], effective[failed], linestyle="none",
                      marker=style["marker"], markerfacecolor="white", markeredgecolor="#D55E00", markersize=10)
    ks = sorted({int(k) for k in ok["k"].dropna()})
    if ks:
        left.plot(ks, ks, color="black", linewidth=1, linestyle=":", label="achieved = asked")
    left.set_yscale("log")
    _plain_log(left.yaxis)
    left.set_ylabel("effective k = 1 / row-linkage success (log)")
    left.set_title("Achieved against asked (full-record linkage)")
    left.text(0.02, 0.98, "k^m and transactional k bound an adversary knowing m items,\nnot the whole record: "
              "below the diagonal is no violation", transform=left.transAxes, va="top", fontsize=7.5,
              color="#444444")
    _k_axis(left, ok["k"].dropna())
    if attacked.empty:
        left.text(0.5, 0.5, "no release kind here is attacked by row linkage", transform=left.transAxes,
                  ha="center", va="center", fontsize=9)
    else:  # a method in the legend but not on this panel is said, not silently missing
        missing = [m for m in dict.fromkeys(names) if m not in set(attacked["_series"])]
        if missing:
            left.text(0.98, 0.02, "not attacked by row linkage: " + ", ".join(missing), transform=left.transAxes,
                      ha="right", va="bottom", fontsize=7.5, color="#444444")
    _lines(right, ok, "audit_violations", styles, names)
    right.set_ylabel("audit violations at the asked k (count)")
    right.set_title("Independent audit of each release")
    _k_axis(right, ok["k"].dropna())
    most = float(ok["audit_violations"].fillna(0).max()) if len(ok) else 0.0  # no run finished: no violations drawn
    right.set_ylim(bottom=-0.5, top=max(1.0, most * 1.1 + 0.5))
    right.yaxis.set_major_locator(mticker.MaxNLocator(integer=True))
    handles = [plt.Line2D([], [], label=name, **style) for name, style in styles.items()]
    handles.append(plt.Line2D([], [], color="black", linestyle=":", label="achieved = asked"))
    handles.append(plt.Line2D([], [], color="#D55E00", marker="o", markerfacecolor="white", linestyle="none",
                              label="audit failed"))
    fig.legend(handles=handles, loc="outside right upper", title="method", fontsize=9, title_fontsize=9,
               frameon=False)
    return fig


def pareto_front(cost, loss) -> np.ndarray:
    """Indices of the points no other point beats in both ``cost`` and ``loss`` (lower is better), by cost.

    Examples
    --------
    >>> pareto_front([1, 2, 3, 4], [5, 3, 4, 1]).tolist()
    [0, 1, 3]
    """
    cost, loss = np.asarray(cost, float), np.asarray(loss, float)
    order = np.lexsort((loss, cost))
    best = np.minimum.accumulate(loss[order])
    keep = np.r_[True, loss[order][1:] < best[:-1]]
    return order[keep]


def _apart(ax, notes) -> int:
    """Move point labels (offset annotations) apart; returns how many had to be hidden.

    Each label goes to the first of eight spots round its point where it meets no label placed
    before it; a label with no free spot is hidden (the caller says so).

    The figure is drawn once first so the layout, and with it the label boxes, are final: call
    it once nothing else will be added to the figure.
    """
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    spots = [(4, 3), (4, -11), (-4, 3), (-4, -11), (6, -4), (-6, -4), (0, 8), (0, -16)]
    placed: list = []
    hidden = 0
    for note in notes:
        for dx, dy in spots:
            note.xyann = (dx, dy)
            note.set_horizontalalignment("left" if dx > 0 else "right" if dx < 0 else "center")
            box = note.get_window_extent(renderer)
            if not any(box.x0 < b.x1 + 1 and b.x0 < box.x1 + 1 and box.y0 < b.y1 + 1 and b.y0 < box.y1 + 1
                       for b in placed):
                placed.append(box)
                break
        else:
            note.set_visible(False)
            hidden += 1
    return hidden


def draw_pareto(table, metric: str = "ncp"):
    """Utility loss against running time, every run one point, the Pareto front drawn as a step line.

    Points are labelled with their k (only the front's beyond 30 points), each label moved to a
    free spot round its point when the first one is taken, and hidden when none is (the title
    counts the hidden).

    Parameters
    ----------
    table : pandas.DataFrame
    metric : str
        The utility column (lower is better).

    Returns
    -------
    matplotlib.figure.Figure
    """
    ok = _ok(table)
    ok = ok[ok[metric].notna() & ok["wall_seconds"].notna()]
    names = _series_names(ok)
    styles = series_styles(names)
    fig, ax = plt.subplots(figsize=(7.6, 4.6), layout="constrained")
    frame = ok.assign(_series=names)
    for name, part in frame.groupby("_series", sort=False):
        style = {key: value for key, value in styles[name].items() if key != "linestyle"}
        ax.plot(part["wall_seconds"], part[metric], linestyle="none", markersize=7, label=name, **style)
    if len(ok):
        front = pareto_front(ok["wall_seconds"], ok[metric])
        ax.step(ok["wall_seconds"].to_numpy(float)[front], ok[metric].to_numpy(float)[front], where="post",
                color="black", linewidth=1, linestyle="--")
        # every point's k while they stay readable, else only the front's
        labelled = ok if len(ok) <= 30 else ok.iloc[front]
        notes = [ax.annotate(f"k={int(row['k'])}", (row["wall_seconds"], row[metric]), fontsize=7,
                             xytext=(4, 3), textcoords="offset points", color="#444444")
                 for _, row in labelled.iterrows() if not _isna(row["k"])]
    else:
        notes = []
    ax.set_xscale("log")
    _plain_log(ax.xaxis)
    ax.set_xlabel("wall time of the method (seconds, log scale)")
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.set_title(f"Pareto front: {metric} against time (lower-left is better)")
    ax.grid(True, alpha=0.3)
    handles = [plt.Line2D([], [], label=name, linestyle="none", **{k: v for k, v in s.items() if k != "linestyle"})
               for name, s in styles.items()]
    handles.append(plt.Line2D([], [], color="black", linestyle="--", label="Pareto front"))
    fig.legend(handles=handles, loc="outside right upper", title="method", fontsize=9, title_fontsize=9,
               frameon=False)
    hidden = _apart(ax, notes)  # last: the constrained layout is final now (the time axis is measured, so
    if hidden:                  # where labels fall differs from run to run)
        ax.set_title(f"{ax.get_title()}; {hidden} k label{'s' if hidden != 1 else ''} hidden")
    return fig


def draw_utility_vs_epsilon(table, metrics=SHARED_METRICS):
    """The metrics both families share: against k for the syntactic runs, beside against epsilon for the DP runs.

    One row per metric, two panels sharing its y axis: left, one line per
    syntactic method against k; right, one line per DP method through the
    mean over its repetitions at each epsilon, the band one standard deviation
    either side, and every run as a small dot (DP utility is a distribution:
    each run draws fresh noise).

    Parameters
    ----------
    table : pandas.DataFrame
        A study's tidy table with DP runs (``epsilon`` set).
    metrics : sequence of str
        Metric columns (default :data:`SHARED_METRICS`: count-query AvgRE and
        the top-k itemset F-score).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from graphanon.study import tidy_table
    >>> rows = [{"method": "aa", "k": k, "dataset": "d", "status": "ok", "avg_relative_error": 0.1 * k,
    ...          "topk_f": 0.5} for k in (2, 5)]
    >>> rows += [{"method": "diffpart", "epsilon": e, "repeat": r, "dataset": "d", "status": "ok",
    ...           "avg_relative_error": 1 / e + r, "topk_f": 0.1} for e in (0.5, 1) for r in (0, 1)]
    >>> fig = draw_utility_vs_epsilon(tidy_table(rows))
    >>> [ax.get_xlabel()[:7] for ax in fig.axes]
    ['k (priv', 'epsilon', 'k (priv', 'epsilon']
    """
    ok = _ok(table)
    metrics = [m for m in metrics if m in ok] or ["avg_relative_error"]
    syntactic, private = ok[ok["epsilon"].isna()], ok[ok["epsilon"].notna()]
    names_s, names_p = _series_names(syntactic), _dp_series(private)
    styles = series_styles([*names_s, *names_p])
    fig, axes = plt.subplots(len(metrics), 2, figsize=(11.5, 3.4 * len(metrics)), squeeze=False,
                             layout="constrained", sharey="row")
    for row, metric in enumerate(metrics):
        left, right = axes[row]
        _lines(left, syntactic, metric, styles, names_s)
        left.set_ylabel(METRIC_LABELS.get(metric, metric), fontsize=9)
        left.set_title(f"{metric}: syntactic methods against k", fontsize=10)
        _k_axis(left, syntactic["k"].dropna())
        frame = private.assign(_series=names_p)
        frame = frame[frame[metric].notna()]
        for name, part in frame.groupby("_series", sort=False):
            stats = part.groupby("epsilon")[metric].agg(["mean", "std", "count"]).sort_index()
            eps = stats.index.to_numpy(float)
            mean, std = stats["mean"].to_numpy(float), np.nan_to_num(stats["std"].to_numpy(float))
            style = styles[name]
            right.plot(eps, mean, label=name, linewidth=1.4, markersize=6, **style)
            right.fill_between(eps, mean - std, mean + std, color=style["color"], alpha=0.18, linewidth=0)
            right.plot(part["epsilon"].astype(float), part[metric].astype(float), linestyle="none",
                       marker=".", markersize=3, color=style["color"], alpha=0.6)
        right.set_xscale("log")
        ticks = sorted({float(e) for e in private["epsilon"].dropna()})
        if ticks:
            right.set_xticks(ticks)
            right.set_xticklabels([f"{t:g}" for t in ticks])
            right.minorticks_off()
        right.set_xlabel("epsilon (privacy loss of the DP release, log scale)")
        right.set_title(f"{metric}: DP methods against epsilon", fontsize=10)
        right.grid(True, alpha=0.3)
        right.tick_params(labelleft=True)
        values = ok[metric].dropna().to_numpy(float)
        if len(values) and values.min() > 0 and values.max() / values.min() > 20:  # both families readable
            left.set_yscale("log")
            _plain_log(left.yaxis)
            left.set_ylabel(f"{METRIC_LABELS.get(metric, metric)}, log scale", fontsize=9)
        missing = [n for n in dict.fromkeys(names_s)
                   if n not in set(syntactic.assign(_s=names_s).dropna(subset=[metric])["_s"])]
        if missing:  # a method in the legend but not on this panel is said, not silently missing
            left.set_title(f"{left.get_title()} (not measured: {', '.join(missing)})", fontsize=10)
    fig.suptitle("Shared utility: syntactic methods against k; DP methods against epsilon (line: mean of the "
                 "runs, band: 1 sd, dots: runs)", fontsize=11)
    _legend(fig, axes, styles)
    return fig


def _dp_series(table) -> list:
    """One label per DP row: the method, with the dataset and parameters when the study varies them."""
    if table.empty:
        return []
    return [name if name.endswith(" (DP)") else f"{name} (DP)" for name in _series_names(table)]
