"""``graphanon anonymize`` and ``graphanon bench``: run a registered algorithm."""

from __future__ import annotations

import time
from pathlib import Path

import click

from graphanon.cli._app import (
    RELEASE_SUFFIXES,
    SEED,
    check_output,
    dumps_json,
    echo_json,
    input_options,
    main,
    parse_m,
    parse_param_pairs,
    progress_bar,
    read_input,
    show_progress,
    taxonomy_option,
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
              help="Release file (.json or .json.gz): safe to publish.")
@click.option("--link-out", "link_out", default=None, type=click.Path(dir_okay=False),
              help="Also write the PRIVATE link (record -> published row) here; never publish it.")
@click.option("--prior", "prior_paths", multiple=True, type=click.Path(dir_okay=False),
              help="An earlier release of INPUT (repeatable): the new release composes with it and still meets "
                   "its model (nr, cahd reuse the prior's rows; cut, aa, hghs, mhghs coarsen to the priors' "
                   "common refinement); refused when it cannot.")
@click.option("--prior-link", "prior_link_paths", multiple=True, type=click.Path(dir_okay=False),
              help="The PRIVATE link of each --prior, in the same order (nr, cahd need it).")
@click.option("--json", "json_out", is_flag=True, help="Print a JSON summary.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the method's distributed part on Dask (nr: the Gray-TSP segments; aa: its support counting; "
                   "partition: the sub-partitions; clump: its similarity graph): a scheduler address "
                   "(tcp://host:8786) or local:N for N local workers; the release equals the one-process release. "
                   "aa on a Parquet INPUT (without --prior or --label) keeps the records on the workers and writes "
                   "the release (and --link-out) from there: this process never holds them (docs/scale.md).")
@input_options
def anonymize(input_, algorithm, k, m_value, taxonomy, seed, params, output, link_out, prior_paths, prior_link_paths,
              json_out, scheduler, fmt, sep, tid, item, label):
    """Anonymize INPUT with an algorithm and save the release (rows shuffled, pseudonyms, no ids)."""
    from graphanon.cli.registry import RunOptions, get_algorithm

    if link_out is not None and Path(link_out).resolve() == Path(output).resolve():
        raise GraphanonError(f"--link-out {link_out} is the release file: the private link needs a file of its own")
    spec = get_algorithm(algorithm)
    param_dict = parse_param_pairs(params)
    check_output(output, input_, taxonomy, *prior_paths, *prior_link_paths, params=param_dict,
                 suffixes=RELEASE_SUFFIXES)
    if link_out is not None:
        check_output(link_out, input_, taxonomy, *prior_paths, *prior_link_paths, params=param_dict,
                     option="--link-out")
    given = given_options(k=k, m=m_value, taxonomy=taxonomy, seed=seed, scheduler=scheduler)
    if _streams(spec, input_, fmt, scheduler, prior_paths, label):
        _anonymize_streamed(spec, input_, k, m_value, taxonomy, seed, param_dict, output, link_out, json_out,
                            scheduler, tid, item, given)
        return
    data, bundled = read_input(input_, fmt, sep, tid, item, label)
    priors = _read_priors(spec, data, prior_paths, prior_link_paths)
    if priors:
        _refuse_unused_with_priors(spec, seed, param_dict)
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
    with progress_bar(show_progress(json_out)) as progress:
        opts = RunOptions(k=k, m=parse_m(m_value), taxonomy=tax, seed=seed,
                          params=param_dict, progress=progress, given=given, priors=priors)
        spec.check_options(opts)
        if scheduler is None:
            release = spec.run(data, opts)
        else:
            from graphanon import distributed

            with distributed.connect(scheduler) as client:
                opts.client = client
                release = spec.run(data, opts)
    elapsed = time.perf_counter() - start
    _verify_claim(spec, data, release, opts)
    if priors:
        _verify_composition(data, release, priors)
    release.save(output)
    if link_out is not None:
        release.link.save(link_out)
    _report(spec, input_, release.n_records, elapsed, output, link_out, json_out)


def _report(spec, input_, n_records: int, elapsed: float, output, link_out, json_out: bool) -> None:
    summary = {"algorithm": spec.name, "input": input_, "records": n_records,
               "seconds": round(elapsed, 3), "output": str(output), "audit_model": spec.privacy_model,
               "private_link": None if link_out is None else str(link_out)}
    if json_out:
        echo_json(summary)
    else:
        # "released", not "anonymized": what the release guarantees is what `graphanon audit` says
        click.echo(f"{spec.name}: {n_records} records released in {elapsed:.2f} s -> {output} "
                   f"(check it with graphanon audit --model {spec.privacy_model})")
        if link_out is not None:
            click.echo(f"private link (never publish it) -> {link_out}")


