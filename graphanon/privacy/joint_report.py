"""The reports of the joint audit (:class:`graphanon.privacy.joint.JointAudit`), one per release kind.

Global recodings are audited on their common refinement (one global recoding
of the data whose items are the tuples of their published items); nonreciprocal
releases from their joint candidate labels and rows
(:func:`graphanon.privacy.joint_labels.joint_label_sets`). Each report adds one
problem per release that fails its model alone.
"""

from __future__ import annotations

import numpy as np

from graphanon.errors import ParameterError
from graphanon.privacy.joint_labels import joint_label_sets
from graphanon.privacy.nonreciprocal import LDiversity
from graphanon.privacy.report import AuditReport
from graphanon.release.global_recoding import GlobalRecoding

__all__ = ["global_report", "nonreciprocal_report"]


def global_report(audit, original, releases, singles, max_examples: int) -> AuditReport:
    """The joint audit of global recodings: the model audited on their common refinement."""
    # per original item, the tuple of its published items (-1: suppressed), one column per release
    codes = np.stack([r.code_for(original) for r in releases], axis=1)
    names = []
    for r, release in enumerate(releases):
        labels = np.array([str(pi.label) for pi in release.published_items] + ["(suppressed)"], dtype=object)
        names.append(labels[codes[:, r]])  # -1 picks "(suppressed)"
    label_of_item = [" & ".join(str(names[r][j]) for r in range(len(releases))) for j in range(original.n_items)]
    suppressed = np.asarray(np.all(codes < 0, axis=1), dtype=bool)
    mapping = {x: (None if suppressed[j] else label_of_item[j]) for j, x in enumerate(original.items)}
    recoding = GlobalRecoding.from_mapping(original, mapping, keep_labels=False)
    report = audit.model.audit(original, recoding, max_examples=max_examples)
    per_release, problems = _per_release(singles)
    violations = report.violations + len(problems)
    return AuditReport(
        model=f"{audit.name} over {len(releases)} releases",
        satisfied=violations == 0,
        violations=violations,
        worst=report.worst if report.worst else (problems[0] if problems else None),
        counterexamples=(problems + report.counterexamples)[:max_examples],
        details={
            "unit": f"{report.details.get('unit', 'violations')} of the common refinement (an item recoded to "
            "the tuple of its published items, one per release), plus releases that fail alone",
            "releases": len(releases),
            "per_release": per_release,
            "joint_published_items": recoding.n_published_items,
            "joint_suppressed_items": int(suppressed.sum()),
            "published_items_per_release": [r.n_published_items for r in releases],
            "joint": report.details,
            "exact": False,
            "conservative": True,
        },
    )


