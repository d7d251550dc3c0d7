"""(h, k, p)-coherence audit of global recodings.

References
----------
Xu, Wang, Pei, Wang, Shi, Fu. Anonymizing transaction databases for
publication. KDD 2008, Sec. 2 (definition of (h, k, p)-coherence and moles).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from numbers import Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.privacy.consistency import recoding_mismatches
from graphanon.privacy.declaration import ModelDeclaration, require_k
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.utils.declaration import Parameter
from graphanon.utils.labels import as_labels, parse_name_list
from graphanon.utils.memory import cost_blocks
from graphanon.utils.params import Interval, K, M, validate_params
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["HKPCoherence"]


class HKPCoherence(PrivacyModel):
    """(h, k, p)-coherence: no public itemset of at most ``p`` items is a mole.

    A published itemset ``beta`` of public items is a *mole* when its
    support is in (0, k), or when some private item ``e`` follows it with
    probability ``sup(beta + e) / sup(beta) > h``.

    Parameters
    ----------
    h : float in (0, 1]
        Largest allowed confidence of a private item given public ones.
    k : int
        Smallest support of a published public itemset.
    p : int or None
        Attacker knowledge in public items (None: unbounded).
    private_items : iterable
        Original items that are private. A published item standing for a
        private item is private; every other published item is public.

    See Also
    --------
    graphanon.algorithms.anonymize_mm : The anonymizer it checks.
    graphanon.privacy.KmAnonymity : The model without private items.

    Notes
    -----
    The audit (1) checks that the release is the recoding of the original
    data by its own published mapping, (2) searches the public columns of
    the published records for minimal itemsets of size <= p with support in
    (0, k), and (3) for every public itemset of size <= p with support >= k,
    counts its co-occurrence with every private published item (one sparse
    product per level: records holding the itemsets, transposed, times the
    private columns) and flags confidences above ``h``; each (itemset,
    private item) pair above ``h`` is one violation. With no private items and
    ``h = 1`` the verdict equals :class:`~graphanon.privacy.KmAnonymity`
    ``(k, p)``.

    Complexity: the level-wise search over the public columns
    (:func:`~graphanon.counting.support.minimal_infrequent_itemsets`) plus, per level,
    work proportional to the sum over records of (frequent public itemsets
    held) x (private items held), in blocks of about ``2^22`` incidences.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "s"], ["a", "s"], ["a", "b"], ["b"]])
    >>> rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    >>> HKPCoherence(0.5, 2, 1, ["s"]).audit(data, rel).satisfied
    False

    References
    ----------
    Xu et al. KDD 2008, Sec. 2.
    """

    @validate_params(
        {"h": [Interval(Real, 0, 1, closed="right")], "k": K, "p": M},
        meanings={"h": "the largest allowed probability of inferring a private item",
                  "p": "the largest set of public items an attacker knows; None: unbounded"},
    )
    def __init__(self, h: float, k: int, p: int | None, private_items: Iterable[Hashable] = ()) -> None:
        self.h = float(h)
        self.k = int(k)
        self.p = None if p is None else int(p)
        self.private_items = tuple(dict.fromkeys(as_labels(private_items, "private item")))
        self.name = (
            f"(h,k,p)-coherence (h={self.h:g}, k={self.k}, p={'inf' if self.p is None else self.p}, "
            f"{len(self.private_items)} private item(s))"
        )

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Audit ``release`` (a global recoding) for (h,k,p)-coherence against ``original``."""
        if not hasattr(release, "published_items") or not hasattr(release, "records"):
            raise ParameterError(
                f"(h,k,p)-coherence audits global recodings; got a {type(release).__name__}"
            )
        check_k(self.k, original.n_records)
        known = set(original.items)
        missing = [x for x in self.private_items if x not in known]
        if missing:
            raise ParameterError(
                f"{len(missing)} private item(s) are not items of the original data, e.g. "
                f"{', '.join(map(repr, missing[:5]))}"
            )
        n_bad, problems = recoding_mismatches(original, release, max_examples=max_examples)
        priv = set(self.private_items)
        labels = [pi.label for pi in release.published_items]
        is_private = np.array([any(x in priv for x in pi.members) for pi in release.published_items], dtype=bool)
        public_cols = np.flatnonzero(~is_private)
        private_cols = np.flatnonzero(is_private)
        R = release.records
        examples = list(problems)
        found = []  # (kind, itemset, support, extra)
        if len(public_cols):
            confidence = _ConfidenceCounter(R, public_cols, private_cols, self.h, max_examples)
            levels, _ = minimal_infrequent_itemsets(
                R[:, public_cols], self.k, self.p, prune=confidence if confidence.active else None
            )
            viol = [(lvl.size, public_cols[lvl.itemsets], lvl.supports) for lvl in levels]
        else:
            viol, confidence = [], None
        for _, sets, sups in viol:
            for row, sup in zip(sets, sups, strict=True):
                found.append(("support", tuple(int(x) for x in row), int(sup), None))
        n_conf = 0
        if confidence is not None and confidence.active:
            n_conf = confidence.count
            found.extend(confidence.examples())
        n_support = sum(1 for f in found if f[0] == "support")
        found.sort(key=lambda f: (f[0] != "support", f[2]))
        for kind, items, sup, extra in found[: max(0, max_examples - len(examples))]:
            ex = {"kind": kind, "itemset": [labels[g] for g in items], "support": sup}
            if extra is not None:
                ex["private_item"] = labels[extra[0]]
                ex["confidence"] = extra[1]
            examples.append(ex)
        worst = None
        if found:
            kind, items, sup, extra = found[0]
            worst = {"kind": kind, "itemset": [labels[g] for g in items], "support": sup}
            if extra is not None:
                worst["confidence"] = extra[1]
        total = n_support + n_conf + n_bad
        return AuditReport(
            model=self.name,
            satisfied=total == 0,
            violations=total,
            worst=worst,
            counterexamples=examples,
            details={
                "unit": "minimal public itemsets with support in (0, k), plus public itemsets with "
                "support >= k inferring a private item with confidence > h, plus records that are not recodings",
                "support_violations": n_support,
                "confidence_violations": n_conf,
                "recoding_mismatches": n_bad,
                "h": self.h,
                "k": self.k,
                "p": self.p,
            },
        )


