"""What ``graphanon compare`` writes: the table (CSV, Parquet), the figures (PNG) and one HTML report.

The report is ONE self-contained file: the figures are embedded as base64
PNG, the table is sortable by a few lines of inline JavaScript, and nothing
is loaded from elsewhere (no ``src``/``href`` leaves the file), so it opens
offline and can be mailed as it is. It states the exact command, the package
versions, the datasets and what the grid expansion left out.
"""

from __future__ import annotations

import base64
import html
import io
import platform
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from graphanon.errors import ParameterError
from graphanon.readwrite.files import atomic_write

__all__ = ["DP_FIGURES", "FIGURES", "dp_summary_html", "headline", "render_report", "run_label", "study_figures", "write_outputs"]

#: figure file stem -> (title, what it shows)
FIGURES = {
    "utility_vs_k": ("Utility against k", "every utility metric measured, one panel per metric"),
    "privacy_vs_k": ("Privacy achieved against asked", "effective k against full-record linkage; audits"),
    "time_vs_k": ("Running time against k", "wall-clock seconds of the anonymizer call"),
    "pareto": ("Utility against time", "the Pareto front of NCP (or the first metric measured) and time"),
}
#: the figure of a study with differentially private runs, drawn besides :data:`FIGURES`
DP_FIGURES = {
    "utility_vs_epsilon": ("Shared utility: against k beside against epsilon",
                           "count-query AvgRE and top-100 itemset F-score, syntactic methods against k (left), "
                           "DP methods against epsilon (right: mean of the repetitions, band 1 sd, dots: runs)"),
}

#: columns shown in the HTML table, in this order (the CSV has them all)
SHOWN = ("dataset", "method", "k", "m", "epsilon", "repeat", "params", "status", "audit_model", "audit_satisfied", "audit_violations",
         "wall_seconds", "cpu_seconds", "peak_memory_mb", "ncp", "ul", "ggd", "suppression_ratio",
         "avg_relative_error", "rt_gcp", "rt_query_error", "error_rate", "query_error", "fi_similarity", "dif",
         "topk_precision", "topk_recall", "topk_f", "attack_success", "attack_bound", "attack_below_k",
         "label_success", "label_bound", "label_margin", "label_within_bound", "reused", "error")

_SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0];
    var rows = Array.from(body.rows);
    var up = th.dataset.dir !== 'up';
    th.closest('tr').querySelectorAll('th').forEach(function (h) { h.dataset.dir = ''; });
    th.dataset.dir = up ? 'up' : 'down';
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
      var nx = parseFloat(x), ny = parseFloat(y);
      var r = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
      return up ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1500px; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
