"""The successful reactor's one action from the reaction menu (AL-15, AL-16, AL-17,
AL-PD-35; its AP cost, research Q4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Frame, register
from envs.core.protocol import Illegality
from envs.core.reactions import Cost, Reaction, ReactionWindow

from ..actions import REACT_NONE_LABEL, Act, Decision
from ..legality import legal_react_ids, why_not
from ..procedures.context import AlertContext, _ctx, catalogue_reactions
from ..procedures.resolution import effect
from ..queries import legal_scope

if TYPE_CHECKING:
    from ..state import AlertState, Fighter


class MenuReaction(Reaction):
    """One action of the reaction menu (AL-15, AL-16), e.g. ``react:shoot:e2``; free unless
    ``reaction_action_costs_ap`` (Q4). Need not concern the trigger (AL-17)."""

    rules = ("AL-15", "AL-16", "AL-17")

    def __init__(self, label: str, act: Act):
        self.label = label
        self.act = act

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        return why_not(state, state.fighter(window.subject), self.act)

    def cost(self, state: AlertState, window: ReactionWindow) -> Cost:
        if state.game.reaction_action_costs_ap:
            return Cost(f"ap:{window.subject}", 1, ("AL-PD-14", "AL-20"))
        return Cost("", 0)

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        fighter = state.fighter(window.subject)
        state.log("reaction", self.rules, f"{fighter.name} reacts: {self.label}", fighter.team,
                  fighter=fighter.gid, action=self.label)
        return effect(state, fighter, self.act, self.rules)


def react_menu(state: AlertState, reactor: Fighter) -> tuple[str, ...]:
    """The labels of ``reactor``'s reaction menu that are allowed now (AL-16 / AL-PD-35: melee
    only against an engaged enemy, move only when not engaged and disengage only when engaged,
    shooting and equipment only when not engaged)."""
    game = state.game
    with legal_scope(state):
        return tuple(game.actions.labels[i] for i in legal_react_ids(state, reactor))


@register
@dataclass(slots=True)
class ReactWindow(ReactionWindow):
    """A successful reactor's one action (AL-15); ``react:none`` declines after succeeding
    (alert is still consumed, AL-PD-35)."""

    kind = "alert.react_window"
    decision = Decision.REACT
    decline_label = REACT_NONE_LABEL
    actor: int = -1
    trigger_target: int = -1

    def on_open(self, state: AlertState) -> None:
        pass

    def on_decline(self, state: AlertState) -> None:
        fighter = state.fighter(self.subject)
        state.log("reaction", ("AL-15", "AL-PD-35"), f"{fighter.name} takes no action",
                  fighter.team, fighter=fighter.gid, action=REACT_NONE_LABEL)

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, actor=self.actor, target=self.trigger_target,
                    offered=tuple(self.offered))


ReactWindow.reactions = catalogue_reactions(MenuReaction,
                                            lambda act: act.react and act.kind != "none")
