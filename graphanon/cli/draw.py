"""``graphanon draw``: figures of taxonomies, searches, constraints and generalization graphs."""

from __future__ import annotations

from pathlib import Path

import click

from graphanon.cli._app import (
    SEED,
    check_output,
    input_options,
    main,
    parse_m,
    read_input,
    read_taxonomy_source,
    taxonomy_option,
)
from graphanon.cli.draw_release import draw_hierarchy, draw_pairs, draw_partitions, draw_relational
from graphanon.errors import GraphanonError

_INPUT = ("fmt", "sep", "tid", "item", "label")

#: What each kind draws and the options it reads (by parameter name); `draw KIND --help` shows only these.
KINDS = {
    "taxonomy": ("Draw a taxonomy. SOURCE is a taxonomy file or a bundled name; --release highlights the cut "
                 "that release published, its suppressed nodes apart from those absent from the data (--data, "
                 "or SOURCE's bundled data).", ("output", "release_path", "data_source", "max_nodes", *_INPUT)),
    "search": ("Draw the hghs/mhghs search on SOURCE data: the cut found, the cut lattice and the suppression "
               "enumeration tree (an .html output steps through the walk).",
               ("output", "algorithm", "k", "m_value", "taxonomy", "n_records", *_INPUT)),
    "constraints": ("Draw COAT's constraint graph of SOURCE data: the dataset's bundled constraints, else the "
                    "pgen constraints of -k.", ("output", "k", "n_records", *_INPUT)),
    "generalization": ("Draw the nonreciprocal ring graph over the Gray-TSP order of SOURCE data (-k) and the k "
                       "assignments the closed walk extracts (at most 60 records in a PNG; any number in an .html view).",
                       ("output", "k", "seed", "n_records", *_INPUT)),
    "partitions": ("Draw DiffPart's partition tree implied by SOURCE, a synthetic (DP) release: each node the cut "
                   "of the released itemsets at a taxonomy depth and the sum of their noisy counts -- from the "
                   "release alone, nothing exact (--taxonomy FILE when the release was made over a given "
                   "taxonomy; PNG: the --max-nodes largest, default 60).",
                   ("output", "taxonomy", "max_nodes")),
    "pairs": ("Draw PrivBasis's frequent-pair graph implied by SOURCE, an itemset (DP) release: its released "
              "items, pairs and itemsets of 3+ items with their noisy supports -- from the release alone; the "
              "mechanism's bases are never drawn.", ("output",)),
    "hierarchy": ("Draw the hierarchies of relational attributes: SOURCE is the CSV table (one row per record, "
                  "the record id first), --qi the columns to draw (numeric ones as intervals level by level, "
                  "categorical ones flat or from --qi-hierarchy COLUMN=FILE); --release highlights the values a "
                  "relational release publishes.",
                  ("output", "release_path", "max_nodes", "qi", "qi_hierarchies", "categorical")),
    "relational": ("Draw the relational classes of SOURCE, a relational release: one per class (rows with "
                   "equal published QI values) with its size and published items (a figure: the --max-nodes "
                   "largest, default 60); in an .html view a click draws the class's rows grouped by item set "
                   "and the items it publishes (from the release alone: which records a class holds is never "
                   "in a release file).", ("output", "max_nodes")),
    "similarity": ("HTML only: Clump's record-similarity graph of SOURCE data (-k, --taxonomy), records "
                   "coloured by their group (PRIVATE: the groups come from the private link).",
                   ("output", "k", "taxonomy", "n_records", *_INPUT)),
}


class _DrawCommand(click.Command):
    """``graphanon draw KIND --help`` shows the help of that kind: what it draws and the options it reads."""

    def parse_args(self, ctx, args):
        """Answer ``KIND --help`` with the kind's help; parse anything else as usual."""
        helps = set(ctx.help_option_names)
        if args and args[0] in KINDS and helps.intersection(args):
            click.echo(self.kind_help(ctx, args[0]), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def kind_help(self, ctx, kind: str) -> str:
        """The help text of ``graphanon draw KIND``."""
        description, names = KINDS[kind]
        formatter = ctx.make_formatter()
        formatter.write_usage(f"{ctx.command_path} {kind}", "SOURCE -o FILE [OPTIONS]")
        formatter.write_paragraph()
        formatter.write_text(description)
        rows = [p.get_help_record(ctx) for p in self.get_params(ctx)
                if p.name in names or p.name == "help"]
        with formatter.section("Options"):
            formatter.write_dl([row for row in rows if row is not None])
        return formatter.getvalue().rstrip("\n")


@main.command(cls=_DrawCommand)
@click.argument("what", type=click.Choice(list(KINDS)))
@click.argument("source")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="PNG/SVG/PDF file, or an .html file: an interactive view that opens offline.")
@click.option("--release", "release_path", default=None, help="taxonomy: highlight the cut of this release; hierarchy: the values this "
                   "relational release publishes.")
