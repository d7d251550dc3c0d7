"""Paired runs against the public implementations on bms1 (issue 24): wall time and peak memory.

Each pair is one ``graphanon anonymize`` process (``python -m graphanon`` with
this checkout on ``PYTHONPATH``) and one process of a public implementation,
on the same input written once into a temporary directory, with the same
parameters, on the same machine, alternated ``--rounds`` times (ours, theirs,
ours, theirs, ...). For every child the parent takes the wall time and the
peak resident memory from ``os.wait4`` (that process only) and the 1-minute
load average before and after; it reports best and median per side and the
ratio ours / theirs. Before the timed runs, one untimed *check run* per peer
calls the peer's own functions from a small driver (written into the
temporary directory) to get its result, which is then audited with
graphanon's independent auditors, so the table says whether both sides
deliver what the model promises (and how many groups / suppressed items).
Children are started from a minimal launcher (``benchmarks/_child.py``), so
a child's peak is its own and not this process's memory.

Nothing of the public code is part of graphanon: every path is given on the
command line and only read from there. The C++ CAHD is compiled from its
sources into the temporary directory (g++, Boost program_options and graph,
Eigen 3, Python headers for its plotting include; Debian:
``libboost-program-options-dev libboost-graph-dev libeigen3-dev python3-dev``).

The implementations measured (re-fetch them from these commits):

``--partition PATH``
    github.com/qiyuangong/Partition_for_Transaction @ 34accf479b0555f998ce9d96af3307c25723f571
    (Python 2; run with ``--python2``, default the newest pyenv 2.7), or its
    Python 3 rewrite github.com/erfanghorbanee/Set-Valued-Data-Anonymizer @
    1df77c5e6fde380e8531a58a48d21188abf2f465. Command: ``anonymizer.py b K``
    (the original) or ``anonymizer.py K`` (the rewrite), run in a directory
    holding ``data/BMS-WebView-2.dat`` (``tid<TAB>item`` lines, written from
    bms1) and ``data/treefile_BMS.txt`` (the taxonomy as ``leaf;parent;...;*``
    paths). Ours: ``anonymize bms1.dat --format fimi -a partition -k K
    --taxonomy taxonomy.txt`` with the same taxonomy file. The script keeps
    its groups in memory and writes nothing; ours writes the release.
``--aa PATH``
    github.com/qiyuangong/Apriori_based_Anonymization @ a86d109bcadc5d4d5d2ae4fc60b853e6ce2b8eba
    (Python 2). Command: ``anonymizer.py AA b K``; its m is fixed at 4 in the
    script (``DEFALUT_M``), so ours runs ``-a aa -k K -m 4`` with the same
    taxonomy file. Same input files as Partition.
``--mm PATH``
    github.com/ilkayalbayrak/HKP_Coherence @ 92accbe355417c7897a581ec30e28f00a70e0743
    (Python 3, needs pandas and anytree: ``--peer-python`` names an
    interpreter that has them). Command: ``run_hkp.py --h-value H --k-value K
    --p-value P --sigma S --data-path bms1.dat --no-verification`` with
    ``PYTHONHASHSEED=0`` (its public items are a seeded permutation of a
    string set, so the hash seed fixes them). The check run reads the split
    (its ``utils.prepare_data``) and its suppressed items (the greedy's
    ``suppressed_items`` plus the size-1 moles it drops before the greedy),
    and ours runs ``-a mm -k K -m P --param
    h=H --param private=...`` with exactly those private items.
``--cahd-cpp PATH``
    github.com/Strafo/CAHD @ a9a8a4f527e8220a7d02436ef5ee74b081d38b7c, with its
    submodules fast-cpp-csv-parser @ 713c5fd2ba1b6d145296a21fc7f9dee576daaa4f
    and matplotlib-cpp @ f23347fca25219d1c42cbb91608b5556814bf572 (placed in
    the source directory as its ``.gitmodules`` says), built with
    ``g++ -O2 -std=c++14 -DWITHOUT_NUMPY`` (``mainCahd.cpp`` and its four
    ``.cpp`` files; not ``-DNDEBUG``: some of its ``assert`` calls do the work,
    e.g. inserting the padding columns, and it crashes without them); or the
    path of a built ``Cahd`` binary. Input: bms1
    as ``InvoiceNo,StockCode`` CSV, each record with one more item, its
    sensitive label ``S<i mod 10>`` (record position modulo 10, a fixed
    labelling as in ``release_hashes.py``), ``-s S0-S1-...-S9 -p L -a 3``.
    Ours: the same records and labels as long CSV (``tid,item,label``),
    ``-a cahd --param l=L --param alpha=3``. Their model (each sensitive
    item on at most 1/p of a group) on one label per record is distinct
    l-diversity with groups of p.
``--cahd-py PATH``
    github.com/LorenzoLaCorte/CAHD @ b687fba94841e78b7bdd32b94f0f325701e80c1b.
    Its ``Main.py`` reads a hard-coded file, loops over nine privacy levels
    and takes 2,000 random records; a driver written here runs its own
    classes once (``Dataframe(...).compute_band_matrix(final_dim=N,
    sensitive_num=10)``, ``AnonymizationCAHD(df, privacy_level=L,
    alfa=3)``, ``compute_hist``, ``CAHD_algorithm``) on the first
    ``--cahd-py-records`` records of bms1 (dense 0/1 CSV plus the 10 label
    columns, the format its ``Main.py`` reads), the whole process timed.
    Ours: ``-a cahd --param l=L`` on the same records and labels. Its
    algorithm returns no record groups (it moves histogram counts of the
    sensitive columns), so no audit is possible and the table says so.

Usage::

    python benchmarks/peers.py --partition /path/Partition_for_Transaction --aa /path/Apriori_based_Anonymization \\
        --mm /path/HKP_Coherence --cahd-cpp /path/CAHD --cahd-py /path/LorenzoLaCorte-CAHD \\
        --peer-python /path/venv/bin/python --markdown
    python benchmarks/peers.py --partition /path/... --quick     # one round, one parameter set per peer

Results: ``benchmarks/results/peers.json`` (``--no-save`` to skip) and, with
``--markdown``, the table of docs/performance.md ("Against the public
implementations").
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._child import ChildTimeout, measure_child  # noqa: E402
from benchmarks._common import child_env, compile_package, print_and_save  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402

#: the root name the public Partition and AA scripts require (they look ``'*'`` up by name)
PEER_ROOT = "*"
#: number of distinct sensitive labels given to bms1 records for the CAHD pairs
N_LABELS = 10


# --------------------------------------------------------------------------- input writers
def record_lists(data) -> list[list[str]]:
    """Each record's item labels, in item-id order (the CSR row of ``data``)."""
    m = data.matrix
    items = np.asarray(data.items, dtype=object)
    return [list(items[m.indices[m.indptr[i]:m.indptr[i + 1]]]) for i in range(data.n_records)]


