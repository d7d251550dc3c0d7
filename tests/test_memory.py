"""The memory budget: parsing, the guards, and a clear error instead of a kill."""

import os
import resource
import subprocess
import sys

import numpy as np
import pytest

from graphanon import get_max_memory, max_memory, set_max_memory
from graphanon.algorithms import anonymize_hghs, anonymize_mhghs, anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal import members_matrix
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import MemoryBudgetError, ParameterError
from graphanon.release.bit_voting import bit_vote
from graphanon.utils.memory import cost_blocks, parse_memory


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


def test_bit_vote_blocks_match_one_shot(monkeypatch):
    import graphanon.release.bit_voting as nr_release

    data = load("chess").subset(np.arange(300))
    n = data.n_records
    members = members_matrix(np.array([np.roll(np.arange(n), s) for s in range(20)]), n)
    whole = bit_vote(data.matrix, members)
    monkeypatch.setattr(nr_release, "cost_blocks", lambda costs, limit: cost_blocks(costs, 997))
    blocked = bit_vote(data.matrix, members)
    assert (whole[0] != blocked[0]).nnz == 0 and (whole[1] != blocked[1]).nnz == 0
    assert (whole[2] == blocked[2]).all() and whole[2].max() > 0


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
    from click.testing import CliRunner

    from graphanon.cli import main

    runner = CliRunner()
    res = runner.invoke(main, ["--max-memory", "1M", "anonymize", "liuwang_fig1", "-a", "hghs", "-k", "2",
                               "-o", str(tmp_path / "r.json")])
    assert res.exit_code == 2 and "bound the attacker knowledge" in res.output
    res = runner.invoke(main, ["--max-memory", "lots", "datasets"])
    assert res.exit_code == 2 and "--max-memory" in res.output
