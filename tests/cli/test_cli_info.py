"""``graphanon algorithms``: one line per method within 80 columns; ``graphanon algorithms NAME``: the details."""

import json

import pytest

from graphanon.cli.registry import registered
from graphanon.privacy.registry import model_names
from tests.conftest import cli as invoke

NAMES = sorted(registered())


def test_listing_is_one_line_per_method_and_model_within_80_columns():
    res = invoke("algorithms")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(map(len, lines)) <= 80, [line for line in lines if len(line) > 80]
    first_words = [line.split()[0] for line in lines if line.strip()]
    for name in NAMES:  # each method on exactly one line, with its audit model next to it
        # (a method named like an audit model -- rt -- also starts that model's line, whose second word is text)
        rows = [line for line in lines if line.split()[:2] == [name, registered()[name].privacy_model]]
        assert len(rows) == 1, rows
        assert len([line for line in lines if line.split()[:1] == [name]]) == 1 + (name in model_names())
    assert set(model_names()) <= set(first_words)
    assert "graphanon algorithms NAME" in res.output


@pytest.mark.parametrize("name", NAMES)
def test_details_of_each_method(name):
    spec = registered()[name]
    res = invoke("algorithms", name)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(map(len, lines)) <= 80, [line for line in lines if len(line) > 80]
    assert lines[0] == name
    if spec.privacy_model == "dp":  # no release proves DP: the line says so instead of naming an audit
        assert any(line.startswith("audit model   none: epsilon-differential privacy") for line in lines)
    else:
        assert any(line.startswith("audit model") and spec.privacy_model in line for line in lines)
    for param in spec.params:  # every --param, with its choices when it has them
        row = [line for line in lines if line.startswith(f"  {param.name}=")]
        assert len(row) == 1, (param.name, res.output)
        assert not param.choices or "|".join(param.choices) in row[0]
    python = [line for line in lines if line.startswith("python")]
    assert len(python) == 1 and "anonymize_" in python[0]
    paper = [line for line in lines if line.startswith("paper")]
    assert len(paper) == 1 and any(str(year) in res.output for year in range(1970, 2030))
    data = json.loads(invoke("algorithms", name, "--json").output)
    assert data["name"] == name and data["model"] == spec.privacy_model
    assert [p["name"] for p in data["param_details"]] == list(spec.param_names)
    assert data["function"].startswith("graphanon.algorithms.") and data["paper"]


def test_unknown_name_is_one_line():
    res = invoke("algorithms", "nope")
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [res.output.strip()] and "unknown algorithm 'nope'" in res.output


def test_json_listing_gives_each_models_declared_params():
    """``graphanon algorithms --json`` lists every audit model's ``--param`` parameters from its declaration."""
    from graphanon.privacy.registry import get_model

    res = invoke("algorithms", "--json")
    assert res.exit_code == 0, res.output
    params = json.loads(res.output)["model_params"]
    assert set(params) == set(model_names())
    assert [p["name"] for p in params["hkp"]] == ["h", "p", "private"] and params["km"] == []
    assert params["tendency"] == [p.describe() for p in get_model("tendency").params]
