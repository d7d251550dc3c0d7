"""Attacks (e) and (f): the seed holder with known labels, and two releases made with one seed.

Both play against nonreciprocal releases that publish labels (``nr`` with
``--label``, or l-diverse ``nr`` / ``cahd``) and model the adversary of
issue 20: it holds the **seed** and the **data** (the records' items; labels
only where it says so), re-runs the anonymizer with the seed, and combines
what the re-run reproduces with what the release shows.

(e) :func:`known_label_attack` -- the adversary also knows ``N`` (person,
label) pairs. Each of the re-run's ``k`` disjoint assignments is a
hypothesis for the published one; a hypothesis survives when every known
person's row under it can carry that person's label. With the surviving
hypotheses it predicts every other record's row and label. When no
hypothesis survives (the re-run's assignments are not the release's: the
seed does not fix them), it falls back to its strongest seed-free move: the
public match graph with each known person's candidates cut to the rows
carrying their label, pruned to the edges that lie in some perfect matching
(an edge ``i -> j`` outside a perfect matching ``M`` lies in another one
exactly when ``i`` and ``j`` are in one strongly connected component of the
graph that orients ``M``'s edges row -> record and the others record -> row;
Dulmage & Mendelsohn 1958, Tassa et al. 2012), then guesses uniformly among
a target's surviving rows and takes their majority label.

(f) :func:`same_seed_attack` -- no known labels, two releases made with the
same seed. A pair of hypotheses ``(r1, r2)`` survives when every record's
row under ``r1`` in the first release and under ``r2`` in the second can
carry one same label (a person has one label). When the seed fixes the
assignments, only the true pair survives (issue 20: label inference 0.83
against a 0.30 base rate). Without surviving pairs it intersects each
record's candidate label sets across the two releases.

Bounds: row linkage ``1/k``; label inference ``1/l`` for an l-diverse
release, else the single-release link-free reference of
:func:`~graphanon.attacks.labels.label_inference`. Scores use the one-sided
:func:`~graphanon.attacks.result.chernoff_margin` over the targets.

References
----------
Xue et al., KDD 2012, Sec. 3 (the nonreciprocal adversary); Dulmage &
Mendelsohn, Coverings of bipartite graphs, Canad. J. Math. 10 (1958);
Tassa, Mazza, Gionis, k-concealment, 2012 (edges in some perfect matching).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from graphanon.attacks.candidates import candidate_sets, label_codes, row_signatures
from graphanon.attacks.labels import label_inference
from graphanon.attacks.linkage import linkage_bound
from graphanon.attacks.result import (
    AttackResult,
    check_release_size,
    majority_hit,
    make_result,
    resolve_targets,
    truth_rows,
)
from graphanon.errors import ParameterError
from graphanon.release.bit_voting import bit_vote

__all__ = ["feasible_edges", "known_label_attack", "same_seed_attack"]


def _check_labelled(original, *releases) -> None:
    if original.labels is None:
        raise ParameterError("these attacks are scored against the original sensitive labels; the data has none")
    for rel in releases:
        if getattr(rel, "labels", None) is None or not hasattr(rel, "threshold"):
            raise ParameterError(
                "known-label and same-seed attacks need a nonreciprocal release that publishes labels "
                f"(nr --label, nr -p l=L, cahd); got {type(rel).__name__}"
            )
        check_release_size(original, rel)


def _hypotheses(original, rerun):
    """The re-run's k assignments and each of its published records' content signature."""
    trace = getattr(rerun, "trace", None)
    A = getattr(trace, "assignments", None)
    if A is None:
        raise ParameterError("the re-run must be a nonreciprocal release with its trace (trace.assignments)")
    A = np.asarray(A, dtype=np.int64)
    k, n = A.shape
    members = sp.csr_array(
        (np.ones(k * n, dtype=np.int8), (A.ravel(), np.tile(np.arange(n), k))), shape=(n, n)
    )
    base, dist, thr = bit_vote(original.matrix, members)
    sig = row_signatures(SimpleNamespace(base=base, distance=dist, threshold=thr, items=rerun.items))
    return A, sig


class _Classes:
    """Published rows grouped by content.

    The re-run's published record ``j`` may be any row of class ``of_record[j]`` (identical rows
    cannot be told apart).
    """

    def __init__(self, rerun_sig, release, pub_code, n_labels):
        pub_sig = row_signatures(release)
        _, inv = np.unique(np.vstack([rerun_sig, pub_sig]), axis=0, return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        n = len(pub_sig)
        self.of_record, self.of_row = inv[:n], inv[n:]
        n_classes = int(inv.max()) + 1 if len(inv) else 0
        self.size = np.bincount(self.of_row, minlength=n_classes)
        # the re-run publishes the same rows as the release (as a multiset) iff the seed fixed the structure
        self.same_structure = bool(np.array_equal(np.bincount(self.of_record, minlength=n_classes), self.size))
        self.labels = sp.csr_array(
            (np.ones(n, dtype=np.int64), (self.of_row, pub_code)), shape=(n_classes, n_labels)
        )
        self.labels.sum_duplicates()
        self.label_dist = np.asarray(self.labels.todense(), dtype=float) / np.maximum(self.size, 1)[:, None]


def feasible_edges(o, p, n, allowed=None) -> np.ndarray:
    """Which edges of a bipartite record -> row graph lie in some perfect matching.

    Parameters
    ----------
    o, p : array of int
        Edge ``e`` joins record ``o[e]`` to row ``p[e]``.
    n : int
        Records and rows (the graph is n x n).
    allowed : array of bool, optional
        Edges the adversary keeps (for example only rows carrying a known
        person's label); the others are dropped first.

    Returns
    -------
    ndarray of bool
        Per edge: kept and in some perfect matching of the kept graph. All
        False when the kept graph has no perfect matching.

    Notes
    -----
    Complexity: one maximum bipartite matching (Hopcroft-Karp, O(E sqrt(n))) and one
    strongly-connected-components pass (O(n + E)).

    Examples
    --------
    >>> import numpy as np
    >>> o, p = np.array([0, 0, 1, 1, 2]), np.array([0, 1, 0, 1, 2])
    >>> feasible_edges(o, p, 3).tolist()
    [True, True, True, True, True]
    >>> feasible_edges(o, p, 3, allowed=np.array([True, False, True, True, True])).tolist()
    [True, False, False, True, True]

    References
    ----------
    Dulmage & Mendelsohn (1958); Tassa, Mazza, Gionis (2012), Sec. 4.
    """
    o, p = np.asarray(o, dtype=np.int64), np.asarray(p, dtype=np.int64)
    keep = np.ones(len(o), dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    B = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int8), (o[keep], p[keep])), shape=(n, n))
    match = maximum_bipartite_matching(B, perm_type="column")  # match[i]: row of record i, or -1
    if (match < 0).any():
        return np.zeros(len(o), dtype=bool)
    in_match = keep & (match[o] == p)
    # nodes 0..n-1 records, n..2n-1 rows; non-matching edges record -> row, matching edges row -> record
    src = np.concatenate([o[keep & ~in_match], n + match])
    dst = np.concatenate([n + p[keep & ~in_match], np.arange(n)])
    G = sp.csr_array((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(2 * n, 2 * n))
    _, comp = connected_components(G, directed=True, connection="strong")
    return keep & (in_match | (comp[o] == comp[n + p]))


def _graph_guesses(C, n, pub_code, n_labels, allowed=None):
    """Per record, the rows left by :func:`feasible_edges` and their label distribution."""
    o, p = C._o, C._p
    ok = feasible_edges(o, p, n, allowed)
    counts = np.bincount(o[ok], minlength=n)
    L = sp.csr_array((np.ones(int(ok.sum())), (o[ok], pub_code[p[ok]])), shape=(n, n_labels))
    L.sum_duplicates()
    return o[ok], p[ok], counts, np.asarray(L.todense()) / np.maximum(counts, 1)[:, None]


def _bounds(original, release, t, C, k):
    level, row_bound, row_kind = linkage_bound(release, k, C.sizes(t))
    ref = label_inference(original, release, targets=t, candidates=C)
    return level, row_bound, row_kind, ref


def _known_records(known, n, rng) -> np.ndarray:
    if isinstance(known, (int, np.integer)) and not isinstance(known, bool):
        if known < 0 or known >= n:
            raise ParameterError(f"known must be between 0 and {n - 1} records, got {known}")
        return resolve_targets(int(known), n, rng) if known else np.zeros(0, dtype=np.int64)
    return resolve_targets(known, n, rng)


def known_label_attack(
    original,
    release,
    rerun: Callable | None = None,
    *,
    known,
    truth,
    k: int | None = None,
    targets=None,
    rng=None,
    confidence: float = 0.999,
) -> dict[str, AttackResult]:
    """Attack (e): the seed holder who knows ``N`` (person, label) pairs predicts rows and labels.

    Parameters
    ----------
    original : TransactionData
        The data with its sensitive labels: the adversary uses the items of
        every record and the labels of the ``known`` records only; the other
        labels score the attack.
    release : NonreciprocalRelease
        Published with labels.
    rerun : callable ``(original) -> NonreciprocalRelease``, optional
        The adversary's re-run with the seed (for example
        ``lambda d: anonymize_nonreciprocal(d, k=5, rng=SEED)``); its
        ``trace.assignments`` are the hypotheses. None: no seed, only the
        match graph.
    known : int or array of int
        Number of known (person, label) pairs, drawn with ``rng``, or the
        record indices themselves.
    truth : ReleaseLink or array of int
        The private link of ``release`` (scoring only).
    k : int, optional
        Row-linkage bound ``1/k`` (default: the release's ``k`` or ``l``).
    targets : None, int or array of int
        Records attacked (the known ones are always left out).
    rng : seed or Generator, optional
        Draws the known records and the targets (reproducible).
    confidence : float

    Returns
    -------
    dict
        ``"row"`` and ``"label"`` :class:`AttackResult`. ``details``:
        ``known``, ``hypotheses`` (the re-run's ``k``), ``surviving``
        (hypotheses consistent with every known pair), ``surviving_success``
        (each surviving hypothesis's own row success: near 1 when it is the
        published assignment), ``same_structure``
        (the re-run publishes the release's rows), ``used`` (``"seed"``
        when surviving hypotheses were used, else ``"match-graph"``),
        ``reference`` (the single-release link-free label success).

    Notes
    -----
    In a k-only release a record's label travels with it to its row, so a
    known (person, label) pair constrains the person's row. In an
    l-diverse release (``params["l"]``) each published record carries its
    own record's label whatever the assignment, so known labels constrain
    no assignment and the attack uses none.

    Complexity: :func:`candidate_sets` once, one bit vote of the re-run, O(k n) to test
    the hypotheses, one matching and SCC pass (:func:`feasible_edges`).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.data import TransactionData
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> base = load("chess").subset(range(0, 3196, 8))
    >>> labels = [f"s{i % 5}" for i in range(base.n_records)]
    >>> data = TransactionData(base.matrix.copy(), base.items, base.record_ids, labels)
    >>> def leaky(d):   # a seed that also fixes the assignments and the choice (the old nr)
    ...     return anonymize_nonreciprocal(d, k=5, order="gray", rng=3, unsafe_secret_seed=3)
    >>> out = known_label_attack(data, leaky(data), leaky, known=10, truth=leaky(data).link, rng=0)
    >>> out["row"].details["used"], out["row"].within_bound()
    ('seed', False)

    References
    ----------
    Issue 20, item 1 (10 known pairs pinned the chosen assignment in 20/20
    trials); Xue et al., KDD 2012, Sec. 3.
    """
    _check_labelled(original, release)
    n = original.n_records
    rows_true = truth_rows(truth, n)
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    known_idx = _known_records(known, n, gen)
    t = resolve_targets(targets, n, gen)
    t = t[~np.isin(t, known_idx)]
    C = candidate_sets(original, release)
    if C.grouped:
        raise ParameterError("known-label attacks play against nonreciprocal releases (a match graph)")
    (orig_code, pub_code), n_labels = label_codes(original.labels, release.labels)
    level, row_bound, row_kind, ref = _bounds(original, release, t, C, k)
    # k-only: a record's label travels with it to its row; l-diverse: labels sit on published records
    travel = not release.params.get("l")
    details = {"known": len(known_idx), "hypotheses": 0, "surviving": 0, "same_structure": None,
               "reference": ref.details.get("link_free")}
    row_per = label_per = None
    if rerun is not None:
        A, sig = _hypotheses(original, rerun(original))
        cls = _Classes(sig, release, pub_code, n_labels)
        details.update(hypotheses=int(A.shape[0]), same_structure=cls.same_structure)
        if cls.same_structure:
            if travel:  # hypothesis r: known person p's row (class of A[r, p]) must carry p's label
                carries = cls.label_dist[cls.of_record[A[:, known_idx]], orig_code[known_idx][None, :]] > 0
                alive = np.flatnonzero(carries.all(axis=1))
            else:
                alive = np.arange(A.shape[0])
            details["surviving"] = int(len(alive))
            if len(alive):
                c = cls.of_record[A[np.ix_(alive, t)]]  # (hypotheses, targets) class of each predicted row
                hit = cls.of_row[rows_true[t]][None, :] == c
                per_hypothesis = np.where(hit, 1.0 / np.maximum(cls.size[c], 1), 0.0)
                details["surviving_success"] = [round(float(x), 4) for x in per_hypothesis.mean(axis=1)]
                row_per = per_hypothesis.mean(axis=0)
                label_per = majority_hit(cls.label_dist[c].mean(axis=0), orig_code[t])
    if row_per is None:
        allowed = np.ones(len(C._o), dtype=bool)
        if travel:  # a known person's row carries their label: keep only such candidate rows
            label_of_known = np.full(n, -1, dtype=np.int64)
            label_of_known[known_idx] = orig_code[known_idx]
            fixed = label_of_known[C._o] >= 0
            allowed[fixed] = pub_code[C._p[fixed]] == label_of_known[C._o[fixed]]
        eo, ep, counts, dist = _graph_guesses(C, n, pub_code, n_labels, allowed)
        keys = eo * n + ep
        truth_keys = t * n + rows_true[t]
        has = np.isin(truth_keys, keys)
        row_per = np.where(has, 1.0 / np.maximum(counts[t], 1), 0.0)
        label_per = majority_hit(dist[t], orig_code[t])
        details["used"] = "match-graph"
    else:
        details["used"] = "seed"
    return {
        "row": make_result("known-labels/row", row_per, row_bound, row_kind, confidence,
                           {**details, "k": level}),
        "label": make_result("known-labels/label", label_per, ref.bound, ref.bound_kind, confidence, details),
    }


def same_seed_attack(
    original,
    release1,
    release2,
    rerun: Callable | None = None,
    *,
    truth1,
    k: int | None = None,
    targets=None,
    rng=None,
    confidence: float = 0.999,
) -> dict[str, AttackResult]:
    """Attack (f): two releases made with one seed; intersect what each says about every record.

    Parameters
    ----------
    original : TransactionData
        The data with labels (the adversary uses the items; labels score).
    release1, release2 : NonreciprocalRelease
        Two releases of ``original`` made with the same seed, both with labels.
    rerun : callable ``(original) -> NonreciprocalRelease``, optional
        The adversary's re-run with that seed (hypotheses ``trace.assignments``).
    truth1 : ReleaseLink or array of int
        The private link of ``release1``; rows are predicted in ``release1``.
    k, targets, rng, confidence :
        As in :func:`known_label_attack`.

    Returns
    -------
    dict
        ``"row"`` and ``"label"`` :class:`AttackResult` (rows and bounds of
        ``release1``). ``details``: ``surviving_pairs`` (hypothesis pairs
        consistent on every record), ``true_pair_only`` (whether exactly
        one pair survived), ``used`` (``"seed"`` or ``"label-intersection"``),
        ``pinned`` (targets whose intersected label set has one label).

    Notes
    -----
    Complexity: two candidate-set builds, one bit vote, O(k^2 n) for the pairs.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.data import TransactionData
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> base = load("chess").subset(range(0, 3196, 8))
    >>> data = TransactionData(base.matrix.copy(), base.items, base.record_ids, [f"s{i % 5}" for i in range(400)])
    >>> r1, r2 = (anonymize_nonreciprocal(data, k=5, order="gray", rng=3) for _ in range(2))
    >>> out = same_seed_attack(data, r1, r2, lambda d: anonymize_nonreciprocal(d, k=5, order="gray", rng=3),
    ...                        truth1=r1.link)
    >>> out["row"].details["used"]
    'label-intersection'

    References
    ----------
    Issue 20, item 1 (two same-seed releases: only the true pair of
    assignments is consistent on every record).
    """
    _check_labelled(original, release1, release2)
    n = original.n_records
    rows_true = truth_rows(truth1, n)
    t = resolve_targets(targets, n, rng)
    C1, C2 = candidate_sets(original, release1), candidate_sets(original, release2)
    if C1.grouped or C2.grouped:
        raise ParameterError("same-seed attacks play against nonreciprocal releases (a match graph)")
    (orig_code, code1, code2), n_labels = label_codes(original.labels, release1.labels, release2.labels)
    level, row_bound, row_kind, ref = _bounds(original, release1, t, C1, k)
    details = {"surviving_pairs": 0, "true_pair_only": False, "same_structure": None,
               "reference": ref.details.get("link_free")}
    row_per = label_per = None
    if rerun is not None:
        A, sig = _hypotheses(original, rerun(original))
        c1, c2 = _Classes(sig, release1, code1, n_labels), _Classes(sig, release2, code2, n_labels)
        details["same_structure"] = c1.same_structure and c2.same_structure
        if details["same_structure"]:
            has1 = c1.label_dist > 0
            has2 = c2.label_dist > 0
            kk = A.shape[0]
            pairs = [(a, b) for a in range(kk) for b in range(kk)
                     if (has1[c1.of_record[A[a]]] & has2[c2.of_record[A[b]]]).any(axis=1).all()]
            details["surviving_pairs"] = len(pairs)
            details["true_pair_only"] = len(pairs) == 1
            if pairs:
                row_acc = np.zeros(len(t))
                dist = np.zeros((len(t), n_labels))
                for a, b in pairs:
                    ca, cb = c1.of_record[A[a, t]], c2.of_record[A[b, t]]
                    hit = c1.of_row[rows_true[t]] == ca
                    row_acc += np.where(hit, 1.0 / np.maximum(c1.size[ca], 1), 0.0)
                    both = c1.label_dist[ca] * has2[cb]
                    dist += both / np.maximum(both.sum(axis=1, keepdims=True), 1e-300)
                row_per = row_acc / len(pairs)
                label_per = majority_hit(dist / len(pairs), orig_code[t])
    if row_per is None:
        # each record's candidate labels in release 2; keep release-1 candidates whose label is among them
        L2 = C2.label_counts(np.arange(n), code2, n_labels)
        L2 = np.asarray(L2.todense()) > 0
        o, p = C1._o, C1._p
        keep = L2[o, code1[p]]
        counts = np.bincount(o[keep], minlength=n)
        D = sp.csr_array((np.ones(int(keep.sum())), (o[keep], code1[p[keep]])), shape=(n, n_labels))
        D.sum_duplicates()
        dist = np.asarray(D.todense())
        has = np.isin(t * n + rows_true[t], o[keep] * n + p[keep])
        row_per = np.where(has, 1.0 / np.maximum(counts[t], 1), 0.0)
        label_per = majority_hit(dist[t], orig_code[t])
        details["pinned"] = int(((dist[t] > 0).sum(axis=1) == 1).sum())
        details["used"] = "label-intersection"
    else:
        details["used"] = "seed"
    return {
        "row": make_result("same-seed/row", row_per, row_bound, row_kind, confidence, {**details, "k": level}),
        "label": make_result("same-seed/label", label_per, ref.bound, ref.bound_kind, confidence, details),
    }
