"""One declaration per method (issue 31): every table derived, every keyword declared, one order, one parser.

* the declared keys of each method equal its function's signature keywords
  (``NO_VALIDATION`` marks a keyword the function checks itself);
* the trailing keywords come in one order (``TRAILING_KEYWORDS``);
* outside its own module (and its family's ``METHOD_DECLARATIONS`` index) no
  method's name is written in the package, except the few listed with a reason;
* ``--param`` texts of a method are parsed in one place
  (:meth:`~graphanon.algorithms.declaration.MethodDeclaration.parse_params`),
  and ``balanced:FANOUT[:SEED]`` in one place (``parse_balanced``).
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
from pathlib import Path

import pytest

from graphanon.algorithms.declaration import (
    TRAILING_KEYWORDS,
    MethodDeclaration,
    Parameter,
    RunOptions,
)
from graphanon.algorithms.registry import (
    AUDITED_BY,
    FAMILIES,
    PRIOR_METHODS,
    PUBLISHED_PARAMS,
    declarations,
    get_declaration,
    register_method,
)
from graphanon.cli.registry import get_algorithm
from graphanon.errors import ParameterError
from graphanon.utils.params import NO_VALIDATION

PACKAGE = Path(__file__).resolve().parents[2] / "graphanon"
DECLARATIONS = declarations()
NAMES = sorted(DECLARATIONS)


@pytest.mark.parametrize("name", NAMES)
def test_declared_keys_equal_the_signature(name):
    """Every keyword of the function is declared (constraints, or the ``NO_VALIDATION`` marker), and nothing else."""
    function = DECLARATIONS[name].function
    keywords = {p for p, v in inspect.signature(function).parameters.items()
                if p != "data" and v.kind is v.KEYWORD_ONLY}
    declared = set(function._parameter_constraints)
    assert declared == keywords, (name, "undeclared:", sorted(keywords - declared), "unknown:",
                                  sorted(declared - keywords))
    for keyword, allowed in function._parameter_constraints.items():
        assert allowed == NO_VALIDATION or (isinstance(allowed, list) and allowed), (name, keyword, allowed)


@pytest.mark.parametrize("name", NAMES)
def test_trailing_keywords_in_one_order(name):
    """``rng, unsafe_secret_seed, progress, client, priors`` -- those a method takes -- end its signature, in order."""
    keywords = list(inspect.signature(DECLARATIONS[name].function).parameters)
    taken = [k for k in TRAILING_KEYWORDS if k in keywords]
    assert keywords[len(keywords) - len(taken):] == taken, (name, keywords)


@pytest.mark.parametrize("name", NAMES)
def test_a_declaration_sits_beside_its_function_and_feeds_its_arguments(name):
    declaration = DECLARATIONS[name]
    module = importlib.import_module(declaration.function.__module__)
    assert any(value is declaration for value in vars(module).values()), (name, module.__name__)
    signature = inspect.signature(declaration.function).parameters
    for p in declaration.params:
        assert p.target is None or p.target in signature, (name, p.name, p.target)
    if declaration.priors is not None:
        assert "priors" in signature, name
    assert declaration is get_algorithm(name)  # the command line's view is the declaration itself


def test_family_indexes_name_their_declarations():
    for family in FAMILIES:
        for name, target in importlib.import_module(family).METHOD_DECLARATIONS.items():
            module, _, attribute = target.partition(":")
            assert getattr(importlib.import_module(module), attribute).name == name, (family, name)


def test_derived_tables_read_the_declarations():
    for name, declaration in DECLARATIONS.items():
        assert AUDITED_BY[name] == (declaration.privacy_model, declaration.audit_params)
        assert PUBLISHED_PARAMS[name] == declaration.published
        assert (name in PRIOR_METHODS) == (declaration.priors is not None)


def test_a_declaration_refuses_what_it_cannot_mean():
    def f(data, *, k, unsafe_secret_seed=None, progress=None):
        return data

    with pytest.raises(ValueError, match="unknown general options"):
        MethodDeclaration(name="x", family="t", summary="", function=f, privacy_model="km", options=("kk",))
    with pytest.raises(ValueError, match="audit_params"):
        MethodDeclaration(name="x", family="t", summary="", function=f, privacy_model="km", audit_params=("l",))
    with pytest.raises(ValueError, match="declares a --param twice"):
        MethodDeclaration(name="x", family="t", summary="", function=f, privacy_model="km",
                          params=(Parameter("a", int, 1, "a"), Parameter("a", int, 2, "a")))


def test_run_parses_each_text_once_and_feeds_options_by_name(monkeypatch):
    """A general option feeds the argument of its name (``seed`` -> ``rng``); a text is converted once."""
    calls = []

    def parse(text):
        calls.append(text)
        return int(text)

    def anonymize_toy(data, *, k, width=1, rng=None, unsafe_secret_seed=None, progress=None):
        return {"k": k, "width": width, "rng": rng, "secret": unsafe_secret_seed}

    toy = MethodDeclaration(name="toy", family="t", summary="", function=anonymize_toy, privacy_model="km",
                            params=(Parameter("width", parse, 1, "w"),), needs_k=True, options=("k", "seed"))
    out = toy.run(None, RunOptions(k=3, seed=9, params={"width": "4"}, unsafe_secret_seed=2))
    assert out == {"k": 3, "width": 4, "rng": 9, "secret": 2} and calls == ["4"]
    with pytest.raises(ParameterError, match="algorithm 'toy' needs -k K"):
        toy.run(None, RunOptions())
    with pytest.raises(ParameterError, match="unknown --param depth for algorithm 'toy'"):
        toy.run(None, RunOptions(k=2, params={"depth": "1"}))


def test_a_registered_declaration_gets_every_door(monkeypatch):
    from graphanon.algorithms import registry

    monkeypatch.setattr(registry._declared(), "_values", dict(registry._declared()._values))

    def anonymize_other(data, *, k, unsafe_secret_seed=None, progress=None):
        return data

    declaration = MethodDeclaration(name="other", family="t", summary="s", function=anonymize_other,
                                    privacy_model="km", published=frozenset({"k"}))
    register_method(declaration)
    assert get_declaration("other") is declaration and AUDITED_BY["other"] == ("km", ())
    assert PUBLISHED_PARAMS["other"] == frozenset({"k"})
    from graphanon.release import PUBLISHED_PARAMS as release_allowlist

    assert release_allowlist["other"] == frozenset({"k"})


# ---------------------------------------------------------------- no method name outside its module

#: (module, name) -> why the name is written there. The method ``cut`` shares its name with the taxonomy
#: cut, a parameter, trace field and column of the hierarchy code and drawings: those are the concept.
EXCEPTIONS = {
    ("graphanon.algorithms.hierarchy._declared", "cut"): "the parameter cut of -a cut's hook (the family's)",
    ("graphanon.algorithms.hierarchy._search", "cut"): "the search's cut (a trace field), not the method",
    ("graphanon.algorithms.hierarchy.aa_dask", "cut"): "the size of AA's cut in the streamed summary",
    ("graphanon.viz.views.taxonomy", "cut"): "the column and label 'cut' of the drawn taxonomy cut",
    ("graphanon.algorithms.hierarchy._index", "hghs"): "the shared threat index names the family method in its "
                                                       "advice (hghs vs mhghs); inside the family",
    ("graphanon.algorithms.hierarchy._walk", "hghs"): "the shared walk of HgHs and mHgHs: the same, in the family",
    ("graphanon.cli.draw", "hghs"): "`draw search` draws the HgHs search, which only these two methods have",
    ("graphanon.cli.draw", "mhghs"): "the same",
    ("graphanon.algorithms.prior", "cahd"): "grown data re-runs the prior's method on the added records (cahd "
                                            "with l only, nr otherwise); the call differs by method",
    ("graphanon.privacy.label_matching", "nr"): "the label-ranking model applies to nr's releases with l; the "
                                                "audit layer sits below the declarations",
    ("graphanon.release.codebook", "coat"): "the export names the model a COAT release is read with; the release "
                                          "layer sits below the declarations",
    ("graphanon.viz.dp", "cut"): "the column 'cut' of DiffPart's drawn partition tree (a taxonomy cut)",
    **{("graphanon.algorithms.relational.rt", name): "rt's transaction=aa|mhghs|coat runs that method's engine on "
                                                     "each group: the choice is rt's own parameter value"
       for name in ("aa", "mhghs", "coat")},
    **{(module, "rt"): "the audit model 'rt' ((k, k^m)-anonymity), which shares the method's name"
       for module in ("graphanon.cli.anonymize", "graphanon.cli.audit", "graphanon.privacy.registry", "graphanon.privacy.rt",
                      "graphanon.release.relational", "graphanon.release.codebook")},
    ("graphanon.release.codebook", "rt-naive"): "the codebook says the naive baseline's release is NOT (k, k^m)-"
                                              "anonymous; the release layer sits below the declarations",
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _source(path: Path) -> tuple[str, tuple[ast.AST, ...]]:
    """The text of ``path`` and every node of its syntax tree (``ast.walk`` order), read and parsed once for all
    the checks of this file (each of them reads every module of the package)."""
    text = path.read_text(encoding="utf-8")
    return text, tuple(ast.walk(ast.parse(text)))


def _written_names(path: Path, names: set[str]) -> set[str]:
    """The method names written as string constants in ``path`` (docstrings, which run as doctests, excluded)."""
    _, nodes = _source(path)
    docstrings = {id(node.body[0].value) for node in nodes
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in nodes if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in names and id(node) not in docstrings}


def test_no_method_name_is_written_outside_its_module():
    names = set(NAMES)
    own = {}
    for name, declaration in DECLARATIONS.items():
        own.setdefault(declaration.function.__module__, set()).add(name)
    family_index = {family: set(importlib.import_module(family).METHOD_DECLARATIONS) for family in FAMILIES}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        allowed = own.get(module, set()) | family_index.get(module, set())
        for name in sorted(_written_names(path, names) - allowed):
            if (module, name) not in EXCEPTIONS:
                found.append(f"{module}: {name!r}")
    assert found == [], "a method name written outside its declaration; read it from the declaration instead"


def test_every_listed_exception_is_still_needed():
    names = set(NAMES)
    still = {(_module(p), n) for p in PACKAGE.rglob("*.py") for n in _written_names(p, names)}
    assert set(EXCEPTIONS) - still == set()


def test_the_name_check_catches_a_planted_name(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text('"""Docstring naming "mm" is fine."""\nMETHOD = "mm"\nOTHER = f"-a {1} mm"\n')
    assert _written_names(planted, {"mm"}) == {"mm"}


# ---------------------------------------------------------------- one parser

def _calls(path: Path, function: str) -> bool:
    return any(isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == function
               for node in _source(path)[1])


def test_param_texts_have_one_parser():
    """``--param`` texts become values through :func:`graphanon.utils.declaration.parse_texts` only, for the
    methods' declarations and the audit models' alike; ``graphanon.privacy`` parses no command-line text; no
    module keeps a copy of a method's defaults."""
    modules = list(PACKAGE.rglob("*.py"))
    expanding = {_module(p) for p in modules if _calls(p, "expand_params")}
    assert expanding == {"graphanon.utils.declaration"}
    assert {_module(p) for p in modules if _calls(p, "parse_texts")} == {
        "graphanon.algorithms.declaration", "graphanon.algorithms.run_options", "graphanon.privacy.declaration"}
    parsing = {_module(p) for p in modules
               if any(isinstance(n, ast.FunctionDef) and n.name in ("parse_params", "parse_param", "parse_texts")
                      for n in _source(p)[1])}
    assert parsing == {"graphanon.algorithms.declaration", "graphanon.utils.declaration"}
    privacy = [p for p in modules if _module(p).startswith("graphanon.privacy.")]
    assert not [(_module(p), f) for p in privacy for f in ("expand_params", "parse_name_list", "parse_param_pairs")
                if _calls(p, f)], "an audit model parses --param text: declare a Parameter instead"
    assert not any("_POLICY_DEFAULTS" in _source(p)[0] for p in modules)


