"""Privacy constraints (COAT) and utility constraints: independent audits.

A privacy constraint ``p`` (a set of original items) is satisfied by a global
recoding when its published itemset ``I = U_{i in p} Phi(i)`` (suppressed
items dropped) is supported by at least ``k`` published records, or by none
while every proper subset of ``I`` is supported by none or by at least ``k``
(Loukides et al., Def. 3.4). Equivalently: no non-empty subset of ``I`` has
support in ``(0, k)``. An empty ``I`` (every item suppressed) is satisfied.

A utility constraint set is a partition of the items: it is satisfied when
every published item lies inside one block and at most a fraction ``s`` of
the items is suppressed (Def. 3.8).

These audits share no code with :mod:`graphanon.algorithms.coat`: supports
are counted with sparse products over the published records, and the subset
clause with the level-wise search of :mod:`graphanon.counting.support`.

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Sec. 3.2-3.3 (Definitions 3.3, 3.4, 3.7, 3.8).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import VerticalBitmaps, minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.privacy.consistency import recoding_mismatches
from graphanon.privacy.declaration import ModelDeclaration, require_k
from graphanon.privacy.km import KmAnonymity, check_k, require_global
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.taxonomy.constraint_sets import parse_fraction, parse_privacy, parse_utility
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.declaration import Parameter
from graphanon.utils.labels import as_labels
from graphanon.utils.params import MEANINGS, K, validate_params

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["PrivacyConstraints", "UtilityConstraints", "check_utility_constraints"]


def _published_support_counts(records: sp.csr_array, itemsets: list[tuple]) -> np.ndarray:
    """Support of each published itemset (tuples of published item indices): packed bitmaps."""
    if not itemsets:
        return np.zeros(0, dtype=np.int64)
    return VerticalBitmaps(records).supports(itemsets)


def _is_local_recoding(release) -> bool:
    return not hasattr(release, "published_items") and hasattr(release, "nodes")


class PrivacyConstraints(PrivacyModel):
    """COAT privacy-constraint satisfaction (Def. 3.4) of a global recoding.

    Parameters
    ----------
    constraints : iterable of item lists, or KmConstraints
        The privacy constraint set ``P`` over original item labels.
        ``graphanon.taxonomy.constraint_sets.KmConstraints(m)`` (all ``m``-itemsets)
        is audited as k^m-anonymity of the published records, to which it is
        equivalent.
    k : int
        Protection level.

    See Also
    --------
    graphanon.algorithms.anonymize_coat : The anonymizer it checks.
    UtilityConstraints : The utility side of COAT's constraints.

    Notes
    -----
    The audit checks that the release is the recoding of the original data
    by its own mapping, then per distinct published itemset ``I``: its
    support (a sparse product ``records @ C``); when the support is 0 and
    ``|I| >= 2``, whether some proper subset has support in ``(0, k)`` (every
    item of ``I`` by its support; for ``|I| >= 3``, a level-wise search on the
    records restricted to ``I``'s columns).

    Examples
    --------
    >>> from graphanon.datasets import load, load_constraints
    >>> from graphanon.release import GlobalRecoding
    >>> data, c = load("coat_fig1"), load_constraints("coat_fig1")
    >>> raw = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    >>> rep = PrivacyConstraints(c["privacy"], k=5).audit(data, raw)
    >>> rep.satisfied, rep.violations
    (False, 2)

    References
    ----------
    Loukides et al., COAT, KAIS 2011, Definition 3.4 and Theorem 3.5.
    """

    @validate_params({"k": K}, meanings=MEANINGS)
    def __init__(self, constraints, k: int) -> None:
        self.k = int(k)
        self.m: int | None = None
        self.constraints: list | None = None
        m = getattr(constraints, "m", None)
        if m is not None and not isinstance(constraints, (list, tuple)):
            self.m = int(m)
            self.name = f"privacy constraints (all {self.m}-itemsets, k={self.k})"
            return
        cons = []
        for n, p in enumerate(constraints):
            if isinstance(p, (str, bytes)) or not isinstance(p, Iterable):
                raise ParameterError(f"privacy constraint #{n} is {p!r}; give each constraint as a list of items")
            p = tuple(dict.fromkeys(as_labels(p)))
            if not p:
                raise ParameterError(f"privacy constraint #{n} is empty")
            cons.append(p)
        self.constraints = cons
        self.name = f"privacy constraints ({len(cons)} constraints, k={self.k})"

    # ------------------------------------------------------------------ helpers
    def _subset_violation(self, records_csc: sp.csc_array, itemset: tuple) -> tuple | None:
        sub = records_csc[:, list(itemset)].tocsr()
        keep = np.flatnonzero(np.diff(sub.indptr) > 0)
        sub = sub[keep]
        viol, _ = minimal_infrequent_itemsets(sub, self.k, len(itemset) - 1, max_violations=1)
        for lvl in viol:
            if len(lvl):
                i = int(np.argmax(lvl.supports))
                return tuple(itemset[j] for j in lvl.itemsets[i].tolist()), int(lvl.supports[i])
        return None

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Audit ``release``.

        A local recoding (Clump, Partition) is audited only for the constraint set of all
        ``m``-itemsets, as the k^m-anonymity it is equivalent to (:class:`KmAnonymity`,
        which checks the local recoding exactly); an explicit constraint set is refused with
        a :class:`~graphanon.errors.ParameterError` (Def. 3.4 needs one published image per
        item).
        """
        require_global(release, "privacy constraints")
        if _is_local_recoding(release):
            return self._audit_local(original, release, max_examples, progress)
        check_k(self.k, original.n_records)
        n_bad, problems = recoding_mismatches(original, release, max_examples=max_examples)
        labels = [pi.label for pi in release.published_items]
        if self.constraints is None:
            return self._audit_km(original, release, labels, n_bad, problems, max_examples)
        unknown = [(n, x) for n, p in enumerate(self.constraints) for x in p if not original.has_item(x)]
        if unknown:
            n, x = unknown[0]
            raise ParameterError(f"privacy constraint #{n} names item {x!r}, which is not in the original data")
        owner = {}
        for g, pi in enumerate(release.published_items):
            for mbr in pi.members:
                owner[mbr] = g
        pub_sets = []
        for p in self.constraints:
            pub_sets.append(tuple(sorted({owner[x] for x in p if x in owner})))
        distinct = sorted(set(t for t in pub_sets if t))
        {t: i for i, t in enumerate(distinct)}
        sup = _published_support_counts(release.records, distinct)
        item_sup = np.bincount(release.records.indices, minlength=release.records.shape[1])
        csc = release.records.tocsc()
        verdict: dict[tuple, tuple | None] = {}
        for t, s in zip(distinct, sup.tolist(), strict=False):
            if s >= self.k:
                verdict[t] = None
            elif s > 0:
                verdict[t] = (t, s)
            elif len(t) == 1:
                verdict[t] = None
            else:
                low = [g for g in t if 0 < item_sup[g] < self.k]
                if low:
                    g = max(low, key=lambda x: item_sup[x])
                    verdict[t] = ((g,), int(item_sup[g]))
                elif len(t) == 2:
                    verdict[t] = None
                else:
                    verdict[t] = self._subset_violation(csc, t)
        bad: list[tuple[int, tuple]] = [(n, v) for n, t in enumerate(pub_sets) if t and (v := verdict[t]) is not None]
        examples = list(problems)
        for n, (itemset, s) in bad[: max(0, max_examples - len(examples))]:
            examples.append(
                {
                    "constraint": list(self.constraints[n]),
                    "published": [labels[g] for g in pub_sets[n]],
                    "violating_itemset": [labels[g] for g in itemset],
                    "support": s,
                }
            )
        worst = None
        if bad:
            n, (itemset, s) = min(bad, key=lambda b: b[1][1])
            worst = {"constraint": list(self.constraints[n]), "violating_itemset": [labels[g] for g in itemset],
                     "support": s}
        return AuditReport(
            model=self.name,
            satisfied=(not bad and n_bad == 0),
            violations=len(bad) + n_bad,
            worst=worst,
            counterexamples=examples,
            details={
                "unit": "unsatisfied privacy constraints, plus records that are not recodings",
                "constraints": len(self.constraints),
                "distinct_published_itemsets": len(distinct),
                "fully_suppressed": sum(1 for t in pub_sets if not t),
                "recoding_mismatches": n_bad,
                "k": self.k,
            },
        )

    def _audit_local(self, original, release, max_examples: int, progress) -> AuditReport:
        if self.constraints is None:
            report = KmAnonymity(self.k, self.m).audit(original, release, max_examples=max_examples, progress=progress)
            report.model = f"{self.name}, as k^m-anonymity of the local recoding"
            return report
        raise ParameterError(
            "privacy constraints (COAT, Def. 3.4) are defined for global recodings, where each item has one "
            "published image; a local recoding generalizes an item differently per record -- audit it with "
            "--model transactional, --model km, or --param privacy=km:M"
        )

    def _audit_km(self, original, release, labels, n_bad, problems, max_examples) -> AuditReport:
        violations, _ = minimal_infrequent_itemsets(release.records, self.k, self.m)
        found = [(lvl.itemsets[i].tolist(), int(lvl.supports[i])) for lvl in violations for i in range(len(lvl))]
        examples = list(problems)
        for items, s in found[: max(0, max_examples - len(examples))]:
            examples.append({"violating_itemset": [labels[g] for g in items], "support": s})
        worst = None
        if found:
            items, s = min(found, key=lambda t: t[1])
            worst = {"violating_itemset": [labels[g] for g in items], "support": s}
        return AuditReport(
            model=self.name,
            satisfied=(not found and n_bad == 0),
            violations=len(found) + n_bad,
            worst=worst,
            counterexamples=examples,
            details={
                "unit": "minimal published itemsets of <= m items with support in (0, k), plus records that "
                "are not recodings",
                "recoding_mismatches": n_bad,
                "k": self.k,
                "m": self.m,
            },
        )


def _blocks_of(original, utility_constraints) -> dict:
    """Original item -> block index, for 'all'/None, ItemGroups, mapping or list of lists."""
    if utility_constraints is None or (isinstance(utility_constraints, str) and utility_constraints == "all"):
        return {x: 0 for x in original.items}
    if isinstance(utility_constraints, ItemGroups):
        lists = list(utility_constraints)
    elif isinstance(utility_constraints, dict):
        lists = list(utility_constraints.values())
    else:
        lists = [list(b) for b in utility_constraints]
    owner: dict[Hashable, int] = {}
    for b, block in enumerate(lists):
        for x in as_labels(block):
            if x in owner and owner[x] != b:
                raise ParameterError(f"item {x!r} is in two utility constraints (#{owner[x]} and #{b})")
            owner[x] = b
    missing = [x for x in original.items if x not in owner]
    if missing:
        raise ParameterError(
            f"{len(missing)} item(s) of the data are in no utility constraint, e.g. {missing[:5]}; "
            f"utility constraints must partition the items"
        )
    return owner


def check_utility_constraints(original, release, utility_constraints, s: float, *, max_examples: int = 10) -> AuditReport:
    """Check Definition 3.8: every published item inside one block; suppressed items <= s.

    Parameters
    ----------
    original : TransactionData
    release : GlobalRecoding
    utility_constraints : None, "all", ItemGroups, mapping or list of item lists
    s : float
        Largest allowed fraction of suppressed items, in [0, 1].

    Returns
    -------
    AuditReport
        ``violations`` counts published items spanning two blocks, plus one
        when the suppression exceeds ``s``.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "b"], ["c"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": None})
    >>> check_utility_constraints(data, rel, [["a", "b"], ["c"]], s=0.5).satisfied
    True
    >>> check_utility_constraints(data, rel, [["a"], ["b"], ["c"]], s=0.5).violations
    1
    """
    require_global(release, "utility constraints")
    if _is_local_recoding(release):
        raise ParameterError(
            "utility constraints (COAT, Def. 3.8) are defined for global recodings; a local recoding has no "
            "item-to-published-item mapping to check (drop --param utility/s)"
        )
    if not 0.0 <= float(s) <= 1.0:
        raise ParameterError(f"s must be a fraction in [0, 1], got {s!r}")
    owner = _blocks_of(original, utility_constraints)
    spanning = []
    for pi in release.published_items:
        blocks = {owner.get(x, -1) for x in pi.members}
        if len(blocks) > 1:
            spanning.append({"published_item": pi.label, "blocks": sorted(blocks)})
    published = {x for pi in release.published_items for x in pi.members}
    suppressed = [x for x in original.items if x not in published]
    frac = len(suppressed) / max(original.n_items, 1)
    over = frac > float(s) + 1e-12
    examples = spanning[:max_examples]
    if over:
        examples.append({"suppressed": len(suppressed), "fraction": frac, "s": float(s), "items": suppressed[:10]})
    return AuditReport(
        model=f"utility constraints (s={float(s):g})",
        satisfied=not spanning and not over,
        violations=len(spanning) + int(over),
        worst=(spanning[0] if spanning else (examples[-1] if over else None)),
        counterexamples=examples,
        details={
            "unit": "published items spanning two utility constraints, plus 1 if suppression exceeds s",
            "suppressed_items": len(suppressed),
            "suppressed_fraction": frac,
            "s": float(s),
        },
    )


class UtilityConstraints(PrivacyModel):
    """Definition 3.8 as an audit model (for ``graphanon audit --model utility``-style use).

    Parameters
    ----------
    utility_constraints : None, "all", ItemGroups, mapping or list of item lists
    s : float

    See Also
    --------
    PrivacyConstraints : The privacy side.
    graphanon.algorithms.anonymize_coat : The anonymizer whose releases it checks.
    """

    def __init__(self, utility_constraints, s: float) -> None:
        self.utility_constraints = utility_constraints
        self.s = float(s)
        self.name = f"utility constraints (s={self.s:g})"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Audit ``release`` against the utility constraints (see :func:`check_utility_constraints`)."""
        return check_utility_constraints(original, release, self.utility_constraints, self.s, max_examples=max_examples)


class _PrivacyAndUtility(PrivacyModel):
    """Both audits of a COAT release: privacy constraints, then utility constraints."""

    def __init__(self, privacy: PrivacyConstraints, utility: UtilityConstraints) -> None:
        self.privacy, self.utility = privacy, utility
        self.name = f"{privacy.name} + {utility.name}"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        a = self.privacy.audit(original, release, max_examples=max_examples)
        b = self.utility.audit(original, release, max_examples=max_examples)
        return AuditReport(
            model=self.name,
            satisfied=a.satisfied and b.satisfied,
            violations=a.violations + b.violations,
            worst=a.worst or b.worst,
            counterexamples=(a.counterexamples + b.counterexamples)[:max_examples],
            details={"unit": "unsatisfied privacy constraints + utility violations", "privacy": a.details,
                     "utility": b.details},
        )


def _build_constraints(*, k, m, original, privacy, utility, s):
    k = require_k(k, "constraints")
    # the same default as ``graphanon anonymize -a coat``: km:M with -m M, else pgen
    spec = privacy if privacy is not None else ("pgen" if m is None else f"km:{m}")
    model = PrivacyConstraints(parse_privacy(spec, original, k), k)
    if utility is not None or s is not None:
        U = parse_utility("all" if utility is None else utility, original, None)
        return _PrivacyAndUtility(model, UtilityConstraints(U, 0.005 if s is None else s))
    return model


def _fraction(text: str) -> float:
    """A fraction like 0.005 or 0.5% (``ValueError`` naming the form otherwise)."""
    try:
        return parse_fraction(text)
    except ValueError:
        raise ValueError("give a fraction like 0.005 or 0.5%") from None


CONSTRAINTS_MODEL = ModelDeclaration(
    "constraints",
    "COAT privacy constraints (-k K --param privacy=FILE|pgen|km:M, default km:M with -m M else pgen; "
    "[utility=all|groups:FILE s=0.5%])",
    _build_constraints,
    params=(Parameter("privacy", str, None, "privacy constraints: FILE, pgen or km:M (default km:M with -m M, "
                                            "else pgen)"),
            Parameter("utility", str, None, "utility constraints: all or groups:FILE (audited with s)"),
            Parameter("s", _fraction, None, "largest fraction of suppressed items under the utility constraints "
                                            "(default 0.5%)")),
)
