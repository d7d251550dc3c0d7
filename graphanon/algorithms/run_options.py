"""What one run of a method is given: the general options typed, the ``--param`` texts, and what it requires.

:class:`RunOptions` carries a run's options from any door (the command line,
``compare``, a study, a plugin) to a method's
:class:`~graphanon.algorithms.declaration.MethodDeclaration`, which turns them
into the function's arguments; :class:`Required` declares one thing a method
cannot run without. :data:`OPTION_FLAGS` names the general options as typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphanon.errors import ParameterError
from graphanon.utils.declaration import Parameter, parse_texts
from graphanon.utils.progress import ProgressCallback

__all__ = ["GENERAL_OPTIONS", "OPTION_FLAGS", "Required", "RunOptions"]

#: The general options of every door by name, as typed on the command line.
OPTION_FLAGS = {"k": "-k", "m": "-m", "taxonomy": "--taxonomy", "seed": "--seed", "scheduler": "--scheduler",
                "epsilon": "--epsilon", "universe": "--universe"}
#: The general options a declaration may read.
GENERAL_OPTIONS = tuple(OPTION_FLAGS)


@dataclass(frozen=True)
class Required:
    """One thing a method cannot run without: one of ``names`` (``--param`` names or general options).

    Attributes
    ----------
    names : tuple of str
        The alternatives: ``("cut", "level")`` is "``--param cut`` or ``--param
        level``"; a name that is not one of the method's ``--param`` names is a
        general option it reads (``"k"``: ``-k``).
    example : str
        A ``--param name=value`` text (or an option, ``-k 3``) that runs on
        bundled data, shown in the refusal.
    forms : str
        What the values look like, for the refusal (``"random:N[:SEED], ..."``).
    for_audit : bool
        Needed only to audit the release (its model reads it): ``anonymize``
        makes the release without it; the doors that audit every release
        (``bench``, ``compare``, a study) refuse before anything runs.

    Examples
    --------
    >>> Required(("cut", "level"), "level=1").names
    ('cut', 'level')
    """

    names: tuple[str, ...]
    example: str
    forms: str = ""
    for_audit: bool = False


@dataclass
class RunOptions:
    """The options of one run by name, as every door collects them.

    Attributes
    ----------
    k, m : int or None
        Privacy parameters (meaning per method; m=None is unbounded).
    taxonomy : Taxonomy or None
        Item hierarchy given with ``--taxonomy`` (or bundled with the dataset).
    seed : int or None
        Seed of the structure randomness (``rng=`` of the anonymizers).
    unsafe_secret_seed : int or None
        Tests only: fixes the secret choices (row shuffle, chosen assignment);
        the command line never sets it.
    params : dict of str -> str
        Method-specific ``--param name=value`` pairs, as given.
    progress : callable(done, total, message) or None
        Progress callback (the CLI shows a progress bar).
    given : frozenset of str or None
        Which of ``k``, ``m``, ``taxonomy``, ``seed`` the user typed (``-m
        inf`` is given though ``m`` is None, a bundled taxonomy is not);
        options given but unused are refused. None (the default, for callers
        other than the CLI): nothing is refused for being given.
    client : dask.distributed.Client or None
        ``--scheduler``: where a method that takes ``client=`` runs its
        distributed part (None: in this process).
    priors : list of graphanon.algorithms.prior.Prior or None
        ``--prior``: earlier releases of the same data the new one must
        compose with (methods whose declaration has ``priors``).
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

    def values(self, params: tuple[Parameter, ...], *, combined: bool = False) -> dict[str, Any]:
        """The ``--param`` values converted by ``params`` (their ``default`` when not given); others are refused.

        With ``combined``, one ``--param`` may hold several declared parameters
        (``h=0.5,private=a,b``; see :func:`graphanon.utils.params.expand_params`).
        """
        return parse_texts(params, self.params, owner="this algorithm", combined=combined)