def write_fimi_text(records, path) -> None:
    """FIMI ``.dat``: one record per line, items separated by one space."""
    Path(path).write_text("".join(" ".join(r) + "\n" for r in records))


def write_tab_long(records, path) -> None:
    """``tid<TAB>item`` lines (the BMS-WebView ``.dat`` layout the Partition/AA scripts read), tids from 1."""
    Path(path).write_text("".join(f"{t}\t{x}\n" for t, r in enumerate(records, start=1) for x in r))


def write_taxonomy_paths(taxonomy, path, *, root: str = PEER_ROOT) -> None:
    """One ``leaf;parent;...;root`` line per leaf, the root renamed ``root``.

    Both sides read this file: graphanon as ``--taxonomy`` (a path file), the
    Partition/AA scripts as ``data/treefile_BMS.txt``.
    """
    lines = []
    for leaf in taxonomy.leaves_under(taxonomy.root):
        chain = [leaf, *taxonomy.ancestors(leaf)]
        chain[-1] = root
        lines.append(";".join(chain) + "\n")
    Path(path).write_text("".join(lines))


def sensitive_labels(n_records: int, n_labels: int = N_LABELS) -> list[str]:
    """The fixed labelling of the CAHD pairs: record ``i`` gets ``S<i mod n_labels>``."""
    return [f"S{i % n_labels}" for i in range(n_records)]


def write_invoice_csv(records, labels, path) -> None:
    """``InvoiceNo,StockCode`` rows (the C++ CAHD's input), each record's label as one more item."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["InvoiceNo", "StockCode"])
        for t, (r, lab) in enumerate(zip(records, labels), start=1):
            w.writerows([t, x] for x in [*r, lab])


def write_labelled_long_csv(records, labels, path) -> None:
    """``tid,item,label`` rows: graphanon's long CSV with a sensitive-label column."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["tid", "item", "label"])
        for t, (r, lab) in enumerate(zip(records, labels), start=1):
            w.writerows([t, x, lab] for x in r)


