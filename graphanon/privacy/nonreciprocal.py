"""Audits of nonreciprocal releases: k-anonymity and l-diversity over the match graph.

Both audits rebuild the match graph from the original data and the
release's public arrays alone (:mod:`graphanon.privacy.match_graph`): no
identifiers, pseudonyms or row order, and no code shared with the
anonymizers or with the release's own matcher. They then decide the
definitions of the paper exactly with max-flows on the graph compressed to
classes of identical records and rows (:mod:`graphanon.privacy.matchings`,
which also explains why the compression is exact).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (k-anonymity: the generalization
graph holds k disjoint assignments; l-diversity).
Wong, Liu, Fu, Wang, Wang. Non-homogeneous generalization in privacy
preserving data publishing. SIGMOD 2010.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import ParameterError
from graphanon.privacy.declaration import ModelDeclaration, require_k
from graphanon.privacy.label_matching import nonreciprocal_assignment_check
from graphanon.privacy.match_graph import (
    MatchClasses,
    match_classes,
    nonreciprocal_matches,
    require_nr,
)
from graphanon.privacy.matchings import (
    FlowResult,
    hall_witness,
    k_factor_flow,
    ldiverse_flow,
    viable_edges,
)
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.utils.params import MEANINGS, K, validate_params

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["LDiversity", "NonreciprocalKAnonymity", "nonreciprocal_matches"]


def _stage(progress, done: int, message: str) -> None:
    if progress is not None:
        progress(done, 2, message)


def _record_name(original, mc: MatchClasses, record_class: int) -> dict:
    """A record of ``record_class`` named by its position in the original data and its items."""
    return _named(original, int(np.flatnonzero(mc.record_class == record_class)[0]))


def _named(original, i: int) -> dict:
    """Record ``i`` of the original data (its position there) and its items."""
    return {"record": i, "items": [str(original.items[j]) for j in original.record_items(i)]}


class _Audit:
    """What both audits compute: degrees, the factor flow, viable candidates, counter-examples."""

    def __init__(
        self, original, release, mc: MatchClasses, flow: FlowResult, level: int, progress
    ) -> None:
        self.original, self.mc, self.flow, self.level = original, mc, flow, level
        self.n, self.m = original.n_records, release.n_records
        ls, rs, ea, eb = mc.record_size, mc.row_size, mc.edge_record, mc.edge_row
        _stage(progress, 1, "viable candidates")
        # a full factor flow divided by the level is a perfect (fractional) matching
        self.viable = (
            viable_edges(ls, rs, ea, eb, flow, level) if flow.full else viable_edges(ls, rs, ea, eb)
        )
        self.per_a, self.per_b = mc.degrees()
        self.cand = np.bincount(ea, weights=rs[eb] * self.viable, minlength=len(ls)).astype(
            np.int64
        )

    def problems(self) -> list[dict]:
        out = []
        if self.n != self.m:
            out.append({"problem": "record count", "original": self.n, "published": self.m})
        if self.mc.unknown.any():
            i = int(np.flatnonzero(self.mc.unknown)[0])
            out.append(
                {
                    "problem": "original records hold items the release does not know (they match no row)",
                    "records": int(self.mc.unknown.sum()),
                    "e.g.": _named(self.original, i),
                }
            )
        return out

    def flow_example(self, what: str) -> list[dict]:
        w = hall_witness(self.mc.record_size, self.flow, self.level)
        if w is None:
            return []
        classes = w["record_classes"]
        return [
            {
                "problem": f"no {what}: these records cannot all be served",
                "records": w["records"],
                "demand": w["demand"],
                "supply": w["supply"],
                "e.g.": [_record_name(self.original, self.mc, int(a)) for a in classes[:3]],
            }
        ]

    def record_examples(self, low_classes: np.ndarray, extra, limit: int) -> list[dict]:
        out = []
        for a in low_classes[: max(0, limit)]:
            ex = _record_name(self.original, self.mc, int(a))
            ex.update(
                records_like_it=int(self.mc.record_size[a]),
                matches=int(self.per_a[a]),
                viable_candidates=int(self.cand[a]),
            )
            ex.update(extra(int(a)))
            out.append(ex)
        return out

    def report(self, model: str, problems, low, extra, worst: dict, details: dict, max_examples: int, progress):
        """The audit report: ``problems`` and the record classes ``low`` below the level (``extra(a)`` adds to each example), ``worst`` when violated, ``details`` merged."""
        examples = problems[:max_examples] + self.record_examples(low, extra, max_examples - len(problems))
        violations = int(self.mc.record_size[low].sum()) + len(problems)
        _stage(progress, 2, "done")
        return AuditReport(
            model=model,
            satisfied=violations == 0,
            violations=violations,
            worst=None if violations == 0 else {**worst, "flow_deficit": self.flow.deficit},
            counterexamples=examples,
            details={**details, **self.details()},
        )

    def details(self) -> dict:
        ls = self.mc.record_size
        return {
            "min_matches": int(self.per_a[self.mc.record_class].min()) if self.n else 0,
            "min_matched_by": int(self.per_b[self.mc.row_class].min()) if self.m else 0,
            "mean_matches": float(self.per_a[self.mc.record_class].mean()) if self.n else 0.0,
            "min_viable_candidates": int(self.cand.min()) if len(ls) else 0,
            "flow_deficit": self.flow.deficit,
            "match_edges": self.mc.n_edges,
            "class_edges": len(self.mc.edge_record),
            "record_classes": len(ls),
            "row_classes": len(self.mc.row_size),
        }


class NonreciprocalKAnonymity(PrivacyModel):
    """k-anonymity of a nonreciprocal release.

    Satisfied when

    1. the release has as many rows as the original data has records;
    2. the match graph (record ``i`` -- row ``j`` when ``i`` lies in ``j``'s
       possible worlds) contains ``k`` disjoint perfect matchings, i.e. a
       k-regular spanning subgraph: decided exactly by one max-flow on the
       class-compressed graph (:func:`~graphanon.privacy.matchings.k_factor_flow`);
    3. every record keeps at least ``k`` *viable* candidates against an
       adversary who knows the release is one-to-one: rows that some perfect
       matching gives it (:func:`~graphanon.privacy.matchings.viable_edges`).
       (2) implies (3) -- each of the ``k`` matchings gives a distinct viable
       row -- but the number is what the adversary faces, so it is reported.

    Degrees alone (every record and row with ``k`` matches) do not imply (2).

    Parameters
    ----------
    k : int

    See Also
    --------
    graphanon.algorithms.anonymize_nonreciprocal : The anonymizer it checks.
    LDiversity : With sensitive labels.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> rel = anonymize_nonreciprocal(data, k=3, order="identity", rng=0)
    >>> rep = NonreciprocalKAnonymity(3).audit(data, rel)
    >>> rep.satisfied, rep.details["min_viable_candidates"] >= 3
    (True, True)
    """

    @validate_params({"k": K}, meanings=MEANINGS)
    def __init__(self, k: int) -> None:
        self.k = int(k)
        self.name = f"nonreciprocal k-anonymity (k={self.k})"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Check ``release`` against ``original`` (``progress(done, total, message)`` optional)."""
        require_nr(release, "nonreciprocal k-anonymity")
        mc = match_classes(original, release, progress=progress)
        _stage(progress, 0, "k disjoint perfect matchings (max-flow)")
        flow = k_factor_flow(mc.record_size, mc.row_size, mc.edge_record, mc.edge_row, self.k)
        au = _Audit(original, release, mc, flow, self.k, progress)
        linked, link_details = nonreciprocal_assignment_check(original, release, mc, with_labels=False,
                                                              max_examples=max_examples)
        problems = au.problems() + linked + au.flow_example(f"{self.k} disjoint perfect matchings")
        low = np.flatnonzero(au.cand < self.k)
        details = {
            "unit": "records with fewer than k viable candidates + problems (record count, unknown items, "
            "no k disjoint perfect matchings)",
            "k_disjoint_perfect_matchings": flow.full and au.n == au.m,
            **link_details,
        }
        worst = {"min_viable_candidates": int(au.cand.min())} if len(au.cand) else {}
        return au.report(self.name, problems, low, lambda a: {}, worst, details, max_examples, progress)


