"""Mutation run over the audits and the releases: do the tests notice a planted bug?

Each mutant changes one spot of one module of ``graphanon/privacy/`` or
``graphanon/release/``: either a *named* mutant (a realistic bug that once
passed the whole suite, issue 20 item 7) or a *generated* one, drawn
deterministically from every spot where one of these operators applies:

* ``compare``: ``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``in``/``not in``, ``is``/``is not`` swapped;
* ``anyall``: ``any``/``all`` (functions and ``.any()``/``.all()`` methods) swapped;
* ``boolop``: ``and``/``or`` swapped; ``not`` dropped;
* ``offbyone``: an integer constant in ``+``/``-`` arithmetic made one larger;
* ``return``: ``return True``/``return False`` swapped;
* ``loop``: ``continue``/``break`` swapped;
* ``delete``: a check deleted -- an ``if`` whose body ends in ``raise``,
  ``return``, ``continue`` or ``break`` (no ``else``), or an augmented
  assignment (``bad |= ...``), replaced by ``pass``.

Every mutant is applied to a *copy* of the repository (a scratch directory;
the working tree is never edited), checked to compile, and the test files
mapped to its module (:data:`TESTS`) plus the module's doctests run there
with ``pytest -x`` under a timeout, with ``PYTHONPATH`` pointing at the copy.
A mutant is *killed* when the tests fail (or time out), *survived* when they
pass. The result is printed as JSON and written to
``benchmarks/results/mutation.json``.

Run (about 25 minutes on one core)::

    python benchmarks/mutation.py                 # named + 100 generated mutants
    python benchmarks/mutation.py --named-only    # the item-7 mutants only
    python benchmarks/mutation.py --generated 20 --seed 1 --out /tmp/m.json
    python benchmarks/mutation.py --only "compare@graphanon/privacy/km.py:203:11"
    python benchmarks/mutation.py --named-only --exclude-tests privacy/test_audit_mutants.py --out /tmp/before.json

The generated mutants written to the JSON are reproducible: the same
``--seed`` and ``--generated`` on the same source draw the same mutants.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("graphanon/privacy", "graphanon/release")

_NR = ["privacy/test_audit_mutants.py", "privacy/test_privacy_nonreciprocal.py", "algorithms/test_nonreciprocal_ldiversity.py",
       "release/test_nonreciprocal_release.py"]
_KM = ["privacy/test_audit_mutants.py", "privacy/test_privacy_km.py", "counting/test_containment.py", "algorithms/test_hierarchy_golden.py"]
_RELEASE = ["privacy/test_audit_mutants.py", "release/test_release.py", "release/test_publication.py", "algorithms/test_honest_params.py",
            "release/test_nonreciprocal_release.py", "readwrite/test_labels_golden.py"]
#: Test files run for a mutant of each module (plus that module's doctests). Fast files that
#: exercise the module; the slow distributed/real-data files are left to the full suite.
TESTS = {
    "graphanon/privacy/km.py": _KM + ["algorithms/test_clustering.py"],
    "graphanon/privacy/consistency.py": _KM + ["release/test_publication.py", "privacy/test_coat_audit_pgen.py"],
    "graphanon/privacy/local.py": ["privacy/test_audit_mutants.py", "algorithms/test_clustering.py", "privacy/test_privacy_km.py"],
    "graphanon/privacy/hkp.py": ["privacy/test_audit_mutants.py", "algorithms/test_mm_moles.py", "algorithms/test_hierarchy_golden.py"],
    "graphanon/privacy/_match_candidates.py": _NR,
    "graphanon/privacy/match_graph.py": _NR,
    "graphanon/privacy/matchings.py": _NR,
    "graphanon/privacy/nonreciprocal.py": _NR,
    "graphanon/privacy/constraints.py": ["privacy/test_coat_audit_pgen.py", "algorithms/test_coat_algorithm.py"],
    "graphanon/privacy/tendency.py": ["algorithms/test_swapping.py", "release/test_swapping_publication.py"],
    "graphanon/privacy/report.py": ["release/test_publication.py", "privacy/test_privacy_km.py", "cli/test_cli.py"],
    "graphanon/privacy/registry.py": ["release/test_publication.py", "cli/test_cli.py", "cli/test_cli_errors.py"],
    "graphanon/privacy/__init__.py": ["package/test_imports.py", "privacy/test_privacy_km.py"],
    "graphanon/release/fingerprint.py": ["privacy/test_audit_mutants.py", "release/test_publication.py", "release/test_release.py"],
    "graphanon/release/local_recoding.py": ["privacy/test_audit_mutants.py", "algorithms/test_clustering.py", "release/test_release.py",
                                            "release/test_publication.py"],
    "graphanon/release/nonreciprocal.py": _NR + ["release/test_publication.py"],
    "graphanon/release/bit_voting.py": _NR + ["algorithms/test_cahd_groups.py"],
    "graphanon/release/perturbed.py": ["algorithms/test_swapping.py", "release/test_swapping_publication.py", "release/test_release.py"],
    # outside the two packages: only for the named metric and tie-rule mutants below
    "graphanon/metrics/queries.py": ["metrics/test_metrics_exact.py", "metrics/test_metrics.py", "metrics/test_workloads.py"],
    "graphanon/metrics/nonreciprocal.py": ["metrics/test_metrics_exact.py", "metrics/test_metrics.py"],
    "graphanon/algorithms/grouping/partition.py": ["algorithms/test_ties.py", "algorithms/test_clustering.py"],
    "graphanon/algorithms/grouping/_partition_kernel.py": ["algorithms/test_ties.py", "algorithms/test_clustering.py"],
    "graphanon/algorithms/coat/engine.py": ["algorithms/test_ties.py", "algorithms/test_coat_algorithm.py"],
    "graphanon/algorithms/coat/_kernels.py": ["algorithms/test_ties.py", "algorithms/test_coat_algorithm.py"],
    # differential privacy (issue 33): the empirical DP audit and the DP unit tests
    **{path: ["algorithms/test_dp_empirical.py", "algorithms/test_dp.py"] for path in (
        "graphanon/algorithms/dp/diffpart.py", "graphanon/algorithms/dp/noise.py", "graphanon/release/synthetic.py",
        "graphanon/privacy/dp_empirical.py")},
    # the ledger also composes epsilon for `audit --ledger`
    "graphanon/release/ledger.py": ["algorithms/test_dp_empirical.py", "algorithms/test_dp.py", "cli/test_dp_audit.py"],
    **{path: ["algorithms/test_privbasis_empirical.py", "algorithms/test_privbasis.py", "cli/test_privbasis_cli.py"] for path in (
        "graphanon/algorithms/dp/privbasis.py", "graphanon/release/itemsets.py")},
}
DEFAULT_RELEASE_TESTS = _RELEASE

#: The item-7 bugs (issue 20), each as (name, file, original text, mutated text): the text must
#: occur exactly once in the file. The metric and tie-rule ones lie outside the two packages of
#: the generated mutants.
NAMED = [
    ("km-bounded-verdict-ignores-mismatches", "graphanon/privacy/km.py",
     "satisfied=(n_viol == 0 and n_bad == 0)", "satisfied=(n_viol == 0)"),
    ("match-candidates-colliding-bit", "graphanon/privacy/_match_candidates.py",
     "        if f == 0:\n            return False", "        if f == 0:\n            continue"),
    ("local-some-coverage-deleted", "graphanon/privacy/local.py",
     "        bad |= (np.asarray(got.sum(axis=1)).ravel() != lengths) & (np.diff(need.indptr) > 0)",
     "        pass"),
    ("local-some-coverage-deleted-no-link", "graphanon/privacy/local.py",
     'cover=release.reading == "some" and len(cols) > 0', "cover=False"),
    ("hkp-mixed-item-public", "graphanon/privacy/hkp.py",
     "[any(x in priv for x in pi.members)", "[all(x in priv for x in pi.members)"),
    # the fingerprint hashes the canonical records in runs (issue 33 era): the last run loses the last record's items
    ("fingerprint-skips-last-record", "graphanon/release/fingerprint.py",
     '    del runs\n    for run in rows:\n        h.update(np.asarray(run).astype("<i8").tobytes())',
     '    last = int(runs[-1][-1]) if runs and len(runs[-1]) else 0\n    del runs\n'
     '    pieces = [np.asarray(run).astype("<i8") for run in rows]\n    if pieces:\n'
     '        pieces[-1] = pieces[-1][: len(pieces[-1]) - last]\n    for run in pieces:\n        h.update(run.tobytes())'),
    # exact metric values (tests/metrics/test_metrics_exact.py)
    ("avgre-denominator-plus-one", "graphanon/metrics/queries.py",
     "/ workload.answers))", "/ (workload.answers + 1)))"),
    ("er-denominator-plus-one", "graphanon/metrics/nonreciprocal.py",
     "h / np.maximum(ylen, 1)", "h / (np.maximum(ylen, 1) + 1)"),
    ("qe-denominator-plus-one", "graphanon/metrics/nonreciprocal.py",
     "q1 = float(np.mean(np.abs(true_counts(original, type1) - e1)) / n)",
     "q1 = float(np.mean(np.abs(true_counts(original, type1) - e1)) / (n + 1))"),
    # documented tie rules (tests/algorithms/test_ties.py)
    ("partition-gain-tie-to-last-node", "graphanon/algorithms/grouping/_partition_kernel.py",
     "(gain[c] == best and c < x)", "(gain[c] == best and c > x)"),
    ("partition-gain-tie-to-first-touched", "graphanon/algorithms/grouping/_partition_kernel.py",
     "(gain[c] == best and c < x)", "(gain[c] == best and x < 0)"),
    ("partition-empty-top-up-ties-to-last", "graphanon/algorithms/grouping/partition.py",
     'order = np.argsort(lengths, kind="stable")',
     'order = len(lengths) - 1 - np.argsort(lengths[::-1], kind="stable")'),
    ("coat-explicit-queue-tie-to-last", "graphanon/algorithms/coat/engine.py",
     "heapq.heappush(heap, (-sp_, c, seq, int(version[c]), None))",
     "heapq.heappush(heap, (-sp_, -c, seq, int(version[c]), None))"),
    ("coat-km-queue-tie-to-last", "graphanon/algorithms/coat/_kernels.py",
     "    for e in range(len(sups)):\n        _push(queue, nxt, e, sups[e])",
     "    for e in range(len(sups) - 1, -1, -1):\n        _push(queue, nxt, e, sups[e])"),
    # differential privacy (issue 33): the bugs the empirical DP audit must catch (tests/algorithms/test_dp_empirical.py)
    ("dp-noise-scale-halved", "graphanon/algorithms/dp/noise.py",
     "noisy = _measurement(sensitivity / eps)(arr.tolist())",
     "noisy = _measurement(sensitivity / eps / 2)(arr.tolist())"),
    ("diffpart-leaf-count-without-noise", "graphanon/algorithms/dp/diffpart.py",
     "noisy[final] = discrete_laplace(counts[final], eps_leaf)", "noisy[final] = counts[final]"),
    ("diffpart-threshold-from-exact-count", "graphanon/algorithms/dp/diffpart.py",
     "    return noisy >= threshold", "    return (np.asarray(true) >= threshold) & (np.asarray(noisy) >= 1)"),
    ("diffpart-budget-spent-twice", "graphanon/algorithms/dp/diffpart.py",
     "    return r + leaf_half", "    return r + 2 * leaf_half"),
    ("diffpart-universe-from-data", "graphanon/algorithms/dp/diffpart.py",
     "    tax = _universe_taxonomy(taxonomy, universe, fanout)",
     "    tax = _universe_taxonomy(None, sorted(as_label(x) for x in data.items), fanout)"),
    ("ledger-forgets-past-releases", "graphanon/release/ledger.py",
     "    total = math.fsum([*(e[\"epsilon\"] for e in done), epsilon])", "    total = epsilon"),
    ("ledger-composes-named-releases-only", "graphanon/release/ledger.py",
     "        composed = float(math.fsum([*(e[\"epsilon\"] for e in mine), *loose]))",
     "        composed = float(math.fsum([*(e[\"epsilon\"] for i, e in enumerate(mine) if i in used), *loose]))"),
    ("ledger-unaccounted-release-not-a-lower-bound", "graphanon/release/ledger.py",
     "lower_bound=bool(loose))", "lower_bound=False)"),
    # PrivBasis (issue 33): the bugs its empirical audit must catch (tests/algorithms/test_privbasis_empirical.py)
    ("privbasis-noise-scale-halved", "graphanon/algorithms/dp/privbasis.py",
     "    noisy[1:] = discrete_laplace(bins, eps_bin)", "    noisy[1:] = discrete_laplace(bins, 2 * eps_bin)"),
    ("privbasis-bin-count-without-noise", "graphanon/algorithms/dp/privbasis.py",
     "    noisy[1:] = discrete_laplace(bins, eps_bin)", "    noisy[1:] = bins"),
    ("privbasis-lambda-from-exact-count", "graphanon/algorithms/dp/privbasis.py",
     "    return noisy_max(-np.abs(f_sorted - theta), eps, monotonic=False) + 1",
     "    return int(np.argmax(-np.abs(f_sorted - theta))) + 1"),
    ("privbasis-budget-spent-per-basis", "graphanon/algorithms/dp/privbasis.py",
     "    return eps_bins / w", "    return eps_bins"),
    ("privbasis-universe-from-data", "graphanon/algorithms/dp/privbasis.py",
     "    labels = _universe(taxonomy, universe)", "    labels = sorted(as_label(x) for x in data.items)"),
]

_SWAP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
         ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


@dataclass
class Mutant:
    name: str
    kind: str
    file: str
    line: int
    before: str
    after: str
    source: str = ""  # the mutated module text (not written to the JSON)


def _segment_replace(text: str, node: ast.AST, new: str) -> str:
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: node.lineno - 1]) + len(
        lines[node.lineno - 1].encode("utf-8")[: node.col_offset].decode("utf-8"))
    end = sum(len(x) for x in lines[: node.end_lineno - 1]) + len(
        lines[node.end_lineno - 1].encode("utf-8")[: node.end_col_offset].decode("utf-8"))
    return text[:start] + new + text[end:]


def _statement_to_pass(text: str, node: ast.stmt) -> str:
    lines = text.splitlines(keepends=True)
    first = lines[node.lineno - 1]
    indent = first[: len(first) - len(first.lstrip())]
    return "".join(lines[: node.lineno - 1]) + indent + "pass\n" + "".join(lines[node.end_lineno :])


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def generated_mutants(path: str) -> list[Mutant]:
    """Every generated mutant of one module, in source order."""
    text = (ROOT / path).read_text()
    tree = ast.parse(text)
    out: list[Mutant] = []
    src_lines = text.splitlines()

    def add(kind: str, node: ast.AST, new_text: str) -> None:
        try:
            compile(new_text, path, "exec")
        except SyntaxError:
            return
        line = node.lineno
        new_lines = new_text.splitlines()
        after = new_lines[line - 1] if line - 1 < len(new_lines) else ""
        out.append(Mutant(f"{kind}@{path}:{line}:{node.col_offset}", kind, path, line,
                          src_lines[line - 1].strip(), after.strip(), new_text))

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _SWAP:
                    new = ast.Compare(left=node.left, ops=list(node.ops), comparators=node.comparators)
                    new.ops[i] = _SWAP[type(op)]()
                    add("compare", node, _segment_replace(text, node, "(" + ast.unparse(new) + ")"))
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in ("any", "all"):
                other = "all" if f.id == "any" else "any"
                add("anyall", f, _segment_replace(text, f, other))
            elif isinstance(f, ast.Attribute) and f.attr in ("any", "all"):
                other = "all" if f.attr == "any" else "any"
                new = ast.Attribute(value=f.value, attr=other, ctx=ast.Load())
                add("anyall", f, _segment_replace(text, f, ast.unparse(new)))
        elif isinstance(node, ast.BoolOp):
            new = ast.BoolOp(op=ast.Or() if isinstance(node.op, ast.And) else ast.And(), values=node.values)
            add("boolop", node, _segment_replace(text, node, "(" + ast.unparse(new) + ")"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add("boolop", node, _segment_replace(text, node, "(" + ast.unparse(node.operand) + ")"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            for side in ("left", "right"):
                c = getattr(node, side)
                if isinstance(c, ast.Constant) and type(c.value) is int:
                    add("offbyone", c, _segment_replace(text, c, str(c.value + 1)))
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
            add("return", node.value, _segment_replace(text, node.value, str(not node.value.value)))
        elif isinstance(node, (ast.Continue, ast.Break)):
            add("loop", node, _segment_replace(text, node, "break" if isinstance(node, ast.Continue) else "continue"))
        elif isinstance(node, ast.If) and not node.orelse and isinstance(
            node.body[-1], (ast.Raise, ast.Return, ast.Continue, ast.Break)
        ):
            add("delete", node, _statement_to_pass(text, node))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.Add, ast.Sub)):
            add("delete", node, _statement_to_pass(text, node))
    # one mutant per (kind, line, column): ast.walk can reach a spot twice only through nesting
    seen, unique = set(), []
    for m in sorted(out, key=lambda m: (m.line, m.name)):
        if m.name not in seen:
            seen.add(m.name)
            unique.append(m)
    return unique


def named_mutants() -> list[Mutant]:
    out = []
    for name, path, before, after in NAMED:
        text = (ROOT / path).read_text()
        if text.count(before) != 1:
            raise SystemExit(f"named mutant {name}: {before!r} occurs {text.count(before)} times in {path}")
        new_text = text.replace(before, after)
        compile(new_text, path, "exec")
        line = text[: text.index(before)].count("\n") + 1 + (before.count("\n") if "\n" in before else 0)
        out.append(Mutant(name, "named", path, line, before.strip().splitlines()[-1].strip(),
                          after.strip().splitlines()[-1].strip(), new_text))
    return out


def modules() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for pkg in PACKAGES for p in (ROOT / pkg).glob("*.py"))


def draw_generated(n: int, seed: int) -> list[Mutant]:
    """``n`` generated mutants, spread over the modules by their number of spots (deterministic)."""
    pool = [m for path in modules() for m in generated_mutants(path)]
    rng = random.Random(seed)
    picked = rng.sample(pool, min(n, len(pool)))
    return sorted(picked, key=lambda m: (m.file, m.line, m.name)), len(pool)


def _scratch_copy() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="graphanon-mutation-"))
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", "notebooks", "*.egg-info", ".hypothesis")
    for part in ("graphanon", "tests"):
        shutil.copytree(ROOT / part, scratch / part, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", scratch / "pyproject.toml")
    return scratch


#: Set by the command line: test files that replace (``--tests``) or leave out (``--exclude-tests``)
#: those of :data:`TESTS`, and whether the module's doctests run.
OPTIONS = {"tests": None, "exclude": (), "doctests": True}


def _tests_for(module: str) -> list[str]:
    tests = OPTIONS["tests"] or TESTS.get(module, DEFAULT_RELEASE_TESTS if "release" in module else _KM)
    if not OPTIONS["tests"] and "privacy/test_audit_mutants.py" not in tests:  # the item-7 and gap tests, 4 s
        tests = ["privacy/test_audit_mutants.py", *tests]
    return [t for t in tests if t not in OPTIONS["exclude"]]


def _pytest(scratch: Path, module: str, timeout: float) -> tuple[str, float, str]:
    tests = [f"tests/{t}" for t in _tests_for(module)]
    doctests = ["--doctest-modules", module] if OPTIONS["doctests"] else []
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *doctests, *tests]
    env = {**os.environ, "PYTHONPATH": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "killed (timeout)", time.perf_counter() - start, ""
    seconds = time.perf_counter() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, flags=re.M)
    if proc.returncode == 0:
        return "survived", seconds, ""
    if proc.returncode in (1, 2) and failed:
        return "killed", seconds, failed[0]
    return f"killed (pytest exit {proc.returncode})", seconds, proc.stdout[-300:]


def run(mutants: list[Mutant], timeout: float, log) -> list[dict]:
    scratch = _scratch_copy()
    try:
        # the copy must be what the tests import, and pass unmutated
        check = subprocess.run([sys.executable, "-c", "import graphanon; print(graphanon.__file__)"], cwd=scratch,
                               env={**os.environ, "PYTHONPATH": str(scratch)}, capture_output=True, text=True)
        if not check.stdout.strip().startswith(str(scratch)):
            raise SystemExit(f"the scratch copy is not imported: {check.stdout or check.stderr}")
        # baseline: every test file in use passes on the unmutated copy (this also fills numba's cache)
        files = sorted({t for m in mutants for t in _tests_for(m.file)})
        base = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *[f"tests/{t}" for t in files]], cwd=scratch, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"})
        if base.returncode != 0:
            raise SystemExit(f"the unmutated tests fail:\n{base.stdout[-2000:]}")
        log(f"baseline: {len(files)} test files pass on the unmutated copy")
        results = []
        for i, m in enumerate(mutants, 1):
            target = scratch / m.file
            pristine = target.read_text()
            target.write_text(m.source)
            # a fresh, distinct mtime: numba's cache index is keyed by the source's (mtime, size)
            stamp = time.time() + i
            os.utime(target, (stamp, stamp))
            try:
                status, seconds, killer = _pytest(scratch, m.file, timeout)
            finally:
                target.write_text(pristine)
                os.utime(target, (stamp + 0.5, stamp + 0.5))
            row = {k: v for k, v in asdict(m).items() if k != "source"}
            row.update(status=status, seconds=round(seconds, 1), killed_by=killer)
            results.append(row)
            log(f"[{i}/{len(mutants)}] {status:9s} {seconds:6.1f}s {m.name}  ({m.before!r} -> {m.after!r})")
        return results
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generated", type=int, default=100, help="generated mutants to draw (default 100)")
    ap.add_argument("--seed", type=int, default=20, help="seed of the draw (default 20)")
    ap.add_argument("--named-only", action="store_true", help="run only the named item-7 mutants")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant before it counts as killed")
    ap.add_argument("--only", nargs="+", help="run only the mutants of these names (named or generated)")
    ap.add_argument("--tests", nargs="+", help="run these test files (names in tests/) for every mutant")
    ap.add_argument("--exclude-tests", nargs="+", default=(), help="leave these test files out")
    ap.add_argument("--no-doctests", action="store_true", help="do not run the mutated module's doctests")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "mutation.json"))
    args = ap.parse_args(argv)
    OPTIONS.update(tests=args.tests, exclude=tuple(args.exclude_tests), doctests=not args.no_doctests)
    mutants = named_mutants()
    n_pool = 0
    if args.only:
        pool = mutants + [m for path in modules() for m in generated_mutants(path)]
        mutants = [m for m in pool if m.name in set(args.only)]
        missing = set(args.only) - {m.name for m in mutants}
        if missing:
            raise SystemExit(f"no mutant named {sorted(missing)}")
    elif not args.named_only:
        drawn, n_pool = draw_generated(args.generated, args.seed)
        mutants += drawn
    start = time.perf_counter()
    results = run(mutants, args.timeout, lambda s: print(s, file=sys.stderr, flush=True))
    killed = [r for r in results if r["status"].startswith("killed")]
    by_kind: dict[str, list[int]] = {}
    for r in results:
        k = by_kind.setdefault(r["kind"], [0, 0])
        k[0] += r["status"].startswith("killed")
        k[1] += 1
    summary = {
        "packages": list(PACKAGES),
        "mutants": len(results),
        "killed": len(killed),
        "survived": len(results) - len(killed),
        "kill_rate": round(len(killed) / len(results), 4) if results else None,
        "by_kind": {k: {"killed": v[0], "of": v[1]} for k, v in sorted(by_kind.items())},
        "generated_pool": n_pool,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - start, 1),
        "tests": args.tests or "per module (TESTS)",
        "excluded_tests": list(args.exclude_tests),
        "doctests": not args.no_doctests,
        "python": sys.version.split()[0],
    }
    report = {"summary": summary, "mutants": results}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