def write_dense_csv(records, labels, items, path) -> list[str]:
    """Dense 0/1 CSV without header (the Python CAHD's input): item columns, then one per label.

    Returns the column names (the ``list_items`` file of that script).
    """
    label_names = sorted(set(labels), key=lambda s: int(s[1:]))
    columns = [*items, *label_names]
    col = {c: j for j, c in enumerate(columns)}
    dense = np.zeros((len(records), len(columns)), dtype=np.uint8)
    for i, (r, lab) in enumerate(zip(records, labels)):
        dense[i, [col[x] for x in r]] = 1
        dense[i, col[lab]] = 1
    np.savetxt(path, dense, fmt="%d", delimiter=",")
    return columns


# --------------------------------------------------------------------------- drivers for the check runs
#: Python 2 and 3 compatible; each prints one JSON line as its last line of output.
PARTITION_DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import partition_for_transaction as pft
from utils import read_data as rd
k = int(sys.argv[2])
try:
    tree = rd.read_tree(0)
except AttributeError:
    tree = rd.read_tree_file()
try:
    data = list(rd.read_data(0))
except TypeError:
    data = list(rd.read_data())
data = [list(set(r)) for r in data]
pft.partition(tree, data, k)
print(json.dumps({"groups": [[list(b.value), [list(m) for m in b.member]] for b in pft.RESULT]}))
"""

AA_DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from apriori_based_anon import apriori_based_anon
from utils.read_data import read_data, read_tree
k = int(sys.argv[2])
tree = read_tree(0)
data = [list(set(r)) for r in read_data(0)]
result, info = apriori_based_anon(tree, data, 'AA', k)
print(json.dumps({"cut": info[2], "m": 4}))
"""

MM_DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import utils, HKPCoherence
path, h, k, p, sigma = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
dataset, public, private = utils.prepare_data(path, sigma)
hkp = HKPCoherence.HKPCoherence(dataset, public, private, h, k, p, sigma)
hkp.execute_algorithm(check_verification=False)
# size-1 moles are dropped from the data before the greedy and are not in suppressed_items
size1 = [x for mole in (hkp.size1_moles or ()) for x in mole]
print(json.dumps({"public": [int(x) for x in public], "private": [int(x) for x in private],
                  "suppressed": sorted(int(x) for x in (hkp.suppressed_items or ())),
                  "size1_moles": sorted(int(x) for x in size1)}))