code, pre { background: #f4f4f4; padding: 0.1em 0.3em; }
pre { padding: 0.6em; white-space: pre-wrap; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; white-space: nowrap; }
th { background: #eee; cursor: pointer; position: sticky; top: 0; }
th[data-dir=up]::after { content: ' \\25B2'; } th[data-dir=down]::after { content: ' \\25BC'; }
td.t { text-align: left; } td.t:last-child { white-space: normal; min-width: 20em; } tr.error td { background: #fde2e1; } td.no { background: #fde2e1; font-weight: bold; }
td.yes { color: #00734d; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
figure { margin: 0; flex: 1 1 640px; max-width: 100%; } figure.wide { flex-basis: 100%; }
figure img { width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
.summary { font-size: 1.1em; } .wrap { overflow-x: auto; max-height: 70vh; }
"""


def study_figures(table) -> dict:
    """File stem -> matplotlib Figure for each of :data:`FIGURES` (the study's runs that finished).

    With differentially private runs (``epsilon`` set) the :data:`FIGURES` draw the syntactic runs
    (there are none when every run is DP) and :data:`DP_FIGURES` are added. The figures against ``k``
    are left out when no syntactic run has a ``k`` (runs asked only for ``l``): they would be empty.

    Parameters
    ----------
    table : pandas.DataFrame
        A study's tidy table.

    Returns
    -------
    dict of str -> matplotlib.figure.Figure
    """
    from graphanon.viz.study import (
        draw_pareto,
        draw_privacy_vs_k,
        draw_time_vs_k,
        draw_utility_vs_k,
    )

    private = _dp_rows(table)
    syntactic = table[~private]
    done = syntactic[syntactic["status"] == "ok"]
    metric = next((name for name in ("ncp", "ul", "error_rate", "dif") if done[name].notna().any()), "ncp")
    out = {}
    if not private.all():  # the k axis: the syntactic runs (a DP run has no k; a study of DP runs alone has none)
        out = {"pareto": draw_pareto(syntactic, metric)}
        if syntactic["k"].notna().any():  # runs asked only for l (nr, cahd --param l=L) have no k to plot against
            out.update(utility_vs_k=draw_utility_vs_k(syntactic), privacy_vs_k=draw_privacy_vs_k(syntactic),
                       time_vs_k=draw_time_vs_k(syntactic))
    if (private & (table["status"] == "ok")).any():
        from graphanon.viz.study import draw_utility_vs_epsilon

        out["utility_vs_epsilon"] = draw_utility_vs_epsilon(table)
    order = ("utility_vs_k", "utility_vs_epsilon", "privacy_vs_k", "time_vs_k", "pareto")
    return {stem: out[stem] for stem in order if stem in out}


def _dp_rows(table):
    """Boolean Series: the runs of differentially private methods (their ``epsilon`` is set)."""
    if "epsilon" not in table:
        return table["status"] != table["status"]
    return table["epsilon"].notna()


def dp_summary_html(table) -> str:
    """The DP runs, one row per method, dataset, parameters and epsilon: mean, sd, min and max over repetitions.

    DP utility is a distribution (fresh noise each run); the syntactic runs are one value per k.

    Examples
    --------
    >>> from graphanon.study import tidy_table
    >>> rows = [{"method": "diffpart", "epsilon": 1.0, "repeat": r, "dataset": "d", "status": "ok",
    ...          "avg_relative_error": v, "topk_f": 0.5} for r, v in enumerate((0.2, 0.4))]
    >>> page = dp_summary_html(tidy_table(rows))
    >>> "0.3 &plusmn; 0.1414" in page, "0.2 &ndash; 0.4" in page
    (True, True)
    """
    ok = table[(table["status"] == "ok") & _dp_rows(table)]
    if ok.empty:
        return ""
    metrics = [m for m in ("avg_relative_error", "topk_f", "topk_precision", "topk_recall", "fi_similarity",
                           "support_relative_error", "wall_seconds") if m in ok and ok[m].notna().any()]
    head = "".join(f"<th>{html.escape(m)}<br>mean &plusmn; sd<br>(min &ndash; max)</th>" for m in metrics)
    rows = []
    keys = ["dataset", "method", "params", "epsilon"]
    for key, part in ok.fillna({"params": ""}).groupby(keys, sort=True, dropna=False):
        cells = "".join(f'<td class="t">{html.escape(str(v))}</td>' for v in key[:3])
        cells += f"<td>{float(key[3]):g}</td><td>{len(part)}</td>"
        for m in metrics:
            v = part[m].dropna().astype(float)
            sd = f" &plusmn; {v.std():.4g}" if len(v) > 1 else ""
            cells += (f"<td>{v.mean():.4g}{sd}<br>({v.min():.4g} &ndash; {v.max():.4g})</td>" if len(v)
                      else "<td></td>")
        rows.append(f"<tr>{cells}</tr>")
    return ("<p>Each DP configuration was run as many times as <code>--repeat</code> says, each run with fresh "
            "noise from OS entropy: its utility is a distribution, summarised here (sd: sample standard "
            "deviation). A DP release is not audited: no output proves differential privacy (docs/dp.md); "
            "its guarantee is the mechanism's, tested empirically in the test suite. Top-k itemsets: the "
            "100 most frequent itemsets mined from each release's rows, compared by item labels; a release "
            "of itemsets (privbasis) has no rows: its own released list is scored against the true top 100, "
            "and the row-based measures (COUNT-query AvgRE, NCP, FI similarity) do not apply to it and "
            "are left empty.</p>"
            "<table><thead><tr><th>dataset</th><th>method</th><th>params</th><th>epsilon</th><th>runs</th>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def run_label(row) -> str:
    """``aa k=5 m=2 l=3 on bms1``: a run of the tidy table named by the options it was given.

    Examples
    --------
    >>> from graphanon.study import tidy_table
    >>> row = tidy_table([{"dataset": "bms1", "method": "aa", "k": 5, "m": 2, "params": "l=3"}]).iloc[0]
    >>> run_label(row)
    'aa k=5 m=2 l=3 on bms1'
    """
    parts = [str(row["method"])] + [f"{name}={row[name]}" for name in ("k", "m", "epsilon")
                                    if name in row and str(row[name]) not in ("<NA>", "nan", "None")]
    params = row["params"]
    if isinstance(params, str) and params:
        parts.append(params)
    return " ".join(parts) + f" on {row['dataset']}"


def headline(table, *, shown: int = 3, skipped=()) -> str:
    """The study's verdict in one sentence: failed runs first, then the audits of the releases made.

    It never says that every release meets its model when a run made no
    release: a failed run changes the headline (``3 of 18 runs failed:
    ...``), and so does a method ``-a all`` skipped (``2 methods skipped
    (cut, partswap: why in the report)``).

    Parameters
    ----------
    table : pandas.DataFrame
        A study's tidy table.
    shown : int
        Failed runs named in the sentence (the others are counted).
    skipped : sequence of str
        :attr:`~graphanon.study.grid.GridPlan.skipped`: ``"method: why"`` (or
        ``"method on dataset: why"``) per method ``-a all`` left out.

    Returns
    -------
    str

    Examples
    --------
    >>> from graphanon.study import tidy_table
    >>> headline(tidy_table([{"method": "aa", "k": 2, "dataset": "d", "status": "ok", "audit_satisfied": True},
    ...                      {"method": "coat", "k": 2, "dataset": "d", "status": "error",
    ...                       "error": "TypeError: no s"}]))
    '1 of 2 runs failed: coat k=2 on d (TypeError: no s); the 1 release made meets its model.'
    >>> headline(tidy_table([{"method": "aa", "k": 2, "dataset": "d", "status": "ok", "audit_satisfied": True}]))
    '1 run, none failed; every release meets its model.'
    >>> headline(tidy_table([{"method": "aa", "k": 2, "dataset": "d", "status": "ok", "audit_satisfied": True}]),
    ...          skipped=["cut: needs --param cut or --param level"])
    '1 run, none failed; 1 method skipped (cut: why in the report); the 1 release made meets its model.'
    """
    n = len(table)
    ok = (table["status"] == "ok").to_numpy(bool)
    dp = _dp_rows(table).to_numpy(bool)
    audited = table["audit_satisfied"].fillna(False).astype(bool).to_numpy() | dp
    n_ok, n_failed, n_violated = int(ok.sum()), int((~ok).sum()), int((ok & ~audited).sum())
    n_dp = int((ok & dp).sum())
    if n_failed:
        failed = table[~ok]
        named = [f"{run_label(row)} ({row['error']})" for _, row in failed.head(shown).iterrows()]
        more = f" and {n_failed - shown} more" if n_failed > shown else ""
        first = f"{n_failed} of {n} run{'s' if n != 1 else ''} failed: {'; '.join(named)}{more}"
    else:
        first = f"{n} run{'s' if n != 1 else ''}, none failed"
    if skipped:  # -a all left methods out: said here, their reasons in the report
        names = list(dict.fromkeys(line.split(":")[0] for line in skipped))
        listed = ", ".join(names[:2 * shown]) + (f" and {len(names) - 2 * shown} more" if len(names) > 2 * shown else "")
        first += f"; {len(names)} method{'s' if len(names) != 1 else ''} skipped ({listed}: why in the report)"
    if not n_ok:
        verdict = "no release was made"
    elif n_violated:
        verdict = f"{n_violated} of the {n_ok} release(s) made FAIL their model's audit"
    elif n_failed or skipped:
        verdict = "the 1 release made meets its model" if n_ok == 1 else f"the {n_ok} releases made meet their models"
    else:
        verdict = "every release meets its model"
    verdict += _label_verdict(table[ok], shown)
    if n_dp:  # a DP release is accounted by its epsilon, not audited
        verdict = verdict.replace("every release meets", "every syntactic release meets")
        verdict = ("no release is audited" if n_dp == n_ok else verdict) + (
            f"; {n_dp} differentially private release{'s are' if n_dp > 1 else ' is'} not audited (no output "
            "proves DP: the mechanism is tested)")
    return f"{first}; {verdict}."


def _label_verdict(done, shown: int) -> str:
    """``; the majority-label adversary ...`` over the l-diverse releases made (empty when there are none).

    An l-diverse release meets its model, yet an adversary who learns from the rows how the labels follow the
    items may read them above ``1/l`` (docs/attacks.md, (j)): the headline says so whenever it speaks of them.
    """
    if "label_within_bound" not in done:
        return ""
    checked = done[done["label_within_bound"].notna()]
    if checked.empty:
        return ""
    above = checked[~checked["label_within_bound"].astype(bool)]
    n = len(checked)
    if above.empty:
        return (f"; the majority-label adversary stays within 1/l + margin on "
                f"{'the' if n == 1 else f'all {n}'} l-diverse release{'s' if n != 1 else ''}")
    named = [f"{run_label(row)}: {row['label_success']:.4f} > {row['label_bound']:.4f} + {row['label_margin']:.4f}"
             for _, row in above.head(shown).iterrows()]
    more = f" and {len(above) - shown} more" if len(above) > shown else ""
    return (f"; the majority-label adversary reads labels above 1/l + margin on {len(above)} of the {n} l-diverse "
            f"release{'s' if n != 1 else ''} ({'; '.join(named)}{more}: labels follow the items, a larger k lowers it)")


def _cell(name: str, value) -> str:
    text, sort = "", ""
    missing = value is None or str(value) in ("<NA>", "nan", "None")
    if not missing:
        if isinstance(value, float):
            text = f"{value:.4g}"
            sort = repr(value)
        else:
            text = str(value)
            sort = text
    css = "t" if name in ("dataset", "method", "params", "status", "audit_model", "error") else ""
    if name in ("audit_satisfied", "label_within_bound") and not missing:
        css = "yes" if value else "no"
        text = "yes" if value else "NO"
        sort = "1" if value else "0"
    return f'<td class="{css}" data-v="{html.escape(sort, quote=True)}">{html.escape(text)}</td>'


#: columns of the HTML table kept even when every run leaves them empty
_ALWAYS = ("dataset", "method", "k", "m", "params", "status", "audit_model", "audit_satisfied", "audit_violations",
           "wall_seconds", "error")


def _table_html(table) -> str:
    """The sortable table of the runs: the :data:`SHOWN` columns some run fills (and the :data:`_ALWAYS` ones)."""
    shown = [name for name in SHOWN if name in table and (name in _ALWAYS or table[name].notna().any())]
    head = "".join(f"<th>{html.escape(name)}</th>" for name in shown)
    rows = []
    for record in table[shown].astype(object).to_dict("records"):
        css = ' class="error"' if record.get("status") == "error" else ""
        rows.append(f"<tr{css}>" + "".join(_cell(name, record[name]) for name in shown) + "</tr>")
    return (f'<div class="wrap"><table class="sortable" id="runs"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for name in ("graphanon", "numpy", "scipy", "pandas", "numba", "matplotlib", "networkx"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def render_report(table, images: dict, *, command: str, datasets: dict, notes=(), title: str = "graphanon study",
                  extra_sections: dict | None = None, skipped=()) -> str:
    """The self-contained HTML report of a study.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy table (one table row per run).
    images : dict of str -> bytes
        Figure stem (see :data:`FIGURES`) -> PNG bytes, embedded as base64.
    command : str
        The exact command (or call) that made the study.
    datasets : dict of str -> dict
        Dataset name -> its summary (:meth:`TransactionData.summary`).
    notes : sequence of str
        What the grid expansion left out, and why.
    title : str
    extra_sections : dict of str -> str, optional
        Heading -> HTML of further, optional sections (for instance a risk
        report of the chosen release), appended after the table.
    skipped : sequence of str
        The methods ``-a all`` left out, and why (:attr:`GridPlan.skipped`):
        counted in the headline, listed in a section of their own.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import pandas as pd
    >>> from graphanon.study import tidy_table
    >>> page = render_report(tidy_table([{"method": "aa", "k": 2, "status": "ok"}]), {}, command="x",
    ...                      datasets={})
    >>> page.startswith("<!DOCTYPE html>"), page.count('data-v="aa"')
    (True, 1)
    """
    ok = table["status"] == "ok"
    n_reused = int(table["reused"].fillna(False).astype(bool).sum())
    failed = table[~ok]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="summary"><b>{html.escape(headline(table, skipped=skipped))}</b> {int(ok.sum())} of {len(table)} finished, '
        f"{n_reused} reused from earlier studies.</p>",
        "<h2>Command</h2>", f"<pre>{html.escape(command)}</pre>",
        f"<p>Made {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} with "
        + ", ".join(f"{html.escape(k)} {html.escape(v)}" for k, v in _versions().items()) + ".</p>",
        "<h2>Datasets</h2>", "<table><thead><tr><th>dataset</th><th>records</th><th>items</th>"
        "<th>occurrences</th><th>mean length</th><th>max length</th><th>density</th></tr></thead><tbody>",
    ]
    for name, s in datasets.items():
        parts.append(f'<tr><td class="t">{html.escape(name)}</td><td>{s["records"]:,}</td><td>{s["items"]:,}</td>'
                     f'<td>{s["occurrences"]:,}</td><td>{s["mean_length"]:.2f}</td><td>{s["max_length"]}</td>'
                     f'<td>{s["density"]:.4f}</td></tr>')
    parts.append("</tbody></table>")
    if len(failed):
        parts.append(f'<h2 id="failed">Failed runs ({len(failed)})</h2><p>These runs made no release; their '
                     "rows in the table are marked.</p><ul>"
                     + "".join(f"<li><b>{html.escape(run_label(row))}</b>: <code>{html.escape(str(row['error']))}"
                               "</code></li>" for _, row in failed.iterrows()) + "</ul>")
    if skipped:
        parts.append(f'<h2 id="skipped">Skipped methods ({len(skipped)})</h2><p><code>-a all</code> asked for every '
                     "method; these could not run with the study's options or data and were left out before "
                     "anything ran (named on their own, they are refused with the same reason):</p><ul>"
                     + "".join(f"<li>{html.escape(line)}</li>" for line in skipped) + "</ul>")
    if notes:
        parts.append("<h2>Left out by the grid</h2><ul>"
                     + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    parts.append("<h2>Figures</h2>")
    if images and "pareto" in images and "time_vs_k" not in images:
        parts.append("<p>No run here was asked for a <code>k</code> (each promises <code>l</code> only): the "
                     "figures against <code>k</code> are left out.</p>")
    parts.append('<div class="figures">')
    for stem, png in images.items():
        heading, what = {**FIGURES, **DP_FIGURES}.get(stem, (stem, ""))
        data = base64.b64encode(png).decode("ascii")
        wide = ' class="wide"' if stem in ("utility_vs_k", "privacy_vs_k", "utility_vs_epsilon") else ""
        parts.append(f'<figure id="fig-{html.escape(stem)}"{wide}><img alt="{html.escape(heading)}" '
                     f'src="data:image/png;base64,{data}"><figcaption><b>{html.escape(heading)}</b>: '
                     f"{html.escape(what)}</figcaption></figure>")
    parts.append("</div>")
    parts.append("<h2>Runs</h2><p>Click a column heading to sort. Times are of the anonymizer call only; "
                 "peak memory (MiB) is what the call added to the worker's peak resident set size "
                 "(memory_method rss; tracemalloc where /proc is missing). "
                 "The attack is full-record row linkage against the in-memory private link, next to its "
                 "bound.</p>")
    if "label_within_bound" in table and table["label_within_bound"].notna().any():
        parts.append("<p>l-diverse runs (a release that promises l): <code>label_success</code> is the share of "
                     "records whose own label is the majority label of their candidate rows (attack (b), the "
                     "adversary who learns from the rows how labels follow the items), next to its bound 1/l "
                     "(<code>label_bound</code>) and sampling margin; <code>label_within_bound</code> is NO where "
                     "it reads labels above 1/l + margin. The release still meets l-diversity, which bounds the "
                     "posterior only for an adversary without that knowledge (docs/attacks.md, (j)); "
                     "<code>graphanon anonymize</code> warns on the same measurement, and a larger k lowers "
                     "it.</p>")
    if "rt_gcp" in table and table["rt_gcp"].notna().any():
        parts.append("<p>Relational-transaction runs: <code>rt_gcp</code> is the mean NCP of the published "
                     "quasi-identifier values (GCP, 0 = exact, 1 = all suppressed), <code>rt_query_error</code> the "
                     "average relative error of COUNT queries combining ranges on 2 quasi-identifiers with 2 items, "
                     "<code>avg_relative_error</code> that of the item-only queries; their attack is the "
                     "demographics-plus-items linkage (QI values and m items known), and <code>attack_below_k</code> "
                     "counts the targets it leaves fewer than k candidate rows.</p>")
    parts.append(_table_html(table))
    summary = dp_summary_html(table)
    if summary:
        parts.append(f'<h2 id="dp">Differentially private runs: mean and spread</h2>{summary}')
    for heading, body in (extra_sections or {}).items():
        parts.append(f"<h2>{html.escape(heading)}</h2>{body}")
    parts.append(f"<script>{_SORT_JS}</script></body></html>")
    return "\n".join(parts)


def write_outputs(table, folder, *, command: str, notes=(), title: str = "graphanon study",
                  extra_sections: dict | None = None, skipped=()) -> dict:
    """Write ``results.csv``, ``results.parquet``, one PNG per figure and ``report.html`` into ``folder``.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy table of :func:`~graphanon.study.run_study`.
    folder : path
        Output folder (created).
    command : str
        The exact command, for the report.
    notes : sequence of str
        The grid's notes (:attr:`GridPlan.notes`).
    title : str
    extra_sections : dict of str -> str, optional
        Further HTML sections for the report (see :func:`render_report`).
    skipped : sequence of str
        The methods ``-a all`` left out, and why (:attr:`GridPlan.skipped`).

    Returns
    -------
    dict of str -> Path
        What was written, by kind (``csv``, ``parquet``, ``report``, and each figure stem).

    Raises
    ------
    ParameterError
        No run finished (nothing to draw or report); nothing is written.
    """
    from graphanon.study.execute import load_dataset
    from graphanon.viz.study import figure_png

    if not (table["status"] == "ok").any():
        raise ParameterError(f"no run finished, nothing written: {headline(table)}")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = {"csv": out / "results.csv", "parquet": out / "results.parquet", "report": out / "report.html"}
    atomic_write(written["csv"], table.to_csv(index=False))
    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    atomic_write(written["parquet"], buffer.getvalue())
    images = {}
    for stem, fig in study_figures(table).items():
        images[stem] = figure_png(fig, close=True)
        written[stem] = out / f"{stem}.png"
        atomic_write(written[stem], images[stem])
    datasets = {}
    for name in dict.fromkeys(table["dataset"].dropna()):
        datasets[name] = load_dataset(name).summary()
    atomic_write(written["report"], render_report(table, images, command=command, datasets=datasets,
                                                  notes=notes, title=title, extra_sections=extra_sections,
                                                  skipped=skipped))
    return written
