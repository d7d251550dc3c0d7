"""``graphanon draw``: figures of taxonomies, searches, constraints and generalization graphs."""

from __future__ import annotations

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
from graphanon.errors import GraphanonError

_INPUT = ("fmt", "sep", "tid", "item", "label")

#: What each kind draws and the options it reads (by parameter name); `draw KIND --help` shows only these.
KINDS = {
    "taxonomy": ("Draw a taxonomy. SOURCE is a taxonomy file or a bundled name; --release highlights the cut "
                 "that release published.", ("output", "release_path", "max_nodes")),
    "search": ("Draw the hghs/mhghs search on SOURCE data: the cut found, the cut lattice and the suppression "
               "enumeration tree.", ("output", "algorithm", "k", "m_value", "taxonomy", *_INPUT)),
    "constraints": ("Draw COAT's constraint graph of SOURCE data: the dataset's bundled constraints, else the "
                    "pgen constraints of -k.", ("output", "k", *_INPUT)),
    "generalization": ("Draw the nonreciprocal ring graph over the Gray-TSP order of SOURCE data (-k) and the k "
                       "assignments the closed walk extracts (at most 60 records).", ("output", "k", "seed", *_INPUT)),
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
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="PNG/SVG/PDF file.")
@click.option("--release", "release_path", default=None, help="taxonomy: highlight the cut of this release.")
@click.option("--max-nodes", default=300, show_default=True, type=click.IntRange(min=1),
              help="taxonomy: draw at most this many nodes.")
