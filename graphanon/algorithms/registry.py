"""Registry of anonymizers for the CLI.

Each algorithm module registers an :class:`AlgorithmSpec` whose ``run``
adapter turns CLI options into a call of the module's
``anonymize_<method>(...)`` function. The Python API is the function itself;
the registry only serves the command line and benchmarks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphanon.errors import ParameterError

__all__ = ["AlgorithmSpec", "RunOptions", "get_algorithm", "parse_name_list", "register", "registered"]

Progress = Callable[[int, int, str], None]


def parse_name_list(text: str, known) -> list:
    """Comma-separated item or node names of a ``--param``.

    Names are stripped and empty ones dropped; an integer-looking name that is
    not itself in ``known`` but whose integer is (FIMI items are integers)
    becomes that integer.
    """
    out = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if token not in known and token.lstrip("-").isdigit() and int(token) in known:
            out.append(int(token))
        else:
            out.append(token)
    return out


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
    """

    k: int | None = None
    m: int | None = None
    taxonomy: Any = None
    seed: int | None = None
    unsafe_secret_seed: int | None = None
    params: dict[str, str] = field(default_factory=dict)
    progress: Progress | None = None

    def param(self, name: str, default=None, cast: Callable = str):
        """A ``--param`` value converted by ``cast`` (clear error when it does not convert)."""
        if name not in self.params:
            return default
        raw = self.params[name]
        try:
            return cast(raw)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"--param {name}={raw!r}: {exc}") from None

    def unknown_params(self, known: set[str]) -> None:
        """Raise for ``--param`` names the algorithm does not take."""
        extra = sorted(set(self.params) - known)
        if extra:
            raise ParameterError(
                f"unknown --param {', '.join(extra)}; this algorithm takes: {', '.join(sorted(known)) or 'none'}"
            )


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
    params : tuple of str
        Names accepted as ``--param name=value``.
    audit_params : tuple of str
        The subset of ``params`` that also configures the audit model
        (``graphanon bench`` forwards these to it).
    """

    name: str
    summary: str
    run: Callable
    privacy_model: str
    needs_taxonomy: bool = False
    params: tuple[str, ...] = ()
    audit_params: tuple[str, ...] = ()


_REGISTRY: dict[str, AlgorithmSpec] = {}


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    """Register an anonymizer under ``spec.name`` (a name is registered once)."""
    if spec.name in _REGISTRY and _REGISTRY[spec.name] is not spec:
        raise ValueError(f"algorithm {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def registered() -> dict[str, AlgorithmSpec]:
    """All registered algorithms by name."""
    from graphanon import algorithms  # noqa: F401  (importing registers the built-in ones)

    return dict(sorted(_REGISTRY.items()))


def get_algorithm(name: str) -> AlgorithmSpec:
    algs = registered()
    if name not in algs:
        raise ParameterError(f"unknown algorithm {name!r}; available: {', '.join(algs)}")
    return algs[name]
