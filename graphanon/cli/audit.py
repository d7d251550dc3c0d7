"""``graphanon audit`` and ``graphanon evaluate``: check and measure a release against its data."""

from __future__ import annotations

import sys

import click

from graphanon.cli._app import (
    EXIT_VIOLATED,
    SEED,
    echo_json,
    input_options,
    main,
    parse_m,
    parse_param_pairs,
    progress_bar,
    read_input,
    show_progress,
)
from graphanon.errors import GraphanonError


@main.command()
@click.argument("input_", metavar="INPUT")
@click.argument("release_paths", metavar="RELEASE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", required=True, help="Privacy model: km, transactional, constraints, hkp, nonreciprocal, ldiversity, ...")
@click.option("-k", type=int, default=None)
@click.option("-m", "m_value", default=None, help="A number, or inf (default: inf).")
@click.option("--param", "params", multiple=True, help="Model option name=value (repeatable).")
@click.option("--json", "json_out", is_flag=True)
@click.option("--examples", default=10, show_default=True, type=click.IntRange(min=0),
              help="Counter-examples to report.")
@click.option("--allow-mismatch", is_flag=True, help="Audit even when the release was not made from INPUT.")
@click.option("--link", "link_paths", multiple=True, type=click.Path(dir_okay=False),
              help="PRIVATE link file from `anonymize --link-out`: with one RELEASE, audit each record against its "
                   "own row (refused when the link was not made with RELEASE); with several, one --link per "
                   "RELEASE in the same order says which records of INPUT each was made from (releases of "
                   "changing data; only the record ids are read).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Count on Dask: a scheduler address (tcp://host:8786) or local:N for N local workers "
                   "(needs graphanon[dask]; km and transactional models).")
@input_options
def audit(input_, release_paths, model, k, m_value, params, json_out, examples, allow_mismatch, link_paths, scheduler,
          fmt, sep, tid, item, label):
    """Audit RELEASE against INPUT for a privacy model (exit 1 when violated).

    Several releases of INPUT audit the adversary who reads them all (joint audit, see docs/privacy.md,
    "Publishing more than once"); every release must have been made from INPUT, or, with one --link per
    release, from the records of INPUT under its link's record ids (docs/updates.md).
    """
    from graphanon.privacy.registry import build_model
    from graphanon.release import check_same_data, load_release

    data, _ = read_input(input_, fmt, sep, tid, item, label)
    releases = [load_release(path) for path in release_paths]
    if len(releases) > 1 and link_paths:
        _audit_changing(data, releases, release_paths, link_paths, model, k, m_value, params, json_out, examples,
                        allow_mismatch, scheduler)
    link_path = link_paths[0] if link_paths else None
    if len(link_paths) > 1:
        raise GraphanonError(f"--link: {len(link_paths)} links for one RELEASE; give its own private link once")
    if not allow_mismatch:
        for path, release in zip(release_paths, releases, strict=True):
            try:
                check_same_data(data, release)
            except GraphanonError as exc:
                raise type(exc)(f"{path}: {exc}" if len(releases) > 1 else str(exc)) from None
    if link_path is not None:
        from graphanon.release.private_link import attach_link, load_private_link

        attach_link(releases[0], load_private_link(link_path))
    privacy_model = build_model(model, k=k, m=parse_m(m_value), params=parse_param_pairs(params), original=data)
    if len(releases) > 1:
        from graphanon.privacy.joint import JointAudit

        if scheduler is not None:
            raise GraphanonError("--scheduler runs the audit of one release; the joint audit of several runs in "
                                 "one process (drop --scheduler)")
        joint = JointAudit(privacy_model)
        with progress_bar(show_progress(json_out)) as progress:
            report = joint.audit(data, releases, max_examples=examples, progress=progress, check_data=False)
        _print_report(report, json_out)
        sys.exit(0 if report.satisfied else EXIT_VIOLATED)
    release = releases[0]
    with progress_bar(show_progress(json_out)) as progress:
        if scheduler is None:
            report = privacy_model.audit(data, release, max_examples=examples, progress=progress)
        else:
            report = _audit_on_dask(privacy_model, model, scheduler, data, release, examples, progress)
    _print_report(report, json_out)
    sys.exit(0 if report.satisfied else EXIT_VIOLATED)


def _audit_changing(data, releases, release_paths, link_paths, model, k, m_value, params, json_out, examples,
                    allow_mismatch, scheduler) -> None:
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
            report = JointAudit(privacy_model).audit(data, releases, links=links, max_examples=examples,
                                                     progress=progress, check_data=not allow_mismatch)
        except GraphanonError as exc:  # name the file of "release i"
            text = str(exc)
            for i, path in enumerate(release_paths, 1):
                text = text.replace(f"release {i}: ", f"{path}: ", 1) if text.startswith(f"release {i}: ") else text
            raise type(exc)(text) from None
    _print_report(report, json_out)
    sys.exit(0 if report.satisfied else EXIT_VIOLATED)


def _print_report(report, json_out: bool) -> None:
    if json_out:
        echo_json(report.to_dict())
    else:
        click.echo(str(report))


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
@input_options
def evaluate(input_, release_path, queries, q, seed, link_path, allow_mismatch, json_out, fmt, sep, tid, item, label):
    """Measure the utility of RELEASE against INPUT."""
    from graphanon.metrics.evaluate import evaluate_release
    from graphanon.release import load_release
    from graphanon.release.private_link import load_private_link

    data, _ = read_input(input_, fmt, sep, tid, item, label)
    release = load_release(release_path)
    link = None if link_path is None else load_private_link(link_path)
    result = evaluate_release(data, release, queries=queries, q=q, rng=seed, link=link, allow_mismatch=allow_mismatch)
    if json_out:
        echo_json(result)
    else:
        for key, value in result.items():
            if key == "needs_link":
                for metric in value:
                    click.echo(f"{metric:>22}: needs the private link (--link FILE from anonymize --link-out)")
            else:
                click.echo(f"{key:>22}: {value:.6g}" if isinstance(value, float) else f"{key:>22}: {value}")
