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
    read_relational,
    relational_options,
    show_progress,
)
from graphanon.errors import GraphanonError

#: exit status of a study in which a run failed (made no release) and no release failed its audit
EXIT_RUN_FAILED = 3


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


def _epsilons(values: tuple[str, ...]) -> list | None:
    out = []
    for text in _split(values):
        try:
            out.append(float(text))
        except ValueError:
            raise GraphanonError(f"--epsilon takes numbers separated by commas, got {text!r}") from None
    return out or None


def _command(datasets, *, algorithms, k, m, taxonomy, params, seed, queries, attack_targets, output,
             epsilon=(), universe=None, repeat=1, relational=None) -> str:
    """The command that repeats this study (every option that changes a result, as parsed)."""
    words = ["graphanon", "compare", *datasets, "-a", ",".join(_split(algorithms))]
    for flag, values in (("-k", k), ("-m", m), ("--epsilon", epsilon)):
        if values:
            words += [flag, ",".join(_split(values))]
    if universe is not None:
        words += ["--universe", universe]
    if repeat != 1:
        words += ["--repeat", str(repeat)]
    if taxonomy is not None:
        words += ["--taxonomy", taxonomy]
    if relational is not None:
        path, qi, hierarchies, categorical = relational
        words += ["--relational", path, "--qi", qi]
        for spec in hierarchies:
            words += ["--qi-hierarchy", spec]
        if categorical:
            words += ["--categorical", categorical]
    for pair in params:
        words += ["--param", pair]
    words += ["--seed", str(seed), "--queries", str(queries), "--attack-targets", str(attack_targets), "-o", output]
    return " ".join(shlex.quote(word) for word in words)


@main.command()
@click.argument("datasets", nargs=-1, required=True, metavar="DATASET...")
@click.option("-a", "--algorithm", "algorithms", multiple=True, required=True,
              help="Methods, comma-separated or repeated (aa,mhghs,coat), or all: every method, those the options "
                   "or data cannot run skipped with the reason (a named one is refused before anything runs).")
@click.option("-k", "k_values", multiple=True, help="Values of k, comma-separated (2,5,10,25).")
@click.option("-m", "m_values", multiple=True, help="Values of m (numbers or inf), comma-separated; given "
                                                     "only to methods that take m.")
@click.option("--taxonomy", default=None,
              help="Taxonomy (file, balanced:FANOUT[:SEED] or a bundled name), given to the methods that need one.")
@click.option("--param", "params", multiple=True,
              help="Method parameter values: name=v1;v2 for every method taking name, method.name=v1;v2 for one "
                   "(repeatable). Names and defaults are `graphanon anonymize`'s --param ones (`graphanon "
                   "algorithms` lists them: mm.private=a,b); a name no chosen method takes is refused.")
@click.option("--epsilon", "epsilon_values", multiple=True,
              help="Epsilons of the differentially private methods, comma-separated (0.1,0.5,1,2): a grid axis "
                   "beside -k; each DP method runs once per epsilon (and per --repeat), the others once per k. "
                   "Without it a DP method is refused.")
@click.option("--universe", default=None, type=click.Path(dir_okay=False),
              help="DP methods: the public item universe, one item per line (not the items of the data; "
                   "docs/dp.md). A balanced:F --taxonomy is never given to them.")
