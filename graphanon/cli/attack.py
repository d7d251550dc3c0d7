"""``graphanon attack``: play the adversaries of :mod:`graphanon.attacks` against releases.

For each release, the attacks that apply to its kind run and each success is
printed next to its baseline (what guessing without the release's structure
achieves) and its bound (``--json``: one object, the same fields). Exit code 1 when some
attack exceeds its bound by more than the sampling margin, 2 on bad input.
"""

from __future__ import annotations

import sys

import click

from graphanon.cli._app import (
    EXIT_VIOLATED,
    SEED,
    check_data,
    echo_json,
    echo_note,
    input_options,
    main,
    parse_param_pairs,
    read_input,
    read_relational,
    relational_options,
    taxonomy_option,
)
from graphanon.errors import ParameterError


def _load_any_link(path: str):
    """A one-to-one link, or SplitPerson's split link (both private files)."""
    from graphanon.errors import ReleaseFormatError
    from graphanon.release import load_link, load_split_link

    try:
        return load_link(path)
    except ReleaseFormatError as first:
        try:
            return load_split_link(path)
        except ReleaseFormatError:
            raise first from None


def _with_link(release, link):
    """The link of ``release`` to score with, checked against it (None without one)."""
    if link is None:
        return None
    n_rows = len(getattr(link, "row_of_record", getattr(link, "record_of_row", ())))
    if n_rows != release.n_records:
        raise ParameterError(f"the link names {n_rows} rows, the release has {release.n_records}: pass each "
                             "release's own --link, in the order of the releases")
    return link


#: records the demographics-plus-items linkage attacks at most (drawn by ``--seed`` beyond): its cost is targets x rows
RT_TARGETS = 5000


def run_attacks(data, release, *, link=None, known_labels=None, m=2, categories=None, seed=0, taxonomy=None,
                external=None, rt_data=None, structure_seed=None, exact_group_skips=False) -> tuple[list, list]:
    """The attacks of :mod:`graphanon.attacks` that apply to ``release``.

    Parameters
    ----------
    data : TransactionData
        The data the release was made from.
    release : Release
    link : ReleaseLink or SplitLink, optional
        The private link; the attacks scored against it run only with it
        (without it the m-item attack reports its expected success,
        ``m-item-linkage/m=M/expected``, an upper bound of the scored one).
    known_labels : int, optional
        Targets whose labels the adversary knows (:func:`known_label_linkage`).
    m : int
        Items the m-item adversary knows.
    categories : ItemGroups, optional
        For the partner-tendency attack on swapping releases.
    seed : int
        Draws the known items and the known-label targets.
    taxonomy, external : Taxonomy and TransactionData, optional
        The public taxonomy and the adversary's other sample, for the
        leaf-naming attack on global recodings (:func:`~graphanon.attacks.leaf_naming`,
        scored against the items of ``data`` the release does not publish).
    rt_data : RTData, optional
        ``data`` joined with its relational table: a relational release
        (``-a rt``, ``rt-naive``) is attacked by
        :func:`~graphanon.attacks.rt_linkage` (the adversary knows a target's
        QI values and ``m`` of its items), on every record up to
        :data:`RT_TARGETS`, else on that many drawn by ``seed``.
    structure_seed : int, optional
        The seed the release was made with (``anonymize --seed``): the
        group-skip adversary recomputes a Gray-TSP order from it
        (:func:`~graphanon.attacks.group_skip_attack`; releases whose labels sit
        in groups formed along an order).
    exact_group_skips : bool
        Also run the group-skip adversary's exact posterior
        (``group-skips/exact``, ``method="exact"``) next to its heuristic; it
        needs every record's group (the link, unless the candidate rows show
        them all) and refuses above 200,000 labellings (``ParameterError``).

    Returns
    -------
    results : list of AttackResult
    skipped : list of str
        One line per attack that did not run, and why.

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_cahd(data, l=2, unsafe_secret_seed=0)
    >>> results, skipped = run_attacks(data, rel, link=rel.link, known_labels=3)
    >>> [r.attack for r in results][:3], skipped
    (['row-linkage/position', 'row-linkage/id', 'm-item-linkage/m=2'], [])
    """
    from graphanon.attacks import candidate_sets, label_inference, m_item_linkage, row_linkage
    from graphanon.attacks.label_linkage import known_label_linkage
    from graphanon.attacks.ranking import ranking_label_inference
    from graphanon.attacks.result import with_baseline
    from graphanon.attacks.tendency import partner_tendency, partners_from_link

    kind = getattr(release, "kind", None)
    results, skipped = [], []
    if kind == "relational":
        return _rt_attacks(data, release, rt_data, link=link, m=m, seed=seed)
    if kind == "perturbed":
        if categories is None:
            skipped.append("partner-tendency: needs the categories (--param categories=...)")
        elif release.moves in ("suppress", "split"):
            skipped.append(f"partner-tendency: a {release.moves!r} release moves no item between records")
        elif link is None:
            skipped.append("partner-tendency: scored against the swap partners, read off the private link (--link)")
        elif (release.params or {}).get("spread", 1) != 1:
            skipped.append("partner-tendency: with spread > 1 a record has several partners, which the link does not "
                           "name; score it in Python with partners=release.trace.pairs")
        else:
            pairs = partners_from_link(data, release, link)
            results.append(partner_tendency(data, release, categories=categories, partners=pairs, truth=link))
        return [with_baseline(r, data, release) for r in results], skipped
    if kind != "global_recoding" and not all(hasattr(release, a) for a in ("base", "distance", "threshold")):
        raise ParameterError(f"no attack of graphanon.attacks reads a {kind or type(release).__name__} release; "
                             "they read global recodings, nonreciprocal/CAHD and swapping releases")
    C = candidate_sets(data, release)
    has_labels = data.labels is not None and getattr(release, "labels", None) is not None
    if link is None:
        skipped.append("row-linkage: scored against the private link (--link): which row is the target's")
        if known_labels is not None:
            skipped.append("known-label-linkage: scored against the private link (--link)")
        results.append(m_item_linkage(data, release, truth=None, m=m, rng=seed))
    else:
        for strategy in ("position", "id"):
            results.append(row_linkage(data, release, truth=link, strategy=strategy, candidates=C))
        results.append(m_item_linkage(data, release, truth=link, m=m, rng=seed))
    if has_labels:
        for strategy in ("candidates", "position", "id"):
            results.append(label_inference(data, release, strategy=strategy, candidates=C))
        if kind != "global_recoding":
            results.append(ranking_label_inference(data, release, score="best", candidates=C))
            results.extend(_group_skips(data, release, link, C, structure_seed, skipped, exact_group_skips))
        if known_labels is not None and link is not None:
            results.append(known_label_linkage(data, release, truth=link, known=known_labels, rng=seed,
                                               candidates=C))
    else:
        skipped.append("label-inference, label-ranking: needs labels in the data (--label) and in the release")
        if known_labels is not None:
            skipped.append("known-label-linkage: needs labels in the data (--label) and in the release")
    if kind == "global_recoding":
        if taxonomy is None or external is None:
            skipped.append("leaf-naming: needs the public taxonomy (--taxonomy) and another sample of the population "
                           "(--param external=FILE)")
        else:
            from graphanon.attacks import leaf_naming

            taxonomy.check_covers(data.items)
            results.append(leaf_naming(release, taxonomy, external, truth=release.suppressed_items(data)))
    return [with_baseline(r, data, release) for r in results], skipped


