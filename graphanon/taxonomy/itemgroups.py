"""Item partitions: named, disjoint blocks of items.

An :class:`ItemGroups` is what COAT's utility constraints and the swapping
categories are; every level of a :class:`graphanon.taxonomy.Taxonomy` is one
(:meth:`~graphanon.taxonomy.Taxonomy.groups_at`). Items are text
(:mod:`graphanon.utils.labels`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

from graphanon.errors import DataFormatError, ParameterError
from graphanon.utils.labels import as_label, lookup_key

__all__ = ["ItemGroups"]


class ItemGroups:
    """A partition of items into named blocks.

    Parameters
    ----------
    blocks : mapping name -> iterable of items
        Blocks must be disjoint and non-empty. Items are turned into text
        (:func:`graphanon.utils.labels.as_label`); block names are kept as given.

    Examples
    --------
    >>> g = ItemGroups({"fruit": ["apple", "pear"], "meat": ["beef"]})
    >>> g.group_of("pear")
    'fruit'
    """

    def __init__(self, blocks: Mapping[Hashable, Iterable[Hashable]]) -> None:
        out: dict = {}
        owner: dict = {}
        for name, block in blocks.items():
            try:
                members = tuple(dict.fromkeys(as_label(x) for x in block))
            except DataFormatError as exc:
                raise ParameterError(f"group {name!r}: {exc}") from None
            if not members:
                raise ParameterError(f"group {name!r} is empty")
            for it in members:
                if it in owner:
                    raise ParameterError(
                        f"item {it!r} is in two groups ({owner[it]!r} and {name!r}); groups must be disjoint"
                    )
                owner[it] = name
            out[name] = members
        self.blocks: dict = out
        self._owner = owner
        self.item_set = frozenset(owner)

    @classmethod
    def from_lists(cls, lists: Iterable[Iterable[Hashable]]) -> ItemGroups:
        """Blocks named 0, 1, 2, ... in the given order."""
        return cls({i: block for i, block in enumerate(lists)})

    _key = staticmethod(lookup_key)

    def group_of(self, item: Hashable):
        """The name of the group holding ``item`` (ParameterError when no group does)."""
        try:
            return self._owner[self._key(item)]
        except (KeyError, TypeError):
            raise ParameterError(f"item {item!r} is in no group") from None

    @property
    def names(self) -> list:
        """The group names, in order."""
        return list(self.blocks)

    def __len__(self) -> int:
        """The number of groups."""
        return len(self.blocks)

    def __iter__(self):
        """The groups' item tuples, in order."""
        return iter(self.blocks.values())

    def covers(self, items: Iterable[Hashable]) -> bool:
        """Whether every item of ``items`` is in some group."""
        return all(self._key(x) in self._owner for x in items)

    def check_covers(self, items: Iterable[Hashable], *, what: str = "the data") -> None:
        """Raise unless every item of ``items`` is in some group (``what`` names them in the message)."""
        missing = [x for x in items if self._key(x) not in self._owner]
        if missing:
            raise ParameterError(
                f"{len(missing)} item(s) of {what} are in no group, e.g. "
                f"{', '.join(map(repr, missing[:5]))}; every item needs a group"
            )

    def __repr__(self) -> str:
        """A short summary: groups and items."""
        return f"<ItemGroups: {len(self.blocks)} groups over {len(self._owner)} items>"
