"""The anonymizers as the command line sees them (``graphanon anonymize -a NAME``).

Each family's module under :mod:`graphanon.cli.methods` declares an
:class:`AlgorithmSpec` per method: its ``--param`` texts (:class:`Param`),
the general options it reads, the audit model that checks its releases, and
the ``run`` adapter that turns :class:`RunOptions` into a call of the
method's ``anonymize_*`` function. The algorithm modules speak Python only;
the Python-level table of the functions is
:mod:`graphanon.algorithms.registry` (``run_method``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphanon.errors import ParameterError
from graphanon.utils.labels import parse_name_list
from graphanon.utils.params import StrOptions, check_params, describe, expand_params
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.registry import LazyRegistry

__all__ = [
    "AlgorithmSpec",
    "Param",
    "RunOptions",
    "get_algorithm",
    "parse_bool",
    "parse_name_list",
    "register",
    "registered",
]


@dataclass(frozen=True)
class Param:
    """One ``--param name=value`` option of an algorithm, declared once.

    The CLI parses ``--param`` with it (``type`` converts the text, ``choices``
    limits the values, unknown names are refused), ``graphanon algorithms``
    prints it and ``tests/test_common.py`` reads it.

    Parameters
    ----------
    name : str
        The name after ``--param``.
    type : callable(str) -> value
        Converts the text given on the command line (``int``, ``float``,
        :func:`parse_bool`, :func:`parse_name_list`, ``str`` ...); a
        ``ValueError`` or ``TypeError`` becomes a :class:`ParameterError`
        naming the parameter.
    default : object
        The value when the option is not given (None: the method's default).
    help : str
        One line for ``graphanon algorithms``.
    choices : tuple of str, optional
        The allowed texts (checked before ``type``) of an option the adapter
        translates; an option that feeds a declared argument takes its
        choices from the declaration (:meth:`AlgorithmSpec.choices_of`).
    argument : str or None
        The argument of the method's ``anonymize_*`` function this option
        feeds as converted (default: the same name); None when the adapter
        translates it (``categories=random:3`` becomes an ``ItemGroups``).
        The converted value is checked against that argument's declared
        constraints (:mod:`graphanon.utils.params`).

    Examples
    --------
    >>> Param("l", int, None, "l-diversity").parse("3")
    3
    >>> Param("order", str, "gray-tsp", "record order", choices=("gray", "gray-tsp")).parse("tsp")
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: --param order='tsp': expected one of gray, gray-tsp
    """

    name: str
    type: Callable = str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = None
    argument: str | None = ""

    @property
    def target(self) -> str | None:
        """The function argument fed (``argument``, or ``name`` when not set)."""
        return self.name if self.argument == "" else self.argument

    def parse(self, text: str):
        """``text`` (as given on the command line) converted by ``type``."""
        if self.choices is not None and text not in self.choices:
            raise ParameterError(f"--param {self.name}={text!r}: expected one of {', '.join(self.choices)}")
        try:
            return self.type(text)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"--param {self.name}={text!r}: {exc}") from None

    def describe(self) -> dict:
        """JSON-safe description (name, type, default, help, choices) for listings."""
        default = self.default
        if not (default is None or isinstance(default, (bool, int, float, str))):
            default = list(default) if isinstance(default, (tuple, list)) else repr(default)
        return {"name": self.name, "type": self.type_name, "default": default, "help": self.help,
                "choices": None if self.choices is None else list(self.choices)}

    @property
    def type_name(self) -> str:
        """Short name of the value type, for listings."""
        name = getattr(self.type, "__name__", "value")
        return {"str": "text", "float": "number", "parse_name_list": "list", "parse_bool": "bool"}.get(
            name, name.removeprefix("parse_"))


def parse_bool(text: str) -> bool:
    """``true/yes/1/on`` or ``false/no/0/off`` (any case) as a bool.

    Examples
    --------
    >>> parse_bool("True"), parse_bool("off")
    (True, False)
    """
    value = text.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise ValueError("expected true or false")


@dataclass
class RunOptions:
    """Options the CLI collects for any algorithm.

    Attributes
    ----------
    k, m : int or None
        Privacy parameters (meaning per algorithm; m=None is unbounded).
    taxonomy : Taxonomy or None
        Item hierarchy given with ``--taxonomy`` (or bundled with the dataset).
    seed : int or None
        Seed of the structure randomness (``rng=`` of the anonymizers).
    unsafe_secret_seed : int or None
        Tests only: fixes the secret choices (row shuffle, chosen assignment);
        the command line never sets it.
    params : dict of str -> str
        Algorithm-specific ``--param name=value`` pairs, as given.
    progress : callable(done, total, message) or None
        Progress callback (the CLI shows a progress bar).
    given : frozenset of str or None
        Which of ``k``, ``m``, ``taxonomy``, ``seed`` the user typed on the
        command line (``-m inf`` is given though ``m`` is None, a bundled
        taxonomy is not); options given but unused are refused. None (the
        default, for callers other than the CLI): nothing is refused for
        being given.
    client : dask.distributed.Client or None
        ``--scheduler``: where a method that takes ``client=`` runs its
        distributed part (None: in this process).
    priors : list of graphanon.algorithms.prior.Prior or None
        ``--prior``: earlier releases of the same data the new one must
        compose with (methods in :data:`graphanon.algorithms.prior.PRIOR_METHODS`).
    epsilon : float or None
        ``--epsilon``: the privacy loss of a differentially private release.
    universe : list of str or None
        ``--universe FILE``: the public item universe of a DP method (one item per line).
    """

    k: int | None = None
    m: int | None = None
    taxonomy: Any = None
    seed: int | None = None
    unsafe_secret_seed: int | None = None
    params: dict[str, str] = field(default_factory=dict)
    progress: ProgressCallback | None = None
    given: frozenset[str] | None = None
    client: Any = None
    priors: Any = None
    epsilon: float | None = None
    universe: list[str] | None = None

    def is_given(self, name: str) -> bool:
        """Whether the user typed option ``name`` (``k``, ``m``, ``taxonomy`` or ``seed``)."""
        return self.given is not None and name in self.given

    def refuse(self, names, why: str) -> None:
        """Raise when any option of ``names`` was given: ``why`` says why it would be ignored."""
        extra = [name for name in names if self.is_given(name)]
        if extra:
            flags = ", ".join(OPTION_FLAGS[name] for name in extra)
            raise ParameterError(f"{flags}: {why}; drop {'it' if len(extra) == 1 else 'them'}")

    def required_k(self, algorithm: str) -> int:
        """``-k``, which ``algorithm`` cannot run without (a one-line :class:`ParameterError` naming it)."""
        if self.k is None:
            raise ParameterError(f"algorithm {algorithm!r} needs -k K")
        return self.k

    def require_labels(self, data, what: str) -> None:
        """Raise, in the command line's words, when ``data`` has no sensitive labels.

        ``what`` names the request that needs them (``"--param l=2"``). The
        Python API says the same with ``labels=`` (see
        :func:`graphanon.utils.validation.check_diversity_feasible`).
        """
        if getattr(data, "labels", None) is None:
            raise ParameterError(
                f"{what} (l-diversity) needs sensitive labels, and the input has none: give the data as long CSV "
                "with --label COLUMN naming each record's sensitive label (see `graphanon anonymize --help`)"
            )

    def values(self, params: tuple[Param, ...], *, combined: bool = False) -> dict[str, Any]:
        """The ``--param`` values converted by the declared ``params`` (their ``default`` when not given); names not declared are refused (:class:`ParameterError`).

        With ``combined``, one ``--param`` may hold several declared parameters
        (``h=0.5,private=a,b``; see :func:`graphanon.utils.params.expand_params`).
        """
        raw = expand_params(self.params, {p.name for p in params}) if combined else self.params
        self.unknown_params({p.name for p in params}, raw)
        return {p.name: (p.parse(raw[p.name]) if p.name in raw else p.default) for p in params}

    def unknown_params(self, known: set[str], given: dict[str, str] | None = None) -> None:
        """Raise for ``--param`` names (of ``given``, default :attr:`params`) the algorithm does not take."""
        extra = sorted(set(self.params if given is None else given) - known)
        if extra:
            raise ParameterError(
                f"unknown --param {', '.join(extra)}; this algorithm takes: {', '.join(sorted(known)) or 'none'}"
            )


#: The general options of the CLI by name, as typed (the `options` of an AlgorithmSpec).
OPTION_FLAGS = {"k": "-k", "m": "-m", "taxonomy": "--taxonomy", "seed": "--seed", "scheduler": "--scheduler",
                "epsilon": "--epsilon", "universe": "--universe"}


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered anonymizer.

    Attributes
    ----------
    name : str
        CLI name (``-a NAME``).
    summary : str
        One line for ``graphanon anonymize --help``.
    adapter : callable(data, RunOptions) -> Release
        Turns the options into a call of the method's function; call it
        through :meth:`run`, which checks every ``--param`` text first.
    privacy_model : str
        The audit model name that checks its releases (``km``, ``constraints``, ...).
    needs_taxonomy : bool
        Whether ``--taxonomy`` is required (bundled taxonomies count).
    params : tuple of Param
        The ``--param name=value`` options, declared once.
    audit_params : tuple of str
        The subset of ``params`` that also configures the audit model
        (``graphanon bench`` forwards these to it).
    options : tuple of str
        The general options the algorithm reads, among ``k``, ``m``,
        ``taxonomy``, ``seed`` and ``scheduler`` (runs on Dask);
        :meth:`check_options` refuses the others
        (an ignored option would make a release look like something it is
        not). ``seed`` is listed only by algorithms with structure randomness.
    combined_params : bool
        One ``--param`` may hold several declared parameters
        (``--param h=0.5,private=a,b``); the adapter reads them with
        ``opts.values(params, combined=True)``.
    verify : bool
        The method promises nothing by construction (a user-given cut): when
        its release claims ``k`` in its params, the CLI audits it with
        ``privacy_model`` before writing it and refuses a violating release
        unless ``--param force=true``.
    needs_labels : bool
        The method cannot run on records without sensitive labels (a study
        refuses such a run before any runs).
    label_params : tuple of str
        The ``--param`` options that, when given, need sensitive labels
        (``nr``'s ``l``).
    """

    name: str
    summary: str
    adapter: Callable
    privacy_model: str
    needs_taxonomy: bool = False
    params: tuple[Param, ...] = ()
    audit_params: tuple[str, ...] = ()
    options: tuple[str, ...] = ("k", "m", "taxonomy")
    combined_params: bool = False
    verify: bool = False
    needs_labels: bool = False
    label_params: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Refuse params that are not :class:`Param` objects or are declared twice."""
        bad = [p for p in self.params if not isinstance(p, Param)]
        if bad:
            raise TypeError(f"algorithm {self.name!r}: params must be Param objects, got {bad!r}")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"algorithm {self.name!r} declares a --param twice: {names}")

    @property
    def param_names(self) -> tuple[str, ...]:
        """The names of :attr:`params`."""
        return tuple(p.name for p in self.params)

    def function_constraints(self) -> dict:
        """The declared constraints of the method's ``anonymize_*`` function (name -> list)."""
        from graphanon.algorithms.registry import METHODS

        if self.name not in METHODS:
            return {}
        return getattr(METHODS.get(self.name), "_parameter_constraints", {})

    def constraints_of(self, param: Param) -> list | None:
        """The declared constraints of the argument ``param`` feeds (None: the adapter translates it)."""
        return None if param.target is None else self.function_constraints().get(param.target)

    def choices_of(self, param: Param) -> tuple[str, ...] | None:
        """The allowed texts of ``param``: its own ``choices``, or the declared ``StrOptions``."""
        if param.choices is not None:
            return param.choices
        options = [c for c in self.constraints_of(param) or () if isinstance(c, StrOptions)]
        return tuple(o for c in options for o in c.options) or None

    def parse_param(self, param: Param, text: str):
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

    def describe_params(self) -> list[dict]:
        """JSON-safe descriptions of :attr:`params` (choices from the declarations included)."""
        out = []
        for p in self.params:
            row = p.describe()
            choices = self.choices_of(p)
            row["choices"] = None if choices is None else list(choices)
            constraints = self.constraints_of(p)
            row["allowed"] = None if constraints is None else describe(constraints)
            out.append(row)
        return out

    def parse_params(self, raw: dict[str, str]) -> dict[str, Any]:
        """``--param`` texts converted by their :class:`Param` and checked against the declarations.

        Unknown names are refused.

        Returns a dict holding every declared parameter: the converted value
        when given, its ``default`` otherwise.
        """
        known = {p.name: p for p in self.params}
        if self.combined_params:
            raw = expand_params(raw, set(known))
        extra = sorted(set(raw) - set(known))
        if extra:
            raise ParameterError(
                f"unknown --param {', '.join(extra)} for algorithm {self.name!r}; it takes: "
                f"{', '.join(sorted(known)) or 'none'}"
            )
        return {name: (self.parse_param(p, raw[name]) if name in raw else p.default) for name, p in known.items()}

    def run(self, data, opts: RunOptions):
        """Run the method: every ``--param`` text is checked, then the adapter calls the function.

        The texts are converted and checked against the declarations
        (:meth:`parse_params`, errors name the ``--param``). This is the one
        way a method is run by name: ``graphanon anonymize``, ``bench``,
        ``compare`` and :func:`graphanon.study.run_method` all call it, so
        its defaults are the same on every door.
        """
        self.parse_params(opts.params)
        return self.adapter(data, opts)

    def check_options(self, opts: RunOptions) -> None:
        """Refuse general options this algorithm would ignore, and unknown or unconvertible ``--param`` options.

        Both raise :class:`ParameterError`.
        """
        self.parse_params(opts.params)
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


def taxonomy_runner(name: str, params: tuple = (), *, m: bool = False, seeded: bool = False,
                    distributed: bool = False, priors: bool = False) -> Callable:
    """The adapter of a method over a taxonomy (AA, HgHs, mHgHs, Clump, Partition).

    Returns ``run(data, opts)`` calling ``anonymize_<name>(data, taxonomy=..., k=..., **params,
    unsafe_secret_seed=..., progress=...)`` with, as the method takes them, ``m`` (``-m``),
    ``rng`` (``--seed``: ``seeded``), ``client`` (``--scheduler``: ``distributed``) and
    ``priors`` (``--prior``); ``params`` are its declared ``--param`` options.
    """

    def run(data, opts: RunOptions):
        from graphanon.algorithms.registry import get_method

        extra: dict[str, Any] = {}
        if m:
            extra["m"] = opts.m
        if seeded:
            extra["rng"] = opts.seed
        if distributed and opts.client is not None:
            extra["client"] = opts.client
        if priors:
            extra["priors"] = opts.priors
        return get_method(name)(data, taxonomy=opts.taxonomy, k=opts.required_k(name), **opts.values(params), **extra,
                                unsafe_secret_seed=opts.unsafe_secret_seed, progress=opts.progress)

    return run


#: Method name -> the spec module (under graphanon.cli.methods) that holds its AlgorithmSpec;
#: :func:`get_algorithm` imports only the family asked for.
_SPECS = LazyRegistry("algorithm", {
    name: f"graphanon.cli.methods.{family}:{name.upper()}"
    for family, names in {
        "hierarchy": ("aa", "cut", "hghs", "mhghs", "mm"),
        "coat": ("coat",),
        "nonreciprocal": ("cahd", "nr"),
        "grouping": ("clump", "partition"),
        "swapping": ("fullswap", "partsupp", "partswap", "randswap", "splitperson"),
        "dp": ("diffpart",),
    }.items()
    for name in names
} | {"rt": "graphanon.cli.methods.relational:RT", "rt-naive": "graphanon.cli.methods.relational:RT_NAIVE"})


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    """Register a method's CLI spec under ``spec.name`` (a name is registered once)."""
    return _SPECS.register(spec.name, spec)


def registered() -> dict[str, AlgorithmSpec]:
    """All registered algorithms by name (imports every built-in spec module)."""
    return _SPECS.items()


def get_algorithm(name: str) -> AlgorithmSpec:
    """The algorithm registered as ``name`` (a built-in one is imported on demand)."""
    return _SPECS.get(name)
