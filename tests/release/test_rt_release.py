"""The relational release kind: save/load, export with the relational columns, codebook, and the CLI (issue 34)."""

from __future__ import annotations

import json

import pytest

from graphanon.algorithms.relational.rt import anonymize_rt, anonymize_rt_naive
from graphanon.data import write_long_csv
from graphanon.datasets.synthetic import patients_with_demographics
from graphanon.errors import ReleaseFormatError
from graphanon.release import load_release
from graphanon.release.export import (
    codebook_facts,
    codebook_markdown,
    export_columns,
    privacy_model_of,
)
from graphanon.release.relational import RelationalRelease
from tests.algorithms.test_rt_method import TAX, golden_data, published_violations


@pytest.fixture(scope="module")
def golden():
    return anonymize_rt(golden_data(), k=2, m=1, taxonomy=TAX, delta=0.3, unsafe_secret_seed=1)


def test_save_load_round_trip_publishes_nothing_private(golden, tmp_path):
    path = tmp_path / "r.json"
    golden.save(path)
    back = load_release(path)
    assert isinstance(back, RelationalRelease) and back.to_dict() == golden.to_dict()
    assert back.relational_rows() == golden.relational_rows() and back.item_rows() == golden.item_rows()
    doc = json.loads(path.read_text())
    assert doc["kind"] == "relational" and doc["qi"] == ["age", "gender"]
    assert set(doc["params"]) == {"k", "m", "transaction", "delta", "merge", "groups", "ril"}
    text = path.read_text()
    for secret in ("r0", "r7", "cluster", "merges", "trace"):  # ids, cluster ids, merge counts: never in the file
        assert secret not in text
    assert "seed" not in doc["params"]


@pytest.mark.parametrize("method", [anonymize_rt, anonymize_rt_naive])
def test_publication_no_id_order_seed_or_key(method, tmp_path):
    """As tests/test_publication.py checks every other method: shuffled rows, keyed fingerprint, no link."""
    import numpy as np

    rt, tax = patients_with_demographics(80, seed=4)
    rel = method(rt, k=3, m=2, taxonomy=tax, transaction="mhghs")
    rel.save(tmp_path / "r.json")
    text = (tmp_path / "r.json").read_text()
    doc = json.loads(text)
    assert set(doc["data_fingerprint"]) == {"scheme", "digest"} and rel.link.key not in text
    assert "row_of_record" not in text and "record_ids" not in text
    assert not (rel.link.row_of_record == np.arange(rt.n_records)).all()
    again = method(rt, k=3, m=2, taxonomy=tax, transaction="mhghs")
    assert not np.array_equal(rel.link.row_of_record, again.link.row_of_record)  # fresh secret each run
    blobs = []
    for run in range(2):
        fixed = method(rt, k=3, m=2, taxonomy=tax, transaction="mhghs", unsafe_secret_seed=11)
        fixed.save(tmp_path / f"{run}.json.gz")
        blobs.append((tmp_path / f"{run}.json.gz").read_bytes())
    assert blobs[0] == blobs[1]
    # each record's own row carries its generalized QI values and its recoded items
    rows = rel.relational_rows()
    for i in range(rt.n_records):
        j = int(rel.link.row_of_record[i])
        assert all(rt.hierarchies[c].covers(v, x) for c, v, x in zip(rt.qi, rows[j], rt.qi_values(i)))


def test_a_release_publishing_a_forbidden_field_is_refused(golden, tmp_path):
    golden.params["merges"] = 1
    try:
        with pytest.raises(ReleaseFormatError, match="may not publish parameter 'merges'"):
            golden.save(tmp_path / "r.json")
    finally:
        del golden.params["merges"]


def test_malformed_files_are_refused(golden, tmp_path):
    doc = golden.to_dict()
    doc["relational"][0] = [99, 0]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReleaseFormatError, match="refers to a value that does not exist"):
        load_release(path)


def test_export_and_codebook_hold_the_relational_columns(golden):
    cols = export_columns(golden, "records")
    assert list(cols) == ["row", "age", "gender", "items"]
    rows = golden.relational_rows()
    assert list(zip(cols["age"], cols["gender"])) == rows
    long = export_columns(golden)
    assert set(long) == {"row", "age", "gender", "item"} and len(long["row"]) >= golden.n_records
    facts = dict(codebook_facts(golden))
    assert facts["privacy model"] == "rt" and facts["quasi-identifiers"] == "age, gender"
    assert facts["relational groups"] == "3"
    md = codebook_markdown(golden)
    assert "## Published relational values" in md and "| age | * | 4 |" in md


def test_the_naive_codebook_does_not_claim_k_km():
    rt, tax = patients_with_demographics(200, seed=2)
    naive = anonymize_rt_naive(rt, k=5, m=2, taxonomy=tax, transaction="mhghs")
    assert privacy_model_of(naive) == "rt-naive"
    assert "NOT (k, k^m)-anonymous" in dict(codebook_facts(naive))["you may infer"]