def _streams(spec, input_, fmt, scheduler, prior_paths, label) -> bool:
    """Whether the release is written from the workers: ``-a aa --scheduler`` on a Parquet file, no --prior/--label."""
    if spec.name != "aa" or scheduler is None or prior_paths or label is not None:
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
    from graphanon import distributed
    from graphanon.algorithms.hierarchy.aa_dask import write_aa_release
    from graphanon.cli.registry import RunOptions

    m = parse_m(m_value)
    spec.check_options(RunOptions(k=k, m=m, seed=seed, params=param_dict, given=given))  # before any work
    if k is None:
        raise GraphanonError(f"algorithm {spec.name!r} needs -k K")
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
    _report(spec, input_, info["records"], time.perf_counter() - start, output, link_out, json_out)



def given_options(**options) -> frozenset:
    """The general options (k, m, taxonomy, seed, scheduler) given on the command line."""
    return frozenset(name for name, value in options.items() if value is not None)


def _read_priors(spec, data, prior_paths, prior_link_paths):
    """``--prior`` releases (fingerprints checked against INPUT) with their ``--prior-link`` files, or None."""
    if not prior_paths:
        if prior_link_paths:
            raise GraphanonError("--prior-link goes with --prior (the private link of each prior release)")
        return None
    from graphanon.algorithms.prior import PRIOR_METHODS, Prior, prior_methods_text
    from graphanon.release import check_same_data, load_link, load_release

    if spec.name not in PRIOR_METHODS:
        raise GraphanonError(f"--prior: algorithm {spec.name!r} cannot compose a release with earlier ones; "
                             f"--prior works with {prior_methods_text()}")
    reuse = PRIOR_METHODS[spec.name].startswith("reuses")
    if prior_link_paths and not reuse:
        raise GraphanonError(f"--prior-link: algorithm {spec.name!r} coarsens to the priors' published recodings "
                             "and reads no private link; drop --prior-link")
    if reuse and len(prior_link_paths) != len(prior_paths):
        raise GraphanonError(f"--prior: algorithm {spec.name!r} reuses each prior's rows and needs its private link: "
                             f"give one --prior-link per --prior ({len(prior_paths)} prior(s), "
                             f"{len(prior_link_paths)} link(s))")
    from graphanon.algorithms.prior import data_changed

    priors = []
    for i, path in enumerate(prior_paths):
        release = load_release(path)
        prior = Prior(release, load_link(prior_link_paths[i]) if reuse else None)
        if not (reuse and data_changed(data, [prior])):  # changed data: the prior's records are checked by id
            try:
                check_same_data(data, release)
            except GraphanonError as exc:
                raise type(exc)(f"--prior {path}: {exc}") from None
        priors.append(prior)
    return priors


def _refuse_unused_with_priors(spec, seed, param_dict) -> None:
    """A method that reuses its prior's rows runs nothing: options other than its level would be ignored."""
    from graphanon.algorithms.prior import PRIOR_METHODS

    if not PRIOR_METHODS[spec.name].startswith("reuses"):
        return
    unused = (["--seed"] if seed is not None else []) + [f"--param {name}" for name in param_dict if name != "l"]
    if unused:
        raise GraphanonError(f"{', '.join(unused)}: with --prior, {spec.name!r} reuses the prior's rows and runs "
                             f"nothing these would change; drop {'it' if len(unused) == 1 else 'them'}")


def _verify_composition(data, release, priors) -> None:
    """Audit the new release with its priors (joint audit) for every level its params claim.

    Refuse a composition that fails (nothing is written).
    """
    from graphanon.privacy import KmAnonymity, LDiversity, NonreciprocalKAnonymity
    from graphanon.privacy.joint import JointAudit

    params = release.params
    if release.kind == "nonreciprocal":
        models = [NonreciprocalKAnonymity(params["k"])] if params.get("k") else []
        if params.get("l"):
            models.append(LDiversity(params["l"]))
    else:
        models = [KmAnonymity(params["k"], params.get("m"))] if params.get("k") else []
    from graphanon.algorithms.prior import data_changed

    # releases of changed data: each release's records by its private link's ids (only the ids are read)
    links = [p.private_link for p in priors] + [release.link] if data_changed(data, priors) else None
    for model in models:
        report = JointAudit(model).audit(data, [p.release for p in priors] + [release], max_examples=1,
                                         check_data=False, links=links)
        if not report.satisfied:
            raise GraphanonError(f"the release composed with its priors fails {report.model}: {report.violations} "
                                 f"violation(s), e.g. {dumps_json(report.worst)}; nothing written")


