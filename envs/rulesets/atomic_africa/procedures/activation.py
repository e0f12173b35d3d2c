"""One Activation Phase: activation, In-transit figure, Targeting (AA-G7, AA-G8) and the
Reaction sub-phase (AA-R1 … AA-R9).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from ..actions import Decision
from ..cards import carries_split_fire
from ..state import AAState, PhaseData, Unit, key
from .common import DeckDraw, UnitContext
from .declaration import Declaration
from .resolution import Resolution


def _legal_moves(state: AAState, u: Unit) -> list[int]:
    """AA-G8 / AA-R7: hold, or an In-transit figure 1-4 increments in one of six
    directions, on the table; a unit with too many suppression markers holds (AA-G15)."""
    if u.suppression >= state.game.suppressed_no_move or u.confused:
        return [state.game.ids.hold]
    return state.placements(u)


def _apply_move(state: AAState, u: Unit, action: int, rules: tuple[str, ...]) -> None:
    ids = state.game.ids
    mv = ids.move_of(action)
    ap = state.ap
    if mv is None:
        u.tx, u.ty = u.x, u.y
        ap.moves[key(u.side, u.slot)] = [0, 0]
        state.log("in_transit", rules, f"side {u.side} unit{u.slot} holds", u.side, unit=u.slot)
        return
    d, n = ids.dirs.index(mv[0]), mv[1]
    u.tx, u.ty = state.destination(u, d, n)
    ap.moves[key(u.side, u.slot)] = [d, n]
    state.log("in_transit", rules, f"side {u.side} unit{u.slot} places its In-transit figure "
              f"{mv[0]} {n} increment(s)", u.side, unit=u.slot, direction=mv[0], increments=n)


def _legal_targets(state: AAState, u: Unit, exclude: list[int]) -> list[int]:
    ids = state.game.ids
    out = [ids.target0 + e.slot for e in state.alive_units(1 - u.side)
           if e.slot not in exclude and state.sees(u, e)]
    return out + [ids.target_none]


def _why_target(state: AAState, u: Unit, action: int) -> Illegality:
    ids = state.game.ids
    k = action - ids.target0
    if 0 <= k < ids.max_units:
        e = state.units[1 - u.side][k]
        if e is None or not e.alive:
            return Illegality(("AA-G9",), f"there is no enemy unit{k}")
        if not state.sees(u, e):
            return Illegality(("AA-G9",), f"enemy unit{k} is out of line of sight")
        return Illegality(("AA-R1",), f"enemy unit{k} is already a target")
    return Illegality(("AA-G21",), "not a target choice")


class ActivationStep(str, enum.Enum):
    """The stages of an Activation Phase."""

    CHOOSE = "choose"
    MOVE = "move"
    FIRST_TARGET = "target1"
    SECOND_TARGET = "target2"
    REACT = "react"
    DECLARE = "declare"
    RESOLVE = "resolve"
    END = "end"


#: the decision each waiting stage of an Activation Phase asks
_ACTIVATION_DECISIONS: dict[ActivationStep, Decision] = {
    ActivationStep.CHOOSE: Decision.ACTIVATION, ActivationStep.MOVE: Decision.MANEUVER,
    ActivationStep.FIRST_TARGET: Decision.FIRE, ActivationStep.SECOND_TARGET: Decision.FIRE}


@register
@dataclass(slots=True)
class Activation(Frame):
    """One Activation Phase: choose the unit, place its In-transit figure, Targeting (none,
    one, or a second as Split Fire), then Reaction, Declaration and resolution."""

    kind = "aa.activation"
    auto_apply_forced = True
    side: int
    step: ActivationStep = ActivationStep.CHOOSE

    def run(self, state: AAState) -> Step:
        st = self.step
        if st in _ACTIVATION_DECISIONS:
            return Wait(self.side, _ACTIVATION_DECISIONS[st])
        if st is ActivationStep.REACT:
            self.step = ActivationStep.DECLARE
            return Push(ReactionSubPhase())
        if st is ActivationStep.DECLARE:
            self.step = ActivationStep.RESOLVE
            return Push(Declaration())
        if st is ActivationStep.RESOLVE:
            self.step = ActivationStep.END
            return Push(Resolution())
        # end: units have acted; their orders are discarded (AA-G6, AA-G20)
        ap = state.ap
        for s, k, _ in ap.involved:
            u = state.units[s][k]
            u.acted = True
            u.confused = False
            u.tx = u.ty = None
            state.discard_order(s, k)
        state.ap = None
        return Done()

    def _unit(self, state: AAState) -> Unit:
        return state.units[self.side][state.ap.unit]

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        if self.step is ActivationStep.CHOOSE:
            return [ids.activate0 + u.slot for u in state.units[self.side]
                    if state.eligible_to_activate(u)]
        u = self._unit(state)
        if self.step is ActivationStep.MOVE:
            return _legal_moves(state, u)
        return _legal_targets(state, u, state.ap.targets)

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        ids = state.game.ids
        if self.step is ActivationStep.CHOOSE:
            k = action - ids.activate0
            if 0 <= k < ids.max_units:
                return Illegality(("AA-G7",), f"unit{k} is not eligible to activate (it has "
                                  f"acted, has no order or is gone)")
            return Illegality(("AA-G7",), "choose the unit to activate")
        u = self._unit(state)
        if self.step is ActivationStep.MOVE:
            if u.suppression >= state.game.suppressed_no_move:
                return Illegality(("AA-G15",), "a unit with 3+ suppression markers may not move")
            return Illegality(("AA-G8",), "the In-transit figure must stay on the table")
        return _why_target(state, u, action)

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        if self.step is ActivationStep.CHOOSE:
            k = action - ids.activate0
            state.ap = PhaseData(self.side, k, involved=[[self.side, k, 0]])
            state.log("activate", ("AA-G7",), f"side {self.side} activates unit{k}", self.side,
                      unit=k)
            self.step = ActivationStep.MOVE
            return None
        u = self._unit(state)
        if self.step is ActivationStep.MOVE:
            _apply_move(state, u, action, ("AA-G8",))
            self.step = ActivationStep.FIRST_TARGET
            return None
        ap = state.ap
        if action == ids.target_none:
            if self.step is ActivationStep.FIRST_TARGET:
                state.log("targeting_skipped", ("AA-R3",), f"side {self.side} skips "
                          f"Targeting", self.side)
            self.step = ActivationStep.REACT
            return None
        t = action - ids.target0
        ap.targets.append(t)
        first = self.step is ActivationStep.FIRST_TARGET
        ap.fire.append([self.side, u.slot, 1 - self.side, t, 0 if first else 1])
        state.log("target", ("AA-R2",) if first else ("AA-R2", "AA-R9"),
                  f"side {self.side} unit{u.slot} targets enemy unit{t}"
                  + ("" if first else " (Split Fire)"), self.side, target=t)
        self.step = ActivationStep.SECOND_TARGET if first else ActivationStep.REACT
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        sub = state.ap.unit if state.ap is not None and viewer == self.side else -1
        return UnitContext(self.kind, self.side, self.run_decision(), sub)

    def run_decision(self) -> str:
        return _ACTIVATION_DECISIONS.get(self.step, Decision.FIRE)


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
            return _legal_moves(state, u)
        ap = state.ap
        return _legal_targets(state, u, [ap.unit] if u.side != ap.side else [])

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
        return _why_target(state, u, action)

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
            _apply_move(state, u, action, ("AA-R7",))
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
