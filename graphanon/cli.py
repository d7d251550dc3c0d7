"""The ``graphanon`` command line.

Commands: ``datasets``, ``anonymize``, ``audit``, ``evaluate``, ``taxonomy``,
``draw``, ``bench``. Bad input ends with a one-line message and exit code 2;
a violated audit exits with code 1. ``--json`` prints one JSON object.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

import click

from graphanon.errors import GraphanonError

EXIT_BAD_INPUT = 2
EXIT_VIOLATED = 1

# Seeds are non-negative (numpy's SeedSequence takes no negative entropy).
_SEED = click.IntRange(min=0)

# Release files the CLI writes (Release.save picks gzip by the ending).
RELEASE_SUFFIXES = (".json", ".json.gz")


def _fail(message: str) -> None:
    """Print ``graphanon: error: MESSAGE`` as ONE line on stderr and exit with code 2."""
    click.echo(f"graphanon: error: {' '.join(str(message).split())}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def _usage_error(exc: click.ClickException) -> None:
    """A click usage error (bad option value, missing argument) in the same one-line form."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "graphanon"
    _fail(f"{exc.format_message()} (see `{command} --help`)")


class _Group(click.Group):
    """Turns package errors, usage errors and unreadable files into one line and exit code 2."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.ClickException as exc:
            _usage_error(exc)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GraphanonError as exc:
            _fail(str(exc))
        except click.ClickException as exc:
            _usage_error(exc)
        except (OSError, MemoryError) as exc:
            _fail(f"{type(exc).__name__}: {exc}")


def _dumps_json(obj, **kwargs) -> str:
    from graphanon._io import dumps_json

    return dumps_json(obj, **kwargs)


def _echo_json(obj, **kwargs) -> None:
    """Print strict JSON (non-finite numbers become null, see graphanon._io.dumps_json)."""
    from graphanon._io import dumps_json

    click.echo(dumps_json(obj, **kwargs))


def _check_output(output: str, *inputs: str | None, params: dict | None = None, suffixes=()) -> None:
    """Before any work: ``output`` is no input (INPUT, --taxonomy, --release, constraint
    files named by --param), its folder exists and is writable, its ending is one we write."""
    from graphanon._io import check_output

    sources = [s for s in inputs if s]
    for value in (params or {}).values():
        sources.append(value.split(":", 1)[1] if value.startswith("groups:") else value)
    check_output(output, inputs=sources, suffixes=suffixes)


@contextmanager
def _progress(enabled: bool):
    """A rich progress bar fed by the package's ``progress(done, total, message)`` callbacks."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        transient=True,
        console=None,
    ) as bar:
        task = bar.add_task("working", total=None)

        def callback(done: int, total: int, message: str = "") -> None:
            bar.update(task, completed=done, total=total, description=message[:60] or "working")

        yield callback


def _show_progress(json_out: bool) -> bool:
    return not json_out and sys.stderr.isatty()


def _parse_m(value: str | None) -> int | None:
    if value is None or value.lower() in ("inf", "infinity", "none"):
        return None
    try:
        m = int(value)
    except ValueError:
        raise GraphanonError(f"-m must be a whole number or 'inf', got {value!r}") from None
    if m < 1:
        raise GraphanonError(f"-m must be at least 1, got {m}")
    return m


def _parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise GraphanonError(f"--param takes name=value, got {pair!r}")
        name, value = pair.split("=", 1)
        out[name.strip()] = value.strip()
    return out


# How reader error messages name their arguments on the command line.
_OPTION_NAMES = {"fmt": "--format", "delimiter": "--delimiter", "tid": "--tid", "item": "--item", "label": "--label"}


def _load_input(source: str, fmt: str | None, sep: str | None, tid: str, item: str, label: str | None):
    """A bundled dataset name or a path (format and delimiter told by graphanon.formats.read_any)."""
    from graphanon import datasets
    from graphanon.formats import read_any

    path = Path(source)
    if not path.exists():
        names = [d["name"] for d in datasets.list_datasets()]
        if source in names:
            if label is not None:
                raise GraphanonError(f"--label names a column of CSV input; {source} is a bundled dataset "
                                     "(its labels, if it has any, are used as they are): drop --label")
            return datasets.load(source), source
        raise GraphanonError(
            f"{source}: no such file, and not a bundled dataset ({', '.join(names)})"
        )
    data = read_any(path, fmt, delimiter=sep, tid=tid, item=item, label=label, option_names=_OPTION_NAMES)
    return data, None


