"""One job's whole process (issue 24): the vectorized release writer and what a job imports.

The writer must give the bytes ``json.dumps`` gave (saved releases are compared
by hash across versions); the lazy-import checks run the CLI in a fresh
interpreter and read ``sys.modules``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.readwrite.files import IntRows, dumps_json, dumps_json_document

pytestmark = pytest.mark.slow  # one of the slowest files (docs/testing.md)

rows_strategy = st.lists(st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 12), max_size=6), max_size=8)


@settings(max_examples=300, deadline=None)
@given(rows_strategy)
def test_int_rows_encode_like_json_dumps(rows):
    indptr = np.r_[0, np.cumsum([len(r) for r in rows], dtype=np.int64)]
    values = np.array([x for r in rows for x in r], dtype=np.int64)
    encoded = IntRows(indptr, values)
    assert encoded.to_json() == json.dumps(rows, separators=(",", ":"))
    assert encoded.tolist() == rows
    doc = {"a": 1.5, "records": encoded, "nan": float("nan"), "label": "é\"x"}
    plain = {**doc, "records": rows}
    assert dumps_json_document(doc) == dumps_json(plain, separators=(",", ":"))


def test_int_rows_refuse_negative_values():
    with pytest.raises(ValueError, match="non-negative"):
        IntRows([0, 1], [-1])


# --- Partition without numba: the breadth-first numpy recursion equals the compiled depth-first kernel ---

def _partition_inputs(data, taxonomy, k):
    import scipy.sparse as sp

    from graphanon.algorithms.grouping.partition import _empty_records, ancestor_table
    from graphanon.graphs.lcg import NodeIndex

    index = NodeIndex(taxonomy, data.items)
    rest = np.flatnonzero(~_empty_records(np.diff(data.matrix.indptr), k))
    X = sp.csr_array(data.matrix[rest])
    return (X.indptr.astype(np.int64), ancestor_table(index, X), index.depth, index.is_leaf,
            index.ncp_hn.astype(np.float64), k, index.n_nodes)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.integers(2, 30), st.integers(1, 12), st.integers(2, 5),
       st.booleans())
def test_numpy_partition_equals_compiled_kernel(seed, n_records, n_items, k, fanout, skewed):
    """Same groups (same numbering) and same cut node per occurrence, on random data and taxonomies:
    small k, k near n, skewed item popularity (many equal records, so many top-ups and frozen nodes)."""
    from graphanon.algorithms.grouping import _partition_frontier, _partition_kernel
    from graphanon.data import from_iterable
    from graphanon.taxonomy import Taxonomy

    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_items + 1) ** (2.0 if skewed else 0.3)
    records = [rng.choice(n_items, size=rng.integers(0, min(n_items, 6) + 1), replace=False, p=weights / weights.sum())
               for _ in range(n_records)]
    data = from_iterable([[f"i{j}" for j in r] for r in records])
    if data.n_items == 0:
        return
    k = min(k, n_records)
    args = _partition_inputs(data, Taxonomy.balanced(data.items, fanout), k)
    if len(args[0]) == 1:
        return
    want_group, want_cur = _partition_kernel.partition_groups(*args)
    got_group, got_cur = _partition_frontier.partition_groups(*args)
    np.testing.assert_array_equal(got_group, want_group)
    np.testing.assert_array_equal(got_cur, want_cur)


def test_numpy_partition_equals_compiled_kernel_on_bms1():
    from graphanon.algorithms.grouping import _partition_frontier, _partition_kernel
    from graphanon.datasets import load
    from graphanon.taxonomy import Taxonomy

    data = load("bms1")
    taxonomy = Taxonomy.balanced(data.items, 5)
    for k in (2, 10):
        args = _partition_inputs(data, taxonomy, k)
        want_group, want_cur = _partition_kernel.partition_groups(*args)
        got_group, got_cur = _partition_frontier.partition_groups(*args)
        np.testing.assert_array_equal(got_group, want_group)
        np.testing.assert_array_equal(got_cur, want_cur)


def test_partition_release_passes_its_audit_on_bms1():
    from graphanon.algorithms import anonymize_partition
    from graphanon.datasets import load
    from graphanon.privacy import TransactionalKAnonymity
    from graphanon.taxonomy import Taxonomy

    data = load("bms1")
    release = anonymize_partition(data, taxonomy=Taxonomy.balanced(data.items, 5), k=5, unsafe_secret_seed=0)
    assert TransactionalKAnonymity(5).audit(data, release).satisfied


# --- what one job imports ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ("groceries", "-a", "partition", "-k", "5", "--taxonomy", "balanced:5"),
    ("bms1", "-a", "randswap"),
    ("bms1", "-a", "partsupp", "--param", "categories=random:5"),
    ("bms1", "-a", "splitperson", "--param", "categories=random:5"),
])
def test_job_loads_no_compiler_solver_or_dataframe(tmp_path, args):
    """Partition (numpy recursion) and the swapping baselines (no least-similar matching) run without numba,
    llvmlite, OR-Tools, igraph, pandas, pyarrow, matplotlib or dask."""
    from tests.package.test_imports import cli, loaded_after

    out = tmp_path / "r.json"
    loaded = loaded_after(cli("anonymize", *args, "-o", str(out)))
    assert out.exists()
    assert loaded & {"numba", "llvmlite", "ortools", "igraph", "pandas", "pyarrow", "matplotlib", "dask"} == set()


# --- reading: the numpy FIMI tokenizer gives the data the Python tokenizer gave -----------------------------

@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(["0", "1", "7", "10", "12", "123", "999999999999999999", "05",
                                                       "x", "1e3", "1234567890123456789"]), max_size=5),
                          st.sampled_from([" ", "  ", "\t", " \t "]), st.sampled_from(["", " ", "\t"])),
                max_size=8),
       st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
def test_fimi_fast_path_equals_python_tokenizer(lines, newline, final_newline):
    """Same items, same records, same errors, for texts with blank lines, tabs, CRLF or CR, leading zeros,
    19-digit and non-integer tokens (the last three take the Python path)."""
    from graphanon.errors import DataFormatError
    from graphanon.readwrite import formats, text

    body = newline.join(sep.join(toks) + trail for toks, sep, trail in lines) + (newline if final_newline else "")

    def parse(fast: bool):
        original = formats.plain_integer_tokens
        if not fast:
            formats.plain_integer_tokens = lambda _: None
        try:
            return formats.parse_fimi(body)
        except DataFormatError as exc:
            return str(exc)
        finally:
            formats.plain_integer_tokens = original

    got, want = parse(True), parse(False)
    if isinstance(want, str):
        assert got == want
        return
    assert got.items == want.items
    assert (got.matrix != want.matrix).nnz == 0 and got.matrix.shape == want.matrix.shape
    np.testing.assert_array_equal(got.matrix.indptr, want.matrix.indptr)
    fast = text.plain_integer_tokens(body)
    if fast is not None:
        assert int(fast[0].sum()) == len(fast[1])


# --- the k^m check of a cut job: no graph or linear-algebra modules ------------------------------------------

def _modules_after(code: str) -> set[str]:
    """Full module names in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    import subprocess
    import sys

    probe = f"{code}\nimport sys, json\nsys.stdout.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.rpartition("\nMODULES ")[2]))


