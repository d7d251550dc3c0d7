"""Exact record-to-row assignments: do the published rows (and their labels) fit the records one-to-one?

A release is a faithful publication of its data only if some *assignment*
exists: a bijection between original records and published rows that gives
each record a row it may stand for (it lies in the row's possible worlds, or
the row is a recoding the record fits) and, when the release publishes
sensitive labels, a row carrying the record's own label. Checking each
record and each row on its own (degrees, label multisets, "every record fits
some row") tests necessary conditions only: two labels swapped between rows,
or a row edited so that fewer records fit it, pass them.

The existence of an assignment is a perfect bipartite matching, decided
exactly by one maximum flow on the graph compressed to classes (identical
records with the same label; identical rows with the same label), with
capacities equal to the class sizes -- :func:`graphanon.privacy.matchings.k_factor_flow`
with ``k = 1`` (the module notes there say why the compressed flow is exact).
Its value is the largest number of records that can be placed; the rest
cannot be placed by any assignment.

With the private link (``release.link``) there is nothing to search: each
record is checked against its own row (:func:`linked_pair_problems`).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (the release is one-to-one).
Schrijver. Combinatorial Optimization, Ch. 16 and 21 (bipartite
b-matchings, total unimodularity).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphanon.errors import DataMismatchError
from graphanon.privacy.matchings import hall_witness, k_factor_flow

__all__ = [
    "Assignment",
    "class_assignment",
    "label_codes",
    "label_preserving_assignment",
    "labels_follow_link",
    "linked_pair_problems",
    "linked_rows",
    "nonreciprocal_assignment_check",
]


def label_codes(original_labels, published_labels) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Shared integer codes of the original and the published labels (compared as text).

    Parameters
    ----------
    original_labels, published_labels : sequence
        Per-record and per-row sensitive labels.

    Returns
    -------
    orig_code, pub_code : ndarray of int64
        Code of each record's and each row's label; equal codes mean equal text.
    values : list of str
        The label text of each code.

    Examples
    --------
    >>> a, b, values = label_codes(["flu", 1], ["1", "hiv"])
    >>> a.tolist(), b.tolist(), values
    ([0, 1], [1, 2], ['flu', '1', 'hiv'])
    """
    text = [str(x) for x in original_labels] + [str(x) for x in published_labels]
    codes: dict[str, int] = {}
    arr = np.fromiter((codes.setdefault(t, len(codes)) for t in text), dtype=np.int64, count=len(text))
    n = len(original_labels)
    return arr[:n], arr[n:], list(codes)


@dataclass
class Assignment:
    """Outcome of the search for a record-to-row assignment.

    Attributes
    ----------
    exists : bool
        A bijection records -> rows along the allowed pairs exists.
    placed : int
        Largest number of records an assignment can place (maximum matching).
    unplaced : int
        ``records - placed``: records no assignment can place.
    witness : dict or None
        When none exists: a set of record classes (source side of a minimum
        cut) with ``records`` members but only ``supply`` rows they can use.
    """

    exists: bool
    placed: int
    unplaced: int
    witness: dict | None


def class_assignment(record_size, row_size, edge_record, edge_row) -> Assignment:
    """Is there a perfect matching of a class-compressed bipartite graph?

    Parameters
    ----------
    record_size, row_size : int arrays
        Members of each record class / row class.
    edge_record, edge_row : int arrays
        Class pairs ``(A, B)``: every record of ``A`` may take every row of ``B``.

    Returns
    -------
    Assignment

    Notes
    -----
    Complexity: one push-relabel max-flow on ``classes + 2`` nodes and ``classes + edges`` arcs.

    Examples
    --------
    Three records of one class and three rows in two classes, the class of
    two rows closed to them: only one record can be placed.

    >>> a = class_assignment([3], [1, 2], [0], [0])
    >>> a.exists, a.placed, a.unplaced
    (False, 1, 2)
    """
    record_size, row_size = np.asarray(record_size, np.int64), np.asarray(row_size, np.int64)
    flow = k_factor_flow(record_size, row_size, edge_record, edge_row, 1)
    n = int(record_size.sum())
    exists = flow.full and n == int(row_size.sum())
    placed = int(flow.value)
    witness = None
    if not flow.full:
        w = hall_witness(record_size, flow, 1)
        assert w is not None  # the flow falls short, so a cut separates some records
        witness = {"record_classes": w["record_classes"], "records": w["records"], "supply": w["supply"]}
    return Assignment(exists, placed, n - placed, witness)


