"""Publication of perturbed releases: no ids, order, seed or removed item names; secret shuffles."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from graphanon.cli.registry import RunOptions, get_algorithm
from graphanon.data import from_iterable
from graphanon.privacy.registry import build_model
from graphanon.release import check_same_data, load_release, load_split_link

PARAMS = {"partswap": {"categories": "random:3"}, "fullswap": {"categories": "random:3"}, "randswap": {},
          "partsupp": {"categories": "random:3"}, "splitperson": {"categories": "random:3"}}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    items = [f"ITEM-{j:02d}" for j in range(12)]
    recs = [sorted({x for x in items if rng.random() < 0.3} or {items[i % 12]}) for i in range(60)]
    return from_iterable(recs, record_ids=[f"PERSON-{i:03d}-XQ" for i in range(60)])


def _run(name, data, *, seed=None, secret=None):
    opts = RunOptions(seed=seed, params=dict(PARAMS[name]), unsafe_secret_seed=secret)
    return get_algorithm(name).run(data, opts)


def _row_order(rel):
    return np.asarray(rel.link.record_of_row)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_saved_release_holds_no_id_order_or_seed(name, data, tmp_path):
    rel = _run(name, data, seed=12345)
    rel.save(tmp_path / "r.json")
    text = (tmp_path / "r.json").read_text()
    assert "PERSON-" not in text and "record_of_row" not in text and "row_of_record" not in text
    assert "pairs" not in text and not re.search(r"[:\[,]12345[,\]}]", text)
    doc = json.loads(text)
    assert doc["kind"] == "perturbed" and not {"seed", "rng", "visit_order"} & set(doc["params"])
    assert not (np.diff(_row_order(rel)) >= 0).all()  # rows are not in input order
    back = load_release(tmp_path / "r.json")
    assert back.to_dict() == rel.to_dict() and back.link is None and check_same_data(data, back, link=rel.link)
    if PARAMS[name]:
        model = build_model("tendency", k=None, m=None, params=PARAMS[name], original=data)
        assert model.audit(data, back).details["mode"] == "without link"


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_secret_shuffle(name, data, tmp_path):
    blobs = []
    for run in range(2):
        _run(name, data, seed=3, secret=11).save(tmp_path / f"{run}.json")
        blobs.append((tmp_path / f"{run}.json").read_bytes())
    assert blobs[0] == blobs[1]
    a, b = _run(name, data, seed=5), _run(name, data, seed=5)
    assert not np.array_equal(_row_order(a), _row_order(b))  # fresh secret: another row order
    rows_a = sorted(a.render_record(i) for i in range(a.n_records))
    rows_b = sorted(b.render_record(i) for i in range(b.n_records))
    if name == "randswap":  # its pairs are secret too (a seed would name each position's partner)
        assert rows_a != rows_b
    else:  # ... of the same rows: the seed fixes the structure (pairs, moved items)
        assert rows_a == rows_b


def test_split_link_round_trip(data, tmp_path):
    rel = _run("splitperson", data, secret=1)
    rel.link.save(tmp_path / "link.json")
    back = load_split_link(tmp_path / "link.json")
    assert np.array_equal(back.record_of_row, rel.link.record_of_row)
    assert "never_publish" in (tmp_path / "link.json").read_text()
    rows = {rel.render_record(j) for j in rel.link.rows_of(0)}
    assert set(" ".join(rows).split()) == {str(x) for x in data.record(0)}