def test_cut_job_and_its_km_check_load_no_csgraph_or_linalg(tmp_path):
    """``anonymize -a cut`` checks its k^m claim (the audit imports the recoding-consistency check, whose
    matching module needs ``scipy.sparse.csgraph`` only for the label-linkage edges): the job loads
    neither csgraph nor the ``scipy.sparse.linalg``/``scipy.linalg`` that csgraph pulls in, nor numba;
    and its balanced taxonomy is arrays only: no networkx (the cut case of the test below, one process)."""
    from tests.package.test_imports import cli

    out = tmp_path / "r.json"
    loaded = _modules_after(cli("anonymize", "bms1", "-a", "cut", "-k", "5", "-m", "2", "--taxonomy", "balanced:5",
                                "--param", "level=2", "--param", "force=true", "-o", str(out)))
    assert out.exists()
    assert "graphanon.privacy.matchings" in loaded  # the check ran through the module that once imported csgraph
    assert {"scipy.sparse.csgraph", "scipy.sparse.linalg", "scipy.linalg", "numba", "networkx"} & loaded == set()
    assert "graphanon.taxonomy.tree" in loaded  # the balanced tree was built


def test_viable_edges_still_finds_its_graph_library():
    """The csgraph import moved into ``viable_edges``: its strongly connected components still separate the
    edge no perfect matching uses (record 1 has only row 1, so record 0 must take row 0)."""
    from graphanon.privacy.matchings import viable_edges

    one = np.ones(2, dtype=np.int64)
    assert viable_edges(one, one, [0, 0, 1], [0, 1, 1]).tolist() == [True, False, True]
    assert viable_edges(one, one, [0, 0, 1, 1], [0, 1, 0, 1]).tolist() == [True] * 4


