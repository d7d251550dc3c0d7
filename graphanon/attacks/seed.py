"""Attack (d): seed recovery -- the adversary who learns (or guesses) the seed.

The adversary knows the data (what the anonymizer needs: for k-only
nonreciprocal recoding the records without their labels) and the method,
and tries candidate seeds. A seed is *recognized* when re-running the
anonymizer with it publishes the same rows as the release (the same
multiset of published records; the order is compared too). With a
recognized seed the adversary predicts each target's row from its own
re-run: the re-run's row when the re-run reproduces the published row order
exactly, otherwise a uniform pick among the published rows identical to the
re-run's row for that record.

When the seed decides the secret choice (which assignment, which shuffle)
the prediction is exact and the attack succeeds for every record. When the
seed only fixes the structure (the publication model of graphanon), every
re-run draws a fresh secret, and a prediction is right for a target with
probability at most ``1/k``. Each re-run is one secret draw, so the
sampling margin is taken over the number of re-runs, not of targets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from graphanon.attacks.candidates import candidate_sets, row_signatures
from graphanon.attacks.linkage import linkage_bound
from graphanon.attacks.result import AttackResult, attack_targets, chernoff_margin
from graphanon.errors import ParameterError

__all__ = ["seed_recovery"]


def _own_truth(release) -> np.ndarray:
    """The re-run's own link (the adversary made it); releases without a link keep the input order."""
    link = getattr(release, "link", None)
    if link is not None:
        return np.asarray(link.row_of_record, dtype=np.int64)
    return np.arange(release.n_records, dtype=np.int64)


def _chance_of_reproduction(sig: np.ndarray, reruns: int) -> float:
    """Union bound on the probability that one of ``reruns`` uniformly shuffled re-runs shows the rows in the published order: ``reruns * prod(c!) / n!`` over the multiplicities ``c`` of identical rows."""
    from scipy.special import gammaln

    n = len(sig)
    if n == 0:
        return 1.0
    _, counts = np.unique(sig, axis=0, return_counts=True)
    log_p = float(gammaln(counts + 1).sum() - gammaln(n + 1)) + np.log(max(reruns, 1))
    return float(min(1.0, np.exp(log_p)))