def nonreciprocal_report(audit, original, releases, singles, max_examples: int, progress, exact: bool,
                          members=None) -> AuditReport:  # fmt: skip
    """The joint audit of nonreciprocal releases from their joint label sets (``exact``: settle them exactly)."""
    model = audit.model
    is_l = isinstance(model, LDiversity)
    level = model.l if isinstance(model, LDiversity) else model.k
    if is_l and any(r.labels is None for r in releases):
        raise ParameterError(
            "l-diversity audits releases that publish sensitive labels; a release here has none "
            "(audit --model nonreciprocal)"
        )
    n = original.n_records
    per_release, problems = _per_release(singles)
    state = joint_label_sets(original, releases, exact=exact, progress=progress, members=members,
                             budget=audit.budget)
    details = {"releases": len(releases), "per_release": per_release, "exact": state.exact}
    if not state.consistent:
        problems.append({"problem": "no joint world: the releases cannot all be perfect matchings of this data "
                         "with one label per record"})
        violations = len(problems)
        return AuditReport(
            model=f"{audit.name} over {len(releases)} releases", satisfied=False, violations=violations,
            worst=problems[0], counterexamples=problems[:max_examples],
            details={**details, "unit": "releases that fail alone + a missing joint world"},
        )  # fmt: skip
    sizes = state.record_sizes()
    n_labels = state.labels_per_record()  # per record (joint class expanded)
    cand = state.candidates_per_record()  # per record: min over releases of joint candidate rows
    labelled = state.labelled
    if is_l:
        low = n_labels < level
        unit = ("records whose joint candidate label set has fewer than l labels + releases that fail alone "
                "+ 1 when the exact step's time budget left records not proven")
    else:
        low = cand < level
        unit = ("records with fewer than k joint candidate rows in some release + releases that fail alone "
                "+ 1 when the exact step's time budget left records not proven")
    pinned = (n_labels == 1) if labelled else np.zeros(n, dtype=bool)
    # the budget ran out: a record whose label set is unsettled and not already below the level is not proven
    unproven = state.unsettled_records() & ~low
    if is_l:
        unproven &= state.proven_labels_per_record() < level
    if unproven.any():
        i = int(np.flatnonzero(unproven)[0])
        problems.append({
            "problem": f"not proven within the exact step's time budget ({audit.budget:g} s): the joint "
                       "candidate labels of these records are between the labels joint worlds found give "
                       "them and the labels the propagation leaves",
            "records_not_proven": int(unproven.sum()),
            "e.g.": {"record": i, "proven_labels": [state.labels[c] for c in np.flatnonzero(
                state.lower[state.record_class[i]])] if state.lower is not None else [],
                "possible_labels": state.record_labels(i)}})  # fmt: skip
    violations = int(low.sum()) + len(problems)
    examples = list(problems)
    show = np.flatnonzero(low)
    # pinned records first: the worst case an adversary meets
    show = show[np.argsort(n_labels[show] if labelled else cand[show], kind="stable")]
    for i in show[: max(0, max_examples - len(examples))]:
        ex = {"record": int(i), "items": [str(original.items[j]) for j in original.record_items(int(i))],
              "joint_candidate_rows": int(cand[i])}
        if labelled:
            ex["joint_candidate_labels"] = state.record_labels(int(i))
        examples.append(ex)
    worst: dict | None = None
    if len(show):
        i = int(show[0])
        worst = {"record": i, "joint_candidate_rows": int(cand[i])}
        if labelled:
            worst["joint_candidate_labels"] = state.record_labels(i)
    elif problems:
        worst = problems[0]
    details.update({
        "unit": unit,
        "pinned_records": int(pinned.sum()),
        "records_below_level": int(low.sum()),
        "records_by_joint_labels": (
            {str(s): int(c) for s, c in zip(*np.unique(n_labels, return_counts=True), strict=True)}
            if labelled else {}
        ),
        "min_joint_labels": int(n_labels.min()) if labelled and n else None,
        "min_joint_candidate_rows": int(cand.min()) if n else 0,
        "min_joint_candidate_tuples": int(state.tuples_per_record().min()) if n else 0,
        "labels_couple_releases": labelled,
        "propagation_rounds": state.rounds,
        "record_classes": len(sizes),
        "records_not_proven": int(unproven.sum()),
        "exact_budget_seconds": audit.budget,
        "budget_exhausted": state.lower is not None,
        "label_groups": [getattr(r, "label_groups", None) is not None for r in releases],
        "alike_releases": [] if state.alike is None else [int(a) + 1 for a in state.alike],
        "distinct_releases": len(releases) if state.alike is None else int(len(np.unique(state.alike))),
    })  # fmt: skip
    return AuditReport(
        model=f"{audit.name} over {len(releases)} releases",
        satisfied=violations == 0,
        violations=violations,
        worst=worst,
        counterexamples=examples[:max_examples],
        details=details,
    )


def _per_release(singles) -> tuple[list[dict], list[dict]]:
    """Per-release verdicts, and one problem per release that fails alone."""
    per = [{"release": i + 1, "satisfied": s.satisfied, "violations": s.violations} for i, s in enumerate(singles)]
    problems = [
        {"problem": f"release {i + 1} fails {s.model} on its own", "violations": s.violations,
         **({"worst": s.worst} if s.worst else {})}
        for i, s in enumerate(singles) if not s.satisfied
    ]  # fmt: skip
    return per, problems
