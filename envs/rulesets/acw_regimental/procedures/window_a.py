"""Window A (RULE-04-1.2, ACW-PD-24): the non-active side is asked, one defender and one trigger
at a time, whether to react to a unit moving along its path.

The move frame stops the mover at the earliest trigger point and pushes one :class:`WindowA`
per (defender, trigger) found there. The reactions a trigger can offer are written in
:mod:`..reactions`: ``opp_medium`` / ``opp_short`` offer Opportunity Fire and Wait for Short
(RULE-04-3.x, I-18), ``evade`` the three Evade distances (RULE-04-4.x), ``refuse`` Refuse the
Flank with 1 or 2 stands (RULE-04-5.x). Decline is always offered. A trigger with nothing to
offer is spent without asking; a declined trigger is spent (both Opportunity Fire triggers at
once, I-18), and a unit reacts to one mover once (RULE-04-1.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from envs.core.geometry import footprint_distance
from envs.core.procedure import register
from envs.core.protocol import Illegality
from envs.core.reactions import ReactionWindow

from ..actions import DECLINE_LABEL, ACWDecision
from ..reactions.evade import EVADES
from ..reactions.opportunity_fire import OpportunityFire, WaitShort
from ..reactions.refuse_flank import REFUSALS
from ..reactions.refusals import why_reaction_illegal
from .context import ACWContext

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["OFFERS", "TRIGGER_RULE", "WindowA"]

_OPPORTUNITY = (OpportunityFire(), WaitShort())
#: the reactions each Window A trigger can offer, in the catalogue's order
OFFERS = {"opp_medium": tuple(r.label for r in _OPPORTUNITY),
          "opp_short": tuple(r.label for r in _OPPORTUNITY),
          "evade": tuple(r.label for r in EVADES),
          "refuse": tuple(r.label for r in REFUSALS)}
#: the rule that defines each trigger point
TRIGGER_RULE = {"opp_medium": "RULE-04-3.1", "opp_short": "RULE-04-3.1",
                "evade": "RULE-04-4.1", "refuse": "RULE-04-5.1"}


@register
@dataclass(slots=True)
class WindowA(ReactionWindow["ACWState"]):
    """Ask the defender ``subject`` (of side ``side``) about ``trigger`` raised by the active
    side's unit ``mover``. ``at_path_start``: the mover began its move inside the trigger's
    zone, so the trigger holds at the first point of its path (RULINGS-10, cited by the
    window's event)."""

    kind = "acw.window_a"
    decision = ACWDecision.REACTION
    decline_label = DECLINE_LABEL
    skip_when_only_decline = True
    reactions = {r.label: r for r in _OPPORTUNITY + EVADES + REFUSALS}

    mover: int = -1
    at_path_start: bool = False

    def units(self, state: ACWState) -> tuple[Any, Any]:
        """``(defender, mover)``, or ``(None, None)`` when either is gone or the defender has
        already reacted to this mover (RULE-04-1.4)."""
        defender = state.units[self.side][self.subject]
        mover = state.units[1 - self.side][self.mover]
        if defender is None or not defender.alive or mover is None or not mover.alive or \
                defender.slot in state.reacted:
            return None, None
        return defender, mover

    def on_open(self, state: ACWState) -> None:
        defender = state.unit_in(self.side, self.subject)
        mover = state.unit_in(1 - self.side, self.mover)
        rules: tuple[str, ...] = ("RULE-04-1.2", "ACW-PD-24", TRIGGER_RULE[self.trigger])
        if self.at_path_start:  # the move began inside the zone (RULINGS-10)
            rules += ("RULINGS-10",)
        state.log("window_a", rules,
                  f"Window A: {mover.label()} reaches the {self.trigger} trigger point of "
                  f"{defender.label()} ({footprint_distance(defender.fp, mover.fp):.2f}\")",
                  defender.side, defender=defender.slot, mover=mover.slot, trigger=self.trigger)

    def on_skip(self, state: ACWState) -> None:
        state.spent_triggers.append((self.subject, self.trigger))

    def on_decline(self, state: ACWState) -> None:
        defender = state.unit_in(self.side, self.subject)
        opportunity = self.trigger.startswith("opp")
        if opportunity:  # both Opportunity Fire points are spent (I-18)
            state.spent_triggers += [(defender.slot, "opp_medium"), (defender.slot, "opp_short")]
        else:
            state.spent_triggers.append((defender.slot, self.trigger))
        state.log("react_decline", ("RULE-04-1.2", "I-18") if opportunity else
                  ("RULE-04-1.2",), f"{defender.label()} declines ({self.trigger})", self.side,
                  unit=defender.slot)

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        # the refusal texts shared with Window B1 (reactions.refusals)
        why = why_reaction_illegal(state, state.units[self.side][self.subject], action)
        return Illegality(tuple(why[0]), why[1]) if why is not None else None

    def context(self, state: ACWState, viewer: int) -> ACWContext:
        return ACWContext(self.kind, self.side, self.decision, (self.side, self.subject),
                          (1 - self.side, self.mover), self.trigger)
