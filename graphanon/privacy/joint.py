"""Joint audits: what several releases of one dataset reveal together.

A data custodian who publishes the same data twice (two ``nr`` runs, a
``cahd`` release and a later one with another ``l``, a cut and a finer cut)
faces an adversary who reads *all* the releases. Each release may meet its
model on its own while their composition does not: intersecting a record's
candidate label sets over two ``nr`` l=3 releases pins records to one label.
:class:`JointAudit` audits that adversary and returns the same
:class:`~graphanon.privacy.report.AuditReport` as a single-release audit.

What the joint adversary knows, per release kind
------------------------------------------------

**Nonreciprocal releases** (``nr``, ``cahd``; models ``nonreciprocal`` and
``ldiversity``). Each release has its own match graph (record ``i`` -- row
``j`` when ``i`` lies in ``j``'s possible worlds,
:mod:`graphanon.privacy.match_graph`) and its own secret perfect matching
(the chosen assignment). The rows of different releases are shuffled
independently, so without labels the matchings are unrelated: a *joint
world* is any tuple of perfect matchings, one per release, and each record
keeps, in every release, the candidate rows it had alone -- composition
then reveals nothing more about rows or items (the adversary can guess links
between rows of two releases, but only through records, so no better than
the candidate rows themselves). Labels couple the releases: a person's label
is the same in every release, so a joint world must give each record rows
of *one* label in all releases. The joint candidate label set of a record is
the set of labels it takes in some joint world; l-diversity holds jointly
when every record keeps at least ``l`` of them, and a record with one label
left is *pinned*. The joint candidate rows of a record in a release are the
rows it gets in some joint world (counted from the label sets below: an
upper bound when labels couple the releases, exact without labels);
nonreciprocal k-anonymity holds jointly when every record keeps at least
``k`` in every release (the *joint
candidate tuples* -- one row per release -- are then at least ``k`` too, and
each release is linked to the record only through them).

The audit computes the joint label sets by propagation to a fixpoint: start
from the intersection over releases of each record's candidate label sets;
in each labelled release keep only the match edges whose row label is still
possible for the record, and keep, per record, the labels of the rows some
perfect matching of that restricted graph gives it (viable edges,
:func:`~graphanon.privacy.matchings.viable_edges`); repeat over all releases
until nothing changes. Every label removed is impossible in every joint
world, so the sets only over-state what the adversary is left with, and a
violation found is real. With ``exact=True`` (the default ``"auto"`` for at
most :data:`EXACT_RECORDS` records) each remaining (record, label) pair is
then confirmed by a joint world found by CP-SAT (OR-Tools; one model, solved
until no world uses a pair not yet confirmed) or removed when none exists:
the sets are then exactly those of the brute-force adversary (the older
backtracking search, ``solver="search"``, gives the same sets, slower).
Releases *alike* an earlier one -- the same rows, printed labels or label
groups up to row order, as a release made with ``--prior`` on identical
data -- are one release to the adversary and are not read again; when one
labelled release is left, the propagation is exact and no exact step runs
(the lemma and its proof: :mod:`graphanon.privacy.joint_same`;
``details["distinct_releases"]``).
Without exactness the report says so (``details["exact"] = False``). The
exact step stops after ``budget`` seconds (default :data:`EXACT_SECONDS`);
the records whose label sets are then unsettled and not already shown to
keep the level by joint worlds found are reported ``records_not_proven``,
and the report is not satisfied.

**Label groups** (``nr --param l=L``, ``release.label_groups``): the label
printed on a row is a uniform deal within its group, so a world of such a
release is a perfect matching that puts on each group's rows records holding
exactly the group's published label counts (the lemma and its proof:
:mod:`graphanon.privacy.joint_groups`). The propagation and the exact step
read a grouped release that way, never by its printed labels.

**Releases of changing data** (records added, removed, sampled between
releases; ``links=``). Each release was made from its own records, named by
the record ids of its private link; ``original`` holds them all (their
union), one record per person under one id. A joint world is one label per
person and, in each release, a perfect matching of *its* records to its
rows respecting the labels. The adversary is taken to know who is in which
release (the strongest case: a custodian's ``added``/``removed`` lists, or a
person known to have joined). Only the link's record ids are read, never its
rows. Records in no release are left out.

**Global recodings** (``cut``, ``aa``, ``hghs``, ``mhghs``, ``mm``,
``coat``; models ``km`` and ``transactional``). Each release maps every
original item to one published item (or suppresses it); an adversary who
can link a person's rows across releases knows, per item, the tuple of its
published items. The audit builds that *common refinement* -- original item
``x`` -> ``(f_1(x), ..., f_R(x))``, suppressed only when every release
suppresses it -- as one global recoding of the data and audits the model on
it. It is conservative: the refinement tells the adversary at least as much
as the releases do. Each release is also audited alone (a release whose rows
are not the recoding of the data by its own mapping fails the joint audit).

**Local recodings and perturbed releases** are refused: without the private
link, the joint groups of local recodings (which records share a row in
every release) are not determined by the files, and a perturbed row is no
generalization whose candidates could be intersected.

References
----------
Ganta, Kasiviswanathan, Smith. Composition attacks and auxiliary information
in data privacy. KDD 2008 (intersection attacks on independent releases).
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (match graph, possible worlds).
Régin. A filtering algorithm for constraints of difference in CSPs. AAAI
1994 (viable edges: the filtering step of the propagation).

Examples
--------
Two releases of one labelled table with the same structure teach nothing
the first did not; the joint audit says so:

>>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
>>> from graphanon.datasets import load
>>> from graphanon.privacy import LDiversity
>>> table = load("nr_table1")
>>> r1, r2 = (anonymize_cahd(table, l=3, grouping="order") for _ in range(2))  # the paper's groups
>>> rep = JointAudit(LDiversity(3)).audit(table, [r1, r2])
>>> rep.satisfied, rep.details["pinned_records"]
(True, 0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataMismatchError, InternalError, ParameterError
from graphanon.privacy.joint_groups import (
    add_grouped_constraints,
    add_matching,
    group_quota,
    grouped_reach,
    grouped_step,
    grouped_world,
)
from graphanon.privacy.joint_same import alike_releases
from graphanon.privacy.km import KmAnonymity, TransactionalKAnonymity
from graphanon.privacy.match_graph import match_classes
from graphanon.privacy.matchings import k_factor_flow, viable_edges
from graphanon.privacy.nonreciprocal import LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.release.fingerprint import check_same_data
from graphanon.release.global_recoding import GlobalRecoding
from graphanon.release.private_link import release_data, release_members

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["EXACT_RECORDS", "EXACT_SECONDS", "JointAudit", "SUPPORTED", "audit_joint", "joint_label_sets"]

#: ``exact="auto"`` runs the exact step up to this many records (the propagation alone above). On CP-SAT,
#: two ``nr`` l=3 releases of 1,000 sessions take ~20 s, ``cahd`` l=3 + l=2 ~30 s (benchmarks/joint_exact.py).
EXACT_RECORDS = 1000

#: Default time budget (seconds) of the exact step. On 400-record ``cahd`` pairs CP-SAT took from seconds to over
#: ten minutes depending on the secret draw; past the budget the records left are reported "not proven".
EXACT_SECONDS = 300.0

#: What the joint audit covers, for refusals: model names and the release kinds they read.
SUPPORTED = (
    "nonreciprocal releases (nr, cahd) with models nonreciprocal and ldiversity, and global recodings "
    "(cut, aa, hghs, mhghs, mm, coat) with models km and transactional"
)


def _kind(release) -> str:
    if all(hasattr(release, a) for a in ("base", "distance", "threshold", "items")):
        return "nonreciprocal"
    if hasattr(release, "reading") and hasattr(release, "nodes"):
        return "local_recoding"
    if hasattr(release, "published_items") and hasattr(release, "records"):
        return "global_recoding"
    return getattr(release, "kind", type(release).__name__)


def _refuse(what: str) -> ParameterError:
    return ParameterError(f"the joint audit of several releases does not cover {what}; it covers {SUPPORTED}")


def audit_joint(model: PrivacyModel, original, releases: Sequence, **kwargs) -> AuditReport:
    """``JointAudit(model).audit(original, releases, **kwargs)`` (see :class:`JointAudit`)."""
    exact = kwargs.pop("exact", "auto")
    budget = kwargs.pop("budget", EXACT_SECONDS)
    return JointAudit(model, exact=exact, budget=budget).audit(original, releases, **kwargs)


class JointAudit:
    """Audit the adversary who reads several releases of the same data.

    Parameters
    ----------
    model : PrivacyModel
        :class:`~graphanon.privacy.nonreciprocal.NonreciprocalKAnonymity`,
        :class:`~graphanon.privacy.nonreciprocal.LDiversity`,
        :class:`~graphanon.privacy.km.KmAnonymity` or
        :class:`~graphanon.privacy.km.TransactionalKAnonymity`; others are
        refused with a :class:`~graphanon.errors.ParameterError`.
    exact : bool or "auto"
        Nonreciprocal releases with labels: confirm every remaining
        (record, label) pair by a joint world (exact, exponential in the
        worst case) instead of stopping at the propagation fixpoint (which
        may leave labels no joint world gives). ``"auto"``: exact up to
        :data:`EXACT_RECORDS` records.
    budget : float or None
        Seconds the exact step may take (default :data:`EXACT_SECONDS`; None:
        no limit). When they run out, the records whose label set is not
        settled and not already below the level are counted in
        ``details["records_not_proven"]`` and the report is not satisfied
        ("not proven", never "satisfied"); ``details["exact"]`` is False.

    See Also
    --------
    graphanon.privacy.KmAnonymity : One release of global recoding.
    graphanon.privacy.NonreciprocalKAnonymity : One nonreciprocal release.

    Notes
    -----
    See the module documentation for what the joint adversary knows per
    release kind. One release gives the single-release audit's report
    unchanged.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> from graphanon.data import from_iterable
    >>> from graphanon.privacy import NonreciprocalKAnonymity
    >>> data = from_iterable([["a", "b"], ["a"], ["b", "c"], ["c"], ["a", "c"], ["b"]])
    >>> rels = [anonymize_nonreciprocal(data, k=2, order="identity", rng=s) for s in (0, 1)]
    >>> rep = JointAudit(NonreciprocalKAnonymity(2)).audit(data, rels)
    >>> rep.satisfied, rep.details["releases"]        # no labels: nothing couples the releases
    (True, 2)

    References
    ----------
    Ganta, Kasiviswanathan, Smith. Composition attacks and auxiliary
    information in data privacy. KDD 2008.
    """

    def __init__(self, model: PrivacyModel, *, exact: bool | str = "auto",
                 budget: float | None = EXACT_SECONDS) -> None:  # fmt: skip
        if not isinstance(model, (NonreciprocalKAnonymity, LDiversity, KmAnonymity, TransactionalKAnonymity)):
            raise _refuse(f"the model {getattr(model, 'name', type(model).__name__)!r}")
        if exact not in (True, False, "auto"):
            raise ParameterError(f"exact must be True, False or 'auto', got {exact!r}")
        if budget is not None and not (isinstance(budget, (int, float)) and budget > 0):
            raise ParameterError(f"budget must be a positive number of seconds or None, got {budget!r}")
        self.model = model
        self.exact = exact
        self.budget = None if budget is None else float(budget)
        self.name = f"joint {model.name}"

    def audit(
        self, original: TransactionData, releases: Sequence, *, max_examples: int = 10,
        progress: ProgressCallback | None = None, check_data: bool = True, links: Sequence | None = None,
    ) -> AuditReport:  # fmt: skip
        """Audit ``releases`` (all made from ``original``) against one adversary who reads them all.

        Parameters
        ----------
        original : TransactionData
            The data of every release; with ``links``, every record of every
            release (their union, or the latest data when it holds them all),
            each under its own record id.
        releases : sequence of Release
            At least one; one release (without ``links``) gives the model's own audit.
        max_examples : int
        progress : callable(done, total, message), optional
        check_data : bool
            Check that each release was made from its data
            (:func:`~graphanon.release.check_same_data`; with ``links``:
            the records of ``original`` under the link's record ids,
            :func:`~graphanon.release.private_link.release_data`). The keyed
            digest is verified only with the key, which is in the release's
            private link (``links``, or ``release.link``); releases without a
            fingerprint or a key are not checked. Raise
            :class:`~graphanon.errors.DataMismatchError` on a mismatch.
        links : sequence of ReleaseLink, optional
            One private link per release (``anonymize --link-out``): releases
            of data that changed -- records added, removed, sampled. Only the
            link's record ids (which people each release holds) and its
            fingerprint key are read; the rows it links them to are the secret
            and are not used. Nonreciprocal releases only.

        Returns
        -------
        AuditReport
            ``details`` holds ``releases`` and the per-release verdicts
            (``per_release``); nonreciprocal audits add the joint label and
            candidate counts, global recodings the joint recoding's size.
        """
        releases = list(releases)
        if not releases:
            raise ParameterError("the joint audit needs at least one release")
        if links is not None:
            return self._changing(original, releases, list(links), max_examples, progress, check_data)
        if check_data:
            for i, release in enumerate(releases, 1):
                try:
                    check_same_data(original, release)
                except DataMismatchError as exc:
                    raise DataMismatchError(f"release {i}: {exc}") from None
        if len(releases) == 1:
            return self.model.audit(original, releases[0], max_examples=max_examples, progress=progress)
        kinds = {_kind(r) for r in releases}
        nonreciprocal = isinstance(self.model, (NonreciprocalKAnonymity, LDiversity))
        want = "nonreciprocal" if nonreciprocal else "global_recoding"
        if kinds != {want}:
            other = sorted(kinds - {want}) or sorted(kinds)
            raise _refuse(f"{', '.join(other)} releases with the model {self.model.name!r}")
        singles = [self.model.audit(original, r, max_examples=max_examples) for r in releases]
        if nonreciprocal:
            return self._nonreciprocal(original, releases, singles, max_examples, progress)
        return self._global(original, releases, singles, max_examples)

    # ------------------------------------------------------------------ releases of changing data
    def _changing(self, original, releases, links, max_examples: int, progress, check_data: bool) -> AuditReport:
        if len(links) != len(releases):
            raise ParameterError(f"give one private link per release ({len(releases)} releases, {len(links)} links)")
        members = [release_members(original, link, what=f"release {i}") for i, link in enumerate(links, 1)]
        union = np.unique(np.concatenate(members)) if members else np.zeros(0, dtype=np.int64)
        if len(union) < original.n_records:  # records in no release are not at stake
            where = np.full(original.n_records, -1, dtype=np.int64)
            where[union] = np.arange(len(union))
            original = original.subset(union)
            members = [where[m] for m in members]
        datas = [original.subset(m).drop_unused_items() for m in members]  # each release's own records
        if check_data:
            for i, (data, release, link) in enumerate(zip(datas, releases, links, strict=True), 1):
                release_data(data, release, link, what=f"release {i}")
        # what the releases are made from is checked first: a release of other data is named as such
        if not isinstance(self.model, (NonreciprocalKAnonymity, LDiversity)):
            raise _refuse(f"global recodings of different data (model {self.model.name!r}); releases of changing "
                          "data are audited for nonreciprocal releases (models nonreciprocal, ldiversity)")
        kinds = {_kind(r) for r in releases}
        if kinds != {"nonreciprocal"}:
            raise _refuse(f"{', '.join(sorted(kinds - {'nonreciprocal'}) or sorted(kinds))} releases of changing data")
        singles = [self.model.audit(d, r, max_examples=max_examples) for d, r in zip(datas, releases, strict=True)]
        report = self._nonreciprocal(original, releases, singles, max_examples, progress, members=members)
        shared = np.bincount(np.concatenate(members), minlength=original.n_records)
        report.details.update({
            "records": original.n_records,
            "records_per_release": [len(m) for m in members],
            "records_in_every_release": int((shared == len(releases)).sum()),
            "records_in_one_release": int((shared == 1).sum()),
        })  # fmt: skip
        return report

    # ------------------------------------------------------------------ global recodings
    def _global(self, original, releases, singles, max_examples: int) -> AuditReport:
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
        report = self.model.audit(original, recoding, max_examples=max_examples)
        per_release, problems = _per_release(singles)
        violations = report.violations + len(problems)
        return AuditReport(
            model=f"{self.name} over {len(releases)} releases",
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

    # ------------------------------------------------------------------ nonreciprocal
    def _nonreciprocal(self, original, releases, singles, max_examples: int, progress, members=None) -> AuditReport:
        model = self.model
        is_l = isinstance(model, LDiversity)
        level = model.l if isinstance(model, LDiversity) else model.k
        if is_l and any(r.labels is None for r in releases):
            raise ParameterError(
                "l-diversity audits releases that publish sensitive labels; a release here has none "
                "(audit --model nonreciprocal)"
            )
        n = original.n_records
        exact = self.exact is True or (self.exact == "auto" and n <= EXACT_RECORDS)
        per_release, problems = _per_release(singles)
        state = joint_label_sets(original, releases, exact=exact, progress=progress, members=members,
                                 budget=self.budget)
        details = {"releases": len(releases), "per_release": per_release, "exact": state.exact}
        if not state.consistent:
            problems.append({"problem": "no joint world: the releases cannot all be perfect matchings of this data "
                             "with one label per record"})
            violations = len(problems)
            return AuditReport(
                model=f"{self.name} over {len(releases)} releases", satisfied=False, violations=violations,
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
                "problem": f"not proven within the exact step's time budget ({self.budget:g} s): the joint "
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
            "exact_budget_seconds": self.budget,
            "budget_exhausted": state.lower is not None,
            "label_groups": [getattr(r, "label_groups", None) is not None for r in releases],
            "alike_releases": [] if state.alike is None else [int(a) + 1 for a in state.alike],
            "distinct_releases": len(releases) if state.alike is None else int(len(np.unique(state.alike))),
        })  # fmt: skip
        return AuditReport(
            model=f"{self.name} over {len(releases)} releases",
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


# ---------------------------------------------------------------------- joint worlds of nonreciprocal releases
@dataclass
class _ReleaseGraph:
    """One release's match graph on the joint record classes: class edges, row sizes and labels."""

    ea: np.ndarray  # joint record class of each edge
    eb: np.ndarray  # row class of each edge
    row_size: np.ndarray
    label: np.ndarray | None  # global label code of each edge's row (None: no labels on rows)
    present: np.ndarray  # per joint record class: its records are in this release's data
    group: np.ndarray | None = None  # label groups: the group of each edge's row (then label is None)
    quota: np.ndarray | None = None  # label groups: published label count per (group, global label code)

    @property
    def labelled(self) -> bool:
        """Whether the release publishes labels (on its rows, or in label groups)."""
        return self.label is not None or self.group is not None


