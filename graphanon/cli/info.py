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
    click.echo("\n".join(dataset_lines(rows)))


def dataset_lines(rows: list[dict], width: int = 80) -> list[str]:
    """The listing of ``graphanon datasets``: a line of numbers per dataset, its description wrapped under it.

    Names are never cut; every line is at most ``width`` characters (a
    description is wrapped at words, indented by four).

    Examples
    --------
    >>> row = {"name": "toy", "records": 3, "items": 2, "mean_length": 1.5, "extras": ["labels"],
    ...        "description": "a toy"}
    >>> for line in dataset_lines([row]): print(line)
    name  records  items  mean length  extras
    toy         3      2         1.50  labels
        a toy
    """
    import textwrap

    header = ("name", "records", "items", "mean length", "extras")
    cells = [(r["name"], str(r["records"]), str(r["items"]), f"{r['mean_length']:.2f}", ", ".join(r["extras"]))
             for r in rows]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]

    def line(c) -> str:
        parts = [c[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(c[1:4], widths[1:4], strict=True)), c[4]]
        return "  ".join(parts).rstrip()

    out = [line(header)]
    for c, r in zip(cells, rows, strict=True):
        out.append(line(c))
        out += textwrap.wrap(r["description"], width, initial_indent="    ", subsequent_indent="    ",
                             break_on_hyphens=False)
    return out


#: The listing's width: one line per method fits a terminal of 80 columns.
WIDTH = 80


def _param_text(p: dict) -> str:
    """``name=TYPE`` or ``name={a|b}`` for the listing."""
    return f"{p['name']}={{{'|'.join(p['choices'])}}}" if p["choices"] else f"{p['name']}={p['type'].upper()}"


def public_function(spec):
    """The public ``anonymize_*`` function of a method: the one its declaration names (``nr`` -> ``anonymize_nonreciprocal``)."""
    return spec.function


def references(func) -> str:
    """The paper: the first paragraph of the ``References`` section of ``func``'s docstring, else of its module's, on one line ("" if neither has one)."""
    import inspect
    import sys

    head = "References\n----------\n"
    for doc in (inspect.getdoc(func), inspect.getdoc(sys.modules.get(func.__module__))):
        if doc and head in doc:
            paragraph = doc.split(head, 1)[1].split("\n\n", 1)[0]
            return " ".join(paragraph.split())
    return ""


def _python_name(func) -> str:
    """Where a user imports ``func`` from: ``graphanon.algorithms`` when it exports it."""
    import graphanon.algorithms

    if getattr(graphanon.algorithms, func.__name__, None) is func and func is not None:
        return f"graphanon.algorithms.{func.__name__}"
    return f"{func.__module__}.{func.__name__}"


def algorithm_lines(rows: list[dict], models: dict[str, str]) -> list[str]:
    """The listing of ``graphanon algorithms``: one entry per method and per audit model, each line <= WIDTH.

    The name and audit model open the entry's first line; the whole summary
    follows, wrapped at words under the summary column (never cut).
    """
    import textwrap

    def entry(first: str, summary: str) -> list[str]:
        return textwrap.wrap(summary, WIDTH, initial_indent=first, subsequent_indent=" " * len(first),
                             break_long_words=False, break_on_hyphens=False) or [first.rstrip()]

    name_w = max(len("algorithm"), *(len(r["name"]) for r in rows)) + 2
    model_w = max(len("audit model"), *(len(r["model"]) for r in rows)) + 2
    lines = [f"{'algorithm':<{name_w}}{'audit model':<{model_w}}summary"]
    for r in rows:
        lines += entry(f"{r['name']:<{name_w}}{r['model']:<{model_w}}", r["summary"])
    audit_w = max(len("audit model"), *map(len, models)) + 2
    lines += ["", f"{'audit model':<{audit_w}}summary"]
    for name, summary in models.items():
        lines += entry(f"{name:<{audit_w}}", summary)
    lines += ["", "Details of one method: graphanon algorithms NAME"]
    return lines


