"""The typed decision context of the ACW frames, read by the observer (what is being decided,
by which unit, triggered by which unit)."""

from __future__ import annotations

from dataclasses import dataclass

from envs.core.procedure import DecisionContext

__all__ = ["ACWContext", "SIDE_NAMES"]

SIDE_NAMES = ("Union", "Confederate")


@dataclass(frozen=True, slots=True)
class ACWContext(DecisionContext):
    """What the observer reads about the waiting decision: the unit asked or acting
    (``(side, slot)``), the unit that triggered it, and what is being decided (one of the
    observer's ``CTX_KINDS``), each ``None`` when it does not apply."""

    asked: tuple[int, int] | None = None
    trigger: tuple[int, int] | None = None
    what: str | None = None
