"""``graphanon compare``: a study of methods x parameters x datasets -> table, figures, HTML report."""

from __future__ import annotations

import os
import shlex
import sys
import time

import click

from graphanon.cli._app import (
    EXIT_VIOLATED,
    dumps_json,
    echo_json,
    main,
    parse_m,
    progress_bar,
    show_progress,
)
from graphanon.errors import GraphanonError


def _split(values: tuple[str, ...]) -> list[str]:
    """Repeated and comma-separated option values, in order, blanks dropped."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _ints(values: tuple[str, ...], flag: str) -> list | None:
    out: list = []
    for text in _split(values):
        if flag == "-m":
            out.append(parse_m(text))
            continue
        try:
            out.append(int(text))
        except ValueError:
            raise GraphanonError(f"{flag} takes whole numbers separated by commas, got {text!r}") from None
        if out[-1] < 1:
            raise GraphanonError(f"{flag} must be at least 1, got {out[-1]}")
    return out or None


def _grid_params(pairs: tuple[str, ...]) -> dict:
    out: dict[str, list[str]] = {}
    for pair in pairs:
        if "=" not in pair:
            raise GraphanonError(f"--param takes name=v1;v2 (or method.name=...), got {pair!r}")
        name, value = pair.split("=", 1)
        out.setdefault(name.strip(), []).extend(v.strip() for v in value.split(";") if v.strip())
    return out


def _label(row) -> str:
    """``aa k=5 m=2 l=3 on bms1``: a run named by the options it was given."""
    parts = [row.method] + [f"{name}={value}" for name, value in (("k", row.k), ("m", row.m))
                            if str(value) not in ("<NA>", "nan", "None")]
    if isinstance(row.params, str) and row.params:
        parts.append(row.params)
    return " ".join(parts) + f" on {row.dataset}"


def _command(datasets, *, algorithms, k, m, taxonomy, params, seed, queries, attack_targets, output) -> str:
    """The command that repeats this study (every option that changes a result, as parsed)."""
    words = ["graphanon", "compare", *datasets, "-a", ",".join(_split(algorithms))]
    for flag, values in (("-k", k), ("-m", m)):
        if values:
            words += [flag, ",".join(_split(values))]
    if taxonomy is not None:
        words += ["--taxonomy", taxonomy]
    for pair in params:
        words += ["--param", pair]
    words += ["--seed", str(seed), "--queries", str(queries), "--attack-targets", str(attack_targets), "-o", output]
    return " ".join(shlex.quote(word) for word in words)


@main.command()
@click.argument("datasets", nargs=-1, required=True, metavar="DATASET...")
@click.option("-a", "--algorithm", "algorithms", multiple=True, required=True,
              help="Methods, comma-separated or repeated (aa,mhghs,coat).")
@click.option("-k", "k_values", multiple=True, help="Values of k, comma-separated (2,5,10,25).")
@click.option("-m", "m_values", multiple=True, help="Values of m (numbers or inf), comma-separated; given "
                                                     "only to methods that take m.")
@click.option("--taxonomy", default=None,
              help="Taxonomy (file, balanced:FANOUT[:SEED] or a bundled name), given to the methods that need one.")
@click.option("--param", "params", multiple=True,
              help="Method parameter values: name=v1;v2 for every method taking name, method.name=v1;v2 for one "
                   "(repeatable). Names are the Python functions' arguments (mm.private_items, not private); "
                   "a name no chosen method takes is refused.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Structure seed (methods that take one) and seed of the shared COUNT workload.")
@click.option("--queries", default=200, show_default=True, type=click.IntRange(min=0),
              help="COUNT queries of the shared workload (the same for every method of a dataset).")
@click.option("--attack-targets", default=2000, show_default=True, type=click.IntRange(min=0),
              help="Records the row-linkage attack targets (0: no attack).")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Output folder: results.csv, results.parquet, figures (PNG), report.html, runs/ (finished "
                   "runs, reused by a later study into the same folder).")
@click.option("-j", "--jobs", default=None, type=click.IntRange(min=1),
              help="Worker processes (default: the number of CPUs).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the study's runs on Dask instead: tcp://host:8786 or local:N.")
@click.option("--json", "json_out", is_flag=True, help="Print a JSON summary instead of text.")
def compare(datasets, algorithms, k_values, m_values, taxonomy, params, seed, queries, attack_targets, output, jobs,
            scheduler, json_out):
    """Compare methods on DATASET(s): every method x parameter value, audited and measured, in one table.

    Each run is audited with its method's model, measured with every utility
    metric that applies and attacked by row linkage; a failing run is recorded
    and the others go on. Finished runs are kept under OUTPUT/runs and reused.
    Exit code 1 when a release fails its model's audit.
    """
    from graphanon.study import WorkloadSpec, expand_grid, run_study
    from graphanon.study.execute import load_dataset
    from graphanon.study.report import write_outputs

    if jobs is not None and scheduler is not None:
        raise GraphanonError("--jobs sets local worker processes; with --scheduler the Dask workers run: drop one")
    for name in datasets:
        load_dataset(name)  # an unreadable dataset is refused before anything runs
    plan = expand_grid(_split(algorithms), list(datasets), k=_ints(k_values, "-k"), m=_ints(m_values, "-m"),
                       params=_grid_params(params), taxonomy=taxonomy, seed=seed,
                       workload=WorkloadSpec(queries=queries, q=2, seed=seed), attack_targets=attack_targets)
    if taxonomy is not None:
        from graphanon.study.execute import load_taxonomy

        for name in datasets:
            load_taxonomy(taxonomy, name)
    command = _command(datasets, algorithms=algorithms, k=k_values, m=m_values, taxonomy=taxonomy, params=params,
                       seed=seed, queries=queries, attack_targets=attack_targets, output=output)
    if not json_out:
        for note in plan.notes:
            click.echo(f"note: {note}", err=True)
    start = time.perf_counter()
    with progress_bar(show_progress(json_out)) as progress:
        store = os.path.join(output, "runs")
        if scheduler is None:
            table = run_study(plan.runs, store, workers=jobs or os.cpu_count() or 1, progress=progress)
        else:
            from graphanon import distributed

            with distributed.connect(scheduler) as client:
                table = run_study(plan.runs, store, client=client, progress=progress)
    written = write_outputs(table, output, command=command, notes=plan.notes)
    seconds = time.perf_counter() - start
    ok = table["status"] == "ok"
    failed = table[~ok]
    violated = table[ok & ~table["audit_satisfied"].fillna(False).astype(bool)]
    summary = {"runs": len(table), "finished": int(ok.sum()), "failed": len(failed),
               "reused": int(table["reused"].fillna(False).astype(bool).sum()),
               "audits_satisfied": bool(violated.empty and ok.any()), "seconds": round(seconds, 3),
               "notes": plan.notes, "outputs": {kind: str(path) for kind, path in written.items()},
               "errors": [f"{_label(r)}: {r.error}" for r in failed.itertuples()]}
    if json_out:
        echo_json(summary)
        if not violated.empty:
            sys.exit(EXIT_VIOLATED)
        return
    click.echo(f"{summary['runs']} runs ({summary['reused']} reused, {summary['failed']} failed) in "
               f"{seconds:.1f} s -> {written['report']}")
    for line in summary["errors"]:
        click.echo(f"failed: {line}")
    if not violated.empty:
        click.echo("audit FAILED: " + dumps_json(violated[["method", "k", "m", "dataset"]].astype(str)
                                                 .to_dict("records")))
        sys.exit(EXIT_VIOLATED)
