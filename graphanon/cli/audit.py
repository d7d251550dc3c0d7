"""``graphanon audit`` and ``graphanon evaluate``: check and measure a release against its data."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from graphanon.cli._app import (
    EXIT_VIOLATED,
    SEED,
    check_data,
    echo_json,
    echo_note,
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
from graphanon.errors import GraphanonError


@main.command()
@click.argument("input_", metavar="INPUT")
@click.argument("release_paths", metavar="RELEASE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", default=None,
              help="Privacy model of the syntactic releases: km, transactional, constraints, hkp, nonreciprocal, "
                   "ldiversity, rt, ... (not needed when every RELEASE is differentially private).")
@click.option("-k", type=int, default=None)
@click.option("-m", "m_value", default=None, help="A number, or inf (default: inf).")
@click.option("--param", "params", multiple=True, help="Model option name=value (repeatable).")
@click.option("--taxonomy", default=None,
              help="Taxonomy for --param categories=taxonomy-level:D (tendency model), or the item taxonomy whose "
                   "overlapping published labels the rt model reports: a file, balanced:FANOUT[:SEED] or a bundled "
                   "name (default: INPUT's bundled taxonomy).")
@click.option("--json", "json_out", is_flag=True)
@click.option("--examples", default=10, show_default=True, type=click.IntRange(min=0),
              help="Counter-examples to report.")
@click.option("--allow-mismatch", is_flag=True, help="Audit even when the release was not made from INPUT.")
@click.option("--link", "link_paths", multiple=True, type=click.Path(dir_okay=False),
              help="PRIVATE link file from `anonymize --link-out`: with one RELEASE, audit each record against its "
                   "own row (refused when the link was not made with RELEASE); with several, one --link per "
                   "RELEASE in the same order says which records of INPUT each was made from (releases of "
                   "changing data) and verifies that each was made from them.")
@click.option("--ledger", default=None, type=click.Path(dir_okay=False),
              help="PRIVATE budget ledger (`anonymize --ledger`): differentially private RELEASEs are accounted "
                   "from it -- the composed epsilon of every DP release of INPUT it records (docs/dp.md).")
@click.option("--budget", type=float, default=None,
              help="With --ledger: exit 1 when the composed epsilon of INPUT's DP releases exceeds B.")
@click.option("--exact-seconds", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S",
              help="Several nonreciprocal RELEASEs: time budget of the joint audit's exact step (CP-SAT), default "
                   "300; past it the records left are reported not proven (exit 1), never satisfied.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Count on Dask: a scheduler address (tcp://host:8786) or local:N for N local workers "
                   "(needs graphanon[dask]; km and transactional models).")
@relational_options
@input_options
def audit(input_, release_paths, model, k, m_value, params, taxonomy, json_out, examples, allow_mismatch, link_paths,
          ledger, budget, exact_seconds, scheduler, relational, qi, qi_hierarchies, categorical, fmt, sep, tid, item,
          label):
    """Audit RELEASE against INPUT for a privacy model (exit 1 when violated).

    Several releases of INPUT audit the adversary who reads them all (joint audit, see docs/privacy.md,
    "Publishing more than once"); every release must have been made from INPUT, or, with one --link per
    release, from the records of INPUT under its link's record ids (docs/updates.md).

    Differentially private releases are accounted, not audited: with --ledger, the composed epsilon of every
    DP release of INPUT the ledger records is reported, each release named; the syntactic releases among
    RELEASE are audited by --model, and the output says what the mix does and does not guarantee
    (docs/dp.md, "Mixing DP and syntactic releases").
    """
    from graphanon.release import load_release
    from graphanon.release.ledger import is_dp_release

    data, bundled = read_input(input_, fmt, sep, tid, item, label)
    if relational is not None and model != "rt":
        raise GraphanonError("--relational describes relational-transaction data: it goes with --model rt")
    # the (k, k^m) verdict is a property of the published rows; the table is read to check that it joins INPUT,
    # and, with --link, to check each row against its own record's QI values and items
    audited = read_relational(data, relational, qi, qi_hierarchies, categorical)
    if model == "rt" and link_paths and relational is None:
        raise GraphanonError("--model rt --link checks each row against its record's QI values: give the table "
                             "with --relational FILE --qi COLUMNS")
    releases = [load_release(path) for path in release_paths]
    private = [(path, rel) for path, rel in zip(release_paths, releases, strict=True) if is_dp_release(rel)]
    if budget is not None and ledger is None:
        raise GraphanonError("--budget needs --ledger FILE (the private ledger that records what was spent)")
    if exact_seconds is not None and len(releases) < 2:
        raise GraphanonError("--exact-seconds bounds the joint audit of several RELEASEs; give two or more, or drop it")
    if not private:
        if ledger is not None:
            raise GraphanonError("--ledger: no RELEASE is differentially private (none states an epsilon); the "
                                 "ledger accounts DP releases only -- drop it")
        report, notes = _audit_syntactic(data, bundled, releases, release_paths, model, k, m_value, params,
                                         taxonomy, json_out, examples, allow_mismatch, link_paths, scheduler,
                                         exact_seconds, audited=audited)
        _print_report(report, json_out, notes)
        sys.exit(0 if report.satisfied else EXIT_VIOLATED)
    if ledger is None:
        raise GraphanonError(f"{private[0][0]} is differentially private: DP releases are accounted from the "
                             "private budget ledger, not audited -- give --ledger FILE (the one `anonymize "
                             "--ledger` wrote)")
    syntactic = [(path, rel) for path, rel in zip(release_paths, releases, strict=True) if not is_dp_release(rel)]
    if not syntactic:
        refused = [flag for flag, value in (("--model", model), ("-k", k), ("-m", m_value), ("--link", link_paths),
                                            ("--scheduler", scheduler)) if value]
        if refused:
            raise GraphanonError(f"{', '.join(refused)}: every RELEASE is differentially private (accounted from "
                                 f"the ledger, not audited by a model); drop {'it' if len(refused) == 1 else 'them'}")
    from graphanon.release.ledger import BudgetLedger

    if not Path(ledger).is_file():
        raise GraphanonError(f"--ledger {ledger}: no such file (give the ledger `anonymize --ledger` wrote)")
    accounting = BudgetLedger.open(ledger).account(data, private)
    report, notes = None, []
    if syntactic:
        report, notes = _audit_syntactic(data, bundled, [r for _, r in syntactic], [p for p, _ in syntactic], model,
                                         k, m_value, params, taxonomy, json_out, examples, allow_mismatch,
                                         link_paths, scheduler, exact_seconds)
    over = budget is not None and accounting.composed > budget + 1e-9
    holds, not_holds = _guarantees(accounting, report, [p for p, _ in syntactic])
    if over:
        not_holds.insert(0, f"--budget {budget:g}: the composed epsilon {accounting.composed:g} exceeds it")
    satisfied = (report is None or report.satisfied) and not over
    if json_out:
        echo_json({"satisfied": satisfied, "dp": {"ledger": str(ledger), **accounting.to_dict(),
                                                  **({"budget": budget} if budget is not None else {})},
                   "syntactic": None if report is None else {"releases": [p for p, _ in syntactic],
                                                             **report.to_dict()},
                   "guaranteed": holds, "not_guaranteed": not_holds, **({"data_verified": False} if notes else {})})
    else:
        _print_accounting(accounting, ledger)
        if report is not None:
            click.echo(f"syntactic release{'s' if len(syntactic) > 1 else ''} "
                       f"({', '.join(p for p, _ in syntactic)}):")
            click.echo(str(report))
        for label_, lines in (("guaranteed", holds), ("not guaranteed", not_holds)):
            for line in lines:
                _echo_wrapped(f"{label_}: {line}")
        for note in notes:
            echo_note(note)
    sys.exit(0 if satisfied else EXIT_VIOLATED)


def _echo_wrapped(text: str, indent: str = "  ") -> None:
    import textwrap

    click.echo(textwrap.fill(text, 80, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False))


def _print_accounting(accounting, ledger) -> None:
    """The composed epsilon, each named DP release with its epsilon, and the ledger's other entries of the data."""
    n = len(accounting.recorded) + sum(g["status"] == "unaccounted" for g in accounting.given)
    bound = "at least " if accounting.lower_bound else ""
    _echo_wrapped(f"differential privacy (ledger {ledger}): composed epsilon = {bound}{accounting.composed:g} over "
                  f"{n} release{'' if n == 1 else 's'} of this data (sequential composition)")
    for g in accounting.given:
        state = (f"in the ledger (matched by {g['matched']})" if g["status"] == "recorded"
                 else f"UNACCOUNTED: {g['why']}")
        _echo_wrapped(f"  {g['path']}: {g['algorithm']} epsilon={g['epsilon']:g} -- {state}", "      ")
    for e in accounting.recorded:
        if not e["given"]:
            _echo_wrapped(f"  recorded, not named here: {e['algorithm']} epsilon={e['epsilon']:g} -> "
                          f"{e['output'] or '?'} ({e['time'] or 'no time'})", "      ")
    if accounting.lower_bound:
        _echo_wrapped("  the composed epsilon is a LOWER BOUND: an unaccounted release's stated epsilon is added, "
                      "and other releases may have escaped the ledger too", "      ")


