"""Attack (f): row linkage by an adversary who also knows the target's sensitive label.

A release that publishes labels with its rows (``nr``/``cahd`` with
``--label``, global recodings that keep labels) lets an adversary who knows
a target's record *and* its label keep only the candidate rows that carry
that label. The nonreciprocal paper's model assumes the label unknown (it is
the secret), so ``1/k`` is not promised against this adversary: the attack
measures how far a release falls short of it. For an l-diverse release the
``l`` rows of a record's l-diverse factor carry ``l`` distinct labels, so
the label alone can pin the row among them; the label-free release (no
``--label``) is not exposed.

The adversary knows the labels of ``known`` targets (drawn uniformly), takes
their candidate rows (:func:`~graphanon.attacks.candidates.candidate_sets`)
that carry the known label, and picks one uniformly: success ``1/c`` when
the true row is among the ``c`` (it always is for a release that keeps the
original labels).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (the adversary knows the record,
not the label). Issue 20, item 5.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.candidates import candidate_sets, label_codes
from graphanon.attacks.linkage import linkage_bound
from graphanon.attacks.result import AttackResult, attack_targets, make_result
from graphanon.errors import ParameterError

__all__ = ["known_label_linkage"]


def known_label_linkage(
    original,
    release,
    *,
    truth,
    known=None,
    k: int | None = None,
    rng=None,
    confidence: float = 0.999,
    candidates=None,
) -> AttackResult:
    """Attack (f): link each target whose label the adversary knows to a row carrying that label.

    Parameters
    ----------
    original : TransactionData
        With its sensitive labels.
    release : GlobalRecoding or NonreciprocalRelease
        Publishing labels.
    truth : ReleaseLink or array of int
        The private link.
    known : None, int or array of int
        The targets whose labels the adversary knows: all records, ``known``
        records drawn from ``rng``, or those records.
    k : int, optional
        Bound ``1/k`` (default as :func:`~graphanon.attacks.linkage.row_linkage`).
    rng, confidence, candidates :
        As in :func:`~graphanon.attacks.linkage.row_linkage`.

    Returns
    -------
    AttackResult
        ``details``: ``candidates_mean`` (candidates before the label),
        ``label_candidates_mean`` (after), ``pinned`` (share of targets left
        with one row), ``truth_outside`` (the true row lacks the label: moved
        labels), ``promised`` (False: the model assumes the label unknown).

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_cahd(data, l=3, unsafe_secret_seed=0)
    >>> res = known_label_linkage(data, rel, truth=rel.link)
    >>> res.success > res.bound      # the label picks the row out of its group of three
    True
    """
    if original.labels is None:
        raise ParameterError("known-label linkage needs the original sensitive labels; the data has none")
    if getattr(release, "labels", None) is None:
        raise ParameterError("this release publishes no sensitive labels; knowing one narrows nothing")
    t, truth_t = attack_targets(original, release, known, rng, truth=truth)
    C = candidates if candidates is not None else candidate_sets(original, release)
    (orig_code, pub_code), n_labels = label_codes(original.labels, release.labels)
    size = C.sizes(t)
    if getattr(release, "label_groups", None) is not None:
        # labels published in groups: a row fits a known label when its group holds that label
        holds = sp.csr_array(release.group_label_shares(pub_code, n_labels) > 0, dtype=np.float64)
        LC = C.label_weights(t, holds).tocsr()
        truth_has = np.asarray(holds[truth_t, orig_code[t]]).reshape(-1) > 0 if len(t) else np.zeros(0, dtype=bool)
    else:
        LC = C.label_counts(t, pub_code, n_labels).tocsr()
        truth_has = pub_code[truth_t] == orig_code[t]
    with_label = np.asarray(LC[np.arange(len(t)), orig_code[t]]).reshape(-1) if len(t) else np.zeros(0)
    with_label = np.rint(with_label)
    truth_in = C.contains(t, truth_t) & truth_has
    per = np.where(truth_in & (with_label > 0), 1.0 / np.maximum(with_label, 1), 0.0)
    level, bound, kind = linkage_bound(release, k, size)
    with_prior = np.bincount(pub_code, minlength=n_labels)[orig_code[t]]
    prior = float(np.where(with_prior > 0, 1.0 / np.maximum(with_prior, 1), 0.0).mean()) if len(t) else 0.0
    return make_result(
        "known-label-linkage",
        per,
        bound,
        f"{kind} (not promised: the model assumes the label unknown)",
        confidence,
        {
            "k": level,
            "candidates_mean": float(size.mean()) if len(t) else 0.0,
            "label_candidates_mean": float(with_label.mean()) if len(t) else 0.0,
            "pinned": float((with_label == 1).mean()) if len(t) else 0.0,
            "truth_outside": float((~truth_in).mean()) if len(t) else 0.0,
            "promised": False,
        },
        baseline=prior,
        baseline_kind="random row of the label",
    )
