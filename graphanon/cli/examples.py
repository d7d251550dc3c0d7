"""The examples at the end of every command's ``--help`` (click's epilog).

Each example runs as shown on the bundled datasets (``tests/cli/test_cli_width.py``
runs the cheap ones). A command that sets its own ``epilog`` keeps it.
"""

from __future__ import annotations

import click

#: Command name -> example lines (a ``#`` comment after two spaces explains a line).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "graphanon": (
        "graphanon datasets",
        "graphanon anonymize groceries -a mhghs -k 5 -m 2 -o r.json",
        "graphanon audit groceries r.json --model km -k 5 -m 2",
        "graphanon COMMAND --help  # each command's options and examples",
    ),
    "algorithms": (
        "graphanon algorithms",
        "graphanon algorithms coat  # one method: options, --param, paper",
    ),
    "anonymize": (
        "graphanon anonymize groceries -a mhghs -k 5 -m 2 -o r.json",
        "graphanon anonymize nr_table1 -a cahd --param l=2 -o c.json \\",
        "    --link-out c.link.json  # the link is PRIVATE",
    ),
    "attack": (
        "graphanon attack groceries r.json  # runs what needs no link",
        "graphanon attack nr_table1 c.json --link c.link.json --known-labels 6",
    ),
    "audit": (
        "graphanon audit groceries r.json --model km -k 5 -m 2",
        "graphanon audit groceries s.json --model tendency \\",
        "    --param categories=taxonomy-level:1 --taxonomy groceries",
    ),
    "bench": (
        "graphanon bench groceries -a aa,mhghs -k 5 -m 2 --json",
    ),
    "compare": (
        "graphanon compare groceries -a aa,mhghs -k 2,5 -m 2 -o study/",
    ),
    "datasets": (
        "graphanon datasets",
        "graphanon datasets --json",
    ),
    "draw": (
        "graphanon draw taxonomy groceries -o tax.png --release r.json",
        "graphanon draw search groceries -k 5 -m 2 -o search.html",
    ),
    "export": (
        "graphanon anonymize liuwang_fig1 -a mhghs -k 2 -m 2 -o rel.json",
        "graphanon export rel.json -o rel.csv --taxonomy liuwang_fig1",
        "graphanon export rel.json -o rel.parquet --form records  # a list column",
    ),
    "evaluate": (
        "graphanon evaluate groceries r.json --queries 100 --seed 1",
    ),
    "report": (
        "graphanon report groceries r.json -m 1,2",
    ),
    "taxonomy": (
        "graphanon taxonomy groceries",
        "graphanon taxonomy ICD9.paths  # a path file: leaf;parent;...;root",
    ),
}


def epilog(lines: tuple[str, ...]) -> str:
    """The epilog text: click's no-rewrap marker line, a heading and the lines kept as they are.

    Examples
    --------
    >>> epilog(("graphanon datasets",)).splitlines()[1:]
    ['Examples:', '  graphanon datasets']
    """
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


def add_examples(group: click.Group) -> None:
    """Give ``group`` and every command of it without an epilog its examples from :data:`EXAMPLES`."""
    if not group.epilog and group.name in EXAMPLES:
        group.epilog = epilog(EXAMPLES[group.name])
    for name, command in group.commands.items():
        if not command.epilog and name in EXAMPLES:
            command.epilog = epilog(EXAMPLES[name])