def _load_taxonomy(spec: str | None, data, bundled: str | None):
    """``--taxonomy`` value: a file, ``balanced:FANOUT[:SEED]``, or the dataset's bundled taxonomy."""
    from graphanon import datasets
    from graphanon.taxonomy import Taxonomy, read_taxonomy

    if spec is None:
        if bundled is None:
            return None
        try:
            return datasets.load_taxonomy(bundled)
        except GraphanonError:
            return None
    if spec.startswith("balanced"):
        parts = spec.split(":")
        try:
            fanout = int(parts[1]) if len(parts) > 1 else 5
            seed = int(parts[2]) if len(parts) > 2 else None
        except ValueError:
            raise GraphanonError(f"--taxonomy {spec!r}: use balanced:FANOUT or balanced:FANOUT:SEED") from None
        order = "random" if seed is not None else "sorted"
        return Taxonomy.balanced(data.items, fanout, order=order, rng=seed)
    if not Path(spec).exists() and spec in [d["name"] for d in datasets.list_datasets()]:
        return datasets.load_taxonomy(spec)
    return read_taxonomy(spec)


_input_options = [
    click.option("--format", "fmt", type=click.Choice(["fimi", "csv", "basket", "parquet"]), default=None,
                 help="Input format: fimi (integer items separated by spaces), csv (long tid,item CSV), "
                      "basket (one record per line), parquet (long tid,item or a list column item; "
                      "needs pyarrow). Default: .dat fimi, .csv csv, .parquet parquet, else basket; a basket "
                      "file with spaces and no comma needs --format or --delimiter."),
    click.option("--delimiter", "--sep", "sep", default=None,
                 help="Field delimiter of csv input (default ,) or item delimiter of basket input "
                      "(default , when the file has one); one character, or tab / space."),
    click.option("--tid", default="tid", show_default=True, help="Transaction-id column of CSV input."),
    click.option("--item", default="item", show_default=True, help="Item column of CSV input."),
    click.option("--label", default=None, help="Sensitive-label column of CSV input."),
]


def input_options(func):
    for option in reversed(_input_options):
        func = option(func)
    return func


