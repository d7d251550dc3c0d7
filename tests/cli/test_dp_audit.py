"""``graphanon audit ... --ledger``: the composed epsilon of DP releases, and what a mix of DP and syntactic releases guarantees."""

from __future__ import annotations

import json

import pytest

from graphanon.algorithms.dp.diffpart import anonymize_diffpart
from graphanon.data import from_iterable
from graphanon.release.ledger import BudgetLedger, is_dp_release
from tests.conftest import cli

UNIVERSE = list("abcdef")
RECORDS = [["a", "b"]] * 60 + [["c"]] * 30 + [["d", "e"]] * 20 + [["f"]] * 5


def _release(tmp_path, name, eps, ledger=None, data=None):
    data = data or from_iterable(RECORDS)
    rel = anonymize_diffpart(data, epsilon=eps, universe=UNIVERSE, fanout=2)
    path = tmp_path / name
    rel.save(path)
    if ledger is not None:
        ledger.record(data, epsilon=eps, algorithm="diffpart", params=rel.params, output=str(path))
    return path, rel


def test_account_composes_the_ledger_and_names_unaccounted_releases(tmp_path):
    data = from_iterable(RECORDS)
    ledger = BudgetLedger.open(tmp_path / "PRIVATE-ledger.json")
    p1, r1 = _release(tmp_path, "r1.json", 0.25, ledger)
    p2, r2 = _release(tmp_path, "r2.json", 0.5, ledger)
    p3, r3 = _release(tmp_path, "r3.json", 0.125, ledger)
    loose, rl = _release(tmp_path, "loose.json", 1.0)  # made without the ledger
    other = from_iterable(RECORDS + [["a"]])  # one record more: other data
    po, ro = _release(tmp_path, "other.json", 2.0, ledger, data=other)
    assert is_dp_release(r1) and not is_dp_release(type("R", (), {"params": {"k": 2}})())
    ledger = BudgetLedger.open(ledger.path)
    acc = ledger.account(data, [(p1, r1), (p2, r2)])
    # every recorded release of the data counts, named or not (r3 was not named): 0.25 + 0.5 + 0.125
    assert acc.composed == pytest.approx(0.875) and not acc.lower_bound
    assert [g["status"] for g in acc.given] == ["recorded", "recorded"]
    assert [e["given"] for e in acc.recorded] == [True, True, False]
    acc = ledger.account(data, [(p1, r1), (loose, rl), (po, ro)])
    assert acc.lower_bound and acc.composed == pytest.approx(0.875 + 1.0 + 2.0)
    assert [g["why"] for g in acc.given] == [
        None, "not in the ledger", "recorded in the ledger for other data (another dataset or another extract)"]
    # the other data's own account holds only its release
    assert ledger.account(other, [(po, ro)]).composed == pytest.approx(2.0)
    # a release edited after it was recorded is not the recorded release (planted counter-example)
    doc = json.loads(p2.read_text())
    doc["counts"] = [c + 1 for c in doc["counts"]] if "counts" in doc else doc["counts"]
    p2.write_text(json.dumps(doc))
    acc = ledger.account(data, [(p2, r2)])
    assert acc.given[0]["status"] == "unaccounted" and acc.lower_bound
    assert acc.composed == pytest.approx(0.875 + 0.5)


def test_account_matches_an_entry_without_digest_by_file_name(tmp_path):
    data = from_iterable(RECORDS)
    ledger = BudgetLedger.open(tmp_path / "PRIVATE-ledger.json")
    path, rel = _release(tmp_path, "r1.json", 0.5)
    ledger.record(data, epsilon=0.5, algorithm="diffpart", output="elsewhere/r1.json")  # no file there: no digest
    acc = ledger.account(data, [(path, rel)])
    assert acc.given[0]["status"] == "recorded" and acc.given[0]["matched"] == "file name"
    assert not acc.lower_bound and acc.composed == 0.5


@pytest.fixture
def files(tmp_path):
    (tmp_path / "d.txt").write_text("\n".join(",".join(r) for r in RECORDS) + "\n")
    (tmp_path / "u.txt").write_text("\n".join(UNIVERSE) + "\n")
    return tmp_path


def _dp(files, eps, name, ledger=True):
    extra = ("--ledger", files / "PRIVATE-ledger.json") if ledger else ()
    res = cli("anonymize", files / "d.txt", "-a", "diffpart", "--epsilon", eps, "--universe", files / "u.txt",
               "--param", "fanout=2", "-o", files / name, *extra)
    assert res.exit_code == 0, res.output
    return files / name