def label_preserving_assignment(mc, original_labels) -> Assignment:
    """A perfect matching of a nonreciprocal match graph that gives every record a row of its own label.

    Parameters
    ----------
    mc : MatchClasses
        The class-compressed match graph built with ``by_label=True``
        (:func:`graphanon.privacy.match_graph.match_classes`): row classes
        carry one label each (``mc.row_label`` codes into ``mc.labels``).
    original_labels : sequence
        The original records' labels (compared with the published ones as text).

    Returns
    -------
    Assignment
        Over (record class, label) nodes: ``witness["record_classes"]`` are
        indices of those nodes; ``witness["records"]`` (positions in the
        original data) lists some of their records.

    Notes
    -----
    Records of one record class may carry different labels, so the left
    side is (record class, original label), of size the number of such
    records; it is joined to row class ``B`` when ``(A, B)`` is a match edge
    and ``B``'s label is the record's label.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> from graphanon.privacy.match_graph import match_classes
    >>> table = load("nr_table1")
    >>> rel = anonymize_cahd(table, l=2)
    >>> label_preserving_assignment(match_classes(table, rel, by_label=True), table.labels).exists
    True
    """
    orig_code, pub_code, _ = label_codes(original_labels, [str(v) for v in mc.labels])
    row_code = pub_code[mc.row_label]  # shared code of each row class's label
    n_codes = int(max(orig_code.max(initial=-1), row_code.max(initial=-1))) + 1
    pair_key = mc.record_class * n_codes + orig_code
    pairs, pair_of_record, pair_size = np.unique(pair_key, return_inverse=True, return_counts=True)
    want = mc.edge_record * n_codes + row_code[mc.edge_row]
    pos = np.searchsorted(pairs, want)
    pos = np.minimum(pos, max(len(pairs) - 1, 0))
    keep = (pairs[pos] == want) if len(pairs) else np.zeros(len(want), dtype=bool)
    result = class_assignment(pair_size, mc.row_size, pos[keep], mc.edge_row[keep])
    if result.witness is not None:
        stuck = np.isin(pair_of_record.ravel(), result.witness["record_classes"])
        result.witness["examples"] = np.flatnonzero(stuck)[:5].tolist()
    return result


def linked_rows(original, link) -> tuple[np.ndarray | None, list[dict]]:
    """Each original record's row by the private link, or None and a problem when the link does not fit the data.

    The link names records by id (:meth:`graphanon.release.ReleaseLink.rows_for`); data with other ids, or
    other records under them, cannot be checked with it -- the audit then reports one violation instead
    of raising.
    """
    try:
        return np.asarray(link.rows_for(original), dtype=np.int64), []
    except DataMismatchError as exc:
        return None, [{"problem": f"the private link does not fit this data: {exc}"}]


def linked_pair_problems(allowed: np.ndarray, row_of_record: np.ndarray, record_ids, pseudonyms, why: np.ndarray,
                         max_examples: int) -> tuple[int, list[dict]]:
    """Records whose own row (by the private link) is not allowed for them.

    Parameters
    ----------
    allowed : ndarray of bool, shape (n_records,)
        Whether record ``i`` may stand for its linked row ``row_of_record[i]``.
    row_of_record : ndarray of int
    record_ids, pseudonyms : sequences
        To name the record and its row in the examples.
    why : ndarray of object, shape (n_records,)
        Per record, the reason its pair fails (read only where ``~allowed``).
    max_examples : int

    Returns
    -------
    count : int
    examples : list of dict

    Examples
    --------
    >>> ok = np.array([True, False])
    >>> linked_pair_problems(ok, np.array([1, 0]), ["a", "b"], ["p1", "p2"], np.array(["", "label"], dtype=object), 5)
    (1, [{'problem': 'the private link gives this record a row it cannot stand for (label)', 'record': 'b', 'published_record': 'p1'}])
    """
    bad = np.flatnonzero(~np.asarray(allowed, dtype=bool))
    examples = [
        {"problem": f"the private link gives this record a row it cannot stand for ({why[i]})",
         "record": record_ids[int(i)], "published_record": pseudonyms[int(row_of_record[i])]}
        for i in bad[:max_examples]
    ]
    return len(bad), examples