def test_every_audit_model_is_declared():
    """Every registered audit model is a ``ModelDeclaration`` whose ``build`` takes exactly its declared
    parameters (plus the general options), so the registry, ``audit --param`` and the model agree."""
    import inspect

    from graphanon.privacy.declaration import ModelDeclaration
    from graphanon.privacy.registry import get_model, model_names

    for name in model_names():
        decl = get_model(name)
        assert isinstance(decl, ModelDeclaration) and decl.name == name
        keys = set(inspect.signature(decl.build).parameters) - {"k", "m", "original", "taxonomy"}
        assert keys == {p.name for p in decl.params}, name


def _functions_splitting_balanced(path: Path) -> list[str]:
    """Functions of ``path`` that test a text for ``("balanced")`` and split it on ``:``: parsers of the spec."""
    text, nodes = _source(path)
    if '("balanced")' not in text or 'split(":")' not in text:  # no function's text can hold both
        return []  # (ast.get_source_segment splits the whole file's lines: 50 s over the package's functions)
    return [node.name for node in nodes if isinstance(node, ast.FunctionDef)
            and '("balanced")' in (segment := ast.get_source_segment(text, node) or "") and 'split(":")' in segment]


def test_the_balanced_check_catches_a_planted_parser(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text('def f(spec):\n    if spec.startswith("balanced"):\n        return spec.split(":")[1]\n\n\n'
                       'def g(spec):\n    return spec.split(":")\n')
    assert _functions_splitting_balanced(planted) == ["f"]


def test_balanced_taxonomy_specs_have_one_parser():
    splitting = {_module(p) for p in PACKAGE.rglob("*.py") if _functions_splitting_balanced(p)}
    users = {_module(p) for p in PACKAGE.rglob("*.py") if _calls(p, "parse_balanced")}
    assert splitting <= {"graphanon.taxonomy.build"}
    assert {"graphanon.cli._app", "graphanon.study.execute"} <= users


# ---------------------------------------------------------------- a method of another package (entry point)

def anonymize_plugin(data, *, k, unsafe_secret_seed=None, progress=None):
    """A method of 'another package': the identity (the registry test needs only its declaration)."""
    return data


PLUGIN = MethodDeclaration(name="plugin", family="elsewhere", summary="a method from an entry point",
                           function=anonymize_plugin, privacy_model="km", published=frozenset({"k"}))


def test_an_entry_point_declares_a_method(monkeypatch):
    """A declaration named by an entry point of the group ``graphanon.methods`` joins the registry."""
    from importlib.metadata import EntryPoint

    from graphanon.algorithms import registry
    from graphanon.errors import PluginWarning

    points = [EntryPoint(name="plugin", value="tests.algorithms.test_declarations:PLUGIN", group=registry.ENTRY_POINT_GROUP),
              EntryPoint(name="nr", value="tests.algorithms.test_declarations:PLUGIN", group=registry.ENTRY_POINT_GROUP)]
    reads = []
    monkeypatch.setattr(registry, "_REGISTRY", None)
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: reads.append(group) or (points if group == registry.ENTRY_POINT_GROUP else []))
    assert get_declaration("nr").family == "nonreciprocal" and reads == []  # a built-in name reads no entry point
    with pytest.warns(PluginWarning, match="^graphanon.methods entry point 'nr' .*the method name 'nr' is taken"):
        assert "plugin" in registry.method_names() and get_declaration("plugin") is PLUGIN
    assert get_declaration("nr").family == "nonreciprocal" and reads == [registry.ENTRY_POINT_GROUP]  # read once
    assert get_algorithm("plugin") is PLUGIN and AUDITED_BY["plugin"] == ("km", ())
    assert set(NAMES) < set(registry.method_names())  # the built-in methods are still there
