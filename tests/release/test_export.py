"""Exports for recipients: every release kind as a plain table and a codebook (issue 32).

Each registered method's worked example (``tests.algorithms.test_common.EXAMPLES``) is exported in both forms and
every format; the files are read back with pandas (and R's ``read.csv`` where ``Rscript`` is installed)
and compared with the release file's own rows, decoded here from ``Release.to_dict`` (not by the export
code). The allowlist test reads every cell of every exported file and accepts only what the release
file publishes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from graphanon.data import from_iterable
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.release import PUBLISHED_PARAMS, GlobalRecoding, load_release
from graphanon.release.export import (
    codebook_columns,
    codebook_facts,
    codebook_paths,
    export_release,
)
from graphanon.taxonomy import Taxonomy
from tests.algorithms.test_common import EXAMPLES, _options
from tests.conftest import cli


def _release(name: str):
    spec, data, opts = _options(name)  # the common checks' worked example, as they run it
    return data, opts.taxonomy, spec.run(data, opts)


def _rows_from_document(release) -> dict[str, list[str]]:
    """Row pseudonym -> sorted published names of its items, decoded from the release document itself."""
    doc = release.to_dict()
    if doc["kind"] in ("global_recoding", "relational"):
        names, rows = [str(d["label"]) for d in doc["published_items"]], doc["records"]
    elif doc["kind"] == "local_recoding":
        names, rows = [str(d["label"]) for d in doc["nodes"]], doc["records"]  # a node c times is listed c times
    elif doc["kind"] == "perturbed":
        names, rows = [str(x) for x in doc["items"]], doc["records"]
    elif doc["kind"] == "synthetic":  # each itemset as many times as its count
        names = [str(x) for x in doc["items"]]
        rows = [row for row, count in zip(doc["itemsets"], doc["counts"]) for _ in range(count)]
    elif doc["kind"] == "itemsets":  # one row per released itemset (its support is a column of its own)
        names, rows = [str(x) for x in doc["items"]], doc["itemsets"]
    else:
        names, rows = [str(x) for x in doc["items"]], doc["base"]
    return {f"p{i + 1}": sorted(names[j] for j in row) for i, row in enumerate(rows)}


def _long_rows(df: pd.DataFrame, release) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {p: [] for p in release.pseudonyms}
    for rec in df.itertuples(index=False):
        if isinstance(rec.item, str) and rec.item:
            if release.kind == "nonreciprocal" and not int(rec.base):
                continue
            out[rec.row] += [rec.item] * (int(rec.copies) if release.kind == "local_recoding" else 1)
    return {p: sorted(v) for p, v in out.items()}


def _cells(values) -> list:
    return [json.loads(v) if isinstance(v, str) and v.startswith("[") else v for v in values]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_kind_exports_what_the_release_publishes(name, tmp_path):
    """Long and records forms, in CSV, TSV and Parquet, read by pandas: the release's rows, items and labels."""
    _data, _tax, release = _release(name)
    expected = _rows_from_document(release)
    labels = release.to_dict().get("labels")
    # item names are text (001 is not 1): a recipient reads them as text, as docs/export.md says
    for suffix, read in ((".csv", lambda p: pd.read_csv(p, dtype=str, keep_default_na=False)),
                         (".tsv", lambda p: pd.read_csv(p, sep="\t", dtype=str, keep_default_na=False)),
                         (".parquet", pd.read_parquet)):
        out = tmp_path / f"long{suffix}"
        export_release(release, out)
        df = read(out)
        assert set(df["row"]) == set(release.pseudonyms)
        assert _long_rows(df, release) == expected, suffix
        if labels is not None:
            assert dict(zip(df["row"], df["label"].astype(str), strict=True)) == {
                p: str(x) for p, x in zip(release.pseudonyms, labels, strict=True)}
        else:
            assert "label" not in df
        out = tmp_path / f"records{suffix}"
        export_release(release, out, form="records")
        df = read(out)
        assert list(df["row"]) == list(release.pseudonyms)  # the release's own (random) order
        column = "base" if release.kind == "nonreciprocal" else "items"
        got = [sorted(str(x) for x in v) for v in _cells(df[column])]
        assert got == [expected[p] for p in release.pseudonyms], suffix
    book = pd.read_csv(codebook_paths(tmp_path / "long.csv")["csv"])
    assert len(book) == len(codebook_columns(release)["published_item"])


