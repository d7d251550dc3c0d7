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

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataMismatchError, ParameterError
from graphanon.privacy.joint_labels import joint_label_sets
from graphanon.privacy.joint_report import global_report, nonreciprocal_report
from graphanon.privacy.km import KmAnonymity, TransactionalKAnonymity
from graphanon.privacy.nonreciprocal import LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.release.fingerprint import check_same_data
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
        return global_report(self, original, releases, singles, max_examples)

    # ------------------------------------------------------------------ nonreciprocal
    def _nonreciprocal(self, original, releases, singles, max_examples: int, progress, members=None) -> AuditReport:
        exact = self.exact is True or (self.exact == "auto" and original.n_records <= EXACT_RECORDS)
        return nonreciprocal_report(self, original, releases, singles, max_examples, progress, exact, members)

