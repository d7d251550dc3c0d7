"""The ``graphanon`` command group and the helpers its commands share.

One-line errors (exit 2), JSON output, progress bars, input and taxonomy
loading, ``--param`` and ``-m`` parsing.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import click

from graphanon.datasets.catalog import names
from graphanon.errors import GraphanonError

EXIT_BAD_INPUT = 2
EXIT_VIOLATED = 1

# Seeds are non-negative (numpy's SeedSequence takes no negative entropy).
SEED = click.IntRange(min=0)

# Release files the CLI writes (Release.save picks gzip by the ending).
RELEASE_SUFFIXES = (".json", ".json.gz")


def fail(message: str) -> None:
    """Print ``graphanon: error: MESSAGE`` as ONE line on stderr and exit with code 2."""
    click.echo(f"graphanon: error: {' '.join(str(message).split())}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def _usage_error(exc: click.ClickException) -> None:
    """A click usage error (bad option value, missing argument) in the same one-line form."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "graphanon"
    fail(f"{exc.format_message()} (see `{command} --help`)")


class _Group(click.Group):
    """Turns package errors, usage errors and unreadable files into one line and exit code 2.

    Run as the process's own command (``graphanon ...``, ``python -m graphanon ...``: ``main()``
    with no ``args``, in standalone mode), the process ends through :func:`exit_without_teardown`
    once the command is done; called with ``args`` (click's ``CliRunner``, the tests, a program
    that embeds the command line) it returns or raises ``SystemExit`` as any click command does.
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if args is not None or not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        except SystemExit as exc:
            exit_without_teardown(exc.code)  # returns only when a plain exit is needed
            raise

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.ClickException as exc:
            _usage_error(exc)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GraphanonError as exc:
            fail(str(exc))
        except click.ClickException as exc:
            _usage_error(exc)
        except (OSError, MemoryError) as exc:
            fail(f"{type(exc).__name__}: {exc}")


def exit_without_teardown(code) -> None:
    """End the process with ``code`` now, skipping the interpreter's teardown, when nothing can notice.

    What a normal exit does that anyone could see is done first: ``atexit``
    handlers run (``weakref.finalize`` callbacks, temporary folders, logging,
    coverage's data file, a Dask client's shutdown) and ``sys.stdout`` and
    ``sys.stderr`` are flushed. What is skipped is freeing every module and
    object one by one, which after a numba method is most of what the
    process does once the command is done: the best of 5 runs of three such
    bms1 jobs is 0.08-0.12 s faster without it (docs/performance.md). Files are written
    and closed in ``with`` blocks before a command returns, so none is
    left with unflushed data.

    Returns without exiting (the caller then exits as usual) when the code
    is not a number (``sys.exit("message")`` prints it), when a tracer or
    profiler is installed (``coverage run``, ``python -m cProfile``, a
    debugger: they report after the program ends), when a thread other
    than the main one is alive and not a daemon (the interpreter would wait
    for it), or when flushing fails (a closed pipe: the plain exit reports
    it as before).

    Parameters
    ----------
    code : int, str or None
        The ``SystemExit`` code of the command.

    Returns
    -------
    None
        Only when the process must exit the usual way; otherwise it does not return.

    Notes
    -----
    Complexity: O(number of threads and ``atexit`` handlers). ``os._exit``
    is CPython's documented way to end a process without cleanup; the
    ``atexit`` handlers are run first by ``atexit._run_exitfuncs``, which
    also unregisters nothing (they are not run again: the process ends).

    Examples
    --------
    A message is printed by the plain exit, so it returns:

    >>> exit_without_teardown("graphanon: something to say")
    """
    if code is not None and not isinstance(code, int):
        return
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return
    main_thread = threading.main_thread()
    if threading.current_thread() is not main_thread or any(
            t is not main_thread and t.is_alive() and not t.daemon for t in threading.enumerate()):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: the plain exit reports it
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code or 0)


def dumps_json(obj, **kwargs) -> str:
    from graphanon.readwrite.files import dumps_json

    return dumps_json(obj, **kwargs)


def echo_json(obj, **kwargs) -> None:
    """Print strict JSON (non-finite numbers become null, see graphanon.readwrite.files.dumps_json)."""
    from graphanon.readwrite.files import dumps_json

    click.echo(dumps_json(obj, **kwargs))


def check_output(output: str, *inputs: str | None, params: dict | None = None, suffixes=(),
                 option: str = "-o") -> None:
    """Before any work: ``output`` is no input (INPUT, --taxonomy, --release, constraint files named by --param), its folder exists and is writable, its ending is one we write.

    A ``--param`` value is compared only when it names an existing file (a
    list of item names is not a path); ``option`` names the output option in
    the message (``-o`` or ``--link-out``).
    """
    from graphanon.readwrite.files import check_output

    sources = [s for s in inputs if s]
    for value in (params or {}).values():
        sources.append(value.split(":", 1)[1] if value.startswith("groups:") else value)
    check_output(output, inputs=sources, suffixes=suffixes, option=option)


#: The one-time note while numba compiles kernels that are not in its on-disk cache.
COMPILE_NOTE = "compiling kernels (once per install; later runs load them from the cache) ..."


@contextmanager
def progress_bar(enabled: bool):
    """A rich progress bar fed by the package's ``progress(done, total, message)`` callbacks.

    A spinner and the elapsed time move in every stage. A stage shows its
    count ``done/total`` once its first unit is done; before that (a stage
    reporting ``0/N`` and then working for minutes, one solver call such as
    the min-cost flow) and in a stage of unknown length the bar pulses
    instead of showing a frozen ``0/N``. The first kernel numba compiles in
    the run prints :data:`COMPILE_NOTE` once above the bar.
    """
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from graphanon.utils.progress import compile_watchers

    with Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TimeElapsedColumn(),
        transient=True,
        console=None,
    ) as bar:
        task = bar.add_task("starting", total=None, count="")
        said: list[bool] = []

        def note() -> None:
            if not said:
                said.append(True)
                bar.console.print(COMPILE_NOTE, style="dim")

        def callback(done: int, total: int, message: str = "") -> None:
            known = total is not None and total > 0 and done > 0
            bar.update(task, completed=done if known else 0, total=total if known else None,
                       count=f"{done}/{total}" if known else "", description=message[:60] or "working")

        compile_watchers.append(note)
        try:
            yield callback
        finally:
            compile_watchers.remove(note)


def show_progress(json_out: bool) -> bool:
    return not json_out and sys.stderr.isatty()


def parse_m(value: str | None) -> int | None:
    if value is None or value.lower() in ("inf", "infinity", "none"):
        return None
    try:
        m = int(value)
    except ValueError:
        raise GraphanonError(f"-m must be a whole number or 'inf', got {value!r}") from None
    if m < 1:
        raise GraphanonError(f"-m must be at least 1, got {m}")
    return m


def parse_param_pairs(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise GraphanonError(f"--param takes name=value, got {pair!r}")
        name, value = pair.split("=", 1)
        out[name.strip()] = value.strip()
    return out


# How reader error messages name their arguments on the command line.
_OPTION_NAMES = {"fmt": "--format", "delimiter": "--delimiter", "tid": "--tid", "item": "--item", "label": "--label",
                 "missing_label": "--missing-label"}
#: Where ``--missing-label`` (an option of every command that reads INPUT) leaves its value, and
#: ``read_input`` the number of records it dropped.
_MISSING_LABEL = "graphanon.missing_label"
DROPPED_LABELS = "graphanon.dropped_missing_label"


def bundled_names() -> list[str]:
    """The names of the bundled datasets (``graphanon datasets``)."""
    return names()


def is_bundled(source: str) -> bool:
    """Whether an INPUT/taxonomy argument names a bundled dataset (an existing file of that name wins)."""
    return not Path(source).exists() and source in bundled_names()


def read_taxonomy_source(source: str):
    """A taxonomy argument: a bundled dataset's taxonomy (by dataset name) or a taxonomy file."""
    from graphanon import datasets
    from graphanon.taxonomy.tree import read_taxonomy

    return datasets.load_taxonomy(source) if is_bundled(source) else read_taxonomy(source)


