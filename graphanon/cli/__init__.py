"""The ``graphanon`` command line.

Commands: ``datasets``, ``algorithms``, ``anonymize``, ``audit``, ``attack``, ``evaluate``,
``taxonomy``, ``draw``, ``bench``, ``report``, ``compare``, ``export`` -- one module per command group. Bad input
ends with a one-line message and exit code 2; a violated audit exits with
code 1. ``--json`` prints one JSON object. CLI parsing lives only here.
"""

from __future__ import annotations

from graphanon.cli import anonymize, attack, audit, bench, compare, draw, export, info, report  # noqa: F401  (importing registers the commands)
from graphanon.cli._app import EXIT_BAD_INPUT, EXIT_VIOLATED, main
from graphanon.cli.examples import add_examples

add_examples(main)

__all__ = ["EXIT_BAD_INPUT", "EXIT_VIOLATED", "main"]
