"""Attack (a): row linkage -- which published row is the target's?

The adversary knows the target's record (its items) and the release. It
guesses the target's published row by one of two strategies:

``"position"``
    The row at the target's position in the input (a release that keeps the
    input order gives every record away).
``"id"``
    The row whose published identifier equals the target's record id
    (applies when the release shows ids; pseudonyms never equal them).

A guess the adversary can rule out (not among the target's candidate rows,
:mod:`graphanon.attacks.candidates`) is replaced by a uniform draw among the
candidates, the best the adversary can do without the secret. On a release
that hides the link, both strategies therefore succeed with probability
``mean(1 / |candidates|)``, at most ``1/k`` under nonreciprocal k-anonymity.
"""

from __future__ import annotations

import numpy as np

from graphanon.attacks.candidates import candidate_sets
from graphanon.attacks.result import AttackResult, attack_targets, make_result
from graphanon.errors import ParameterError

__all__ = ["STRATEGIES", "guess_rows", "row_linkage"]

STRATEGIES = ("position", "id")


def published_ids(release):
    """The identifiers a release shows per row (ids of the old model, or pseudonyms), or None."""
    for attr in ("record_ids", "pseudonyms"):
        ids = getattr(release, attr, None)
        if ids is not None:
            return ids
    return None


def guess_rows(original, release, targets, strategy: str) -> np.ndarray:
    """The row each target is linked to by ``strategy`` (-1: the strategy gives no row).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a"], ["b"]], record_ids=["x", "y"])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b"})
    >>> rel.pseudonyms                      # rows are named p1, p2: no input id
    ('p1', 'p2')
    >>> guess_rows(data, rel, np.array([0, 1]), "id").tolist()
    [-1, -1]
    >>> guess_rows(data, rel, np.array([0, 1]), "position").tolist()
    [0, 1]
    """
    targets = np.asarray(targets, dtype=np.int64)
    if strategy == "position":
        return targets.copy()
    if strategy != "id":
        raise ParameterError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    ids = published_ids(release)
    if ids is None:
        return np.full(len(targets), -1, dtype=np.int64)
    pub = np.asarray([str(x) for x in ids])
    order = np.argsort(pub, kind="stable")
    wanted = np.asarray([str(original.record_ids[i]) for i in targets])
    if len(pub) == 0:
        return np.full(len(targets), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(pub[order], wanted), len(pub) - 1)
    hit = pub[order][pos] == wanted
    return np.where(hit, order[pos], -1).astype(np.int64)


def model_level(release, given, names, what):
    """The privacy level (k or l) a bound uses.

    ``given``, else the first of ``names`` found in the release's published parameters, else
    None.
    """
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, (int, np.integer)) or given < 1:
            raise ParameterError(f"{what} must be a whole number >= 1, got {given!r}")
        return int(given)
    params = getattr(release, "params", {}) or {}
    for name in names:
        value = params.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    return None


def linkage_bound(release, k, sizes):
    """``(level, bound, bound_kind)`` of an adversary who guesses a target's row.

    ``1/k`` with ``k`` given, or for a nonreciprocal release its published
    ``k`` (or ``l``: its graph is l-regular); otherwise (global recodings,
    whose k^m promise does not cover an adversary who knows the whole
    record) the baseline ``mean(1/|candidates|)`` over the targets' candidate
    counts ``sizes``.
    """
    nonreciprocal = getattr(release, "kind", None) != "global_recoding"
    level = model_level(release, k, ("k", "l") if nonreciprocal else (), "k")
    if level:
        return level, 1.0 / level, "1/k"
    inv = np.where(sizes > 0, 1.0 / np.maximum(sizes, 1), 0.0)
    return None, float(inv.mean()) if len(inv) else 0.0, "baseline: mean 1/|candidates|"


def row_linkage(
    original,
    release,
    *,
    truth,
    strategy: str = "position",
    k: int | None = None,
    targets=None,
    rng=None,
    confidence: float = 0.999,
    candidates=None,
) -> AttackResult:
    """Attack (a): link each target to a published row; score against the private link.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from.
    release : GlobalRecoding or NonreciprocalRelease
    truth : ReleaseLink or array of int
        The private link: ``truth[i]`` is record ``i``'s true published row.
    strategy : {"position", "id"}
    k : int, optional
        Bound ``1/k``. Default: for a nonreciprocal release its published
        ``k`` (or ``l``, whose graph is l-regular); for a global recoding the
        *baseline* ``mean(1/|candidates|)``, because a k^m promise does not
        cover an adversary who knows the whole record.
    targets : None, int or array of int
        Records attacked (:func:`~graphanon.attacks.result.resolve_targets`).
    rng : seed or Generator
        Draws the targets when ``targets`` is an int.
    confidence : float
        Of the sampling margin.
    candidates : CandidateSets, optional
        Precomputed :func:`~graphanon.attacks.candidates.candidate_sets`.

    Returns
    -------
    AttackResult
        ``details``: ``exposed`` (share of targets whose strategy named a
        candidate row), ``baseline`` (``mean(1/|candidates|)``),
        ``min_candidates``, ``truth_outside`` (share of targets whose true row
        is not among their candidates: a malformed release).

    See Also
    --------
    label_inference : The sensitive label instead of the row.
    m_item_linkage : An adversary who knows m items, not the whole record.
    graphanon.privacy.NonreciprocalKAnonymity : The audit of the bound it tests.

    Notes
    -----
    Complexity: that of :func:`candidate_sets`, then O(targets log n).

    Examples
    --------
    >>> import numpy as np
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a"], ["b"]] * 20)
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)"})
    >>> res = row_linkage(data, rel, truth=np.arange(40))   # rows kept in input order
    >>> res.success, res.bound, res.within_bound()
    (1.0, 0.025, False)
    """
    t, truth_t = attack_targets(original, release, targets, rng, truth=truth)
    C = candidates if candidates is not None else candidate_sets(original, release)
    guess = guess_rows(original, release, t, strategy)
    size = C.sizes(t)
    usable = C.contains(t, guess)
    truth_in = C.contains(t, truth_t)
    inv = np.where(size > 0, 1.0 / np.maximum(size, 1), 0.0)
    per = np.where(usable, (guess == truth_t).astype(float), truth_in * inv)
    level, bound, kind = linkage_bound(release, k, size)
    baseline = float(inv.mean()) if len(t) else 0.0
    return make_result(
        f"row-linkage/{strategy}",
        per,
        bound,
        kind,
        confidence,
        {
            "k": level,
            "exposed": float(usable.mean()) if len(t) else 0.0,
            "baseline": baseline,
            "min_candidates": int(size.min()) if len(t) else 0,
            "truth_outside": float((~truth_in).mean()) if len(t) else 0.0,
        },
        baseline=baseline,
        baseline_kind="random candidate",
    )