@click.option("-a", "--algorithm", "algorithm", default="hghs", show_default=True, help="search: hghs or mhghs.")
@click.option("-k", type=int, default=None, help="Privacy parameter k.")
@click.option("-m", "m_value", default=None, help="search: attacker knowledge m (a number, or inf).")
@click.option("--taxonomy", default=None, help="search: taxonomy (as for anonymize).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="generalization: walk seed.")
@input_options
def draw(what, source, output, release_path, max_nodes, algorithm, k, m_value, taxonomy, seed,
         fmt, sep, tid, item, label):
    """Draw a graph an algorithm builds to a file.

    \b
    taxonomy        SOURCE is a taxonomy file or bundled name; --release highlights its cut
    search          hghs/mhghs search on SOURCE data: cut, cut lattice, suppression enumeration tree
    constraints     COAT constraint graph of SOURCE data (bundled constraints, else pgen with -k)
    generalization  nonreciprocal ring graph over the Gray-TSP order of SOURCE data (-k) and
                    the k assignments the closed walk extracts (at most 60 records)

    `graphanon draw KIND --help` shows the options each kind reads.
    """  # noqa: D301 - "\b" is click's marker that keeps the table's line breaks, not a raw backslash
    # Figures are made with matplotlib.figure.Figure (never pyplot): the file is rendered by Agg
    # without selecting a backend, so an interactive session calling this keeps its own.
    from graphanon.viz import FIGURE_SUFFIXES, save_figure

    check_output(output, source, release_path, taxonomy, suffixes=FIGURE_SUFFIXES)
    if what == "taxonomy":
        fig = _draw_taxonomy(source, release_path, max_nodes)
    else:
        data, bundled = read_input(source, fmt, sep, tid, item, label)
        if what == "search":
            fig = _draw_search(data, bundled, algorithm, k, parse_m(m_value), taxonomy)
        elif what == "constraints":
            fig = _draw_constraints(data, bundled, k)
        else:
            fig = _draw_generalization(data, k, seed)
    save_figure(fig, output, close=True)
    click.echo(f"wrote {output}")


def _draw_taxonomy(source, release_path, max_nodes):
    from matplotlib.figure import Figure

    from graphanon.viz.taxonomy import draw_taxonomy, taxonomy_figsize

    tax = read_taxonomy_source(source)
    highlight, suppressed = (), ()
    if release_path:
        from graphanon.release import load_release

        rel = load_release(release_path)
        highlight = [pi.label for pi in getattr(rel, "published_items", ()) if pi.label in tax]
        # a release names no suppressed node, so only the published part of the cut is drawn
    fig = Figure(figsize=taxonomy_figsize(tax, highlight=highlight, max_nodes=max_nodes))
    return draw_taxonomy(tax, highlight=highlight, suppressed=suppressed, max_nodes=max_nodes, ax=fig.subplots())


def _draw_search(data, bundled, algorithm, k, m, taxonomy):
    from matplotlib.figure import Figure

    from graphanon.algorithms.hierarchy.hghs import anonymize_hghs, anonymize_mhghs
    from graphanon.viz.hierarchy import draw_cut_lattice, draw_enumeration_tree, draw_taxonomy_cut
    from graphanon.viz.taxonomy import taxonomy_figsize

    methods = {"hghs": anonymize_hghs, "mhghs": anonymize_mhghs}
    if algorithm not in methods:
        raise GraphanonError(f"draw search: -a takes hghs or mhghs, got {algorithm!r}")
    if k is None:
        raise GraphanonError("draw search needs -k K")
    tax = taxonomy_option(taxonomy, data, bundled)
    if tax is None:
        raise GraphanonError("draw search needs a taxonomy: pass --taxonomy FILE or balanced:5")
    rel = methods[algorithm](data, taxonomy=tax, k=k, m=m)
    fig = Figure(figsize=(20, max(6.0, taxonomy_figsize(tax, highlight=rel.trace.cut)[1])))
    axes = fig.subplots(1, 3)
    draw_taxonomy_cut(tax, rel.trace.cut, rel.trace.suppressed, ax=axes[0])
    draw_cut_lattice(rel.trace.search.lattice(), ax=axes[1], max_nodes=25)
    draw_enumeration_tree(rel.trace.search.enumeration_tree(), ax=axes[2], max_nodes=25)
    return fig


def _draw_constraints(data, bundled, k):
    from graphanon import datasets as ds
    from graphanon.algorithms.coat import pgen
    from graphanon.graphs.constraints import ConstraintGraph
    from graphanon.viz.coat import draw_constraint_graph

    try:
        bundled_constraints = ds.load_constraints(bundled) if bundled else None
    except GraphanonError:
        bundled_constraints = None
    if bundled_constraints is not None:
        privacy, utility = bundled_constraints["privacy"], bundled_constraints["utility"]
    elif k is None:
        raise GraphanonError("draw constraints needs -k K (privacy constraints are generated by pgen)")
    else:
        privacy, utility = pgen(data, k), None
    from matplotlib.figure import Figure

    return draw_constraint_graph(ConstraintGraph(data, privacy, utility), ax=Figure(figsize=(16, 5)).subplots()).figure


_MAX_DRAWN_RECORDS = 60


def _draw_generalization(data, k, seed):
    from matplotlib.figure import Figure

    from graphanon.algorithms.nonreciprocal import extract_assignments, gray_tsp_order
    from graphanon.graphs.generalization import ring_graph
    from graphanon.viz.nonreciprocal import draw_assignments, draw_generalization_graph

    if k is None:
        raise GraphanonError("draw generalization needs -k K")
    if data.n_records > _MAX_DRAWN_RECORDS:
        raise GraphanonError(
            f"draw generalization shows at most {_MAX_DRAWN_RECORDS} records and the data has "
            f"{data.n_records}; draw a sample (e.g. the first lines of the file)"
        )
    if not 1 <= k <= data.n_records:
        raise GraphanonError(f"-k must be between 1 and the number of records ({data.n_records}), got {k}")
    order = gray_tsp_order(data.matrix, time_limit=None, seed=seed)  # deterministic budget: same drawing every run
    graph = ring_graph(order, k, data.record_ids)
    fig = Figure(figsize=(14, max(6.0, 0.16 * data.n_records + 1)))
    axes = fig.subplots(1, 2)
    draw_generalization_graph(graph, order, ax=axes[0], title=f"{k}-regular ring over the Gray-TSP order")
    assignments = extract_assignments(graph, rng=seed)
    draw_assignments(graph, assignments, order, ax=axes[1], title=f"{k} disjoint assignments (closed walk)")
    return fig
