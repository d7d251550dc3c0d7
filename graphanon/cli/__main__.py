"""``python -m graphanon.cli``."""

from graphanon.cli import main

main()
