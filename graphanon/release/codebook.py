"""The codebook of an exported release: what every published item covers and what a recipient may infer.

:func:`codebook_facts` says what the release is (its method, privacy model,
parameters on the method's allowlist, labels, row order) and what it lets a
recipient infer and not infer; :func:`codebook_columns` describes every
published item (what it covers, its level in the taxonomy);
:func:`codebook_markdown` and :func:`codebook_html` are the pages written
beside an export (:func:`graphanon.release.export.export_release`).

References
----------
docs/export.md (the recipient's page); docs/privacy.md, "What a release file holds".
"""

from __future__ import annotations

import html
import json

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.release.base import Release, check_published_params
from graphanon.release.export_table import synthetic_rows
from graphanon.release.global_recoding import GlobalRecoding
from graphanon.release.itemsets import ItemsetRelease
from graphanon.release.local_recoding import LocalRecoding
from graphanon.release.nonreciprocal import NonreciprocalRelease
from graphanon.release.perturbed import PerturbedRelease
from graphanon.release.relational import RelationalRelease
from graphanon.release.synthetic import SyntheticRelease
from graphanon.utils.labels import display_label

__all__ = ["codebook_columns", "codebook_facts", "codebook_html", "codebook_markdown", "codebook_relational",
           "privacy_model_of"]


def privacy_model_of(release: Release) -> str:
    """The privacy model a release claims, read from its kind and published parameters.

    ``"km"`` (k^m-anonymity), ``"constraints"`` (COAT's privacy constraints),
    ``"transactional"`` (k-anonymity of whole records), ``"nonreciprocal"``
    (with ``"+ldiversity"`` when it publishes ``l``), ``"tendency"``
    (tendency hiding), or ``"none"`` for a hand-made release that claims nothing.

    Examples
    --------
    >>> from graphanon.release import PerturbedRelease
    >>> privacy_model_of(PerturbedRelease(items=["a"], records=[[1]], moves="swap"))
    'tendency'
    """
    params, kind = release.params, release.kind
    if kind == "perturbed":
        return "tendency"
    if kind in ("synthetic", "itemsets"):
        return "dp"
    if kind == "relational":
        if release.algorithm == "rt-naive":
            return "rt-naive"
        return "rt" if params.get("k") else "none"
    if kind == "local_recoding":
        return "transactional" if params.get("k") else "none"
    if kind == "nonreciprocal":
        if params.get("l"):
            return "nonreciprocal+ldiversity" if params.get("k") else "ldiversity"
        return "nonreciprocal" if params.get("k") else "none"
    if release.algorithm == "coat":
        return "constraints"
    return "km" if params.get("k") else "none"


