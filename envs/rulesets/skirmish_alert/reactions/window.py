"""The alert window a declared action opens (AL-4), slot by slot (AL-23, AL-PD-33, AL-PD-34)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from envs.core.procedure import Done, Frame, Push, Step, register

from ..actions import attempt_label
from .attempt import AttemptWindow
from .eligibility import why_not_eligible

if TYPE_CHECKING:
    from ..state import AlertState, Fighter


@register
@dataclass(slots=True)
class AlertWindow(Frame):
    """The one window a declared action opens (AL-4), slot by slot (AL-PD-33): the track
    positions of the fighters eligible when it opens, ascending (AL-23); each slot is used by
    the team that owns it, which sends any of its eligible fighters it likes (AL-22).
    Eligibility is checked again at every slot (Q10). Stops when the actor is out of action
    (AL-PD-34)."""

    kind = "alert.window"
    subject: int
    trigger: str
    decl_x: int
    decl_y: int
    trigger_target: int = -1
    slots: list[list[int]] = field(default_factory=list)
    index: int = 0
    opened: bool = False

    def _eligible(self, state: AlertState, gid: int) -> bool:
        return why_not_eligible(state, gid, self) is None

    def _open(self, state: AlertState) -> None:
        """Fix the window's slots and log who may react and who, on alert, may not (AL-4,
        AL-23)."""
        actor = state.fighter(self.subject)
        eligible: list[Fighter] = []
        barred: list[dict[str, Any]] = []
        rules = ["AL-4", "AL-23"]
        for fighter in state.live():
            why = why_not_eligible(state, fighter.gid, self)
            if why is None:
                eligible.append(fighter)
            elif fighter.on_alert and fighter.team != actor.team:  # on alert, not eligible
                barred.append({"fighter": fighter.gid, "rules": list(why.rules),
                               "reason": why.reason})
                rules += [rule for rule in why.rules if rule not in rules]
        eligible.sort(key=lambda fighter: fighter.track_pos)
        self.slots = [[fighter.track_pos, fighter.team] for fighter in eligible]
        text = (f"{actor.name} declares {self.trigger}: {len(eligible)} fighter(s) on alert "
                f"may react")
        if barred:
            text += "; not eligible: " + "; ".join(entry["reason"] for entry in barred)
        state.log("window_opened", tuple(rules), text, actor.team, actor=self.subject,
                  trigger=self.trigger, eligible=[fighter.gid for fighter in eligible],
                  slots=[list(slot) for slot in self.slots], ineligible=barred)

    def run(self, state: AlertState) -> Step:
        if not self.opened:
            self.opened = True
            self._open(state)
        per_team = state.game.fighters_per_team
        while self.index < len(self.slots):
            if not state.fighter(self.subject).in_play:
                return Done()
            team = self.slots[self.index][1]
            self.index += 1
            offered = tuple(attempt_label(slot) for slot in range(per_team)
                            if self._eligible(state, team * per_team + slot))
            if offered:
                left = sum(1 for _, owner in self.slots[self.index - 1:] if owner == team)
                return Push(AttemptWindow(team, self.trigger, self.subject, offered,
                                          decl_x=self.decl_x, decl_y=self.decl_y,
                                          trigger_target=self.trigger_target, slot=self.index,
                                          slots_left=left))
        return Done()