def read_input(source: str, fmt: str | None, sep: str | None, tid: str, item: str, label: str | None):
    """A bundled dataset name or a path (format and delimiter told by graphanon.readwrite.formats.read_any)."""
    from graphanon import datasets
    from graphanon.readwrite.formats import read_any

    path = Path(source)
    if not path.exists():
        names = bundled_names()
        if source in names:
            if label is not None:
                raise GraphanonError(f"--label names a column of CSV input; {source} is a bundled dataset "
                                     "(its labels, if it has any, are used as they are): drop --label")
            return datasets.load(source), source
        raise GraphanonError(
            f"{source}: no such file, and not a bundled dataset ({', '.join(names)})"
        )
    data = read_any(path, fmt, delimiter=sep, tid=tid, item=item, label=label, option_names=_OPTION_NAMES,
                    missing_label="as-value")
    return _missing_labels(data, source, label), None



def relational_options(function):
    """``--relational FILE --qi COLS [--qi-hierarchy COL=FILE] [--categorical COLS]``: relational-transaction data."""
    for option in reversed([
        click.option("--relational", default=None, type=click.Path(dir_okay=False),
                     help="CSV of relational attributes, one row per record, joined by record id (first column) "
                          "with INPUT: relational-transaction data (-a rt, rt-naive; --model rt)."),
        click.option("--qi", default=None, metavar="COLUMNS",
                     help="The quasi-identifier columns of --relational, comma-separated (age,gender,race)."),
        click.option("--qi-hierarchy", "qi_hierarchies", multiple=True, metavar="COLUMN=FILE",
                     help="The hierarchy of a --qi column (value;parent;...;root per line, ARX style); default: "
                          "automatic intervals for numbers, flat for text (repeatable)."),
        click.option("--categorical", default=None, metavar="COLUMNS",
                     help="--relational columns read as text though they hold numbers (zip codes)."),
    ]):
        function = option(function)
    return function

