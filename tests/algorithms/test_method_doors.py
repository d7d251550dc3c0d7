"""Every door to a method runs it with the same defaults (issue 31).

``graphanon anonymize``, ``graphanon compare``, :func:`graphanon.study.run_method`,
:func:`graphanon.algorithms.registry.run_declared` (all through the method's
declaration, :meth:`~graphanon.algorithms.declaration.MethodDeclaration.run`)
and, where the function takes Python values only, the function itself
(:func:`graphanon.algorithms.run_method`) make the SAME release of each
method's worked example (``tests/algorithms/test_common.py`` ``EXAMPLES``) when only the
example's options are given: byte-equal saved files under a fixed
``unsafe_secret_seed``. A default copied into one door and changed in another
(the study once passed no COAT ``s``) makes the files differ or a door fail.
"""

from __future__ import annotations

import inspect

import pytest

from graphanon.algorithms import get_method
from graphanon.algorithms import run_method as run_function
from graphanon.algorithms.declaration import MethodDeclaration, RunOptions
from graphanon.algorithms.registry import run_declared
from graphanon.cli.registry import get_algorithm
from graphanon.datasets import load, load_taxonomy
from graphanon.study import run_method
from tests.algorithms.test_common import EXAMPLES

pytestmark = pytest.mark.slow  # one of the slowest files (docs/testing.md)

#: methods whose function door needs what only their command-line adapter builds: COAT's policies from text
#: (no defaults in the function), cut's claimed k and m (added to the release by the adapter), the swaps'
#: categories (an ItemGroups built from random:N:SEED)
_ADAPTED = {"coat", "cut", "fullswap", "partsupp", "partswap", "splitperson"}


@pytest.fixture
def made(monkeypatch):
    """The releases made through ``MethodDeclaration.run`` (every door but the function's), secret choices fixed."""
    releases = []
    real = MethodDeclaration.run

    def fixed(self, data, opts):
        opts.unsafe_secret_seed = 0
        release = real(self, data, opts)
        releases.append(release)
        return release

    monkeypatch.setattr(MethodDeclaration, "run", fixed)
    return releases


def _general(name: str) -> dict:
    dataset, general, _params, _audit = EXAMPLES[name]
    general = dict(general)
    if "seed" in get_algorithm(name).options:   # compare gives a seeded method --seed (default 0)
        general.setdefault("seed", 0)
    return general


#: differentially private methods: no seed reproduces their noise and compare refuses them (no --epsilon axis
#: yet); tests/algorithms/test_dp.py checks their doors
#: relational-transaction methods read --relational FILE --qi COLUMNS, which their EXAMPLES (an in-memory RTData)
#: have no file of: their doors (anonymize, compare, the API, bench) are compared in tests/cli/test_rt_doors.py
_DOORS = sorted(name for name in EXAMPLES if get_algorithm(name).privacy_model not in ("dp", "rt"))


@pytest.mark.parametrize("name", _DOORS)
def test_anonymize_compare_and_the_api_make_the_same_release(name, made, run, tmp_path):
    dataset, _general_options, params, _audit = EXAMPLES[name]
    general = _general(name)
    flags = [word for option, flag in (("k", "-k"), ("m", "-m"), ("seed", "--seed")) if option in general
             for word in (flag, str(general[option]))]
    param_flags = [word for pname, text in params.items() for word in ("--param", f"{pname}={text}")]

    res = run("anonymize", dataset, "-a", name, *flags, *param_flags, "-o", "anonymize.json")
    assert res.exit_code == 0, res.output
    assert len(made) == 1

    run("compare", dataset, "-a", name, *flags, *param_flags, "-o", "study", "-j", "1", "--queries", "0",
            "--attack-targets", "0")
    assert len(made) == 2, "compare made no release"
    made[1].save(tmp_path / "compare.json")

    spec = get_algorithm(name)
    data = load(dataset)
    taxonomy = load_taxonomy(dataset) if spec.needs_taxonomy else None
    release = run_method(name, data, taxonomy=taxonomy, params=params, **general)
    release.save(tmp_path / "api.json")
    run_declared(name, data, RunOptions(taxonomy=taxonomy, params=dict(params), **general)).save(
        tmp_path / "declared.json")

    expected = (tmp_path / "anonymize.json").read_bytes()
    assert (tmp_path / "compare.json").read_bytes() == expected
    assert (tmp_path / "api.json").read_bytes() == expected
    assert (tmp_path / "declared.json").read_bytes() == expected

    if name in _ADAPTED:
        return
    function = inspect.signature(get_method(name)).parameters
    values = spec.parse_params(params)
    kwargs = {p.target: values[p.name] for p in spec.params if p.name in params and p.target is not None}
    kwargs.update({option: general[option] for option in ("k", "m") if option in general and option in function})
    if "seed" in general:
        kwargs["rng"] = general["seed"]
    if taxonomy is not None:
        kwargs["taxonomy"] = taxonomy
    run_function(name, data, unsafe_secret_seed=0, **kwargs).save(tmp_path / "function.json")
    assert (tmp_path / "function.json").read_bytes() == expected
