"""What every attack returns, and the pieces every attack shares.

The truth, the targets, and the sampling-error margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from graphanon.errors import ParameterError
from graphanon.utils.randomness import check_random_state

__all__ = [
    "AttackResult", "attack_targets", "chernoff_margin", "check_release_size", "majority_hit", "majority_label_baseline",
    "random_row_baseline", "resolve_targets", "truth_rows", "with_baseline",
]


def _kl(q: float, p: float) -> float:
    """Kullback-Leibler divergence of Bernoulli(q) from Bernoulli(p), 0 <= p < q <= 1."""
    out = q * math.log(q / p) if q > 0 else 0.0
    if q < 1:
        out += (1 - q) * math.log((1 - q) / (1 - p))
    return out


def chernoff_margin(n: int, p: float, confidence: float = 0.999) -> float:
    """One-sided sampling margin of a mean of ``n`` values in [0, 1].

    The smallest ``t`` such that, when each value has expectation at most
    ``p``, the mean exceeds ``p + t`` with probability at most
    ``1 - confidence``: the Chernoff-Hoeffding bound
    ``P(mean >= p + t) <= exp(-n KL(p + t || p))`` (Hoeffding 1963, Thm. 1),
    solved for ``t`` by bisection. It is never wider than Hoeffding's
    ``sqrt(ln(1/delta) / (2 n))`` and much tighter for small ``p``.

    Parameters
    ----------
    n : int
        Number of independent (or negatively associated) values averaged.
    p : float
        The bound the expectation must respect.
    confidence : float
        In (0, 1).

    Returns
    -------
    float
        The margin, ``0 <= t <= 1 - p``.

    Notes
    -----
    Complexity: O(60) scalar evaluations.

    Examples
    --------
    >>> round(chernoff_margin(1000, 0.2, 0.999), 3)
    0.048
    >>> chernoff_margin(1000, 1.0)
    0.0

    References
    ----------
    Hoeffding. Probability inequalities for sums of bounded random variables.
    JASA 58 (1963), Theorem 1 (holds also for sampling without replacement, Sec. 6).
    """
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    if n <= 0 or p >= 1:
        return 0.0 if p >= 1 else 1.0 - p
    target = math.log(1.0 / (1.0 - confidence)) / n
    if p <= 0:
        # KL(t || 0) is infinite for t > 0: any success above 0 is a violation.
        return 0.0
    if _kl(1.0, p) <= target:
        return 1.0 - p
    lo, hi = p, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if _kl(mid, p) > target:
            hi = mid
        else:
            lo = mid
    return hi - p


@dataclass(frozen=True)
class AttackResult:
    """An attack's measured success next to the bound it must respect.

    Attributes
    ----------
    attack : str
        Name of the attack and strategy, e.g. ``"row-linkage/position"``.
    success : float
        Mean over the targets of the probability that the adversary's guess is
        right (a deterministic guess counts 0 or 1; a guess drawn uniformly
        among ``c`` candidates counts ``1/c`` when the truth is among them).
    bound : float
        What the privacy model lets the adversary achieve (``1/k``, ``1/l``,
        or a stated baseline).
    bound_kind : str
        Where the bound comes from (``"1/k"``, ``"1/l"``, ``"baseline: ..."``).
    n_targets : int
        Number of targets averaged.
    margin : float
        One-sided sampling margin at ``confidence`` (:func:`chernoff_margin`).
    confidence : float
    details : dict
        Attack-specific numbers (JSON-safe).
    baseline : float or None
        What an adversary achieves *without* the release's structure (always
        guessing the majority label, a random row among the candidates or
        among all rows, the most common tendency): the number the success
        must be read against. None when the attack computed none
        (:func:`with_baseline` fills it in from the kind of guess).
    baseline_kind : str
        How the baseline guesses, e.g. ``"majority label"``.
    """

    attack: str
    success: float
    bound: float
    bound_kind: str
    n_targets: int
    margin: float
    confidence: float
    details: dict = field(default_factory=dict)
    baseline: float | None = None
    baseline_kind: str = ""

    def within_bound(self) -> bool:
        """True unless the success exceeds the bound by more than the sampling margin."""
        return self.success <= self.bound + self.margin + 1e-12

    def to_dict(self) -> dict:
        """JSON-safe dictionary (for reports and benchmarks)."""
        return {
            "attack": self.attack,
            "success": round(float(self.success), 6),
            "bound": round(float(self.bound), 6),
            "bound_kind": self.bound_kind,
            "margin": round(float(self.margin), 6),
            "confidence": self.confidence,
            "n_targets": int(self.n_targets),
            "within_bound": self.within_bound(),
            "baseline": None if self.baseline is None else round(float(self.baseline), 6),
            "baseline_kind": self.baseline_kind,
            "details": self.details,
        }

    def __str__(self) -> str:
        """One line: the attack, its success against the bound, and the verdict."""
        verdict = "within bound" if self.within_bound() else "ABOVE BOUND"
        base = "" if self.baseline is None else f", baseline {self.baseline:.4f} ({self.baseline_kind})"
        return (
            f"{self.attack}: success {self.success:.4f} vs bound {self.bound:.4f} ({self.bound_kind}) "
            f"+ margin {self.margin:.4f}{base} over {self.n_targets} targets: {verdict}"
        )


def make_result(attack, per_target, bound, bound_kind, confidence, details=None, *,
                baseline: float | None = None, baseline_kind: str = "") -> AttackResult:
    """An :class:`AttackResult` from per-target success probabilities (and the baseline, when known)."""
    per_target = np.asarray(per_target, dtype=float)
    n = len(per_target)
    return AttackResult(
        attack=attack,
        success=float(per_target.mean()) if n else 0.0,
        bound=float(bound),
        bound_kind=bound_kind,
        n_targets=n,
        margin=chernoff_margin(n, float(bound), confidence),
        confidence=confidence,
        details=dict(details or {}),
        baseline=None if baseline is None else float(baseline),
        baseline_kind=baseline_kind,
    )


def majority_hit(dist: np.ndarray, truth: np.ndarray, *, tol: float = 1e-12) -> np.ndarray:
    """Per target, the chance that guessing a most likely label of its row of ``dist`` gives ``truth``.

    Parameters
    ----------
    dist : array, shape (targets, labels)
        Each target's label votes, counts or posterior (non-negative).
    truth : array of int
        Each target's true label code (a column of ``dist``).
    tol : float
        Labels within ``tol`` of the row's maximum count as tied with it.

    Returns
    -------
    array of float
        ``1/t`` when the true label is among the ``t`` labels at the maximum
        (ties split uniformly), else 0; 0 for a row without any vote.

    Notes
    -----
    Complexity: O(targets x labels).

    Examples
    --------
    >>> majority_hit(np.array([[2.0, 1.0], [1.0, 1.0], [0.0, 0.0]]), np.array([0, 1, 0])).tolist()
    [1.0, 0.5, 0.0]
    """
    if dist.shape[0] == 0:
        return np.zeros(0)
    best = dist.max(axis=1, keepdims=True)
    at_max = (dist >= best - tol) & (best > 0)
    hit = at_max[np.arange(len(truth)), truth]
    return np.where(hit, 1.0 / np.maximum(at_max.sum(axis=1), 1), 0.0)


def majority_label_baseline(labels, targets=None) -> float:
    """Success of always guessing the most common sensitive label (the label prior's mode).

    Parameters
    ----------
    labels : sequence
        The original sensitive label of every record.
    targets : array of int, optional
        The records attacked (default all).

    Returns
    -------
    float
        The largest share of one label among the targets (0 without targets).

    Notes
    -----
    Complexity: O(n) (one ``np.unique``).

    Examples
    --------
    >>> majority_label_baseline(["flu", "flu", "hiv", "flu"])
    0.75
    """
    lab = np.asarray(list(labels), dtype=object)
    if targets is not None:
        lab = lab[np.asarray(targets, dtype=np.int64)]
    if len(lab) == 0:
        return 0.0
    _, counts = np.unique(lab.astype(str), return_counts=True)
    return float(counts.max() / len(lab))


def random_row_baseline(n_rows: int) -> float:
    """Success of guessing a target's row uniformly among all ``n_rows`` rows: ``1/n_rows``.

    Examples
    --------
    >>> random_row_baseline(4)
    0.25
    """
    return 1.0 / n_rows if n_rows > 0 else 0.0


def with_baseline(result: AttackResult, original, release) -> AttackResult:
    """``result`` with a baseline: its own, else one told by what its bound bounds.

    A bound ``1/l`` bounds a guess of a sensitive label: the baseline is the
    majority label of ``original`` (:func:`majority_label_baseline`). A bound
    ``1/k`` bounds a guess of a row: the baseline is a random row
    (:func:`random_row_baseline`). Any other result is returned unchanged.
    An attack added later gets a baseline by this rule without code of its own.

    Parameters
    ----------
    result : AttackResult
    original : TransactionData
        The data the release was made from.
    release : Release

    Returns
    -------
    AttackResult

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data = from_iterable([["a"], ["b"], ["a"], ["c"]])
    >>> res = AttackResult("row-linkage/x", 0.5, 0.5, "1/k", 4, 0.1, 0.999)
    >>> with_baseline(res, data, data).baseline
    0.25
    """
    if result.baseline is not None:
        return result
    if result.bound_kind.startswith("1/l") and getattr(original, "labels", None) is not None:
        return replace(result, baseline=majority_label_baseline(original.labels),
                       baseline_kind="majority label")
    if result.bound_kind.startswith("1/k"):
        n_rows = int(getattr(release, "n_records", getattr(original, "n_records", 0)))
        return replace(result, baseline=random_row_baseline(n_rows), baseline_kind="random row")
    return result


def truth_rows(truth, n: int) -> np.ndarray:
    """The published row of each original record, checked.

    Parameters
    ----------
    truth : ReleaseLink, array-like of int, or None
        The private link (anything with ``row_of_record``) or the array itself.
    n : int
        Number of records.

    Returns
    -------
    ndarray of int64, a permutation of ``0..n-1``.
    """
    if truth is None:
        raise ParameterError(
            "this attack is scored against the truth: pass truth=release.link (the private link) "
            "or truth=<row of each record>"
        )
    rows = getattr(truth, "row_of_record", truth)
    try:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError(
            f"truth must be a ReleaseLink or an array of row numbers, got {type(truth).__name__}"
        ) from None
    if len(rows) != n:
        raise ParameterError(f"truth gives rows for {len(rows)} records; the data has {n}")
    if n and (rows.min() < 0 or rows.max() >= n or len(np.unique(rows)) != n):
        raise ParameterError("truth must map the records one-to-one onto the published rows 0..n-1")
    return rows


def resolve_targets(targets, n: int, rng=None) -> np.ndarray:
    """Record indices to attack.

    Parameters
    ----------
    targets : None, int or array-like of int
        None: every record; an int ``t``: ``min(t, n)`` records drawn without
        replacement from ``rng``; an array: those records.
    n : int
    rng : seed or Generator, optional
        Structure randomness (reproducible).
    """
    if targets is None:
        return np.arange(n, dtype=np.int64)
    if isinstance(targets, (int, np.integer)) and not isinstance(targets, bool):
        if targets < 1:
            raise ParameterError(f"targets must be at least 1, got {targets}")
        gen = check_random_state(rng)
        return np.sort(gen.choice(n, size=min(int(targets), n), replace=False)).astype(np.int64)
    t = np.asarray(targets, dtype=np.int64).reshape(-1)
    if len(t) and (t.min() < 0 or t.max() >= n):
        raise ParameterError(f"target record indices must lie in 0..{n - 1}")
    return t


def check_release_size(original, release) -> None:
    """Refuse a release that does not publish one row per original record."""
    n = original.n_records
    if release.n_records != n:
        raise ParameterError(
            f"the original data has {n} records but the release {release.n_records}: "
            "attacks compare a release with the data it was made from"
        )


def attack_targets(original, release, targets, rng=None, *, truth=None, scored: bool = True):
    """The records an attack targets and, when it is scored against the link, their true rows.

    Parameters
    ----------
    original : TransactionData
    release : Release
        Must publish one row per record of ``original``.
    targets, rng :
        As in :func:`resolve_targets`.
    truth : ReleaseLink or array of int, optional
        The private link; required when ``scored``.
    scored : bool
        Whether the attack is scored against ``truth`` (label inference is
        scored against the original labels instead).

    Returns
    -------
    targets : ndarray of int64
    truth_rows : ndarray of int64 or None
        ``truth[targets]`` (None when not ``scored``).
    """
    check_release_size(original, release)
    n = original.n_records
    rows = truth_rows(truth, n) if scored else None
    t = resolve_targets(targets, n, rng)
    return t, (None if rows is None else rows[t])