_MAY = {
    "km": "Any {m_items} that one row holds are held together by at least {k} rows (k^m-anonymity): "
          "someone who knows {m_known} of a person's items finds at least {k} candidate rows.",
    "rt": "Rows with equal relational values form groups of at least {k} rows, and inside a group any {m_items} "
          "that one row holds are held together by at least {k} of its rows ((k, k^m)-anonymity): someone who "
          "knows a person's quasi-identifier values and {m_known} of their items finds at least {k} candidate rows.",
    "rt-naive": "Rows with equal relational values form groups of at least {k} rows (k-anonymity of the "
                "relational part alone), and over the whole release any {m_items} that one row holds are held "
                "together by at least {k} rows (k^m-anonymity of the items alone). The two together are NOT "
                "(k, k^m)-anonymous: someone who knows a person's quasi-identifier values and {m_known} of their "
                "items may find fewer than {k} candidate rows (a baseline, docs/relational.md).",
    "constraints": "Each privacy constraint the custodian listed is held by at least {k} rows or by none.",
    "transactional": "Every row is identical to at least {k_minus} other rows (k-anonymity of whole records): "
                     "a person's row is one of at least {k} equal rows.",
    "nonreciprocal": "Each row's true record is one of its possible worlds: the base with at most `threshold` of "
                     "its distance items flipped. Every original record matches at least {k} rows, and each of "
                     "them is equally likely to be its own (nonreciprocal k-anonymity).",
    "ldiversity": "The rows any original record may be carry at least {l} distinct sensitive labels "
                  "(l-diversity, l={l}).",
    "tendency": "Rows are not people's true records: {moved}; what is hidden is each person's tendency (the "
                "category that dominates their record).",
    "dp": "The rows are a synthetic dataset drawn by an epsilon-differentially private mechanism "
          "(epsilon={epsilon}, neighbouring datasets: one record added or removed); counts computed from them "
          "are noisy estimates of the data's.",
    "dp-itemsets": "The rows are itemsets chosen, and their supports noised, by an epsilon-differentially private "
                   "mechanism (epsilon={epsilon}, neighbouring datasets: one record added or removed): a support is "
                   "a noisy estimate of how many records hold the itemset.",
    "none": "This release claims no privacy model: check it with `graphanon audit` before relying on it.",
}
_MAY_NOT = {
    "global_recoding": "Which of the original items a generalized item covers a row held (it stands for at least "
                       "one of them); the names of suppressed items; that an item absent from a row was absent "
                       "from the person's record.",
    "local_recoding": "Which original items under a node a row held ({reading}); that an item absent from a row was "
                      "absent from the person's record.",
    "nonreciprocal": "Which possible world is a row's true record; which row is a given person's.",
    "relational": "A person's exact quasi-identifier values inside a published interval or hierarchy node; which "
                  "of the original items a generalized item covers a row held; the names of suppressed items; "
                  "how the groups were formed (no cluster or merge is published).",
    "synthetic": "That a row is a person's record, or that any person is in the data: no row stands for a "
                 "record, and the number of rows is itself noisy.",
    "itemsets": "That an itemset is exactly the top-k of the data, or its exact support; anything about one "
                "person: no row stands for a record, and the number of records is not published.",
    "perturbed": "That a row, or a combination of items in one row, belongs to one person: co-occurrences within "
                 "a row are not the data's. Which items were moved.",
}
_MOVED = {  # PerturbedRelease.moves -> what was done to the records
    "swap": "items were swapped between records",
    "swap-suppress": "items were swapped between records, and records left without a partner lost the items of "
                     "their heaviest category",
    "random-swap": "items were swapped between random pairs of records (colliding items were lost)",
    "suppress": "items of some records were removed",
    "split": "each record was split into one row per category, and the rows of one person are not linked",
}
_READING = {"one": "each copy stands for exactly one distinct original item under the node",
            "some": "a node stands for a non-empty set of the row's items under it"}
_ALWAYS = "The row order and the row names p1..pN carry no information (the order is random)."


def codebook_facts(release: Release) -> list[tuple[str, str]]:
    """What a codebook says of a release as a whole, as (what, value) pairs.

    Only what the release file publishes: kind, method, its allowlisted
    parameters (k, m, l ...), counts of rows and of suppressed items or nodes
    (never their names), and what a recipient may and may not infer.
    Raises :class:`~graphanon.errors.ReleaseFormatError` when a parameter is
    not on the allowlist (as :meth:`Release.save`).
    """
    params = release.params
    check_published_params(release.algorithm, params)
    model = privacy_model_of(release)
    facts = [("release kind", release.kind), ("method", str(release.algorithm)), ("privacy model", model),
             ("published rows", str(release.n_records))]
    facts += [(f"parameter {key}", _param_text(value)) for key, value in sorted(params.items()) if value is not None]
    if isinstance(release, RelationalRelease):
        facts.append(("quasi-identifiers", ", ".join(release.qi)))
        facts += [(f"published values of {name}", str(len(release.values[c]))) for c, name in enumerate(release.qi)]
        facts.append(("relational groups", str(len(release.groups()))))
        facts.append(("published items", str(len(release.published_items))))
        if release.n_suppressed is not None:
            facts.append(("original items suppressed in some group (count only)", str(release.n_suppressed)))
        facts.append(("item universe (leaves)", str(release.universe)))
    elif isinstance(release, GlobalRecoding):
        facts.append(("published items", str(release.n_published_items)))
        if release.n_suppressed is not None:
            facts.append(("suppressed original items (count only)", str(release.n_suppressed)))
        facts.append(("item universe (leaves)", str(release.universe)))
    elif isinstance(release, LocalRecoding):
        facts += [("published nodes", str(len(release.nodes))), ("reading", f"{release.reading}: "
                  f"{_READING[release.reading]}"), ("item universe (leaves)", str(release.universe))]
    elif isinstance(release, PerturbedRelease):
        facts += [("items", str(len(release.items))), ("moves", release.moves)]
    elif isinstance(release, NonreciprocalRelease):
        facts.append(("items", str(len(release.items))))
    elif isinstance(release, SyntheticRelease):
        facts += [("item universe (public)", str(len(release.items))),
                  ("distinct itemsets", str(len(release.counts)))]
    elif isinstance(release, ItemsetRelease):
        facts += [("item universe (public)", str(len(release.items))), ("released itemsets", str(release.n_records))]
    labels = getattr(release, "labels", None)
    label_text = "none published" if labels is None else f"published, {len(set(labels))} distinct values"
    if labels is not None and release.kind == "nonreciprocal" and not params.get("l"):
        label_text += ("; each row carries the label of the record it stands for, and k does not protect "
                       "labels (docs/privacy.md)")
    facts.append(("sensitive labels", label_text))
    k = params.get("k")
    fill = {"k": k, "k_minus": (k - 1) if isinstance(k, int) else "k-1", "m_items": f"{params['m']} or fewer published items" if params.get("m") else "published items",
            "m_known": f"up to {params['m']}" if params.get("m") else "any number",
            "l": params.get("l"), "moved": _MOVED.get(getattr(release, "moves", ""), ""),
            "reading": _READING.get(getattr(release, "reading", ""), ""), "epsilon": params.get("epsilon")}
    for part in model.split("+"):
        text = _MAY["dp-itemsets"] if release.kind == "itemsets" else _MAY[part]
        facts.append(("you may infer", text.format(**fill)))
    order = "The rows are ranked by noisy support (p1 the highest)." if release.kind == "itemsets" else _ALWAYS
    facts.append(("you may not infer", _MAY_NOT[release.kind].format(**fill) + " " + order))
    return facts