@click.group(name="graphanon", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphanon")
@click.option("--max-memory", default=None, metavar="SIZE",
              help="Memory budget, e.g. 4G or 500M (default: $GRAPHANON_MAX_MEMORY, else 75% of physical "
                   "memory). Itemset searches stop with an error naming the parameter to change "
                   "before exceeding it.")
def main(max_memory: str | None) -> None:
    """graphanon: anonymize transaction (set-valued) data and audit the result.

    INPUT arguments take a file or a bundled dataset name (see `graphanon datasets`).
    """
    if max_memory is not None:
        from graphanon._memory import parse_memory, set_max_memory

        try:
            set_max_memory(parse_memory(max_memory))
        except GraphanonError as exc:
            raise GraphanonError(f"--max-memory: {exc}") from None


@main.command()
@click.option("--json", "json_out", is_flag=True, help="Print JSON.")
def datasets(json_out: bool) -> None:
    """List the bundled datasets."""
    from graphanon import datasets as ds

    rows = []
    for entry in ds.list_datasets():
        summary = ds.load(entry["name"]).summary()
        rows.append({**entry, "records": summary["records"], "items": summary["items"],
                     "mean_length": round(summary["mean_length"], 2)})
    if json_out:
        _echo_json(rows)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("name", "records", "items", "mean length", "extras", "description")
    for r in rows:
        table.add_row(r["name"], str(r["records"]), str(r["items"]), str(r["mean_length"]),
                      ", ".join(r["extras"]), r["description"])
    Console().print(table)


@main.command()
@click.option("--json", "json_out", is_flag=True, help="Print JSON.")
def algorithms(json_out: bool) -> None:
    """List the anonymizers (audit model, the options they read, --param names) and the audit models."""
    from graphanon.algorithms.registry import registered
    from graphanon.privacy.registry import model_names

    rows = [{"name": spec.name, "summary": spec.summary, "model": spec.privacy_model,
             "taxonomy": spec.needs_taxonomy, "options": list(spec.options), "params": list(spec.param_names)}
            for spec in sorted(registered().values(), key=lambda spec: spec.name)]
    models = model_names()
    if json_out:
        _echo_json({"algorithms": rows, "models": models})
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("algorithm", "audit model", "taxonomy", "options", "--param", "summary")
    flags = {"k": "-k", "m": "-m", "taxonomy": "--taxonomy", "seed": "--seed"}
    for r in rows:
        table.add_row(r["name"], r["model"], "required" if r["taxonomy"] else "",
                      " ".join(flags[o] for o in r["options"]), ", ".join(r["params"]), r["summary"])
    console = Console()
    console.print(table)
    table = Table("audit model", "summary")
    for name, summary in models.items():
        table.add_row(name, summary)
    console.print(table)


@main.command()
@click.argument("input_", metavar="INPUT")
@click.option("-a", "--algorithm", "algorithm", required=True,
              help="Algorithm name (see `graphanon algorithms`).")
@click.option("-k", type=int, default=None, help="Privacy parameter k.")
@click.option("-m", "m_value", default=None, help="Attacker knowledge m (a number, or inf).")
@click.option("--taxonomy", default=None,
              help="Taxonomy file (path file or level table CSV), balanced:FANOUT[:SEED], or a bundled name.")
@click.option("--seed", type=_SEED, default=None,
              help="Seed of the structure (order, graph, extraction): same seed, same structure. "
                   "Methods without structure randomness refuse it; secret choices never use it.")
@click.option("--param", "params", multiple=True, help="Algorithm option name=value (repeatable).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Release file (.json or .json.gz): safe to publish.")
@click.option("--link-out", "link_out", default=None, type=click.Path(dir_okay=False),
              help="Also write the PRIVATE link (record -> published row) here; never publish it.")
@click.option("--json", "json_out", is_flag=True, help="Print a JSON summary.")
@input_options
def anonymize(input_, algorithm, k, m_value, taxonomy, seed, params, output, link_out, json_out, fmt, sep, tid,
              item, label):
    """Anonymize INPUT with an algorithm and save the release (rows shuffled, pseudonyms, no ids)."""
    from graphanon.algorithms.registry import RunOptions, get_algorithm

    if link_out is not None and Path(link_out).resolve() == Path(output).resolve():
        raise GraphanonError(f"--link-out {link_out} is the release file: the private link needs a file of its own")
    spec = get_algorithm(algorithm)
    param_dict = _parse_params(params)
    _check_output(output, input_, taxonomy, params=param_dict, suffixes=RELEASE_SUFFIXES)
    if link_out is not None:
        _check_output(link_out, input_, taxonomy, params=param_dict)
    data, bundled = _load_input(input_, fmt, sep, tid, item, label)
    tax = _load_taxonomy(taxonomy, data, bundled)
    if spec.needs_taxonomy and tax is None:
        raise GraphanonError(
            f"algorithm {spec.name!r} needs a taxonomy: pass --taxonomy FILE or --taxonomy balanced:5"
        )
    if tax is not None:
        tax.check_covers(data.items, what=f"{input_}")
    if k is not None:
        from graphanon.privacy import check_k

        check_k(k, data.n_records)
    given = _given(k=k, m=m_value, taxonomy=taxonomy, seed=seed)
    start = time.perf_counter()
    with _progress(_show_progress(json_out)) as progress:
        opts = RunOptions(k=k, m=_parse_m(m_value), taxonomy=tax, seed=seed,
                          params=param_dict, progress=progress, given=given)
        spec.check_options(opts)
        release = spec.run(data, opts)
    elapsed = time.perf_counter() - start
    _verify_claim(spec, data, release, opts)
    release.save(output)
    if link_out is not None:
        release.link.save(link_out)
    summary = {"algorithm": spec.name, "input": input_, "records": release.n_records,
               "seconds": round(elapsed, 3), "output": str(output), "audit_model": spec.privacy_model,
               "private_link": None if link_out is None else str(link_out)}
    if json_out:
        _echo_json(summary)
    else:
        # "released", not "anonymized": what the release guarantees is what `graphanon audit` says
        click.echo(f"{spec.name}: {release.n_records} records released in {elapsed:.2f} s -> {output} "
                   f"(check it with graphanon audit --model {spec.privacy_model})")
        if link_out is not None:
            click.echo(f"private link (never publish it) -> {link_out}")



def _given(**options) -> frozenset:
    """The general options (k, m, taxonomy, seed) given on the command line."""
    return frozenset(name for name, value in options.items() if value is not None)


def _verify_claim(spec, data, release, opts) -> None:
    """Audit the release of a method with no guarantee by construction (``spec.verify``)
    against the ``-k``/``-m`` it claims; refuse a violating one unless ``--param force=true``."""
    if not spec.verify or opts.k is None:
        return
    from graphanon.algorithms.registry import parse_bool
    from graphanon.privacy.registry import build_model

    model = build_model(spec.privacy_model, k=opts.k, m=opts.m, params={}, original=data)
    report = model.audit(data, release, max_examples=1)
    if report.satisfied:
        return
    example = report.worst or (report.counterexamples[0] if report.counterexamples else {})
    example = ", e.g. " + _dumps_json(example) if example else ""
    what = f"{report.model} fails: {report.violations} violation(s){example}"
    if not opts.param("force", False, parse_bool):
        raise GraphanonError(f"{what}; nothing written. Publish a coarser cut or suppress more, "
                             "or pass --param force=true to write it anyway")
    release.params["audit"] = {"model": report.model, "satisfied": False, "violations": report.violations}
    click.echo(f"graphanon: WARNING: {what}; written anyway (--param force=true)", err=True)


@main.command()
@click.argument("input_", metavar="INPUT")
@click.argument("release_path", metavar="RELEASE", type=click.Path(dir_okay=False))
@click.option("--model", required=True, help="Privacy model: km, transactional, constraints, hkp, nonreciprocal, ldiversity, ...")
@click.option("-k", type=int, default=None)
@click.option("-m", "m_value", default=None, help="A number, or inf (default: inf).")
@click.option("--param", "params", multiple=True, help="Model option name=value (repeatable).")
@click.option("--json", "json_out", is_flag=True)
@click.option("--examples", default=10, show_default=True, type=click.IntRange(min=0),
              help="Counter-examples to report.")
@click.option("--allow-mismatch", is_flag=True, help="Audit even when the release was not made from INPUT.")
@input_options
def audit(input_, release_path, model, k, m_value, params, json_out, examples, allow_mismatch, fmt, sep, tid, item,
          label):
    """Audit RELEASE against INPUT for a privacy model (exit 1 when violated)."""
    from graphanon.privacy.registry import build_model
    from graphanon.release import check_same_data, load_release

    data, _ = _load_input(input_, fmt, sep, tid, item, label)
    release = load_release(release_path)
    if not allow_mismatch:
        check_same_data(data, release)
    privacy_model = build_model(model, k=k, m=_parse_m(m_value), params=_parse_params(params), original=data)
    with _progress(_show_progress(json_out)) as progress:
        report = privacy_model.audit(data, release, max_examples=examples, progress=progress)
    if json_out:
        _echo_json(report.to_dict())
    else:
        click.echo(str(report))
    sys.exit(0 if report.satisfied else EXIT_VIOLATED)


@main.command()
@click.argument("input_", metavar="INPUT")
@click.argument("release_path", metavar="RELEASE", type=click.Path(dir_okay=False))
@click.option("--queries", default=1000, show_default=True, type=click.IntRange(min=0),
              help="COUNT queries in the workload (0: none).")
@click.option("-q", "q", default=2, show_default=True, type=click.IntRange(min=1), help="Items per query.")
@click.option("--seed", default=0, show_default=True, type=_SEED, help="Workload seed.")
@click.option("--link", "link_path", default=None, type=click.Path(dir_okay=False),
              help="PRIVATE link file from `anonymize --link-out`, for metrics that need each record's own row.")
@click.option("--allow-mismatch", is_flag=True, help="Evaluate even when the release was not made from INPUT.")
@click.option("--json", "json_out", is_flag=True)
@input_options
def evaluate(input_, release_path, queries, q, seed, link_path, allow_mismatch, json_out, fmt, sep, tid, item, label):
    """Measure the utility of RELEASE against INPUT."""
    from graphanon.metrics.evaluate import evaluate_release
    from graphanon.release import load_link, load_release

    data, _ = _load_input(input_, fmt, sep, tid, item, label)
    release = load_release(release_path)
    link = None if link_path is None else load_link(link_path)
    result = evaluate_release(data, release, queries=queries, q=q, seed=seed, link=link, allow_mismatch=allow_mismatch)
    if json_out:
        _echo_json(result)
    else:
        for key, value in result.items():
            if key == "needs_link":
                for metric in value:
                    click.echo(f"{metric:>22}: needs the private link (--link FILE from anonymize --link-out)")
            else:
                click.echo(f"{key:>22}: {value:.6g}" if isinstance(value, float) else f"{key:>22}: {value}")


@main.command()
@click.argument("source")
@click.option("--json", "json_out", is_flag=True)
def taxonomy(source, json_out):
    """Check and summarize a taxonomy (a file or a bundled dataset's)."""
    from graphanon import datasets as ds
    from graphanon.taxonomy import read_taxonomy

    if not Path(source).exists() and source in [d["name"] for d in ds.list_datasets()]:
        tax = ds.load_taxonomy(source)
    else:
        tax = read_taxonomy(source)
    info = {
        "root": str(tax.root),
        "nodes": len(tax),
        "leaves": len(tax.leaves),
        "height": tax.height,
        "fanout_max": max(len(tax.children(v)) for v in tax.nodes if not tax.is_leaf(v)),
        "levels": [len(tax.level(d)) for d in range(tax.height + 1)],
    }
    if json_out:
        _echo_json(info)
    else:
        for key, value in info.items():
            click.echo(f"{key:>10}: {value}")


@main.command()
@click.argument("what", type=click.Choice(["taxonomy", "search", "constraints", "generalization"]))
@click.argument("source")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="PNG/SVG/PDF file.")
@click.option("--release", "release_path", default=None, help="taxonomy: highlight the cut of this release.")
@click.option("--max-nodes", default=300, show_default=True, type=click.IntRange(min=1),
              help="taxonomy: draw at most this many nodes.")
