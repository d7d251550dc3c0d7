"""The common checks of :func:`graphanon.testing.check_method`, one function each, and the data they run on.

Each ``check_<name>(method)`` takes a :class:`MethodUnderCheck` (a method's
function, its audit and the options of every run) and raises
``AssertionError`` when the method fails it, or :class:`SkipCheck` when it
does not apply. :data:`CHECKS` lists them in the order they run;
:func:`random_transactions` draws the seeded random data they use.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import GraphanonError, ParameterError
from graphanon.privacy.registry import build_model
from graphanon.release import check_published_params as allowlisted
from graphanon.release import load_release
from graphanon.release.base import FORBIDDEN_PARAMS
from graphanon.taxonomy.tree import Taxonomy
from graphanon.utils.params import invalid_values

__all__ = ["CHECKS", "CHECK_FUNCTIONS", "MethodUnderCheck", "SkipCheck", "random_transactions", "short_text"]

#: The checks, in the order :func:`check_method` runs them.
CHECKS = ("check_signature", "check_audit_bundled", "check_audit_random", "check_no_record_ids",
          "check_no_input_order", "check_no_seed", "check_published_params", "check_save_load",
          "check_invalid_parameters", "check_rng_determinism", "check_empty_data", "check_empty_record")

#: A structure seed and a secret seed no release has a reason to contain (``check_no_seed`` looks for them).
_RNG, _SECRET = 918273645, 604918273645117
#: Record ids no method has a reason to publish (``check_no_record_ids`` looks for them).
_ID = "graphanon-check-record-{}"



class SkipCheck(Exception):
    """The check does not apply to this method (the reason says why)."""


def random_transactions(rng: int | np.random.Generator = 0, *, n_records: int = 40, n_items: int = 12,
                        max_size: int = 5, labels: int = 0, ids: str = "r{}") -> Any:
    """Random transaction data from a seeded generator: no empty record, every item used.

    Parameters
    ----------
    rng : int or numpy.random.Generator
        The seed (or generator) of the draw.
    n_records, n_items : int
        The shape; items are ``i0``, ``i1``, ...
    max_size : int
        The largest record (each record has 1 to ``max_size`` items, uniform).
    labels : int
        Number of sensitive label values (``s0``, ``s1``, ...) drawn per record; 0: no labels.
    ids : str
        Record-id pattern (``ids.format(i)``).

    Returns
    -------
    TransactionData

    Notes
    -----
    Complexity: O(n_records * max_size).

    Examples
    --------
    >>> data = random_transactions(1, n_records=5, n_items=4)
    >>> data.n_records, data.n_items
    (5, 4)
    """
    gen = np.random.default_rng(rng)
    sizes = gen.integers(1, min(max_size, n_items) + 1, size=n_records)
    records = [[f"i{j}" for j in sorted(gen.choice(n_items, size=s, replace=False))] for s in sizes]
    used = {item for record in records for item in record}
    records[-1] = sorted(set(records[-1]) | ({f"i{j}" for j in range(n_items)} - used))
    label_values = None if not labels else [f"s{v}" for v in gen.integers(0, labels, size=n_records)]
    return from_iterable(records, record_ids=[ids.format(i) for i in range(n_records)], labels=label_values,
                         items=[f"i{j}" for j in range(n_items)])


@dataclass
class MethodUnderCheck:
    """A method under check: its function, name, audit and the options of every run."""

    function: Callable
    name: str
    audit_model: str | None
    audit_params: dict[str, str]
    options: dict[str, Any]
    labels: int
    bundled: str
    registered: bool = False
    cache: dict = field(default_factory=dict)

    @property
    def signature(self) -> dict:
        """The function's parameters by name."""
        return dict(inspect.signature(self.function).parameters)

    def takes(self, arg: str) -> bool:
        """Whether the function takes the argument ``arg``."""
        return arg in self.signature

    def kwargs(self, data, taxonomy=None, **override) -> dict:
        """The run's keyword arguments: the options (callables applied to ``data``), a taxonomy when taken."""
        out = {name: (value(data) if callable(value) and not isinstance(value, type) else value)
               for name, value in self.options.items()}
        if self.takes("taxonomy") and "taxonomy" not in out:
            out["taxonomy"] = taxonomy if taxonomy is not None else _balanced(data)
        out.update(override)
        return out

    def run(self, data, taxonomy=None, **override):
        """The method's release of ``data`` with the run's options (``override`` replaces some)."""
        return self.function(data, **self.kwargs(data, taxonomy, **override))

    def audit(self, data, release, where: str) -> None:
        """Raise ``AssertionError`` naming ``where`` unless the release meets the method's audit model."""
        if self.audit_model in (None, "dp"):
            raise SkipCheck("no audit model" if self.audit_model is None else
                        "a differentially private release: its guarantee is tested, not audited")
        params = dict(self.audit_params)
        given = {name: params.pop(name, None) for name in ("k", "m")}  # -k / -m of the audit, as texts
        k = release.params.get("k", self.options.get("k", None if given["k"] is None else int(given["k"])))
        m = release.params.get("m", self.options.get("m", None if given["m"] is None else int(given["m"])))
        model = build_model(self.audit_model, k=k, m=m, params=params, original=data)
        report = model.audit(data, release)
        if not report.satisfied:
            example = short_text(report.counterexamples[0]) if report.counterexamples else ""
            raise AssertionError(f"the {self.audit_model} audit (k={k}, m={m}) finds {report.violations} "
                                 f"violation(s) on {where}" + (f", e.g. {example}" if example else ""))

    def bundled_data(self):
        """The bundled dataset (a seeded 200-record sample, its taxonomy) with labels when asked."""
        if "bundled" not in self.cache:
            full = load(self.bundled)
            rows = np.sort(np.random.default_rng(0).choice(full.n_records, size=min(200, full.n_records),
                                                            replace=False))
            data = full.subset(rows)
            if self.labels:
                data = data.with_labels([f"s{v}" for v in np.random.default_rng(1).integers(0, self.labels,
                                                                                             data.n_records)])
            try:
                taxonomy = load_taxonomy(self.bundled)
            except GraphanonError:
                taxonomy = None
            self.cache["bundled"] = (data, taxonomy)
        return self.cache["bundled"]

    def probe(self):
        """One run on random data with distinctive record ids and seeds: ``(data, release)`` (cached)."""
        if "probe" not in self.cache:
            data = random_transactions(3, n_records=40, n_items=10, labels=self.labels, ids=_ID)
            extra = {arg: value for arg, value in (("rng", _RNG), ("unsafe_secret_seed", _SECRET)) if self.takes(arg)}
            self.cache["probe"] = (data, self.run(data, **extra))
        return self.cache["probe"]


