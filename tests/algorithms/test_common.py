"""Common checks run over every registered anonymizer (like scikit-learn's ``check_estimator``).

A method joins these tests by being declared (``graphanon.algorithms.registry``);
it must also have a worked example in ``EXAMPLES`` -- a registered method without
one fails ``test_has_a_bundled_example`` (it is not skipped).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

from graphanon.algorithms.registry import get_method
from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions, registered
from graphanon.datasets import load as load_bundled
from graphanon.datasets import load_taxonomy as load_bundled_taxonomy
from graphanon.datasets.synthetic import patients_with_demographics
from graphanon.errors import ParameterError
from graphanon.metrics.evaluate import evaluate_release
from graphanon.privacy.registry import build_model
from graphanon.release import load_release
from graphanon.taxonomy import ItemGroups
from graphanon.utils.params import NO_VALIDATION, invalid_values

#: the relational-transaction example (patients_with_demographics(60, seed=0))
RT_DATA = "synthetic:patients60"


def load(dataset: str):
    """A bundled dataset, or the seeded synthetic relational-transaction patients of :data:`RT_DATA`."""
    if dataset == RT_DATA:
        return patients_with_demographics(60, seed=0)[0]
    return load_bundled(dataset)


def load_taxonomy(dataset: str):
    """A bundled dataset's taxonomy, or the synthetic patients' code tree."""
    if dataset == RT_DATA:
        return patients_with_demographics(60, seed=0)[1]
    return load_bundled_taxonomy(dataset)


def _transactions(data):
    """The transactions of a dataset (a relational-transaction dataset's items)."""
    return getattr(data, "transactions", data)


def _audit(name, spec, data, release, opts, audit_params):
    """The registered audit of the method's model; for ``rt`` (its audit merges from another branch) a
    brute-force check of the published rows when the model is not registered yet. None for DP."""
    if name in DP:
        return None
    from graphanon.privacy.registry import model_names

    if spec.privacy_model == "rt" and "rt" not in model_names():
        from tests.algorithms.test_rt_method import published_violations

        bad = published_violations(release, opts.k, opts.m)
        return type("Report", (), {"satisfied": not bad, "violations": len(bad), "counterexamples": bad})()
    model = build_model(spec.privacy_model, k=opts.k, m=opts.m, params=audit_params, original=data)
    return model.audit(data, release)


#: name -> (bundled dataset, general options, --param texts, extra audit --param texts):
#: a small run that meets the method's registered audit model
_SWAP = {"categories": "random:3:1"}
#: the swaps promise no tendency hiding on a ten-record example (the heuristics leave records without a
#: partner): audited with max_share=1, the model then checks the invariants (items conserved, no invented item)
_SWAP_AUDIT = {"max_share": "1.0"}
EXAMPLES = {
    "aa": ("liuwang_fig1", {"k": 2, "m": 2}, {}, {}),
    "hghs": ("liuwang_fig1", {"k": 2, "m": 2}, {}, {}),
    "mhghs": ("liuwang_fig1", {"k": 2, "m": 2}, {}, {}),
    "mm": ("liuwang_fig1", {"k": 2, "m": 2}, {}, {}),
    "cut": ("liuwang_fig1", {"k": 2, "m": 2}, {"level": "0"}, {}),
    "coat": ("coat_fig1", {"k": 2}, {}, {}),
    "clump": ("clump_food", {"k": 2, "seed": 3}, {}, {}),
    "partition": ("clump_food", {"k": 2}, {}, {}),
    "cahd": ("nr_table1", {"k": 2}, {"l": "2"}, {}),
    "nr": ("liuwang_fig1", {"k": 2, "seed": 3}, {"order": "gray"}, {}),  # no labels: --seed with labels is refused
    "partswap": ("swap_table1", {"seed": 3}, _SWAP, _SWAP_AUDIT),
    "fullswap": ("swap_table1", {"seed": 3}, _SWAP, _SWAP_AUDIT),
    "partsupp": ("swap_table1", {}, _SWAP, {}),
    "splitperson": ("swap_table1", {}, _SWAP, {}),
    "randswap": ("swap_table1", {}, _SWAP, _SWAP_AUDIT),  # secret pairs: no seed; categories for its audit
    # differentially private: no audit model, no seed; tested empirically (tests/algorithms/test_dp_empirical.py)
    "diffpart": ("liuwang_fig1", {"epsilon": 2.0}, {}, {}),
    "privbasis": ("liuwang_fig1", {"epsilon": 2.0}, {"k": "5"}, {}),
    # relational-transaction data: seeded synthetic patients (no bundled RT dataset exists; docs/relational.md)
    "rt": (RT_DATA, {"k": 3, "m": 2}, {"transaction": "mhghs", "delta": "0.8"}, {}),  # 60 records, 5 QIs: RIL 0.51
    "rt-naive": (RT_DATA, {"k": 3, "m": 2}, {"transaction": "mhghs"}, {}),
}
#: baselines that are meant to fail the model their releases are audited with (the audit still runs)
BASELINES = {"rt-naive"}
#: DP methods: their guarantee is tested, not audited, and nothing reproduces their noise
DP = {name for name in EXAMPLES if registered()[name].privacy_model == "dp"}

ALGORITHMS = sorted(registered())


def _options(name: str, *, unsafe_secret_seed: int | None = 0, **override) -> tuple:
    dataset, general, params, _audit = EXAMPLES[name]
    spec = registered()[name]
    data = load(dataset)
    general = {**general, **override}
    taxonomy = load_taxonomy(dataset) if spec.needs_taxonomy or name in DP or dataset == RT_DATA else None
    opts = RunOptions(taxonomy=taxonomy, params=dict(params), unsafe_secret_seed=unsafe_secret_seed,
                      given=frozenset(general), **general)
    return spec, data, opts


def _run(name: str, **override):
    spec, data, opts = _options(name, **override)
    spec.check_options(opts)
    return spec, data, opts, spec.run(data, opts)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_has_a_bundled_example(name):
    assert name in EXAMPLES, f"registered algorithm {name!r} has no worked example in tests/algorithms/test_common.py EXAMPLES"


@pytest.mark.parametrize("name", ALGORITHMS)
def test_params_are_declared_once(name):
    spec = registered()[name]
    assert all(isinstance(p, Param) for p in spec.params)
    assert set(spec.audit_params) <= set(spec.param_names)
    assert set(EXAMPLES.get(name, ("", {}, {}, {}))[2]) <= set(spec.param_names)
    with pytest.raises(ParameterError, match="unknown --param"):
        spec.parse_params({"no_such_option": "1"})
    for p in spec.params:  # a declared default is a value the option can take
        choices = spec.choices_of(p)
        assert choices is None or p.default in choices, (name, p)
        assert p.help, (name, p.name)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_declared_choices_are_enforced(name):
    spec = registered()[name]
    for p in spec.params:
        if spec.choices_of(p) is not None:
            with pytest.raises(ParameterError, match=f"--param {p.name}='no-such-choice': expected one of"):
                spec.parse_params({p.name: "no-such-choice"})


def test_params_must_be_param_objects():
    """No plain names: a string in ``params`` is refused, not silently turned into a text option."""
    with pytest.raises(TypeError, match="must be Parameter objects"):
        AlgorithmSpec(name="x", family="custom", summary="", function=lambda data: None, privacy_model="km",
                      params=("l",))


def test_run_options_values_reads_declared_params():
    params = (Param("l", int, None, "l"), Param("order", str, "gray", "order", choices=("gray", "identity")))
    assert RunOptions(params={"l": "3"}).values(params) == {"l": 3, "order": "gray"}
    with pytest.raises(ParameterError, match="--param l='x'"):
        RunOptions(params={"l": "x"}).values(params)
    with pytest.raises(ParameterError, match="unknown --param alpha"):
        RunOptions(params={"alpha": "2"}).values(params)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_anonymize_audit_save_load_evaluate(name, tmp_path):
    assert name in EXAMPLES, f"no example for {name!r}"
    spec, data, opts, release = _run(name)
    # the release satisfies the model the method registers (a DP release: no audit can tell, docs/dp.md;
    # a baseline is audited too, and may fail)
    audit_params = {p: v for p, v in opts.params.items() if p in spec.audit_params} | EXAMPLES[name][3]
    report = _audit(name, spec, data, release, opts, audit_params)
    if report is not None and name not in BASELINES:
        assert report.satisfied, (name, report.violations, report.counterexamples[:3])
    # save / load round trip keeps the published content
    path = tmp_path / f"{name}.json"
    release.save(path)
    back = load_release(path)
    assert back.to_dict() == release.to_dict()
    assert back.trace is None and back.link is None  # in-memory only
    # and the loaded release still audits and evaluates
    again = _audit(name, spec, data, back, opts, audit_params)
    assert again is None or name in BASELINES or again.satisfied
    metrics = evaluate_release(_transactions(data), back, queries=20, rng=0)
    assert isinstance(metrics, dict) and metrics


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("bad_k", ["zero", "above n"])
def test_bad_k_raises_parameter_error(name, bad_k):
    assert name in EXAMPLES, f"no example for {name!r}"
    n = load(EXAMPLES[name][0]).n_records
    spec, data, opts = _options(name, k=0 if bad_k == "zero" else n + 1)
    with pytest.raises(ParameterError):
        spec.check_options(opts)
        spec.run(data, opts)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_same_rng_and_secret_seed_give_the_same_file(name, tmp_path):
    assert name in EXAMPLES, f"no example for {name!r}"
    if name in DP:  # the opposite holds: nothing reproduces a DP method's noise
        pytest.skip("a DP method takes no seed (tests/algorithms/test_dp.py: two runs differ)")
    files = []
    for run in range(2):
        _spec, _data, _opts, release = _run(name, unsafe_secret_seed=11)
        path = tmp_path / f"{run}.json"
        release.save(path)
        files.append(path.read_bytes())
    assert files[0] == files[1]


@pytest.mark.parametrize("name", ALGORITHMS)
def test_trace_is_frozen_and_not_saved(name):
    assert name in EXAMPLES, f"no example for {name!r}"
    *_, release = _run(name)
    if release.trace is not None:
        assert dataclasses.is_dataclass(release.trace)
        assert type(release.trace).__dataclass_params__.frozen
    assert "trace" not in release.to_dict() and "details" not in release.to_dict()


@pytest.mark.parametrize("name", ["aa", "partition", "nr", "randswap"])  # one per release kind
def test_saved_release_loads_in_a_fresh_interpreter(name, tmp_path):
    """``load_release`` in a new process (nothing imported but the lazy ``graphanon.release``) knows
    every built-in kind: the kind's module is imported on demand."""
    import subprocess
    import sys

    _, _, _, release = _run(name)
    release.save(tmp_path / "rel.json")
    probe = (
        "import sys\nfrom graphanon.release import load_release\n"
        f"r = load_release(sys.argv[1])\nassert r.n_records == {release.n_records} and r.kind == {release.kind!r}\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "rel.json")], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr


#: Valid values of the declared arguments a call must give (so that only the planted value is wrong).
_VALID = {"epsilon": 1.0, "k": 2, "l": 2, "m": None, "p": None, "h": 0.5, "s": 0.0, "c": 2.0, "constraints": [],
          "privacy": [],
          "categories": ItemGroups({"A": ["a"]}), "groups": ItemGroups({"A": ["a"]})}


def _required(func, skip: str) -> dict:
    """The arguments ``func`` needs besides ``data`` and ``skip``: valid values, None when undeclared."""
    out = {}
    for arg, param in inspect.signature(func).parameters.items():
        if arg in ("self", "data", skip) or param.default is not inspect.Parameter.empty:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        out[arg] = _VALID.get(arg)
    return out


def _declared_cases(func):
    constraints = func._parameter_constraints
    assert constraints, func
    for arg, allowed in constraints.items():
        if allowed == NO_VALIDATION:  # declared, checked by the function itself (tests/algorithms/test_declarations.py)
            continue
        bad_values = invalid_values(allowed)
        assert bad_values, (func, arg, allowed)  # every declaration yields a wrong value to plant
        for bad in bad_values:
            yield arg, bad


@pytest.mark.parametrize("name", ALGORITHMS)
def test_declared_constraints_refuse_generated_values(name):
    """Every declared argument of every method refuses each wrong value its declaration generates,
    with a ParameterError that starts with the argument's name."""
    func = get_method(name)
    data = load(EXAMPLES[name][0])
    for arg, bad in _declared_cases(func):
        kwargs = {**_required(func, arg), arg: bad}
        with pytest.raises(ParameterError, match=rf"^{arg} must be "):
            func(data, **kwargs)


def _audit_models():
    import graphanon.privacy as package

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"graphanon.privacy.{info.name}")
        for value in vars(module).values():
            if inspect.isclass(value) and hasattr(value.__init__, "_parameter_constraints"):
                found[value.__qualname__] = value
    return found


AUDIT_MODELS = _audit_models()


def test_audit_models_declare_their_parameters():
    assert {"KmAnonymity", "TransactionalKAnonymity", "HKPCoherence", "NonreciprocalKAnonymity", "LDiversity",
            "EntropyLDiversity", "RecursiveLDiversity", "TendencyHiding"} <= set(AUDIT_MODELS)


@pytest.mark.parametrize("model", sorted(AUDIT_MODELS))
def test_audit_model_constraints_refuse_generated_values(model):
    cls = AUDIT_MODELS[model]
    for arg, bad in _declared_cases(cls.__init__):
        kwargs = {**_required(cls.__init__, arg), arg: bad}
        with pytest.raises(ParameterError, match=rf"^{arg} must be "):
            cls(**kwargs)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_cli_params_read_the_function_declarations(name):
    """A ``--param`` feeds an argument of the method's function (or is translated by the adapter); its
    text is checked against that argument's declaration: each generated wrong value, as text, is refused
    naming the ``--param``."""
    spec = registered()[name]
    func = get_method(name)
    signature = inspect.signature(func).parameters
    for p in spec.params:
        if p.target is None:
            continue
        assert p.target in signature, (name, p.name, p.target)
        constraints = spec.constraints_of(p)
        for bad in invalid_values(constraints or []):
            if not isinstance(bad, (str, int, float)):  # no text stands for it (an object(): the parsed list is fine)
                continue
            with pytest.raises(ParameterError, match=rf"^--param {p.name}="):
                spec.parse_params({p.name: str(bad)})


@pytest.mark.parametrize("name", ALGORITHMS)
def test_declared_audit_model_exists(name):
    """The audit model a method declares is a registered model (or ``dp``: tested, never audited), and the
    parameters that configure it are declared parameters of the method."""
    from graphanon.algorithms.registry import AUDITED_BY
    from graphanon.privacy.registry import model_names

    model, audit_params = AUDITED_BY[name]
    assert model == "dp" or model in model_names(), (name, model)
    assert set(audit_params) <= set(registered()[name].param_names)
