"""``graphanon audit --taxonomy``: a swapping release with taxonomy-level categories is audited from the shell."""

from __future__ import annotations

from graphanon.cli import EXIT_BAD_INPUT
from tests.conftest import cli as run


def test_taxonomy_level_categories_are_audited(tmp_path):
    rel, link = tmp_path / "s.json", tmp_path / "s.link.json"
    res = run("anonymize", "swap_table1", "-a", "partswap", "--param", "categories=taxonomy-level:1",
              "--taxonomy", "balanced:3", "-o", rel, "--link-out", link)
    assert res.exit_code == 0, res.output
    # the hint names the whole audit line, taxonomy included; run as shown (plus the link) it is satisfied
    hint = next(line for line in res.output.splitlines() if line.startswith("check it: graphanon audit "))
    args = hint.removeprefix("check it: graphanon ").split()
    assert args[-2:] == ["--taxonomy", "balanced:3"]
    res = run(*args, "--link", link)
    assert res.exit_code == 0 and "satisfied" in res.output, res.output
    # without the taxonomy the audit says which option is missing, in one line
    res = run("audit", "swap_table1", rel, "--model", "tendency", "--param", "categories=taxonomy-level:1",
              "--link", link)
    assert res.exit_code == EXIT_BAD_INPUT and "--taxonomy" in res.output
    assert len(res.output.strip().splitlines()) == 1
    # a model that reads no taxonomy refuses it
    res = run("audit", "swap_table1", rel, "--model", "transactional", "-k", 2, "--taxonomy", "balanced:3")
    assert res.exit_code == EXIT_BAD_INPUT and "reads no taxonomy" in res.output


def test_bundled_taxonomy_is_the_default(tmp_path):
    rel, link = tmp_path / "g.json", tmp_path / "g.link.json"
    res = run("anonymize", "groceries", "-a", "partswap", "--param", "categories=taxonomy-level:1", "-o", rel,
              "--link-out", link)
    assert res.exit_code == 0, res.output
    res = run("audit", "groceries", rel, "--model", "tendency", "--param", "categories=taxonomy-level:1",
              "--link", link)
    assert res.exit_code == 0 and "10 categories" in res.output, res.output