@click.option("-a", "--algorithm", "algorithm", default="hghs", show_default=True, help="search: hghs or mhghs.")
@click.option("-k", type=int, default=None, help="Privacy parameter k.")
@click.option("-m", "m_value", default=None, help="search: attacker knowledge m (a number, or inf).")
@click.option("--taxonomy", default=None, help="search: taxonomy (as for anonymize).")
@click.option("--seed", type=_SEED, default=0, show_default=True, help="generalization: walk seed.")
@input_options
def draw(what, source, output, release_path, max_nodes, algorithm, k, m_value, taxonomy, seed,
         fmt, sep, tid, item, label):
    """Draw a graph an algorithm builds to a file.

    \b
    taxonomy        SOURCE is a taxonomy file or bundled name; --release highlights its cut
    search          hghs/mhghs search on SOURCE data: cut, cut lattice, suppression enumeration tree
    constraints     COAT constraint graph of SOURCE data (bundled constraints, else pgen with -k)
    generalization  nonreciprocal ring graph over the Gray-TSP order of SOURCE data (-k) and
                    the k assignments the closed walk extracts (at most 60 records)
    """
    # Figures are made with matplotlib.figure.Figure (never pyplot): the file is rendered by Agg
    # without selecting a backend, so an interactive session calling this keeps its own.
    from graphanon.viz import FIGURE_SUFFIXES, save_figure

    _check_output(output, source, release_path, taxonomy, suffixes=FIGURE_SUFFIXES)
    if what == "taxonomy":
        fig = _draw_taxonomy(source, release_path, max_nodes)
    else:
        data, bundled = _load_input(source, fmt, sep, tid, item, label)
        if what == "search":
            fig = _draw_search(data, bundled, algorithm, k, _parse_m(m_value), taxonomy)
        elif what == "constraints":
            fig = _draw_constraints(data, bundled, k)
        else:
            fig = _draw_generalization(data, k, seed)
    save_figure(fig, output, close=True)
    click.echo(f"wrote {output}")