def read_relational(data, relational: str | None, qi: str | None, qi_hierarchies=(), categorical: str | None = None):
    """``--relational FILE --qi COLS [--qi-hierarchy COL=FILE] [--categorical COLS]``: the transactions joined with their relational table.

    Returns ``data`` itself when no ``--relational`` is given; else a
    :class:`~graphanon.relational.RTData` (the table joined by record id,
    the QIs with their hierarchies: a file per ``--qi-hierarchy``, else
    automatic intervals for numbers and flat for text).
    """
    if relational is None:
        for flag, value in (("--qi", qi), ("--qi-hierarchy", qi_hierarchies), ("--categorical", categorical)):
            if value:
                raise GraphanonError(f"{flag} describes the relational table: give it with --relational FILE")
        return data
    from graphanon.relational import join_relational

    return join_relational(data, relational, qi or "", hierarchies=qi_hierarchies, categorical=categorical)


def relational_hierarchies(table, names, qi_hierarchies=(), *, defaults: bool = True) -> dict:
    """``--qi-hierarchy COLUMN=FILE`` read for the columns ``names`` of ``table``; the others automatic when ``defaults``.

    Automatic: intervals for a numeric column, flat for text (as :class:`~graphanon.relational.RTData` builds them).
    """
    from graphanon.relational import AttributeHierarchy

    hierarchies = {}
    for spec in qi_hierarchies:
        column, _, path = spec.partition("=")
        if not path or column not in names:
            raise GraphanonError(f"--qi-hierarchy {spec!r}: use COLUMN=FILE with a column of --qi ({', '.join(names)})")
        hierarchies[column] = AttributeHierarchy.from_file(column, path, table.column(column))
    if defaults:
        for c in names:
            if c not in hierarchies:
                values = table.column(c)
                hierarchies[c] = (AttributeHierarchy.numeric(c, values) if table.kinds[c] == "numeric"
                                  else AttributeHierarchy.categorical(c, values))
        hierarchies = {c: hierarchies[c] for c in names}
    return hierarchies


def _missing_labels(data, source: str, label: str | None):
    """``--missing-label`` applied to INPUT's labels; a drop is reported on stderr (and kept for ``--json``)."""
    from graphanon.readwrite.missing import resolve_missing_labels

    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    policy = meta.get(_MISSING_LABEL, "error")
    n_before = data.n_records
    data, dropped = resolve_missing_labels(data, policy, source=source, column=label, option_names=_OPTION_NAMES)
    if dropped:
        meta[DROPPED_LABELS] = dropped
        click.echo(f"graphanon: dropped {dropped} of {n_before} records of {source} with no sensitive label "
                   f"(--missing-label drop); {data.n_records} records are used", err=True)
    return data


