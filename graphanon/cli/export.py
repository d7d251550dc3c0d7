"""``graphanon export``: a release as plain data (CSV, TSV, Parquet) and a codebook, for recipients."""

from __future__ import annotations

from pathlib import Path

import click

from graphanon.cli._app import check_output, echo_json, main, read_taxonomy_source

#: What ``-o`` may end in (graphanon.readwrite.tables.TABLE_SUFFIXES).
EXPORT_SUFFIXES = (".csv", ".tsv", ".parquet")


@main.command(name="export")  # its --help examples: graphanon.cli.examples
@click.argument("release_path", metavar="RELEASE", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Table to write: .csv, .tsv or .parquet (Parquet needs pyarrow). The codebook goes next to "
                   "it: NAME.codebook.csv, .md and .html.")
@click.option("--form", type=click.Choice(["long", "records"]), default="long", show_default=True,
              help="long: one line per (row, item); records: one line per row, its items in a list cell "
                   "(a JSON array in CSV/TSV, a list column in Parquet).")
@click.option("--taxonomy", default=None,
              help="Taxonomy file or bundled dataset name: fills the codebook's level column.")
@click.option("--no-codebook", is_flag=True, help="Write the table only.")
@click.option("--json", "json_out", is_flag=True, help="Print the files written as JSON.")
def export_command(release_path, output, form, taxonomy, no_codebook, json_out):
    """Write RELEASE as a plain table a recipient opens without graphanon (pandas, R, a spreadsheet).

    Rows keep their pseudonyms (p1..pN) and published order; items are written by their published names
    (quoted by the CSV rules when a name holds the delimiter). Nothing goes in that the release file does
    not publish: never the data fingerprint, only the parameters on the method's allowlist
    (docs/export.md).
    """
    from graphanon.release import load_release
    from graphanon.release.export import codebook_paths, export_release

    check_output(output, release_path, taxonomy, suffixes=EXPORT_SUFFIXES)
    if not no_codebook:
        for path in codebook_paths(output).values():
            check_output(str(path), release_path, taxonomy, option="-o (codebook)")
    release = load_release(release_path)
    tax = None if taxonomy is None else read_taxonomy_source(taxonomy)
    written = export_release(release, output, form=form, taxonomy=tax, codebook=not no_codebook)
    report_export(release, written, json_out)


def report_export(release, written: list[Path], json_out: bool, summary: dict | None = None) -> None:
    """Say what was written (one line, or JSON with ``files``)."""
    files = [str(p) for p in written]
    if json_out:
        echo_json({**(summary or {}), "kind": release.kind, "records": release.n_records, "files": files})
        return
    click.echo(f"{release.n_records} published rows -> {files[0]}")
    for line in codebook_lines(files[1:]):
        click.echo(line)


def codebook_lines(files: list[str]) -> list[str]:
    """``codebook -> NAME.codebook.csv, .md, .html``: the codebook's files on one short line."""
    if not files:
        return []
    first = files[0]
    stem = first[: first.rfind(".")]
    rest = [f[len(stem):] if f.startswith(stem) else f for f in files[1:]]
    return [f"codebook -> {', '.join([first, *rest])}"]