def _draw_taxonomy(source, release_path, max_nodes):
    from matplotlib.figure import Figure

    from graphanon import datasets as ds
    from graphanon.taxonomy import read_taxonomy
    from graphanon.viz.taxonomy import draw_taxonomy, taxonomy_figsize

    if not Path(source).exists() and source in [d["name"] for d in ds.list_datasets()]:
        tax = ds.load_taxonomy(source)
    else:
        tax = read_taxonomy(source)
    highlight, suppressed = (), ()
    if release_path:
        from graphanon.release import load_release

        rel = load_release(release_path)
        highlight = [pi.label for pi in getattr(rel, "published_items", ()) if pi.label in tax]
        # a release names no suppressed node, so only the published part of the cut is drawn
    fig = Figure(figsize=taxonomy_figsize(tax, highlight=highlight, max_nodes=max_nodes))
    return draw_taxonomy(tax, highlight=highlight, suppressed=suppressed, max_nodes=max_nodes, ax=fig.subplots())


def _draw_search(data, bundled, algorithm, k, m, taxonomy):
    from matplotlib.figure import Figure

    from graphanon.algorithms.hghs import anonymize_hghs, anonymize_mhghs
    from graphanon.viz.hierarchy import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut
    from graphanon.viz.taxonomy import taxonomy_figsize

    methods = {"hghs": anonymize_hghs, "mhghs": anonymize_mhghs}
    if algorithm not in methods:
        raise GraphanonError(f"draw search: -a takes hghs or mhghs, got {algorithm!r}")
    if k is None:
        raise GraphanonError("draw search needs -k K")
    tax = _load_taxonomy(taxonomy, data, bundled)
    if tax is None:
        raise GraphanonError("draw search needs a taxonomy: pass --taxonomy FILE or balanced:5")
    rel = methods[algorithm](data, taxonomy=tax, k=k, m=m)
    fig = Figure(figsize=(20, max(6.0, taxonomy_figsize(tax, highlight=rel.details["cut"])[1])))
    axes = fig.subplots(1, 3)
    draw_taxonomy_cut(tax, rel.details["cut"], rel.details["suppress"], ax=axes[0])
    draw_cut_lattice(rel.search.lattice(), ax=axes[1], max_nodes=25)
    draw_enumeration_tree(rel.search.enumeration_tree(), ax=axes[2], max_nodes=25)
    return fig