def _group_skips(data, release, link, C, structure_seed, skipped: list, exact: bool = False) -> list:
    """The group-skip adversary for releases whose label groups follow an order; else a skipped line.

    The heuristic, and with ``exact`` the exact posterior next to it (a one-line refusal when it cannot run).
    """
    from graphanon.attacks.group_skips import group_skip_attack, public_groups, public_order

    try:
        public_groups(release)
    except ParameterError:
        if exact:
            skipped.append("group-skips/exact: the release publishes no labels in groups formed along an order")
        return []  # labels not published in groups formed by their labels: nothing to skip
    try:
        order, source = public_order(data, release, seed=structure_seed)
    except ParameterError:
        order_kind = (getattr(release, "params", None) or {}).get("order")
        skipped.append(f"group-skips: the record order the groups were formed along (order={order_kind}) is not "
                       "recomputed without the release's structure seed: give its anonymize --seed as --param "
                       "structure-seed=S")
        return []
    try:
        result = group_skip_attack(data, release, truth=link, order=order, candidates=C)
    except ParameterError as e:  # the grouping re-run along this order does not give the release's groups
        skipped.append(f"group-skips: {e} (a wrong --param structure-seed, or groups not formed along the order)")
        return []
    if link is None:
        skipped.append("group-skips: only the records whose candidate rows lie in one group are targeted; the "
                       "private link (--link) gives the others' groups (the strongest adversary)")
    result.details["order_source"] = source  # the order was had once, here: "trace" or "recomputed"
    if not exact:
        return [result]
    unknown = result.details["group_unknown"]
    if unknown:
        raise ParameterError(f"--param exact=true: the exact group-skip posterior needs every record's group, and "
                             f"{unknown} records' candidate rows span several groups: give the release's private "
                             "link (--link)")
    try:
        posterior = group_skip_attack(data, release, truth=link, order=order, candidates=C, method="exact")
    except ParameterError as e:  # above the 200,000 labellings it enumerates at the most
        raise ParameterError(f"--param exact=true: {e}") from None
    posterior.details["order_source"] = source
    return [result, posterior]