def short_text(value: Any, width: int = 100) -> str:
    """``value`` as one line of at most ``width`` characters."""
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _balanced(data):
    return Taxonomy.balanced(data.items, 4)


def _released_text(release) -> str:
    return json.dumps(release.to_dict(), default=str)


# ------------------------------------------------------------------------------------------------ the checks
def check_signature(method: MethodUnderCheck) -> None:
    """``anonymize_<method>(data, *, ...)``: the data first, every other argument keyword-only."""
    params = list(method.signature.values())
    if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        raise AssertionError("the function must take the data as its first positional argument")
    loose = [p.name for p in params[1:] if p.kind is not p.KEYWORD_ONLY]
    if loose:
        raise AssertionError(f"arguments after the data must be keyword-only: {', '.join(loose)}")


def check_audit_bundled(method: MethodUnderCheck) -> None:
    """The release meets the method's audit model on a bundled dataset (a seeded sample, with its taxonomy)."""
    data, taxonomy = method.bundled_data()
    release = method.run(data, taxonomy, **_secret(method))
    method.audit(data, release, f"{method.bundled} ({data.n_records} sampled records)")


def check_audit_random(method: MethodUnderCheck) -> None:
    """The release meets the method's audit model on three seeded random datasets."""
    for seed in range(3):
        data = random_transactions(seed, n_records=30 + 10 * seed, n_items=8 + 2 * seed, labels=method.labels)
        method.audit(data, method.run(data, **_secret(method)), f"random data (seed {seed}, {data.n_records} records)")


