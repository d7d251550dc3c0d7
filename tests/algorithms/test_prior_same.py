"""``--prior`` on identical data, end to end: the composed release is written and audits jointly with 0 pinned.

``nr --param l=L`` draws its label groups in secret, anew on every run, so a
second independent release of the same data pins labels; ``--prior`` reuses
the prior's rows, labels and groups, and the joint audit reads the pair as
one release (:mod:`graphanon.privacy.joint_same`). Small generated patients
(``tests/patients.py``) keep the CLI runs short.
"""

from __future__ import annotations

import json

import pytest

from graphanon.privacy.joint_same import alike_releases
from graphanon.readwrite.long_csv import write_long_csv
from graphanon.release import load_release

from ..patients import patients


@pytest.fixture
def data_csv(tmp_path):
    path = tmp_path / "p.csv"
    write_long_csv(patients(60, 40, seed=0), path)
    return path


METHODS = {
    "nr-random": ["-a", "nr", "-k", "3", "--param", "l=3"],
    "nr-order": ["-a", "nr", "-k", "3", "--param", "l=3", "--param", "grouping=order", "--seed", "1"],
    "cahd": ["-a", "cahd", "--param", "l=3"],
}
AGAIN = {"nr-random": ["-a", "nr", "-k", "3", "--param", "l=3"], "nr-order": ["-a", "nr", "-k", "3", "--param", "l=3"],
         "cahd": ["-a", "cahd", "--param", "l=3"]}


@pytest.mark.parametrize("how", list(METHODS))
def test_cli_prior_on_identical_data_is_written_and_audits_jointly(run, data_csv, how):
    first = run("anonymize", data_csv, "--label", "label", *METHODS[how], "-o", "r1.json", "--link-out", "l1.json")
    assert first.exit_code == 0, first.output
    # the reminder goes with secret groups only, and names the files to give
    # secret groups (nr's and cahd's default) differ on every run: the first release reminds of --prior
    assert ("--prior r1.json --prior-link l1.json" in " ".join(first.output.split())) == (how != "nr-order")
    again = run("anonymize", data_csv, "--label", "label", *AGAIN[how], "--prior", "r1.json", "--prior-link", "l1.json",
                "-o", "r2.json", "--link-out", "l2.json")
    assert again.exit_code == 0, again.output
    assert "publishing this data again" not in again.output
    for model in (["--model", "ldiversity", "--param", "l=3"], ["--model", "nonreciprocal", "-k", "3"]):
        res = run("audit", data_csv, "r1.json", "r2.json", "--link", "l1.json", "--link", "l2.json", "--label", "label",
                  *model, "--json")
        assert res.exit_code == 0, res.output
        doc = json.loads(res.output)
        assert doc["satisfied"], doc
        assert doc["details"]["pinned_records"] == 0 and doc["details"]["distinct_releases"] == 1
        assert doc["details"]["exact"]


def test_cli_independent_secret_groups_are_not_read_as_one(run, data_csv, tmp_path):
    """Two runs of the same command with secret groups: other groups, so the joint audit reads both."""
    for out in ("r1", "r2"):
        res = run("anonymize", data_csv, "--label", "label", *METHODS["nr-random"], "-o", f"{out}.json",
                  "--link-out", f"{out}.link.json")
        assert res.exit_code == 0, res.output
    first, second = load_release(tmp_path / "r1.json"), load_release(tmp_path / "r2.json")
    assert alike_releases([first, second]).tolist() == [0, 1]
