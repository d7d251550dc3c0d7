"""One declaration per method: what every door to an anonymizer reads (issue 31).

A method is declared once, beside its ``anonymize_*`` function, by a
:class:`MethodDeclaration` (a frozen dataclass): its name, family, one-line
summary, the function, the audit model that checks its releases and which of
its parameters configure that audit, the parameter fields its release may
publish, whether and how it composes with earlier releases (priors), what it
needs (a taxonomy, sensitive labels, ``-k``), the general options it reads
(``k``, ``m``, ``taxonomy``, ``seed``, ``scheduler``, ``epsilon``,
``universe``) and each of its text parameters (:class:`Parameter`: the name
after ``--param``, the function argument it feeds, its parser, default and
help). Each parameter's constraint is the function's own
:func:`~graphanon.utils.params.validate_params` declaration
(``function._parameter_constraints``): the text is parsed, then checked
against it, so the constraint is written once.

Everything else is derived from the declarations
(:mod:`graphanon.algorithms.registry`): the table of functions, the audit
table, the published-parameter allowlist, the priors table, the command
line's view (``graphanon.cli.registry.get_algorithm`` returns the
declaration itself), ``graphanon algorithms`` and the study's grid.

A method is run by name in ONE way, :meth:`MethodDeclaration.run`: the
``--param`` texts are parsed once (:meth:`MethodDeclaration.parse_params`),
the general options and parsed values become the function's keywords
(:meth:`MethodDeclaration.arguments`; an option feeds the argument of the
same name, ``seed`` feeds ``rng`` and ``scheduler`` feeds ``client``), the
method's ``prepare`` hook (if any) translates what cannot be data (COAT's
``privacy=km:M`` from ``-m``, the swaps' ``categories=random:3``), and the
function is called. ``graphanon anonymize``, ``bench``, ``compare`` and
:func:`graphanon.study.run_method` all call it.

Examples
--------
>>> from graphanon.algorithms.registry import get_declaration
>>> nr = get_declaration("nr")
>>> nr.privacy_model, nr.options
('nonreciprocal', ('k', 'seed', 'scheduler'))
>>> nr.parse_params({"order": "gray"})["order"]
'gray'
>>> nr.parse_params({"order": "spiral"})
Traceback (most recent call last):
...
graphanon.errors.ParameterError: --param order='spiral': expected one of gray-tsp, gray, identity

References
----------
scikit-learn, estimator tags and ``sklearn/utils/_param_validation.py`` (the shape, not the code).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphanon.algorithms.run_options import GENERAL_OPTIONS, OPTION_FLAGS, Required, RunOptions
from graphanon.errors import ParameterError
from graphanon.metrics.caveats import Advice
from graphanon.utils.declaration import Parameter, parse_bool, parse_texts, parse_true_false
from graphanon.utils.labels import parse_name_list
from graphanon.utils.params import StrOptions, check_params, describe

__all__ = [
    "COARSENED_TO_PRIORS",
    "Advice",
    "GENERAL_OPTIONS",
    "OPTION_FLAGS",
    "REUSES_PRIOR_ROWS",
    "TRAILING_KEYWORDS",
    "MethodDeclaration",
    "Parameter",
    "Required",
    "RunOptions",
    "parse_bool",
    "parse_name_list",
    "parse_true_false",
]

#: General option -> (the :class:`RunOptions` attribute, the function argument it feeds).
_OPTION_ARGUMENTS = {"k": ("k", "k"), "m": ("m", "m"), "taxonomy": ("taxonomy", "taxonomy"), "seed": ("seed", "rng"),
                     "scheduler": ("client", "client"), "epsilon": ("epsilon", "epsilon"),
                     "universe": ("universe", "universe")}
#: ``MethodDeclaration.priors`` of a method that reuses each prior's rows (it needs the prior's private link).
REUSES_PRIOR_ROWS = "reuses the prior's rows (needs its private link)"
#: ``MethodDeclaration.priors`` of a method whose recoding is coarsened to the priors' common refinement.
COARSENED_TO_PRIORS = "coarsened to the priors' common refinement"
#: The keywords every method's function ends with, in this order (``tests/algorithms/test_common.py`` checks it).
TRAILING_KEYWORDS = ("rng", "unsafe_secret_seed", "progress", "client", "priors")


#: ``prepare(declaration, data, opts, values, kwargs) -> kwargs``: the method-specific translation of a run.
Prepare = Callable[["MethodDeclaration", Any, RunOptions, dict, dict], dict]


@dataclass(frozen=True)
class MethodDeclaration:
    """Everything the package needs to know about one anonymizer, declared beside its function.

    Attributes
    ----------
    name : str
        The method's name (``-a NAME``, ``run_method(NAME, ...)``).
    family : str
        Its family (``hierarchy``, ``nonreciprocal``, ``grouping``, ...), for listings.
    summary : str
        One line for ``graphanon algorithms``.
    function : callable
        Its ``anonymize_*(data, *, ...) -> Release`` function.
    privacy_model : str
        The audit model that checks its releases (``km``, ``constraints``,
        ...; ``dp``: tested, never audited).
    params : tuple of Parameter
        Its text parameters (``--param``).
    audit_params : tuple of str
        The subset of ``params`` that also configures the audit model.
    published : frozenset of str
        The parameter fields its release may publish (``docs/privacy.md``,
        "Published parameters"); ``Release.save`` refuses any other.
    published_nested : dict of str -> frozenset
        For a published field holding a list of objects, the object fields allowed.
    priors : str or None
        How it composes with earlier releases of the same data (``--prior``):
        a phrase starting ``reuses`` (it reuses the prior's rows and needs
        its private link) or ``coarsened`` (to the priors' common
        refinement); None: it refuses priors.
    needs_taxonomy : bool
        Whether it cannot run without a taxonomy (bundled ones count).
    taxonomy_values : dict of str -> frozenset
        Parameter values that need a taxonomy (``rt``'s ``transaction`` ``aa`` and ``mhghs``), a
        parameter's default included: :meth:`taxonomy_asked_by` names them, so that a plan
        (``graphanon compare``) refuses such a run without a taxonomy before anything runs.
    needs_labels : bool
        Whether it cannot run on records without sensitive labels.
    label_params : tuple of str
        The parameters that, when given, need sensitive labels (``nr``'s ``l``).
    secret_structure_with_labels : bool
        Whether, on labelled data without any of ``label_params``, its
        structure must stay secret: ``--seed`` is refused (its ``prepare``
        says why) and a plan (``graphanon compare``, a study) runs it unseeded.
    needs_k : bool
        Whether it cannot run without ``-k`` (refused in one line naming the method).
    required : tuple of Required
        The ``--param`` values (or general options) it cannot run without,
        each with its alternatives (``cut``: ``cut`` or ``level``): every door
        refuses a run that lacks one before anything runs
        (:meth:`missing_required`), ``graphanon compare`` at planning, naming
        the parameter and an example.
    options : tuple of str
        The general options it reads (:data:`GENERAL_OPTIONS`); the others
        are refused when given (an ignored option would make a release look
        like something it is not). ``seed`` is listed only by methods with
        structure randomness.
    combined_params : bool
        One ``--param`` may hold several declared parameters (``h=0.5,private=a,b``).
    verify : bool
        It promises nothing by construction (a user-given cut): when given
        ``-k``, its release records ``k`` and ``m`` and the command line
        audits it with ``privacy_model`` before writing it, refusing a
        violating release unless ``--param force=true``.
    prepare : callable or None
        ``prepare(declaration, data, opts, values, kwargs) -> kwargs``: the
        method's translation logic that cannot be data (refusals between
        options, text policies turned into objects). It receives the parsed
        parameter ``values`` and the keywords derived so far.
    stream : str or None
        ``"module:function"`` writing the release on Dask from a Parquet
        file without the records on the client (``anonymize --scheduler``
        on Parquet); imported only when used.
    advice : Advice
        What the release warnings suggest when its release generalizes or
        suppresses too much, and whether its l-diverse releases deserve the
        label-ranking warning (:class:`graphanon.metrics.caveats.Advice`;
        the doors pass :meth:`release_advice` to
        :func:`~graphanon.metrics.caveats.release_warnings`).
    """

    name: str
    family: str
    summary: str
    function: Callable
    privacy_model: str
    params: tuple[Parameter, ...] = ()
    audit_params: tuple[str, ...] = ()
    published: frozenset = frozenset()
    published_nested: dict = field(default_factory=dict)
    priors: str | None = None
    needs_taxonomy: bool = False
    taxonomy_values: dict = field(default_factory=dict)
    needs_labels: bool = False
    label_params: tuple[str, ...] = ()
    secret_structure_with_labels: bool = False
    needs_k: bool = False
    required: tuple[Required, ...] = ()
    options: tuple[str, ...] = ("k", "m", "taxonomy")
    combined_params: bool = False
    verify: bool = False
    prepare: Prepare | None = None
    stream: str | None = None
    advice: Advice = Advice()

    def __post_init__(self) -> None:
        """Refuse params that are not :class:`Parameter` objects, declared twice, or unknown options."""
        bad = [p for p in self.params if not isinstance(p, Parameter)]
        if bad:
            raise TypeError(f"algorithm {self.name!r}: params must be Parameter objects, got {bad!r}")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"algorithm {self.name!r} declares a --param twice: {names}")
        unknown = [o for o in self.options if o not in OPTION_FLAGS]
        if unknown:
            raise ValueError(f"algorithm {self.name!r} reads unknown general options {unknown}; "
                             f"known: {', '.join(OPTION_FLAGS)}")
        if not set(self.taxonomy_values) <= set(names):
            raise ValueError(f"algorithm {self.name!r}: taxonomy_values {sorted(self.taxonomy_values)} are not all "
                             "declared params")
        for need in self.required:
            unknown = [n for n in need.names if n not in names and n not in self.options]
            defaulted = [p.name for p in self.params if p.name in need.names and p.default is not None]
            if not isinstance(need, Required) or not need.names or unknown or defaulted:
                raise ValueError(f"algorithm {self.name!r}: required {need!r} must be Required naming declared "
                                 "params without a default, or general options it reads")
        if not set(self.audit_params) <= set(names):
            raise ValueError(f"algorithm {self.name!r}: audit_params {self.audit_params} are not all declared params")
        if self.priors is not None and not self.priors.startswith(("reuses", "coarsened")):
            raise ValueError(f"algorithm {self.name!r}: priors must start with 'reuses' or 'coarsened'")
        if not isinstance(self.advice, Advice) or self.advice.public_taxonomy:
            raise TypeError(f"algorithm {self.name!r}: advice must be an Advice without public_taxonomy (derived "
                            "from its params)")

    # -- what the declaration says -------------------------------------------------------------------------

    @property
    def param_names(self) -> tuple[str, ...]:
        """The names of :attr:`params`."""
        return tuple(p.name for p in self.params)

    @property
    def reuses_prior_rows(self) -> bool:
        """Whether it composes with a prior by reusing its rows (it needs the prior's private link)."""
        return self.priors is not None and self.priors.startswith("reuses")

    def taxonomy_asked_by(self, values: dict) -> str | None:
        """The ``--param name=value`` among the parsed ``values`` that needs a taxonomy, or None.

        Examples
        --------
        >>> def f(data, *, engine="a", unsafe_secret_seed=None, progress=None):
        ...     return data
        >>> d = MethodDeclaration(name="x", family="t", summary="", function=f, privacy_model="km",
        ...                       params=(Parameter("engine", str, "a", "e"),),
        ...                       taxonomy_values={"engine": frozenset({"a"})})
        >>> d.taxonomy_asked_by(d.parse_params({})), d.taxonomy_asked_by(d.parse_params({"engine": "b"}))
        ('--param engine=a', None)
        """
        for name, needing in self.taxonomy_values.items():
            if values.get(name) in needing:
                return f"--param {name}={values[name]}"
        return None

    def missing_required(self, values: dict, opts: RunOptions | None = None, *, prefix: str = "",
                         audit: bool = False) -> str | None:
        """The refusal of a run whose parsed ``values`` (and ``opts``) lack a :attr:`required` one, or None.

        One line naming the method, each alternative and the example
        (``prefix`` before the example's name: ``cut.`` for ``graphanon compare``'s ``--param cut.level=1``).
        ``audit``: the run's release is audited, so a :attr:`Required.for_audit` one is required too.

        Examples
        --------
        >>> from graphanon.algorithms.registry import get_declaration
        >>> cut = get_declaration("cut")
        >>> cut.missing_required(cut.parse_params({})).split(";")
        ["algorithm 'cut' needs --param cut or --param level (the cut's nodes, or its depth)", ' for example --param level=1']
        >>> cut.missing_required(cut.parse_params({"level": "1"})) is None
        True
        """
        for need, text in zip(self.required, self.required_texts(prefix=prefix)):
            if need.for_audit and not audit:
                continue
            given = [n for n in need.names if (values.get(n) if n in self.param_names else
                                               getattr(opts, _OPTION_ARGUMENTS[n][0], None)) is not None]
            if not given:
                return f"algorithm {self.name!r} needs {text}"
        return None

    def required_texts(self, *, prefix: str = "") -> list[str]:
        """Each of :attr:`required` in words, with its example (``graphanon algorithms NAME`` lists them)."""
        out = []
        for need in self.required:
            flags = " or ".join(f"--param {n}" if n in self.param_names else OPTION_FLAGS[n] for n in need.names)
            forms = f" ({need.forms})" if need.forms else ""
            example = need.example if need.example.startswith("-") else f"--param {prefix}{need.example}"
            out.append(f"{flags}{forms}; for example {example}")
        return out

    def release_advice(self) -> Advice:
        """Its :attr:`advice` for :func:`~graphanon.metrics.caveats.release_warnings`, knowing its parameters.

        ``public_taxonomy`` is True when it declares ``--param public_taxonomy``.
        """
        return dataclasses.replace(self.advice, public_taxonomy="public_taxonomy" in self.param_names)

    def function_constraints(self) -> dict:
        """The declared constraints of the function (argument name -> list of constraints)."""
        return dict(getattr(self.function, "_parameter_constraints", {}))

    def constraints_of(self, param: Parameter) -> list | None:
        """The declared constraints of the argument ``param`` feeds (None: ``prepare`` translates it)."""
        if param.target is None:
            return None
        allowed = self.function_constraints().get(param.target)
        return None if allowed == "no_validation" else allowed

    def choices_of(self, param: Parameter) -> tuple[str, ...] | None:
        """The allowed texts of ``param``: its own ``choices``, or the function's ``StrOptions``."""
        if param.choices is not None:
            return param.choices
        options = [c for c in self.constraints_of(param) or () if isinstance(c, StrOptions)]
        return tuple(o for c in options for o in c.options) or None

    def describe_params(self) -> list[dict]:
        """JSON-safe descriptions of :attr:`params` (choices and allowed values from the function)."""
        out = []
        for p in self.params:
            row = p.describe()
            choices = self.choices_of(p)
            row["choices"] = None if choices is None else list(choices)
            constraints = self.constraints_of(p)
            row["allowed"] = None if constraints is None else describe(constraints)
            out.append(row)
        return out

    # -- the one text-to-value parser -----------------------------------------------------------------------

    def parse_param(self, param: Parameter, text: str):
        """``text`` converted by ``param`` and checked against the declaration of the argument it feeds."""
        choices = self.choices_of(param)
        if choices is not None and text not in choices:
            raise ParameterError(f"--param {param.name}={text!r}: expected one of {', '.join(choices)}")
        value = param.parse(text)
        constraints = self.constraints_of(param)
        if constraints is not None:
            try:
                check_params({param.target: constraints}, {param.target: value})
            except ParameterError as exc:
                raise ParameterError(f"--param {param.name}={text!r}: {exc}") from None
        return value

    def parse_params(self, raw: dict[str, str]) -> dict[str, Any]:
        """The ``--param`` texts converted and checked; every declared parameter, at its default when not given.

        Unknown names are refused (:class:`ParameterError`).
        """
        return parse_texts(self.params, raw, owner=f"algorithm {self.name!r}", combined=self.combined_params,
                           parse=self.parse_param)

    # -- the one way to run a method by name ----------------------------------------------------------------

    def check_options(self, opts: RunOptions, *, audit: bool = False) -> None:
        """Refuse ignored general options, unknown or unconvertible ``--param`` texts and missing :attr:`required` ones.

        All raise :class:`ParameterError`; what was typed wrong is refused before what is missing. ``audit``: the
        release will be audited (``bench``, ``compare``, a study), so :attr:`Required.for_audit` ones count too.
        """
        values = self.parse_params(opts.params)
        if "epsilon" in self.options and opts.is_given("seed"):
            raise ParameterError(
                f"algorithm {self.name!r} is differentially private: --seed would make its noise reproducible "
                "(its noise and choices come from OS entropy); drop --seed"
            )
        extra = [name for name in OPTION_FLAGS if name not in self.options and opts.is_given(name)]
        if extra:
            what = ", ".join(OPTION_FLAGS[name] for name in extra)
            note = (
                " (it has no structure randomness for a seed to fix; secret choices, if any, use OS entropy)"
                if "seed" in extra
                else ""
            )
            raise ParameterError(
                f"algorithm {self.name!r} does not use {what}{note}; drop {'it' if len(extra) == 1 else 'them'}"
            )
        # what was typed wrong first, then what is missing
        if (missing := self.missing_required(values, opts, audit=audit)) is not None:
            raise ParameterError(missing)
        if self.needs_k and "k" in self.options:
            opts.required_k(self.name)

    def arguments(self, data, opts: RunOptions, values: dict) -> dict:
        """The function's keywords for a run: general options, parsed parameters, then ``prepare``.

        A general option the method reads feeds the function argument of the
        same name when the function has one (``seed`` feeds ``rng``,
        ``scheduler`` feeds ``client``, given only when set); ``-k`` is
        required when :attr:`needs_k`; a parameter feeds its
        :attr:`Parameter.target`; ``priors``, ``unsafe_secret_seed`` and
        ``progress`` are passed to a function that takes them.
        """
        signature = inspect.signature(self.function).parameters
        kwargs: dict[str, Any] = {}
        for option in self.options:
            attribute, argument = _OPTION_ARGUMENTS[option]
            if argument not in signature:
                continue
            value = getattr(opts, attribute)
            if option == "k" and self.needs_k:
                value = opts.required_k(self.name)
            if option == "scheduler" and value is None:
                continue
            kwargs[argument] = value
        kwargs.update({p.target: values[p.name] for p in self.params if p.target is not None})
        if self.priors is not None and "priors" in signature:
            kwargs["priors"] = opts.priors
        for name in ("unsafe_secret_seed", "progress"):
            if name in signature:
                kwargs[name] = getattr(opts, name)
        if self.prepare is not None:
            kwargs = self.prepare(self, data, opts, values, kwargs)
        return kwargs

    def run(self, data, opts: RunOptions):
        """Run the method on ``data`` with ``opts``: the one way a method is run by name.

        The ``--param`` texts are parsed once and checked against the
        declarations (errors name the ``--param``), the keywords are derived
        (:meth:`arguments`) and the function is called. A :attr:`verify`
        method given ``-k`` records the ``k`` and ``m`` it claims in its
        release (the command line then audits it).
        """
        values = self.parse_params(opts.params)
        if (missing := self.missing_required(values, opts)) is not None:
            raise ParameterError(missing)
        release = self.function(data, **self.arguments(data, opts, values))
        if self.verify and opts.k is not None:
            release.params.update(k=opts.k, m=opts.m)
        return release