@click.option("--data", "data_source", default=None, metavar="INPUT",
              help="taxonomy: the data the release was made from, to tell suppressed nodes from nodes absent "
                   "from the data (default: SOURCE's data when SOURCE is a bundled dataset).")
@click.option("--max-nodes", default=300, show_default=True, type=click.IntRange(min=1),
              help="taxonomy, partitions, hierarchy: draw at most this many nodes (partitions: default 60); "
                   "relational: the largest classes in a figure (default 60).")
@click.option("-a", "--algorithm", "algorithm", default="hghs", show_default=True, help="search: hghs or mhghs.")
@click.option("-k", type=int, default=None, help="Privacy parameter k.")
@click.option("-m", "m_value", default=None, help="search: attacker knowledge m (a number, or inf).")
@click.option("--taxonomy", default=None, help="search: taxonomy (as for anonymize).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="generalization: structure seed, as anonymize --seed: the ring over the Gray-TSP order a "
                   "nonreciprocal release made with this seed and -k is built on.")
@click.option("--records", "n_records", type=click.IntRange(min=1), default=None,
              help="Use only the first N records of SOURCE data.")
@click.option("--qi", default=None, metavar="COLUMNS", help="hierarchy: the columns of SOURCE to draw, comma-separated.")
@click.option("--qi-hierarchy", "qi_hierarchies", multiple=True, metavar="COLUMN=FILE",
              help="hierarchy: the hierarchy file of a --qi column (value;parent;...;root per line, ARX style); "
                   "default: automatic intervals for numbers, flat for text (repeatable).")
@click.option("--categorical", default=None, metavar="COLUMNS",
              help="hierarchy: columns of SOURCE read as text though they hold numbers (zip codes).")
@input_options
def draw(what, source, output, release_path, data_source, max_nodes, algorithm, k, m_value, taxonomy, seed,
         n_records, qi, qi_hierarchies, categorical, fmt, sep, tid, item, label):
    """Draw a graph an algorithm builds to a file.

    \b
    taxonomy        SOURCE is a taxonomy file or bundled name; --release
                    highlights its cut (suppressed and absent nodes apart)
    search          hghs/mhghs search on SOURCE data: cut, cut lattice,
                    suppression enumeration tree
    constraints     COAT constraint graph of SOURCE data (bundled
                    constraints, else pgen with -k)
    generalization  nonreciprocal ring graph over the Gray-TSP order of
                    SOURCE data (-k) and the k assignments the closed walk
                    extracts (at most 60 records; HTML: any number)
    partitions      DiffPart's partition tree implied by SOURCE, a synthetic
                    (DP) release: noisy counts from the release, nothing exact
    pairs           PrivBasis's frequent-pair graph implied by SOURCE, an
                    itemset (DP) release: noisy supports from the release
    hierarchy       hierarchies of the --qi columns of SOURCE, a relational
                    table (--release: the values it publishes highlighted)
    relational      the relational classes of SOURCE, a relational release:
                    size and published items (HTML: a class's rows on click)
    similarity      HTML only: Clump's record-similarity graph of SOURCE data
                    (-k, --taxonomy), records coloured by their group
                    (PRIVATE: groups come from the link)

    An output ending in .html writes an interactive view (pan, zoom, click a
    node for its details) with everything inlined: it opens offline, with no
    server. `graphanon draw KIND --help` shows the options each kind reads.
    """  # noqa: D301 - "\b" is click's marker that keeps the table's line breaks, not a raw backslash
    # Figures are made with matplotlib.figure.Figure (never pyplot): the file is rendered by Agg
    # without selecting a backend, so an interactive session calling this keeps its own.
    from graphanon.viz import FIGURE_SUFFIXES, save_figure
    from graphanon.viz.views import HTML_SUFFIXES

    check_output(output, source, release_path, taxonomy, data_source, suffixes=FIGURE_SUFFIXES + HTML_SUFFIXES)
    if data_source is not None and (what != "taxonomy" or release_path is None):
        raise GraphanonError("--data tells the nodes of a --release cut apart: it goes with draw taxonomy --release")
    if what == "partitions":
        draw_partitions(source, output, taxonomy, max_nodes)
        return
    if what == "pairs":
        draw_pairs(source, output)
        return
    if what == "hierarchy":
        draw_hierarchy(source, output, qi, qi_hierarchies, categorical, release_path, max_nodes)
        return
    if (qi, qi_hierarchies, categorical) != (None, (), None):
        raise GraphanonError("--qi, --qi-hierarchy and --categorical describe a relational table: they go with "
                             "draw hierarchy")
    if what == "relational":
        draw_relational(source, output, max_nodes)
        return
    cut = None
    if what == "taxonomy" and release_path:
        cut = _release_cut(source, release_path, data_source, (fmt, sep, tid, item, label))
        click.echo(cut[4])
    if output.lower().endswith(HTML_SUFFIXES):
        _draw_view(what, source, output, release_path, algorithm, k, parse_m(m_value), taxonomy, seed,
                   n_records, (fmt, sep, tid, item, label), cut)
        click.echo(f"wrote {output}")
        return
    if what == "similarity":
        raise GraphanonError("draw similarity writes an interactive view: give -o a name ending in .html")
    if what == "taxonomy":
        fig = _draw_taxonomy(source, cut, max_nodes)
    else:
        data, bundled = read_input(source, fmt, sep, tid, item, label)
        data = _first_records(data, n_records)
        if what == "search":
            fig = _draw_search(data, bundled, algorithm, k, parse_m(m_value), taxonomy)
        elif what == "constraints":
            fig = _draw_constraints(data, bundled, k)
        else:
            fig = _draw_generalization(data, k, seed)
    save_figure(fig, output, close=True)
    click.echo(f"wrote {output}")


