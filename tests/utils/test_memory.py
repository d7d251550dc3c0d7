"""The memory budget: parsing, the guards, and a clear error instead of a kill."""

import os
import resource
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon import get_max_memory, max_memory, set_max_memory
from graphanon.algorithms import anonymize_hghs, anonymize_mhghs, anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal import members_matrix
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import MemoryBudgetError, ParameterError
from graphanon.release.bit_voting import bit_vote
from graphanon.utils.memory import cost_blocks, parse_memory
from tests.conftest import cli


@pytest.fixture(autouse=True)
def default_budget():
    yield
    set_max_memory(None)


def test_parse_and_set():
    assert parse_memory("4G") == 4 * 1024**3 and parse_memory("500m") == 500 * 1024**2
    assert parse_memory("2GB") == parse_memory("2GiB") == 2 * 1024**3
    assert 0 < parse_memory("50%") < parse_memory("100%")
    for bad in ("", "4X", "-1G", "0", True, "G"):
        with pytest.raises(ParameterError, match="max memory"):
            parse_memory(bad)
    default = get_max_memory()
    with max_memory("3G"):
        assert get_max_memory() == 3 * 1024**3
    assert get_max_memory() == default
    assert set_max_memory("1G") is None and set_max_memory(None) == 1024**3


def test_environment_variable(monkeypatch):
    monkeypatch.setenv("GRAPHANON_MAX_MEMORY", "123M")
    assert get_max_memory() == 123 * 1024**2


def test_cost_blocks_cover_everything_once():
    rng = np.random.default_rng(0)
    costs = rng.integers(0, 50, size=200)
    blocks = cost_blocks(costs, 100)
    assert blocks[0][0] == 0 and blocks[-1][1] == 200
    assert all(a < b for a, b in blocks) and all(b1 == a2 for (_, b1), (a2, _) in zip(blocks, blocks[1:]))
    assert all(costs[a:b].sum() <= 100 or b - a == 1 for a, b in blocks)


def test_hghs_unbounded_m_stops_with_a_clear_error():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    with max_memory("1M"), pytest.raises(MemoryBudgetError) as info:
        anonymize_hghs(data, taxonomy=tax, k=2, m=None)
    msg = str(info.value)
    assert "hghs threat mining (k=2, m=inf)" in msg and "CLI: -m 1" in msg and "mhghs" in msg
    assert "--max-memory" in msg
    with max_memory("1M"), pytest.raises(MemoryBudgetError, match="mhghs threat mining"):
        anonymize_mhghs(data, taxonomy=tax, k=2, m=None)
    # the same call within the budget gives the golden result
    assert anonymize_hghs(data, taxonomy=tax, k=2, m=None).trace.cut == ("P", "f", "g", "M", "e", "i")


def test_hghs_pair_threats_near_the_walk_stop_with_a_clear_error():
    """k^2 mines its threats during the walk (no level-wise search to check): its growth is checked too."""
    data, tax = load("groceries"), load_taxonomy("groceries")
    with max_memory("1M"), pytest.raises(MemoryBudgetError) as info:
        anonymize_hghs(data, taxonomy=tax, k=5, m=2)
    msg = str(info.value)
    assert "hghs threat mining near the walk (k=5, m=2)" in msg and "CLI: -m 1" in msg and "mhghs" in msg
    assert "--max-memory" in msg
    with max_memory("1M"), pytest.raises(MemoryBudgetError, match="mhghs threat mining near the walk"):
        anonymize_mhghs(data, taxonomy=tax, k=5, m=2)


def test_nr_refuses_k_it_cannot_hold():
    data = load("chess")
    with max_memory("1M"), pytest.raises(MemoryBudgetError, match=r"lower k \(CLI: -k\)"):
        anonymize_nonreciprocal(data, k=data.n_records, order="identity", rng=0)


def test_nr_with_k_equal_to_n_publishes_the_common_vote():
    data = load("nr_table1")
    n = data.n_records
    rel = anonymize_nonreciprocal(data, k=n, order="identity", rng=0)
    # every record is a preimage of every published record: all rows carry the same vote
    assert len({rel.bitmap_strings(i)[0] for i in range(n)}) == 1


