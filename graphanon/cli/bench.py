"""``graphanon bench``: run registered algorithms on one input, each timed, audited and evaluated."""

from __future__ import annotations

import time

import click

from graphanon.cli._app import (
    SEED,
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
from graphanon.cli.anonymize import given_options, majority_warning
from graphanon.errors import GraphanonError


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
@relational_options
@input_options
def bench(input_, algorithms, k, m_value, taxonomy, seed, params, queries, json_out, relational, qi, qi_hierarchies,
          categorical, fmt, sep, tid, item, label):
    """Run algorithms on INPUT: time, independent audit and metrics in one report each.

    With several -a every one runs (a list of reports, in the order given),
    each given only the options and --param names it reads, as `graphanon
    compare` gives them (what one is not given is noted; an option or --param
    no chosen algorithm reads is refused); options are checked for every
    algorithm before any runs. Each runs as `graphanon anonymize -a NAME` runs
    it, with the same defaults. For a grid of parameters and datasets with
    plots, see `graphanon compare`. With --relational FILE --qi COLUMNS the
    relational-transaction methods (-a rt, rt-naive) read the joined table
    and also report its relational loss and combined COUNT-query error;
    the others read the items.
    """
    from graphanon.cli.registry import OPTION_FLAGS, RunOptions, get_algorithm
    from graphanon.privacy.rt import RT_MODEL

    names = list(dict.fromkeys(part.strip() for value in algorithms for part in value.split(",") if part.strip()))
    if not names:
        raise GraphanonError("-a: give at least one algorithm name")
    data, bundled = read_input(input_, fmt, sep, tid, item, label)
    tax = taxonomy_option(taxonomy, data, bundled)
    m = parse_m(m_value)
    param_dict = parse_param_pairs(params)
    specs = [get_algorithm(name) for name in names]
    rt_data = _relational_for(specs, data, relational, qi, qi_hierarchies, categorical)
    typed = {"k": k, "m": m_value, "taxonomy": taxonomy}
    if len(specs) > 1:  # several: each is given what it reads (as compare gives it); what none reads is refused
        for option, value in typed.items():
            if value is not None and not any(option in spec.options for spec in specs):
                raise GraphanonError(f"{OPTION_FLAGS[option]}: none of {', '.join(names)} takes {option}; drop it")
        unread = sorted(name for name in param_dict if not any(name in spec.param_names for spec in specs))
        if unread:
            raise GraphanonError(f"--param {', '.join(unread)}: none of {', '.join(names)} takes "
                                 f"{'it' if len(unread) == 1 else 'them'}; drop {'it' if len(unread) == 1 else 'them'}")
    planned = []
    for spec in specs:  # every algorithm's options are checked before anything runs
        if spec.needs_taxonomy and tax is None:
            raise GraphanonError(f"algorithm {spec.name!r} needs a taxonomy: pass --taxonomy FILE or balanced:5")
        # --seed also seeds the query workload, so a deterministic method is not refused for it
        run_seed = seed if "seed" in spec.options else None
        several = len(specs) > 1
        reads = {option: value for option, value in typed.items() if not several or option in spec.options}
        dropped = [OPTION_FLAGS[option] for option, value in typed.items() if value is not None and option not in reads]
        own = {name: text for name, text in param_dict.items() if not several or name in spec.param_names}
        dropped += [f"--param {name}" for name in param_dict if name not in own]
        if dropped and not json_out:
            click.echo(f"note: {spec.name}: takes no {', '.join(dropped)}; run without "
                       f"{'it' if len(dropped) == 1 else 'them'}", err=True)
        typed_here = dict(reads)
        if several and not spec.needs_taxonomy:  # as compare: there, read only where its --param asks (COAT)
            typed_here.pop("taxonomy", None)
        given = given_options(**typed_here, seed=run_seed)
        opts = RunOptions(k=reads.get("k"), m=m if "m" in reads else None,
                          taxonomy=tax if "taxonomy" in reads or taxonomy is None else None,
                          seed=run_seed, params=own, given=given)
        try:
            spec.check_options(opts, audit=True)  # bench audits every release
        except GraphanonError as exc:
            raise type(exc)(f"{exc}" if len(names) == 1 else f"-a {spec.name}: {exc}") from None
        planned.append((spec, opts))
    results = []
    for spec, opts in planned:
        with progress_bar(show_progress(json_out)) as progress:
            opts.progress = progress
            source = rt_data if spec.privacy_model == RT_MODEL.name else data
            results.append(_bench_one(spec, data, opts, input_, opts.k, opts.m, opts.params, queries, seed,
                                      source=source))
    echo_json(results[0] if len(results) == 1 else results, indent=None if json_out else 2)


def _relational_for(specs, data, relational, qi, qi_hierarchies, categorical):
    """``bench``'s ``--relational``: the joined data when some method reads it.

    Refused when no chosen method reads it, or when one that needs it has none.
    """
    from graphanon.privacy.rt import RT_MODEL

    readers = [spec.name for spec in specs if spec.privacy_model == RT_MODEL.name]
    if readers and relational is None:
        raise GraphanonError(f"-a {readers[0]} needs --relational FILE --qi COLUMNS (relational-transaction data)")
    if relational is not None and not readers:
        raise GraphanonError(f"--relational: {', '.join(spec.name for spec in specs)} read transactions only; "
                             "use -a rt (or rt-naive)")
    return read_relational(data, relational, qi, qi_hierarchies, categorical)


def _bench_one(spec, data, opts, input_, k, m, param_dict, queries, seed, *, source=None) -> dict:
    """Run, audit and evaluate one algorithm for ``graphanon bench`` (``source``: what it reads, default ``data``)."""
    from graphanon.metrics.evaluate import evaluate_release
    from graphanon.privacy.registry import build_model

    source = data if source is None else source
    start = time.perf_counter()
    release = spec.run(source, opts)
    seconds = time.perf_counter() - start
    audit_params = {name: value for name, value in param_dict.items() if name in spec.audit_params}
    model = build_model(spec.privacy_model, k=k, m=m, params=audit_params, original=data)
    report = model.audit(source, release)
    # the parameters the release was made with (e.g. cahd's l and group size), not only the flags
    used = release.params
    result = {"algorithm": spec.name, "input": input_, "k": used.get("k", k), "m": used.get("m", m),
              "params": used, "seconds": round(seconds, 3),
              "audit": {"model": report.model, "satisfied": report.satisfied, "violations": report.violations}}
    if spec.privacy_model == "ldiversity" and used.get("k"):  # the k an l-diverse release claims, audited too
        report = build_model("nonreciprocal", k=used["k"], m=None, params={}, original=data).audit(data, release)
        result["audit_k"] = {"model": report.model, "satisfied": report.satisfied, "violations": report.violations}
    result["metrics"] = evaluate_release(data, release, queries=queries, rng=seed or 0)
    if source is not data:  # the relational side: GCP and the combined QI-and-item COUNT queries
        from graphanon.metrics.rtviews import rt_utility

        result["metrics"].update(rt_utility(source, release, queries=queries, rng=seed or 0))
    from graphanon.metrics.caveats import release_warnings

    result["warnings"] = [w.message for w in release_warnings(data, release, advice=spec.release_advice(),
                                                              taxonomy=opts.taxonomy)]
    if (majority := majority_warning(data, release)) is not None:
        result["warnings"].append(majority)
    return result