def check_no_record_ids(method: MethodUnderCheck) -> None:
    """No record id of the input appears in the release (its file content)."""
    data, release = method.probe()
    text = _released_text(release)
    leaked = sorted(set(re.findall(_ID.format(r"(\d+)"), text)), key=int)
    if leaked:
        raise AssertionError(f"the release publishes {len(leaked)} record id(s) of the input, e.g. "
                             f"{_ID.format(leaked[0])!r}")


def check_no_input_order(method: MethodUnderCheck) -> None:
    """The rows are not in input order: on data sorted by record size, row sizes do not follow the row index."""
    from scipy.stats import spearmanr

    data = random_transactions(5, n_records=80, n_items=16, max_size=10, labels=method.labels)
    order = np.argsort(data.record_lengths(), kind="stable")
    data = data.subset(order)  # record size now grows with the record's position
    release = method.run(data, **_secret(method, None))
    rows = getattr(getattr(release, "link", None), "row_of_record", None)
    if rows is not None and np.array_equal(np.asarray(rows), np.arange(data.n_records)):
        raise AssertionError("row i of the release is record i of the input: shuffle the rows "
                             "(graphanon.release.publish.publish)")
    sizes = [len(release.render_record(i).split()) for i in range(release.n_records)]
    if len(set(sizes)) > 1:
        rho = spearmanr(np.arange(len(sizes)), sizes).statistic
        if rho > 0.5:
            raise AssertionError(f"the rows follow the input order (rank correlation {rho:.2f} of row size with the "
                                 "row index on size-sorted input): shuffle the rows (graphanon.release.publish.publish)")


def check_no_seed(method: MethodUnderCheck) -> None:
    """No seed in the release: no ``seed``/``rng`` parameter, and neither seed given appears in the file."""
    _data, release = method.probe()
    named = sorted(set(release.params) & FORBIDDEN_PARAMS)
    if named:
        raise AssertionError(f"the release records the seed parameter {named[0]!r}")
    text = _released_text(release)
    for seed in (_RNG, _SECRET):
        if re.search(rf"(?<![\w.]){seed}(?!\w)", text):
            raise AssertionError(f"the release contains the seed {seed} it was run with")


def check_published_params(method: MethodUnderCheck) -> None:
    """Every parameter field of the release is on its method's allowlist (``Release.save`` refuses others).

    A registered method's release names it (its allowlist is looked up by that name).
    """
    _data, release = method.probe()
    if method.registered and release.algorithm != method.name:
        raise AssertionError(f"the release names its method {release.algorithm!r}, not {method.name!r}: its "
                             "allowlist and audit are looked up by the name it is registered under")
    try:
        allowlisted(release.algorithm, release.params)
    except GraphanonError as exc:
        raise AssertionError(str(exc)) from None


def check_save_load(method: MethodUnderCheck) -> None:
    """The release file round-trips through save/load and the loaded release still meets the audit."""
    data, release = method.probe()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "release.json")
        try:
            release.save(path)
        except GraphanonError as exc:
            raise AssertionError(f"save refuses the release: {exc}") from None
        back = load_release(path)
    if back.to_dict() != release.to_dict():
        raise AssertionError("the loaded release differs from the saved one")
    try:
        method.audit(data, back, "the loaded release")
    except SkipCheck:
        pass


def _invalid_cases(method: MethodUnderCheck, n_records: int) -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = []
    if method.takes("k"):
        cases += [("k", 0), ("k", -1), ("k", "x"), ("k", 2.5), ("k", n_records + 1)]
    if method.takes("m"):
        cases += [("m", 0), ("m", -1), ("m", "x")]
    for arg, allowed in getattr(method.function, "_parameter_constraints", {}).items():
        if arg in ("k", "m", "progress", "taxonomy"):
            continue
        cases += [(arg, bad) for bad in invalid_values(allowed)]
    return cases