def _guarantees(accounting, report, syntactic_paths) -> tuple[list[str], list[str]]:
    """What the releases together do and do not guarantee (docs/dp.md, "Mixing DP and syntactic releases")."""
    eps = f"{'at least ' if accounting.lower_bound else ''}{accounting.composed:g}"
    holds, not_holds = [], []
    if report is None:
        if accounting.lower_bound:
            not_holds.append(f"no epsilon can be stated: the DP releases of this data compose to {eps}, and "
                             "releases outside the ledger are unknown")
        else:
            holds.append(f"the DP releases of this data in the ledger are together {eps}-differentially private "
                         "(add/remove one record; sequential composition)")
    else:
        if report.satisfied:
            holds.append(f"the syntactic release{'s meet' if len(syntactic_paths) > 1 else ' meets'} "
                         f"{report.model} (audited on INPUT)")
        else:
            not_holds.append(f"the syntactic release{'s violate' if len(syntactic_paths) > 1 else ' violates'} "
                             f"{report.model} (see above)")
        holds.append(f"the DP releases add a privacy loss of {eps} (composed) on top of what the syntactic "
                     "releases reveal")
        not_holds.append("the releases together are NOT epsilon-DP for any epsilon: a syntactic release publishes "
                         "exact counts of the records, which DP would hide")
    not_holds.append("releases made without this ledger, and releases of overlapping but unequal data (a subset, "
                     "a later extract), are not counted: add them by hand")
    return holds, not_holds