@click.option("--repeat", default=1, show_default=True, type=click.IntRange(min=1),
              help="Runs of each DP configuration (fresh noise each; the report shows mean and spread).")
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
@relational_options
def compare(datasets, algorithms, k_values, m_values, taxonomy, params, epsilon_values, universe, repeat, seed, queries,
            attack_targets, output, jobs, scheduler, json_out, relational, qi, qi_hierarchies, categorical):
    """Compare methods on DATASET(s): every method x parameter value, audited and measured, in one table.

    Each run is audited with its method's model, measured with every utility
    metric that applies and attacked by row linkage; a failing run is recorded
    and the others go on. Differentially private methods run once per
    --epsilon (and --repeat), over the public --universe; they are measured on
    the same COUNT queries and top-100 itemsets, not audited (docs/dp.md). Each method runs as `graphanon anonymize -a NAME`
    runs it, with the same defaults. Finished runs are kept under OUTPUT/runs
    and reused.

    Relational-transaction data (--relational FILE --qi COLUMNS, joined by
    record id with each DATASET): the rt methods read it; a grid over their
    transaction method is --param "transaction=aa;mhghs;coat" (values of one
    --param are separated by semicolons, as for every method: a comma belongs
    to a value). Their rows add the relational loss (rt_gcp), the error of
    COUNT queries on 2 QIs and 2 items (rt_query_error) and the
    demographics-plus-items linkage (attack_below_k: targets left fewer than
    k rows).

    A method named with -a that cannot run (a required --param missing,
    labels or a taxonomy the data lack) is refused before anything runs, one
    clause per method naming what it needs and an example. With -a all, such
    methods are skipped instead: the terminal, --json (skipped) and the report
    say which and why, and the headline counts them.

    Every l-diverse release (one that promises l) is attacked by the
    majority-label adversary, as anonymize does: its success, bound 1/l and
    verdict are columns (label_success, label_bound, label_within_bound),
    and the headline says on how many it reads labels above 1/l + margin
    (the release still meets its model: the exit status is not changed).

    Exit status: 0 when every run made a release that meets its model; 1 when
    a release fails its model's audit; 3 when a run failed (its error is in
    the headline, on the terminal and in the report); 2 on bad input. When
    every run fails, one line says so and nothing is written.
    """
    from graphanon.study import WorkloadSpec, expand_grid, run_study
    from graphanon.study.execute import load_dataset
    from graphanon.study.report import headline, run_label, write_outputs

    if jobs is not None and scheduler is not None:
        raise GraphanonError("--jobs sets local worker processes; with --scheduler the Dask workers run: drop one")
    rt = None
    for name in datasets:  # an unreadable dataset (or table that does not join it) is refused before anything runs
        read_relational(load_dataset(name), relational, qi, qi_hierarchies, categorical)
    if relational is not None:
        rt = (relational, qi, tuple(qi_hierarchies), categorical or "")
    plan = expand_grid(_split(algorithms), list(datasets), k=_ints(k_values, "-k"), m=_ints(m_values, "-m"),
                       params=_grid_params(params), taxonomy=taxonomy, seed=seed,
                       workload=WorkloadSpec(queries=queries, q=2, seed=seed), attack_targets=attack_targets,
                       epsilon=_epsilons(epsilon_values), universe=universe, repeat=repeat, relational=rt)
    if taxonomy is not None:
        from graphanon.study.execute import load_taxonomy

        for name in datasets:
            load_taxonomy(taxonomy, name)
    if universe is not None:  # an unreadable universe is refused before anything runs
        from graphanon.study.execute import load_universe

        load_universe(universe)
    command = _command(datasets, algorithms=algorithms, k=k_values, m=m_values, taxonomy=taxonomy, params=params,
                       seed=seed, queries=queries, attack_targets=attack_targets, output=output,
                       epsilon=epsilon_values, universe=universe, repeat=repeat, relational=rt)
    if not json_out:
        for note in plan.notes:
            click.echo(f"note: {note}", err=True)
        for line in plan.skipped:
            click.echo(f"skipped: {line}", err=True)
    start = time.perf_counter()
    existed = os.path.isdir(output)
    with progress_bar(show_progress(json_out)) as progress:
        store = os.path.join(output, "runs")
        if scheduler is None:
            table = run_study(plan.runs, store, workers=jobs or os.cpu_count() or 1, progress=progress)
        else:
            from graphanon import distributed

            with distributed.connect(scheduler) as client:
                table = run_study(plan.runs, store, client=client, progress=progress)
    ok = table["status"] == "ok"
    if not ok.any():  # nothing to report: one line, and no folder left behind that this study made
        _remove_if_empty(store)
        if not existed:
            _remove_if_empty(output)
        text = "every run failed, nothing written: " + headline(table, skipped=plan.skipped)
        click.echo(f"graphanon: error: {' '.join(text.split())}",
                   err=True)
        sys.exit(EXIT_RUN_FAILED)
    written = write_outputs(table, output, command=command, notes=plan.notes, skipped=plan.skipped)
    seconds = time.perf_counter() - start
    failed = table[~ok]
    private = table["epsilon"].notna()  # DP runs: accounted by epsilon, not audited
    violated = table[ok & ~private & ~table["audit_satisfied"].fillna(False).astype(bool)]
    checked = table[ok & table["label_within_bound"].notna()]  # l-diverse releases: the majority-label adversary
    above = checked[~checked["label_within_bound"].astype(bool)]
    summary = {"runs": len(table), "finished": int(ok.sum()), "failed": len(failed),
               "reused": int(table["reused"].fillna(False).astype(bool).sum()),
               "audits_satisfied": bool(violated.empty and ok.any()), "headline": headline(table, skipped=plan.skipped),
               "seconds": round(seconds, 3), "notes": plan.notes, "skipped": plan.skipped,
               "label_majority": {"checked": len(checked), "above_bound": [run_label(row) for _, row in above.iterrows()]},
               "outputs": {kind: str(path) for kind, path in written.items()},
               "errors": [f"{run_label(row)}: {row['error']}" for _, row in failed.iterrows()]}
    if json_out:
        echo_json(summary)
    else:
        click.echo(f"{summary['runs']} runs ({summary['reused']} reused, {summary['failed']} failed) in "
                   f"{seconds:.1f} s -> {written['report']}")
        click.echo(summary["headline"])
        for line in summary["errors"]:
            click.echo(f"failed: {line}")
        if not violated.empty:
            click.echo("audit FAILED: " + dumps_json(violated[["method", "k", "m", "params", "dataset"]].astype(str)
                                                     .to_dict("records")))
    if not violated.empty:
        sys.exit(EXIT_VIOLATED)
    if not failed.empty:
        sys.exit(EXIT_RUN_FAILED)


def _remove_if_empty(folder: str) -> None:
    """Remove ``folder`` when it exists and holds nothing."""
    try:
        os.rmdir(folder)
    except OSError:
        pass
