"""``graphanon report``: what a dataset or release actually has (largest k^m, k, l, risk distribution)."""

from __future__ import annotations

import click

from graphanon.cli._app import check_data, echo_json, echo_note, input_options, main, read_input
from graphanon.errors import GraphanonError


def _int_list(value: str, what: str) -> list[int]:
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise GraphanonError(f"{what} {value!r}: give whole numbers separated by commas, e.g. 1,2,3") from None
    if not out or any(v < 1 for v in out):
        raise GraphanonError(f"{what} {value!r}: give whole numbers >= 1 separated by commas")
    return out


@main.command()
@click.argument("input_", metavar="DATA")
@click.argument("release_path", metavar="[RELEASE]", required=False, type=click.Path(dir_okay=False))
@click.option("-m", "ms", default="1,2,3", show_default=True, help="Attacker knowledges m, comma-separated.")
@click.option("--no-inf", is_flag=True, help="Skip m = infinity (whole records, containment counting).")
@click.option("--k-grid", default="2,5,10,25,50,100", show_default=True, help="The k of the risk distribution.")
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=0), help="Most exposed itemsets shown.")
@click.option("--allow-mismatch", is_flag=True, help="Report even when RELEASE was not made from DATA.")
@click.option("--json", "json_out", is_flag=True, help="Print one JSON object.")
@input_options
def report(input_, release_path, ms, no_inf, k_grid, top, allow_mismatch, json_out, fmt, sep, tid, item, label):
    """Report what DATA (or RELEASE of DATA) achieves.

    The largest k for each m, the transactional k, l, records at risk per (k, m), prosecutor risk
    and the most exposed itemsets (docs/report.md).
    """
    from graphanon.privacy.achieved import achieved_privacy
    from graphanon.release import load_release

    m_values = _int_list(ms, "-m")
    grid = _int_list(k_grid, "--k-grid")
    data, _ = read_input(input_, fmt, sep, tid, item, label)
    release, note = None, None
    if release_path is not None:
        release = load_release(release_path)
        if not allow_mismatch:
            note = check_data(data, release)
    rep = achieved_privacy(data, release, ms=m_values, unbounded=not no_inf, k_grid=grid, top=top)
    if json_out:
        echo_json({**rep.to_dict(), **({"data_verified": False} if note else {})})
        return
    _print(rep, input_ if release_path is None else release_path)
    echo_note(note)


def _print(rep, name: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from graphanon.utils.labels import display_items

    console = Console()
    console.print(f"[bold]{name}[/bold]: {rep.kind}, {rep.n_records} published records")
    if rep.nonreciprocal is not None:
        table = Table("measure", "value")
        for key, value in rep.nonreciprocal.items():
            table.add_row(key, f"{value:.4g}" if isinstance(value, float) else str(value))
        console.print(table)
    if rep.largest_k:
        table = Table("m", "largest k (k^m)", "prosecutor risk mean", "max")
        for m, k in rep.largest_k.items():
            pr = rep.prosecutor[m]
            table.add_row(str(m), str(k), f"{pr['mean']:.4f}", f"{pr['max']:.4f}")
        console.print(table)
        console.print(f"transactional k: {rep.transactional_k}")
    if rep.l_diversity:
        console.print(f"l: distinct {rep.l_diversity['distinct_l']}, entropy {rep.l_diversity['entropy_l']:.3f}")
    if rep.risk:
        ks = sorted({row["k"] for row in rep.risk})
        table = Table("records at risk", *[f"k={k}" for k in ks])
        for m in rep.largest_k:
            cells = {row["k"]: row for row in rep.risk if row["m"] == m}
            table.add_row(f"m={m}", *[f"{cells[k]['records_at_risk']} ({100 * cells[k]['share']:.2f}%)" for k in ks])
        console.print(table)
    if rep.exposed:
        table = Table("most exposed itemset", "support")
        for row in rep.exposed:
            table.add_row(display_items(row["itemset"]), str(row["support"]))
        console.print(table)
    for note in rep.notes:
        console.print(f"note: {note}")
