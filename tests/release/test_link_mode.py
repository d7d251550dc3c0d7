"""Private link files are written with mode 0600 (issue 20): owner read/write only, whatever the umask,
for the record -> row link of every release kind, the split link of SplitPerson, and the CLI's --link-out."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.cli.registry import RunOptions, get_algorithm
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.readwrite.files import atomic_write
from graphanon.release import load_link, load_split_link


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask():
    """A permissive umask (0o000), under which an ordinary file would be 0666."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_atomic_write_private_and_public_modes(tmp_path, open_umask):
    atomic_write(tmp_path / "public.json", "{}")
    atomic_write(tmp_path / "private.json", "{}", private=True)
    assert _mode(tmp_path / "public.json") == 0o666  # the usual mode under this umask
    assert _mode(tmp_path / "private.json") == 0o600
    # overwriting a world-readable file makes it private too (the temp file replaces it)
    atomic_write(tmp_path / "public.json", "{}", private=True)
    assert _mode(tmp_path / "public.json") == 0o600


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_release_link_file_is_0600(tmp_path, open_umask, suffix):
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, k=2, order="gray")
    rel.save(tmp_path / f"release{suffix}")
    rel.link.save(tmp_path / f"link{suffix}")
    assert _mode(tmp_path / f"link{suffix}") == 0o600
    assert _mode(tmp_path / f"release{suffix}") == 0o666  # the release itself is meant to be shared
    assert np.array_equal(load_link(tmp_path / f"link{suffix}").row_of_record, rel.link.row_of_record)


def test_split_link_file_is_0600(tmp_path, open_umask):
    rng = np.random.default_rng(0)
    items = [f"x{j}" for j in range(12)]
    data = from_iterable([sorted({x for x in items if rng.random() < 0.4} or {"x0"}) for _ in range(40)])
    rel = get_algorithm("splitperson").run(data, RunOptions(params={"categories": "random:3"}))
    rel.link.save(tmp_path / "split.json")
    assert _mode(tmp_path / "split.json") == 0o600
    assert np.array_equal(load_split_link(tmp_path / "split.json").record_of_row, rel.link.record_of_row)


def test_cli_link_out_is_0600(tmp_path, run, open_umask):
    res = run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o", "r.json", "--link-out", "PRIVATE-link.json")
    assert res.exit_code == 0, res.output
    assert _mode(tmp_path / "PRIVATE-link.json") == 0o600
    assert _mode(tmp_path / "r.json") == 0o666