def _bit_vote_by_definition(X: np.ndarray, members: np.ndarray):
    """Base, distance and threshold of every published record from dense arrays, one record at a time."""
    base, dist, thr = [], [], []
    for row in members:
        pre = np.flatnonzero(row)
        votes = X[pre].sum(axis=0)
        b = 2 * votes > len(pre)
        base.append(b)
        dist.append(X[pre].any(axis=0) & ~X[pre].all(axis=0))
        thr.append(int((X[pre] != b).sum(axis=1).max()))
    return np.array(base), np.array(dist), np.array(thr)


@pytest.mark.parametrize("shifts", [1, 2, 20, 300])
def test_bit_vote_is_its_definition_on_packed_words(shifts):
    """The packed bit vote (no members @ X product, no gathered rows) equals the per-record definition.

    chess has 75 items: two words a record, the second one partly padding. With 300 shifts
    every record is a preimage of every published record (k = n); a preimage stored twice counts once.
    """
    data = load("chess").subset(np.arange(300))
    n = data.n_records
    X = data.matrix.toarray().astype(bool)
    members = members_matrix(np.array([np.roll(np.arange(n), s) for s in range(shifts)]), n)
    if shifts == 2:  # published record j: preimages j, j + 1 and j again (stored twice, it counts once)
        pre = np.stack([np.arange(n), (np.arange(n) + 1) % n, np.arange(n)], axis=1)
        members = sp.csr_array((np.ones(3 * n, dtype=np.int8), pre.ravel(), np.arange(0, 3 * n + 1, 3)), shape=(n, n))
    base, dist, thr = bit_vote(data.matrix, members)
    dense = np.zeros((n, n), dtype=np.int64)
    np.add.at(dense, (np.repeat(np.arange(n), np.diff(members.indptr)), members.indices), 1)
    want = _bit_vote_by_definition(X, dense)
    assert np.array_equal(base.toarray(), want[0]) and np.array_equal(dist.toarray(), want[1])
    assert np.array_equal(thr, want[2]) and (thr.max() > 0) == (shifts > 1)
    assert base.has_sorted_indices and dist.has_sorted_indices


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS semantics")
def test_cli_under_an_address_space_limit_exits_2_not_killed(tmp_path):
    """hghs -m inf on chess blows up exponentially; under a 3 GB limit it must stop cleanly."""
    limit = 3 * 10**9

    def preexec():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    out = tmp_path / "r.json"
    env = {k: v for k, v in os.environ.items() if k != "GRAPHANON_MAX_MEMORY"}
    res = subprocess.run(
        [sys.executable, "-m", "graphanon.cli", "anonymize", "chess", "-a", "hghs", "-k", "2", "-m", "inf",
         "--taxonomy", "balanced:5", "-o", str(out)],
        capture_output=True, text=True, preexec_fn=preexec, timeout=300, env=env,
    )
    assert res.returncode == 2, res.stderr[-2000:]
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert "bound the attacker knowledge" in lines[0] and "-a mhghs" in lines[0] and not out.exists()


def test_cli_max_memory_option(tmp_path):

    res = cli("--max-memory", "1M", "anonymize", "liuwang_fig1", "-a", "hghs", "-k", "2", "-o", tmp_path / "r.json")
    assert res.exit_code == 2 and "bound the attacker knowledge" in res.output
    res = cli("--max-memory", "lots", "datasets")
    assert res.exit_code == 2 and "--max-memory" in res.output


def test_release_free_memory_hands_back_freed_heap_pages():
    """On glibc, freed heap memory leaves the resident set after release_free_memory (elsewhere: False)."""
    import platform

    from graphanon.utils.memory import release_free_memory

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        assert release_free_memory() is False
        return

    def rss_kib():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))

    # many small blocks (under the mmap threshold: on the heap), then all but the last freed
    blocks = [np.ones(4096, dtype=np.uint8) for _ in range(20_000)]
    keep = blocks[-1]
    del blocks
    before = rss_kib()
    assert release_free_memory() is True
    assert rss_kib() < before - 40_000  # most of the ~80 MiB freed below the kept block
    assert keep.sum() == 4096
