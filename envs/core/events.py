"""Structured event log: every event cites the rule ids it applied."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a game.

    Attributes:
        kind: short machine name, e.g. ``"closing_volley"``, ``"stand_lost"``, ``"roll"``.
        rules: rule ids applied, e.g. ``("RULE-04-2.3", "ACW-PD-25")``. Never empty for rule
            effects; may be empty for pure bookkeeping (phase changes cite their PD id).
        text: one human-readable line.
        side: the side the event concerns, or ``None``.
        data: JSON-serialisable details (numbers, unit ids, dice).
    """

    kind: str
    rules: tuple[str, ...]
    text: str
    side: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rules": list(self.rules), "text": self.text,
                "side": self.side, "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Event":
        if cls is not Event:
            return cls(kind=d["kind"], rules=tuple(d["rules"]), text=d["text"],
                       side=d.get("side"), data=dict(d.get("data", {})))
        return make_event(d["kind"], tuple(d["rules"]), d["text"], d.get("side"),
                          dict(d.get("data", {})))

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle / deepcopy as a call of :func:`make_event` with the five fields: the same
        # object back, about twice as fast as the dataclass' generic slots state (states
        # carry hundreds of events; SubprocVecEnv and the fuzz pickle them)
        return (make_event if type(self) is Event else type(self),
                (self.kind, self.rules, self.text, self.side, self.data))

    def format(self) -> str:
        """One log line: ``[RULE-…, …] text``."""
        rules = ", ".join(self.rules) if self.rules else "-"
        return f"[{rules}] {self.text}"


# Fast construction for the engine's hot path (``State.log``, ~2 events per decision): the
# frozen dataclass ``__init__`` writes each field through ``object.__setattr__``; writing the
# slot descriptors directly gives the identical object (same fields, equality, hash, repr)
# about three times faster.
# The descriptors are read from the class namespace (``Event.kind`` would be typed as the field).
_new = object.__new__
_slot = vars(Event)
_set_kind = _slot["kind"].__set__
_set_rules = _slot["rules"].__set__
_set_text = _slot["text"].__set__
_set_side = _slot["side"].__set__
_set_data = _slot["data"].__set__


def make_event(kind: str, rules: tuple[str, ...], text: str, side: int | None,
               data: dict[str, Any]) -> Event:
    """``Event(kind, rules, text, side, data)`` without the dataclass ``__init__`` (the same
    object, built faster; the arguments are stored as given)."""
    e = _new(Event)
    _set_kind(e, kind)
    _set_rules(e, rules)
    _set_text(e, text)
    _set_side(e, side)
    _set_data(e, data)
    return e