def test_cli_audit_reports_the_composed_epsilon(files):
    r1, r2 = _dp(files, 0.3, "r1.json"), _dp(files, 0.5, "r2.json")
    ledger = files / "PRIVATE-ledger.json"
    res = cli("audit", files / "d.txt", r1, r2, "--ledger", ledger)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "composed epsilon = 0.8 over 2 releases of this data" in text
    assert f"{r1}: diffpart epsilon=0.3 -- in the ledger" in text and f"{r2}: diffpart epsilon=0.5" in text
    assert "together 0.8-differentially private" in text and "LOWER BOUND" not in text
    # a release made without the ledger: named as unaccounted, the total a lower bound
    loose = _dp(files, 0.4, "loose.json", ledger=False)
    res = cli("audit", files / "d.txt", r1, loose, "--ledger", ledger, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["dp"]["composed_epsilon"] == pytest.approx(1.2) and doc["dp"]["lower_bound"] is True
    assert [r["status"] for r in doc["dp"]["releases"]] == ["recorded", "unaccounted"]
    assert any("no epsilon can be stated" in line for line in doc["not_guaranteed"])
    res = cli("audit", files / "d.txt", r1, loose, "--ledger", ledger)
    assert "composed epsilon = at least 1.2" in " ".join(res.output.split())
    assert "UNACCOUNTED: not in the ledger" in res.output
    # --budget: exit 1 past it, naming it
    res = cli("audit", files / "d.txt", r1, "--ledger", ledger, "--budget", "0.7")
    assert res.exit_code == 1 and "--budget 0.7: the composed epsilon 0.8 exceeds it" in " ".join(res.output.split())
    assert cli("audit", files / "d.txt", r1, "--ledger", ledger, "--budget", "0.8").exit_code == 0


def test_cli_audit_mixing_dp_and_syntactic_releases(files):
    r1 = _dp(files, 0.5, "r1.json")
    ledger = files / "PRIVATE-ledger.json"
    res = cli("anonymize", files / "d.txt", "-a", "aa", "-k", "2", "-m", "2", "--taxonomy", "balanced:2", "-o",
               files / "aa.json")
    assert res.exit_code == 0, res.output
    res = cli("audit", files / "d.txt", r1, files / "aa.json", "--model", "km", "-k", "2", "-m", "2", "--ledger",
               ledger, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["syntactic"]["releases"] == [str(files / "aa.json")] and doc["syntactic"]["satisfied"] is True
    assert doc["dp"]["composed_epsilon"] == 0.5
    assert any("meets k^m-anonymity (k=2, m=2)" in line for line in doc["guaranteed"])
    assert any("0.5 (composed) on top of what the syntactic releases reveal" in line for line in doc["guaranteed"])
    assert any("NOT epsilon-DP for any epsilon" in line for line in doc["not_guaranteed"])
    # the syntactic release audited at a k it does not meet: exit 1, the DP part still accounted
    res = cli("audit", files / "d.txt", r1, files / "aa.json", "--model", "km", "-k", "40", "-m", "2", "--ledger",
               ledger)
    assert res.exit_code == 1 and "VIOLATED" in res.output and "composed epsilon = 0.5" in " ".join(res.output.split())


@pytest.mark.parametrize("extra, message", [
    ((), "DP releases are accounted from the private budget ledger, not audited -- give --ledger FILE"),
    (("--ledger", "L", "--model", "km", "-k", "2"), "--model, -k: every RELEASE is differentially private"),
    (("--budget", "1"), "--budget needs --ledger FILE"),
    (("--ledger", "missing.json"), "--ledger missing.json: no such file"),
])
def test_cli_audit_dp_refusals(files, extra, message):
    r1 = _dp(files, 0.5, "r1.json")
    extra = tuple(str(files / "PRIVATE-ledger.json") if x == "L" else x for x in extra)
    res = cli("audit", files / "d.txt", r1, *extra)
    assert res.exit_code == 2 and message in res.output, res.output


def test_cli_audit_syntactic_only_needs_a_model_and_no_ledger(files):
    res = cli("anonymize", files / "d.txt", "-a", "aa", "-k", "2", "-m", "2", "--taxonomy", "balanced:2", "-o",
               files / "aa.json")
    assert res.exit_code == 0, res.output
    res = cli("audit", files / "d.txt", files / "aa.json")
    assert res.exit_code == 2 and "--model is required" in res.output
    res = cli("audit", files / "d.txt", files / "aa.json", "--model", "km", "-k", "2", "--ledger", files / "x.json")
    assert res.exit_code == 2 and "no RELEASE is differentially private" in res.output