def labels_follow_link(release) -> bool:
    """Whether a nonreciprocal release puts each record's label on the row the private link gives it.

    True for ``cahd`` and for ``nr`` with ``k`` only (labels travel with the
    chosen assignment); False for ``nr`` with ``l``, whose rows carry the
    label of the record whose own postimage they are (Xue et al., Fig. 4b),
    not of the record the chosen assignment gives them.
    """
    return not (release.algorithm == "nr" and (release.params or {}).get("l") is not None)


def nonreciprocal_assignment_check(original, release, mc, *, with_labels: bool, max_examples: int = 10
                                   ) -> tuple[list[dict], dict]:
    """The one-to-one check of a nonreciprocal release, exact, for the audits of ``privacy/nonreciprocal.py``.

    ``with_labels`` (and labels on both sides): a perfect matching of the
    match graph that gives every record a row with its own label must exist
    (:func:`label_preserving_assignment`); the label multiset alone is
    necessary only. With the private link (``release.link``) each record must
    also match its own row (an edge of the match graph) and, when the
    release's labels follow the link (:func:`labels_follow_link`), carry its
    label. (Without labels and without the link the k-factor flow of the
    audit already decides that a perfect matching exists.)

    Parameters
    ----------
    original : TransactionData
    release : NonreciprocalRelease
    mc : MatchClasses
        Built with ``by_label=with_labels``.
    with_labels : bool
    max_examples : int

    Returns
    -------
    problems : list of dict
        One entry per failed check (each counts as one violation), with examples.
    details : dict
        ``audited_with_link``; ``linked_records_not_matching`` (with the
        link); ``label_preserving_assignment`` (bool, or None when not
        checked) and ``unplaced_records``.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> from graphanon.privacy.match_graph import match_classes
    >>> table = load("nr_table1")
    >>> rel = anonymize_cahd(table, l=2)
    >>> rel.link = None
    >>> nonreciprocal_assignment_check(table, rel, match_classes(table, rel, by_label=True), with_labels=True)[1]
    {'audited_with_link': False, 'label_preserving_assignment': True, 'unplaced_records': 0}
    """
    link = getattr(release, "link", None)
    has_labels = with_labels and original.labels is not None and getattr(release, "labels", None) is not None
    problems: list[dict] = []
    details: dict = {"audited_with_link": False}
    rows = None
    if link is not None and hasattr(link, "rows_for") and original.n_records == release.n_records:
        rows, problems = linked_rows(original, link)
        details = {"audited_with_link": True, "linked_records_not_matching": None}
    if rows is not None:
        nb = len(mc.row_size)
        edge_keys = np.unique(mc.edge_record * nb + mc.edge_row)
        pair = mc.record_class * nb + mc.row_class[rows]
        pos = np.minimum(np.searchsorted(edge_keys, pair), max(len(edge_keys) - 1, 0))
        matched = (edge_keys[pos] == pair) if len(edge_keys) else np.zeros(len(pair), dtype=bool)
        same_label = np.ones(len(rows), dtype=bool)
        if has_labels and labels_follow_link(release):
            orig_code, pub_code, _ = label_codes(original.labels, release.labels)
            same_label = orig_code == pub_code[rows]
        why = np.where(matched, "label", "the record is not in the row's possible worlds").astype(object)
        n_bad, examples = linked_pair_problems(matched & same_label, rows, original.record_ids, release.pseudonyms,
                                               why, max_examples)
        if n_bad:
            problems.append({"problem": "records not published faithfully by their own row (private link)",
                             "records": n_bad, "e.g.": examples[:3]})
        details = {"audited_with_link": True, "linked_records_not_matching": n_bad}
    if not has_labels:
        return problems, {**details, "label_preserving_assignment": None, "unplaced_records": None}
    result = label_preserving_assignment(mc, original.labels)
    if not result.exists:
        problems.append({
            "problem": "no perfect matching of records to rows gives every record a row with its own label "
                       "(labels were moved between rows)",
            "unplaced": result.unplaced,
            "e.g.": [{"record": original.record_ids[i], "label": str(original.labels[i])}
                     for i in (result.witness or {}).get("examples", [])[:3]],
        })
    return problems, {**details, "label_preserving_assignment": result.exists, "unplaced_records": result.unplaced}