# --- the private link's ordered digest: record ids hashed as json.dumps gave them -----------------------------

@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-10**20, 10**20) | st.text(max_size=6) | st.sampled_from(['a"b', "c\\d", "e\nf", "\x00",
                                                                                     "\x1f", "\x7f", "é", "\u2028"]),
                max_size=12))
def test_record_ids_json_equals_json_dumps_per_id(ids):
    """Ids that need no escaping take one join, the others json.dumps: the text json.dumps gives either way."""
    from graphanon.release.fingerprint import json_strings

    want = ", ".join(json.dumps(str(r), ensure_ascii=False) for r in ids)
    assert json_strings(ids) == want
    assert json_strings(tuple(ids)) == want


def test_ordered_digest_unchanged_by_the_id_encoding(monkeypatch):
    """The link's digest of data with plain and with escaped ids equals the digest hashed with json.dumps per id."""
    from graphanon.data import from_iterable
    from graphanon.release import fingerprint

    def reference(data, key):
        X, rank, vocabulary = fingerprint._canonical(data)
        lengths, rows = fingerprint._pieces(X, rank)
        h, _ = fingerprint._hasher(b"graphanon-ordered-data/2\0", fingerprint._keyed(key), X.shape, vocabulary,
                                   lengths, rows)
        h.update(json.dumps([str(r) for r in data.record_ids], ensure_ascii=False).encode("utf-8"))
        return h.hexdigest()

    records = [["a", "b"], ["b"], ["c", "a"], []]
    for ids in (None, ["r1", 'r"2', "r\n3", "é"]):
        data = from_iterable(records, record_ids=ids)
        assert fingerprint.ordered_digest(data, key="0f" * 16) == reference(data, "0f" * 16)
    monkeypatch.setattr(fingerprint, "_CHUNK_ROWS", 3)  # runs of ids joined across chunk boundaries
    data = from_iterable(records * 3, record_ids=[f"x{i}" for i in range(12)])
    assert fingerprint.ordered_digest(data, key="0f" * 16) == reference(data, "0f" * 16)


# --- a balanced taxonomy without networkx: the same tree, the graph built when asked ---------------------------

def _same_taxonomy(got, want):
    import networkx as nx

    assert got.nodes == want.nodes and got.root == want.root and got.leaves == want.leaves
    for name in ("_parent", "_depth", "_is_leaf", "_end", "_leaf_count"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        assert getattr(got, name).dtype == getattr(want, name).dtype
    for v in want.nodes:
        assert got.children(v) == list(want.graph.successors(v))
    assert list(got.graph.nodes) == list(want.graph.nodes)
    assert list(got.graph.edges) == list(want.graph.edges)
    assert nx.is_frozen(got.graph)
    assert repr(got) == repr(want)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 300) | st.text("abc_G0123456789", min_size=1, max_size=4), min_size=1, max_size=60),
       st.integers(2, 7), st.sampled_from(["sorted", "random"]), st.integers(0, 3))