"""

CAHD_PY_DRIVER = r"""
import sys
sys.path.insert(0, sys.argv[1])
import Dataframe, AnonymizationCAHD
df = Dataframe.Dataframe(sys.argv[2])
df.compute_band_matrix(final_dim=int(sys.argv[4]), file_item_name=sys.argv[3], sensitive_num=int(sys.argv[6]))
cahd = AnonymizationCAHD.AnonymizationCAHD(df, privacy_level=int(sys.argv[5]), alfa=3)
cahd.compute_hist()
cahd.CAHD_algorithm()
"""


# --------------------------------------------------------------------------- running children
def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def run_child(argv, *, cwd=None, env=None, stdout_path=None, timeout: float = 0) -> dict:
    """Run one child to completion: wall seconds, user+system CPU, peak RSS (MiB) of that child alone.

    Measured from a minimal launcher (:func:`benchmarks._child.measure_child`):
    a child forked from this process would count this process's memory in its peak.
    """
    if stdout_path is None:
        return measure_child(argv, cwd=cwd, env=env, timeout=timeout)
    with open(stdout_path, "wb") as out:
        return measure_child(argv, cwd=cwd, env=env, stdout=out, timeout=timeout)


def summarize(runs: list[dict]) -> dict:
    walls = [r["wall_s"] for r in runs]
    peaks = [r["peak_mib"] for r in runs]
    return {
        "wall_best_s": round(min(walls), 3),
        "wall_median_s": round(statistics.median(walls), 3),
        "cpu_best_s": round(min(r["cpu_s"] for r in runs), 3),
        "peak_best_mib": round(min(peaks), 1),
        "peak_median_mib": round(statistics.median(peaks), 1),
        "walls_s": [round(w, 3) for w in walls],
    }


def pair_ratio(ours: dict, theirs: dict) -> dict:
    return {
        "wall_best": round(ours["wall_best_s"] / theirs["wall_best_s"], 3),
        "wall_median": round(ours["wall_median_s"] / theirs["wall_median_s"], 3),
        "peak_best": round(ours["peak_best_mib"] / theirs["peak_best_mib"], 3),
    }


def alternate(ours_argv, theirs_argv, rounds, *, ours_env, theirs_env, theirs_cwd, tmp, warmup=1,
              timeout: float = 0) -> dict:
    """``warmup`` untimed runs of each side, then ``rounds`` x (ours, theirs), each a fresh process.

    The warm-up fills the page cache and, for ours, numba's on-disk cache (a
    fresh checkout compiles its kernels once, in the first run only); the
    load average is taken around the timed runs. A peer run that does not
    finish in ``timeout`` seconds is killed and the pair reported as
    ``theirs: {"did_not_finish_s": timeout, ...}`` with the CPU time and peak
    it had used (ours is still measured).
    """
    before = load_avg()
    try:
        for _ in range(warmup):
            run_child(theirs_argv, env=theirs_env, cwd=theirs_cwd, timeout=timeout,
                      stdout_path=os.path.join(tmp, "peer_warmup.txt"))
    except ChildTimeout as stop:
        ours = [run_child(ours_argv, env=ours_env, cwd=tmp) for _ in range(warmup + rounds)][warmup:]
        killed = {"did_not_finish_s": timeout, "cpu_s_when_killed": round(stop.stats["cpu_s"], 2),
                  "peak_mib_when_killed": round(stop.stats["peak_mib"], 1)}
        return {"ours": summarize(ours), "theirs": killed, "ratio": None,
                "load_before": before, "load_after": load_avg()}
    for _ in range(warmup):
        run_child(ours_argv, env=ours_env, cwd=tmp)
    before = load_avg()
    ours, theirs = [], []
    for r in range(rounds):
        ours.append(run_child(ours_argv, env=ours_env, cwd=tmp))
        theirs.append(run_child(theirs_argv, env=theirs_env, cwd=theirs_cwd, timeout=timeout,
                                stdout_path=os.path.join(tmp, f"peer_stdout_{r}.txt")))
    o, t = summarize(ours), summarize(theirs)
    return {"ours": o, "theirs": t, "ratio": pair_ratio(o, t), "load_before": before, "load_after": load_avg()}


def last_json_line(path) -> dict:
    lines = [ln for ln in Path(path).read_text().splitlines() if ln.startswith("{")]
    return json.loads(lines[-1])


def python2(explicit: str | None) -> str:
    if explicit:
        return explicit
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/python")))
    if not found:
        raise SystemExit("a Python 2 script was given and no Python 2 found: pass --python2 PATH")
    return found[-1]


def is_python2_source(path: Path) -> bool:
    try:
        compile(path.read_text(), str(path), "exec")
    except SyntaxError:
        return True
    return False


def build_cahd_cpp(src: Path, out_dir: Path) -> Path:
    """The path of a ``Cahd`` binary: ``src`` itself if executable, else compiled from ``src``."""
    if src.is_file() and os.access(src, os.X_OK):
        return src
    include = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    pyver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if Path(f"/usr/include/{pyver}/Python.h").exists():
        include = f"/usr/include/{pyver}"
    binary = out_dir / "Cahd"
    sources = [str(src / f) for f in ("mainCahd.cpp", "TransactionsTable.cpp", "Cahd.cpp", "Histogram.cpp",
                                      "TransactionGroup.cpp")]
    argv = ["g++", "-O2", "-std=c++14", "-DWITHOUT_NUMPY", f"-I{src}", "-I/usr/include/eigen3",
            f"-I{include}", *sources, "-o", str(binary), "-lboost_program_options", f"-l{pyver}", "-lpthread"]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"building the C++ CAHD failed:\n{done.stderr[-2000:]}")
    return binary


# --------------------------------------------------------------------------- checks of the peers' results
def check_partition_groups(data, taxonomy, groups, k) -> dict:
    """Audit the Partition script's groups: transactional k-anonymity by graphanon's auditor.

    Every member is published as its group's node set (the paper's reading);
    the groups must cover the original records exactly once.
    """
    from graphanon.privacy import TransactionalKAnonymity
    from graphanon.release.local_recoding import LocalRecoding, PublishedNode

    names = sorted({x for value, _ in groups for x in value})
    col = {x: j for j, x in enumerate(names)}
    rows, cols = [], []
    r = 0
    members_seen = []
    for value, members in groups:
        for rec in members:
            rows.extend([r] * len(value))
            cols.extend(col[x] for x in value)
            members_seen.append(tuple(sorted(rec)))
            r += 1
    import scipy.sparse as sp

    records = sp.csr_array((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(r, len(names)))
    tax_root = taxonomy.root

    def leaves(x):
        return tuple(taxonomy.leaves_under(tax_root if x == PEER_ROOT else x))

    nodes = [PublishedNode(x, leaves(x), len(leaves(x))) for x in names]
    rel = LocalRecoding(nodes=nodes, records=records, universe=taxonomy.leaf_count(tax_root),
                        algorithm="peer-partition")
    originals = sorted(tuple(sorted(rec)) for rec in record_lists(data))
    report = TransactionalKAnonymity(k).audit(data, rel)
    return {"groups": len(groups), "smallest_group": min(len(m) for _, m in groups),
            "records_match_input": sorted(members_seen) == originals,
            "audit": "transactional", "satisfied": bool(report.satisfied)}


def check_aa_cut(data, taxonomy, cut, k, m) -> dict:
    """Audit the AA script's cut (item -> generalized node) as a global recoding: k^m by graphanon's auditor."""
    from graphanon.privacy import KmAnonymity
    from graphanon.release.global_recoding import GlobalRecoding

    mapping = {x: cut.get(x, x) for x in data.items}
    published = set(mapping.values())
    leaves = {x: taxonomy.leaf_count(taxonomy.root if x == PEER_ROOT else x) for x in published}
    rel = GlobalRecoding.from_mapping(data, mapping, leaves=leaves, universe=taxonomy.leaf_count(taxonomy.root),
                                      algorithm="peer-aa")
    report = KmAnonymity(k, m).audit(data, rel)
    return {"generalized_items": sum(1 for x, t in mapping.items() if t != x), "published_items": len(published),
            "audit": f"k^m k={k} m={m}", "satisfied": bool(report.satisfied)}


def check_mm_suppression(data, private, suppressed, h, k, p) -> dict:
    """Audit the MM script's suppressed items: (h, k, p)-coherence by graphanon's auditor."""
    from graphanon.privacy import HKPCoherence
    from graphanon.release.global_recoding import GlobalRecoding

    gone = {str(x) for x in suppressed}
    rel = GlobalRecoding.from_mapping(data, {x: None if x in gone else x for x in data.items}, algorithm="peer-mm")
    report = HKPCoherence(h, k, p, [str(x) for x in private]).audit(data, rel)
    return {"suppressed_items": len(gone), "audit": f"hkp h={h} k={k} p={p}", "satisfied": bool(report.satisfied)}


def check_cahd_cpp_output(path, labels, p) -> dict:
    """Read the C++ CAHD's output: published records, and groups as runs of equal published sensitive sets.

    A group is a maximal run of consecutive records with the same published
    sensitive items; within it, each record's true label (by its invoice
    number) may appear on at most ``size / p`` records (the CAHD condition).
    """
    per_tid: dict[int, set] = {}
    order: list[int] = []
    with open(path) as fh:
        next(fh)
        for line in fh:
            tid, item = line.rstrip("\n").split(",", 1)
            t = int(tid)
            if t not in per_tid:
                per_tid[t] = set()
                order.append(t)
            if item.startswith("S") and item[1:].isdigit():
                per_tid[t].add(item)
    runs, current, key = [], [], None
    for t in order:
        s = frozenset(per_tid[t])
        if s != key and current:
            runs.append(current)
            current = []
        key = s
        current.append(t)
    if current:
        runs.append(current)
    worst_ok = all(
        max(np.unique([labels[t - 1] for t in run], return_counts=True)[1]) * p <= len(run) for run in runs
    )
    return {"published_records": len(order), "groups": len(runs), "smallest_group": min(map(len, runs)),
            "audit": f"each label on <= 1/{p} of a group (groups read as runs)", "satisfied": bool(worst_ok)}


def check_ours(ours_base, release, audit_args, env, cwd) -> dict:
    """Audit our release with the CLI and read its group / suppression counts."""
    done = subprocess.run([*ours_base, "audit", *audit_args[0], release, *audit_args[1], "--json"],
                          capture_output=True, text=True, env=env, cwd=cwd)
    try:
        rep = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"audit of our release failed: {done.stderr[-500:]}") from None
    doc = json.loads(Path(release).read_text())
    params = doc.get("params", {})
    out = {"audit": " ".join(audit_args[1]), "satisfied": bool(rep["satisfied"])}
    for key in ("groups", "n_groups", "suppressed", "n_suppressed", "smallest_group"):
        if key in params:
            out[key] = params[key]
    if "n_suppressed" in doc:
        out["n_suppressed"] = doc["n_suppressed"]
    return out


# --------------------------------------------------------------------------- main
def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--partition", type=Path)
    ap.add_argument("--aa", type=Path)
    ap.add_argument("--mm", type=Path)
    ap.add_argument("--cahd-cpp", type=Path)
    ap.add_argument("--cahd-py", type=Path)
    ap.add_argument("--python2", help="Python 2 interpreter for the Python 2 scripts")
    ap.add_argument("--peer-python", default=sys.executable,
                    help="Python 3 interpreter for the Python 3 scripts (needs their packages)")
    ap.add_argument("--rounds", type=int, default=3, help="alternations per pair (default 3)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs of each side before a pair (default 1)")
    ap.add_argument("--peer-timeout", type=float, default=600,
                    help="seconds after which a peer run is killed and reported as not finished (default 600)")
    ap.add_argument("--cahd-cpp-records", type=int, default=1000,
                    help="records for the C++ CAHD pair (default 1000: it pads bms1 to a square matrix)")
    ap.add_argument("--cahd-py-records", type=int, default=2000,
                    help="records for the Python CAHD pair (its Main.py's size: 2000)")
    ap.add_argument("--quick", action="store_true", help="one round, one parameter set per peer")
    ap.add_argument("--markdown", action="store_true", help="also print the markdown table")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--table", type=Path, help="only print the markdown table of an earlier results file")
    args = ap.parse_args(argv)
    if args.table:
        doc = json.loads(args.table.read_text())
        print(markdown_table(doc))
        return doc
    rounds = 1 if args.quick else args.rounds
    warmup = args.warmup
    ks = [10] if args.quick else [5, 10]
    ls = [4] if args.quick else [4, 8]

    data = load("bms1")
    taxonomy = Taxonomy.balanced(data.items, 5)
    records = record_lists(data)
    env = child_env(PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    bytecode = compile_package()
    ours_base = [sys.executable, "-m", "graphanon"]
    pairs = []
    with tempfile.TemporaryDirectory(prefix="graphanon-peers-") as tmp:
        tmpd = Path(tmp)
        fimi = tmpd / "bms1.dat"
        write_fimi_text(records, fimi)
        tax = tmpd / "taxonomy.txt"
        write_taxonomy_paths(taxonomy, tax)
        peer_dir = tmpd / "peer"  # cwd of the Partition/AA scripts
        (peer_dir / "data").mkdir(parents=True)
        write_tab_long(records, peer_dir / "data" / "BMS-WebView-2.dat")
        (peer_dir / "data" / "treefile_BMS.txt").write_text(tax.read_text())
        release = str(tmpd / "ours.json")
        taxo_run = ["--taxonomy", str(tax)]
        input_run = [str(fimi), "--format", "fimi"]

        def driver_run(interp, code, name, extra, *, cwd, penv=None):
            script = tmpd / f"driver_{name}.py"
            script.write_text(code)
            out = tmpd / f"driver_{name}.out"
            run_child([interp, str(script), *map(str, extra)], cwd=cwd, env=penv, stdout_path=out)
            return out

        for name, path in (("partition", args.partition), ("aa", args.aa)):
            if path is None:
                continue
            script = path / "anonymizer.py"
            py2 = is_python2_source(script)
            interp = python2(args.python2) if py2 else args.peer_python
            for k in ks:
                if name == "partition":
                    theirs = [interp, str(script), *(["b", str(k)] if py2 else [str(k)])]
                    ours = [*ours_base, "anonymize", *input_run, "-a", "partition", "-k", str(k), *taxo_run,
                            "-o", release]
                    check = check_partition_groups(
                        data, taxonomy,
                        last_json_line(driver_run(interp, PARTITION_DRIVER, "partition", [path, k], cwd=peer_dir))
                        ["groups"], k)
                    audit = ([*input_run[:1]], ["--model", "transactional", "-k", str(k)])
                    label = f"Partition k={k}"
                else:
                    theirs = [interp, str(script), "AA", "b", str(k)]
                    ours = [*ours_base, "anonymize", *input_run, "-a", "aa", "-k", str(k), "-m", "4", *taxo_run,
                            "-o", release]
                    cut = last_json_line(driver_run(interp, AA_DRIVER, "aa", [path, k], cwd=peer_dir))["cut"]
                    check = check_aa_cut(data, taxonomy, cut, k, 4)
                    audit = ([*input_run[:1]], ["--model", "km", "-k", str(k), "-m", "4"])
                    label = f"AA k={k} m=4"
                res = alternate(ours, theirs, rounds, warmup=warmup, timeout=args.peer_timeout, ours_env=env, theirs_env=child_env(), theirs_cwd=peer_dir, tmp=tmp)
                res.update(pair=label, peer=str(path), peer_interpreter=interp, theirs_check=check,
                           ours_check=check_ours(ours_base, release, audit, env, tmp))
                pairs.append(res)
                print(json.dumps({label: res["ratio"], "load": res["load_after"]}), file=sys.stderr)

        if args.mm is not None:
            h, k, p, sigma = 0.4, 5, 3, 0.15
            menv = child_env(PYTHONHASHSEED="0")
            split = last_json_line(driver_run(args.peer_python, MM_DRIVER, "mm",
                                              [args.mm, fimi, h, k, p, sigma], cwd=args.mm, penv=menv))
            check = check_mm_suppression(data, split["private"], split["suppressed"] + split["size1_moles"], h, k, p)
            check["size1_moles"] = len(split["size1_moles"])
            private = ",".join(str(x) for x in split["private"])
            theirs = [args.peer_python, str(args.mm / "run_hkp.py"), "--h-value", str(h), "--k-value", str(k),
                      "--p-value", str(p), "--sigma", str(sigma), "--data-path", str(fimi), "--no-verification"]
            ours = [*ours_base, "anonymize", *input_run, "-a", "mm", "-k", str(k), "-m", str(p),
                    "--param", f"h={h}", "--param", f"private={private}", "-o", release]
            res = alternate(ours, theirs, rounds, warmup=warmup, timeout=args.peer_timeout, ours_env=env, theirs_env=menv, theirs_cwd=args.mm, tmp=tmp)
            audit = ([*input_run[:1]], ["--model", "hkp", "-k", str(k), "-m", str(p), "--param", f"h={h}",
                                        "--param", f"private={private}"])
            label = f"MM k={k} p={p} h={h}"
            res.update(pair=label, peer=str(args.mm), peer_interpreter=args.peer_python,
                       public_items=len(split["public"]), theirs_check=check,
                       ours_check=check_ours(ours_base, release, audit, env, tmp))
            pairs.append(res)
            print(json.dumps({label: res["ratio"], "load": res["load_after"]}), file=sys.stderr)

        labels = sensitive_labels(data.n_records)
        if args.cahd_cpp is not None:
            binary = build_cahd_cpp(args.cahd_cpp, tmpd)
            n = args.cahd_cpp_records
            inv = tmpd / "bms1_invoices.csv"
            write_invoice_csv(records[:n], labels[:n], inv)
            lcsv = tmpd / f"bms1_labelled_cpp_{n}.csv"
            write_labelled_long_csv(records[:n], labels[:n], lcsv)
            sens = "-".join(f"S{i}" for i in range(N_LABELS))
            for lv in ls:
                out_csv = tmpd / "cahd_out.csv"
                theirs = [str(binary), "-i", str(inv), "-o", str(out_csv), "-p", str(lv), "-a", "3", "-s", sens]
                ours = [*ours_base, "anonymize", str(lcsv), "--label", "label", "-a", "cahd", "--param", f"l={lv}",
                        "--param", "alpha=3", "-o", release]
                res = alternate(ours, theirs, rounds, warmup=warmup, timeout=args.peer_timeout, ours_env=env, theirs_env=child_env(), theirs_cwd=tmp, tmp=tmp)
                check = (check_cahd_cpp_output(out_csv, labels, lv) if res["ratio"] is not None
                         else {"audit": f"none: did not finish in {args.peer_timeout:g} s", "satisfied": None})
                audit = ([str(lcsv), "--label", "label"], ["--model", "ldiversity", "--param", f"l={lv}"])
                label = f"CAHD (C++) l=p={lv}, {n} records"
                res.update(pair=label, peer=str(args.cahd_cpp), theirs_check=check,
                           ours_check=check_ours(ours_base, release, audit, env, tmp))
                pairs.append(res)
                print(json.dumps({label: res["ratio"], "load": res["load_after"]}), file=sys.stderr)

        if args.cahd_py is not None:
            n = args.cahd_py_records
            dense = tmpd / "bms1_dense.csv"
            columns = write_dense_csv(records[:n], labels[:n], list(data.items), dense)
            items_file = tmpd / "bms1_items.txt"
            items_file.write_text("\n".join(columns) + "\n")
            lcsv_n = tmpd / f"bms1_labelled_{n}.csv"
            write_labelled_long_csv(records[:n], labels[:n], lcsv_n)
            script = tmpd / "driver_cahd_py.py"
            script.write_text(CAHD_PY_DRIVER)
            for lv in ls:
                theirs = [args.peer_python, str(script), str(args.cahd_py), str(dense), str(items_file), str(n),
                          str(lv), str(N_LABELS)]
                ours = [*ours_base, "anonymize", str(lcsv_n), "--label", "label", "-a", "cahd", "--param",
                        f"l={lv}", "--param", "alpha=3", "-o", release]
                penv = child_env(MPLBACKEND="Agg")
                res = alternate(ours, theirs, rounds, warmup=warmup, timeout=args.peer_timeout, ours_env=env, theirs_env=penv, theirs_cwd=tmp, tmp=tmp)
                audit = ([str(lcsv_n), "--label", "label"], ["--model", "ldiversity", "--param", f"l={lv}"])
                label = f"CAHD (Python) l=p={lv}, {n} records"
                res.update(pair=label, peer=str(args.cahd_py), peer_interpreter=args.peer_python,
                           theirs_check={"audit": "none: the script forms no record groups", "satisfied": None},
                           ours_check=check_ours(ours_base, release, audit, env, tmp))
                pairs.append(res)
                print(json.dumps({label: res["ratio"], "load": res["load_after"]}), file=sys.stderr)

    doc = {
        "benchmark": "peers",
        "dataset": "bms1 (59,602 records, 497 items); taxonomy balanced fan-out 5 (root '*'), one file for both",
        "rounds": rounds,
        "warmup": warmup,
        "quick": args.quick,
        "nproc": os.cpu_count(),
        "python": sys.version.split()[0],
        "bytecode": bytecode + "; every child runs without PYTHONDONTWRITEBYTECODE (the warm-up writes the peers' bytecode)",
        "pairs": pairs,
    }
    print_and_save(doc, "peers", save=not args.no_save)
    if args.markdown:
        print(markdown_table(doc))
    return doc


def markdown_table(doc: dict) -> str:
    """The paired table: best and median wall, best peak, ratios, the load around each pair, both checks."""

    def chk(c):
        if c.get("satisfied") is None:
            return c["audit"]
        extra = ", ".join(f"{key} {c[key]}" for key in ("groups", "n_groups", "smallest_group", "suppressed_items",
                                                         "n_suppressed", "generalized_items") if key in c)
        return ("ok" if c["satisfied"] else "VIOLATED") + (f" ({extra})" if extra else "")

    head = ("| pair | ours wall best / median (s) | theirs wall best / median (s) | ours / theirs wall | "
            "CPU best ours / theirs (s) | ours peak (MiB) | theirs peak (MiB) | ours / theirs peak | load | "
            "ours audit | theirs audit |")
    rows = [head, "|" + "---|" * 11]
    for p in doc["pairs"]:
        o, t, r = p["ours"], p["theirs"], p["ratio"]
        if r is None:
            rows.append(
                f"| {p['pair']} | {o['wall_best_s']:.2f} / {o['wall_median_s']:.2f} | did not finish in "
                f"{t['did_not_finish_s']:g} s | - | {o['cpu_best_s']:.2f} / > {t.get('cpu_s_when_killed', 0):.1f} | {o['peak_best_mib']:.0f} | - | - | "
                f"{p['load_before']}-{p['load_after']} | {chk(p['ours_check'])} | {chk(p['theirs_check'])} |"
            )
            continue
        rows.append(
            f"| {p['pair']} | {o['wall_best_s']:.2f} / {o['wall_median_s']:.2f} | "
            f"{t['wall_best_s']:.2f} / {t['wall_median_s']:.2f} | {r['wall_best']:.3f}x | "
            f"{o['cpu_best_s']:.2f} / {t['cpu_best_s']:.2f} | "
            f"{o['peak_best_mib']:.0f} | {t['peak_best_mib']:.0f} | {r['peak_best']:.2f}x | "
            f"{p['load_before']}-{p['load_after']} | {chk(p['ours_check'])} | {chk(p['theirs_check'])} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
