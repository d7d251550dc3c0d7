"""Entropy l-diversity and recursive (c, l)-diversity of nonreciprocal releases.

Machanavajjhala et al. define both on the label distribution of a
q*-block, the group of records an adversary cannot tell apart. In a
nonreciprocal (bit-voting) release, CAHD included, a record has no block:
it has *candidate rows*, and an adversary who knows the record reads one of
two label distributions off them, so both count:

* the **candidates**: every row whose possible worlds contain the record
  (the match graph) -- what the majority-label adversary of
  :func:`graphanon.attacks.label_inference` reads;
* the **viable candidates**: the rows some perfect matching of the match
  graph gives it (an adversary who knows the release is one-to-one rules
  out the others; the true row is always viable).

Counting every row once, ``p_i(s)`` is the share of record ``i``'s
(viable) candidate rows labelled ``s``. A release is

* **entropy l-diverse** when it is (distinct) l-diverse in the sense of
  :class:`~graphanon.privacy.nonreciprocal.LDiversity` and both
  distributions of every record have entropy ``-sum_s p_i(s) log p_i(s) >= log l``;
* **recursive (c, l)-diverse** when it is l-diverse and, with
  ``r_1 >= r_2 >= ...`` the label counts of either distribution of a record,
  ``r_1 < c (r_l + r_{l+1} + ...)`` for every record.

Why both: when labels correlate with records, rows a record cannot have
(non-viable candidates, e.g. of a neighbouring CAHD group) still carry its
neighbours' labels, and on e-book-like sessions they tip the majority guess
over all candidates towards the true label (CAHD l=3: 0.350 against 1/3 on
1,000 sessions) while every viable distribution is uniform over 3 labels.

Both imply the distinct condition on the distributions (at least ``l``
labels among the viable rows), and keeping the exact l-diverse factor check
of :class:`LDiversity` (``l`` equally possible labels per record, the
original label multiset) makes each strictly stronger than distinct
l-diversity here, as in the paper.

References
----------
A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam.
l-Diversity: Privacy beyond k-anonymity. ACM TKDD 1(1), 2007, Sec. 4.1
(Definition 4.1 entropy l-diversity, Definition 4.3 recursive
(c, l)-diversity). Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued
data by nonreciprocal recoding. KDD 2012, Sec. 3 (l-diversity of the
generalization graph).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.privacy.declaration import ModelDeclaration
from graphanon.privacy.match_graph import match_classes, require_nr
from graphanon.privacy.matchings import viable_edges
from graphanon.privacy.nonreciprocal import LDiversity
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.utils.declaration import Parameter
from graphanon.utils.params import Interval, validate_params

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = [
    "EntropyLDiversity",
    "RecursiveLDiversity",
    "candidate_label_counts",
    "diversity_model",
    "label_distribution_checks",
]

#: Relative slack of the entropy comparison (floating-point sums of p log p).
ENTROPY_TOLERANCE = 1e-9


def candidate_label_counts(original, release) -> tuple[sp.csr_array, sp.csr_array, tuple]:
    """Per original record, the label counts among its candidate rows and among its viable ones.

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease
        With published labels.

    Returns
    -------
    candidates, viable : scipy.sparse.csr_array, shape (n_records, n_labels)
        ``candidates[i, s]``: rows labelled ``s`` whose possible worlds contain
        record ``i``; ``viable[i, s]``: those of them some perfect matching
        gives to ``i``. With label groups (``release.label_groups``) each row
        counts with its group's label shares (floats summing to 1 per row).
    labels : tuple
        Label values by column.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> every, viable, _ = candidate_label_counts(data, anonymize_cahd(data, l=3, grouping="order"))  # the paper's
    >>> every.sum(axis=1).tolist()   # its group of three; records 2 and 4 also fit the other group
    [3, 3, 6, 3, 6, 3]
    >>> viable.sum(axis=1).tolist()  # ... and may trade places: those rows are viable too
    [3, 3, 6, 3, 6, 3]
    """
    if getattr(release, "label_groups", None) is not None:  # a row's label is a draw from its group
        from graphanon.privacy.label_groups import grouped_label_distributions

        out = grouped_label_distributions(original, release)
        return sp.csr_array(out["candidates"]), sp.csr_array(out["viable"]), tuple(out["names"])
    mc = match_classes(original, release, by_label=True)
    viable = viable_edges(mc.record_size, mc.row_size, mc.edge_record, mc.edge_row)
    n_labels = max(len(mc.labels) if mc.labels is not None else 0, 1)

    def per_record(keep):
        ea, eb = mc.edge_record[keep], mc.edge_row[keep]
        per_class = sp.coo_array(
            (mc.row_size[eb].astype(np.int64), (ea, mc.row_label[eb])), shape=(len(mc.record_size), n_labels)
        ).tocsr()
        per_class.sum_duplicates()
        return sp.csr_array(per_class[mc.record_class])

    return per_record(np.ones(len(viable), dtype=bool)), per_record(viable), tuple(mc.labels or ())


def label_distribution_checks(counts: sp.csr_array, l: int, c: float | None = None) -> dict:  # noqa: E741
    """Entropy and recursive-(c, l) quantities of each row of a label-count matrix.

    Parameters
    ----------
    counts : sparse matrix (n, n_labels)
        Non-negative label counts per record (one block per row).
    l : int
    c : float, optional
        The recursive constant; without it ``recursive_ok`` is all False.

    Returns
    -------
    dict of ndarrays (n,)
        ``entropy`` (natural log), ``entropy_ok`` (``>= log l``), ``top`` (``r_1``),
        ``tail`` (``r_l + r_{l+1} + ...``), ``recursive_ok`` (``r_1 < c * tail``),
        ``distinct`` (labels with a positive count), ``max_share`` (``r_1 / sum``).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> out = label_distribution_checks(sp.csr_array([[2, 1, 1], [1, 1, 1]]), 3, c=2.0)
    >>> out["entropy_ok"].tolist(), out["recursive_ok"].tolist(), out["tail"].tolist()
    ([False, True], [False, True], [1, 1])
    """
    C = sp.coo_array(counts)
    keep = C.data > 0
    row, data = C.row[keep].astype(np.int64), C.data[keep].astype(np.float64)
    n = C.shape[0]
    total = np.bincount(row, weights=data, minlength=n)
    p = data / np.maximum(total[row], 1.0)
    entropy = -np.bincount(row, weights=p * np.log(p), minlength=n)
    entropy_ok = (total > 0) & (entropy >= math.log(l) * (1.0 - ENTROPY_TOLERANCE) - ENTROPY_TOLERANCE)
    # rank of each count within its record, largest first
    order = np.lexsort((-data, row))
    row_s, data_s = row[order], data[order]
    start = np.searchsorted(row_s, np.arange(n))
    rank = np.arange(len(row_s)) - start[row_s]
    top = np.zeros(n)
    top[row_s[rank == 0]] = data_s[rank == 0]
    tail = np.bincount(row_s[rank >= l - 1], weights=data_s[rank >= l - 1], minlength=n)
    recursive_ok = (total > 0) & (top < c * tail) if c is not None else np.zeros(n, dtype=bool)
    return {
        "entropy": entropy,
        "entropy_ok": entropy_ok,
        "top": top.astype(np.int64),
        "tail": tail.astype(np.int64),
        "recursive_ok": recursive_ok,
        "distinct": np.bincount(row, minlength=n).astype(np.int64),
        "max_share": np.divide(top, total, out=np.zeros(n), where=total > 0),
    }


class _DistributionDiversity(PrivacyModel):
    """Distinct l-diversity (:class:`LDiversity`) plus a condition on every record's label distribution."""

    variant = ""

    @validate_params({"l": [Interval(Integral, 1, None)]})
    def __init__(self, l: int) -> None:  # noqa: E741
        self.l = int(l)  # noqa: E741

    def _ok(self, checks: dict) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def _example(self, checks: dict, i: int) -> dict:  # pragma: no cover - overridden
        raise NotImplementedError

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Check ``release`` against ``original`` (``progress(done, total, message)`` optional)."""
        require_nr(release, self.variant)
        if getattr(release, "label_groups", None) is not None:  # labels published apart from the rows
            from graphanon.privacy.label_groups import grouped_label_audit

            variant = "entropy" if isinstance(self, EntropyLDiversity) else "recursive"
            return grouped_label_audit(self.name, original, release, self.l, variant, getattr(self, "c", None),
                                       max_examples=max_examples)
        distinct = LDiversity(self.l).audit(original, release, max_examples=max_examples, progress=progress)
        every, viable, labels = candidate_label_counts(original, release)
        c = getattr(self, "c", None)
        checks = {"candidates": label_distribution_checks(every, self.l, c),
                  "viable": label_distribution_checks(viable, self.l, c)}
        ok = self._ok(checks["candidates"]) & self._ok(checks["viable"])
        bad = np.flatnonzero(~ok)
        examples = list(distinct.counterexamples)
        for i in bad[: max(0, max_examples - len(examples))]:
            ex = {"record": int(i), "items": [str(original.items[j]) for j in original.record_items(int(i))]}
            for which, counts in (("candidates", every), ("viable", viable)):
                row = counts[[int(i)]].tocoo()
                pairs = sorted(zip(row.col.tolist(), row.data.tolist(), strict=True), key=lambda t: -t[1])
                ex[f"{which}_label_counts"] = {str(labels[s]): int(v) for s, v in pairs}
                ex[which] = self._example(checks[which], int(i))
            examples.append(ex)
        violations = distinct.violations + len(bad)
        n = len(ok)
        details = {
            **distinct.details,
            "unit": f"records whose candidates' or viable candidates' label distribution fails {self.variant} "
            "+ the violations of distinct l-diversity",
            "distinct_l_diversity": distinct.satisfied,
            "distribution_violations": int(len(bad)),
            "log_l": math.log(self.l),
        }
        for which, ch in checks.items():
            details[f"min_entropy_{which}"] = float(ch["entropy"].min()) if n else 0.0
            details[f"max_label_share_{which}"] = float(ch["max_share"].max()) if n else 0.0
            details[f"mean_max_label_share_{which}"] = float(ch["max_share"].mean()) if n else 0.0
        details["min_entropy"] = min(details["min_entropy_candidates"], details["min_entropy_viable"])
        worst = None
        if violations:
            worst = {"min_entropy": details["min_entropy"],
                     "max_label_share": max(details["max_label_share_candidates"], details["max_label_share_viable"])}
        return AuditReport(
            model=self.name,
            satisfied=violations == 0,
            violations=int(violations),
            worst=worst,
            counterexamples=examples[:max_examples],
            details=details,
        )


class EntropyLDiversity(_DistributionDiversity):
    """Entropy l-diversity of a nonreciprocal (or CAHD) release.

    Satisfied when the release is l-diverse (:class:`LDiversity`: original
    label multiset, an l-regular match subgraph with ``l`` distinct labels
    per record) and the labels of every record's candidate rows, and those
    of its viable candidate rows, have entropy at least ``log l`` (module
    docstring).

    Parameters
    ----------
    l : int

    See Also
    --------
    graphanon.privacy.LDiversity : Distinct l-diversity.
    RecursiveLDiversity : Recursive (c,l)-diversity.
    graphanon.algorithms.anonymize_cahd : The anonymizer that promises it.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rep = EntropyLDiversity(3).audit(data, anonymize_cahd(data, l=3, diversity="entropy"))
    >>> rep.satisfied, round(rep.details["min_entropy"], 4) >= round(rep.details["log_l"], 4)
    (True, True)

    References
    ----------
    Machanavajjhala et al., TKDD 2007, Definition 4.1.
    """

    variant = "entropy l-diversity"

    @validate_params({"l": [Interval(Integral, 1, None)]})
    def __init__(self, l: int) -> None:  # noqa: E741
        super().__init__(l)
        self.name = f"nonreciprocal entropy l-diversity (l={self.l})"

    def _ok(self, checks):
        return checks["entropy_ok"]

    def _example(self, checks, i):
        return {"entropy": float(checks["entropy"][i]), "needs_at_least": math.log(self.l)}


class RecursiveLDiversity(_DistributionDiversity):
    """Recursive (c, l)-diversity of a nonreciprocal (or CAHD) release.

    Satisfied when the release is l-diverse (:class:`LDiversity`) and, for
    every record, ``r_1 < c (r_l + ... + r_m)`` where ``r_1 >= ... >= r_m``
    are the label counts among its candidate rows, and again among its viable
    candidate rows (module docstring).

    Parameters
    ----------
    c : float
        ``> 0``.
    l : int

    See Also
    --------
    graphanon.privacy.LDiversity : Distinct l-diversity.
    EntropyLDiversity : Entropy l-diversity.
    graphanon.algorithms.anonymize_cahd : The anonymizer that promises it.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> RecursiveLDiversity(2.0, 2).audit(data, anonymize_cahd(data, l=2, diversity="recursive", c=2.0)).satisfied
    True

    References
    ----------
    Machanavajjhala et al., TKDD 2007, Definition 4.3.
    """

    variant = "recursive (c,l)-diversity"

    @validate_params({"c": [Interval(Real, 0, math.inf, closed="neither")], "l": [Interval(Integral, 1, None)]})
    def __init__(self, c: float, l: int) -> None:  # noqa: E741
        super().__init__(l)
        self.c = check_c(c)
        self.name = f"nonreciprocal recursive (c,l)-diversity (c={self.c:g}, l={self.l})"

    def _ok(self, checks):
        return checks["recursive_ok"]

    def _example(self, checks, i):
        return {"r1": int(checks["top"][i]), "r_l_and_below": int(checks["tail"][i]), "c": self.c}


def check_c(c) -> float:
    """The recursive-diversity constant: a finite number ``> 0`` (clear error otherwise)."""
    try:
        value = float(c)
    except (TypeError, ValueError):
        raise ParameterError(f"c must be a number > 0, got {c!r}") from None
    if isinstance(c, bool) or not math.isfinite(value) or value <= 0:
        raise ParameterError(f"c must be a finite number > 0, got {c!r}")
    return value


def diversity_model(l: int, diversity: str = "distinct", c: float | None = None) -> PrivacyModel:  # noqa: E741
    """The audit model of an l-diversity variant.

    Parameters
    ----------
    l : int
    diversity : {"distinct", "entropy", "recursive"}
    c : float, optional
        Needed (and only allowed) for ``"recursive"``.

    Returns
    -------
    PrivacyModel

    Examples
    --------
    >>> diversity_model(3, "recursive", 2).name
    'nonreciprocal recursive (c,l)-diversity (c=2, l=3)'
    """
    model: PrivacyModel
    if diversity == "distinct":
        model = LDiversity(l)
    elif diversity == "entropy":
        model = EntropyLDiversity(l)
    elif diversity == "recursive":
        if c is None:
            raise ParameterError("recursive (c,l)-diversity needs c (--param c=C)")
        return RecursiveLDiversity(c, l)
    else:
        raise ParameterError(f"diversity must be 'distinct', 'entropy' or 'recursive', got {diversity!r}")
    if c is not None:
        raise ParameterError(f"c applies to diversity=recursive only, not {diversity!r}")
    return model


def _build(variant):
    def build(*, k, m, original, l, diversity, c):  # noqa: E741
        l = k if l is None else l  # noqa: E741
        chosen = variant if diversity is None else diversity
        if l is None:
            name = "ldiversity" if variant == "distinct" else f"{variant}-ldiversity"
            raise ParameterError(f"audit model {name!r} needs --param l=L (or -k L)")
        if chosen != variant and variant != "distinct":
            raise ParameterError(f"audit model '{variant}-ldiversity' got --param diversity={chosen}")
        return diversity_model(l, chosen, c)

    return build


#: The parameters of the three l-diversity models (their ranges are :func:`diversity_model`'s declaration).
_PARAMS = (Parameter("l", int, None, "l of l-diversity (default: -k)"),
           Parameter("diversity", str, None, "distinct, entropy or recursive (default: the model's)"),
           Parameter("c", float, None, "c of recursive (c,l)-diversity"))

LDIVERSITY_MODEL = ModelDeclaration(
    "ldiversity",
    "l-diversity of a nonreciprocal release (--param l=L [diversity=distinct|entropy|recursive, c=C]): "
    "l-regular l-diverse match subgraph, original labels; with label groups: every group and every record's "
    "label mixture",
    _build("distinct"), params=_PARAMS,
)
ENTROPY_LDIVERSITY_MODEL = ModelDeclaration(
    "entropy-ldiversity",
    "entropy l-diversity of a nonreciprocal release (--param l=L): l-diverse, and the labels of every "
    "record's viable rows have entropy >= log l",
    _build("entropy"), params=_PARAMS,
)
RECURSIVE_LDIVERSITY_MODEL = ModelDeclaration(
    "recursive-ldiversity",
    "recursive (c,l)-diversity of a nonreciprocal release (--param l=L,c=C): l-diverse, and r_1 < c (r_l + ...) "
    "over the labels of every record's viable rows",
    _build("recursive"), params=_PARAMS,
)
