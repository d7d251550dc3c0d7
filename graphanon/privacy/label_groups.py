"""The l-diversity audits of a release whose labels are published in label groups.

An ``nr --param l=L`` release (``l_method="groups"``, the default) publishes
its labels apart from its rows: row ``j`` belongs to label group
``label_groups[j]`` and the label printed on it is a uniform draw from the
group's multiset (:mod:`graphanon.algorithms.nonreciprocal.label_groups`).
The label distribution a reader holds for row ``j`` is therefore its group's
label shares, and the audit reads every label that way:

1. **groups** -- every group's label distribution meets the variant
   (distinct: no label on more than ``|G| / l`` of the group's rows, the
   Anatomy condition; entropy: ``>= log l``; recursive: ``r_1 < c (r_l +
   ...)``). This is the strong model: it bounds an adversary who pinpoints
   the target's own row by any means (content ranking included) at the
   largest label share of that row's group;
2. **candidates** -- for every record, the mixture of the group
   distributions of its candidate rows (each row counted once), and of its
   viable candidate rows (those some perfect matching of the match graph
   gives it), meets the variant too (the paper's uniform-possible-worlds
   adversary; implied by 1 for distinct and entropy, checked anyway);
3. the release has one row per record and the original label multiset, and
   every record has a candidate row;
4. with the private link (``release.link``): every record matches its own
   row; every group's published labels are exactly the original labels of
   the records whose rows it holds (consistency); and the published labels
   are not left on the records' own rows -- a release that keeps each
   record's label on its own row while claiming groups passes 1-3 yet gives
   the label to whoever pinpoints the row. Under a uniform within-group
   deal a record's row shows its own label ``sum_s c_{G,s}^2 / |G|`` times
   per group in expectation; more own-label rows than that plus the
   Hoeffding deviation at probability ``1e-9`` (``sqrt(ln(1e9) sum |G|^2 /
   2)``) is reported as a violation. A false alarm on an honest release has
   probability at most ``1e-9``; a planted release whose own-label excess
   is below that deviation is not caught (on groups of 3: about 1.8 sqrt(n)
   records).

References
----------
X. Xiao, Y. Tao. Anatomy: simple and effective privacy preservation. VLDB
2006, Sec. 3-4 (label groups; the ``1/l`` bound, Lemma 2).
A. Machanavajjhala et al. l-Diversity. ACM TKDD 1(1), 2007, Sec. 4.1.
W. Hoeffding. Probability inequalities for sums of bounded random
variables. JASA 58, 1963, Theorem 2.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from graphanon.privacy.label_matching import label_codes, linked_rows
from graphanon.privacy.match_graph import match_classes
from graphanon.privacy.matchings import viable_edges
from graphanon.privacy.report import AuditReport

__all__ = ["OWN_LABEL_P_VALUE", "grouped_label_audit", "grouped_label_distributions", "variant_ok"]

#: One-sided false-alarm probability of the own-label check (Hoeffding).
OWN_LABEL_P_VALUE = 1e-9
_SLACK = 1e-9


def variant_ok(counts: np.ndarray, l: int, diversity: str, c: float | None) -> np.ndarray:  # noqa: E741
    """Whether each row of a dense label-count (or share) matrix meets the l-diversity variant.

    Parameters
    ----------
    counts : ndarray (m, n_labels) of float
        Non-negative label weights, one distribution per row.
    l : int
    diversity : {"distinct", "entropy", "recursive"}
        Distinct: no label above ``1/l`` of the row's total and at least ``l``
        labels; entropy: ``-sum p log p >= log l``; recursive: ``r_1 < c (r_l + ...)``.
    c : float, optional
        The recursive constant.

    Returns
    -------
    ndarray of bool (m,)

    Examples
    --------
    >>> variant_ok(np.array([[1, 1, 1], [2, 1, 0]]), 3, "distinct", None).tolist()
    [True, False]
    >>> variant_ok(np.array([[2, 2, 1, 1]]), 3, "recursive", 1.0).tolist()
    [False]
    """
    W = np.asarray(counts, dtype=np.float64)
    total = W.sum(axis=1)
    safe = np.maximum(total, 1e-300)
    P = W / safe[:, None]
    nonempty = total > 0
    if diversity == "distinct":
        return nonempty & ((P > _SLACK).sum(axis=1) >= l) & (P.max(axis=1, initial=0.0) * l <= 1.0 + _SLACK)
    if diversity == "entropy":
        with np.errstate(divide="ignore", invalid="ignore"):
            H = -np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0)), 0.0).sum(axis=1)
        return nonempty & (H >= math.log(l) * (1.0 - _SLACK) - _SLACK)
    S = -np.sort(-P, axis=1)
    tail = S[:, l - 1 :].sum(axis=1)
    assert c is not None
    return nonempty & (S[:, 0] < c * tail - _SLACK)


def grouped_label_distributions(original, release):
    """Per group, per record's candidates and per record's viable candidates: the label weights.

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease
        With ``label_groups``.

    Returns
    -------
    dict
        ``groups`` (n_groups, n_labels) label counts per group; ``candidates``
        and ``viable`` (n_records, n_labels) sums of the group shares of each
        record's candidate (viable) rows, each row counted once;
        ``n_candidates``, ``n_viable`` (n_records,) row counts; ``pub_code``,
        ``orig_code``, ``names`` (label codes and values); ``mc`` the match classes.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> out = grouped_label_distributions(data, anonymize_nonreciprocal(data, l=2, rng=0))
    >>> bool((out["groups"].max(axis=1) * 2 <= out["groups"].sum(axis=1)).all())
    True
    """
    orig_code, pub_code, names = label_codes(original.labels, release.labels)
    n_labels = max(len(names), 1)
    g = np.asarray(release.label_groups, dtype=np.int64)
    n_groups = int(g.max()) + 1 if len(g) else 0
    G = np.zeros((n_groups, n_labels))
    np.add.at(G, (g, pub_code), 1.0)
    share_of_row = G[g] / np.maximum(G.sum(axis=1), 1.0)[g][:, None] if len(g) else np.zeros((0, n_labels))
    mc = match_classes(original, release)
    nb = len(mc.row_size)
    S = np.zeros((nb, n_labels))  # per row class: the summed shares of its rows
    np.add.at(S, mc.row_class, share_of_row)
    viable = viable_edges(mc.record_size, mc.row_size, mc.edge_record, mc.edge_row)
    na = len(mc.record_size)

    def per_record(keep):
        ea, eb = mc.edge_record[keep], mc.edge_row[keep]
        W = sp.csr_array(sp.coo_array((np.ones(len(ea)), (ea, eb)), shape=(na, nb))) @ S
        rows = np.bincount(ea, weights=mc.row_size[eb], minlength=na)
        return np.asarray(W)[mc.record_class], rows[mc.record_class].astype(np.int64)

    cand, n_cand = per_record(np.ones(len(viable), dtype=bool))
    via, n_via = per_record(viable)
    return {"groups": G, "candidates": cand, "viable": via, "n_candidates": n_cand, "n_viable": n_via,
            "pub_code": pub_code, "orig_code": orig_code, "names": names, "mc": mc}


def _least(x: np.ndarray) -> int:
    return int(x.min()) if len(x) else 0


def _own_label_excess(groups: np.ndarray, G: np.ndarray, orig_code: np.ndarray, pub_code: np.ndarray,
                      rows: np.ndarray) -> dict:
    """Own-label rows against a uniform within-group deal (Hoeffding at :data:`OWN_LABEL_P_VALUE`)."""
    own = int((pub_code[rows] == orig_code).sum())
    size = G.sum(axis=1)
    expected = float(((G**2).sum(axis=1) / np.maximum(size, 1.0)).sum())
    deviation = math.sqrt(math.log(1.0 / OWN_LABEL_P_VALUE) * float((size**2).sum()) / 2.0)
    return {"own_label_rows": own, "own_label_expected": round(expected, 3),
            "own_label_limit": round(expected + deviation, 3), "own_label_excess": own > expected + deviation}


def grouped_label_audit(model: str, original, release, l: int, diversity: str = "distinct",  # noqa: E741
                        c: float | None = None, *, max_examples: int = 10) -> AuditReport:
    """Audit the l-diversity variant of a release with label groups (module docstring).

    Parameters
    ----------
    model : str
        The model name for the report.
    original : TransactionData
        With its sensitive labels.
    release : NonreciprocalRelease
        With ``labels`` and ``label_groups``.
    l : int
    diversity : {"distinct", "entropy", "recursive"}
    c : float, optional
        The recursive constant.
    max_examples : int

    Returns
    -------
    AuditReport
        Violations: groups failing the variant, records whose candidate or
        viable label mixture fails it or that have no candidate row, and one
        per failed release-wide check (row count, label multiset, and with the
        link: records not matching their row, groups whose labels are not
        their records', labels left on their own rows).

    Notes
    -----
    Complexity: that of :func:`~graphanon.privacy.match_graph.match_classes`
    and :func:`~graphanon.privacy.matchings.viable_edges`, plus O((groups +
    records) x labels).

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_nonreciprocal(data, l=2, rng=0)
    >>> rep = grouped_label_audit("l-diversity", data, rel, 2)
    >>> rep.satisfied, rep.details["bad_groups"], rep.details["audited_with_link"]
    (True, 0, True)
    """
    problems: list[dict] = []
    if original.labels is None:
        return AuditReport(model=model, satisfied=False, violations=1, counterexamples=[{
            "problem": "the original data has no sensitive labels; load the data with its label column"}],
            details={"label_groups": True})
    if original.n_records != release.n_records:
        problems.append({"problem": "record count", "original": original.n_records, "published": release.n_records})
    out = grouped_label_distributions(original, release)
    G, names = out["groups"], out["names"]
    pub_count = np.bincount(out["pub_code"], minlength=len(names))
    orig_count = np.bincount(out["orig_code"], minlength=len(names))
    if (orig_count != pub_count).any():
        problems.append({"problem": "published labels differ from the original labels",
                         "published": {str(names[s]): int(v) for s, v in enumerate(pub_count) if v},
                         "original": {str(names[s]): int(v) for s, v in enumerate(orig_count) if v}})
    group_ok = variant_ok(G, l, diversity, c)
    cand_ok = variant_ok(out["candidates"], l, diversity, c)
    via_ok = variant_ok(out["viable"], l, diversity, c)
    record_bad = np.flatnonzero(~(cand_ok & via_ok) | (out["n_candidates"] == 0))
    details: dict = {
        "unit": f"label groups and records whose label distribution fails {diversity} l-diversity, + failed "
                "release-wide checks (row count, label multiset; with the link: own rows, group consistency, "
                "labels left on own rows)",
        "label_groups": True, "n_groups": int(G.shape[0]), "diversity": diversity,
        "bad_groups": int((~group_ok).sum()), "bad_records": int(len(record_bad)),
        "max_group_label_share": float((G.max(axis=1) / np.maximum(G.sum(axis=1), 1.0)).max(initial=0.0)),
        "min_group_size": _least(G.sum(axis=1)),
        "min_candidates": _least(out["n_candidates"]),
        "min_viable_candidates": _least(out["n_viable"]),
        "audited_with_link": False,
    }
    examples: list[dict] = []
    for gi in np.flatnonzero(~group_ok)[:max_examples]:
        examples.append({"label_group": int(gi), "label_counts": {str(names[s]): int(v) for s, v in
                                                                   enumerate(G[gi]) if v}})
    for i in record_bad[: max(0, max_examples - len(examples))]:
        i = int(i)
        examples.append({"record": original.record_ids[i], "candidate_rows": int(out["n_candidates"][i]),
                         "candidate_label_weights": {str(names[s]): round(float(v), 4)
                                                     for s, v in enumerate(out["candidates"][i]) if v > 0},
                         "viable_label_weights": {str(names[s]): round(float(v), 4)
                                                  for s, v in enumerate(out["viable"][i]) if v > 0}})
    link = getattr(release, "link", None)
    if link is not None and hasattr(link, "rows_for") and original.n_records == release.n_records:
        rows, link_problems = linked_rows(original, link)
        problems += link_problems
        if rows is not None:
            details["audited_with_link"] = True
            mc = out["mc"]
            nb = len(mc.row_size)
            edge_keys = np.unique(mc.edge_record * nb + mc.edge_row)
            pair = mc.record_class * nb + mc.row_class[rows]
            pos = np.minimum(np.searchsorted(edge_keys, pair), max(len(edge_keys) - 1, 0))
            matched = (edge_keys[pos] == pair) if len(edge_keys) else np.zeros(len(pair), dtype=bool)
            if not matched.all():
                i = int(np.flatnonzero(~matched)[0])
                problems.append({"problem": "records not in their own row's possible worlds (private link)",
                                 "records": int((~matched).sum()), "e.g.": original.record_ids[i]})
            g = np.asarray(release.label_groups, dtype=np.int64)
            truth = np.zeros_like(G)
            np.add.at(truth, (g[rows], out["orig_code"]), 1.0)
            wrong = np.flatnonzero((truth != G).any(axis=1))
            details["inconsistent_groups"] = int(len(wrong))
            if len(wrong):
                gi = int(wrong[0])
                problems.append({
                    "problem": "label groups whose published labels are not the labels of the records they hold "
                               "(private link)", "groups": int(len(wrong)), "e.g.": {
                        "label_group": gi,
                        "published": {str(names[s]): int(v) for s, v in enumerate(G[gi]) if v},
                        "records": {str(names[s]): int(v) for s, v in enumerate(truth[gi]) if v}}})
            own = _own_label_excess(g, G, out["orig_code"], out["pub_code"], rows)
            details.update(own)
            if own["own_label_excess"]:
                problems.append({
                    "problem": "labels left on their own rows: more records read their own label on their own row "
                               "than a uniform deal within the groups gives (Hoeffding, p < 1e-9)",
                    "own_label_rows": own["own_label_rows"], "limit": own["own_label_limit"]})
    violations = int((~group_ok).sum()) + int(len(record_bad)) + len(problems)
    worst = None
    if violations:
        worst = {"max_group_label_share": details["max_group_label_share"],
                 "min_candidates": details["min_candidates"]}
    return AuditReport(model=model, satisfied=violations == 0, violations=violations, worst=worst,
                       counterexamples=(problems + examples)[:max_examples], details=details)
