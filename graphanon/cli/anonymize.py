"""``graphanon anonymize``: run a registered algorithm and save its release (``graphanon bench``: cli/bench.py)."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import click

from graphanon.cli._app import (
    DROPPED_LABELS,
    RELEASE_SUFFIXES,
    SEED,
    check_output,
    echo_json,
    input_options,
    main,
    parse_m,
    parse_param_pairs,
    progress_bar,
    read_input,
    read_relational,
    relational_options,
    show_progress,
    taxonomy_option,
)
from graphanon.cli._release_checks import (
    read_priors,
    refuse_unused_with_priors,
    verify_claim,
    verify_composition,
)
from graphanon.errors import GraphanonError


@main.command()
@click.argument("input_", metavar="INPUT")
@click.option("-a", "--algorithm", "algorithm", required=True,
              help="Algorithm name (see `graphanon algorithms`).")
@click.option("-k", type=int, default=None, help="Privacy parameter k.")
@click.option("-m", "m_value", default=None, help="Attacker knowledge m (a number, or inf).")
@click.option("--taxonomy", default=None,
              help="Taxonomy file (path file or level table CSV), balanced:FANOUT[:SEED], or a bundled name.")
@click.option("--seed", type=SEED, default=None,
              help="Seed of the structure (order, graph, extraction): same seed, same structure. "
                   "Methods without structure randomness refuse it; secret choices never use it.")
@click.option("--param", "params", multiple=True, help="Algorithm option name=value (repeatable).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Release file (.json or .json.gz; check what it guarantees with `graphanon audit`). A name "
                   "ending in .csv, .tsv or .parquet writes the release as NAME.json and, next to it, the plain "
                   "table and codebook of `graphanon export` (docs/export.md).")
@click.option("--link-out", "link_out", default=None, type=click.Path(dir_okay=False),
              help="Also write the PRIVATE link (record -> published row) here; never publish it.")
@click.option("--prior", "prior_paths", multiple=True, type=click.Path(dir_okay=False),
              help="An earlier release of INPUT (repeatable): the new release composes with it and still meets "
                   "its model (nr, cahd reuse the prior's rows; cut, aa, hghs, mhghs coarsen to the priors' "
                   "common refinement); refused when it cannot.")
@click.option("--prior-link", "prior_link_paths", multiple=True, type=click.Path(dir_okay=False),
              help="The PRIVATE link of each --prior, in the same order (nr, cahd need it; for the others it "
                   "verifies that the prior was made from INPUT).")
@click.option("--json", "json_out", is_flag=True, help="Print a JSON summary.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the method's distributed part on Dask (nr: the Gray-TSP segments; aa: its support counting; "
                   "partition: the sub-partitions; clump: its similarity graph): a scheduler address "
                   "(tcp://host:8786) or local:N for N local workers; the release equals the one-process release. "
                   "aa on a Parquet INPUT (without --prior or --label) keeps the records on the workers and writes "
                   "the release (and --link-out) from there: this process never holds them (docs/scale.md).")
@click.option("--epsilon", type=float, default=None,
              help="Differentially private methods (diffpart, privbasis): the privacy loss of this release (> 0).")
@click.option("--universe", default=None, type=click.Path(dir_okay=False),
              help="DP methods: the public item universe, one item per line (not the items of the data).")
@click.option("--ledger", default=None, type=click.Path(dir_okay=False),
              help="DP methods: the PRIVATE budget ledger of INPUT (created if missing, written 0600; never "
                   "publish it): every DP release of the same data is recorded in it.")
@click.option("--budget", type=float, default=None,
              help="DP methods, with --ledger: refuse a release that would take the data's total epsilon past B.")
@relational_options
@input_options
def anonymize(input_, algorithm, k, m_value, taxonomy, seed, params, output, link_out, prior_paths, prior_link_paths,
              json_out, scheduler, epsilon, universe, ledger, budget, relational, qi, qi_hierarchies, categorical,
              fmt, sep, tid, item, label):
    """Anonymize INPUT with an algorithm and save the release (rows shuffled, pseudonyms, no ids)."""
    from graphanon.cli.registry import RunOptions, get_algorithm

    output, export_to = _release_and_export(output)
    if link_out is not None and any(Path(link_out).resolve() == Path(path).resolve()
                                    for path in (output, export_to) if path is not None):
        raise GraphanonError(f"--link-out {link_out} is the release file: the private link needs a file of its own")
    spec = get_algorithm(algorithm)
    param_dict = parse_param_pairs(params)
    check_output(output, input_, taxonomy, *prior_paths, *prior_link_paths, params=param_dict,
                 suffixes=RELEASE_SUFFIXES)
    if export_to is not None:
        from graphanon.release.export import codebook_paths

        for path in (export_to, *codebook_paths(export_to).values()):
            check_output(str(path), input_, taxonomy, *prior_paths, *prior_link_paths, params=param_dict)
        if export_to.lower().endswith(".parquet"):
            from graphanon.readwrite.parquet import require_pyarrow

            require_pyarrow()  # before the run, not after the release is written
    if link_out is not None:
        check_output(link_out, input_, taxonomy, *prior_paths, *prior_link_paths, params=param_dict,
                     option="--link-out")
    given = given_options(k=k, m=m_value, taxonomy=taxonomy, seed=seed, scheduler=scheduler, epsilon=epsilon,
                          universe=universe)
    dp = "epsilon" in spec.options
    _check_dp_options(spec, dp, taxonomy, link_out, ledger, budget, output)
    if _streams(spec, input_, fmt, scheduler, prior_paths, label):
        if export_to is not None:
            raise GraphanonError(f"-o {export_to}: the streamed aa release is never held in this process; write "
                                 f"-o {output}, then `graphanon export {output} -o {export_to}`")
        _anonymize_streamed(spec, input_, k, m_value, taxonomy, seed, param_dict, output, link_out, json_out,
                            scheduler, tid, item, given)
        return
    data, bundled = read_input(input_, fmt, sep, tid, item, label)
    if (relational is not None) != (spec.privacy_model == "rt"):
        raise GraphanonError(f"-a {spec.name} needs --relational FILE --qi COLUMNS (relational-transaction data)"
                             if relational is None else
                             f"--relational: -a {spec.name} reads transactions only; use -a rt (or rt-naive)")
    run_data = read_relational(data, relational, qi, qi_hierarchies, categorical)
    priors = read_priors(spec, data, prior_paths, prior_link_paths)
    if priors:
        refuse_unused_with_priors(spec, seed, param_dict)
    tax = taxonomy_option(taxonomy, data, bundled)
    if spec.needs_taxonomy and tax is None:
        raise GraphanonError(
            f"algorithm {spec.name!r} needs a taxonomy: pass --taxonomy FILE or --taxonomy balanced:5"
        )
    if tax is not None:
        tax.check_covers(data.items, what=f"{input_}")
    if k is not None:
        from graphanon.utils.validation import check_k

        check_k(k, data.n_records)
    start = time.perf_counter()
    universe_items = _read_universe(universe) if universe is not None else None
    ledger_file = None
    with progress_bar(show_progress(json_out)) as progress:
        opts = RunOptions(k=k, m=parse_m(m_value), taxonomy=tax, seed=seed,
                          params=param_dict, progress=progress, given=given, priors=priors, epsilon=epsilon,
                          universe=universe_items)
        spec.check_options(opts)
        if ledger is not None and epsilon is not None:
            from graphanon.algorithms.dp.noise import check_epsilon
            from graphanon.release.ledger import BudgetLedger

            ledger_file = BudgetLedger.open(ledger)
            ledger_file.check(data, epsilon=check_epsilon(epsilon, "--epsilon"), budget=budget)
        if scheduler is None:
            release = spec.run(run_data, opts)
        else:
            from graphanon import distributed

            with distributed.connect(scheduler) as client:
                opts.client = client
                release = spec.run(data, opts)
    elapsed = time.perf_counter() - start
    verify_claim(spec, run_data, release, opts)
    if priors:
        verify_composition(data, release, priors)
    release.save(output)
    if link_out is not None:
        release.link.save(link_out)
    if ledger_file is not None:
        ledger_file.record(data, epsilon=float(epsilon), algorithm=spec.name, params=release.params, output=output)
    exported = []
    if export_to is not None:
        from graphanon.release.export import export_release

        exported = [str(p) for p in export_release(release, export_to, taxonomy=tax)]
    warnings = _warn(data, release, spec, tax if "taxonomy" in spec.options else None)
    relational_given = {"relational": relational, "qi": qi, "qi_hierarchies": qi_hierarchies} if relational else {}
    _report(spec, input_, release.n_records, elapsed, output, link_out, json_out, release.params,
            {**param_dict, **({"taxonomy": taxonomy} if taxonomy else {}), **relational_given,
             **({"prior": list(prior_paths)} if prior_paths else {})}, exported=exported,
            warnings=warnings)


def majority_warning(data, release) -> str | None:
    """The majority-label warning of a release that publishes labels and promises ``l``; None for any other.

    :func:`graphanon.attacks.label_majority.label_majority_warning`, imported only then: :mod:`graphanon.attacks`
    loads numba's kernels.
    """
    if getattr(release, "labels", None) is None or (getattr(release, "params", None) or {}).get("l") is None:
        return None
    # the attacks package loads numba's kernels: only an l-diverse release pays for it
    from graphanon.attacks.label_majority import label_majority_warning

    return label_majority_warning(data, release)


def _warn(data, release, spec, taxonomy) -> list[str]:
    """The release's warnings on stderr, within 80 columns.

    :func:`graphanon.metrics.caveats.release_warnings`, then the majority-label check of an l-diverse
    release (:func:`graphanon.attacks.label_majority.label_majority_warning`).

    ``spec`` (the method's declaration) gives the advice; ``taxonomy`` is the one the release was made with.

    Each starts with ``graphanon: warning:``; its continuation lines are indented by two spaces.
    """
    from graphanon.metrics.caveats import release_warnings

    messages = [w.message for w in release_warnings(data, release, advice=spec.release_advice(), taxonomy=taxonomy)]
    if (majority := majority_warning(data, release)) is not None:
        messages.append(majority)
    for message in messages:
        click.echo(textwrap.fill(f"graphanon: warning: {message}", 80, subsequent_indent="  ",
                                 break_long_words=False, break_on_hyphens=False), err=True)
    return messages


def _release_and_export(output: str) -> tuple[str, str | None]:
    """``-o``: a release file, or a table (.csv/.tsv/.parquet) whose release goes to the same name in .json."""
    from graphanon.readwrite.tables import TABLE_SUFFIXES

    name = Path(output).name.lower()
    for suffix in TABLE_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return output[: -len(suffix)] + ".json", output
    return output, None


def _check_dp_options(spec, dp: bool, taxonomy, link_out, ledger, budget, output) -> None:
    """The options of a differentially private method, refused in one line when they do not apply."""
    if not dp:
        extra = [flag for flag, value in (("--ledger", ledger), ("--budget", budget)) if value is not None]
        if extra:
            raise GraphanonError(f"{', '.join(extra)}: only differentially private methods (diffpart, privbasis) spend an "
                                 f"epsilon budget; algorithm {spec.name!r} does not -- drop it")
        return
    if link_out is not None:
        raise GraphanonError(f"--link-out: no row of a {spec.name} release stands for a record, so it "
                             "has no private link; drop it")
    if budget is not None and ledger is None:
        raise GraphanonError("--budget needs --ledger FILE (the private ledger that records what was spent)")
    if ledger is not None and Path(ledger).resolve() == Path(output).resolve():
        raise GraphanonError(f"--ledger {ledger} is the release file: the private ledger needs a file of its own")
    if taxonomy is not None and str(taxonomy).startswith("balanced"):
        raise GraphanonError(
            f"--taxonomy {taxonomy}: a balanced taxonomy is built over the items observed in the data, which a "
            f"differentially private release must not depend on; give --universe FILE (and --param fanout=F) "
            "or a taxonomy file of the public universe"
        )


def _read_universe(path) -> list[str]:
    """``--universe FILE``: one item per line (blank lines skipped), each named once."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise GraphanonError(f"--universe {path}: cannot read it ({exc.strerror or exc})") from None
    items = [line.strip() for line in lines if line.strip()]
    if not items:
        raise GraphanonError(f"--universe {path}: the file names no item (give one item per line)")
    seen: set[str] = set()
    for number, x in enumerate(items, 1):
        if x in seen:
            raise GraphanonError(f"--universe {path}: item {x!r} is named twice (item {number})")
        seen.add(x)
    return items


def audit_command(model: str, input_: str, output, params: dict | None, given: dict | None = None) -> tuple[str, str]:
    """The audit model a release is checked with and the ``graphanon audit`` line that checks it.

    An ℓ-diverse release (its parameters hold ``l``) is checked with
    ``ldiversity`` whatever the method's default model; ``k``, ``m`` and
    ``l`` come from the release's own parameters; a tendency audit gets the
    run's ``categories`` (and ``--taxonomy``) from ``given``, the command
    line's ``--param`` values.

    Examples
    --------
    >>> audit_command("nonreciprocal", "d.csv", "r.json", {"k": 5, "l": 3})
    ('ldiversity', 'graphanon audit d.csv r.json --model ldiversity --param l=3')
    >>> audit_command("nonreciprocal", "d.csv", "r.json", {"k": 3, "l": 3, "diversity": "recursive", "c": 2.0})[1]
    'graphanon audit d.csv r.json --model ldiversity --param l=3 --param diversity=recursive --param c=2'
    >>> audit_command("km", "groceries", "r.json", {"k": 5, "m": 2})[1]
    'graphanon audit groceries r.json --model km -k 5 -m 2'
    >>> audit_command("tendency", "d.csv", "r.json", {}, {"categories": "taxonomy-level:1", "taxonomy": "t.csv"})[1]
    'graphanon audit d.csv r.json --model tendency --param categories=taxonomy-level:1 --taxonomy t.csv'
    >>> audit_command("rt", "p.csv", "r.json", {"k": 5, "m": 2}, {"relational": "d.csv", "qi": "age,gender"})[1]
    'graphanon audit p.csv r.json --model rt -k 5 -m 2 --relational d.csv --qi age,gender'
    """
    params, given = params or {}, given or {}

    def number(name):
        value = params.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    k, m, l_value = number("k"), number("m"), number("l")
    if l_value is not None and model in ("nonreciprocal", "ldiversity"):
        line = f"graphanon audit {input_} {output} --model ldiversity --param l={l_value}"
        if params.get("diversity") in ("entropy", "recursive"):  # the variant the release promises
            line += f" --param diversity={params['diversity']}"
            if params.get("c") is not None:
                line += f" --param c={params['c']:g}"
        return "ldiversity", line
    line = f"graphanon audit {input_} {output} --model {model}"
    if k is not None and model in ("km", "transactional", "nonreciprocal", "constraints", "rt"):
        line += f" -k {k}"
    if m is not None and model in ("km", "rt"):
        line += f" -m {m}"
    if model == "rt" and given.get("relational"):
        line += f" --relational {given['relational']} --qi {given['qi']}"
        line += "".join(f" --qi-hierarchy {h}" for h in given.get("qi_hierarchies", ()))
    if model == "tendency" and "categories" in given:
        line += f" --param categories={given['categories']}"
        if given["categories"].startswith("taxonomy-level") and given.get("taxonomy"):
            line += f" --taxonomy {given['taxonomy']}"
    return model, line


def _secret_groups(params: dict | None) -> bool:
    """Whether a release drew its label groups in secret, anew on every run (``nr`` l-diverse, ``cahd``)."""
    params = params or {}
    return bool(params.get("l")) and params.get("l_method", "groups") == "groups" and params.get("grouping") == "random"


def _report(spec, input_, n_records: int, elapsed: float, output, link_out, json_out: bool,
            params: dict | None = None, given: dict | None = None, *,
            exported: tuple[str, ...] | list[str] = (), warnings: tuple[str, ...] | list[str] = ()) -> None:
    model, check = audit_command(spec.privacy_model, input_, output, params, given)
    summary = {"algorithm": spec.name, "input": input_, "records": n_records,
               "seconds": round(elapsed, 3), "output": str(output), "audit_model": model,
               "private_link": None if link_out is None else str(link_out)}
    if exported:
        summary["export"] = list(exported)
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get(DROPPED_LABELS):
        summary["dropped_missing_label"] = ctx.meta[DROPPED_LABELS]
    summary["warnings"] = list(warnings)
    if json_out:
        echo_json(summary)
    else:
        # "released", not "anonymized": what the release guarantees is what `graphanon audit` says
        rows = "rows" if spec.privacy_model == "dp" else "records"  # synthetic rows, or itemsets (privbasis)
        click.echo(f"{spec.name}: {n_records} {rows} released in {elapsed:.2f} s -> {output}")
        if spec.privacy_model == "dp":
            click.echo("an epsilon-DP release: its guarantee is tested, not audited (docs/dp.md)")
        else:
            click.echo(f"check it: {check}")
        if exported:
            from graphanon.cli.export import codebook_lines

            click.echo(f"export for recipients -> {exported[0]}")
            for line in codebook_lines(list(exported[1:])):
                click.echo(line)
        if link_out is not None:
            click.echo(f"private link (never publish it) -> {link_out}")
        if _secret_groups(params) and not (given or {}).get("prior"):
            click.echo(textwrap.fill(f"publishing this data again? add --prior {output} --prior-link "
                                     f"{link_out or 'LINK'} (two independent releases pin labels)", 80,
                                     subsequent_indent="  ", break_long_words=False, break_on_hyphens=False))


def _streams(spec, input_, fmt, scheduler, prior_paths, label) -> bool:
    """Whether the release is written from the workers: ``-a aa --scheduler`` on a Parquet file, no --prior/--label."""
    if spec.stream is None or scheduler is None or prior_paths or label is not None:
        return False
    path = Path(input_)
    return path.is_file() and (fmt == "parquet" or (fmt is None and path.suffix.lower() == ".parquet"))


def _anonymize_streamed(spec, input_, k, m_value, taxonomy, seed, param_dict, output, link_out, json_out,
                        scheduler, tid, item, given) -> None:
    """``anonymize -a aa --scheduler`` on Parquet: the records stay on the workers, the release is written from there.

    The file is the one the in-memory path writes (same cut, parameters and
    fingerprint; rows in a fresh secret order):
    :func:`graphanon.algorithms.hierarchy.aa_dask.write_aa_release`.
    """
    import importlib

    from graphanon import distributed
    from graphanon.cli.registry import RunOptions

    module, _, attribute = spec.stream.partition(":")
    write_aa_release = getattr(importlib.import_module(module), attribute)  # dask: imported only on this path

    m = parse_m(m_value)
    spec.check_options(RunOptions(k=k, m=m, seed=seed, params=param_dict, given=given))  # before any work
    if k is None:
        raise GraphanonError(f"algorithm {spec.name!r} needs -k K")
    if str(param_dict.get("public_taxonomy", "false")).strip().lower() == "true":
        raise GraphanonError("--param public_taxonomy=true is not available when aa streams from the workers (Parquet "
                             "with --scheduler): read the file without --scheduler, or leave public_taxonomy out")
    start = time.perf_counter()
    with progress_bar(show_progress(json_out)) as progress, distributed.connect(scheduler) as client:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        blocks = distributed.read_parquet_blocks(input_, client, tid=tid, item=item, n_partitions=workers,
                                                 record_ids=link_out is not None, progress=progress)
        tax = taxonomy_option(taxonomy, blocks, None)
        if tax is None:
            raise GraphanonError(f"algorithm {spec.name!r} needs a taxonomy: pass --taxonomy FILE or --taxonomy balanced:5")
        tax.check_covers(blocks.items, what=f"{input_}")
        info = write_aa_release(blocks, output, taxonomy=tax, k=k, m=m, client=client,
                                link_out=link_out, progress=progress)
    _report(spec, input_, info["records"], time.perf_counter() - start, output, link_out, json_out,
            {"k": k, "m": parse_m(m_value)})



def given_options(**options) -> frozenset:
    """The general options (k, m, taxonomy, seed, scheduler) given on the command line."""
    return frozenset(name for name, value in options.items() if value is not None)
