"""The joint candidate labels and rows of each record over nonreciprocal releases (the joint audit's sets).

:func:`joint_label_sets` reads the releases (dropping those alike an earlier
one, :mod:`graphanon.privacy.joint_same`), starts from the intersection of
their candidate label sets, propagates to a fixpoint
(:mod:`graphanon.privacy.joint_propagation`) and, when asked, settles every
remaining (record, label) pair by a joint world
(:mod:`graphanon.privacy.joint_exact`). :class:`~graphanon.privacy.joint.JointAudit`
audits its models from the result, :class:`JointLabelSets`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphanon.errors import InternalError, ParameterError
from graphanon.privacy.joint_exact import cpsat_exact, search_exact
from graphanon.privacy.joint_groups import grouped_reach
from graphanon.privacy.joint_propagation import propagate, release_graphs
from graphanon.privacy.joint_same import alike_releases

__all__ = ["joint_label_sets"]


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
    joint, size, graphs, labels = release_graphs(
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
    out = propagate(allowed, size, graphs)
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
            confirmed, settled = cpsat_exact(allowed, size, graphs, budget=budget)
            if not settled:  # the budget ran out: keep both bounds, claim nothing exact
                if progress is not None:
                    progress(2, 2, "done (time budget reached)")
                return JointLabelSets(joint, size, allowed, labels, candidates[read], True, False, labelled, rounds,
                                      present, confirmed, alike=alike)
            allowed = confirmed
        else:
            allowed = search_exact(allowed, size, graphs)
        out = propagate(allowed, size, graphs)
        if out is None:  # pragma: no cover - the confirmed worlds satisfy every release
            raise InternalError("the joint worlds found by the exact step violate a release")
        allowed, candidates, _ = out
    if not labelled:
        allowed = np.zeros((len(size), 0), dtype=bool)
    if progress is not None:
        progress(2, 2, "done")
    return JointLabelSets(joint, size, allowed, labels, candidates[read], True, exact, labelled, rounds, present,
                          alike=alike)