@dataclass
class JointLabelSets:
    """The joint candidates of nonreciprocal releases (see :func:`joint_label_sets`).

    Attributes
    ----------
    record_class : ndarray (n,)
        Joint record class of each record (records identical in every release's columns).
    class_size : ndarray
        Records per joint class.
    allowed : ndarray of bool (n_classes, n_labels)
        Labels a record of the class takes in some joint world (exact) or
        that the propagation could not rule out.
    labels : tuple
        Label values by code.
    candidates : ndarray (n_releases, n_classes)
        Joint candidate rows of a record of the class in each release.
    consistent : bool
        False when no joint world exists (some release has no perfect
        matching respecting the labels).
    exact, labelled : bool
    rounds : int
        Propagation rounds to the fixpoint.
    present : ndarray of bool (n_releases, n_classes)
        Whether the records of the class are in each release's data (all
        True when every release was made from the same data).
    lower : ndarray of bool (n_classes, n_labels) or None
        When the exact step's time budget ran out: the pairs confirmed by a
        joint world so far (``allowed`` is then the propagation's upper
        bound and ``exact`` False). None otherwise.
    alike : ndarray of int (n_releases,) or None
        Per release, the first release it is alike (itself when none is):
        alike releases are one release to the adversary and only the first
        is read (:mod:`graphanon.privacy.joint_same`).
    """

    record_class: np.ndarray
    class_size: np.ndarray
    allowed: np.ndarray
    labels: tuple
    candidates: np.ndarray
    consistent: bool
    exact: bool
    labelled: bool
    rounds: int
    present: np.ndarray
    lower: np.ndarray | None = None
    alike: np.ndarray | None = None

    def record_sizes(self) -> np.ndarray:
        return self.class_size

    def labels_per_record(self) -> np.ndarray:
        return self.allowed.sum(axis=1)[self.record_class].astype(np.int64)

    def unsettled_records(self) -> np.ndarray:
        """Per record: whether its label set was left between ``lower`` and ``allowed`` (the budget ran out)."""
        if self.lower is None:
            return np.zeros(len(self.record_class), dtype=bool)
        return (self.lower != self.allowed).any(axis=1)[self.record_class]

    def proven_labels_per_record(self) -> np.ndarray:
        """Per record: the labels some joint world found gives it (``labels_per_record`` when settled)."""
        if self.lower is None:
            return self.labels_per_record()
        return self.lower.sum(axis=1)[self.record_class].astype(np.int64)

    def candidates_per_record(self) -> np.ndarray:
        """Per record: the fewest joint candidate rows over the releases it is in."""
        big = np.iinfo(np.int64).max
        return np.where(self.present, self.candidates, big).min(axis=0)[self.record_class].astype(np.int64)

    def tuples_per_record(self) -> np.ndarray:
        """Joint candidate tuples (one row per release it is in) per record: the product of its candidates."""
        cand = np.where(self.present, self.candidates, 1).astype(np.float64)
        return np.prod(cand, axis=0)[self.record_class]

    def record_labels(self, i: int) -> list:
        return [self.labels[c] for c in np.flatnonzero(self.allowed[self.record_class[i]])]


