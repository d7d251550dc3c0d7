"""Attack (j): label inference by an adversary who ranks the target's candidate rows.

The uniform adversary of :func:`~graphanon.attacks.labels.label_inference`
weighs every candidate row of a target alike. This one knows the target's
items, scores each candidate row by a function of the published rows and
those items, takes the row of **least score** (ties split uniformly: a tie
of ``c`` rows counts the share of them carrying the true label) and reads
its label. Built-in scores (``SCORES``):

``"hamming"``
    Hamming distance between the target's items and the row's base: the
    row whose published content is nearest.
``"flips"``
    Flips the target needs on the row's distance positions (its Hamming
    distance to the base restricted to the distance bitmap; the other
    positions agree for every candidate).
``"worlds"``
    Log of the row's number of possible worlds: under uniform possible
    worlds the likelihood of the target's record is ``1 / worlds``, so the
    row of fewest worlds is the most likely owner.
``"slack"``
    The row's threshold minus the flips the target needs: the candidate the
    target sits deepest inside.
``"threshold"``
    The row's threshold.
``"degree"``
    The row's degree in the match graph (the fewer records a row can stand
    for, the likelier it is the target's).
``"position"``
    The row's index in the file (the first candidate).

Every name also has a reversed form ``"-name"`` (the row of greatest
score). ``score`` may also be any callable ``f(ctx) -> scores`` over the
candidate edges (see :class:`RankingContext`). :func:`ranking_label_inference`
with ``score="best"`` runs every built-in score and its reverse and reports
the best adversary.

Bound
-----
``1/l`` for an l-diverse release (published ``l``, or ``l=`` given);
otherwise the link-free reference of
:func:`~graphanon.attacks.labels.label_inference`. An l-diverse release in
which a row's label is that of a record drawn uniformly among the row's
``l`` preimages, independently of the published content, and whose
preimages carry ``l`` distinct labels, keeps *every* such adversary at
``1/l`` or below for every target, whatever the score
(``docs/attacks.md``, (j)). A release with label groups
(``release.label_groups``, ``nr --param l=L`` by default) is read as it
is published: the label of a picked row is a uniform draw from its group,
so each pick counts the share of the target's label in that group (the
exact expectation over the secret deal), at most ``1/l``.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (uniform possible worlds) and
Fig. 4b (each published record carries the label of its own record). Issue
30, item 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.candidates import candidate_sets, label_codes, row_label_hit
from graphanon.attacks.linkage import model_level
from graphanon.attacks.result import AttackResult, attack_targets, make_result
from graphanon.errors import ParameterError

__all__ = ["SCORES", "RankingContext", "ranking_label_inference", "ranking_scores"]

_EDGE_BLOCK = 1_000_000  # candidate edges scored per block (sparse row products)


@dataclass(frozen=True)
class RankingContext:
    """What a ranking score may read: the release, the target's items and the candidate edges.

    Attributes
    ----------
    release : NonreciprocalRelease
    X : scipy.sparse.csr_array
        The original records in the release's item columns (the adversary
        reads only its targets' rows).
    targets, rows : ndarray of int64
        The candidate edges: ``rows[e]`` is a candidate row of record
        ``targets[e]``.
    row_degree : ndarray of int64
        Each row's degree in the match graph (over all records).
    """

    release: Any
    X: sp.csr_array
    targets: np.ndarray
    rows: np.ndarray
    row_degree: np.ndarray


def _rowwise_overlap(A: sp.csr_array, a_idx: np.ndarray, B: sp.csr_array, b_idx: np.ndarray) -> np.ndarray:
    """``|A[a_idx[e]] & B[b_idx[e]]|`` for every edge ``e``, in blocks."""
    out = np.empty(len(a_idx), dtype=np.int64)
    for lo in range(0, len(a_idx), _EDGE_BLOCK):
        hi = min(lo + _EDGE_BLOCK, len(a_idx))
        prod = A[a_idx[lo:hi]].multiply(B[b_idx[lo:hi]])
        out[lo:hi] = np.asarray(prod.sum(axis=1)).reshape(-1)
    return out


def _in_release_columns(original, release) -> sp.csr_array:
    """The original records over the release's item columns.

    Items the release lacks are dropped: such a record matches no row, so it has no candidate edge to score.
    """
    index = {x: j for j, x in enumerate(release.items)}
    cols = np.array([index.get(x, -1) for x in original.items], dtype=np.int64)
    coo = sp.csr_array(original.matrix).tocoo()
    keep = (cols[coo.col] >= 0) & (coo.data != 0)
    X = sp.csr_array((np.ones(int(keep.sum()), dtype=bool), (coo.row[keep], cols[coo.col[keep]])),
                     shape=(original.n_records, len(release.items)))
    X.sum_duplicates()
    return X


def _lengths(M: sp.csr_array) -> np.ndarray:
    return np.diff(M.indptr).astype(np.int64)


def _hamming(ctx: RankingContext) -> np.ndarray:
    B = ctx.release.base
    both = _rowwise_overlap(ctx.X, ctx.targets, B, ctx.rows)
    return _lengths(ctx.X)[ctx.targets] + _lengths(B)[ctx.rows] - 2 * both


def _flips(ctx: RankingContext) -> np.ndarray:
    B, D = ctx.release.base, ctx.release.distance
    XD = _rowwise_overlap(ctx.X, ctx.targets, D, ctx.rows)
    BD = _lengths(sp.csr_array(B.multiply(D)))[ctx.rows]
    XBD = _rowwise_overlap(ctx.X, ctx.targets, sp.csr_array(B.multiply(D)), ctx.rows)
    return XD + BD - 2 * XBD


def _worlds(ctx: RankingContext) -> np.ndarray:
    from graphanon.release.bit_voting import log_cum_binom

    m = _lengths(ctx.release.distance)
    t = np.minimum(np.asarray(ctx.release.threshold, dtype=np.int64), m)
    table = log_cum_binom(int(m.max(initial=0)))
    return table[m, t][ctx.rows]


def _slack(ctx: RankingContext) -> np.ndarray:
    return np.asarray(ctx.release.threshold, dtype=np.int64)[ctx.rows] - _flips(ctx)


def _threshold(ctx: RankingContext) -> np.ndarray:
    return np.asarray(ctx.release.threshold, dtype=np.int64)[ctx.rows]


def _degree(ctx: RankingContext) -> np.ndarray:
    return ctx.row_degree[ctx.rows]


def _position(ctx: RankingContext) -> np.ndarray:
    return ctx.rows


SCORES: dict[str, Callable[[RankingContext], np.ndarray]] = {
    "hamming": _hamming,
    "flips": _flips,
    "worlds": _worlds,
    "slack": _slack,
    "threshold": _threshold,
    "degree": _degree,
    "position": _position,
}


def ranking_scores(name: str, ctx: RankingContext) -> np.ndarray:
    """The score of every candidate edge under a built-in score (``"name"`` or ``"-name"``).

    Parameters
    ----------
    name : str
        A key of :data:`SCORES`, optionally prefixed with ``-`` (reversed:
        the adversary then takes the row of greatest score).
    ctx : RankingContext

    Returns
    -------
    ndarray of float, one score per candidate edge (least = picked).
    """
    reverse = name.startswith("-")
    fn = SCORES.get(name[1:] if reverse else name)
    if fn is None:
        raise ParameterError(f"unknown ranking score {name!r}; known: {', '.join(SCORES)} (or '-' + one of them)")
    s = np.asarray(fn(ctx), dtype=float)
    return -s if reverse else s


def _top_share(targets: np.ndarray, scores: np.ndarray, right: np.ndarray, n_targets: int) -> np.ndarray:
    """Per target (edges grouped by ``targets``, 0..n_targets-1), the mean of ``right`` over its least-score rows.

    ``right[e]`` is the chance that reading row ``e`` gives the target's label (1/0, or a group share).
    """
    best = np.full(n_targets, np.inf)
    np.minimum.at(best, targets, scores)
    top = scores == best[targets]
    n_top = np.bincount(targets[top], minlength=n_targets)
    n_right = np.bincount(targets[top], weights=np.asarray(right, dtype=float)[top], minlength=n_targets)
    return np.where(n_top > 0, n_right / np.maximum(n_top, 1), 0.0)


def ranking_label_inference(
    original,
    release,
    *,
    score: str | Callable[[RankingContext], np.ndarray] = "best",
    l: int | None = None,  # noqa: E741
    targets=None,
    rng=None,
    confidence: float = 0.999,
    candidates=None,
) -> AttackResult:
    """Attack (j): rank each target's candidate rows by a score, read the label of the top one.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from, with its sensitive labels (the
        truth the attack is scored against; the adversary reads only its
        target's items).
    release : NonreciprocalRelease
        A bit-voting release (``nr``, ``cahd``) with published labels.
    score : str or callable, default "best"
        A key of :data:`SCORES` (``"-name"``: reversed), a callable
        ``f(ctx: RankingContext) -> ndarray`` (one score per candidate edge,
        least picked), or ``"best"``: every built-in score and its reverse,
        the best reported (``details["per_score"]`` holds them all; the
        margin then covers one adversary chosen after the fact among 14, so
        read it as a screening, not a test at ``confidence``).
    l : int, optional
        Bound ``1/l``; default the release's published ``l``; without one, the
        link-free reference of :func:`~graphanon.attacks.labels.label_inference`.
    targets, rng, confidence, candidates :
        As in :func:`~graphanon.attacks.labels.label_inference`.

    Returns
    -------
    AttackResult
        ``attack`` is ``"label-ranking/<score>"`` (``"label-ranking/best"``
        with ``"best"``); ``details``: ``score``
        (the one reported), ``per_score`` (success of each score tried),
        ``top_ties`` (mean number of rows tied at the top), ``l``.

    Raises
    ------
    ParameterError
        Without labels in the data or the release, for a release that is not
        a bit-voting one, or for an unknown score.

    See Also
    --------
    label_inference : The uniform and majority adversaries.

    Notes
    -----
    Complexity: that of :func:`candidate_sets`, then O(candidate edges x
    items per record) for the content scores (row-wise sparse products in
    blocks of 10^6 edges); no Python loop over records.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_cahd(data, l=3, unsafe_secret_seed=0)
    >>> res = ranking_label_inference(data, rel, score="hamming")
    >>> res.attack, res.bound      # a CAHD group publishes identical rows: every score ties
    ('label-ranking/hamming', 0.3333333333333333)
    >>> res.success
    0.3333333333333333
    """
    if original.labels is None:
        raise ParameterError("label ranking is scored against the original sensitive labels; the data has none")
    pub_labels = getattr(release, "labels", None)
    if pub_labels is None:
        raise ParameterError("this release publishes no sensitive labels; there is nothing to infer")
    if not all(hasattr(release, a) for a in ("base", "distance", "threshold", "items")):
        raise ParameterError(
            f"label ranking reads bit-voting releases (nr, cahd): base, distance, threshold; got a "
            f"{getattr(release, 'kind', type(release).__name__)} release"
        )
    if not callable(score) and score != "best":
        name = score[1:] if score.startswith("-") else score
        if name not in SCORES:
            raise ParameterError(
                f"unknown ranking score {score!r}; known: best, {', '.join(SCORES)} (or '-' + one of them)"
            )
    t, _ = attack_targets(original, release, targets, rng, scored=False)
    C = candidates if candidates is not None else candidate_sets(original, release)
    if C.grouped:
        raise ParameterError("label ranking needs the match graph of a bit-voting release")
    (orig_code, pub_code), _n_labels = label_codes(original.labels, pub_labels)
    X = _in_release_columns(original, release)
    row_degree = np.bincount(C._p, minlength=C.n_rows).astype(np.int64)
    lo, hi = C._ptr[t], C._ptr[t + 1]
    lens = hi - lo
    edge = np.repeat(lo - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + np.arange(int(lens.sum()))
    local = np.repeat(np.arange(len(t), dtype=np.int64), lens)
    ctx = RankingContext(release=release, X=X, targets=C._o[edge], rows=C._p[edge], row_degree=row_degree)
    # a row's label is its own, or with label groups a draw from its group: the chance it is the target's
    right = row_label_hit(release, pub_code, _n_labels, ctx.rows, orig_code[ctx.targets])
    if callable(score):
        names = [getattr(score, "__name__", "custom")]
        per_name = {names[0]: np.asarray(score(ctx), dtype=float)}
    elif score == "best":
        names = [s for base in SCORES for s in (base, "-" + base)]
        per_name = {s: ranking_scores(s, ctx) for s in names}
    else:
        names = [score]
        per_name = {score: ranking_scores(score, ctx)}
    shares, ties = {}, {}
    for s in names:
        sc = per_name[s]
        if sc.shape != ctx.rows.shape:
            raise ParameterError(f"score {s!r} returned {sc.shape[0] if sc.ndim else 0} values for "
                                 f"{ctx.rows.shape[0]} candidate edges")
        shares[s] = _top_share(local, sc, right, len(t))
        best = np.full(len(t), np.inf)
        np.minimum.at(best, local, sc)
        ties[s] = float(np.bincount(local[sc == best[local]], minlength=len(t)).mean()) if len(t) else 0.0
    chosen = max(names, key=lambda s: float(shares[s].mean()) if len(t) else 0.0)
    level = model_level(release, l, ("l",), "l")
    if level:
        bound, kind = 1.0 / level, "1/l"
    else:
        from graphanon.attacks.labels import label_inference

        ref = label_inference(original, release, targets=t, candidates=C, confidence=confidence)
        bound = ref.details["link_free"]
        kind = "reference: best link-free guess (majority or random candidate)"
    return make_result(
        f"label-ranking/{chosen}" if score != "best" else "label-ranking/best",
        shares[chosen],
        bound,
        kind,
        confidence,
        {
            "score": chosen,
            "per_score": {s: float(shares[s].mean()) if len(t) else 0.0 for s in names},
            "top_ties": ties[chosen],
            "l": level,
        },
    )