def _rt_attacks(data, release, rt_data, *, link, m, seed) -> tuple[list, list]:
    """The demographics-plus-items linkage of a relational release (:func:`run_attacks`)."""
    from graphanon.attacks import rt_linkage
    from graphanon.attacks.result import with_baseline
    from graphanon.metrics.rtviews import rt_views

    if rt_data is None or not hasattr(rt_data, "qi"):
        raise ParameterError("a relational release is attacked by an adversary who knows the demographics: give "
                             "--relational FILE --qi COLUMNS (the table it was made from)")
    v = rt_views(rt_data, release)
    k = int((release.params or {}).get("k") or 1)
    targets = None if data.n_records <= RT_TARGETS else RT_TARGETS
    res = rt_linkage(v.original_rows, v.original_items, v.published_rows, v.published_items, k=k, m=m, truth=link,
                     targets=targets, hierarchies=v.hierarchies, members=v.members, rng=seed)
    skipped = [] if link is not None else ["rt-linkage scored: against the private link (--link), which row is the "
                                           "target's; without it the success assumes the true row is a candidate"]
    return [with_baseline(res, data, release)], skipped


def _below_k(attack: dict) -> int:
    """Targets an attack left fewer than k candidate rows (a guarantee broken for them; 0 when not counted)."""
    return int((attack.get("details") or {}).get("records_below_k") or 0)


@main.command()
@click.argument("input_", metavar="DATA")
@click.argument("release_paths", metavar="RELEASE...", nargs=-1, required=True,
                type=click.Path(dir_okay=False))
@click.option("--link", "link_paths", multiple=True, type=click.Path(dir_okay=False),
              help="PRIVATE link file of a release (anonymize --link-out); repeat once per release, in order.")
@click.option("--known-labels", type=click.IntRange(min=1), default=None,
              help="The adversary also knows the sensitive labels of N targets (known-label row linkage).")
@click.option("-m", "m_items", type=click.IntRange(min=1), default=2, show_default=True,
              help="Items the m-item adversary knows of each target.")
@click.option("--param", "params", multiple=True,
              help="categories=random:N[:SEED] | taxonomy-level:D | FILE for swapping releases; external=FILE: "
                   "another sample of the population (read as DATA) for the leaf-naming attack; structure-seed=S: "
                   "the release's anonymize --seed (the group-skip adversary recomputes its Gray-TSP order); "
                   "exact=true: the group-skip adversary's exact posterior too (small data: at most 200,000 "
                   "labellings).")
@click.option("--taxonomy", default=None, help="Taxonomy for categories=taxonomy-level:D, and the public taxonomy of "
                                               "the leaf-naming attack.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Draws known items and known-label targets.")
@click.option("--allow-mismatch", is_flag=True, help="Attack even when a release was not made from DATA.")
@click.option("--json", "json_out", is_flag=True)
@relational_options
@input_options
def attack(input_, release_paths, link_paths, known_labels, m_items, params, taxonomy, seed, allow_mismatch, json_out,
           relational, qi, qi_hierarchies, categorical, fmt, sep, tid, item, label):
    """Run the adversaries of graphanon.attacks against each RELEASE of DATA (exit 1 above a bound).

    A relational release (-a rt, rt-naive) is attacked with its demographics (--relational FILE --qi
    COLUMNS): the adversary knows a target's QI values and -m of its items; a target left fewer than k
    candidate rows counts as above the bound.
    """
    from graphanon.release import load_release
    from graphanon.taxonomy.categories import parse_categories

    if link_paths and len(link_paths) != len(release_paths):
        raise ParameterError(f"{len(link_paths)} --link for {len(release_paths)} releases: give one per release, "
                             "in the order of the releases, or none")
    param_dict = parse_param_pairs(params)
    unknown = sorted(set(param_dict) - {"categories", "exact", "external", "structure-seed"})
    if unknown:
        raise ParameterError(f"unknown --param {', '.join(unknown)}; attack takes: categories, exact, external, "
                             "structure-seed")
    exact = param_dict.get("exact", "false").lower()
    if exact not in ("true", "false"):
        raise ParameterError(f"--param exact={param_dict['exact']!r}: give true (the group-skip adversary's exact "
                             "posterior next to its heuristic) or false")
    structure_seed = None
    if "structure-seed" in param_dict:
        text = param_dict["structure-seed"]
        if not text.isdigit():
            raise ParameterError(f"--param structure-seed={text!r}: give the whole number passed to anonymize --seed")
        structure_seed = int(text)
    data, bundled = read_input(input_, fmt, sep, tid, item, label)
    rt_data = read_relational(data, relational, qi, qi_hierarchies, categorical)
    categories = None
    if "categories" in param_dict:
        categories = parse_categories(param_dict["categories"], data, taxonomy_option(taxonomy, data, bundled))
    external = read_input(param_dict["external"], fmt, sep, tid, item, None)[0] if "external" in param_dict else None
    public_tax = taxonomy_option(taxonomy, data, bundled) if external is not None else None
    out, notes = [], []
    for i, path in enumerate(release_paths):
        release = load_release(path)
        if relational is not None and release.kind != "relational":
            raise ParameterError(f"--relational: {path} is a {release.kind} release, which publishes no demographics; "
                                 "drop --relational, or attack it separately")
        link = _with_link(release, _load_any_link(link_paths[i])) if link_paths else None
        note = None if allow_mismatch else check_data(data, release, link=link, name=str(path))
        results, skipped = run_attacks(data, release, link=link, known_labels=known_labels, m=m_items,
                                       categories=categories, seed=seed, taxonomy=public_tax, external=external,
                                       rt_data=rt_data, structure_seed=structure_seed,
                                       exact_group_skips=exact == "true")
        attacks = [r.to_dict() for r in results]
        for a in attacks:  # the (k, k^m) bound holds per target: one target below k breaks it
            a["within_bound"] = a["within_bound"] and not _below_k(a)
        out.append({"release": str(path), "kind": release.kind, "algorithm": release.algorithm,
                    "attacks": attacks, "skipped": skipped,
                    **({"data_verified": False} if note else {})})
        notes.append(note)
    above = sum(not a["within_bound"] for r in out for a in r["attacks"])
    if json_out:
        echo_json({"data": input_, "releases": out, "above_bound": above})
    else:
        _print_table(out)
        for note in notes:
            echo_note(note)
    sys.exit(EXIT_VIOLATED if above else 0)


