"""PrivBasis on the command line and in files: -a privbasis, its refusals, evaluate, export, the ledger, save/load."""

from __future__ import annotations

import csv
import json

from graphanon.algorithms.dp.privbasis import anonymize_privbasis
from graphanon.data import from_iterable
from graphanon.release import load_release
from graphanon.release.itemsets import ItemsetRelease

UNIVERSE = ["a", "b", "c", "d", "e", "f"]


def test_release_publishes_no_exact_count_and_two_runs_differ(tmp_path):
    big = from_iterable([["a", "b"]] * 400 + [["b", "c"]] * 300 + [["c"]] * 200 + [["d", "a"]] * 150)
    r1 = anonymize_privbasis(big, k=6, epsilon=1.0, universe=UNIVERSE)
    r2 = anonymize_privbasis(big, k=6, epsilon=1.0, universe=UNIVERSE)
    assert r1.fingerprint is None and r1.link is None
    assert r1.to_dict()["supports"] != r2.to_dict()["supports"]
    r1.save(tmp_path / "r.json")
    text = (tmp_path / "r.json").read_text()
    doc = json.loads(text)
    assert doc["kind"] == "itemsets" and doc["data_fingerprint"] is None and doc["n_records"] == len(r1)
    assert set(doc) == {"format", "kind", "algorithm", "params", "n_records", "data_fingerprint", "items",
                        "itemsets", "supports"}
    assert doc["items"] == UNIVERSE and doc["params"]["epsilon"] == 1.0 and doc["params"]["k"] == 6
    assert "1050" not in text and "2550" not in text  # neither the records nor the occurrences are counted
    back = load_release(tmp_path / "r.json")
    assert isinstance(back, ItemsetRelease) and back.to_dict() == r1.to_dict()


def test_cli_privbasis_anonymize_evaluate_export_and_refusals(run, tmp_path):
    (tmp_path / "d.txt").write_text("\n".join(["a,b"] * 120 + ["a,b,c"] * 60 + ["c,d"] * 50 + ["e"] * 30) + "\n")
    (tmp_path / "u.txt").write_text("\n".join(UNIVERSE) + "\n")
    base = ("anonymize", "d.txt", "-a", "privbasis", "--universe", "u.txt", "--epsilon", "1")
    res = run(*base, "--param", "k=5", "-o", "r.json", "--ledger", "PRIVATE-l.json", "--budget", "1.5")
    assert res.exit_code == 0, res.output
    assert "privbasis: 5 rows released" in res.output and "tested, not audited" in res.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["kind"] == "itemsets" and len(doc["itemsets"]) == 5 and doc["data_fingerprint"] is None
    # the ledger counts it: a second release at epsilon 1 would pass the budget
    again = run(*base, "--param", "k=5", "-o", "r2.json", "--ledger", "PRIVATE-l.json", "--budget", "1.5")
    assert again.exit_code == 2 and "already spent 1 on 1 release (privbasis epsilon=1" in again.output
    ev = run("evaluate", "d.txt", "r.json", "--json")
    assert ev.exit_code == 0, ev.output
    metrics = json.loads(ev.output)
    assert metrics["kind"] == "itemsets" and metrics["topk_k"] == 5 and 0 <= metrics["topk_f"] <= 1
    assert set(metrics) - {"meaning"} <= set(metrics["meaning"])
    ex = run("export", "r.json", "-o", "e.csv")
    assert ex.exit_code == 0, ex.output
    rows = list(csv.DictReader((tmp_path / "e.csv").open()))
    assert rows and set(rows[0]) == {"row", "item", "support"} and rows[0]["row"] == "p1"
    assert {r["item"] for r in rows} <= set(UNIVERSE)
    audit = run("audit", "d.txt", "r.json", "--model", "km", "-k", "2", "-m", "2")
    assert audit.exit_code == 2 and "is differentially private" in audit.output and "--ledger" in audit.output
    for extra, message in [
        (("--param", "k=5", "--seed", "3"), "--seed would make its noise reproducible"),
        ((), "needs --param k (the number of itemsets to release); for example --param k=100"),
        (("--param", "k=5", "--link-out", "l.json"), "has no private link"),
        (("--param", "k=0"), "k"),
    ]:
        res = run(*base, *extra, "-o", "x.json")
        assert res.exit_code == 2 and message in res.output, res.output
    res = run("anonymize", "d.txt", "-a", "privbasis", "--epsilon", "1", "--param", "k=5", "-o", "x.json")
    assert res.exit_code == 2 and "needs the public item universe" in res.output
    assert not (tmp_path / "x.json").exists()
