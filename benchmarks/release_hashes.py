"""SHA-256 of the saved release of every registered method on a grid of bundled data and parameters.

A refactor that promises "no behaviour change" is checked with it: run it
before and after, and compare the two JSON files (``--compare OLD.json``
prints the cases whose bytes differ and exits 1 when any does). Every run
fixes the secret choices and the fingerprint key with
``unsafe_secret_seed=0`` (tests and this script only; never for data you
publish) and, for methods with structure randomness, the seed, so a saved
release is a pure function of the code.

Each case runs the method through its registered adapter, as
``graphanon anonymize`` does, so ``--param`` texts are the CLI's.

Usage::

    python benchmarks/release_hashes.py -o before.json
    # ... change the code ...
    python benchmarks/release_hashes.py -o after.json --compare before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from graphanon.cli.registry import RunOptions, get_algorithm, registered
from graphanon.datasets import load, load_taxonomy
from graphanon.taxonomy import Taxonomy

#: (dataset, method, k, m, taxonomy, params, seed); taxonomy "bundled" or "balanced:F"
GRID = [
    ("liuwang_fig1", "cut", None, None, "bundled", {"cut": "P,f,g,M,e,i", "suppress": "i"}, None),
    ("groceries", "cut", 5, 2, "bundled", {"level": "1"}, None),
    ("groceries", "aa", 5, 2, "bundled", {}, None),
    ("groceries", "aa", 10, 3, "bundled", {}, None),
    ("bms1", "aa", 5, 2, "balanced:5", {}, None),
    ("groceries", "hghs", 5, 2, "bundled", {}, None),
    ("groceries", "mhghs", 10, 2, "bundled", {}, None),
    ("bms1", "mhghs", 5, 2, "balanced:5", {}, None),
    ("groceries", "mm", 5, 2, None, {}, None),
    ("bms1", "mm", 5, 2, None, {}, None),
    ("groceries", "coat", 5, 2, None, {}, None),
    ("coat_fig1", "coat", 2, None, None, {}, None),
    ("chess", "nr", 5, None, None, {}, 0),
    ("chess", "nr", 3, None, None, {"order": "gray", "extraction": "backtracking"}, 1),
    ("nr_table1", "nr", 2, None, None, {}, 0),
    ("nr_table1", "nr", 2, None, None, {"l": "2"}, 0),
    ("labelled_groceries", "nr", None, None, None, {"l": "3"}, 0),
    ("labelled_groceries", "cahd", None, None, None, {"l": "3"}, None),
    ("groceries", "clump", 5, None, "bundled", {}, 0),
    ("bms1", "clump", 10, None, "balanced:5", {}, 0),
    ("chess", "clump", 3, None, "balanced:4", {}, 2),
    ("groceries", "partition", 5, None, "bundled", {}, None),
    ("chess", "partition", 10, None, "balanced:4", {}, None),
    ("groceries", "partswap", None, None, "bundled", {"categories": "taxonomy-level:1"}, 0),
    ("groceries", "fullswap", None, None, "bundled", {"categories": "taxonomy-level:1"}, 0),
    ("groceries", "partsupp", None, None, "bundled", {"categories": "taxonomy-level:1"}, None),
    ("groceries", "splitperson", None, None, "bundled", {"categories": "taxonomy-level:1"}, None),
    ("swap_table1", "randswap", None, None, None, {}, None),
]


def dataset(name: str):
    """A bundled dataset; ``labelled_groceries`` is groceries with a deterministic 5-value label
    (the record's position modulo 5), so the l-diverse methods run on real baskets."""
    if name == "labelled_groceries":
        data = load("groceries")
        return data.with_labels([f"L{i % 5}" for i in range(data.n_records)])
    return load(name)


def taxonomy_of(spec, name, data):
    if spec is None:
        return None
    if spec == "bundled":
        return load_taxonomy(name)
    return Taxonomy.balanced(data.items, int(spec.split(":")[1]))


def run_case(case) -> dict:
    name, method, k, m, tax, params, seed = case
    spec = get_algorithm(method)
    data = dataset(name)
    opts = RunOptions(k=k, m=m, taxonomy=taxonomy_of(tax, name, data), seed=seed, unsafe_secret_seed=0,
                      params=dict(params))
    start = time.perf_counter()
    release = spec.run(data, opts)
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "release.json"
        release.save(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"case": case_id(case), "sha256": digest, "seconds": round(seconds, 3)}


def case_id(case) -> str:
    name, method, k, m, tax, params, seed = case
    extra = ",".join(f"{key}={value}" for key, value in sorted(params.items()))
    return f"{method}:{name}:k={k}:m={m}:tax={tax}:seed={seed}:{extra}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, help="write the JSON here too")
    parser.add_argument("--compare", type=Path, help="an earlier output: report the cases that differ")
    args = parser.parse_args(argv)
    methods = {case[1] for case in GRID}
    missing = sorted(set(registered()) - methods)
    results = [run_case(case) for case in GRID]
    out = {"numpy": np.__version__, "cases": results, "methods_not_in_grid": missing}
    text = json.dumps(out, indent=1)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")
    if args.compare:
        old = {row["case"]: row["sha256"] for row in json.loads(args.compare.read_text())["cases"]}
        new = {row["case"]: row["sha256"] for row in results}
        differ = sorted(c for c in new if c in old and old[c] != new[c])
        only = sorted(set(old) ^ set(new))
        print(json.dumps({"compared": len(set(old) & set(new)), "differ": differ, "not_in_both": only}),
              file=sys.stderr)
        return 1 if differ or only else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