def _release_cut(source, release_path, data_source, input_args):
    """The cut of ``--release`` on taxonomy ``source``: (cut, suppressed, absent, data, summary line).

    Nodes under no published node are *suppressed* when the data has an
    item below them and *absent* when it has none (``--data``, else the
    bundled data of ``source``); without data they are all counted as
    unpublished, and the summary says the two cannot be told apart.
    """
    from graphanon.cli._app import is_bundled
    from graphanon.release import check_same_data, load_release
    from graphanon.viz.views import classify_cut

    tax = read_taxonomy_source(source)
    rel = load_release(release_path)
    published = getattr(rel, "published_items", None)
    if published is None:
        raise GraphanonError(f"--release {release_path}: a {rel.kind} release publishes no taxonomy cut")
    data = None
    if data_source is not None:
        data, _ = read_input(data_source, *input_args)
        check_same_data(data, rel)  # the counts are the release's only for the data it was made from
    elif is_bundled(source):
        from graphanon import datasets

        data = datasets.load(source)
        try:
            check_same_data(data, rel)
        except GraphanonError:  # made from other data (a subset, a file): SOURCE's data tells nothing
            data = None
    labels = [pi.label for pi in published if pi.label in tax]
    cut, suppressed, absent = classify_cut(tax, labels, None if data is None else data.items)
    name = f"cut of {Path(release_path).name} ({rel.algorithm})"
    n_pub = len(cut) - len(suppressed) - len(absent)
    if data is None:
        summary = (f"{name}: {n_pub} published nodes, {len(suppressed)} unpublished (suppressed or absent from "
                   "the data: pass --data to tell them apart)")
    else:
        summary = (f"{name}: {n_pub} published nodes, {len(suppressed)} suppressed, {len(absent)} absent from "
                   "the data")
    return cut, suppressed, absent, data, summary


def _draw_taxonomy(source, cut, max_nodes):
    from matplotlib.figure import Figure

    from graphanon.viz.taxonomy import draw_taxonomy, taxonomy_figsize

    tax = read_taxonomy_source(source)
    highlight, suppressed, absent, title = (), (), (), None
    if cut is not None:
        highlight, suppressed, absent, _, summary = cut
        title = summary.split(" (suppressed or absent")[0]
    fig = Figure(figsize=taxonomy_figsize(tax, highlight=highlight, max_nodes=max_nodes))
    return draw_taxonomy(tax, highlight=highlight, suppressed=suppressed, absent=absent, max_nodes=max_nodes,
                         ax=fig.subplots(), title=title)