def _audit_syntactic(data, bundled, releases, release_paths, model, k, m_value, params, taxonomy, json_out,
                     examples, allow_mismatch, link_paths, scheduler, exact_seconds=None, audited=None):
    """The audit of syntactic releases by ``--model`` (one, or jointly): ``(report, notes)``.

    ``audited`` is what the model reads as the original (default ``data``): the
    relational-transaction data for ``--model rt`` with ``--relational``;
    ``exact_seconds`` bounds the joint audit's exact step.
    """
    from graphanon.privacy.registry import build_model

    if model is None:
        raise GraphanonError("--model is required to audit a syntactic release (km, transactional, constraints, "
                             "hkp, nonreciprocal, ldiversity, ...)")
    if len(releases) > 1 and link_paths and _changing_data(data, link_paths):
        return _audit_changing(data, releases, release_paths, link_paths, model, k, m_value, params, json_out,
                               examples, allow_mismatch, scheduler, exact_seconds), []
    from graphanon.release.private_link import attach_link, load_private_link

    links = [None] * len(releases)
    if link_paths:
        if len(releases) > 1 and len(link_paths) != len(releases):
            raise GraphanonError(f"{len(link_paths)} --link for {len(releases)} releases: the joint audit reads what "
                                 "the adversary reads and takes the links only to verify each release's data; give "
                                 "one --link per RELEASE, in their order, or none")
        if len(releases) == 1 and len(link_paths) > 1:
            raise GraphanonError(f"{len(link_paths)} --link for one release: give its own private link once")
        links = [load_private_link(path) for path in link_paths]
        if len(releases) == 1:  # the audit of one release checks each record against its own row
            attach_link(releases[0], links[0])
    notes = []
    if not allow_mismatch:
        for path, release, link in zip(release_paths, releases, links, strict=True):
            notes.append(check_data(data, release, link=link, name=path if len(releases) > 1 else None))
    notes = [n for n in notes if n]
    param_dict = parse_param_pairs(params)
    tax = None
    if taxonomy is not None or param_dict.get("categories", "").startswith("taxonomy-level"):
        tax = taxonomy_option(taxonomy, data, bundled)
    privacy_model = build_model(model, k=k, m=parse_m(m_value), params=param_dict, original=data, taxonomy=tax)
    if len(releases) > 1:
        from graphanon.privacy.joint import JointAudit

        if scheduler is not None:
            raise GraphanonError("--scheduler runs the audit of one release; the joint audit of several runs in "
                                 "one process (drop --scheduler)")
        joint = JointAudit(privacy_model, **_budget(exact_seconds))
        with progress_bar(show_progress(json_out)) as progress:
            report = joint.audit(data, releases, max_examples=examples, progress=progress, check_data=False)
        return report, notes
    release = releases[0]
    with progress_bar(show_progress(json_out)) as progress:
        if scheduler is None:
            report = privacy_model.audit(data if audited is None else audited, release, max_examples=examples,
                                         progress=progress)
        else:
            report = _audit_on_dask(privacy_model, model, scheduler, data, release, examples, progress)
    return report, notes


