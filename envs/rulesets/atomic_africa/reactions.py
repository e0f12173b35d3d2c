"""The voluntary reaction of Atomic Africa through the core reaction window
(:mod:`envs.core.reactions`).

When the activating unit skipped Targeting, the reacting side may choose one of its units to
react, or none (AA-R1, AA-R3). That choice is a :class:`ReactionChoice` window whose offered
reactions are :class:`UnitReacts`, one per own unit slot (``react:unitK``), and whose decline
is ``react:none``. A unit may react when it is on the table, has not acted this turn
(AA-G20), sees the activating unit's Start Group or In-transit figure (AA-R3, AA-G9) and holds
an order or can take an eligible card of the Reserve (AA-R4, AA-R5). Taking a unit costs
nothing at the window: an orderless reactor's card is its own decision afterwards
(``reserve_assign``, AA-R4). The window is skipped, with a ``no_reaction`` event, when no unit
may react. Compulsory reactors (AA-R2) and the cascade (AA-R9) are not choices: the
:class:`~.procedures.reaction.ReactionSubPhase` queues them itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, cast

from envs.core.procedure import Frame, register
from envs.core.protocol import Illegality
from envs.core.reactions import Reaction, ReactionContext, ReactionWindow

from . import orders, sight
from .actions import REACT_NONE, Decision, react_label
from .state import AAState

#: the largest ``max_units_per_side`` (:class:`~.params.AAParams`): one reaction per slot
MAX_SLOTS = 12


class UnitReacts(Reaction[AAState]):
    """Own unit ``slot`` reacts by choice (AA-R1, AA-R3, AA-R5, AA-G20)."""

    rules = ("AA-R1", "AA-R3")

    def __init__(self, slot: int):
        self.slot = slot
        self.label = react_label(slot)

    def why_not(self, state: AAState, window: ReactionWindow) -> Illegality | None:
        slot = self.slot
        slots = state.units[window.side]
        unit = slots[slot] if slot < len(slots) else None
        if unit is None or not unit.alive:
            return Illegality(("AA-R3",), f"there is no unit{slot}")
        if unit.acted:
            return Illegality(("AA-G20",), f"unit{slot} has already acted this turn")
        phase = state.phase_in_play()
        if not sight.sees(state, unit, state.unit_in(phase.side, phase.unit)):
            return Illegality(("AA-R3",), f"unit{slot} has no line of sight to the activating "
                              f"unit's Start Group or In-transit figure")
        if (orders.order_card(state, unit.side, slot) is None
                and not orders.eligible_reserve(state, unit.side, unit)):
            return Illegality(("AA-R5",), f"unit{slot} has no order and the Reserve holds no "
                              f"eligible card")
        return None

    def resolve(self, state: AAState, window: ReactionWindow) -> tuple[Frame, ...]:
        """Nothing to run here: the Reaction sub-phase reads the choice and queues the unit."""
        return ()


@register
@dataclass(slots=True)
class ReactionChoice(ReactionWindow[AAState]):
    """The reacting side chooses one unit to react, or none (``subject`` is -1: the choice is
    about the side, not a unit). ``chosen`` names the label taken (``None`` when the window was
    skipped)."""

    kind = "aa.reaction_choice"
    reactions: ClassVar[dict[str, Reaction]] = {
        react_label(slot): UnitReacts(slot) for slot in range(MAX_SLOTS)}
    decline_label: ClassVar[str] = REACT_NONE
    decision: ClassVar[str] = Decision.REACTION
    skip_when_only_decline: ClassVar[bool] = True

    def on_open(self, state: AAState) -> None:
        """The opening is not an event of its own (the activation and In-transit events say
        what the side reacts to)."""

    def on_skip(self, state: AAState) -> None:
        state.log("no_reaction", ("AA-R3", "AA-R5"), f"side {self.side} has no unit that may "
                  f"react", self.side)

    def on_decline(self, state: AAState) -> None:
        state.log("no_reaction", ("AA-R3",), f"side {self.side} does not react", self.side)

    def reactor(self) -> int | None:
        """The own unit slot chosen to react, or ``None`` (declined or skipped)."""
        if self.chosen is None or self.chosen == self.decline_label:
            return None
        return cast(UnitReacts, self.reactions[self.chosen]).slot

    def context(self, state: AAState, viewer: int) -> ReactionContext:
        return ReactionContext(self.kind, self.side, self.decision, self.trigger, -1,
                               tuple(self.offered))