def _param_text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def codebook_columns(release: Release, *, taxonomy=None) -> dict[str, list]:
    """One line per published item: what it covers, its leaves, level and NCP, and how many rows hold it.

    Parameters
    ----------
    release : Release
    taxonomy : Taxonomy, optional
        Gives each item's ``level`` (its depth, the root at 0); without it the
        column is empty. The taxonomy is public, like the release.

    Returns
    -------
    dict of str to list
        ``published_item``, ``covers`` (the original items it stands for: a
        list), ``n_covered``, ``leaves`` (taxonomy leaves under it),
        ``level``, ``ncp`` (``(leaves - 1)/(universe - 1)``), ``rows`` (rows
        holding it); a local recoding adds ``copies`` (its copies over all
        rows), a nonreciprocal release ``distance_rows`` (rows where it is a
        distance position; ``rows`` counts the bases).

    Notes
    -----
    Complexity: O(published items + occurrences).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "b"], ["a"], ["c"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": "c"})
    >>> cb = codebook_columns(rel)
    >>> cb["published_item"], cb["covers"], cb["ncp"], cb["rows"]
    (['(a,b)', 'c'], [['a', 'b'], ['c']], [0.5, 0.0], [2, 1])
    """
    entries: list[tuple]
    if isinstance(release, (GlobalRecoding, RelationalRelease)):
        entries = [(pi.label, pi.members, pi.leaves) for pi in release.published_items]
        universe, matrix = release.universe, release.records
    elif isinstance(release, LocalRecoding):
        entries = [(nd.label, nd.members, nd.leaves) for nd in release.nodes]
        universe, matrix = release.universe, release.records
    elif isinstance(release, (NonreciprocalRelease, PerturbedRelease, SyntheticRelease, ItemsetRelease)):
        entries = [(x, (x,), 1) for x in release.items]
        universe = len(release.items)
        if isinstance(release, NonreciprocalRelease):
            matrix = release.base
        elif isinstance(release, SyntheticRelease):
            matrix = synthetic_rows(release)
        elif isinstance(release, ItemsetRelease):
            matrix = release.itemsets  # "rows": the released itemsets holding the item
        else:
            matrix = release.records
    else:
        raise ParameterError(f"cannot write a codebook for a release of kind {release.kind!r}")
    leaves = np.array([e[2] for e in entries], dtype=np.int64)
    out: dict[str, list] = {
        "published_item": [str(e[0]) for e in entries],
        "covers": [[str(x) for x in e[1]] for e in entries],
        "n_covered": [len(e[1]) for e in entries],
        "leaves": leaves.tolist(),
        "level": [_level(taxonomy, e[0]) for e in entries],
        "ncp": ((leaves - 1) / max(universe - 1, 1)).round(6).tolist(),
        "rows": _column_rows(matrix),
    }
    if isinstance(release, LocalRecoding):
        out["copies"] = np.bincount(matrix.indices, weights=matrix.data, minlength=len(entries)).astype(np.int64).tolist()
    if isinstance(release, NonreciprocalRelease):
        out["distance_rows"] = _column_rows(release.distance)
    return out