def _label_problems(original, release) -> list[dict]:
    """The published label multiset must be the original one."""
    if original.labels is None:
        return [
            {
                "problem": "the original data has no sensitive labels, so the published labels cannot be checked; "
                "load the data with its label column"
            }
        ]
    orig, pub = Counter(map(str, original.labels)), Counter(map(str, release.labels))
    if orig == pub:
        return []
    invented = sorted((pub - orig).items())
    missing = sorted((orig - pub).items())
    return [
        {
            "problem": "published labels differ from the original labels",
            "published_but_not_original": dict(invented[:10]),
            "original_but_not_published": dict(missing[:10]),
        }
    ]


class LDiversity(PrivacyModel):
    """l-diversity of a nonreciprocal release.

    Satisfied when

    1. the release has as many rows as the original data has records, its
       label multiset equals the original one, and some perfect matching of
       the match graph gives every record a row carrying its own label
       (:func:`~graphanon.privacy.label_matching.label_preserving_assignment`;
       with the private link on ``release.link``, each record's own row must
       match it and carry its label) -- invented or moved labels fail;
       original data without labels fails with a clear report;
    2. the match graph contains an ``l``-regular spanning subgraph in which
       every record's ``l`` rows carry ``l`` distinct labels (one max-flow
       through (record class, label) nodes,
       :func:`~graphanon.privacy.matchings.ldiverse_flow`); it splits into ``l``
       perfect matchings, so each record has ``l`` equally possible labels;
    3. every record's viable candidates (rows some perfect matching gives it)
       carry at least ``l`` distinct labels (implied by 2, reported).

    A release that publishes its labels in label groups (``label_groups``:
    ``nr --param l=L``, the default) is audited by
    :func:`~graphanon.privacy.label_groups.grouped_label_audit` instead:
    every group with no label above ``1/l`` of it, every record's candidate
    and viable label mixtures too, and with the private link the groups'
    consistency with their records and no labels left on their own rows.

    Parameters
    ----------
    l : int

    See Also
    --------
    graphanon.algorithms.anonymize_cahd : An anonymizer it checks (also nr with ``l``).
    graphanon.privacy.EntropyLDiversity : Entropy l-diversity.
    graphanon.privacy.RecursiveLDiversity : Recursive (c,l)-diversity.

    Examples
    --------
    CAHD groups of three records with three labels, published by bit voting:

    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> table = load("nr_table1")
    >>> rep = LDiversity(3).audit(table, anonymize_cahd(table, l=3))
    >>> rep.satisfied, rep.details["labels_match_original"]
    (True, True)
    """

    @validate_params({"l": K})
    def __init__(self, l: int) -> None:  # noqa: E741
        self.l = int(l)  # noqa: E741
        self.name = f"nonreciprocal l-diversity (l={self.l})"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Check ``release`` against ``original`` (``progress(done, total, message)`` optional)."""
        require_nr(release, "l-diversity")
        if getattr(release, "labels", None) is None:
            raise ParameterError(
                "l-diversity audits a release that publishes sensitive labels; this release has none "
                "(anonymize with --label / labels, or audit --model nonreciprocal)"
            )
        if getattr(release, "label_groups", None) is not None:  # labels published apart from the rows
            from graphanon.privacy.label_groups import grouped_label_audit

            return grouped_label_audit(self.name, original, release, self.l, "distinct", max_examples=max_examples)
        mc = match_classes(original, release, by_label=True, progress=progress)
        _stage(progress, 0, f"{self.l}-diverse factor (max-flow)")
        flow = ldiverse_flow(
            mc.record_size, mc.row_size, mc.edge_record, mc.edge_row, mc.row_label, self.l
        )
        au = _Audit(original, release, mc, flow, self.l, progress)
        labels_ok = _label_problems(original, release)
        assigned, assign_details = nonreciprocal_assignment_check(original, release, mc, with_labels=True,
                                                                  max_examples=max_examples)
        problems = (
            au.problems()
            + labels_ok
            + assigned
            + au.flow_example(f"{self.l}-regular subgraph with {self.l} distinct labels per record")
        )
        assert mc.row_label is not None  # match_classes(by_label=True)
        ea, lab = mc.edge_record, mc.row_label[mc.edge_row]
        viable_labels = _distinct(ea[au.viable], lab[au.viable], len(mc.record_size))
        match_labels = _distinct(ea, lab, len(mc.record_size))
        low = np.flatnonzero(viable_labels < self.l)
        details = {
            "unit": "records whose viable candidates carry fewer than l labels + problems "
            "(record count, unknown items, labels, no l-diverse subgraph)",
            "l_diverse_subgraph": flow.full and au.n == au.m,
            "labels_match_original": not labels_ok and not assigned,
            **assign_details,
            "min_viable_labels": int(viable_labels.min()) if len(viable_labels) else 0,
            "min_distinct_labels": int(match_labels.min()) if len(match_labels) else 0,
        }
        worst = {"min_viable_labels": int(viable_labels.min())} if len(viable_labels) else {}
        return au.report(
            self.name, problems, low, lambda a: {"viable_labels": int(viable_labels[a])}, worst, details,
            max_examples, progress,
        )  # fmt: skip


def _distinct(a: np.ndarray, lab: np.ndarray, n: int) -> np.ndarray:
    """Distinct labels per record class among the given edges."""
    if len(a) == 0:
        return np.zeros(n, dtype=np.int64)
    width = int(lab.max()) + 1
    pairs = np.unique(a * width + lab)
    return np.bincount(pairs // width, minlength=n).astype(np.int64)


def _build_k(*, k, m, original):
    return NonreciprocalKAnonymity(require_k(k, "nonreciprocal"))


NONRECIPROCAL_MODEL = ModelDeclaration(
    "nonreciprocal",
    "nonreciprocal k-anonymity: k disjoint perfect matchings in the match graph, >= k viable rows per record",
    _build_k,
)