def _draw_constraints(data, bundled, k):
    from graphanon import datasets as ds
    from graphanon.algorithms.coat import pgen
    from graphanon.graphs.constraints import ConstraintGraph
    from graphanon.viz.coat import draw_constraint_graph

    try:
        bundled_constraints = ds.load_constraints(bundled) if bundled else None
    except GraphanonError:
        bundled_constraints = None
    if bundled_constraints is not None:
        privacy, utility = bundled_constraints["privacy"], bundled_constraints["utility"]
    elif k is None:
        raise GraphanonError("draw constraints needs -k K (privacy constraints are generated by pgen)")
    else:
        privacy, utility = pgen(data, k), None
    from matplotlib.figure import Figure

    return draw_constraint_graph(ConstraintGraph(data, privacy, utility), ax=Figure(figsize=(16, 5)).subplots()).figure


_MAX_DRAWN_RECORDS = 60


def _draw_generalization(data, k, seed):
    from matplotlib.figure import Figure

    from graphanon.algorithms.nonreciprocal import extract_assignments, gray_tsp_order
    from graphanon.graphs.generalization import ring_graph
    from graphanon.viz.nonreciprocal import draw_assignments, draw_generalization_graph

    if k is None:
        raise GraphanonError("draw generalization needs -k K")
    if data.n_records > _MAX_DRAWN_RECORDS:
        raise GraphanonError(
            f"draw generalization shows at most {_MAX_DRAWN_RECORDS} records and the data has "
            f"{data.n_records}; draw a sample (e.g. the first lines of the file)"
        )
    if not 1 <= k <= data.n_records:
        raise GraphanonError(f"-k must be between 1 and the number of records ({data.n_records}), got {k}")
    order = gray_tsp_order(data.matrix, time_limit=None, seed=seed)  # deterministic budget: same drawing every run
    graph = ring_graph(order, k, data.record_ids)
    fig = Figure(figsize=(14, max(6.0, 0.16 * data.n_records + 1)))
    axes = fig.subplots(1, 2)
    draw_generalization_graph(graph, order, ax=axes[0], title=f"{k}-regular ring over the Gray-TSP order")
    assignments = extract_assignments(graph, rng=seed)
    draw_assignments(graph, assignments, order, ax=axes[1], title=f"{k} disjoint assignments (closed walk)")
    return fig


