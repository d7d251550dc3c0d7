"""``graphanon evaluate``: every metric with its direction, unit and meaning (terminal and --json)."""

from __future__ import annotations

import json

import pytest

from graphanon.metrics.meaning import METRIC_MEANINGS

RELEASES = [
    ("liuwang_fig1", ["-a", "mhghs", "-k", 2, "-m", 2]),          # global recoding
    ("nr_table1", ["-a", "nr", "-k", 2]),                          # nonreciprocal
    ("swap_table1", ["-a", "partswap", "--param", "categories=random:4"]),  # perturbed
    ("clump_food", ["-a", "clump", "-k", 2]),                      # local recoding
]


@pytest.mark.parametrize("data, args", RELEASES, ids=[r[0] for r in RELEASES])
def test_every_metric_has_a_meaning(data, args, tmp_path, run):
    rel, link = tmp_path / "r.json", tmp_path / "r.link.json"
    res = run("anonymize", data, *args, "-o", rel, "--link-out", link)
    assert res.exit_code == 0, res.output
    res = run("evaluate", data, rel, "--link", link, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    meaning = doc.pop("meaning")
    assert set(doc) - {"needs_link"} <= set(METRIC_MEANINGS), set(doc) - set(METRIC_MEANINGS)
    assert set(meaning) == set(doc) - {"needs_link"}
    for key, about in meaning.items():
        assert about["direction"] in ("lower", "higher", "context") and about["unit"] and about["meaning"], key
    # the terminal: each metric with a direction says it on its line, its meaning under it
    out = run("evaluate", data, rel, "--link", link).output.splitlines()
    for key, about in meaning.items():
        i = next(i for i, line in enumerate(out) if line.strip().startswith(f"{key}:"))
        if about["direction"] != "context":
            assert out[i].endswith(f"{about['direction']} is better"), out[i]
            assert about["meaning"].split()[0] in out[i + 1]
    assert all(len(line) <= 80 for line in out)


def test_contract_keys_kept(tmp_path, run):
    rel = tmp_path / "r.json"
    assert run("anonymize", "liuwang_fig1", "-a", "mhghs", "-k", 2, "-m", 2, "-o", rel).exit_code == 0
    doc = json.loads(run("evaluate", "liuwang_fig1", rel, "--json").output)
    assert {"ncp", "suppression_ratio", "avg_relative_error", "queries", "q", "seed", "ul"} <= set(doc)
    assert isinstance(doc["ncp"], float) and doc["meaning"]["ncp"]["direction"] == "lower"