def _strings(value) -> set[str]:
    """Every text and number a JSON value holds, as text."""
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values()), {str(k) for k in value}) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return {str(value), json.dumps(value)} if value is not None else set()


def _unpublished(paths, release, data, tax) -> list[str]:
    """What the exported files hold that the release document does not publish (empty when nothing)."""
    doc = release.to_dict()
    fingerprint = doc.pop("data_fingerprint")
    allowed = _strings(doc) | set(release.pseudonyms) | {"0", "1"}
    cb = codebook_columns(release, taxonomy=tax)
    allowed |= {str(v) for key in ("n_covered", "leaves", "level", "ncp", "rows", "copies", "distance_rows")
                for v in cb.get(key, [])}
    found = []
    for path in paths:
        text = path.read_text()
        found += [f"{path.name}: the fingerprint's {key}" for key in ("salt", "digest")
                  if fingerprint is not None and key in fingerprint and fingerprint[key] in text]  # DP: none
        if path.suffix == ".csv":
            df = pd.read_csv(path, dtype=str, keep_default_na=False)
            # list cells are JSON arrays; a relational interval such as [40-49] is a plain cell
            cells = {x for col in df for v in (_cells(df[col]) if col in ("items", "base", "distance", "covers")
                                                 else df[col]) for x in (v if isinstance(v, list) else [v])}
            found += [f"{path.name}: cell {x!r}" for x in sorted(cells - allowed - set(df.columns) - {""})]
        else:  # the Markdown / HTML page: no unpublished item name as a word
            words = set(text.replace(",", " ").replace("|", " ").replace('"', " ").replace("<", " ").replace(
                ">", " ").split())
            items = getattr(data, "transactions", data).items  # relational-transaction data: its items
            found += [f"{path.name}: item {x!r}" for x in items if x not in _strings(doc) and x in words
                      and len(x) > 2]
    return found


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_exports_hold_nothing_the_release_does_not_publish(name, tmp_path):
    """Every cell of the table and the codebook CSV comes from the release file (never its fingerprint)."""
    data, tax, release = _release(name)
    for form in ("long", "records"):
        written = export_release(release, tmp_path / f"{form}.csv", form=form, taxonomy=tax)
        assert _unpublished(written, release, data, tax) == []
    params = [what.removeprefix("parameter ") for what, _ in codebook_facts(release) if what.startswith("parameter ")]
    assert set(params) <= PUBLISHED_PARAMS[release.algorithm]


def test_the_allowlist_check_catches_planted_leaks(tmp_path):
    """The check above fails on a suppressed item's name, an original record id and the fingerprint."""
    data, tax, release = _release("mhghs")
    written = export_release(release, tmp_path / "x.csv", taxonomy=tax)
    assert _unpublished(written, release, data, tax) == []
    suppressed = [x for x in data.items if release.published_index(x) < 0]
    assert suppressed
    for planted in (suppressed[0], f"id-{data.record_ids[0]}", release.fingerprint["digest"]):
        with open(written[0], "a") as fh:
            fh.write(f"p1,{planted}\n")
        assert _unpublished(written, release, data, tax), planted
        export_release(release, tmp_path / "x.csv", taxonomy=tax)  # clean again


def test_a_parameter_off_the_allowlist_stops_the_export(tmp_path):
    _data, _tax, release = _release("hghs")
    release.params["path"] = [["ROOT", 3.0]]  # the walk would rebuild the full cut
    with pytest.raises(ReleaseFormatError, match="path"):
        export_release(release, tmp_path / "x.csv")
    assert list(tmp_path.iterdir()) == []


# a MEPS-like coding: three-digit codes (leading zeros, -1 for unknown) under ICD-9-like ranges whose
# names hold the CSV delimiter ("001,009")
RECORDS = [["001", "250", "401"], ["003", "250", "402"], ["010", "251"], ["011", "251", "-1"], ["001", "010"],
           ["003", "011"], ["250", "401", "-1"], ["251", "402", "-1"], ["001", "401"], ["010", "402"], ["-1"],
           ["250", "251"], ["-1", "003"]]
PARENT = {"001": "001,009", "003": "001,009", "010": "010,018", "011": "010,018", "250": "249,259",
          "251": "249,259", "401": "401,405", "402": "401,405", "403": "401,405", "-1": "unknown",
          "001,009": "001,139", "010,018": "001,139", "249,259": "240,279", "401,405": "390,459",
          "001,139": "*", "240,279": "*", "390,459": "*", "unknown": "*"}