@main.command()
@click.argument("input_", metavar="INPUT")
@click.option("-a", "--algorithm", "algorithm", required=True)
@click.option("-k", type=int, default=None)
@click.option("-m", "m_value", default=None)
@click.option("--taxonomy", default=None)
@click.option("--seed", type=_SEED, default=None)
@click.option("--param", "params", multiple=True)
@click.option("--queries", default=200, show_default=True, type=click.IntRange(min=0))
@click.option("--json", "json_out", is_flag=True)
@input_options
def bench(input_, algorithm, k, m_value, taxonomy, seed, params, queries, json_out, fmt, sep, tid, item, label):
    """Run one algorithm on INPUT: time, independent audit and metrics in one report."""
    from graphanon.algorithms.registry import RunOptions, get_algorithm
    from graphanon.metrics.evaluate import evaluate_release
    from graphanon.privacy.registry import build_model

    spec = get_algorithm(algorithm)
    data, bundled = _load_input(input_, fmt, sep, tid, item, label)
    tax = _load_taxonomy(taxonomy, data, bundled)
    if spec.needs_taxonomy and tax is None:
        raise GraphanonError(f"algorithm {spec.name!r} needs a taxonomy: pass --taxonomy FILE or balanced:5")
    m = _parse_m(m_value)
    param_dict = _parse_params(params)
    # --seed also seeds the query workload, so a deterministic method is not refused for it
    run_seed = seed if "seed" in spec.options else None
    given = _given(k=k, m=m_value, taxonomy=taxonomy, seed=run_seed)
    start = time.perf_counter()
    with _progress(_show_progress(json_out)) as progress:
        opts = RunOptions(k=k, m=m, taxonomy=tax, seed=run_seed, params=param_dict, progress=progress, given=given)
        spec.check_options(opts)
        release = spec.run(data, opts)
    seconds = time.perf_counter() - start
    audit_params = {name: value for name, value in param_dict.items() if name in spec.audit_params}
    model = build_model(spec.privacy_model, k=k, m=m, params=audit_params, original=data)
    report = model.audit(data, release)
    # the parameters the release was made with (e.g. cahd's l and group size), not only the flags
    used = release.params
    result = {"algorithm": spec.name, "input": input_, "k": used.get("k", k), "m": used.get("m", m),
              "params": used, "seconds": round(seconds, 3),
              "audit": {"model": report.model, "satisfied": report.satisfied, "violations": report.violations}}
    if spec.privacy_model == "ldiversity" and used.get("k"):  # the k an l-diverse release claims, audited too
        report = build_model("nonreciprocal", k=used["k"], m=None, params={}, original=data).audit(data, release)
        result["audit_k"] = {"model": report.model, "satisfied": report.satisfied, "violations": report.violations}
    result["metrics"] = evaluate_release(data, release, queries=queries, seed=seed or 0)
    _echo_json(result, indent=None if json_out else 2)


if __name__ == "__main__":  # pragma: no cover
    main()
