"""The typed context of a waiting skirmish decision (:class:`AlertContext`) and the
reaction catalogue helper the windows share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from envs.core.reactions import Reaction, ReactionContext

from ..actions import Act


@dataclass(frozen=True, slots=True)
class AlertContext(ReactionContext):
    """What any side may see of the waiting decision: ``fighter`` — the fighter who decides
    (global id; -1 when a team chooses among several), ``actor`` — the fighter whose turn it
    is, ``trigger_target`` — the target of the declared action (-1 when none),
    ``difficulty`` — the test's difficulty for the asked team (0 when no test), ``candidates``
    — the fighters the team may send (global ids); in a window's slot (AL-22, AL-23),
    ``slot`` — its place among the window's slots (1 = first; 0 outside a window) and
    ``slots_left`` — the slots of the window the asked team still owns, this one included
    (a team asked twice in one window sees which time it is: declining its last slot is its
    last chance)."""

    fighter: int = -1
    actor: int = -1
    trigger_target: int = -1
    difficulty: int = 0
    candidates: tuple[int, ...] = ()
    slot: int = 0
    slots_left: int = 0


def _ctx(frame: str, player: int, decision: str, *, trigger: str = "", fighter: int = -1,
         actor: int = -1, target: int = -1, difficulty: int = 0,
         candidates: tuple[int, ...] = (), offered: tuple[str, ...] = (), slot: int = 0,
         slots_left: int = 0) -> AlertContext:
    return AlertContext(frame, player, decision, trigger, fighter, offered, fighter, actor,
                        target, difficulty, candidates, slot, slots_left)


def catalogue_reactions(make: Callable[[str, Act], Reaction],
                         keep: Callable[[Act], bool]) -> dict[str, Reaction]:
    """``{label: make(label, act)}`` for the acts of the largest catalogue (4 teams of 6, 16
    elements: every label any scenario has) that ``keep`` selects."""
    from ..actions import build_catalogue

    cat, acts = build_catalogue(4, 6, 16)
    return {lab: make(lab, a) for lab, a in zip(cat.labels, acts) if keep(a)}