def _release_graphs(original, releases, by_record: bool, members=None):
    """Per release, its class-compressed match graph refined to the joint record classes.

    ``members[r]`` (None: every record) lists the records of ``original`` the
    release was made from, in that data's order; a joint class is then also
    split by the releases its records are in.
    """
    n = original.n_records
    members = [None] * len(releases) if members is None else list(members)
    cols, mcs = [], []
    for r, m in zip(releases, members, strict=True):
        sub = original if m is None else original.subset(m)
        if _grouped(r):  # row classes split by label group (the labels printed on rows tell nothing more)
            mc = match_classes(sub, _GroupKeyed(r), by_label=True)
        else:
            mc = match_classes(sub, r, by_label=r.labels is not None)
        mcs.append(mc)
        if m is None:
            cols.append(mc.record_class.astype(np.int64))
        else:
            col = np.full(n, -1, dtype=np.int64)
            col[np.asarray(m, dtype=np.int64)] = mc.record_class
            cols.append(col)
    if by_record:
        joint, size = np.arange(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    else:
        _, joint = np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)
        joint = joint.reshape(-1).astype(np.int64)
        size = np.bincount(joint).astype(np.int64)
    nj = len(size)
    rep = np.empty(nj, dtype=np.int64)
    rep[joint[::-1]] = np.arange(n)[::-1]
    values = set().union(*(set(r.labels) for r in releases if r.labels is not None))
    codes = {x: c for c, x in enumerate(sorted(values, key=str))}
    graphs = []
    for release, mc, col in zip(releases, mcs, cols, strict=True):
        a_of_joint = col[rep]  # the release's record class of each joint class (-1: not in its data)
        present = a_of_joint >= 0
        inside = np.flatnonzero(present)
        a_in = a_of_joint[inside]
        order = inside[np.argsort(a_in, kind="stable")]
        ptr = np.zeros(len(mc.record_size) + 1, dtype=np.int64)
        np.cumsum(np.bincount(a_in, minlength=len(mc.record_size)), out=ptr[1:])
        count = ptr[mc.edge_record + 1] - ptr[mc.edge_record]
        start = np.repeat(ptr[mc.edge_record] - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
        ea = order[start]
        eb = np.repeat(mc.edge_row, count)
        label = None
        if _grouped(release) and mc.row_label is not None and mc.labels is not None:
            group_of_code = np.asarray(mc.labels, dtype=np.int64)  # the group values by code
            quota = group_quota(release, codes)[1]
            graphs.append(_ReleaseGraph(ea, eb, mc.row_size, None, present, group_of_code[mc.row_label[eb]], quota))
            continue
        if mc.row_label is not None and mc.labels is not None:  # set together (by_label=True)
            global_code = np.array([codes[x] for x in mc.labels], dtype=np.int64)
            label = global_code[mc.row_label[eb]]
        graphs.append(_ReleaseGraph(ea, eb, mc.row_size, label, present))
    return joint, size, graphs, tuple(codes)


def _grouped(release) -> bool:
    return getattr(release, "labels", None) is not None and getattr(release, "label_groups", None) is not None


class _GroupKeyed:
    """A grouped release seen with its label groups in place of its labels (for :func:`match_classes`)."""

    def __init__(self, release) -> None:
        self.items, self.base, self.distance = release.items, release.base, release.distance
        self.threshold, self.n_records = release.threshold, release.n_records
        self.labels = [int(x) for x in release.label_groups]


def _propagate(allowed: np.ndarray, size: np.ndarray, graphs, max_rounds: int = 10_000):
    """Shrink ``allowed`` (classes x labels) to the fixpoint; None when some release has no matching.

    Returns ``(allowed, candidates, rounds)``: ``candidates[r, c]`` the rows of
    release ``r`` a record of class ``c`` gets in some perfect matching of the
    release's graph restricted to the allowed labels.
    """
    allowed = allowed.copy()
    candidates = np.zeros((len(graphs), len(size)), dtype=np.int64)
    stable = [False] * len(graphs)
    rounds = 0
    while not all(stable) and rounds < max_rounds:
        rounds += 1
        for r, g in enumerate(graphs):
            if stable[r]:
                continue
            if g.group is not None:  # label groups (graphanon.privacy.joint_groups)
                step = grouped_step(allowed, size, g)
                if step is None:
                    return None
                viable, reach = step
                candidates[r] = np.bincount(g.ea[viable], weights=g.row_size[g.eb[viable]], minlength=len(size))
                stable[r] = True
                if (allowed & ~reach).any():
                    allowed &= reach
                    stable = [False] * len(graphs)
                    stable[r] = True
                continue
            keep = np.ones(len(g.ea), dtype=bool) if g.label is None else allowed[g.ea, g.label]
            ea, eb = g.ea[keep], g.eb[keep]
            left = np.where(g.present, size, 0)
            flow = k_factor_flow(left, g.row_size, ea, eb, 1)
            if not flow.full or left.sum() != g.row_size.sum():
                return None
            viable = viable_edges(left, g.row_size, ea, eb, flow, 1)
            candidates[r] = np.bincount(ea[viable], weights=g.row_size[eb[viable]], minlength=len(size))
            stable[r] = True
            if g.label is None:
                continue
            reach = np.repeat(~g.present[:, None], allowed.shape[1], axis=1)  # records not in its data: free
            reach[ea[viable], g.label[keep][viable]] = True
            if (allowed & ~reach).any():
                allowed &= reach
                stable = [False] * len(graphs)
                stable[r] = True
    return allowed, candidates, rounds


def _world(allowed: np.ndarray, size: np.ndarray, graphs, confirmed: np.ndarray):
    """A joint world within ``allowed`` (one label per record class of size 1), or None.

    Backtracking with propagation: branch on the class with the fewest labels left, trying first the
    labels no world found so far gave it (``confirmed``), so that each world found confirms new pairs.
    """
    out = _propagate(allowed, size, graphs)
    if out is None:
        return None
    allowed = out[0]
    count = allowed.sum(axis=1)
    if (count == 1).all():
        return allowed.argmax(axis=1)
    c = int(np.argmin(np.where(count > 1, count, np.iinfo(np.int64).max)))
    labels = np.flatnonzero(allowed[c])
    for lab in labels[np.argsort(confirmed[c, labels], kind="stable")]:
        trial = allowed.copy()
        trial[c] = False
        trial[c, lab] = True
        world = _world(trial, size, graphs, confirmed)
        if world is not None:
            return world
    return None


def _viable_graph(allowed: np.ndarray, size: np.ndarray, g: _ReleaseGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges of a labelled release some perfect matching within ``allowed`` uses: (records, row classes, labels)."""
    if g.label is None:  # pragma: no cover - called for labelled releases
        raise InternalError("an unlabelled release has no label edges")
    keep = allowed[g.ea, g.label]
    ea, eb, lab = g.ea[keep], g.eb[keep], g.label[keep]
    left = np.where(g.present, size, 0)
    viable = viable_edges(left, g.row_size, ea, eb, k_factor_flow(left, g.row_size, ea, eb, 1), 1)
    return ea[viable], eb[viable], lab[viable]


def _matching_worlds(allowed: np.ndarray, size: np.ndarray, graphs, confirmed: np.ndarray, *,
                     stall: int = 5, seed: int = 0, deadline: float = math.inf) -> np.ndarray:  # fmt: skip
    """Pairs confirmed by joint worlds built from minimum-weight perfect matchings (a cheap first pass).

    One attempt: take the labelled releases in a random order; in each, a
    perfect matching of its records (records labelled by an earlier release
    keep that label; the others may take any allowed label) that prefers
    pairs not yet confirmed (weight 1 against 2, plus noise); its row labels
    fix the labels of its records. Each matching is a real perfect matching
    consistent with the labels fixed before, so a finished attempt is a
    joint world and confirms its pairs. Stops after ``stall`` attempts in a
    row confirm nothing new (or ``4 stall`` fail in a row), or at ``deadline`` (``time.monotonic()``). The random draws change only how fast
    pairs are confirmed, never the sets: what this pass leaves, CP-SAT settles.
    """
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    confirmed = confirmed.copy()
    labelled = [g for g in graphs if g.labelled]
    rng = np.random.default_rng(seed)
    idle = failed = 0
    while idle < stall and failed < 4 * stall and time.monotonic() < deadline:
        fixed = np.full(len(size), -1, dtype=np.int64)
        ok = True
        for r in rng.permutation(len(labelled)):
            g = labelled[r]
            if g.group is not None:  # label groups: a group and a label per record, then rows within groups
                dealt = grouped_world(allowed, size, g, fixed, confirmed, rng)
                if dealt is None:
                    ok = False
                    break
                fixed = np.where(dealt >= 0, dealt, fixed)
                continue
            ea, eb, el = _viable_graph(allowed, size, g)
            fit = (fixed[ea] < 0) | (fixed[ea] == el)
            ea, eb, el = ea[fit], eb[fit], el[fit]
            # one node per row: row class b of size s stands for s identical rows
            first = np.zeros(len(g.row_size) + 1, dtype=np.int64)
            np.cumsum(g.row_size, out=first[1:])
            reps = g.row_size[eb]
            ea, el = np.repeat(ea, reps), np.repeat(el, reps)
            row = np.repeat(first[eb], reps) + (np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps))
            inside = np.flatnonzero(g.present)
            pos = np.full(len(size), -1, dtype=np.int64)
            pos[inside] = np.arange(len(inside))
            weight = 2.0 - (~confirmed[ea, el]) + 0.5 * rng.random(len(ea))
            W = sp.csr_array((weight, (pos[ea], row)), shape=(len(inside), int(first[-1])))
            try:
                left, right = min_weight_full_bipartite_matching(W)
            except ValueError:  # no perfect matching with the labels fixed so far: give up this attempt
                ok = False
                break
            code = sp.csr_array((el + 1, (pos[ea], row)), shape=W.shape)  # each (record, row) pair once
            fixed[inside[left]] = np.asarray(code[left, right]).reshape(-1).astype(np.int64) - 1
        if not ok or (fixed < 0).any():  # a failed attempt (counted apart: grouped attempts fail more often)
            failed += 1
            continue
        failed = 0
        new = ~confirmed[np.arange(len(size)), fixed]
        confirmed[np.arange(len(size)), fixed] = True
        idle = 0 if new.any() else idle + 1
    return confirmed


def _harvest(x: list):
    """A CP-SAT solution callback keeping in ``seen`` the pairs ``x`` of every solution reported.

    The solver reports each improving solution of a maximization, not only
    its last: every one is a solution of the model -- a joint world -- so
    every pair it uses is confirmed, for one read of ``x`` per solution.
    """
    from ortools.sat.python import cp_model

    class Harvest(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.seen = np.zeros(len(x), dtype=bool)

        def on_solution_callback(self) -> None:
            self.seen |= np.fromiter((self.boolean_value(v) for v in x), dtype=bool, count=len(x))

    return Harvest()


def _cpsat_exact(allowed: np.ndarray, size: np.ndarray, graphs, *, workers: int = 1, first_pass: bool = True,
                 budget: float | None = None) -> tuple[np.ndarray, bool]:  # fmt: skip
    """The (record, label) pairs of ``allowed`` some joint world gives, by CP-SAT (records of size 1).

    One model: a Boolean per allowed (record, label) pair, exactly one per
    record; per labelled release a Boolean per viable edge, exactly one per
    record present in its data, ``row_size`` per row class, an edge
    implying its label's pair. Unlabelled releases couple nothing (their
    matchings exist, the propagation checked). Then, until every pair is
    settled: ask for a world using at least one pair no world found so far
    used, the search hinted toward one open label per record drawn at random
    (a plain feasibility solve: CP-SAT's presolve dominates a round, so a
    world that spreads over many open pairs is worth more than an optimal
    one); every solution the solver reports confirms all its pairs (one per
    record), and when none exists the pairs left are in no joint world.
    With ``first_pass``, worlds built from perfect matchings
    (:func:`_matching_worlds`) confirm pairs first. Grouped releases add
    their count constraints (:mod:`graphanon.privacy.joint_groups`).

    Returns ``(pairs, settled)``: with ``settled`` the pairs are exactly those
    of some joint world; when ``budget`` seconds (the whole step, from its
    start) ran out first, ``settled`` is False and the pairs are those
    confirmed so far -- a lower bound, ``allowed`` the upper one.
    """
    from ortools.sat.python import cp_model

    deadline = time.monotonic() + (math.inf if budget is None else float(budget))

    if (size != 1).any():  # pragma: no cover - exact mode works on single records
        raise InternalError("the exact step works on single records")
    model = cp_model.CpModel()
    rec, lab = np.nonzero(allowed)
    x = [model.new_bool_var(f"x{c}_{v}") for c, v in zip(rec.tolist(), lab.tolist(), strict=True)]
    var = np.full(allowed.shape, -1, dtype=np.int64)
    var[rec, lab] = np.arange(len(rec))
    starts = np.searchsorted(rec, np.arange(len(size) + 1))
    for c in range(len(size)):
        model.add_exactly_one(x[starts[c] : starts[c + 1]])
    for g in graphs:
        if g.group is not None:
            add_grouped_constraints(model, x, var, allowed, size, g)
            continue
        if g.label is None:
            continue
        ea, eb, el = _viable_graph(allowed, size, g)
        y = add_matching(model, ea, eb, size, g)
        for e, pair in enumerate(var[ea, el].tolist()):
            model.add_implication(y[e], x[pair])
    confirmed = np.zeros(len(rec), dtype=bool)
    if first_pass:
        confirmed = _matching_worlds(allowed, size, graphs, np.zeros_like(allowed), deadline=deadline)[rec, lab]
    xs = np.array(x, dtype=object)
    settled = True
    harvest = _harvest(x)
    rng = np.random.default_rng(0)
    while not confirmed.all():
        if time.monotonic() >= deadline:
            settled = False
            break
        open_ = xs[~confirmed].tolist()
        model.add_bool_or(open_)  # the open pairs only shrink: every earlier clause is implied
        # steer the search to a world of open pairs: hint each record one of its open labels, at random
        model.clear_hints()
        pick = rng.random(len(rec)) + 2.0 * confirmed
        best = np.full(len(size), np.inf)
        np.minimum.at(best, rec, pick)
        for v, on in zip(x, (pick == best[rec]).tolist(), strict=True):
            model.add_hint(v, on)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        if math.isfinite(deadline):
            solver.parameters.max_time_in_seconds = max(0.0, deadline - time.monotonic())
        status = solver.solve(model, harvest)
        confirmed |= harvest.seen  # every solution CP-SAT reported on the way is a joint world
        if status == cp_model.INFEASIBLE:
            break
        if status == cp_model.UNKNOWN and math.isfinite(deadline):  # the budget ran out
            settled = False
            break
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):  # pragma: no cover - no limit left
            raise InternalError(f"CP-SAT ended with status {solver.status_name(status)}")
        confirmed |= np.array([solver.boolean_value(v) for v in x], dtype=bool)
    out = np.zeros_like(allowed)
    out[rec[confirmed], lab[confirmed]] = True
    return out, settled


def joint_label_sets(
    original, releases: Sequence, *, exact: bool = False, progress=None, members: Sequence | None = None,
    solver: str = "cp-sat", budget: float | None = None,
) -> JointLabelSets:
    """The joint candidate labels and rows of each record over nonreciprocal releases.

    Parameters
    ----------
    original : TransactionData
        Every record of every release (their union, one record per person).
    releases : sequence of NonreciprocalRelease
    exact : bool
        Work on single records and confirm every remaining (record, label)
        pair by a joint world: the sets are then exactly the labels each
        record takes in some joint world. Otherwise stop at the propagation
        fixpoint on classes of identical records (a superset). When the
        releases left after dropping those alike an earlier one
        (:func:`~graphanon.privacy.joint_same.alike_releases`) hold at most
        one labelled release, the propagation is exact and the result says
        ``exact`` whatever was asked.
    progress : callable(done, total, message), optional
    members : sequence, optional
        One entry per release: the positions in ``original`` of the records
        the release was made from, in that data's order (None: all of
        ``original``). Releases of data that grew, shrank or was sampled.
        A record's joint world then gives it a row in each release whose
        data holds it, and one label throughout.
    solver : {"cp-sat", "search"}
        The exact step: CP-SAT (OR-Tools; default) or the backtracking
        search with propagation (kept for comparison; it does not model
        label groups and refuses grouped releases).
    budget : float, optional
        Seconds the CP-SAT exact step may take (None: no limit). When they
        run out the pairs not yet confirmed by a joint world are left
        unsettled: ``lower`` holds the confirmed ones, ``allowed`` the
        propagation's, and ``exact`` is False.

    Returns
    -------
    JointLabelSets

    Notes
    -----
    Complexity: per propagation round one max-flow and one strongly-connected-components
    pass per release on the class graph. The exact step builds one CP-SAT
    model (a Boolean per allowed pair and per viable match edge) and solves
    it once per world found plus once to show the remaining pairs are in
    none; the backtracking search runs up to one search per (record, label)
    pair not yet confirmed. Both are exponential in the worst case.

    References
    ----------
    Perron, Didier. CP-SAT, OR-Tools (Google), https://developers.google.com/optimization.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> table = load("nr_table1")
    >>> pair = [anonymize_cahd(table, l=2, grouping="order"), anonymize_cahd(table, l=3, grouping="order")]
    >>> sets = joint_label_sets(table, pair, exact=True)
    >>> bool((sets.labels_per_record() >= 2).all())
    True
    """
    if solver not in ("cp-sat", "search"):
        raise ParameterError(f"solver must be 'cp-sat' or 'search', got {solver!r}")
    if members is not None and len(members) != len(releases):
        raise ParameterError(f"members has {len(members)} entries for {len(releases)} releases")
    # releases alike another (one release to the adversary: graphanon.privacy.joint_same) add nothing to it
    alike = alike_releases(releases, members)
    keep = np.flatnonzero(alike == np.arange(len(releases))).tolist()
    # at most one labelled release left: the propagation's sets are already those of its worlds
    single = sum(releases[r].labels is not None for r in keep) <= 1
    joint, size, graphs, labels = _release_graphs(
        original, [releases[r] for r in keep], by_record=exact and not single,
        members=None if members is None else [members[r] for r in keep])  # fmt: skip
    read = np.searchsorted(np.asarray(keep, dtype=np.int64), alike)  # per release, its graph
    present = np.stack([graphs[r].present for r in read]) if graphs else np.zeros((0, len(size)), dtype=bool)
    labelled = any(g.labelled for g in graphs)
    if solver == "search" and any(g.group is not None for g in graphs):
        raise ParameterError("the backtracking search does not model label groups; use solver='cp-sat'")
    allowed = np.ones((len(size), max(len(labels), 1)), dtype=bool)
    if labelled:  # start from the intersection of the releases' candidate label sets
        for g in graphs:
            if g.group is not None:
                reach = grouped_reach(g.ea, g.group, g.quota, len(size))
                allowed &= reach | ~g.present[:, None]
            elif g.label is not None:
                seen = np.repeat(~g.present[:, None], allowed.shape[1], axis=1)
                seen[g.ea, g.label] = True
                allowed &= seen
    if progress is not None:
        progress(0, 2, "joint candidates: propagation")
    out = _propagate(allowed, size, graphs)
    if out is None:
        empty = np.zeros((len(releases), len(size)), dtype=np.int64)
        return JointLabelSets(joint, size, np.zeros_like(allowed), labels, empty, False, exact, labelled, 0, present,
                              alike=alike)
    allowed, candidates, rounds = out
    if single:  # exact without the exact step
        if not labelled:
            allowed = np.zeros((len(size), 0), dtype=bool)
        if progress is not None:
            progress(2, 2, "done (releases alike: the propagation is exact)")
        return JointLabelSets(joint, size, allowed, labels, candidates[read], True, True, labelled, rounds, present,
                              alike=alike)
    if exact and labelled:
        if progress is not None:
            progress(1, 2, "joint candidates: exact step")
        if solver == "cp-sat":
            confirmed, settled = _cpsat_exact(allowed, size, graphs, budget=budget)
            if not settled:  # the budget ran out: keep both bounds, claim nothing exact
                if progress is not None:
                    progress(2, 2, "done (time budget reached)")
                return JointLabelSets(joint, size, allowed, labels, candidates[read], True, False, labelled, rounds,
                                      present, confirmed, alike=alike)
            allowed = confirmed
        else:
            allowed = _search_exact(allowed, size, graphs)
        out = _propagate(allowed, size, graphs)
        if out is None:  # pragma: no cover - the confirmed worlds satisfy every release
            raise InternalError("the joint worlds found by the exact step violate a release")
        allowed, candidates, _ = out
    if not labelled:
        allowed = np.zeros((len(size), 0), dtype=bool)
    if progress is not None:
        progress(2, 2, "done")
    return JointLabelSets(joint, size, allowed, labels, candidates[read], True, exact, labelled, rounds, present,
                          alike=alike)


def _search_exact(allowed: np.ndarray, size: np.ndarray, graphs) -> np.ndarray:
    """The exact step by backtracking search with propagation (one search per unconfirmed pair)."""
    confirmed = np.zeros_like(allowed)
    for c in range(len(size)):
        for lab in np.flatnonzero(allowed[c] & ~confirmed[c]):
            trial = allowed.copy()
            trial[c] = False
            trial[c, lab] = True
            world = _world(trial, size, graphs, confirmed)
            if world is None:  # no joint world gives it: drop it, and what that rules out
                allowed[c, lab] = False
                allowed = _propagate(allowed, size, graphs)[0]
            else:
                confirmed[np.arange(len(size)), world] = True
    return allowed
