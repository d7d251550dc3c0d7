"""Attack (j'): the group-skip adversary against label groups formed along a public record order.

``nr --param l=L`` with order grouping (its label groups) and ``cahd`` with
the paper's scan (``grouping=order``) form their groups one after the other
along a public record order, taking rows by their labels: a row *waits*
while its label is already in the group being formed. A group formed before
a target's own group whose span in the order covers the target's position
has *skipped* the target, which says that the target's label is (usually)
one of that group's labels. This adversary holds every record's items (all
the quasi-identifiers, no label) -- the standard l-diversity adversary --
and reads the labels from the skips. ``cahd``'s default draws its members
in secret along the band (``grouping=random``): the attack reads it the
same way, and its exact reading weighs each labelling by the draws' exact
probability.

What the adversary knows, and where the attack takes it from:

* **every record's items** (``original``);
* **the public order** the groups were formed along: ``order=`` if given;
  else ``release.trace.order`` (in memory after anonymizing); else it is
  recomputed as a real adversary does from the data and the release's
  published parameters -- CAHD's Gray order (a function of the data), and
  ``nr``'s ``order=gray`` or ``identity``; ``nr``'s default ``gray-tsp``
  order needs the structure seed (``seed=``), which reproduces it on any
  machine under the step budget the file records (a wall-clock budget does
  not, and is refused);
* **each record's group**: from its candidate rows where they all lie in
  one group (``nr``'s ring keeps a record's graph candidates in its group;
  a CAHD group publishes one content), otherwise from the private link
  ``truth`` -- the strongest case; ``details`` counts both;
* **the groups' published label multisets** (a label group's labels;
  CAHD's rows of one content and their labels).

Two readings (``method``):

``"heuristic"``
    Intersect the target's own group's labels with those of every group
    that skipped it (formed earlier, i.e. starting earlier in the order,
    and spanning its position), taken in the order of their first position;
    an intersection that would be empty is ignored. Guess within what is
    left in proportion to the own group's counts. A label forced into a
    group by the histogram check skips no one, which this reading does not
    model, so it is a lower bound on the leak. Vectorized over the targets.
``"exact"``
    The posterior under a uniform prior over the labellings the published
    multisets allow (:mod:`graphanon.attacks.group_skips_exact`): every
    such labelling is enumerated, the public grouping procedure re-run on
    it, and those that reproduce the published grouping kept; each
    target's posterior label distribution gives a MAP guess (ties split
    uniformly). Exact, for small inputs: refused in one line above
    ``max_worlds`` labellings.

Bound
-----
``1/l`` (the release's published ``l``, or ``l=``), with its one-sided
margin; ``details`` also reports the success on the records some group
skipped (a target set the adversary chooses from public information) with
its own margin, and the records pinned to one label (and pinned right).

References
----------
Machanavajjhala et al. l-Diversity: privacy beyond k-anonymity. ACM TKDD
1(1), 2007, Sec. 3 (the adversary knows the quasi-identifiers of every
record). Xiao, Tao. Anatomy. VLDB 2006, Sec. 4 (groups drawn by a secret
selection within label buckets). Ghinita, Tao, Kalnis. ICDE 2008, Sec. IV
(CAHD's scan along the order). ``docs/attacks.md``, (j) "group skips".
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.nonreciprocal.gray import gray_order
from graphanon.attacks.candidates import candidate_sets, label_codes, row_signatures
from graphanon.attacks.linkage import model_level
from graphanon.attacks.result import chernoff_margin, make_result, resolve_targets, truth_rows
from graphanon.errors import ParameterError
from graphanon.utils.randomness import check_random_state
from graphanon.utils.validation import check_order

__all__ = ["group_skip_attack", "public_groups", "public_order", "skip_heuristic"]

METHODS = ("heuristic", "exact")


def _is_cahd(release) -> bool:
    from graphanon.algorithms.nonreciprocal.cahd import CAHD

    return getattr(release, "algorithm", None) == CAHD.name


def public_groups(release) -> tuple[np.ndarray, str]:
    """Each published row's group and the procedure that formed the groups.

    Parameters
    ----------
    release : NonreciprocalRelease
        With ``label_groups`` (``nr`` with ``l``), or a CAHD release.

    Returns
    -------
    row_group : ndarray of int64
        Group of each row, ``0..G-1``: the file's ``label_groups``, or for
        CAHD the classes of rows publishing one content (two groups of one
        content form one class).
    procedure : {"order", "random", "scan", "secret-scan"}
        ``"order"``: label groups formed along the order; ``"random"``: label
        groups the release says were drawn at random (``grouping=random``);
        ``"scan"``: CAHD's scan (``grouping=order``, and files made before
        ``grouping`` was recorded); ``"secret-scan"``: CAHD's secret scan
        (``grouping=random``).

    Raises
    ------
    ParameterError
        For a release without groups formed by labels.
    """
    groups = getattr(release, "label_groups", None)
    if groups is not None:
        grouping = (getattr(release, "params", None) or {}).get("grouping", "order")
        return np.asarray(groups, dtype=np.int64), ("random" if grouping == "random" else "order")
    if _is_cahd(release):
        _, inverse = np.unique(row_signatures(release), axis=0, return_inverse=True)
        secret = (getattr(release, "params", None) or {}).get("grouping") == "random"
        return inverse.reshape(-1).astype(np.int64), ("secret-scan" if secret else "scan")
    raise ParameterError(
        f"the group-skip attack reads releases whose labels sit in groups formed by their labels (label groups, "
        f"or CAHD's groups); this {getattr(release, 'algorithm', type(release).__name__)} release has neither"
    )


def public_order(original, release, *, order=None, seed=None) -> tuple[np.ndarray, str]:
    """The record order the groups were formed along, as the adversary gets it, and where it came from.

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease
    order : permutation, optional
        Given by the caller (checked).
    seed : int, optional
        The structure seed of an ``nr`` release in the Gray-TSP order.

    Returns
    -------
    order : ndarray of int64
    source : str
        ``"given"``, ``"trace"`` (``release.trace.order``) or ``"recomputed"``.

    Raises
    ------
    ParameterError
        When the order cannot be had: a given order in the release (pass
        ``order=``), a Gray-TSP order without ``seed``, or one searched on a
        wall-clock budget (not reproducible).
    """
    n = original.n_records
    if order is not None:
        return check_order(order, n), "given"
    traced = getattr(getattr(release, "trace", None), "order", None)
    if traced is not None:
        return check_order(traced, n), "trace"
    if _is_cahd(release):
        return check_order(gray_order(original.matrix), n), "recomputed"
    params = getattr(release, "params", None) or {}
    kind = params.get("order")
    if kind in ("gray", "identity"):
        from graphanon.algorithms.nonreciprocal.anonymize import record_order

        return record_order(original, kind), "recomputed"
    if kind == "gray-tsp" and seed is not None and params.get("tsp_time_limit") is None:
        from graphanon.algorithms.nonreciprocal.anonymize import record_order
        tsp_seed = int(check_random_state(seed).integers(2**31 - 1))  # as the anonymizer draws it
        solver = {"tsp_solver": params["tsp_solver"]} if "tsp_solver" in params else {}
        perm = record_order(original, kind, min_segment=params.get("min_segment", 300),
                            max_segment=params.get("max_segment", 350), tsp_step_limit=params.get("tsp_step_limit"),
                            rng=tsp_seed, **solver)
        return perm, "recomputed"
    why = {"given": "the release was made along an order the caller gave",
           "gray-tsp": "its Gray-TSP order is recomputed from the structure seed (seed=)"
           if params.get("tsp_time_limit") is None else "its Gray-TSP order was searched on a wall-clock budget "
           "and cannot be recomputed"}.get(str(kind), f"the release records no order (order={kind!r})")
    raise ParameterError(f"the group-skip attack needs the public record order: {why}; pass order=")


def record_groups(original, release, row_group: np.ndarray, truth=None, candidates=None):
    """Each record's group: from its candidate rows where they lie in one group, else from the link.

    Returns
    -------
    group : ndarray of int64
        ``-1`` where neither tells (no link given).
    from_candidates : ndarray of bool
    """
    n = original.n_records
    C = candidates if candidates is not None else candidate_sets(original, release)
    if C.grouped:
        raise ParameterError("the group-skip attack needs the match graph of a bit-voting release")
    lo = np.full(n, np.iinfo(np.int64).max)
    hi = np.full(n, -1)
    g = row_group[C._p]
    np.minimum.at(lo, C._o, g)
    np.maximum.at(hi, C._o, g)
    revealed = (hi >= 0) & (lo == hi)
    group = np.where(revealed, hi, -1)
    if truth is not None:
        rows = truth_rows(truth, n)
        group = np.where(revealed, group, row_group[rows])
    return group.astype(np.int64), revealed


def _spans(group: np.ndarray, position: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    known = group >= 0
    first = np.full(n_groups, len(group), dtype=np.int64)
    last = np.full(n_groups, -1, dtype=np.int64)
    np.minimum.at(first, group[known], position[known])
    np.maximum.at(last, group[known], position[known])
    return first, last


def skip_heuristic(order: np.ndarray, group: np.ndarray, has_label: np.ndarray, targets: np.ndarray):
    """The heuristic reading: each target's labels left after intersecting with its skipping groups.

    Parameters
    ----------
    order : ndarray of int64
        The public record order.
    group : ndarray of int64
        Each record's group (``-1``: unknown; such records count in no span).
    has_label : ndarray of bool, shape (G, L)
        Which labels each group publishes.
    targets : ndarray of int64
        Records with a known group.

    Returns
    -------
    left : ndarray of bool, shape (len(targets), L)
        The labels the adversary keeps for each target.
    skipped : ndarray of bool
        Whether some group skipped the target.

    Notes
    -----
    Complexity: O(n + S + L * T) for ``S`` the summed spans of the groups
    and ``T`` (target, skipping group) pairs; a loop over the rank of a
    skipping group (the most skippers of one target), not over records.

    Examples
    --------
    >>> has = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)   # group 0: a, b; group 1: b, c
    >>> left, skipped = skip_heuristic(np.arange(4), np.array([0, 1, 0, 1]), has, np.arange(4))
    >>> left[1].tolist(), skipped.tolist()                   # group 0 spans record 1: b is left
    ([False, True, False], [False, True, False, False])
    """
    n = len(group)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    first, last = _spans(group, position, has_label.shape[0])
    width = np.maximum(last - first - 1, 0)  # positions strictly inside each group's span
    g_edge = np.repeat(np.arange(len(width)), width)
    p_edge = np.repeat(first + 1, width) + (np.arange(int(width.sum())) - np.repeat(np.cumsum(width) - width, width))
    rec_at = np.asarray(order, dtype=np.int64)[p_edge] if len(p_edge) else np.zeros(0, dtype=np.int64)
    slot = np.full(n, -1, dtype=np.int64)
    slot[targets] = np.arange(len(targets))
    t_edge = slot[rec_at]
    own = group[rec_at]
    keep = (t_edge >= 0) & (own >= 0) & (g_edge != own)
    keep[keep] &= first[g_edge[keep]] < first[own[keep]]  # formed before the target's own group
    t_edge, g_edge = t_edge[keep], g_edge[keep]
    sort = np.lexsort((first[g_edge], t_edge))  # per target, the skippers by their first position
    t_edge, g_edge = t_edge[sort], g_edge[sort]
    start = np.searchsorted(t_edge, t_edge, side="left")
    rank = np.arange(len(t_edge)) - start
    left = has_label[group[targets]].copy()
    for r in range(int(rank.max(initial=-1)) + 1):
        at = rank == r
        narrowed = left[t_edge[at]] & has_label[g_edge[at]]
        nonempty = narrowed.any(axis=1)
        left[t_edge[at][nonempty]] = narrowed[nonempty]
    skipped = np.zeros(len(targets), dtype=bool)
    skipped[t_edge] = True
    return left, skipped


def group_skip_attack(original, release, *, truth=None, method: str = "heuristic", order=None, seed=None,
                      l: int | None = None, targets=None, rng=None, confidence: float = 0.999,  # noqa: E741
                      candidates=None, max_worlds: int = 200_000):
    """The group-skip adversary: read a target's label from the groups formed before its own that skipped it.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from, with its sensitive labels (the
        adversary reads every record's items; the labels score it).
    release : NonreciprocalRelease
        A release with label groups (``nr`` with ``l``) or a CAHD release.
    truth : ReleaseLink or array of int, optional
        The private link: the group of a record whose candidate rows span
        several groups (the strongest adversary). Without it such records
        are not targeted and count in no group's span (heuristic), or the
        exact method is refused.
    method : {"heuristic", "exact"}, default "heuristic"
    order, seed :
        The public order, or the structure seed to recompute it
        (:func:`public_order`).
    l : int, optional
        Bound ``1/l``; default the release's published ``l``.
    targets, rng :
        Records attacked (default all), as in the other attacks.
    confidence : float, default 0.999
    candidates : CandidateSets, optional
        Reuse :func:`~graphanon.attacks.candidate_sets`.
    max_worlds : int, default 200,000
        The exact method's limit on the labellings it enumerates.

    Returns
    -------
    AttackResult
        ``attack`` is ``"group-skips/<method>"``; ``details``:
        ``skipped_records``, ``skipped_success`` and ``skipped_margin`` (the
        targets some group skipped), ``pinned`` and ``pinned_right``,
        ``uniform_in_group`` (the model's reading: the share of the target's
        label in its group), ``group_from_candidates`` /
        ``group_from_link`` / ``group_unknown``, ``order_source``,
        ``procedure``, ``l``; exact: ``worlds`` (enumerated) and
        ``consistent_worlds``, ``posterior_truth`` (mean posterior of the true label).

    Raises
    ------
    ParameterError
        Without labels, for a release without such groups, without the
        order, for an unknown method, or above ``max_worlds`` (exact).

    Notes
    -----
    Complexity: the candidate sets (:func:`~graphanon.attacks.candidate_sets`),
    then :func:`skip_heuristic`; the exact method re-runs the grouping once
    per enumerated labelling (the product over groups of their label
    arrangements).

    Examples
    --------
    >>> import numpy as np
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_cahd(data, l=2, grouping="order", unsafe_secret_seed=0)  # the paper's scan
    >>> res = group_skip_attack(data, rel, truth=rel.link)
    >>> res.attack, res.bound, res.details["procedure"]
    ('group-skips/heuristic', 0.5, 'scan')
    >>> exact = group_skip_attack(data, rel, truth=rel.link, method="exact")
    >>> exact.details["consistent_worlds"] >= 1
    True
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if original.labels is None:
        raise ParameterError("the group-skip attack is scored against the sensitive labels; the data has none")
    pub_labels = getattr(release, "labels", None)
    if pub_labels is None:
        raise ParameterError("this release publishes no sensitive labels; there is nothing to infer")
    n = original.n_records
    if getattr(release, "n_records", n) != n:
        raise ParameterError(f"the release has {release.n_records} rows for {n} records: not made from this data")
    row_group, procedure = public_groups(release)
    perm, order_source = public_order(original, release, order=order, seed=seed)
    C = candidates if candidates is not None else candidate_sets(original, release)
    group, revealed = record_groups(original, release, row_group, truth, C)
    from graphanon.attacks.group_skips_exact import check_reproduces

    if not check_reproduces(original, release, perm, group, procedure):
        raise ParameterError(f"the public grouping re-run along this order ({order_source}) on the true labels does "
                             "not give the release's groups: the order, or the seed it was recomputed from, is not the "
                             "release's")
    (orig_code, pub_code), n_labels = label_codes(original.labels, pub_labels)
    n_groups = int(row_group.max(initial=-1)) + 1
    counts = np.zeros((n_groups, n_labels))
    np.add.at(counts, (row_group, pub_code), 1.0)
    t = resolve_targets(targets, n, rng)
    t = t[group[t] >= 0]
    truth_code = orig_code[t]
    own = counts[group[t]]
    uniform = own[np.arange(len(t)), truth_code] / np.maximum(own.sum(axis=1), 1.0)
    level = model_level(release, l, ("l",), "l") or 1
    bound = 1.0 / level
    extra: dict = {}
    if method == "heuristic":
        left, skipped = skip_heuristic(perm, group, counts > 0, t)
        weight = own * left
        per_target = weight[np.arange(len(t)), truth_code] / np.maximum(weight.sum(axis=1), 1e-300)
        support = left
    else:
        from graphanon.attacks.group_skips_exact import exact_posterior

        if (group < 0).any():
            raise ParameterError(f"the exact posterior needs every record's group; {int((group < 0).sum())} "
                                 "records' candidate rows span several groups: pass truth=release.link")
        value_of = dict(zip(np.asarray(pub_code).tolist(), pub_labels, strict=True))  # code -> label value
        post, extra = exact_posterior(original, release, perm, group, counts, value_of, procedure,
                                      max_worlds=max_worlds)
        post = post[t]
        top = post >= post.max(axis=1, keepdims=True) - 1e-12
        per_target = top[np.arange(len(t)), truth_code] / top.sum(axis=1)
        extra["posterior_truth"] = float(post[np.arange(len(t)), truth_code].mean()) if len(t) else 0.0
        support = post > 1e-12
        skipped = skip_heuristic(perm, group, counts > 0, t)[1]
    pinned = support.sum(axis=1) == 1
    right = support[np.arange(len(t)), truth_code]
    n_skipped = int(skipped.sum())
    details = {
        "method": method, "procedure": procedure, "order_source": order_source, "l": level,
        "uniform_in_group": float(uniform.mean()) if len(t) else 0.0,
        "skipped_records": n_skipped,
        "skipped_success": float(per_target[skipped].mean()) if n_skipped else 0.0,
        "skipped_margin": chernoff_margin(n_skipped, bound, confidence),
        "pinned": int(pinned.sum()), "pinned_right": int((pinned & right).sum()),
        "group_from_candidates": int(revealed.sum()),
        "group_from_link": int(((group >= 0) & ~revealed).sum()),
        "group_unknown": int((group < 0).sum()),
        **extra,
    }
    return make_result(f"group-skips/{method}", per_target, bound, "1/l", confidence, details,
                       baseline=float(uniform.mean()) if len(t) else 0.0,
                       baseline_kind="share of the label in the target's group")
