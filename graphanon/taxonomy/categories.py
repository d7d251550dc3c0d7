"""Item categories for tendency hiding: builders, a file reader, per-column codes.

A person's *tendency* (Gunawan & Mambo 2019, Sec. 3-4) is read from the
categories of the items in their record, so the swapping methods
(:mod:`graphanon.algorithms.swapping`) and the :class:`TendencyHiding
<graphanon.privacy.tendency.TendencyHiding>` audit take an
:class:`~graphanon.taxonomy.ItemGroups` partition of the items. The
categories are *public*: the audit assumes the adversary knows them.

Three sources, also spelled as a ``categories=`` CLI value
(:func:`parse_categories`):

``random:N[:SEED]``
    The paper's setting (Sec. 5.1): N categories of equal size (sizes differ
    by at most one), items assigned by a seeded shuffle
    (:func:`random_categories`). SEED defaults to 0, so that the anonymizer
    and the audit rebuild the same categories from the same text.
``taxonomy-level:D``
    The nodes at depth D of the taxonomy, each the category of the leaves
    under it (:meth:`~graphanon.taxonomy.Taxonomy.groups_at`).
a file path
    CSV rows ``item,category`` (RFC 4180 quoting; a header ``item,category``
    is allowed), read by :func:`read_categories`.

Examples
--------
>>> g = random_categories(["a", "b", "c", "d", "e"], 2, rng=0)
>>> sorted(len(block) for block in g)
[2, 3]
>>> codes = category_codes(g, ["a", "b"])
>>> codes.dtype.kind, len(codes)
('i', 2)
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np

from graphanon.errors import DataFormatError, ParameterError
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.randomness import check_random_state

__all__ = ["category_codes", "parse_categories", "random_categories", "read_categories"]


def random_categories(items: Sequence[Hashable], n_categories: int, *, rng=0) -> ItemGroups:
    """``n_categories`` categories of equal size over ``items``, by a seeded shuffle.

    Parameters
    ----------
    items : sequence of item labels
    n_categories : int
        1 <= n_categories <= len(items).
    rng : None, int or numpy.random.Generator
        Structure randomness (default seed 0: the categories are public and
        must be rebuilt identically by the audit).

    Returns
    -------
    ItemGroups
        Categories named ``"g1" .. "gN"``; sizes ``floor(d/N)`` or ``ceil(d/N)``.

    Notes
    -----
    Complexity: O(d) for d items.

    References
    ----------
    Gunawan, Mambo, Future Internet 11(6):138, 2019, Sec. 5.1 (50 equal-size
    random categories).
    """
    items = list(dict.fromkeys(items))
    if isinstance(n_categories, bool) or not isinstance(n_categories, (int, np.integer)):
        raise ParameterError(f"the number of categories must be a whole number, got {n_categories!r}")
    if not 1 <= n_categories <= max(len(items), 1) or not items:
        raise ParameterError(
            f"the number of categories must lie between 1 and the number of items ({len(items)}), got {n_categories}"
        )
    order = check_random_state(rng).permutation(len(items))
    blocks = np.array_split(order, int(n_categories))
    return ItemGroups({f"g{c + 1}": [items[j] for j in block] for c, block in enumerate(blocks)})


def read_categories(path: str | os.PathLike) -> ItemGroups:
    """Categories from a CSV file of ``item,category`` rows (a header row is optional).

    Raises
    ------
    DataFormatError
        Naming the file and line of a row that does not have two fields, or
        of an item listed twice.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise DataFormatError(f"{path}: cannot read the categories file ({exc})") from None
    blocks: dict[Hashable, list[Hashable]] = {}
    seen: dict[str, int] = {}
    for lineno, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != 2:
            raise DataFormatError(f"{path}, line {lineno}: expected 'item,category', got {len(row)} field(s)")
        item, category = row[0].strip(), row[1].strip()
        if lineno == 1 and (item.lower(), category.lower()) == ("item", "category"):
            continue
        if not item or not category:
            raise DataFormatError(f"{path}, line {lineno}: empty item or category name")
        if item in seen:
            raise DataFormatError(f"{path}, line {lineno}: item {item!r} already has a category (line {seen[item]})")
        seen[item] = lineno
        blocks.setdefault(category, []).append(item)
    if not blocks:
        raise DataFormatError(f"{path}: no 'item,category' rows")
    return ItemGroups(blocks)


def parse_categories(spec: str, data, taxonomy=None) -> ItemGroups:
    """Categories from a CLI value: ``random:N[:SEED]``, ``taxonomy-level:D`` or a CSV file.

    Parameters
    ----------
    spec : str
    data : TransactionData
        Its items must all have a category.
    taxonomy : Taxonomy, optional
        Needed by ``taxonomy-level:D``.

    Returns
    -------
    ItemGroups
    """
    spec = str(spec).strip()
    head, _, rest = spec.partition(":")
    if head == "random" and rest:
        parts = rest.split(":")
        try:
            n = int(parts[0])
            seed = int(parts[1]) if len(parts) > 1 else 0
        except ValueError:
            raise ParameterError(f"categories={spec!r}: use random:N or random:N:SEED (whole numbers)") from None
        if len(parts) > 2 or seed < 0:
            raise ParameterError(f"categories={spec!r}: use random:N or random:N:SEED (SEED >= 0)")
        groups = random_categories(data.items, n, rng=seed)
    elif head == "taxonomy-level" and rest:
        if taxonomy is None:
            raise ParameterError(f"categories={spec!r} needs a taxonomy (--taxonomy FILE or balanced:FANOUT)")
        try:
            depth = int(rest)
        except ValueError:
            raise ParameterError(f"categories={spec!r}: use taxonomy-level:DEPTH (a whole number)") from None
        if not 1 <= depth <= taxonomy.height:
            raise ParameterError(
                f"categories={spec!r}: the taxonomy has levels 1..{taxonomy.height} below its root"
            )
        groups = taxonomy.groups_at(depth)
    elif Path(spec).is_file():
        groups = read_categories(spec)
    else:
        raise ParameterError(
            f"categories={spec!r}: give random:N[:SEED], taxonomy-level:DEPTH or an existing item,category CSV file"
        )
    groups.check_covers(data.items, what="the data")
    return groups


def category_codes(groups: ItemGroups, items: Sequence[Hashable]) -> np.ndarray:
    """Category index (position in ``groups.names``) of each item, as int64.

    Raises :class:`~graphanon.errors.ParameterError` naming items without a category.
    """
    groups.check_covers(items, what="the data")
    index = {name: c for c, name in enumerate(groups.names)}
    return np.fromiter((index[groups.group_of(x)] for x in items), dtype=np.int64, count=len(items))
