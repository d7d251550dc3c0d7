"""Before ``graphanon anonymize`` writes: the ``--prior`` releases read and checked, the release audited.

A method with no guarantee by construction has its release audited against
the ``-k``/``-m`` it claims (:func:`verify_claim`); a release composed with
``--prior`` releases is audited with them by the joint audit
(:func:`verify_composition`). A release that fails is not written.
"""

from __future__ import annotations

import click

from graphanon.cli._app import dumps_json
from graphanon.errors import GraphanonError


def read_priors(spec, data, prior_paths, prior_link_paths):
    """``--prior`` releases (fingerprints checked against INPUT) with their ``--prior-link`` files, or None."""
    if not prior_paths:
        if prior_link_paths:
            raise GraphanonError("--prior-link goes with --prior (the private link of each prior release)")
        return None
    from graphanon.algorithms.prior import Prior, prior_methods_text
    from graphanon.release import check_same_data, load_link, load_release

    if spec.priors is None:
        raise GraphanonError(f"--prior: algorithm {spec.name!r} cannot compose a release with earlier ones; "
                             f"--prior works with {prior_methods_text()}")
    reuse = spec.reuses_prior_rows
    if prior_link_paths and len(prior_link_paths) != len(prior_paths):
        if not reuse:
            raise GraphanonError(f"--prior-link: algorithm {spec.name!r} coarsens to the priors' published recodings "
                                 "and reads each link only to verify the prior's data: give one --prior-link per "
                                 f"--prior ({len(prior_paths)} prior(s), {len(prior_link_paths)} link(s)), or none")
    if reuse and len(prior_link_paths) != len(prior_paths):
        raise GraphanonError(f"--prior: algorithm {spec.name!r} reuses each prior's rows and needs its private link: "
                             f"give one --prior-link per --prior ({len(prior_paths)} prior(s), "
                             f"{len(prior_link_paths)} link(s))")
    from graphanon.algorithms.prior import data_changed

    priors = []
    for i, path in enumerate(prior_paths):
        release = load_release(path)
        link = load_link(prior_link_paths[i]) if prior_link_paths else None
        prior = Prior(release, link)
        # changed data: the prior's records are checked by id (algorithms/prior.py); without a link, a
        # global-recoding prior is checked from the data
        if not (reuse and data_changed(data, [prior])):
            try:
                check_same_data(data, release, link=link)
            except GraphanonError as exc:
                raise type(exc)(f"--prior {path}: {exc}") from None
        priors.append(prior)
    return priors


def refuse_unused_with_priors(spec, seed, param_dict) -> None:
    """A method that reuses its prior's rows runs nothing: options other than its level would be ignored."""
    if not spec.reuses_prior_rows:
        return
    unused = (["--seed"] if seed is not None else []) + [f"--param {name}" for name in param_dict if name != "l"]
    if unused:
        raise GraphanonError(f"{', '.join(unused)}: with --prior, {spec.name!r} reuses the prior's rows and runs "
                             f"nothing these would change; drop {'it' if len(unused) == 1 else 'them'}")


def verify_composition(data, release, priors) -> None:
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


def verify_claim(spec, data, release, opts) -> None:
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
