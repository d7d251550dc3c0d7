"""``python -m graphanon``: the ``graphanon`` command."""

from graphanon.cli import main

main()
