"""The Reaction sub-phase (AA-R1 … AA-R9): the compulsory reactors, the voluntary choice (a
core :class:`~envs.core.reactions.ReactionWindow`, :mod:`..reactions`), and per reactor its
order (AA-R4, AA-R6), its In-transit figure (AA-R7) and an extra target (AA-R8, AA-R9).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from ..actions import Decision
from ..cards import carries_split_fire
from ..state import AAState, Unit
from .common import (DeckDraw, UnitContext, legal_placements, legal_targets, place_in_transit,
                     why_not_target)


class ReactionStep(str, enum.Enum):
    """The stages of the Reaction sub-phase (per reactor: order, move, extra)."""

    START = "start"
    VOLUNTARY = "voluntary"
    NEXT = "next"
    ORDER = "order"
    MOVE = "move"
    EXTRA = "extra"
    DONE = "done"


@register
@dataclass(slots=True)
class ReactionSubPhase(Frame):
    """AA-R1 … AA-R9. ``queue`` rows ``[side, unit, fired-on-by side, fired-on-by unit,
    compulsory, cascaded]``; ``cur`` the row being played, ``step`` its stage."""

    kind = "aa.reaction"
    auto_apply_forced = True
    queue: list[list[int]] = field(default_factory=list)
    step: ReactionStep = ReactionStep.START
    cur: int = 0

    # the reacting side of the phase
    def _rside(self, state: AAState) -> int:
        return 1 - state.ap.side

    def _row_unit(self, state: AAState) -> Unit:
        r = self.queue[self.cur]
        return state.units[r[0]][r[1]]

    def run(self, state: AAState) -> Step:
        ap = state.ap
        if self.step is ReactionStep.DONE:
            return Done()
        if self.step is ReactionStep.START:
            if ap.targets:
                for t in ap.targets:  # AA-R2: targeted units must react
                    self._enqueue(state, self._rside(state), t, ap.side, ap.unit, True, False)
                self.step = ReactionStep.NEXT
            else:
                self.step = ReactionStep.VOLUNTARY
        if self.step is ReactionStep.VOLUNTARY:
            if len(self._voluntary(state)) == 0:
                state.log("no_reaction", ("AA-R3", "AA-R5"), f"side {self._rside(state)} has "
                          f"no unit that may react", self._rside(state))
                return Done()
            return Wait(self._rside(state), Decision.REACTION)
        if self.step is ReactionStep.NEXT:
            if self.cur >= len(self.queue):
                return Done()
            self.step = ReactionStep.ORDER
        u = self._row_unit(state)
        row = self.queue[self.cur]
        if self.step is ReactionStep.ORDER:
            if state.order_card(u.side, u.slot) is not None:
                self.step = ReactionStep.MOVE
            elif state.eligible_reserve(u.side, u):
                return Wait(u.side, Decision.RESERVE_ASSIGN)  # AA-R4
            else:  # AA-R6: compulsory reaction, no eligible Reserve card: Confused
                u.confused = True
                self.step = ReactionStep.MOVE
                state.log("confused", ("AA-R6", "AA-G18"), f"side {u.side} unit{u.slot} has no "
                          f"eligible Reserve card and reacts Confused with the top card of "
                          f"its deck", u.side, unit=u.slot)
                state.reshuffle_if_empty(u.side)
                if state.zones.size(f"deck:{u.side}"):
                    return Push(DeckDraw(f"deck:{u.side}", f"order:{u.side}:{u.slot}", u.side,
                                         ("AA-R6",)))
        if self.step is ReactionStep.MOVE:
            return Wait(u.side, Decision.MANEUVER)  # AA-R7 (auto when only hold)
        if self.step is ReactionStep.EXTRA:
            # AA-G20 cascaded, AA-G18 confused: return fire only; AA-R8: an extra target only
            # with an order card that carries Split Fire (its owner knows the card)
            if (row[5] or u.confused
                    or not carries_split_fire(state.order_card(u.side, u.slot), u.vehicle)):
                self.step = ReactionStep.NEXT
                self.cur += 1
                return None
            return Wait(u.side, Decision.FIRE)
        return None

    def _enqueue(self, state: AAState, side: int, unit: int, by_side: int, by_unit: int,
                 compulsory: bool, cascaded: bool) -> None:
        ap = state.ap
        u = state.units[side][unit]
        # AA-R8: the reactor always returns fire at the unit that fired on it
        if u.acted or ap.is_involved(side, unit):
            # AA-G20: each unit acts once per turn; the cascade stops here
            state.log("no_reaction", ("AA-G20",), f"side {side} unit{unit} has already acted "
                      f"this turn and does not react", side, unit=unit)
            return
        self.queue.append([side, unit, by_side, by_unit, int(compulsory), int(cascaded)])
        ap.involved.append([side, unit, 2 if cascaded else 1])
        ap.fire.append([side, unit, by_side, by_unit, 0])
        state.log("reacts", ("AA-R2",) if compulsory else ("AA-R3",),
                  f"side {side} unit{unit} reacts" + (" (compulsory)" if compulsory else ""),
                  side, unit=unit, compulsory=compulsory, cascaded=cascaded)

    def _voluntary(self, state: AAState) -> list[Unit]:
        """AA-R3 / AA-R5 / AA-G20: units that may react voluntarily."""
        ap = state.ap
        a = state.units[ap.side][ap.unit]
        out = []
        for u in state.alive_units(self._rside(state)):
            if u.acted or not state.sees(u, a):
                continue
            if state.order_card(u.side, u.slot) is None and not state.eligible_reserve(u.side, u):
                continue
            out.append(u)
        return out

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        if self.step is ReactionStep.VOLUNTARY:
            return [ids.react0 + u.slot for u in self._voluntary(state)] + [ids.react_none]
        u = self._row_unit(state)
        if self.step is ReactionStep.ORDER:
            return [ids.play0 + c for c in state.eligible_reserve(u.side, u)]
        if self.step is ReactionStep.MOVE:
            return legal_placements(state, u)
        ap = state.ap
        return legal_targets(state, u, [ap.unit] if u.side != ap.side else [])

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        ids = state.game.ids
        if self.step is ReactionStep.VOLUNTARY:
            k = action - ids.react0
            if 0 <= k < ids.max_units:
                u = state.units[self._rside(state)][k]
                if u is None or not u.alive:
                    return Illegality(("AA-R3",), f"there is no unit{k}")
                if u.acted:
                    return Illegality(("AA-G20",), f"unit{k} has already acted this turn")
                a = state.units[state.ap.side][state.ap.unit]
                if not state.sees(u, a):
                    return Illegality(("AA-R3",), f"unit{k} has no line of sight to the "
                                      f"activating unit's Start Group or In-transit figure")
                return Illegality(("AA-R5",), f"unit{k} has no order and the Reserve holds "
                                  f"no eligible card")
            return Illegality(("AA-R1",), "choose one unit to react, or none")
        if self.step is ReactionStep.ORDER:
            return Illegality(("AA-R4", "AA-G5"), "the reactor takes an eligible card of its "
                              "own Reserve")
        u = self._row_unit(state)
        if self.step is ReactionStep.MOVE:
            return Illegality(("AA-R7", "AA-G8"), "the In-transit figure must stay on the "
                              "table")
        return why_not_target(state, u, action)

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        ap = state.ap
        if self.step is ReactionStep.VOLUNTARY:
            if action == ids.react_none:
                state.log("no_reaction", ("AA-R3",), f"side {self._rside(state)} does not "
                          f"react", self._rside(state))
                self.step = ReactionStep.DONE
                return None
            self._enqueue(state, self._rside(state), action - ids.react0, ap.side, ap.unit,
                          False, False)
            self.step = ReactionStep.NEXT
            return None
        u = self._row_unit(state)
        if self.step is ReactionStep.ORDER:
            c = action - ids.play0
            state.zones.move(c, f"reserve:{u.side}", f"order:{u.side}:{u.slot}")
            state.log("reserve_assign", ("AA-R4",), f"side {u.side} gives reacting unit"
                      f"{u.slot} an order from its Reserve", u.side, unit=u.slot)
            self.step = ReactionStep.MOVE
            return None
        if self.step is ReactionStep.MOVE:
            place_in_transit(state, u, action, ("AA-R7",))
            self.step = ReactionStep.EXTRA
            return None
        # extra target (Split Fire, AA-R8), whose unit reacts in turn (AA-R9)
        if action != ids.target_none:
            t = action - ids.target0
            ap.fire.append([u.side, u.slot, 1 - u.side, t, 1])
            state.log("target", ("AA-R8", "AA-R9"), f"side {u.side} unit{u.slot} also targets "
                      f"enemy unit{t} (Split Fire)", u.side, target=t)
            self._enqueue(state, 1 - u.side, t, u.side, u.slot, True, True)
        self.step = ReactionStep.NEXT
        self.cur += 1
        return None

    @staticmethod
    def asked_rules(decision: str) -> tuple[str, ...]:
        """The rules a reactor's decision applies (AA-R4, AA-R7, AA-R8)."""
        return {Decision.REACTION: ("AA-R1", "AA-R3"), Decision.RESERVE_ASSIGN: ("AA-R4",),
                Decision.MANEUVER: ("AA-R7", "AA-G8"), Decision.FIRE: ("AA-R8", "AA-R9")}[decision]

    def run_decision(self) -> str:
        return {ReactionStep.VOLUNTARY: Decision.REACTION,
                ReactionStep.ORDER: Decision.RESERVE_ASSIGN,
                ReactionStep.MOVE: Decision.MANEUVER}.get(self.step, Decision.FIRE)

    def context(self, state: AAState, viewer: int) -> UnitContext:
        if self.step is ReactionStep.VOLUNTARY:
            return UnitContext(self.kind, self._rside(state), Decision.REACTION, -1)
        u = self._row_unit(state)
        return UnitContext(self.kind, u.side, self.run_decision(),
                           u.slot if viewer == u.side else -1)

    def run_after_done(self) -> None:  # pragma: no cover - placeholder for clarity
        return None
