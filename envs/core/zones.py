"""Per-side hidden zones: hands, a Reserve, face-down cards, decks, discards.

A :class:`Zone` holds a multiset of card ids (ints; a ruleset's chance catalogue names them)
and says who may see its contents (:class:`Visibility`): everybody, only its owner (a hand, a
Reserve, face-down orders), or nobody (a deck). :meth:`Zones.public_view` gives what one side
may see — every zone's size, and the cards only where that side may look — so an observer
built on it cannot read what its side may not see.

Cards are kept sorted: the order in which cards arrived is not information any side has.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import InvalidStateError
from .procedure import Record, register

__all__ = ["Visibility", "Zone", "ZoneView", "Zones"]


class Visibility(str, enum.Enum):
    """Who may see a zone's cards (everyone always sees its size)."""

    PUBLIC = "public"  #: every side (a discard pile, revealed cards)
    OWNER = "owner"  #: only the owning side (a hand, a Reserve, face-down cards)
    NOBODY = "nobody"  #: no side (a deck)


@register
@dataclass(slots=True)
class Zone(Record):
    """A named multiset of cards with an owner (``None``: shared) and a visibility."""

    kind = "zone"
    name: str
    owner: int | None
    visibility: Visibility
    cards: list[int]

    def visible_to(self, side: int) -> bool:
        v = self.visibility
        return v is Visibility.PUBLIC or (v is Visibility.OWNER and self.owner == side)


@dataclass(frozen=True, slots=True)
class ZoneView:
    """One zone as ``viewer`` sees it: ``cards`` is ``None`` when the viewer may not look."""

    name: str
    owner: int | None
    size: int
    cards: tuple[int, ...] | None


class Zones:
    """The zones of one state, by name (a state keeps one ``Zones`` as ``state.zones``).

    Raises (every method): :class:`~envs.core.errors.InvalidStateError` for an unknown zone or
    a card that is not in the zone it is taken from.
    """

    __slots__ = ("_zones",)

    def __init__(self, zones: Iterable[Zone] = ()):
        self._zones: dict[str, Zone] = {}
        for z in zones:
            self.add(z.name, z.owner, z.visibility, z.cards)

    def add(self, name: str, owner: int | None, visibility: Visibility,
            cards: Iterable[int] = ()) -> Zone:
        if name in self._zones:
            raise InvalidStateError(f"zones: zone {name!r} exists already")
        z = Zone(name, owner, Visibility(visibility), sorted(int(c) for c in cards))
        self._zones[name] = z
        return z

    def __getitem__(self, name: str) -> Zone:
        try:
            return self._zones[name]
        except KeyError:
            raise InvalidStateError(f"zones: no zone {name!r} (zones: {sorted(self._zones)})") \
                from None

    def __iter__(self) -> Iterator[Zone]:
        return iter(self._zones.values())

    def names(self) -> list[str]:
        return list(self._zones)

    def size(self, name: str) -> int:
        return len(self[name].cards)

    def count(self, name: str, card: int) -> int:
        """How many copies of ``card`` are in the zone (owner's knowledge: use
        :meth:`public_view` for what a side may see)."""
        cards = self[name].cards
        return bisect.bisect_right(cards, card) - bisect.bisect_left(cards, card)

    def distribution(self, name: str) -> list[tuple[int, float]]:
        """``(card, probability)`` of drawing each distinct card uniformly from the zone, in
        card order (the probabilities follow the cards that remain)."""
        cards = self[name].cards
        if not cards:
            raise InvalidStateError(f"zones: cannot draw from the empty zone {name!r}")
        n = len(cards)
        out: list[tuple[int, float]] = []
        i = 0
        while i < n:
            c = cards[i]
            j = bisect.bisect_right(cards, c, i)
            out.append((c, (j - i) / n))
            i = j
        return out

    def move(self, card: int, source: str, dest: str) -> None:
        """Move one copy of ``card`` from ``source`` to ``dest``."""
        src = self[source].cards
        i = bisect.bisect_left(src, card)
        if i >= len(src) or src[i] != card:
            raise InvalidStateError(f"zones: card {card} is not in zone {source!r}")
        del src[i]
        bisect.insort(self[dest].cards, card)

    def move_all(self, source: str, dest: str) -> None:
        src = self[source]
        dst = self[dest]
        dst.cards = sorted(dst.cards + src.cards)
        src.cards = []

    def public_view(self, viewer: int) -> dict[str, ZoneView]:
        """Every zone as ``viewer`` may see it: sizes always, cards only where allowed."""
        return {z.name: ZoneView(z.name, z.owner, len(z.cards),
                                 tuple(z.cards) if z.visible_to(viewer) else None)
                for z in self._zones.values()}

    def copy(self) -> "Zones":
        out = Zones()
        out._zones = {n: z.copy() for n, z in self._zones.items()}
        return out

    def to_list(self) -> list[dict[str, Any]]:
        return [z.to_dict() for z in self._zones.values()]

    @classmethod
    def from_list(cls, data: Iterable[Mapping[str, Any]]) -> "Zones":
        return cls(Zone.from_dict(d) for d in data)