def _changing_data(data, link_paths) -> bool:
    """Whether some link names other records (by id) than INPUT holds: releases of data that changed."""
    from graphanon.release.private_link import load_private_link

    ids = set(data.record_ids)
    return any(set(getattr(load_private_link(path), "record_ids", ids)) != ids for path in link_paths)


def _budget(exact_seconds) -> dict:
    """``JointAudit``'s ``budget`` for ``--exact-seconds`` (its default when not given)."""
    return {} if exact_seconds is None else {"budget": float(exact_seconds)}


def _audit_changing(data, releases, release_paths, link_paths, model, k, m_value, params, json_out, examples,
                    allow_mismatch, scheduler, exact_seconds=None):
    """The joint audit of releases of changing data: each release's records are INPUT's under its link's ids."""
    from graphanon.privacy.joint import JointAudit
    from graphanon.privacy.registry import build_model
    from graphanon.release.private_link import attach_link, load_private_link

    if len(link_paths) != len(releases):
        raise GraphanonError(f"--link: give one private link per RELEASE, in the same order ({len(releases)} "
                             f"releases, {len(link_paths)} links), or none when every release was made from INPUT")
    if scheduler is not None:
        raise GraphanonError("--scheduler runs the audit of one release; the joint audit of several runs in "
                             "one process (drop --scheduler)")
    links = []
    for lpath, release in zip(link_paths, releases, strict=True):
        try:
            link = load_private_link(lpath)
            attach_link(release, link)  # checks the link was written with this release
        except GraphanonError as exc:
            raise type(exc)(f"--link {lpath}: {exc}") from None
        release.link = None  # the adversary has no link: only its record ids say who is in the release
        links.append(link)
    privacy_model = build_model(model, k=k, m=parse_m(m_value), params=parse_param_pairs(params), original=data)
    with progress_bar(show_progress(json_out)) as progress:
        try:
            report = JointAudit(privacy_model, **_budget(exact_seconds)).audit(data, releases, links=links, max_examples=examples,
                                                     progress=progress, check_data=not allow_mismatch)
        except GraphanonError as exc:  # name the file of "release i"
            text = str(exc)
            for i, path in enumerate(release_paths, 1):
                text = text.replace(f"release {i}: ", f"{path}: ", 1) if text.startswith(f"release {i}: ") else text
            raise type(exc)(text) from None
    return report


def _print_report(report, json_out: bool, notes: list) -> None:
    """The report; a release whose data could not be verified says so (``data_verified`` in JSON, else a note)."""
    if json_out:
        echo_json({**report.to_dict(), **({"data_verified": False} if notes else {})})
    else:
        click.echo(str(report))
        for note in notes:
            echo_note(note)