def test_balanced_taxonomy_equals_the_checked_networkx_build(items, fanout, order, seed):
    """``Taxonomy.balanced`` (arrays from the edges, no networkx) equals ``Taxonomy(balanced_graph(...))`` (the
    networkx build and checks): nodes, preorder arrays, children, the lazily built graph's node and edge order;
    the same errors for names that clash with internal nodes."""
    from graphanon.errors import TaxonomyError
    from graphanon.taxonomy import Taxonomy
    from graphanon.taxonomy.build import balanced_graph

    def build(fast):
        try:
            if fast:
                return Taxonomy.balanced(items, fanout, order=order, rng=seed)
            return Taxonomy(balanced_graph(items, fanout, order=order, rng=seed))
        except TaxonomyError as exc:
            return str(exc)

    got, want = build(True), build(False)
    if isinstance(want, str):
        assert got == want
        return
    _same_taxonomy(got, want)
    leaves = list(want.leaves)
    assert got.restrict(leaves[: max(1, len(leaves) // 2)]).nodes == want.restrict(leaves[: max(1, len(leaves) // 2)]).nodes


def test_children_from_arrays_follow_the_graph_for_networkx_taxonomies():
    """Taxonomies built from a graph read children from the preorder arrays too: successor order kept."""
    from graphanon.datasets import load_taxonomy
    from graphanon.taxonomy import Taxonomy

    groceries = load_taxonomy("groceries")
    edges = Taxonomy.from_edges([("r", "b"), ("r", "a"), ("b", "z"), ("b", "c"), ("a", "y")])
    for tax in (groceries, edges):
        for v in tax.nodes:
            assert tax.children(v) == list(tax.graph.successors(v))
    assert edges.children("r") == ["b", "a"] and edges.children("b") == ["z", "c"] and edges.children("y") == []


_NAMES = st.text("abcxyz", min_size=1, max_size=2)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_NAMES, min_size=1, max_size=5), min_size=1, max_size=25), st.booleans())
def test_path_file_taxonomy_equals_the_networkx_build(paths, rooted):
    """``Taxonomy.from_paths`` (checked without networkx when the paths form a tree) equals
    ``Taxonomy.from_parent_map`` (the networkx build and checks) on random paths: the same tree, children,
    preorder arrays and lazily built graph; and the same error for paths that are no tree (several roots,
    cycles such as ``a;b;a``, a node with two parents, a node its own parent)."""
    from graphanon.errors import TaxonomyError
    from graphanon.taxonomy import Taxonomy

    paths = [p + ["ROOT"] for p in paths] if rooted else paths  # rooted: mostly trees; else mostly errors

    def build(fast):
        try:
            if fast:
                return Taxonomy.from_paths(paths)
            parent_of: dict = {}
            for path in paths:
                if len(path) < 2:
                    raise TaxonomyError("short")
                for child, parent in zip(path, path[1:]):
                    if parent_of.setdefault(child, parent) != parent:
                        raise TaxonomyError("two parents")
            return Taxonomy.from_parent_map(parent_of)
        except TaxonomyError as exc:
            return str(exc)

    got, want = build(True), build(False)
    if isinstance(want, str):
        assert isinstance(got, str)
        if "cycle" in want or "roots" in want or "own parent" in want:
            assert got == want  # the fast path hands a non-tree to the networkx checks
        return
    _same_taxonomy(got, want)


@pytest.mark.parametrize("args", [  # cut: test_cut_job_and_its_km_check_load_no_csgraph_or_linalg
    ("-a", "aa", "-k", "5", "-m", "2", "--taxonomy", "balanced:5"),
    ("-a", "partswap", "--param", "categories=random:5", "--seed", "0"),
])
def test_jobs_with_a_balanced_taxonomy_or_categories_load_no_networkx(tmp_path, args):
    """A balanced taxonomy is arrays only and categories need no graph: networkx (0.075 s CPU, ~17 MiB) is
    not imported."""
    from tests.package.test_imports import cli

    out = tmp_path / "r.json"
    loaded = _modules_after(cli("anonymize", "bms1", *args, "-o", str(out)))
    assert out.exists()
    assert "networkx" not in loaded
    assert "graphanon.taxonomy.tree" in loaded  # the balanced tree was built (partswap: the categories' module)


def test_job_with_a_taxonomy_path_file_loads_no_networkx(tmp_path):
    """A ``leaf;parent;...;root`` taxonomy file (the format the public scripts read) is checked and built
    without networkx: a Partition job on it loads none, and publishes what the networkx build gives."""
    from graphanon.algorithms import anonymize_partition
    from graphanon.datasets import load
    from graphanon.taxonomy import Taxonomy, read_taxonomy
    from tests.package.test_imports import cli

    data = load("liuwang_fig1")
    balanced = Taxonomy.balanced(data.items, 3)
    lines = [";".join([leaf, *balanced.ancestors(leaf)]) for leaf in balanced.leaves]
    path = tmp_path / "tax.txt"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    loaded = _modules_after(cli("anonymize", "liuwang_fig1", "-a", "partition", "-k", "2", "--taxonomy", str(path),
                                "-o", str(out)))
    assert out.exists() and "networkx" not in loaded
    fast = read_taxonomy(path)
    _same_taxonomy(fast, Taxonomy(fast.to_networkx()))
    one = anonymize_partition(data, taxonomy=fast, k=2, unsafe_secret_seed=3)
    two = anonymize_partition(data, taxonomy=Taxonomy(fast.to_networkx()), k=2, unsafe_secret_seed=3)
    assert one.to_text() == two.to_text()
