"""Attack (b): sensitive-label inference by an adversary who knows the target's record.

This is the nonreciprocal threat model: the adversary knows every item of
the target (not its label) and reads the release. Strategies:

``"candidates"``
    The most frequent label among the target's candidate rows (ties split
    uniformly): what the published label distribution reveals.
``"position"``, ``"id"``
    The label of the row :func:`~graphanon.attacks.linkage.guess_rows`
    links the target to (a ruled-out row is replaced by a uniform draw among
    the candidates).

Bounds
------
An l-diverse release (published ``l``, or ``l=`` given) must keep the
success at ``1/l``: each record's candidates carry ``l`` distinct labels,
one of which is its own. A release with no diversity promise (k-only
nonreciprocal, global recodings with labels) promises nothing about labels,
so it is compared with the **link-free reference**: the better of the two
adversaries that use only what the release shows by design -- the majority
label among the target's candidates, and the label of a uniformly drawn
candidate (mean share of the true label among the candidates). Whatever the
candidates' labels give away, a release that hides the link gives away no
more; a release whose rows keep the input order or the ids does (success
1.0). For such releases the ``"candidates"`` strategy *is* (part of) the
reference, so it is reported, not bounded.

Why not ``mean(majority share)``, the success of the majority guess if the
true row were uniform among the candidates? Because the true row is not:
the target's own label is always among its candidates and, when labels
correlate with records (similar readers, similar topics), its neighbours'
labels lean towards it, so the majority guess beats that number on honest
releases (e-book-like sessions, nr k=5: 0.46 vs 0.45).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.candidates import candidate_sets, label_codes, row_label_hit
from graphanon.attacks.linkage import guess_rows, model_level
from graphanon.attacks.result import (
    AttackResult,
    attack_targets,
    majority_label_baseline,
    make_result,
)
from graphanon.errors import ParameterError

__all__ = ["label_inference"]


def label_inference(
    original,
    release,
    *,
    strategy: str = "candidates",
    l: int | None = None,  # noqa: E741
    targets=None,
    rng=None,
    confidence: float = 0.999,
    candidates=None,
) -> AttackResult:
    """Attack (b): infer each target's sensitive label; score against the original labels.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from, with its sensitive labels (the
        truth this attack is scored against).
    release : GlobalRecoding or NonreciprocalRelease
        With published labels.
    strategy : {"candidates", "position", "id"}
    l : int, optional
        Bound ``1/l``; default: the release's published ``l``; without one,
        the link-free reference (module docstring).
    targets, rng, confidence, candidates :
        As in :func:`~graphanon.attacks.linkage.row_linkage`.

    Returns
    -------
    AttackResult
        ``details``: ``link_free`` (the reference), ``majority_success``
        (success of the majority-label guess), ``mean_true_share`` (mean share
        of the true label among candidates, the random-candidate guess),
        ``min_distinct`` (fewest distinct labels among a target's candidates).

    See Also
    --------
    row_linkage : The row instead of the label.
    graphanon.privacy.LDiversity : The audit of the bound it tests.

    Notes
    -----
    Complexity: that of :func:`candidate_sets`, then O(candidate edges) (nonreciprocal)
    or O(n + groups x labels) (global recoding).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a"], ["b"], ["a"], ["b"]], labels=["flu", "hiv", "flu", "flu"])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)"})
    >>> res = label_inference(data, rel, strategy="position")   # labels kept in input order
    >>> res.success, res.bound
    (1.0, 0.75)
    """
    if original.labels is None:
        raise ParameterError(
            "label inference is scored against the original sensitive labels; the data has none"
        )
    pub_labels = getattr(release, "labels", None)
    if pub_labels is None:
        raise ParameterError(
            "this release publishes no sensitive labels; there is nothing to infer"
        )
    if strategy not in ("candidates", "position", "id"):
        raise ParameterError(f"strategy must be 'candidates', 'position' or 'id', got {strategy!r}")
    t, _ = attack_targets(original, release, targets, rng, scored=False)
    C = candidates if candidates is not None else candidate_sets(original, release)
    (orig_code, pub_code), n_labels = label_codes(original.labels, pub_labels)
    if getattr(release, "label_groups", None) is not None:
        # labels published in groups: a row's label is a draw from its group, so a candidate row weighs
        # each label by its share in the row's group
        LC = C.label_weights(t, release.group_label_shares(pub_code, n_labels))
    else:
        LC = sp.csr_array(C.label_counts(t, pub_code, n_labels))
    size = C.sizes(t).astype(float)
    nt = len(t)
    true_count = (
        np.asarray(LC[np.arange(nt), orig_code[t]]).reshape(-1).astype(float) if nt else np.zeros(0)
    )
    coo = LC.tocoo()
    maxc = np.zeros(nt)
    np.maximum.at(maxc, coo.row, coo.data)
    tol = 1e-9  # group shares are fractions: compare sums of them with a tolerance
    n_at_max = np.bincount(coo.row[(coo.data >= maxc[coo.row] - tol) & (coo.data > 0)], minlength=nt)
    distinct = np.bincount(coo.row[coo.data > 0], minlength=nt)
    safe = np.maximum(size, 1)
    majority = np.where((true_count >= maxc - tol) & (maxc > 0), 1.0 / np.maximum(n_at_max, 1), 0.0)
    share = true_count / safe
    if strategy == "candidates":
        per = majority
    else:
        guess = guess_rows(original, release, t, strategy)
        usable = C.contains(t, guess)
        right = row_label_hit(release, pub_code, n_labels, np.where(usable, guess, 0), orig_code[t])
        per = np.where(usable, right, share)
    link_free = max(float(majority.mean()), float(share.mean())) if nt else 0.0
    level = model_level(release, l, ("l",), "l")
    if level:
        bound, kind = 1.0 / level, "1/l"
    else:
        bound, kind = link_free, "reference: best link-free guess (majority or random candidate)"
    return make_result(
        f"label-inference/{strategy}",
        per,
        bound,
        kind,
        confidence,
        {
            "l": level,
            "link_free": link_free,
            "majority_success": float(majority.mean()) if nt else 0.0,
            "mean_true_share": float(share.mean()) if nt else 0.0,
            "min_distinct": int(distinct.min()) if nt else 0,
        },
        baseline=majority_label_baseline(original.labels, t),
        baseline_kind="majority label",
    )

