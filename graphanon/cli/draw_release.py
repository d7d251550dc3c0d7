"""``graphanon draw`` of what a release or a relational table implies (the kinds that read no transaction data).

DiffPart's partition tree, PrivBasis's pair graph, the relational classes of a release, and the hierarchies of a
relational table's attributes; the command itself and the other kinds are in ``cli/draw.py``.
"""

from __future__ import annotations

from pathlib import Path

import click

from graphanon.cli._app import read_taxonomy_source
from graphanon.errors import GraphanonError

__all__ = ["draw_hierarchy", "draw_pairs", "draw_partitions", "draw_relational"]


def draw_partitions(source, output, taxonomy, max_nodes) -> None:
    """``draw partitions RELEASE``: DiffPart's partition tree from the release alone (graphanon.viz.dp)."""
    from graphanon.release import load_release
    from graphanon.viz import save_figure
    from graphanon.viz.dp import draw_partition_tree, partition_tree_view
    from graphanon.viz.views import HTML_SUFFIXES

    release = load_release(source)
    if release.kind != "synthetic":
        raise GraphanonError(f"draw partitions: {source} is a {release.kind} release; give a synthetic (DiffPart) "
                             "release")
    tax = None
    if taxonomy is not None:
        if str(taxonomy).startswith("balanced"):
            raise GraphanonError("draw partitions: --taxonomy takes the taxonomy file the release was made over; "
                                 "a release made over --universe rebuilds its own (drop --taxonomy)")
        tax = read_taxonomy_source(taxonomy)
    if click.get_current_context().get_parameter_source("max_nodes") != click.core.ParameterSource.COMMANDLINE:
        max_nodes = 60
    if output.lower().endswith(HTML_SUFFIXES):
        partition_tree_view(release, tax, title=f"DiffPart partition tree implied by {Path(source).name}").save(output)
    else:
        from matplotlib.figure import Figure

        from graphanon.viz.dp import partition_tree

        tree = partition_tree(release, tax)
        shown = min(tree.n_nodes, max_nodes)
        fig = Figure(figsize=(min(40.0, max(7.0, 0.9 * shown)), 2.2 + 1.5 * (int(tree.stage.max()) + 1)))
        draw_partition_tree(release, tax, max_nodes=max_nodes, ax=fig.subplots())
        save_figure(fig, output)
    click.echo(f"wrote {output}")


def draw_pairs(source, output) -> None:
    """``draw pairs RELEASE``: PrivBasis's frequent-pair graph from the release alone (graphanon.viz.privbasis)."""
    from graphanon.release import load_release
    from graphanon.viz import save_figure
    from graphanon.viz.privbasis import draw_pair_graph, pair_graph_view
    from graphanon.viz.views import HTML_SUFFIXES

    release = load_release(source)
    if release.kind != "itemsets":
        raise GraphanonError(f"draw pairs: {source} is a {release.kind} release; give an itemset (PrivBasis) release")
    if output.lower().endswith(HTML_SUFFIXES):
        pair_graph_view(release, title=f"PrivBasis pair graph implied by {Path(source).name}").save(output)
    else:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(10, 9))
        draw_pair_graph(release, ax=fig.subplots())
        save_figure(fig, output)
    click.echo(f"wrote {output}")


def draw_hierarchy(source, output, qi, qi_hierarchies, categorical, release_path, max_nodes) -> None:
    """``draw hierarchy TABLE --qi COLS``: the relational attributes' hierarchies (graphanon.viz.relational)."""
    from graphanon.cli._app import relational_hierarchies
    from graphanon.relational import read_relational_csv
    from graphanon.viz import save_figure
    from graphanon.viz.relational import draw_hierarchies, hierarchy_view
    from graphanon.viz.views import HTML_SUFFIXES

    names = [c.strip() for c in (qi or "").split(",") if c.strip()]
    if not names:
        raise GraphanonError("draw hierarchy needs --qi COLUMN,... (the columns of SOURCE whose hierarchies to draw)")
    cats = [c.strip() for c in (categorical or "").split(",") if c.strip()]
    table = read_relational_csv(source, columns=names, categorical=cats)
    hierarchies = relational_hierarchies(table, names, qi_hierarchies)
    published = None
    if release_path is not None:
        from graphanon.release import load_release

        rel = load_release(release_path)
        if rel.kind != "relational":
            raise GraphanonError(f"--release {release_path}: a {rel.kind} release publishes no relational values; "
                                 "give a relational release")
        missing = [c for c in names if c not in rel.qi]
        if missing:
            raise GraphanonError(f"--release {release_path} publishes no column {missing[0]!r} (its QIs: "
                                 f"{', '.join(rel.qi)})")
        published = {c: rel.values[rel.qi.index(c)] for c in names}
        click.echo(f"{Path(release_path).name}: " + ", ".join(f"{c} {len(v)} published values"
                                                              for c, v in published.items()))
    if output.lower().endswith(HTML_SUFFIXES):
        hierarchy_view(hierarchies, table=table, published=published,
                       title=f"Hierarchies of {', '.join(names)} ({Path(source).name})").save(output)
    else:
        save_figure(draw_hierarchies(hierarchies, published=published, max_nodes=max_nodes), output)
    click.echo(f"wrote {output}")


def draw_relational(source, output, max_nodes) -> None:
    """``draw relational RELEASE``: its relational classes (graphanon.viz.relational), from the release alone."""
    from graphanon.release import load_release
    from graphanon.viz import save_figure
    from graphanon.viz.relational import draw_classes, relational_view
    from graphanon.viz.views import HTML_SUFFIXES

    release = load_release(source)
    if release.kind != "relational":
        raise GraphanonError(f"draw relational: {source} is a {release.kind} release; give a relational release "
                             "(anonymized with --relational)")
    if output.lower().endswith(HTML_SUFFIXES):
        relational_view(release, title=f"Relational classes of {Path(source).name}").save(output)
    else:
        if click.get_current_context().get_parameter_source("max_nodes") != click.core.ParameterSource.COMMANDLINE:
            max_nodes = 60
        save_figure(draw_classes(release, max_classes=max_nodes), output)
    click.echo(f"wrote {output}")