def _signature_ids(a: np.ndarray, b: np.ndarray):
    """Shared integer ids of the rows of two signature arrays."""
    _, inv = np.unique(np.vstack([a, b]), axis=0, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    return inv[: len(a)], inv[len(a) :]


def seed_recovery(
    original,
    release,
    anonymize: Callable,
    seeds: Iterable[int],
    *,
    truth,
    draws: int = 1,
    k: int | None = None,
    targets=None,
    rng=None,
    confidence: float = 0.999,
) -> AttackResult:
    """Attack (d): recover the seed by re-running the anonymizer, then predict rows.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from (candidates and scoring).
    release : GlobalRecoding or NonreciprocalRelease
        The published release.
    anonymize : callable ``(original, seed) -> Release``
        The adversary's re-run: the method and the knowledge it is given
        (for example ``lambda d, s: anonymize_nonreciprocal(d, k=5, rng=s)``; give it
        the data without labels to model an adversary who does not know them).
        The returned release's own ``link`` (if any) is the adversary's.
    seeds : iterable of int (or None)
        Seeds tried (the published seed, or a brute-force range; ``[None]``
        for a method without a seed: the adversary just re-runs it).
    truth : ReleaseLink or array of int
        The private link of ``release``.
    draws : int
        Re-runs per recognized seed; each is one independent secret draw
        when the secret does not come from the seed, so the sampling margin
        is taken over the re-runs -- unless a re-run reproduced the
        published row order, an event a secret shuffle makes less likely
        than ``1 - confidence`` (``chance_of_exact_reproduction``): then the
        recovery is verified and the margin is taken over the targets.
    k : int, optional
        Bound ``1/k``; default as in
        :func:`~graphanon.attacks.linkage.row_linkage`.
    targets, rng, confidence :
        As in :func:`~graphanon.attacks.linkage.row_linkage`.

    Returns
    -------
    AttackResult
        ``success``: mean over re-runs and targets of the prediction being
        the true row (with no recognized seed: the baseline guess among
        candidates). ``details``: ``recognized`` (seeds whose re-run publishes
        the same rows), ``identical`` (seeds whose re-run reproduces the row
        order too: when there are any, only they are used), ``per_draw``
        (success of each re-run used), ``tried``,
        ``chance_of_exact_reproduction``.

    See Also
    --------
    graphanon.attacks.known_label_attack : The seed plus known labels.
    graphanon.attacks.same_seed_attack : Two releases made with one seed.

    Notes
    -----
    Complexity: ``len(seeds) + (draws - 1) * recognized`` anonymizer runs, O(n log n)
    each to compare, plus :func:`candidate_sets` once.

    Examples
    --------
    >>> import numpy as np
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> def leaky(d, seed):   # a method whose seed also decides the secret choices
    ...     return anonymize_nonreciprocal(d, k=3, order="identity", rng=seed, unsafe_secret_seed=seed)
    >>> published = leaky(data, 7)
    >>> res = seed_recovery(data, published, leaky, range(10), truth=published.link, draws=8)
    >>> res.details["identical"], res.success, res.within_bound()
    ([7], 1.0, False)
    """
    t, truth_t = attack_targets(original, release, targets, rng, truth=truth)
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ParameterError(f"draws must be a whole number >= 1, got {draws!r}")
    pub_sig = row_signatures(release)
    pub_sorted = pub_sig[np.lexsort(pub_sig.T[::-1])]

    def rerun_of(seed):
        rerun = anonymize(original, seed)
        return rerun, row_signatures(rerun)

    exact: list = []
    structural: list = []
    tried = 0
    for seed in seeds:
        tried += 1
        rerun, sig = rerun_of(seed)
        if sig.shape != pub_sig.shape or not np.array_equal(
            sig[np.lexsort(sig.T[::-1])], pub_sorted
        ):
            continue
        (exact if np.array_equal(sig, pub_sig) else structural).append(
            (None if seed is None else int(seed), rerun, sig)
        )
    # A re-run that reproduces the published row order pins the seed down; otherwise every
    # seed that reproduces the published rows is equally plausible.
    chosen = exact or structural
    per_draw = []
    for seed, rerun, sig in chosen:
        for draw in range(int(draws)):
            if draw:
                rerun, sig = rerun_of(seed)
            mine = _own_truth(rerun)[t]
            if len(t) == 0:
                per_draw.append(0.0)
            elif np.array_equal(sig, pub_sig):
                per_draw.append(float((mine == truth_t).mean()))
            else:
                rid, pid = _signature_ids(sig, pub_sig)
                same = np.bincount(pid, minlength=int(max(rid.max(), pid.max()) + 1))
                hit = pid[truth_t] == rid[mine]
                per_draw.append(float(np.where(hit, 1.0 / same[rid[mine]], 0.0).mean()))
    C = candidate_sets(original, release)
    size = C.sizes(t)
    level, bound, kind = linkage_bound(release, k, size)
    chance = _chance_of_reproduction(pub_sig, tried * int(draws))
    if per_draw:
        success = float(np.mean(per_draw))
        # Each re-run is one secret draw; but a re-run reproducing the published row order by
        # chance is itself so unlikely that, when it happens, the recovery is verified.
        n_units = len(t) if exact and chance <= 1 - confidence else len(per_draw)
    else:
        per = np.where(C.contains(t, truth_t), 1.0 / np.maximum(size, 1), 0.0)
        success, n_units = (float(per.mean()) if len(t) else 0.0), len(t)
    return AttackResult(
        attack="seed-recovery",
        success=success,
        bound=bound,
        bound_kind=kind,
        n_targets=len(t),
        margin=chernoff_margin(n_units, bound, confidence),
        confidence=confidence,
        details={
            "k": level,
            "tried": tried,
            "recognized": [x[0] for x in exact + structural],
            "identical": [x[0] for x in exact],
            "per_draw": [round(x, 6) for x in per_draw],
            "draws": int(draws),
            "chance_of_exact_reproduction": float(chance),
        },
        baseline=float(np.where(size > 0, 1.0 / np.maximum(size, 1), 0.0).mean()) if len(t) else 0.0,
        baseline_kind="random candidate",
    )