def _column_rows(matrix) -> list[int]:
    m = sp.csr_array(matrix)
    m.eliminate_zeros()
    return np.bincount(m.indices, minlength=m.shape[1]).astype(np.int64).tolist()


def _level(taxonomy, node):
    if taxonomy is None or node not in taxonomy:
        return None
    return taxonomy.depth(node)


def _md(text) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def codebook_markdown(release: Release, *, taxonomy=None) -> str:
    """The codebook as a Markdown page: :func:`codebook_facts`, then :func:`codebook_columns` as a table.

    Item names are quoted as :func:`graphanon.utils.labels.display_label`
    says (a name holding a comma or a space in double quotes).
    """
    lines = [f"# Codebook: a {release.kind.replace('_', ' ')} release by {release.algorithm}", "",
             "| what | value |", "| --- | --- |"]
    lines += [f"| {_md(what)} | {_md(value)} |" for what, value in codebook_facts(release)]
    cols = codebook_columns(release, taxonomy=taxonomy)
    names = list(cols)
    lines += ["", "## Published items", "", "| " + " | ".join(names) + " |", "|" + " --- |" * len(names)]
    for i in range(len(cols["published_item"])):
        cells = []
        for name in names:
            value = cols[name][i]
            if name == "covers":
                value = " ".join(display_label(x) for x in value)
            elif name == "published_item":
                value = display_label(value)
            cells.append("" if value is None else _md(value))
        lines.append("| " + " | ".join(cells) + " |")
    if isinstance(release, RelationalRelease):
        rel = codebook_relational(release)
        lines += ["", "## Published relational values", "", "| column | value | rows |", "| --- | --- | --- |"]
        lines += [f"| {_md(c)} | {_md(v)} | {r} |" for c, v, r in zip(rel["column"], rel["value"], rel["rows"])]
    return "\n".join(lines) + "\n"


def codebook_relational(release: RelationalRelease) -> dict[str, list]:
    """One line per published relational value: its column, its text and how many rows hold it.

    Examples
    --------
    >>> from graphanon.release.relational import RelationalRelease
    >>> rel = RelationalRelease(qi=["age"], relational=[["[40-49]"], ["[40-49]"], ["*"]],
    ...                         published_items=[], records=[[], [], []], universe=1)
    >>> codebook_relational(rel)
    {'column': ['age', 'age'], 'value': ['*', '[40-49]'], 'rows': [1, 2]}
    """
    out: dict[str, list] = {"column": [], "value": [], "rows": []}
    for c, name in enumerate(release.qi):
        counts = np.bincount(release.relational[:, c], minlength=len(release.values[c]))
        out["column"] += [name] * len(release.values[c])
        out["value"] += list(release.values[c])
        out["rows"] += counts.astype(np.int64).tolist()
    return out


def codebook_html(release: Release, *, taxonomy=None) -> str:
    """The codebook as one self-contained HTML page (the content of :func:`codebook_markdown`)."""
    esc = html.escape
    facts = "".join(f"<tr><th>{esc(w)}</th><td>{esc(v)}</td></tr>" for w, v in codebook_facts(release))
    cols = codebook_columns(release, taxonomy=taxonomy)
    names = list(cols)
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    body = []
    for i in range(len(cols["published_item"])):
        cells = [" ".join(display_label(x) for x in cols[n][i]) if n == "covers" else cols[n][i] for n in names]
        body.append("<tr>" + "".join(f"<td>{'' if c is None else esc(str(c))}</td>" for c in cells) + "</tr>")
    title = esc(f"Codebook: a {release.kind.replace('_', ' ')} release by {release.algorithm}")
    extra = ""
    if isinstance(release, RelationalRelease):
        rel = codebook_relational(release)
        extra = "<h2>Published relational values</h2><table><tr><th>column</th><th>value</th><th>rows</th></tr>" + "".join(
            f"<tr><td>{esc(c)}</td><td>{esc(v)}</td><td>{r}</td></tr>"
            for c, v, r in zip(rel["column"], rel["value"], rel["rows"])) + "</table>"
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head><body>"
            f"<h1>{title}</h1><table>{facts}</table><h2>Published items</h2>"
            f"<table><tr>{head}</tr>{''.join(body)}</table>{extra}</body></html>\n")
