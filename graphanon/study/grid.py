"""The grid of a study: methods x parameters x datasets, expanded from the methods' declarations.

A method is given only the options it declares (its ``AlgorithmSpec``'s
``options`` and ``params``, :func:`~graphanon.study.method_declarations`):
``-m`` is not given to ``partition`` (it takes no ``m``), a ``--param l=2;3``
goes only to the methods that declare ``l``. What cannot apply is settled
here, before anything runs -- never by trial: every run's options and
``--param`` texts are checked by its declaration, a method that needs
sensitive labels is refused on data without them, and a method that needs a
taxonomy gets ``--taxonomy`` or, as ``graphanon anonymize`` does, the
dataset's bundled one, and a run that lacks a ``--param`` its method declares
``required`` (``cut``'s ``cut`` or ``level``, the swaps' ``categories``) is
refused. ``-a all`` (:data:`ALL_METHODS`) skips, with the reason, every method
that the options cannot run, instead of refusing the study.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from itertools import product
from pathlib import Path

from graphanon.algorithms.declaration import RunOptions
from graphanon.algorithms.registry import get_declaration, method_names
from graphanon.errors import ParameterError
from graphanon.privacy.rt import RT_MODEL
from graphanon.study._run import method_declarations, run_options

__all__ = ["ALL_METHODS", "GridPlan", "StudyRun", "WorkloadSpec", "expand_grid"]

#: ``-a all``: every registered method; one that these options cannot run is skipped with its reason
#: (:attr:`GridPlan.skipped`), where a method named on its own is refused before anything runs.
ALL_METHODS = "all"


def _package_version() -> str:
    try:
        return version("graphanon")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class WorkloadSpec:
    """The COUNT-query workload every run of a dataset is scored on (the same for every method).

    Attributes
    ----------
    queries : int
        Number of queries (0: no query metrics).
    q : int
        Items per query.
    seed : int
        Seed of the workload: same dataset and seed, same queries.
    """

    queries: int = 200
    q: int = 2
    seed: int = 0


@dataclass(frozen=True)
class StudyRun:
    """One run of a study: a method with its parameters on one dataset.

    Options a method does not take are None. ``params`` holds its
    method-specific parameters as sorted ``(name, text)`` pairs.
    """

    dataset: str
    method: str
    k: int | None = None
    m: int | None = None
    taxonomy: str | None = None
    seed: int | None = None
    params: tuple = ()
    workload: WorkloadSpec = field(default_factory=WorkloadSpec)
    #: the number of records the row-linkage attack targets (0: no attack)
    attack_targets: int = 2000
    #: a differentially private method's epsilon (None for the others)
    epsilon: float | None = None
    #: the file of the public item universe a DP method reads (``--universe``), or None
    universe: str | None = None
    #: which repetition of a DP run this is (0, 1, ...; None for the others): DP noise differs run to run
    repeat: int | None = None
    #: relational-transaction methods: ``(FILE, QI, hierarchies, categorical)`` of ``--relational``, ``--qi``,
    #: ``--qi-hierarchy COLUMN=FILE`` (a tuple) and ``--categorical``; None for the others
    relational: tuple | None = None

    def config(self) -> dict:
        """The full configuration as JSON-safe values (what :meth:`key` hashes).

        ``epsilon``, ``universe``, ``repeat`` and ``relational`` appear only
        when set, so the runs of other methods keep the keys they had before.
        """
        out = asdict(self)
        out["params"] = [list(pair) for pair in self.params]
        if self.relational is not None:
            path, qi, hierarchies, categorical = self.relational
            out["relational"] = [path, qi, list(hierarchies), categorical]
        for name in ("epsilon", "universe", "repeat", "relational"):
            if out[name] is None:
                del out[name]
        return out

    def key(self) -> str:
        """A stable name of the full configuration (a finished run is stored under it).

        Besides :meth:`config` it covers the graphanon version and, when the
        dataset is a file, the file's size and modification time.

        Examples
        --------
        >>> a = StudyRun("groceries", "aa", k=2, m=2, taxonomy="balanced:5")
        >>> a.key() == StudyRun("groceries", "aa", k=2, m=2, taxonomy="balanced:5").key()
        True
        >>> a.key() == StudyRun("groceries", "aa", k=5, m=2, taxonomy="balanced:5").key()
        False
        """
        config = self.config()
        config["graphanon"] = _package_version()
        source = Path(self.dataset)
        if source.is_file():  # a data file: its size and modification time, so an edited file is run again
            stat = source.stat()
            config["file"] = [stat.st_size, stat.st_mtime_ns]
        if self.universe is not None and Path(self.universe).is_file():  # the same for the universe file
            stat = Path(self.universe).stat()
            config["universe_file"] = [stat.st_size, stat.st_mtime_ns]
        if self.relational is not None:  # and for the relational table and its hierarchy files
            files = [self.relational[0], *(spec.partition("=")[2] for spec in self.relational[2])]
            config["relational_files"] = [[Path(f).stat().st_size, Path(f).stat().st_mtime_ns]
                                          for f in files if Path(f).is_file()]
        text = json.dumps(config, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def label(self) -> str:
        """A short readable name: ``aa k=2 m=2 on bms1``."""
        parts = [self.method] + [f"{n}={v}" for n, v in (("k", self.k), ("m", self.m), ("epsilon", self.epsilon))
                                 if v is not None]
        parts += [f"{n}={v}" for n, v in self.params]
        if self.repeat is not None:
            parts.append(f"run {self.repeat + 1}")
        return " ".join(parts) + f" on {self.dataset}"


@dataclass
class GridPlan:
    """The runs of a study and what the expansion left out for which method, and why.

    Attributes
    ----------
    runs : list of StudyRun
    notes : list of str
        One line per option a method was not given.
    skipped : list of str
        ``-a all`` only: one line per method (or method on a dataset) that was not run, and why (the
        refusal it would have met when named: a required ``--param``, labels, a taxonomy, ``--epsilon``).
    """

    runs: list
    notes: list
    skipped: list = field(default_factory=list)


def _reason(name: str, error) -> str:
    """A refusal of method ``name`` without the words naming it (a skipped line starts with the name).

    >>> _reason("cut", "-a cut: algorithm 'cut' needs --param level")
    'needs --param level'
    """
    text = str(error)
    for start in (f"-a {name}: ", f"algorithm {name!r} ", f"-a {name} ", f"{name} "):
        text = text[len(start):] if text.startswith(start) else text
    return text


def _values(values) -> list:
    """A scalar or None -> [value]; a sequence -> its distinct values in order."""
    if values is None:
        return [None]
    if isinstance(values, (str, int)):
        return [values]
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out or [None]


def expand_grid(
    methods,
    datasets,
    *,
    k=None,
    m=None,
    params: dict | None = None,
    taxonomy: str | None = None,
    seed: int | None = 0,
    workload: WorkloadSpec | None = None,
    attack_targets: int = 2000,
    epsilon=None,
    universe: str | None = None,
    repeat: int = 1,
    relational: tuple | None = None,
) -> GridPlan:
    """Every run of methods x their parameters x datasets, as the methods' declarations allow.

    Parameters
    ----------
    methods : sequence of str
        Registered method names, or :data:`ALL_METHODS` (``"all"``): every
        registered method, those these options cannot run skipped with their
        reason (:attr:`GridPlan.skipped`) instead of refused.
    datasets : sequence of str
        Bundled dataset names (or data files the study reads).
    k, m : int or sequence of int, optional
        Values of ``k`` and ``m``; given only to methods that declare them
        (a method without ``m`` runs once per ``k``, and a note says so).
    params : dict, optional
        ``name -> list of texts`` for method-specific parameters, named as
        ``graphanon anonymize --param`` names them (``graphanon algorithms``);
        a name ``method.name`` applies to that method only, a bare ``name`` to
        every selected method that declares it. A name no selected method
        declares, or a text its declaration refuses, is refused.
    taxonomy : str, optional
        Taxonomy spec (``balanced:5``, a file, a bundled name), given to the
        methods that read one; without it they get the dataset's bundled
        taxonomy (as ``graphanon anonymize`` does), and a method that needs
        one refuses to be planned when there is none. A method that reads one
        only when its parameters ask (COAT's ``weights=taxonomy``) is given it
        as ``anonymize`` gives a bundled one: unused otherwise.
    seed : int or None
        Structure seed, given to the methods that declare ``seed``.
    workload : WorkloadSpec, optional
        The shared COUNT workload (default 200 queries of 2 items, seed 0).
    attack_targets : int
        Records the row-linkage attack targets (0: no attack).
    epsilon : float or sequence of float, optional
        The epsilons of the differentially private methods (those whose
        ``privacy_model`` is ``"dp"``): each runs once per epsilon (and per
        repetition), the syntactic methods once per k. Without it a DP method
        is refused; with it and no DP method, it is refused.
    universe : str, optional
        File of the public item universe (one item per line), given to the DP
        methods (``--universe``). A ``balanced:F`` taxonomy is built over the
        data's items, so it is never given to a DP method; without a universe
        a DP method reads a taxonomy file or the dataset's bundled taxonomy
        (its leaves are the universe), else it is refused.
    repeat : int
        Runs of each DP configuration (their noise differs; the report shows
        the mean and spread). Syntactic runs are not repeated.
    relational : tuple, optional
        ``(FILE, QI, hierarchies, categorical)``: the relational table joined
        by record id with every dataset, its quasi-identifier columns
        (``"age,gender,race"``), ``COLUMN=FILE`` hierarchy specs and the
        columns read as text (``""`` for none). Given to the
        relational-transaction methods (audit model ``rt``), which need it;
        the other methods run on the items alone (a note says so).

    Returns
    -------
    GridPlan
        ``runs`` in method, dataset, parameter order; ``notes`` one line per
        option a method was not given; ``skipped`` (``"all"`` only) one line
        per method left out, and why.

    Raises
    ------
    ParameterError
        Unknown method or parameter, a parameter text the method's
        declaration refuses, no methods or datasets, a method (or a
        parameter value, ``-a rt --param transaction=aa``) that needs a
        taxonomy without one, a method that needs sensitive labels on data
        without them, ``m`` given with no method taking it, a declared
        required ``--param`` not given (``-a cut`` without ``cut`` or
        ``level``). Every named method that cannot run is refused in the same
        error, one clause each (separated by ``|``), naming what it needs and
        an example. With ``"all"``, those are skipped instead; refused only
        when no method can run.

    Examples
    --------
    >>> plan = expand_grid(["aa", "partition"], ["groceries"], k=[2, 5], m=2, taxonomy="balanced:5")
    >>> [(r.method, r.k, r.m) for r in plan.runs]
    [('aa', 2, 2), ('aa', 5, 2), ('partition', 2, None), ('partition', 5, None)]
    >>> plan.notes
    ['partition: takes no -m; run without it']

    A method that lacks a required ``--param`` is refused before anything runs; with ``"all"`` it is skipped:

    >>> expand_grid(["cut"], ["groceries"], k=2)
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: -a cut: algorithm 'cut' needs --param cut or --param level (the cut's nodes, or its depth); for example --param cut.level=1
    >>> [line for line in expand_grid("all", ["groceries"], k=2, m=1).skipped if line.startswith("cut")]
    ["cut: needs --param cut or --param level (the cut's nodes, or its depth); for example --param cut.level=1"]

    A DP method runs once per epsilon and repetition, beside the k grid:

    >>> plan = expand_grid(["mhghs", "diffpart"], ["groceries"], k=[2, 5], m=1, epsilon=[0.5, 1], repeat=2)
    >>> [(r.method, r.k, r.epsilon, r.repeat) for r in plan.runs]  # doctest: +NORMALIZE_WHITESPACE
    [('mhghs', 2, None, None), ('mhghs', 5, None, None), ('diffpart', None, 0.5, 0), ('diffpart', None, 0.5, 1),
     ('diffpart', None, 1.0, 0), ('diffpart', None, 1.0, 1)]
    """
    methods, datasets = _values(methods), _values(datasets)
    if methods == [None] or datasets == [None]:
        raise ParameterError("a study needs at least one method (-a) and one dataset")
    every = ALL_METHODS in methods  # every registered method: those the options cannot run are skipped, not refused
    if every:
        methods = method_names()
    workload = workload or WorkloadSpec()
    decls = {name: method_declarations(name) for name in methods}
    ks, ms = _values(k), _values(m)
    raw = {name: _values(values) for name, values in (params or {}).items()}
    for name in raw:
        method, _, pname = name.rpartition(".")
        owners = [d for d in decls.values() if pname in d.params and method in ("", d.name)]
        if method and method not in decls:
            raise ParameterError(f"--param {name}: {method!r} is not among the methods ({', '.join(decls)})")
        if not owners:
            takers = ", ".join(d.name for d in decls.values() if d.params) or "none of them"
            raise ParameterError(f"--param {name}: no selected method takes {pname!r} "
                                 f"(methods with parameters: {takers})")
    if ms != [None] and not any("m" in d.options for d in decls.values()):
        raise ParameterError(f"-m: none of {', '.join(decls)} takes m; drop it")
    if ks != [None] and not any("k" in d.options for d in decls.values()):
        raise ParameterError(f"-k: none of {', '.join(decls)} takes k; drop it")
    runs, notes = [], []
    private = [d.name for d in decls.values() if d.privacy_model == "dp"]
    epsilons = [float(e) for e in _values(epsilon) if e is not None]
    relational_methods = [d.name for d in decls.values() if d.privacy_model == RT_MODEL.name]
    unplanned = {}  # -a all: the methods these options cannot run at all, and why
    if every and not epsilons:
        unplanned.update(dict.fromkeys(private, "differentially private: needs --epsilon E1,E2,..."))
        private = []
    if every and relational is None:
        unplanned.update(dict.fromkeys(relational_methods, "anonymizes relational-transaction data: needs "
                                                            "--relational FILE --qi COLUMNS"))
        relational_methods = []
    if private and not epsilons:  # a DP run needs its epsilon
        raise ParameterError(f"-a {private[0]}: a differentially private method needs --epsilon E1,E2,... (its "
                             "privacy loss, a grid axis beside -k), or drop it")
    if epsilons and not private:
        raise ParameterError(f"--epsilon: none of {', '.join(decls)} is differentially private; drop it")
    bad = [e for e in epsilons if not (0 < e < float("inf"))]
    if bad:
        raise ParameterError(f"--epsilon must be > 0 and finite, got {bad[0]:g}")
    if isinstance(repeat, bool) or int(repeat) != repeat or repeat < 1:
        raise ParameterError(f"--repeat must be a whole number >= 1, got {repeat!r}")
    if universe is not None and not private:
        raise ParameterError(f"--universe: none of {', '.join(decls)} is differentially private; drop it")
    if relational_methods and relational is None:
        raise ParameterError(f"-a {relational_methods[0]} anonymizes relational-transaction data: give --relational "
                             "FILE --qi COLUMNS (the table joined by record id with the dataset)")
    if relational is not None and not relational_methods:
        raise ParameterError(f"--relational: none of {', '.join(decls)} reads relational-transaction data (-a rt, "
                             "rt-naive); drop it")
    if relational is not None:
        relational = (str(relational[0]), str(relational[1]), tuple(relational[2]), str(relational[3] or ""))
        notes += [f"{d.name}: reads transactions only; run on the items without --relational" for d in decls.values()
                  if d.privacy_model != RT_MODEL.name]
    skipped: list[str] = []
    refused: list[str] = []
    for d in decls.values():
        if every and d.name in unplanned:  # -a all: a method the options cannot run is skipped, with its reason
            skipped.append(f"{d.name}: {unplanned[d.name]}")
            continue
        own_notes: list[str] = []
        try:
            if d.privacy_model == "dp":
                dropped = [flag for flag, vals in (("-k", ks), ("-m", ms)) if vals != [None]]
                if dropped:
                    own_notes.append(f"{d.name}: takes no {' or '.join(dropped)}; runs once per --epsilon instead")
                own = _dp_runs(d, datasets, epsilons, universe, taxonomy, int(repeat), raw, workload, own_notes)
            elif not every:
                own = _method_runs(d, datasets, ks, ms, raw, taxonomy, seed, workload, attack_targets, relational,
                                   own_notes)
            else:  # dataset by dataset: a method may run on labelled data and be skipped on the rest
                own, reasons = [], {}
                for dataset in datasets:
                    try:
                        own += _method_runs(d, [dataset], ks, ms, raw, taxonomy, seed, workload, attack_targets,
                                            relational, own_notes)
                    except ParameterError as exc:
                        reasons[dataset] = str(exc)
                if reasons and len(reasons) == len(datasets) and len(set(reasons.values())) == 1:
                    raise ParameterError(next(iter(reasons.values())))
                skipped += [f"{d.name} on {dataset}: {_reason(d.name, why)}" for dataset, why in reasons.items()]
        except ParameterError as exc:
            (skipped if every else refused).append(f"{d.name}: {_reason(d.name, exc)}" if every else str(exc))
            continue
        runs += own
        notes += [note for note in dict.fromkeys(own_notes)]
    if refused:  # every method that cannot run, one clause each, before anything runs
        raise ParameterError(" | ".join(refused))
    if not runs:
        raise ParameterError(f"no method can run with these options: {'; '.join(skipped)}")
    return GridPlan(runs, notes, skipped)


def _dp_runs(d, datasets, epsilons, universe, taxonomy, repeat, raw, workload, notes) -> list:
    """The runs of DP method ``d``: one per dataset, epsilon, parameter value and repetition.

    Its public universe: ``universe``, else a taxonomy file (``--taxonomy``, never ``balanced:F``,
    which is built over the data's items), else the dataset's bundled taxonomy, else refused.
    """
    from graphanon.study.execute import bundled_taxonomy

    given = taxonomy if taxonomy is not None and not str(taxonomy).startswith("balanced") else None
    if taxonomy is not None and given is None:
        notes.append(f"{d.name}: --taxonomy {taxonomy} is built over the data's items, which a differentially "
                     "private release must not depend on; run over the public universe instead")
    elif taxonomy is not None and universe is not None:
        notes.append(f"{d.name}: --taxonomy {taxonomy} given with --universe; the taxonomy's leaves are the universe")
    own = _own_params(d, raw)
    pnames = sorted(own)
    _refuse_missing(d.name, {p: str(v[0]) for p, v in own.items()}, RunOptions())
    runs = []
    for dataset in datasets:
        tax = given if given is not None else (None if universe is not None else bundled_taxonomy(dataset))
        if tax is None and universe is None:
            raise ParameterError(f"-a {d.name} needs the public item universe on {dataset}: give --universe FILE "
                                 "(one item per line) or a taxonomy file (a DP release must not depend on the "
                                 "items observed in the data)")
        for eps, *pvals in product(epsilons, *(own[p] for p in pnames)):
            for rep in range(repeat):
                runs.append(StudyRun(dataset=dataset, method=d.name, taxonomy=tax, epsilon=eps, universe=universe,
                                     repeat=rep, params=tuple((p, str(v)) for p, v in zip(pnames, pvals)),
                                     workload=workload, attack_targets=0))
        run_options(d.name, taxonomy=given, params=dict(runs[-1].params))
    return runs


def _refuse_missing(name: str, params: dict, opts: RunOptions) -> None:
    """Refuse ``name`` lacking a required ``--param``, in this command's words (``--param cut.level=1``).

    A text its declaration cannot parse is left to :func:`run_options`, which names the method.
    """
    declaration = get_declaration(name)
    try:
        values = declaration.parse_params(params)
    except ParameterError:
        return
    if (missing := declaration.missing_required(values, opts, audit=True, prefix=f"{name}.")) is not None:
        raise ParameterError(f"-a {name}: {missing}")


def _own_params(d, raw: dict) -> dict:
    """The ``--param`` values of ``raw`` that method ``d`` reads: ``name`` for every method, ``method.name`` for it."""
    own = {}
    for name, values in raw.items():
        method, _, pname = name.rpartition(".")
        if pname in d.params and method in ("", d.name):
            own[pname] = values
    return own


def _method_runs(d, datasets, ks, ms, raw, taxonomy, seed, workload, attack_targets, relational, notes) -> list:
    """The runs of syntactic method ``d`` on ``datasets`` (notes appended to ``notes``).

    Raises :class:`~graphanon.errors.ParameterError` when ``d`` cannot run on one of them: a taxonomy or labels
    it needs and the data lack, a :attr:`~graphanon.algorithms.declaration.MethodDeclaration.required`
    ``--param`` not given, an option or text its declaration refuses.
    """
    from graphanon.study.execute import bundled_taxonomy, load_dataset

    runs = []
    # a method reading a taxonomy gets --taxonomy, else the dataset's bundled one (as anonymize gives it)
    taxonomies = {dataset: taxonomy if taxonomy is not None else bundled_taxonomy(dataset)
                  for dataset in datasets} if "taxonomy" in d.options else dict.fromkeys(datasets)
    without = [dataset for dataset, tax in taxonomies.items() if tax is None]
    if d.needs_taxonomy and without:
        raise ParameterError(f"{d.name} needs a taxonomy and {without[0]} has no bundled one: pass --taxonomy "
                             "FILE, balanced:FANOUT or a bundled name")
    dropped = [flag for flag, opt, vals in (("-k", "k", ks), ("-m", "m", ms)) if vals != [None]
               and opt not in d.options]
    if dropped:
        notes.append(f"{d.name}: takes no {' or '.join(dropped)}; run without {'it' if len(dropped) == 1 else 'them'}")
    if taxonomy is not None and "taxonomy" not in d.options:
        notes.append(f"{d.name}: reads no taxonomy; run without it")
    elif taxonomy is not None and not d.needs_taxonomy:
        notes.append(f"{d.name}: does not need --taxonomy; given, it is read only where its --param asks "
                     "(see graphanon algorithms)")
    own = _own_params(d, raw)
    pnames = sorted(own)
    needs_labels = d.missing_labels(pnames)
    if needs_labels is not None:
        for dataset in datasets:
            if load_dataset(dataset).labels is None:
                raise ParameterError(
                    f"{needs_labels} needs sensitive labels (l-diversity) and {dataset} has none: choose "
                    f"labelled data (`graphanon datasets` lists which have labels) or drop {d.name}")
    # a ring anyone holding the data could rebuild from the seed gives labels away (docs/attacks.md): unseeded
    unseeded = set()
    if d.secret_structure_with_labels and seed is not None and "seed" in d.options and \
            not any(p in pnames for p in d.label_params):
        unseeded = {dataset for dataset in datasets if load_dataset(dataset).labels is not None}
        if unseeded:
            notes.append(f"{d.name}: runs without --seed on labelled {', '.join(sorted(unseeded))} (without "
                         f"{' or '.join('--param ' + p for p in d.label_params)} its structure must stay secret)")
    for dataset, kv, mv, *pvals in product(datasets, ks if "k" in d.options else [None],
                                           ms if "m" in d.options else [None], *(own[p] for p in pnames)):
        run = StudyRun(
            dataset=dataset, method=d.name, k=kv, m=mv, taxonomy=taxonomies[dataset],
            seed=seed if "seed" in d.options and dataset not in unseeded else None,
            params=tuple((p, str(v)) for p, v in zip(pnames, pvals)),
            workload=workload, attack_targets=attack_targets,
            relational=relational if d.privacy_model == RT_MODEL.name else None,
        )
        _refuse_missing(d.name, dict(run.params), RunOptions(k=run.k))
        spec, opts = run_options(d.name, k=run.k, m=run.m, seed=run.seed, params=dict(run.params), audit=True)
        asked = spec.taxonomy_asked_by(spec.parse_params(opts.params)) if run.taxonomy is None else None
        if asked is not None:
            raise ParameterError(f"-a {d.name} {asked} generalizes over an item taxonomy and {dataset} has no "
                                 "bundled one: pass --taxonomy FILE or a bundled name, or choose another value")
        runs.append(run)
    return runs