def test_mhghs_codebook_lists_every_published_items_leaves(tmp_path):
    from graphanon.algorithms import anonymize_mhghs

    data = from_iterable(RECORDS)
    tax = Taxonomy.from_parent_map(PARENT)
    release = anonymize_mhghs(data, k=2, m=2, taxonomy=tax, unsafe_secret_seed=0)
    out = tmp_path / "meps.csv"
    export_release(release, out, taxonomy=tax)
    book = pd.read_csv(codebook_paths(out)["csv"], dtype={"published_item": str})
    assert list(book["published_item"]) == [str(pi.label) for pi in release.published_items]
    for row in book.itertuples(index=False):
        node = row.published_item
        covers = json.loads(row.covers)
        # the data's items under the node (never a leaf absent from the data), the taxonomy's leaf count
        assert covers == [x for x in tax.leaves_under(node) if data.has_item(x)] or sorted(covers) == sorted(
            x for x in tax.leaves_under(node) if data.has_item(x))
        assert row.leaves == tax.leaf_count(node) and row.level == tax.depth(node)
        assert row.ncp == pytest.approx((tax.leaf_count(node) - 1) / (tax.leaf_count("*") - 1))
    assert any("," in node for node in book["published_item"])  # names holding the delimiter stay whole
    page = codebook_paths(out)["md"].read_text()
    for pi in release.published_items:
        assert str(pi.label) in page
    assert "k^m-anonymity" in page and "| parameter k | 2 |" in page


def test_names_holding_the_separator_are_quoted(tmp_path):
    data = from_iterable([["a,b", 'say "hi"'], ["tab\there", "a,b"], ["x|y"]])
    rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    expected = _rows_from_document(rel)
    for suffix, sep in ((".csv", ","), (".tsv", "\t")):
        export_release(rel, tmp_path / f"t{suffix}", form="records")
        df = pd.read_csv(tmp_path / f"t{suffix}", sep=sep)
        assert [sorted(json.loads(v)) for v in df["items"]] == [expected[p] for p in rel.pseudonyms]
        export_release(rel, tmp_path / f"l{suffix}")
        df = pd.read_csv(tmp_path / f"l{suffix}", sep=sep)
        assert _long_rows(df, rel) == expected
    assert "x\\|y" in codebook_paths(tmp_path / "l.csv")["md"].read_text()  # escaped in a Markdown table


def test_parquet_without_pyarrow_says_what_to_install(tmp_path, monkeypatch):
    _data, _tax, release = _release("aa")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ParameterError, match=r"graphanon\[parquet\].*\.csv"):
        export_release(release, tmp_path / "x.parquet", codebook=False)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed (apt-get install r-base-core)")
@pytest.mark.parametrize("name", ["mhghs", "clump", "nr", "partswap"])
def test_r_reads_the_csv_exports(name, tmp_path):
    _data, _tax, release = _release(name)
    out = tmp_path / "x.csv"
    export_release(release, out)
    script = (f"d <- read.csv('{out}', colClasses='character'); b <- read.csv('{codebook_paths(out)['csv']}');"
              "cat(nrow(d), length(unique(d$row)), nrow(b), sep='\\n')")
    res = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True, timeout=120)
    lines = res.stdout.split()
    assert int(lines[0]) == len(pd.read_csv(out))
    assert int(lines[1]) == release.n_records
    assert int(lines[2]) == len(codebook_columns(release)["published_item"])


def _cli(*args):
    res = cli(*args)
    return res.exit_code, res.output


