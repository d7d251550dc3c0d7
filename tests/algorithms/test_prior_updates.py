"""``priors=`` / ``--prior`` for data that grew: the prior's rows for its records, a release of the
added records alone for them, checked by the joint audit of releases of changing data."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.joint import JointAudit

from ..ebook_sessions import ebook_sessions

#: The first release's sessions and the grown data's (the first OLD and ADDED more). The exact joint audit's cost
#: grows fast with the records (CP-SAT rounds of up to 2 s wall each): 300 + 100 took minutes on the loaded CI
#: machine; 90 + 30 still pins records (35 with cahd, 49 with nr) without a prior and none with it.
OLD, ADDED = 90, 30


@pytest.fixture(scope="module")
def grown():
    """OLD sessions, then the same OLD and ADDED more (one record id per person)."""
    full = ebook_sessions(OLD + ADDED, 80, seed=2).drop_unused_items()
    return full.subset(np.arange(OLD)).drop_unused_items(), full


def _rows(release, rows):
    return Counter((release.render_record(int(j)), str(release.labels[j])) for j in rows)


@pytest.mark.parametrize("method", ["cahd", "nr"])
def test_independent_update_pins_records_and_prior_does_not(grown, method):
    old, new = grown
    make = (lambda d, **kw: anonymize_cahd(d, l=3, **kw)) if method == "cahd" else \
        (lambda d, **kw: anonymize_nonreciprocal(d, k=3, l=3, l_method="flow", **kw))
    # fixed secret draws: the joint audit's exact step (CP-SAT) takes seconds on most draws and minutes on a
    # few, so the test pins one instance instead of drawing a new one on every run
    first = make(old, unsafe_secret_seed=1)
    independent = make(new, unsafe_secret_seed=2)
    rep = JointAudit(LDiversity(3)).audit(new, [first, independent], links=[first.link, independent.link])
    assert rep.details["exact"] and rep.details["pinned_records"] > 0 and not rep.satisfied
    again = make(new, priors=first, unsafe_secret_seed=3)
    assert LDiversity(3).audit(new, again).satisfied and NonreciprocalKAnonymity(3).audit(new, again).satisfied
    for model in (LDiversity(3), NonreciprocalKAnonymity(3)):
        rep = JointAudit(model).audit(new, [first, again], links=[first.link, again.link])
        assert rep.satisfied and rep.details["exact"] and rep.details["records"] == OLD + ADDED
        assert rep.details["records_in_every_release"] == OLD
    # the prior's records get the prior's rows again; the added ones rows of their own
    ids = list(new.record_ids)
    old_rows = again.link.row_of_record[[ids.index(r) for r in old.record_ids]]
    assert _rows(again, old_rows) == _rows(first, range(first.n_records))
    assert again.params == first.params and again.algorithm == first.algorithm


#: ``grown_small``'s first release's sessions and the grown data's. The exact joint audit of the grouped prior pair
#: (no record pinned, proven by CP-SAT with no time budget) took 31 s of CPU on 60 + 24 sessions; on 36 + 15 it takes
#: about 6 s, and the independent grouped pair still leaves records below the level (34).
SMALL_OLD, SMALL_ADDED = 36, 15


@pytest.fixture(scope="module")
def grown_small():
    """SMALL_OLD sessions, then the same SMALL_OLD and SMALL_ADDED more."""
    full = ebook_sessions(SMALL_OLD + SMALL_ADDED, 30, seed=5).drop_unused_items()
    return full.subset(np.arange(SMALL_OLD)).drop_unused_items(), full


def test_grouped_nr_prior_for_grown_data(grown_small):
    """A grouped ``nr`` l=3 prior (label groups, the default): its records keep their rows and groups, the added
    records get groups of their own (each of at least the group size), and the joint audit -- which reads the
    groups -- counts 0 pinned records; an independent release of the grown data pins some (shown with groups
    formed along the order, grouping=order, in both releases)."""
    old, new = grown_small
    first = anonymize_nonreciprocal(old, k=3, l=3, order="identity", unsafe_secret_seed=1)
    assert first.label_groups is not None and first.params["grouping"] == "random"  # secret groups, the default
    again = anonymize_nonreciprocal(new, k=3, l=3, priors=first, unsafe_secret_seed=3)
    assert again.label_groups is not None and again.params == first.params
    assert LDiversity(3).audit(new, again).satisfied and NonreciprocalKAnonymity(3).audit(new, again).satisfied
    ids = list(new.record_ids)
    old_pos = np.array([ids.index(r) for r in old.record_ids])
    added = np.setdiff1d(np.arange(new.n_records), old_pos)
    groups = np.asarray(again.label_groups)[again.link.rows_for(new)]
    assert not set(groups[old_pos].tolist()) & set(groups[added].tolist())  # new groups for the added records
    sizes = np.bincount(groups[added])
    assert sizes[sizes > 0].min() >= first.params["label_group_size"]
    prior_groups = np.asarray(first.label_groups)[first.link.rows_for(old)]
    assert len(set(zip(prior_groups.tolist(), groups[old_pos].tolist(), strict=True))) == len(set(prior_groups))
    rep = JointAudit(LDiversity(3), budget=None).audit(new, [first, again], links=[first.link, again.link])
    assert rep.satisfied and rep.details["exact"] and rep.details["pinned_records"] == 0
    assert rep.details["label_groups"] == [True, True]
    ordered = anonymize_nonreciprocal(old, k=3, l=3, order="identity", grouping="order", unsafe_secret_seed=1)
    independent = anonymize_nonreciprocal(new, k=3, l=3, order="identity", grouping="order", unsafe_secret_seed=2)
    rep = JointAudit(LDiversity(3), budget=None).audit(new, [ordered, independent],
                                                       links=[ordered.link, independent.link])
    assert rep.details["exact"] and not rep.satisfied and rep.details["records_below_level"] > 0


def test_grouped_prior_refuses_too_few_added_records(grown_small):
    old, new = grown_small
    first = anonymize_nonreciprocal(old, k=3, l=3, order="identity", unsafe_secret_seed=1)
    with pytest.raises(InfeasibleError, match="the 2 added record"):
        anonymize_nonreciprocal(new.subset(np.arange(SMALL_OLD + 2)), k=3, l=3, priors=first)


def test_what_cannot_be_made_safe_is_refused(grown):
    old, new = grown
    first = anonymize_cahd(old, l=3)
    with pytest.raises(InfeasibleError, match=r"^3 record\(s\) of the prior are not in the data"):
        anonymize_cahd(new.subset(np.arange(3, OLD + ADDED)), l=3, priors=first)
    few = new.subset(np.arange(OLD + 5))
    with pytest.raises(InfeasibleError, match="the 5 added record"):
        anonymize_cahd(few, l=3, priors=first)
    with pytest.raises(InfeasibleError, match="cannot give l=4"):
        anonymize_cahd(new, l=4, priors=first)
    with pytest.raises(ParameterError, match="give one prior"):
        anonymize_cahd(new, l=3, priors=[first, anonymize_cahd(old, l=3, priors=first)])


def _write(path, data):
    lines = ["tid,item,label"]
    for rid, items, lab in zip(data.record_ids, data.records(), data.labels, strict=True):
        lines += [f"{rid},{x},{lab}" for x in items]
    path.write_text("\n".join(lines) + "\n")


def test_cli_prior_for_grown_data(run, tmp_path, grown):
    old, new = grown
    _write(tmp_path / "old.csv", old)
    _write(tmp_path / "new.csv", new)
    lab = ["--label", "label"]
    res = run("anonymize", "old.csv", *lab, "-a", "cahd", "--param", "l=3", "-o", "r1.json", "--link-out", "l1.json")
    assert res.exit_code == 0, res.output
    res = run("anonymize", "new.csv", *lab, "-a", "cahd", "--param", "l=3", "-o", "r2.json", "--link-out",
              "l2.json", "--prior", "r1.json", "--prior-link", "l1.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "new.csv", *lab, "r1.json", "r2.json", "--link", "l1.json", "--link", "l2.json",
              "--model", "ldiversity", "--param", "l=3", "--json")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["satisfied"] and rep["details"]["pinned_records"] == 0 and rep["details"]["records"] == OLD + ADDED
    _write(tmp_path / "less.csv", new.subset(np.arange(10, OLD + ADDED)))
    res = run("anonymize", "less.csv", *lab, "-a", "cahd", "--param", "l=3", "-o", "r3.json", "--prior", "r1.json",
              "--prior-link", "l1.json")
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "10 record(s) of the prior are not in the data" in lines[0]