def _verify_claim(spec, data, release, opts) -> None:
    """Audit the release of a method with no guarantee by construction (``spec.verify``) against the ``-k``/``-m`` it claims; refuse a violating one unless ``--param force=true``."""
    if not spec.verify or opts.k is None:
        return
    from graphanon.privacy.registry import build_model

    model = build_model(spec.privacy_model, k=opts.k, m=opts.m, params={}, original=data)
    report = model.audit(data, release, max_examples=1)
    if report.satisfied:
        return
    example = report.worst or (report.counterexamples[0] if report.counterexamples else {})
    example = ", e.g. " + dumps_json(example) if example else ""
    what = f"{report.model} fails: {report.violations} violation(s){example}"
    if not spec.parse_params(opts.params)["force"]:
        raise GraphanonError(f"{what}; nothing written. Publish a coarser cut or suppress more, "
                             "or pass --param force=true to write it anyway")
    release.params["audit"] = {"model": report.model, "satisfied": False, "violations": report.violations}
    click.echo(f"graphanon: WARNING: {what}; written anyway (--param force=true)", err=True)



@main.command()
@click.argument("input_", metavar="INPUT")
@click.option("-a", "--algorithm", "algorithms", required=True, multiple=True,
              help="Algorithm name; repeat -a (or separate names by commas) to run several, each reported.")
@click.option("-k", type=int, default=None)
@click.option("-m", "m_value", default=None)
@click.option("--taxonomy", default=None)
@click.option("--seed", type=SEED, default=None)
@click.option("--param", "params", multiple=True)
@click.option("--queries", default=200, show_default=True, type=click.IntRange(min=0))
@click.option("--json", "json_out", is_flag=True)
@input_options
def bench(input_, algorithms, k, m_value, taxonomy, seed, params, queries, json_out, fmt, sep, tid, item, label):
    """Run algorithms on INPUT: time, independent audit and metrics in one report each.

    With several -a every one runs (a list of reports, in the order given);
    options are checked for every algorithm before any runs. For a grid of
    parameters and datasets with plots, see `graphanon compare`.
    """
    from graphanon.cli.registry import RunOptions, get_algorithm

    names = list(dict.fromkeys(part.strip() for value in algorithms for part in value.split(",") if part.strip()))
    if not names:
        raise GraphanonError("-a: give at least one algorithm name")
    data, bundled = read_input(input_, fmt, sep, tid, item, label)
    tax = taxonomy_option(taxonomy, data, bundled)
    m = parse_m(m_value)
    param_dict = parse_param_pairs(params)
    planned = []
    for name in names:  # every algorithm's options are checked before anything runs
        spec = get_algorithm(name)
        if spec.needs_taxonomy and tax is None:
            raise GraphanonError(f"algorithm {spec.name!r} needs a taxonomy: pass --taxonomy FILE or balanced:5")
        # --seed also seeds the query workload, so a deterministic method is not refused for it
        run_seed = seed if "seed" in spec.options else None
        given = given_options(k=k, m=m_value, taxonomy=taxonomy, seed=run_seed)
        opts = RunOptions(k=k, m=m, taxonomy=tax, seed=run_seed, params=param_dict, given=given)
        try:
            spec.check_options(opts)
        except GraphanonError as exc:
            raise type(exc)(f"{exc}" if len(names) == 1 else f"-a {spec.name}: {exc}") from None
        planned.append((spec, opts))
    results = []
    for spec, opts in planned:
        with progress_bar(show_progress(json_out)) as progress:
            opts.progress = progress
            results.append(_bench_one(spec, data, opts, input_, k, m, param_dict, queries, seed))
    echo_json(results[0] if len(results) == 1 else results, indent=None if json_out else 2)


def _bench_one(spec, data, opts, input_, k, m, param_dict, queries, seed) -> dict:
    """Run, audit and evaluate one algorithm for ``graphanon bench``."""
    from graphanon.metrics.evaluate import evaluate_release
    from graphanon.privacy.registry import build_model

    start = time.perf_counter()
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
    result["metrics"] = evaluate_release(data, release, queries=queries, rng=seed or 0)
    return result