def test_anonymize_to_a_table_writes_the_release_and_its_export(tmp_path):
    res = cli("anonymize", "liuwang_fig1", "-a", "mhghs", "-k", "2", "-m", "2", "-o", tmp_path / "r.parquet", "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)  # stderr holds the warnings (a suppressed item under the taxonomy)
    assert summary["output"] == str(tmp_path / "r.json")
    assert summary["export"][0] == str(tmp_path / "r.parquet")
    release = load_release(tmp_path / "r.json")
    df = pd.read_parquet(tmp_path / "r.parquet")
    assert _long_rows(df, release) == _rows_from_document(release)
    assert (tmp_path / "r.codebook.md").exists() and (tmp_path / "r.codebook.html").exists()


def test_export_command(tmp_path):
    code, out = _cli("anonymize", "clump_food", "-a", "clump", "-k", "2", "--seed", "3", "-o", tmp_path / "r.json")
    assert code == 0, out
    code, out = _cli("export", tmp_path / "r.json", "-o", tmp_path / "r.tsv", "--form", "records",
                     "--taxonomy", "clump_food")
    assert code == 0, out
    assert "9 published rows" in out and "codebook" in out
    book = pd.read_csv(tmp_path / "r.codebook.csv")
    assert book["level"].notna().all()
    code, out = _cli("export", tmp_path / "r.json", "-o", tmp_path / "r.xlsx")
    assert code == 2 and ".csv, .tsv, .parquet" in out
    code, out = _cli("export", tmp_path / "r.json", "-o", tmp_path / "only.csv", "--no-codebook")
    assert code == 0 and not (tmp_path / "only.codebook.csv").exists()


def test_anonymize_to_a_table_checks_its_files_before_the_run(tmp_path, monkeypatch):
    code, out = _cli("anonymize", "liuwang_fig1", "-a", "mhghs", "-k", "2", "-m", "2", "-o", tmp_path / "r.csv",
                     "--link-out", tmp_path / "r.json")
    assert code == 2 and "--link-out" in out and not (tmp_path / "r.json").exists()
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, out = _cli("anonymize", "liuwang_fig1", "-a", "mhghs", "-k", "2", "-m", "2", "-o", tmp_path / "r.parquet")
    assert code == 2 and "graphanon[parquet]" in out
    assert list(tmp_path.iterdir()) == []  # nothing written, not even the release


def test_write_table_types_and_refusals(tmp_path):
    from graphanon.readwrite.tables import write_table

    write_table(tmp_path / "t.parquet", {"n": [1, None, 3], "mixed": [1, "x", None], "lists": [[1], ["y"], []],
                                         "f": [0.5, 1.0, None]})
    df = pd.read_parquet(tmp_path / "t.parquet")
    assert list(df["n"].astype("Int64")) == [1, pd.NA, 3] and list(df["mixed"][:2]) == ["1", "x"]
    assert [list(v) for v in df["lists"]] == [["1"], ["y"], []] and df["f"][0] == 0.5
    with pytest.raises(ParameterError, match="different lengths"):
        write_table(tmp_path / "t.csv", {"a": [1], "b": [1, 2]})
    with pytest.raises(ParameterError, match="cannot write this kind of table"):
        write_table(tmp_path / "t.xlsx", {"a": [1]})


def test_local_recoding_copies_and_empty_rows():
    from graphanon.release import LocalRecoding, PublishedNode
    from graphanon.release.export import export_columns

    nodes = [PublishedNode("Fruit", ("Apple", "Orange"), 2), PublishedNode("Beef", ("Beef",), 1)]
    rel = LocalRecoding(nodes=nodes, records=[[2, 1], [0, 0], [1, 0]], universe=3, labels=["x", "y", "x"])
    assert export_columns(rel) == {"row": ["p1", "p1", "p2", "p3"], "item": ["Fruit", "Beef", None, "Fruit"],
                                   "copies": [2, 1, 0, 1], "label": ["x", "x", "y", "x"]}
    assert export_columns(rel, "records") == {"row": ["p1", "p2", "p3"],
                                              "items": [["Fruit", "Fruit", "Beef"], [], ["Fruit"]],
                                              "label": ["x", "y", "x"]}
    book = codebook_columns(rel)
    assert (book["rows"], book["copies"], book["ncp"]) == ([2, 1], [3, 1], [0.5, 0.0])


def test_nonreciprocal_rows_base_distance_and_empty():
    from graphanon.release import NonreciprocalRelease
    from graphanon.release.export import export_columns

    rel = NonreciprocalRelease(["a", "b", "c"], [[1, 1, 0], [0, 0, 0]], [[0, 1, 1], [0, 0, 0]], [1, 0])
    assert export_columns(rel) == {"row": ["p1", "p1", "p1", "p2"], "item": ["a", "b", "c", None],
                                   "base": [1, 1, 0, 0], "distance": [0, 1, 1, 0], "threshold": [1, 1, 1, 0]}
    assert export_columns(rel, "records") == {"row": ["p1", "p2"], "base": [["a", "b"], []],
                                              "distance": [["b", "c"], []], "threshold": [1, 0]}