class _ConfidenceCounter:
    """Counts, level by level, the (frequent public itemset, private item) pairs with confidence > ``h``.

    Passed to :func:`~graphanon.counting.support.minimal_infrequent_itemsets` as its
    ``prune`` hook, it sees every level's itemsets of support >= k with their
    record incidence ``P`` and flags none (the audit checks all of them, not
    just the minimal ones). ``P.T @ R[:, private]`` gives every joint support
    of a level at once. Examples keep, per level and private item, the first
    ``max_examples`` offending itemsets in the search's order.
    """

    def __init__(self, R, public_cols, private_cols, h: float, max_examples: int) -> None:
        self.active = h < 1.0 and len(private_cols) > 0
        self.public, self.private, self.h, self.max_examples = public_cols, private_cols, h, max_examples
        self.Rp = sp.csr_array(R)[:, private_cols].astype(np.int32) if self.active else None
        self.count = 0
        self._found: list = []  # (level, private column, itemset row, itemset, support, joint)

    def __call__(self, itemsets: np.ndarray, supports: np.ndarray, P) -> np.ndarray:
        P = sp.csc_array(P)
        level = itemsets.shape[1]
        taken = np.zeros(len(self.private), dtype=np.int64)  # examples kept per private column, this level
        for a, b in cost_blocks(np.diff(P.indptr), 1 << 22):
            C = (P[:, a:b].T @ self.Rp).tocoo()
            rows, cols, joint = C.row.astype(np.int64) + a, C.col.astype(np.int64), C.data.astype(np.int64)
            bad = np.flatnonzero(joint > self.h * supports[rows])
            self.count += len(bad)
            # the first max_examples offending itemsets (in search order) of each private column
            order = bad[np.lexsort((rows[bad], cols[bad]))]
            c = cols[order]
            first = np.searchsorted(c, c)  # start of each column's run
            keep = order[(np.arange(len(order)) - first) < self.max_examples - taken[c]]
            np.add.at(taken, cols[keep], 1)
            self._found.extend(
                (level, cc, r, itemsets[r], int(supports[r]), j)
                for cc, r, j in zip(cols[keep].tolist(), rows[keep].tolist(), joint[keep].tolist(), strict=True)
            )
        return np.zeros(len(itemsets), dtype=bool)  # flags none: every frequent itemset is checked

    def examples(self) -> list:
        """``("confidence", itemset, support, (private column, confidence))``, in search order."""
        return [
            ("confidence", tuple(int(x) for x in self.public[items]), sup, (int(self.private[c]), joint / sup))
            for _, c, _, items, sup, joint in sorted(self._found, key=lambda f: f[:3])
        ]


def _build_hkp(*, k, m, original, h, p, private):
    return HKPCoherence(h, require_k(k, "hkp"), m if p is None else p, private)


HKP_MODEL = ModelDeclaration(
    "hkp",
    "(h,k,p)-coherence (-k K; --param h=0.8,p=3 or -m for p; --param private=a,b,c)",
    _build_hkp,
    params=(Parameter("h", float, 1.0, "largest confidence of inferring a private item"),
            Parameter("p", int, None, "largest number of public items an attacker knows (default: -m)"),
            Parameter("private", parse_name_list, (), "the private items, comma-separated")),
    combined_params=True,
)