def taxonomy_option(spec: str | None, data, bundled: str | None):
    """``--taxonomy`` value: a file, ``balanced:FANOUT[:SEED]``, or the dataset's bundled taxonomy."""
    from graphanon import datasets

    if spec is None:
        if bundled is None:
            return None
        try:
            return datasets.load_taxonomy(bundled)
        except GraphanonError:
            return None
    from graphanon.taxonomy.build import parse_balanced

    balanced = parse_balanced(spec)
    if balanced is not None:
        fanout, seed = balanced
        order = "random" if seed is not None else "sorted"
        from graphanon.taxonomy.tree import Taxonomy  # networkx: only when a taxonomy is built

        return Taxonomy.balanced(data.items, fanout, order=order, rng=seed)
    return read_taxonomy_source(spec)


_input_options = [
    click.option("--format", "fmt", type=click.Choice(["fimi", "csv", "basket", "parquet"]), default=None,
                 help="Input format: fimi (integer items separated by spaces), csv (long tid,item CSV), "
                      "basket (one record per line), parquet (long tid,item or a list column item; "
                      "needs pyarrow). Default: .dat fimi, .csv csv, .parquet parquet, else basket; a basket "
                      "file with spaces and no comma needs --format or --delimiter."),
    click.option("--delimiter", "--sep", "sep", default=None,
                 help="Field delimiter of csv input (default ,) or item delimiter of basket input "
                      "(default , when the file has one); one character, or tab / space."),
    click.option("--tid", default="tid", show_default=True, help="Transaction-id column of CSV input."),
    click.option("--item", default="item", show_default=True, help="Item column of CSV input."),
    click.option("--label", default=None, help="Sensitive-label column of CSV input."),
    click.option("--missing-label", type=click.Choice(["error", "drop", "as-value"]), default="error",
                 show_default=True, expose_value=False, is_eager=True,
                 callback=lambda ctx, _param, value: ctx.meta.__setitem__(_MISSING_LABEL, value),
                 help="Records whose --label value is empty or NA: refuse the input (naming how many), drop them "
                      "(reported), or keep the text as a label of its own."),
]


def input_options(func):
    for option in reversed(_input_options):
        func = option(func)
    return func


@click.group(name="graphanon", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphanon")
@click.option("--max-memory", default=None, metavar="SIZE",
              help="Memory budget, e.g. 4G or 500M (default: $GRAPHANON_MAX_MEMORY, else 75% of physical "
                   "memory). Itemset searches stop with an error naming the parameter to change "
                   "before exceeding it.")
def main(max_memory: str | None) -> None:
    """graphanon: anonymize transaction (set-valued) data and audit the result.

    INPUT arguments take a file or a bundled dataset name (see `graphanon datasets`).
    """
    if max_memory is not None:
        from graphanon.utils.memory import parse_memory, set_max_memory

        try:
            set_max_memory(parse_memory(max_memory))
        except GraphanonError as exc:
            raise GraphanonError(f"--max-memory: {exc}") from None


def check_data(data, release, *, link=None, name: str | None = None) -> str | None:
    """:func:`~graphanon.release.check_same_data` for a command: a mismatch fails; returns the note to print, or None.

    A release whose fingerprint is keyed can be verified only with its
    private link (the key is there). Without one the command goes on; the
    returned note (:data:`~graphanon.release.fingerprint.UNVERIFIED_NOTE`,
    prefixed by ``name`` when given) is printed by :func:`echo_note` as the
    last line of the command's text result, or told in its JSON object as
    ``"data_verified": false``.
    """
    from graphanon.release.fingerprint import UNVERIFIED_NOTE, check_same_data

    try:
        verified = check_same_data(data, release, link=link)
    except GraphanonError as exc:
        raise type(exc)(f"{name}: {exc}" if name else str(exc)) from None
    if verified or release.fingerprint is None:
        return None
    return f"{name + ': ' if name else ''}{UNVERIFIED_NOTE}"


def echo_note(note: str | None) -> None:
    """Print ``graphanon: note: NOTE`` after the command's text result (nothing for None), within 80 columns.

    On stdout, as part of the result: stderr is for errors and progress only.
    """
    if note:
        import textwrap

        click.echo(textwrap.fill(f"graphanon: note: {note}", 80, subsequent_indent="  ", break_long_words=False,
                                 break_on_hyphens=False))