def check_invalid_parameters(method: MethodUnderCheck) -> None:
    """Generated wrong values (``k=0``, ``k=-1``, ``k="x"``, ``m=0``, the declared constraints' own) are refused.

    Each must raise :class:`~graphanon.errors.ParameterError` or
    ``ValueError`` with a message, raised by the method (not deep in numpy or
    scipy) -- and never return a release.
    """
    data = random_transactions(0, n_records=12, n_items=6, labels=method.labels)
    for arg, bad in _invalid_cases(method, data.n_records):
        where = f"{arg}={bad!r}"
        try:
            method.run(data, **{arg: bad})
        except (ParameterError, ValueError) as exc:
            frames = traceback.extract_tb(exc.__traceback__)
            deep = frames[-1].filename if frames else ""
            if not str(exc).strip():
                raise AssertionError(f"{where} raises {type(exc).__name__} with no message") from None
            if not isinstance(exc, GraphanonError) and any(f"{os.sep}{lib}{os.sep}" in deep
                                                           for lib in ("numpy", "scipy")):
                raise AssertionError(f"{where} fails deep in {deep.rsplit(os.sep, 3)[-3]} "
                                     f"({type(exc).__name__}: {short_text(exc, 60)}): check it first") from None
            continue
        except Exception as exc:  # noqa: BLE001 -- the check reports what the method raised instead
            raise AssertionError(f"{where} raises {type(exc).__name__} ({short_text(exc, 60)}), not ParameterError or "
                                 "ValueError") from None
        raise AssertionError(f"{where} is accepted: a release came back")


def check_rng_determinism(method: MethodUnderCheck) -> None:
    """The same ``rng`` (and secret seed) gives the same release; skipped when the method takes no ``rng``."""
    if not method.takes("rng"):
        raise SkipCheck("the method takes no rng")
    data = random_transactions(7, n_records=30, n_items=10, labels=method.labels)
    runs = [method.run(data, rng=11, **_secret(method, 5)) for _ in range(2)]
    if method.takes("unsafe_secret_seed"):
        same = runs[0].to_dict() == runs[1].to_dict()
    else:
        same = sorted(map(runs[0].render_record, range(runs[0].n_records))) == sorted(
            map(runs[1].render_record, range(runs[1].n_records)))
    if not same:
        raise AssertionError("two runs with rng=11 give different releases: draw structure randomness only "
                             "from check_random_state(rng)")


def _refuses_clearly(method: MethodUnderCheck, data, what: str) -> Any:
    """The release, or None when the method refused ``data`` with a clear error; raise for anything else."""
    try:
        return method.run(data, **_secret(method))
    except (GraphanonError, ValueError) as exc:
        if not str(exc).strip():
            raise AssertionError(f"{what} is refused with an empty message") from None
        return None
    except Exception as exc:  # noqa: BLE001 -- the check reports what the method raised instead
        raise AssertionError(f"{what} raises {type(exc).__name__} ({short_text(exc, 60)}): refuse it with a "
                             "GraphanonError or ValueError that says what is wrong") from None


def check_empty_data(method: MethodUnderCheck) -> None:
    """Data with no records is refused with a clear error, or gives a release of no rows (DP: any rows)."""
    data = from_iterable([], items=[f"i{j}" for j in range(4)], labels=[] if method.labels else None)
    options = {**method.options, "k": 1} if "k" in method.options else method.options
    method = MethodUnderCheck(method.function, method.name, method.audit_model, method.audit_params, options,
                     method.labels, method.bundled, method.registered)
    release = _refuses_clearly(method, data, "data with no records")
    # a differentially private release of no records is noise: its rows are not records of the data
    if release is not None and release.n_records != 0 and method.audit_model != "dp":
        raise AssertionError(f"data with no records gives a release of {release.n_records} rows")


def check_empty_record(method: MethodUnderCheck) -> None:
    """A record with no items is refused with a clear error, or its release meets the audit."""
    data = random_transactions(9, n_records=30, n_items=8, labels=method.labels)
    records = [list(data.record(i)) for i in range(data.n_records)]
    records[4] = []
    data = from_iterable(records, record_ids=list(data.record_ids), labels=data.labels, items=list(data.items))
    release = _refuses_clearly(method, data, "a record with no items")
    if release is not None:
        try:
            method.audit(data, release, "data with an empty record")
        except SkipCheck:
            pass


def _secret(method: MethodUnderCheck, seed: int | None = 0) -> dict:
    return {"unsafe_secret_seed": seed} if method.takes("unsafe_secret_seed") else {}


CHECK_FUNCTIONS: dict[str, Callable[[MethodUnderCheck], None]] = {name: globals()[name] for name in CHECKS}