def algorithm_details(spec) -> list[str]:
    """What ``graphanon algorithms NAME`` prints: summary, audit model, options, --param, function, paper."""
    import textwrap

    from graphanon.cli.registry import OPTION_FLAGS

    def wrapped(label: str, text: str) -> list[str]:
        return textwrap.wrap(text, WIDTH, initial_indent=f"{label:<14}", subsequent_indent=" " * 14,
                             break_long_words=False, break_on_hyphens=False) or [label]

    func = public_function(spec)
    lines = [spec.name, ""]
    lines += wrapped("summary", spec.summary)
    if spec.privacy_model == "dp":  # no output proves differential privacy: the tests check the mechanism
        lines += wrapped("audit model", "none: epsilon-differential privacy is a property of the mechanism, tested "
                                        "empirically, not audited from a release (docs/dp.md)")
    else:
        lines += wrapped("audit model", f"{spec.privacy_model} (graphanon audit INPUT RELEASE --model "
                                        f"{spec.privacy_model})")
    if spec.needs_taxonomy:
        tax_text = "required (--taxonomy, or the dataset's bundled one)"
    elif "taxonomy" in spec.options:
        named = [p.name for p in spec.params
                 if "taxonomy" in (p.help or "") or any("taxonomy" in str(c) for c in (p.choices or ()))]
        tax_text = ("optional: --taxonomy is read only where a --param names it"
                    + (f" ({', '.join(named)})" if named else ""))
    else:
        tax_text = "not used"
    lines += wrapped("taxonomy", tax_text)
    lines += wrapped("options", " ".join(OPTION_FLAGS[o] for o in spec.options) or "none")
    for text in spec.required_texts():  # what it cannot run without (refused before anything runs)
        lines += wrapped("required", text)
    if spec.params:
        lines.append("--param")
        for d in spec.describe_params():
            default = "" if d["default"] is None else f" (default {d['default']})"
            lines += textwrap.wrap(f"{_param_text(d)}{default}: {d['help']}", WIDTH, initial_indent="  ",
                                   subsequent_indent="      ")
    else:
        lines += wrapped("--param", "none")
    if func is not None:
        lines += wrapped("python", _python_name(func))
        paper = references(func)
        if paper:
            lines += wrapped("paper", paper)
    return lines


@main.command()
@click.argument("name", required=False)
@click.option("--json", "json_out", is_flag=True, help="Print JSON.")
def algorithms(name: str | None, json_out: bool) -> None:
    """List the anonymizers, one line each, and the audit models; with NAME, one method's details.

    The details: summary, audit model, taxonomy, the general options it reads,
    its --param options (type, default, choices), the Python function and the
    paper.
    """
    from graphanon.cli.registry import get_algorithm, registered
    from graphanon.privacy.registry import get_model, model_names

    if name is not None:
        spec = get_algorithm(name)
        if json_out:
            func = public_function(spec)
            echo_json({"name": spec.name, "summary": spec.summary, "model": spec.privacy_model,
                       "taxonomy": spec.needs_taxonomy, "options": list(spec.options),
                       "required": spec.required_texts(), "param_details": spec.describe_params(),
                       "function": None if func is None else _python_name(func),
                       "paper": "" if func is None else references(func)})
            return
        click.echo("\n".join(algorithm_details(spec)))
        return
    rows = [{"name": spec.name, "summary": spec.summary, "model": spec.privacy_model,
             "taxonomy": spec.needs_taxonomy, "options": list(spec.options), "params": list(spec.param_names),
             "required": spec.required_texts(), "param_details": spec.describe_params()}
            for spec in sorted(registered().values(), key=lambda spec: spec.name)]
    models = model_names()
    if json_out:
        echo_json({"algorithms": rows, "models": models,
                   "model_params": {name: [p.describe() for p in get_model(name).params] for name in models}})
        return
    click.echo("\n".join(algorithm_lines(rows, models)))


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
