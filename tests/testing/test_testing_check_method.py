"""``graphanon.testing.check_method``: every built-in method passes it, and broken variants fail it by name.

This is the common check in its public form: each check of each built-in
method is one test (``method-check_name``). A registered method without an
entry in ``CONFIG`` fails ``test_every_method_has_a_configuration`` (it is
not skipped). The broken variants below (record ids published, an
off-by-one k, rows left in input order, k not validated, an unlisted
parameter) each fail ``check_method`` with the one-line reason asserted.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from graphanon.algorithms.registry import method_names
from graphanon.counting.support import item_supports
from graphanon.errors import ParameterError
from graphanon.privacy import KmAnonymity
from graphanon.release import GlobalRecoding
from graphanon.release.publish import publish
from graphanon.taxonomy.categories import parse_categories
from graphanon.taxonomy.constraint_sets import parse_privacy, parse_utility
from graphanon.testing import (
    CHECKS,
    MethodCheckError,
    check_method,
    method_checks,
    parametrize_with_checks,
    random_transactions,
)
from graphanon.testing.strategies import transaction_data
from graphanon.utils.params import COMMON, MEANINGS, K, validate_params
from graphanon.utils.validation import check_k

#: the swaps promise no tendency hiding on small data: audited with max_share=1, the tendency model
#: checks their invariants (items conserved, none invented), as in tests/algorithms/test_common.py
_SWAP_AUDIT = {"categories": "random:3:1", "max_share": "1.0"}


def _categories(data):
    return parse_categories("random:3:1", data)


#: method -> the check_method configuration under which its releases meet its audit model
CONFIG: dict[str, dict] = {
    **{name: {"options": {"k": 2, "m": 2}} for name in ("aa", "hghs", "mhghs", "mm")},
    "cut": {"options": {"level": 0}, "audit_params": {"k": 2, "m": 2}},  # the root: every record alike
    "coat": {"options": {"k": 2, "s": 0.5, "privacy": lambda data: parse_privacy("pgen", data, 2),
                         "utility": lambda data: parse_utility("all", data, None)},
             "audit_params": {"privacy": "pgen", "utility": "all", "s": "0.5"}},
    "clump": {}, "partition": {}, "nr": {},
    "cahd": {"options": {"l": 2}, "labels": 4, "audit_params": {"l": 2}},
    **{name: {"options": {"categories": _categories}, "audit_params": _SWAP_AUDIT}
       for name in ("fullswap", "partswap", "partsupp", "splitperson")},
    "randswap": {"audit_params": _SWAP_AUDIT},
    "diffpart": {"options": {"epsilon": 1.0}},  # DP: the audit checks are skipped, the others apply
    # PrivBasis releases itemsets, not rows: no row order to test, and its k counts itemsets (k > n is valid)
    "privbasis": {"options": {"k": 5, "epsilon": 1.0},
                  "checks": [c for c in CHECKS if c not in ("check_no_input_order", "check_invalid_parameters")]},
}
#: Methods check_method cannot run: it generates transaction data only (why, and where they are checked instead).
NOT_COVERED = {
    "rt": "needs a relational table next to the transactions: its audit on random data against brute force, "
          "release safety and bad input are in tests/algorithms/test_rt_method.py and tests/release/test_rt_release.py",
    "rt-naive": "the same (and it is meant to fail its model: the baseline)",
}


def _builtin_checks():
    return [check for name in sorted(CONFIG) for check in method_checks(name, **CONFIG[name])]


def test_every_method_has_a_configuration():
    assert sorted([*CONFIG, *NOT_COVERED]) == sorted(method_names()), "give a new method its check_method configuration here"


@pytest.mark.parametrize("check", _builtin_checks(), ids=str)
def test_builtin_method(check):
    result = check()
    assert result.status in ("passed", "skipped"), result


def test_rng_determinism_is_checked_where_a_method_takes_rng():
    results = {name: check_method(name, checks=["check_rng_determinism"], **CONFIG[name])[0].status
               for name in ("clump", "nr", "partswap", "aa")}
    assert results == {"clump": "passed", "nr": "passed", "partswap": "passed", "aa": "skipped"}


# ---------------------------------------------------------------- the toy and its broken variants
def _recode(data, k: int, threshold: int, unsafe_secret_seed, *, shuffle: bool = True, params=None):
    support = item_supports(data.matrix)
    mapping = {item: (item if s >= threshold else None) for item, s in zip(data.items, support)}
    release = GlobalRecoding.from_mapping(data, mapping, algorithm="minsupp", params=params or {"k": k, "m": 1})
    return publish(data, release, unsafe_secret_seed=unsafe_secret_seed) if shuffle else release


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_minsupp(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Suppress every item of support below ``k`` (k^1-anonymity)."""
    return _recode(data, check_k(k, data.n_records), k, unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_with_ids(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Broken: the record ids travel as the rows' labels."""
    return _recode(data.with_labels(data.record_ids), check_k(k, data.n_records), k, unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_off_by_one(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Broken: keeps the items of support ``k - 1``."""
    return _recode(data, check_k(k, data.n_records), k - 1, unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_in_order(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Broken: never shuffles (row i is record i)."""
    return _recode(data, check_k(k, data.n_records), k, unsafe_secret_seed, shuffle=False)


def anonymize_unchecked(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Broken: no validation of ``k``."""
    return _recode(data, k, k, unsafe_secret_seed)


@validate_params({"k": K, **COMMON}, meanings=MEANINGS)
def anonymize_unlisted(data, *, k: int, unsafe_secret_seed: int | None = None, progress=None):
    """Broken: publishes a parameter that is on no allowlist."""
    k = check_k(k, data.n_records)
    return _recode(data, k, k, unsafe_secret_seed, params={"k": k, "m": 1, "threshold": k})


def test_the_toy_passes():
    results = check_method(anonymize_minsupp, audit_model="km")
    assert [r.name for r in results] == list(CHECKS)
    assert {r.name: r.status for r in results if r.status != "passed"} == {"check_rng_determinism": "skipped"}


@pytest.mark.parametrize("function, reason", [
    (anonymize_with_ids, "check_no_record_ids: the release publishes 40 record id(s) of the input, "
                         "e.g. 'graphanon-check-record-0'"),
    (anonymize_off_by_one, "check_audit_bundled: the km audit (k=2, m=1) finds 26 violation(s) on groceries "
                           "(200 sampled records), e.g. {'itemset': ['bathroom cleaner'], 'support': 1, "),
    (anonymize_in_order, "check_no_input_order: the rows follow the input order (rank correlation 0.99 of row "
                         "size with the row index on size-sorted input)"),
    (anonymize_unchecked, "check_invalid_parameters: k=0 is accepted: a release came back"),
    (anonymize_unlisted, "check_published_params: a 'minsupp' release may not publish parameter 'threshold'"),
])
def test_a_broken_variant_fails_with_a_one_line_reason(function, reason):
    with pytest.raises(MethodCheckError) as failed:
        check_method(function, audit_model="km")
    lines = str(failed.value).splitlines()
    assert any(line.startswith(reason) for line in lines), lines
    assert all(line.split(":", 1)[0] in CHECKS for line in lines)  # every line names its check


def test_each_check_runs_alone_and_raises_naming_itself():
    (check,) = method_checks(anonymize_with_ids, audit_model="km", checks=["check_no_record_ids"])
    assert str(check) == "with_ids-check_no_record_ids"
    with pytest.raises(MethodCheckError, match=r"^check_no_record_ids: the release publishes"):
        check()
    (ok,) = method_checks(anonymize_with_ids, audit_model="km", checks=["check_no_seed"])
    assert ok().status == "passed"


def test_bad_configuration_is_one_clear_line():
    with pytest.raises(ParameterError, match="give audit_model="):
        method_checks(anonymize_minsupp)
    with pytest.raises(ParameterError, match="unknown check 'check_nothing'"):
        method_checks(anonymize_minsupp, audit_model="km", checks=["check_nothing"])


@parametrize_with_checks([anonymize_minsupp], audit_model="km", checks=["check_audit_random", "check_save_load"])
def test_parametrize_with_checks_gives_one_test_per_check(check):
    assert check().status == "passed"


def test_random_transactions_are_seeded_and_use_every_item():
    a, b = random_transactions(4, n_records=25, n_items=9), random_transactions(4, n_records=25, n_items=9)
    assert [a.record(i) for i in range(25)] == [b.record(i) for i in range(25)]
    assert (item_supports(a.matrix) > 0).all() and min(a.record_lengths()) >= 1
    assert random_transactions(4, labels=3).labels is not None


@settings(max_examples=25, deadline=None)
@given(transaction_data(max_records=10, max_items=5))
def test_strategy_data_and_the_toy_meet_km(data):
    k = min(2, data.n_records)
    assert KmAnonymity(k, 1).audit(data, anonymize_minsupp(data, k=k, unsafe_secret_seed=0)).satisfied


def test_a_registered_method_s_release_names_it(monkeypatch):
    from graphanon.algorithms import registry
    from graphanon.plugins import declare_method

    monkeypatch.setattr(registry, "_REGISTRY", None)  # a fresh registry for this test, restored after
    registry.register_method(declare_method(anonymize_minsupp, audit_model="km", name="renamed"))
    (check,) = method_checks("renamed", checks=["check_published_params"])
    with pytest.raises(MethodCheckError, match="^check_published_params: the release names its method 'minsupp', "
                                               "not 'renamed'"):
        check()