def _audit_on_dask(privacy_model, model: str, scheduler: str, data, release, examples: int, progress):
    """The audit with ``client=`` a Dask client for ``--scheduler`` (closed afterwards)."""
    import inspect

    from graphanon.distributed import connect
    from graphanon.errors import ParameterError

    if "client" not in inspect.signature(privacy_model.audit).parameters:
        raise ParameterError(f"--scheduler runs the km and transactional audits on Dask; the {model!r} audit runs "
                             "in one process "
                             "(drop --scheduler)")
    with connect(scheduler) as client:
        return privacy_model.audit(data, release, max_examples=examples, progress=progress, client=client)


@main.command()
@click.argument("input_", metavar="INPUT")
@click.argument("release_path", metavar="RELEASE", type=click.Path(dir_okay=False))
@click.option("--queries", default=1000, show_default=True, type=click.IntRange(min=0),
              help="COUNT queries in the workload (0: none).")
@click.option("-q", "q", default=2, show_default=True, type=click.IntRange(min=1), help="Items per query.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Workload seed.")
@click.option("--link", "link_path", default=None, type=click.Path(dir_okay=False),
              help="PRIVATE link file from `anonymize --link-out`, for metrics that need each record's own row.")
@click.option("--allow-mismatch", is_flag=True, help="Evaluate even when the release was not made from INPUT.")
@click.option("--json", "json_out", is_flag=True)
@relational_options
@input_options
def evaluate(input_, release_path, queries, q, seed, link_path, allow_mismatch, json_out, relational, qi,
             qi_hierarchies, categorical, fmt, sep, tid, item, label):
    """Measure the utility of RELEASE against INPUT.

    Each metric is printed with its direction (lower or higher is better),
    its unit and one line of meaning; --json carries the same in a
    "meaning" map beside the metrics (docs/metrics.md: the definitions, and
    how to read metrics that rank methods differently). A relational release
    with its table (--relational FILE --qi COLUMNS) also gets its relational
    loss (rt_gcp, rt_ncp_QI) and the error of COUNT queries on QI ranges and
    items (rt_query_error).
    """
    from graphanon.metrics.evaluate import evaluate_release
    from graphanon.metrics.meaning import describe_metrics
    from graphanon.release import load_release
    from graphanon.release.private_link import attach_link, load_private_link

    data, _ = read_input(input_, fmt, sep, tid, item, label)
    release = load_release(release_path)
    link = None if link_path is None else load_private_link(link_path)
    if link is not None:
        attach_link(release, link)
    note = None if allow_mismatch else check_data(data, release)
    rt_data = read_relational(data, relational, qi, qi_hierarchies, categorical)
    if relational is not None and release.kind != "relational":
        raise GraphanonError(f"--relational: {release_path} is a {release.kind} release, which publishes no "
                             "demographics; drop --relational")
    result = evaluate_release(data, release, queries=queries, q=q, rng=seed, link=link, allow_mismatch=True)
    if relational is not None:
        from graphanon.metrics.rtviews import rt_utility

        result.update(rt_utility(rt_data, release, queries=queries, q=q, rng=seed))
    meaning = describe_metrics(result)
    if json_out:
        echo_json({**result, "meaning": meaning, **({"data_verified": False} if note else {})})
        return
    import textwrap

    arrow = {"lower": "lower is better", "higher": "higher is better", "context": ""}
    for key, value in result.items():
        if key == "needs_link":
            for metric in value:
                click.echo(f"{metric:>22}: needs the private link (--link FILE from anonymize --link-out)")
            continue
        text = f"{value:.6g}" if isinstance(value, float) else str(value)
        about = meaning.get(key)
        if about is None:
            click.echo(f"{key:>22}: {text}")
            continue
        direction = arrow[about["direction"]]
        click.echo(f"{key:>22}: {text:<12}{'  ' + direction if direction else ''}".rstrip())
        if about["direction"] != "context":
            click.echo(textwrap.fill(f"{about['meaning']}; unit: {about['unit']}", 79, initial_indent=" " * 24,
                                     subsequent_indent=" " * 24))
    echo_note(note)