def _search_release(data, bundled, algorithm, k, m, taxonomy):
    """The hghs/mhghs release whose search ``draw search`` shows (PNG or HTML), and its taxonomy."""
    from graphanon.algorithms.hierarchy.hghs import anonymize_hghs, anonymize_mhghs

    methods = {"hghs": anonymize_hghs, "mhghs": anonymize_mhghs}
    if algorithm not in methods:
        raise GraphanonError(f"draw search: -a takes hghs or mhghs, got {algorithm!r}")
    if k is None:
        raise GraphanonError("draw search needs -k K")
    tax = taxonomy_option(taxonomy, data, bundled)
    if tax is None:
        raise GraphanonError("draw search needs a taxonomy: pass --taxonomy FILE or balanced:5")
    return methods[algorithm](data, taxonomy=tax, k=k, m=m), tax


def _draw_search(data, bundled, algorithm, k, m, taxonomy):
    from matplotlib.figure import Figure

    from graphanon.viz.hierarchy import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut
    from graphanon.viz.taxonomy import taxonomy_figsize

    rel, tax = _search_release(data, bundled, algorithm, k, m, taxonomy)
    fig = Figure(figsize=(20, max(6.0, taxonomy_figsize(tax, highlight=rel.trace.cut)[1])))
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.0, 1.3, 0.8], "wspace": 0.25})
    draw_taxonomy_cut(tax, rel.trace.cut, rel.trace.suppressed, ax=axes[0])
    draw_cut_lattice(rel.trace.search.lattice(), ax=axes[1], max_nodes=25)
    draw_enumeration_tree(rel.trace.search.enumeration_tree(), ax=axes[2], max_nodes=25)
    return fig


def _constraints(data, bundled, k):
    """The bundled constraints of a dataset, else pgen's privacy constraints for ``-k``."""
    from graphanon import datasets as ds
    from graphanon.algorithms.coat import pgen

    try:
        bundled_constraints = ds.load_constraints(bundled) if bundled else None
    except GraphanonError:
        bundled_constraints = None
    if bundled_constraints is not None:
        return bundled_constraints["privacy"], bundled_constraints["utility"]
    if k is None:
        raise GraphanonError("draw constraints needs -k K (privacy constraints are generated by pgen)")
    return pgen(data, k), None


def _draw_constraints(data, bundled, k):
    from graphanon.graphs.constraints import ConstraintGraph
    from graphanon.viz.coat import draw_constraint_graph

    privacy, utility = _constraints(data, bundled, k)
    from matplotlib.figure import Figure

    graph = ConstraintGraph(data, privacy, utility)
    if graph.to_networkx().number_of_nodes() > _MAX_CONSTRAINT_NODES:  # a hairball: summarize instead
        from graphanon.viz.coat import draw_constraint_summary

        fig = Figure(figsize=(13, 10))
        return draw_constraint_summary(graph, fig.subplots(1, 2, gridspec_kw={"width_ratios": [2, 1]}))[0].figure
    return draw_constraint_graph(graph, ax=Figure(figsize=(16, 5)).subplots(), max_nodes=_MAX_CONSTRAINT_NODES).figure


_MAX_CONSTRAINT_NODES = 80


_MAX_DRAWN_RECORDS = 60
_RING_MIN_FONT = 6.0  # points: the smallest record id `draw generalization` writes on its ring


def _draw_generalization(data, k, seed):
    from matplotlib.figure import Figure

    from graphanon.algorithms.nonreciprocal import extract_assignments
    from graphanon.graphs.generalization import ring_graph
    from graphanon.viz.nonreciprocal import (
        draw_assignments,
        draw_generalization_graph,
        ring_label_font,
    )

    if k is None:
        raise GraphanonError("draw generalization needs -k K")
    if data.n_records > _MAX_DRAWN_RECORDS:
        raise GraphanonError(
            f"draw generalization shows at most {_MAX_DRAWN_RECORDS} records in a figure and the data has "
            f"{data.n_records}; draw the first ones with --records {_MAX_DRAWN_RECORDS}, or all of them "
            "in an interactive view (-o view.html)"
        )
    if not 1 <= k <= data.n_records:
        raise GraphanonError(f"-k must be between 1 and the number of records ({data.n_records}), got {k}")
    order = _published_order(data, seed)
    graph = ring_graph(order, k, data.record_ids)
    width, height = 14.0, max(6.0, 0.16 * data.n_records + 1)
    # Long ids (8 digits and more) get a bigger ring rather than a font too small to read or labels that touch:
    # the ring's side (a subplot takes 0.352 of the width and 0.77 of the height) grows until they fit at 6 pt.
    side = _RING_MIN_FONT / ring_label_font(72.0, data.n_records, data.record_ids) * 72.0
    if ring_label_font(72.0 * min(0.352 * width, 0.77 * height), data.n_records, data.record_ids) < _RING_MIN_FONT:
        width, height = max(width, side / 72.0 / 0.352), max(height, side / 72.0 / 0.77)
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, 2)
    draw_generalization_graph(graph, order, ax=axes[0], title=f"{k}-regular ring over the Gray-TSP order")
    assignments = extract_assignments(graph, rng=seed)
    draw_assignments(graph, assignments, order, ax=axes[1], title=f"{k} disjoint assignments (closed walk)")
    return fig


