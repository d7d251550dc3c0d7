"""Registry of anonymizers for the CLI.

Each algorithm module registers an :class:`AlgorithmSpec` whose ``run``
adapter turns CLI options into a call of the module's
``anonymize_<method>(...)`` function. The Python API is the function itself;
the registry only serves the command line and benchmarks.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphanon.errors import ParameterError
from graphanon.utils.labels import parse_name_list
from graphanon.utils.params import expand_params
from graphanon.utils.progress import ProgressCallback

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
        The allowed texts (checked before ``type``).

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
OPTION_FLAGS = {"k": "-k", "m": "-m", "taxonomy": "--taxonomy", "seed": "--seed", "scheduler": "--scheduler"}


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered anonymizer.

    Attributes
    ----------
    name : str
        CLI name (``-a NAME``).
    summary : str
        One line for ``graphanon anonymize --help``.
    run : callable(data, RunOptions) -> Release
        CLI adapter.
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
    """

    name: str
    summary: str
    run: Callable
    privacy_model: str
    needs_taxonomy: bool = False
    params: tuple[Param, ...] = ()
    audit_params: tuple[str, ...] = ()
    options: tuple[str, ...] = ("k", "m", "taxonomy")
    combined_params: bool = False
    verify: bool = False

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

    def parse_params(self, raw: dict[str, str]) -> dict[str, Any]:
        """``--param`` texts converted by their :class:`Param` (unknown names refused).

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
        return {name: (p.parse(raw[name]) if name in raw else p.default) for name, p in known.items()}

    def check_options(self, opts: RunOptions) -> None:
        """Refuse general options this algorithm would ignore, and ``--param`` options it does not declare or whose text does not convert (:class:`ParameterError`)."""
        self.parse_params(opts.params)
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


_REGISTRY: dict[str, AlgorithmSpec] = {}


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    """Register an anonymizer under ``spec.name`` (a name is registered once)."""
    if spec.name in _REGISTRY and _REGISTRY[spec.name] is not spec:
        raise ValueError(f"algorithm {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    return spec


#: Built-in method name -> the module (under graphanon.algorithms) that declares it; importing the
#: module registers the method. :func:`get_algorithm` imports only the module of the method asked
#: for, so ``graphanon anonymize -a aa`` loads none of the other methods' kernels.
BUILTIN = {
    "aa": "hierarchy.aa", "cahd": "nonreciprocal.cahd", "clump": "grouping.clump", "coat": "coat.spec", "cut": "hierarchy.cut",
    "hghs": "hierarchy.hghs", "mhghs": "hierarchy.hghs", "mm": "hierarchy.mm", "nr": "nonreciprocal.anonymize",
    "partition": "grouping.partition", "fullswap": "swapping", "partsupp": "swapping", "partswap": "swapping",
    "randswap": "swapping", "splitperson": "swapping",
}


def _declare(name: str) -> None:
    """Import the module that registers built-in method ``name``."""
    importlib.import_module(f"graphanon.algorithms.{BUILTIN[name]}")


def registered() -> dict[str, AlgorithmSpec]:
    """All registered algorithms by name (imports every built-in method module)."""
    for name in BUILTIN:
        _declare(name)
    return dict(sorted(_REGISTRY.items()))


def get_algorithm(name: str) -> AlgorithmSpec:
    """The algorithm registered as ``name`` (a built-in one is imported on demand)."""
    if name not in _REGISTRY and name in BUILTIN:
        _declare(name)
    if name not in _REGISTRY:
        raise ParameterError(f"unknown algorithm {name!r}; available: {', '.join(registered())}")
    return _REGISTRY[name]
