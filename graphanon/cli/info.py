"""``graphanon datasets``, ``algorithms`` and ``taxonomy``: what is bundled, registered and given."""

from __future__ import annotations

import click

from graphanon.cli._app import echo_json, main, read_taxonomy_source
from graphanon.datasets.catalog import list_datasets


@main.command()
@click.option("--json", "json_out", is_flag=True, help="Print JSON.")
def datasets(json_out: bool) -> None:
    """List the bundled datasets."""
    rows = [{**entry, "mean_length": round(entry["mean_length"], 2)} for entry in list_datasets()]
    if json_out:
        echo_json(rows)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("name", "records", "items", "mean length", "extras", "description")
    for r in rows:
        table.add_row(r["name"], str(r["records"]), str(r["items"]), str(r["mean_length"]),
                      ", ".join(r["extras"]), r["description"])
    Console().print(table)


def _param_text(p: dict) -> str:
    """``name=TYPE`` or ``name={a|b}`` for the listing."""
    return f"{p['name']}={{{'|'.join(p['choices'])}}}" if p["choices"] else f"{p['name']}={p['type'].upper()}"


@main.command()
@click.option("--json", "json_out", is_flag=True, help="Print JSON.")
def algorithms(json_out: bool) -> None:
    """List the anonymizers (audit model, the options they read, --param names) and the audit models."""
    from graphanon.cli.registry import OPTION_FLAGS, registered
    from graphanon.privacy.registry import model_names

    rows = [{"name": spec.name, "summary": spec.summary, "model": spec.privacy_model,
             "taxonomy": spec.needs_taxonomy, "options": list(spec.options), "params": list(spec.param_names),
             "param_details": spec.describe_params()}
            for spec in sorted(registered().values(), key=lambda spec: spec.name)]
    models = model_names()
    if json_out:
        echo_json({"algorithms": rows, "models": models})
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("algorithm", "audit model", "taxonomy", "options", "--param", "summary")
    for r in rows:
        table.add_row(r["name"], r["model"], "required" if r["taxonomy"] else "",
                      " ".join(OPTION_FLAGS[o] for o in r["options"]),
                      ", ".join(_param_text(p) for p in r["param_details"]), r["summary"])
    console = Console()
    console.print(table)
    table = Table("audit model", "summary")
    for name, summary in models.items():
        table.add_row(name, summary)
    console.print(table)



@main.command()
@click.argument("source")
@click.option("--json", "json_out", is_flag=True)
def taxonomy(source, json_out):
    """Check and summarize a taxonomy (a file or a bundled dataset's)."""
    tax = read_taxonomy_source(source)
    info = {
        "root": str(tax.root),
        "nodes": len(tax),
        "leaves": len(tax.leaves),
        "height": tax.height,
        "fanout_max": max(len(tax.children(v)) for v in tax.nodes if not tax.is_leaf(v)),
        "levels": [len(tax.level(d)) for d in range(tax.height + 1)],
    }
    if json_out:
        echo_json(info)
    else:
        for key, value in info.items():
            click.echo(f"{key:>10}: {value}")