def _print_table(out: list[dict], width: int = 80) -> None:
    """One table per release, at most ``width`` columns: success, baseline and bound on one line.

    How many targets, where the bound and the baseline come from go into
    numbered notes under the table (wrapped); an attack name too long for the
    line gets a line of its own, so that no line is longer than ``width``.
    """
    import textwrap

    header = ("attack", "success", "baseline", "bound", "margin", "verdict")
    for entry in out:
        click.echo(f"{entry['release']} ({entry['kind']}, {entry['algorithm']})")
        notes: dict[str, int] = {}
        rows = []
        for a in entry["attacks"]:
            base = "-" if a.get("baseline") is None else f"{a['baseline']:.4f}"
            note = (f"{a['n_targets']} targets; bound {a['bound_kind']}; "
                    f"baseline: {a.get('baseline_kind') or 'none computed'}")
            number = notes.setdefault(note, len(notes) + 1)
            verdict = "within" if a["within_bound"] else "ABOVE"
            rows.append((a["attack"], f"{a['success']:.4f}", base, f"{a['bound']:.4f}", f"{a['margin']:.4f}",
                         f"{verdict} [{number}]"))
        if rows:
            widths = [max(len(str(r[c])) for r in [header, *rows]) for c in range(len(header))]
            if 2 + sum(widths) + 2 * (len(widths) - 1) > width:
                widths[0] = len(header[0])
            for r in [header, *rows]:
                if len(r[0]) > widths[0]:
                    click.echo(f"  {r[0]}")
                    r = ("", *r[1:])
                click.echo("  " + "  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
        else:
            click.echo("  no attack ran")
        for a in entry["attacks"]:
            if _below_k(a):
                d = a["details"]
                first = ", ".join(f"record {e['record']}: {e['candidates']}" for e in d["below_k_examples"][:3])
                click.echo(textwrap.fill(f"{a['attack']}: {d['records_below_k']} of {a['n_targets']} targets have "
                                         f"fewer than k={d['k']} candidate rows ({first}, ...)", width - 1,
                                         initial_indent="  ", subsequent_indent="    "))
        if any(a["attack"] == "group-skips/heuristic" for a in entry["attacks"]) and not any(
                a["attack"] == "group-skips/exact" for a in entry["attacks"]):
            click.echo(textwrap.fill("group-skips/heuristic is a lower bound on what the label groups leak; the "
                                     "exact posterior (uniform over the labellings that reproduce the groups): "
                                     "--param exact=true, refused above 200,000 labellings", width - 1,
                                     initial_indent="  ", subsequent_indent="    "))
        for note, number in notes.items():
            click.echo(textwrap.fill(note, width - 1, initial_indent=f"  [{number}] ",
                                     subsequent_indent=" " * (len(str(number)) + 5)))
        for line in entry["skipped"]:
            click.echo(textwrap.fill(f"not run: {line}", width - 1, initial_indent="  ", subsequent_indent="    "))