def test_estimate_count_reads_each_rows_recoding():
    rel = RelationalRelease(qi=["age"], relational=[["*"], ["*"], ["[40-49]"]],
                            published_items=[_item("A", ("a1", "a2")), _item("a1", ("a1",))],
                            records=[[0], [], [1]], universe=4)
    # row 0: A = one of {a1}, {a2}, {a1,a2} -> a1 with 2/3; row 2: a1 for sure
    assert rel.estimate_count(["a1"]) == pytest.approx(2 / 3 + 1)
    assert rel.estimate_count(["a1"], ["a2"]) == pytest.approx(1 / 3 + 1)


def _item(label, members):
    from graphanon.release.global_recoding import PublishedItem

    return PublishedItem(label, members, len(members))


# ---------------------------------------------------------------------- the command line
@pytest.fixture
def rt_files(tmp_path):
    rt, tax = patients_with_demographics(120, seed=5)
    write_long_csv(rt.transactions, tmp_path / "patients.csv")
    t = rt.table
    lines = ["id," + ",".join(t.names)]
    lines += [rid + "," + ",".join(str(t.column(c)[i]) for c in t.names) for i, rid in enumerate(t.record_ids)]
    (tmp_path / "demographics.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "tax.txt").write_text("".join(";".join([x, *tax.ancestors(x)]) + "\n" for x in tax.leaves))
    (tmp_path / "race.txt").write_text("".join(f"{v};{p};*\n" if p != "*" else f"{v};*\n" for v, p in [
        ("White", "*"), ("Black", "*"), ("Asian", "API"), ("Pacific Islander", "API"), ("Native American", "*"),
        ("Other", "*")]))
    return rt


def test_cli_rt_line_of_the_issue(run, rt_files):
    res = run("anonymize", "patients.csv", "--relational", "demographics.csv", "--qi", "age,gender,race",
              "-a", "rt", "-k", "5", "-m", "2", "--taxonomy", "tax.txt", "--qi-hierarchy", "race=race.txt",
              "--param", "transaction=mhghs", "-o", "r.json")
    assert res.exit_code == 0, res.output
    assert "--model rt -k 5 -m 2 --relational demographics.csv --qi age,gender,race" in res.output
    rel = load_release("r.json")
    assert rel.qi == ("age", "gender", "race") and rel.params["transaction"] == "mhghs"
    assert set(rel.values[2]) <= {"White", "Black", "API", "Asian", "Pacific Islander", "Native American", "Other",
                                  "*"}
    assert published_violations(rel, 5, 2) == []
    relational = ("--relational", "demographics.csv", "--qi", "age,gender,race", "--qi-hierarchy", "race=race.txt")
    res = run("audit", "patients.csv", "r.json", "--model", "rt", "-k", "5", "-m", "2", *relational)
    assert res.exit_code == 0 and "(k, k^m)-anonymity (k=5, m=2): satisfied" in res.output, res.output


def test_cli_audit_reports_the_naive_baseline(run, rt_files):
    relational = ("--relational", "demographics.csv", "--qi", "age,gender,race", "--qi-hierarchy", "race=race.txt")
    res = run("anonymize", "patients.csv", *relational, "-a", "rt-naive", "-k", "5", "-m", "2", "--taxonomy",
              "tax.txt", "--param", "transaction=mhghs", "-o", "n.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "patients.csv", "n.json", "--model", "rt", "-k", "5", "-m", "2", *relational)
    assert res.exit_code == 1 and "VIOLATED" in res.output, res.output
    res = run("audit", "patients.csv", "n.json", "--model", "km", "-k", "5", "-m", "2", *relational)
    assert res.exit_code == 2 and "--relational describes relational-transaction data" in res.output


@pytest.mark.parametrize("args, message", [
    (("-a", "rt", "-k", "5", "--taxonomy", "tax.txt"), "-a rt needs --relational FILE --qi COLUMNS"),
    (("-a", "aa", "-k", "5", "--taxonomy", "tax.txt", "--relational", "demographics.csv", "--qi", "age"),
     "-a aa reads transactions only"),
    (("-a", "rt", "-k", "5", "--taxonomy", "tax.txt", "--relational", "demographics.csv"), "needs --qi"),
    (("-a", "rt", "-k", "5", "--relational", "demographics.csv", "--qi", "age"),
     "transaction='mhghs' generalizes over an item taxonomy"),
    (("-a", "rt", "-k", "5", "--taxonomy", "tax.txt", "--relational", "demographics.csv", "--qi", "age,zip"),
     "no column 'zip'"),
    (("-a", "rt", "-k", "5", "--taxonomy", "tax.txt", "--relational", "demographics.csv", "--qi", "age",
      "--param", "merge=fast"), "merge"),
])
def test_cli_bad_input_is_one_line(run, rt_files, args, message):
    res = run("anonymize", "patients.csv", *args, "-o", "r.json")
    assert res.exit_code == 2 and message in res.output, res.output
