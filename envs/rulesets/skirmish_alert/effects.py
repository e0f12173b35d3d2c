"""The effects of the skirmish alert game on its fighters: moving, knock-downs and wounds
(AL-PD-15, AL-PD-16, AL-PD-22, AL-PD-23, AL-PD-29)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import AlertState, Fighter


def move_to(fighter: Fighter, x: int, y: int, facing: int | None = None) -> None:
    """Put ``fighter`` on square ``(x, y)``, facing ``facing`` when given (unlogged: the caller
    logs the move it is part of)."""
    fighter.x, fighter.y = x, y
    if facing is not None:
        fighter.facing = facing


def move_to_square(state: AlertState, fighter: Fighter, dest: tuple[int, int],
                   rules: tuple[str, ...]) -> None:
    """Move ``fighter`` to ``dest`` by any free path (AL-PD-15, AL-PD-16; the caller checked
    it is reachable); its facing is set afterwards by a ``facing`` decision."""
    start = fighter.pos
    move_to(fighter, dest[0], dest[1])
    state.log("move", rules, f"{fighter.name} moves from {start} to {dest}", fighter.team,
              fighter=fighter.gid, to=[fighter.x, fighter.y], start=list(start))


def knock_down(state: AlertState, fighter: Fighter, rules: tuple[str, ...]) -> None:
    """AL-PD-23, AL-PD-29: knocked down; alert is lost."""
    fighter.knocked_down = True
    fighter.knockdowns += 1
    fighter.on_alert = False
    state.log("knocked_down", rules + ("AL-PD-29",), f"{fighter.name} is knocked down",
              fighter.team, fighter=fighter.gid)


def wound(state: AlertState, fighter: Fighter, wounds: int, rules: tuple[str, ...]) -> None:
    """AL-PD-22: lose ``wounds`` wounds; at 0 the fighter is out of action (off the board and
    the track, alert removed)."""
    fighter.wounds -= wounds
    state.log("wounded", rules, f"{fighter.name} loses {wounds} wound(s), "
              f"{max(fighter.wounds, 0)} left", fighter.team, fighter=fighter.gid,
              wounds=wounds, left=max(fighter.wounds, 0))
    if fighter.wounds <= 0:
        fighter.wounds = 0
        fighter.in_play = False
        fighter.on_alert = False
        fighter.knocked_down = False
        state.log("out_of_action", ("AL-PD-22",), f"{fighter.name} is out of action",
                  fighter.team, fighter=fighter.gid)