def _published_order(data, seed):
    """The Gray-TSP order nonreciprocal recoding publishes with for structure seed ``seed`` (``anonymize --seed``).

    The same derivation as the anonymizer's (one draw of the seeded generator gives the order's seed) and its
    default budget (a step count, not a clock: the same order on any machine and load), so the drawn ring is the
    one a release made with the same ``--seed`` and ``-k`` is built on. From ``_PARALLEL_ORDER_FROM`` records the
    segments are solved on every usable core: on a step budget the order does not depend on ``n_jobs``.
    """
    import os

    from graphanon.algorithms.nonreciprocal import record_order
    from graphanon.utils.randomness import check_random_state

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return record_order(data, "gray-tsp", rng=int(check_random_state(seed).integers(2**31 - 1)),
                        n_jobs=cores if data.n_records >= _PARALLEL_ORDER_FROM else 1)


_PARALLEL_ORDER_FROM = 50_000  # below, forking the segment workers costs more than it saves


def _first_records(data, n_records):
    if n_records is None or n_records >= data.n_records:
        return data
    import numpy as np

    return data.subset(np.arange(n_records)).drop_unused_items()


def _draw_view(what, source, output, release_path, algorithm, k, m, taxonomy, seed, n_records, input_args,
               release_cut=None):
    """``-o view.html``: the interactive view of ``what`` (graphanon.viz.views)."""
    from graphanon.viz import views

    if what == "taxonomy":
        from graphanon.cli._app import is_bundled

        tax = read_taxonomy_source(source)
        cut, suppressed, absent, title, data = (), (), (), f"Taxonomy {source}", None
        if release_cut is not None:
            cut, suppressed, absent, data, summary = release_cut
            title = f"Taxonomy {source} with the {summary.split(' (suppressed or absent')[0]}"
        if data is None and is_bundled(source):
            from graphanon import datasets

            data = datasets.load(source)
        view = views.taxonomy_view(tax, cut, suppressed, data=data, title=title, absent=absent)
        view.save(output)
        return
    data, bundled = read_input(source, *input_args)
    data = _first_records(data, n_records)
    if what == "search":
        rel, _ = _search_release(data, bundled, algorithm, k, m, taxonomy)
        view = views.search_view(rel.trace.search, title=f"{algorithm} search on {source} (k={k}, m={m})")
    elif what == "constraints":
        from graphanon.graphs.constraints import ConstraintGraph

        privacy, utility = _constraints(data, bundled, k)
        view = views.constraint_view(ConstraintGraph(data, privacy, utility))
    elif what == "generalization":
        from graphanon.graphs.generalization import ring_graph

        if k is None:
            raise GraphanonError("draw generalization needs -k K")
        if not 1 <= k <= data.n_records:
            raise GraphanonError(f"-k must be between 1 and the number of records ({data.n_records}), got {k}")
        order = _published_order(data, seed)
        view = views.generalization_view(ring_graph(order, k, data.record_ids), order, data=data,
                                         title=f"{k}-regular ring graph of {source} ({data.n_records:,} records)")
    else:  # similarity
        from graphanon.algorithms.grouping.clump import anonymize_clump

        if k is None:
            raise GraphanonError("draw similarity needs -k K (the Clump groups are drawn)")
        tax = taxonomy_option(taxonomy, data, bundled)
        if tax is None:
            raise GraphanonError("draw similarity needs a taxonomy for Clump: pass --taxonomy FILE or balanced:5")
        rel = anonymize_clump(data, taxonomy=tax, k=k, rng=seed)
        groups = rel.group_ids()[rel.link.row_of_record]  # PRIVATE: which records share a group
        view = views.similarity_view(rel.trace.similarity_graph, groups, data=data,
                                     title=f"Clump (k={k}) groups over the similarity graph of {source}")
        view.data["note"] = ("PRIVATE: the groups are read through the release's private link "
                             "(which records were generalized together). Do not publish this file.")
    view.save(output)
