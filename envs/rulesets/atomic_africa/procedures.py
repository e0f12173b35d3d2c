"""The procedures (frames) of Atomic Africa: turn, Orders Phase, Activation Phases with the
Reaction (AA-R1 … AA-R9) and Declaration (AA-D1 … AA-D8) sub-phases, resolution and Clean-Up.

Every frame is a registered ``@dataclass(slots=True)`` of :mod:`envs.core.procedure`; the data
they share during one Activation Phase lives in ``state.ap`` (:class:`.state.PhaseData`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from envs.core.frames import CommitContext, DrawCard, HiddenCommit, RollDice
from envs.core.procedure import DecisionContext, Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality
from envs.core.zones import Visibility

from .actions import Decision
from .cards import (ALLOWANCE, CARD_NAMES, DIE_OFFSET, EXPERIENCE, FACE_CARDS, JOKER, MENU,
                    NO_FIRE, ORDER_KINDS, POSTURES, SPECIALS, VEHICLE_SPECIALS, is_face,
                    shifted)
from .state import AAState, PhaseData, Unit, key


@dataclass(frozen=True, slots=True)
class UnitContext(DecisionContext):
    """A decision about one unit of the deciding side (``subject``: its slot)."""

    subject: int = -1


def _d6(what: str, rules: tuple[str, ...], count: int = 2) -> RollDice:
    return RollDice(count, what, rules, None, 6, DIE_OFFSET[6])


# ---------------------------------------------------------------------------------------------
# contest: a die-roll contest, rerolled on ties (AA-G7, AA-G10, AA-D3)
# ---------------------------------------------------------------------------------------------
@register
@dataclass(slots=True)
class Contest(Frame):
    """Both sides roll a d6 until the rolls differ; ``winner`` is the higher roller."""

    kind = "aa.contest"
    what: str
    rules: tuple[str, ...] = ()
    winner: int = -1
    ties: int = 0

    #: engine cap: after this many tied rolls side 0 wins (so forced dice terminate)
    MAX_TIES = 3

    def run(self, state: Any) -> Step:
        if self.winner >= 0:
            return Done()
        return Push(_d6(self.what, self.rules))

    def on_child_done(self, state: Any, child: Frame) -> None:
        a, b = child.values
        if a == b:
            self.ties += 1
            if self.ties < self.MAX_TIES:
                return
        self.winner = 0 if a >= b else 1
        state.log("contest", self.rules, f"{self.what}: side {self.winner} wins "
                  f"({a} v {b})", self.winner, rolls=[a, b])


# ---------------------------------------------------------------------------------------------
# the turn
# ---------------------------------------------------------------------------------------------
@register
@dataclass(slots=True)
class Turn(Frame):
    """One game turn: Orders Phase (both sides), the first-activation contest (AA-G7), the
    Activation Phases, the Clean-Up Phase; then the next turn or the end (AA-G23)."""

    kind = "aa.turn"
    step: str = "orders"

    def run(self, state: AAState) -> Step:
        if self.step == "orders":
            self.step = "first"
            state.log("turn", ("AA-G23",), f"turn {state.turn} begins", None, turn=state.turn)
            return Push(OrdersPhase(1), OrdersPhase(0))
        if self.step == "first":
            self.step = "activations"
            return Push(Contest("who activates first", ("AA-G7",)))
        if self.step == "activations":
            self.step = "cleanup"
            return Push(ActivationPhases(state.first))
        if self.step == "cleanup":
            self.step = "end"
            return Push(CleanUp())
        # end of turn
        if state.game_over() or state.turn >= state.game.turns:
            sc = state.scores()
            state.log("game_end", ("AA-G23",), f"the game ends after turn {state.turn}: "
                      f"scores {sc[0]}-{sc[1]}", None, scores=sc)
            return Done()
        state.turn += 1
        self.step = "orders"
        return None

    def on_child_done(self, state: AAState, child: Frame) -> None:
        if isinstance(child, Contest):
            state.first = child.winner


@register
@dataclass(slots=True)
class OrdersPhase(Frame):
    """Orders Phase of one side: draw the cards (AA-G4) from its own deck (chance over the
    cards left, AA-G6 reshuffle), then give each unit a face-down card or none; the cards
    kept form the hidden Reserve."""

    kind = "aa.orders"
    side: int
    step: str = "start"
    to_draw: int = 0
    cursor: int = 0

    def run(self, state: AAState) -> Step:
        s = self.side
        if self.step == "start":
            g = state.game
            n = sum(1 for u in state.alive_units(s) if not u.attached) * g.cards_per_unit
            if g.experience_draw_bonus:
                n += g.draw_bonus[s]
            self.to_draw = n
            self.step = "draw"
            state.log("orders_phase", ("AA-G4",), f"side {s} draws {n} cards", s, cards=n)
        if self.step == "draw":
            if self.to_draw > 0:
                state.reshuffle_if_empty(s)
                if state.zones.size(f"deck:{s}") > 0:
                    self.to_draw -= 1
                    return Push(DrawCard(f"deck:{s}", f"reserve:{s}", s, ("AA-G4",)))
                self.to_draw = 0
            self.step = "assign"
        # assign: the next alive unit without an order, while the hand has cards
        if state.zones.size(f"reserve:{s}") == 0:
            return Done()
        U = state.game.max_units_per_side
        while self.cursor < U:
            u = state.units[s][self.cursor]
            if u is not None and u.alive and state.order_card(s, u.slot) is None:
                return Wait(s, Decision.ORDERS)
            self.cursor += 1
        return Done()

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        cards = sorted(set(state.zones[f"reserve:{self.side}"].cards))
        return [ids.assign0 + c for c in cards] + [ids.assign_none]

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        return Illegality(("AA-G4",), "only a card of the side's own hand can be given")

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        s, k = self.side, self.cursor
        if action != ids.assign_none:
            state.zones.move(action - ids.assign0, f"reserve:{s}", f"order:{s}:{k}")
            state.log("order_assigned", ("AA-G4",), f"side {s} gives unit{k} a face-down "
                      f"order", s, unit=k)
        self.cursor += 1
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        return UnitContext(self.kind, self.side, Decision.ORDERS,
                           self.cursor if viewer == self.side else -1)


@register
@dataclass(slots=True)
class ActivationPhases(Frame):
    """AA-G7: the sides alternate Activation Phases until no unit is eligible; a side with no
    eligible unit passes and the other keeps activating."""

    kind = "aa.activations"
    next_side: int

    def run(self, state: AAState) -> Step:
        for s in (self.next_side, 1 - self.next_side):
            if any(state.eligible_to_activate(u) for u in state.units[s]):
                self.next_side = 1 - s
                return Push(Activation(s))
        return Done()


# ---------------------------------------------------------------------------------------------
# one Activation Phase
# ---------------------------------------------------------------------------------------------
def _legal_moves(state: AAState, u: Unit) -> list[int]:
    """AA-G8 / AA-R7: hold, or an In-transit figure 1-4 increments in one of six
    directions, on the table; a unit with too many suppression markers holds (AA-G15)."""
    ids = state.game.ids
    if u.suppression >= state.game.suppressed_no_move or u.confused:
        return [ids.hold]
    out = [ids.hold]
    for d in range(len(ids.dirs)):
        for n in range(1, 5):
            x, y = state.destination(u, d, n)
            if state.on_table(x, y):
                out.append(ids.move(ids.dirs[d], n))
    return sorted(out)


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


@register
@dataclass(slots=True)
class Activation(Frame):
    """One Activation Phase: choose the unit, place its In-transit figure, Targeting (none,
    one, or a second as Split Fire), then Reaction, Declaration and resolution."""

    kind = "aa.activation"
    auto_apply_forced = True
    side: int
    step: str = "choose"

    def run(self, state: AAState) -> Step:
        st = self.step
        if st in ("choose", "move", "target1", "target2"):
            return Wait(self.side, {"choose": Decision.ACTIVATION, "move": Decision.MANEUVER}
                        .get(st, Decision.FIRE))
        if st == "react":
            self.step = "declare"
            return Push(ReactionSubPhase())
        if st == "declare":
            self.step = "resolve"
            return Push(Declaration())
        if st == "resolve":
            self.step = "end"
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
        if self.step == "choose":
            return [ids.activate0 + u.slot for u in state.units[self.side]
                    if state.eligible_to_activate(u)]
        u = self._unit(state)
        if self.step == "move":
            return _legal_moves(state, u)
        return _legal_targets(state, u, state.ap.targets)

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        ids = state.game.ids
        if self.step == "choose":
            k = action - ids.activate0
            if 0 <= k < ids.max_units:
                return Illegality(("AA-G7",), f"unit{k} is not eligible to activate (it has "
                                  f"acted, has no order or is gone)")
            return Illegality(("AA-G7",), "choose the unit to activate")
        u = self._unit(state)
        if self.step == "move":
            if u.suppression >= state.game.suppressed_no_move:
                return Illegality(("AA-G15",), "a unit with 3+ suppression markers may not move")
            return Illegality(("AA-G8",), "the In-transit figure must stay on the table")
        return _why_target(state, u, action)

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        if self.step == "choose":
            k = action - ids.activate0
            state.ap = PhaseData(self.side, k, involved=[[self.side, k, 0]])
            state.log("activate", ("AA-G7",), f"side {self.side} activates unit{k}", self.side,
                      unit=k)
            self.step = "move"
            return None
        u = self._unit(state)
        if self.step == "move":
            _apply_move(state, u, action, ("AA-G8",))
            self.step = "target1"
            return None
        ap = state.ap
        if action == ids.target_none:
            if self.step == "target1":
                state.log("targeting_skipped", ("AA-R3",), f"side {self.side} skips "
                          f"Targeting", self.side)
            self.step = "react"
            return None
        t = action - ids.target0
        ap.targets.append(t)
        ap.fire.append([self.side, u.slot, 1 - self.side, t, 0 if self.step == "target1" else 1])
        state.log("target", ("AA-R2",) if self.step == "target1" else ("AA-R2", "AA-R9"),
                  f"side {self.side} unit{u.slot} targets enemy unit{t}"
                  + (" (Split Fire)" if self.step == "target2" else ""), self.side, target=t)
        self.step = "target2" if self.step == "target1" else "react"
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        sub = state.ap.unit if state.ap is not None and viewer == self.side else -1
        return UnitContext(self.kind, self.side, self.run_decision(), sub)

    def run_decision(self) -> str:
        return {"choose": Decision.ACTIVATION, "move": Decision.MANEUVER}.get(
            self.step, Decision.FIRE)


@register
@dataclass(slots=True)
class ReactionSubPhase(Frame):
    """AA-R1 … AA-R9. ``queue`` rows ``[side, unit, fired-on-by side, fired-on-by unit,
    compulsory, cascaded]``; ``cur`` the row being played, ``step`` its stage."""

    kind = "aa.reaction"
    auto_apply_forced = True
    queue: list[list[int]] = field(default_factory=list)
    step: str = "start"
    cur: int = 0

    # the reacting side of the phase
    def _rside(self, state: AAState) -> int:
        return 1 - state.ap.side

    def _row_unit(self, state: AAState) -> Unit:
        r = self.queue[self.cur]
        return state.units[r[0]][r[1]]

    def run(self, state: AAState) -> Step:
        ap = state.ap
        if self.step == "done":
            return Done()
        if self.step == "start":
            if ap.targets:
                for t in ap.targets:  # AA-R2: targeted units must react
                    self._enqueue(state, self._rside(state), t, ap.side, ap.unit, True, False)
                self.step = "next"
            else:
                self.step = "voluntary"
        if self.step == "voluntary":
            if len(self._voluntary(state)) == 0:
                state.log("no_reaction", ("AA-R3", "AA-R5"), f"side {self._rside(state)} has "
                          f"no unit that may react", self._rside(state))
                return Done()
            return Wait(self._rside(state), Decision.REACTION)
        if self.step == "next":
            if self.cur >= len(self.queue):
                return Done()
            self.step = "order"
        u = self._row_unit(state)
        row = self.queue[self.cur]
        if self.step == "order":
            if state.order_card(u.side, u.slot) is not None:
                self.step = "move"
            elif state.eligible_reserve(u.side, u):
                return Wait(u.side, Decision.RESERVE_ASSIGN)  # AA-R4
            else:  # AA-R6: compulsory reaction, no eligible Reserve card: Confused
                u.confused = True
                self.step = "move"
                state.log("confused", ("AA-R6", "AA-G18"), f"side {u.side} unit{u.slot} has no "
                          f"eligible Reserve card and reacts Confused with the top card of "
                          f"its deck", u.side, unit=u.slot)
                state.reshuffle_if_empty(u.side)
                if state.zones.size(f"deck:{u.side}"):
                    return Push(DrawCard(f"deck:{u.side}", f"order:{u.side}:{u.slot}", u.side,
                                         ("AA-R6",)))
        if self.step == "move":
            return Wait(u.side, Decision.MANEUVER)  # AA-R7 (auto when only hold)
        if self.step == "extra":
            if row[5] or u.confused:  # AA-G20 cascaded, AA-G18 confused: return fire only
                self.step = "next"
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
        if self.step == "voluntary":
            return [ids.react0 + u.slot for u in self._voluntary(state)] + [ids.react_none]
        u = self._row_unit(state)
        if self.step == "order":
            return [ids.play0 + c for c in state.eligible_reserve(u.side, u)]
        if self.step == "move":
            return _legal_moves(state, u)
        ap = state.ap
        return _legal_targets(state, u, [ap.unit] if u.side != ap.side else [])

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        ids = state.game.ids
        if self.step == "voluntary":
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
        if self.step == "order":
            return Illegality(("AA-R4", "AA-G5"), "the reactor takes an eligible card of its "
                              "own Reserve")
        u = self._row_unit(state)
        if self.step == "move":
            return Illegality(("AA-R7", "AA-G8"), "the In-transit figure must stay on the "
                              "table")
        return _why_target(state, u, action)

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        ap = state.ap
        if self.step == "voluntary":
            if action == ids.react_none:
                state.log("no_reaction", ("AA-R3",), f"side {self._rside(state)} does not "
                          f"react", self._rside(state))
                self.step = "done"
                return None
            self._enqueue(state, self._rside(state), action - ids.react0, ap.side, ap.unit,
                          False, False)
            self.step = "next"
            return None
        u = self._row_unit(state)
        if self.step == "order":
            c = action - ids.play0
            state.zones.move(c, f"reserve:{u.side}", f"order:{u.side}:{u.slot}")
            state.log("reserve_assign", ("AA-R4",), f"side {u.side} gives reacting unit"
                      f"{u.slot} an order from its Reserve", u.side, unit=u.slot)
            self.step = "move"
            return None
        if self.step == "move":
            _apply_move(state, u, action, ("AA-R7",))
            self.step = "extra"
            return None
        # extra target (Split Fire, AA-R8), whose unit reacts in turn (AA-R9)
        if action != ids.target_none:
            t = action - ids.target0
            ap.fire.append([u.side, u.slot, 1 - u.side, t, 1])
            state.log("target", ("AA-R8", "AA-R9"), f"side {u.side} unit{u.slot} also targets "
                      f"enemy unit{t} (Split Fire)", u.side, target=t)
            self._enqueue(state, 1 - u.side, t, u.side, u.slot, True, True)
        self.step = "next"
        self.cur += 1
        return None

    def run_decision(self) -> str:
        return {"voluntary": Decision.REACTION, "order": Decision.RESERVE_ASSIGN,
                "move": Decision.MANEUVER}.get(self.step, Decision.FIRE)

    def context(self, state: AAState, viewer: int) -> UnitContext:
        if self.step == "voluntary":
            return UnitContext(self.kind, self._rside(state), Decision.REACTION, -1)
        u = self._row_unit(state)
        return UnitContext(self.kind, u.side, self.run_decision(),
                           u.slot if viewer == u.side else -1)

    def run_after_done(self) -> None:  # pragma: no cover - placeholder for clarity
        return None


# ---------------------------------------------------------------------------------------------
# Declaration sub-phase
# ---------------------------------------------------------------------------------------------
def _denomination_rank(card: int) -> int:
    """AA-D3: Jacks, then Queens, then Kings; Jokers after Kings (AA-G13)."""
    return {FACE_CARDS[0]: 0, FACE_CARDS[1]: 1, FACE_CARDS[2]: 2, JOKER: 3}[card]


def _menu(state: AAState, u: Unit, card: int) -> list[str]:
    opts = list(ORDER_KINDS) if card == JOKER else list(MENU[card])
    if u.vehicle:
        opts = [o for o in opts if o == "basic" or o in VEHICLE_SPECIALS]
    return opts


@register
@dataclass(slots=True)
class ChangeCommit(HiddenCommit):
    """AA-D4/AA-D5 (AA-G11): one round of the change loop as a hidden commitment: each side
    asked plays a Reserve card face down (``reserve:play:<card>``) or stands; a frozen side
    may only stand (AA-D8)."""

    kind = "aa.change_commit"

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        i = self._next()
        side = self.sides[i]
        if state.ap.frozen[side]:
            return [ids.stand]
        u = state.units[side][_principal(state, side)]
        return [ids.play0 + c for c in state.eligible_reserve(side, u)] + [ids.stand]

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        side = self.sides[self._next()]
        if state.ap.frozen[side]:
            return Illegality(("AA-D8",), "a revealed Joker has frozen this side's orders for "
                              "the rest of the Activation Phase")
        return Illegality(("AA-D4", "AA-G5"), "only an eligible card of the side's own "
                          "Reserve may be played")


def _principal(state: AAState, side: int) -> int:
    """The unit whose order a side may change in the loop: the activating unit, or the first
    (not Confused) reacting unit of the reacting side; -1 when none."""
    ap = state.ap
    if side == ap.side:
        return ap.unit
    for s, k, role in ap.involved:
        if s == side and role == 1 and not state.units[s][k].confused:
            return k
    return -1


@register
@dataclass(slots=True)
class Declaration(Frame):
    """AA-D1 … AA-D8: reveal, announce special actions in order, then the change loop."""

    kind = "aa.declaration"
    auto_apply_forced = True
    step: str = "reveal"
    queue: list[list[int]] = field(default_factory=list)  # [side, unit, card]
    joker_posture: bool = False
    rounds: int = 0

    def run(self, state: AAState) -> Step:
        ap = state.ap
        if self.step == "reveal":
            shown = []
            for s, k, _ in ap.involved:
                c = state.reveal(s, k)
                if c is not None:
                    shown.append(f"side {s} unit{k} {CARD_NAMES[c]}")
                    self._revealed(state, s, k, c)
            state.log("reveal", ("AA-D1",), "orders revealed: " + (", ".join(shown) or "none"),
                      None, cards=[[s, k, state.order_card(s, k)] for s, k, _ in ap.involved])
            self.step = "order"
        if self.step == "order":
            return self._order(state)
        if self.step == "announce":
            if self.queue:
                return Wait(self.queue[0][0], Decision.DECLARATION)
            self.step = "change"
        if self.step == "change":
            sides = tuple(s for s in (ap.side, 1 - ap.side)
                          if _principal(state, s) >= 0
                          and state.order_card(s, _principal(state, s)) is not None
                          and (state.eligible_reserve(s, state.units[s][_principal(state, s)])
                               or (ap.frozen[s] and state.zones.size(f"reserve:{s}"))))
            if not sides or all(ap.frozen[s] for s in sides) and self.rounds > 0:
                state.log("declaration_end", ("AA-D7",), "the orders stand", None)
                return Done()
            self.rounds += 1
            return Push(ChangeCommit(sides, (), Decision.RESERVE_PLAY, ("AA-D4", "AA-D5")))
        return Done()

    def _revealed(self, state: AAState, s: int, k: int, c: int) -> None:
        """A freshly revealed card: a face card or Joker announces (AA-D2), a Joker freezes
        the opponent (AA-D8, AA-G13). Confused units play any card as basic (AA-G18)."""
        ap = state.ap
        u = state.units[s][k]
        ap.special.pop(key(s, k), None)
        ap.posture.pop(key(s, k), None)
        if u.confused:
            return
        if c == JOKER:
            ap.frozen[1 - s] = True
            state.log("joker", ("AA-D8",), f"side {s} reveals a Joker: side {1 - s}'s orders "
                      f"are frozen for this Activation Phase", s, unit=k)
        if c == JOKER or is_face(c):
            self.queue.append([s, k, c])

    def _order(self, state: AAState) -> Step:
        """AA-D3, AA-G10: sort the announcements; a cross-side tie of denomination and
        Experience is settled by a die-roll contest (the higher roller declares last)."""
        g = state.game
        q = self.queue
        exp = [EXPERIENCE.index(g.experience[s]) for s in (0, 1)]
        ties = any(a[0] != b[0] and _denomination_rank(a[2]) == _denomination_rank(b[2])
                   and exp[a[0]] == exp[b[0]] for i, a in enumerate(q) for b in q[i + 1:])
        if ties:
            self.step = "contest"
            return Push(Contest("declaration order", ("AA-D3", "AA-G10")))
        self._sort(state, None)
        return None

    def _sort(self, state: AAState, winner: int | None) -> None:
        g = state.game
        exp = [EXPERIENCE.index(g.experience[s]) for s in (0, 1)]
        self.queue.sort(key=lambda r: (_denomination_rank(r[2]), exp[r[0]],
                                       0 if winner is None else int(r[0] == winner), r[0],
                                       r[1]))
        if len(self.queue) > 1:
            state.log("declaration_order", ("AA-D3",), "declaration order: " + ", ".join(
                f"side {s} unit{k} {CARD_NAMES[c]}" for s, k, c in self.queue), None)
        self.step = "announce"

    def on_child_done(self, state: AAState, child: Frame) -> None:
        if isinstance(child, Contest):
            self._sort(state, child.winner)
        elif isinstance(child, ChangeCommit):
            self._after_commit(state, child)

    def _after_commit(self, state: AAState, child: ChangeCommit) -> None:
        ids = state.game.ids
        ap = state.ap
        played = False
        for s, a in zip(child.sides, child.choices):
            if a == ids.stand:
                continue
            played = True
            k = _principal(state, s)
            c = a - ids.play0
            state.discard_order(s, k)  # AA-D6: the new card totally replaces the old
            state.zones.move(c, f"reserve:{s}", f"order:{s}:{k}")
            state.reveal(s, k)
            state.log("order_replaced", ("AA-D5", "AA-D6"), f"side {s} replaces unit{k}'s "
                      f"order with {CARD_NAMES[c]} from its Reserve", s, unit=k, card=c)
        for s, a in zip(child.sides, child.choices):  # reveal effects after both flips
            if a != ids.stand:
                k = _principal(state, s)
                self._revealed(state, s, k, a - ids.play0)
        if played:
            self.step = "order"  # AA-D7: new face cards announce, then another round
        else:
            state.log("declaration_end", ("AA-D7",), "both sides stand", None)
            self.step = "done"

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        s, k, c = self.queue[0]
        if self.joker_posture:
            return [ids.posture0 + i for i in range(len(POSTURES))]
        u = state.units[s][k]
        return sorted(ids.special0 + ORDER_KINDS.index(o) for o in _menu(state, u, c))

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        s, k, c = self.queue[0]
        if self.joker_posture:
            return Illegality(("AA-D8", "AA-G22"), "the Joker's owner names a posture")
        if c != JOKER and state.game.actions.labels[action] == "special:basic":
            return Illegality(("AA-D2",), "a revealed face card must announce a special action")
        return Illegality(("AA-D2", "AA-G12"), f"not a special action of the "
                          f"{CARD_NAMES[c]} (or not allowed to a vehicle)")

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        ap = state.ap
        s, k, c = self.queue[0]
        if self.joker_posture:
            p = POSTURES[action - ids.posture0]
            ap.posture[key(s, k)] = p
            state.log("posture", ("AA-D8", "AA-G22"), f"side {s} unit{k} takes the {p} "
                      f"posture", s, unit=k, posture=p)
            self.joker_posture = False
            self.queue.pop(0)
            return None
        o = ORDER_KINDS[action - ids.special0]
        ap.special[key(s, k)] = o
        state.log("special", ("AA-D8",) if c == JOKER else ("AA-D2",),
                  f"side {s} unit{k} announces {o}" + (" (Joker)" if c == JOKER else ""), s,
                  unit=k, special=o)
        if c == JOKER:
            self.joker_posture = True
        else:
            self.queue.pop(0)
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        s, k, _ = self.queue[0]
        return UnitContext(self.kind, s, Decision.DECLARATION, k)


# ---------------------------------------------------------------------------------------------
# resolution of movement and fire
# ---------------------------------------------------------------------------------------------
def final_order(state: AAState, u: Unit) -> str:
    """The order kind that resolves: basic for number cards, Aces (AA-G2, AA-G3) and Confused
    units (AA-G18), else the announced special action."""
    if u.confused:
        return "basic"
    c = state.order_card(u.side, u.slot)
    if c is None:
        return "basic"
    return state.ap.special.get(key(u.side, u.slot), "basic")


def posture_of(state: AAState, u: Unit) -> str:
    """AA-G22: Standing, except Go to ground (Prone) and a Joker's named posture."""
    ap = state.ap
    k = key(u.side, u.slot)
    if k in ap.posture:
        return ap.posture[k]
    return "prone" if ap.special.get(k) == "go_to_ground" and not u.confused else "standing"


@register
@dataclass(slots=True)
class Resolution(Frame):
    """Movement (AA-G8, AA-G15, AA-G22), then fire of every declared line at once (AA-G14,
    AA-G21): all attack dice are rolled, then markers and wounds are applied together."""

    kind = "aa.resolution"
    step: str = "move"
    rolls: list[int] = field(default_factory=list)
    lines: list[list[int]] = field(default_factory=list)  # fire rows that fire, with die
    i: int = 0

    def run(self, state: AAState) -> Step:
        ap = state.ap
        if self.step == "move":
            for s, k, _ in ap.involved:
                self._move(state, state.units[s][k])
            for s, k, _ in ap.involved:
                u = state.units[s][k]
                if final_order(state, u) == "rally" and u.suppression:
                    u.suppression -= 1
                    state.log("rally", ("AA-G12",), f"side {s} unit{k} rallies: 1 suppression "
                              f"marker removed", s, unit=k)
            for row in ap.fire:
                die = self._fire_die(state, row)
                if die:
                    self.lines.append(row + [die])
            self.step = "roll"
        if self.step == "roll":
            if self.i < len(self.lines):
                row = self.lines[self.i]
                self.i += 1
                return Push(RollDice(1, f"side {row[0]} unit{row[1]} attack", ("AA-G14",),
                                     row[0], row[5], DIE_OFFSET[row[5]]))
            self._apply(state)
            return Done()
        return Done()

    def on_child_done(self, state: AAState, child: Frame) -> None:
        self.rolls.append(child.values[0])

    def _move(self, state: AAState, u: Unit) -> None:
        g = state.game
        mv = state.ap.moves.get(key(u.side, u.slot), [0, 0])
        kind = final_order(state, u)
        allow = ALLOWANCE[kind]
        if posture_of(state, u) == "prone" and kind != "go_to_ground":
            allow //= 2
        if u.confused or u.suppression >= g.suppressed_no_move:
            allow = 0
        n = min(mv[1], allow)
        if n > 0:
            u.x, u.y = state.destination(u, mv[0], n)
            state.log("move", ("AA-G8",), f"side {u.side} unit{u.slot} moves {n} "
                      f"increment(s) ({kind})", u.side, unit=u.slot, increments=n,
                      x=round(u.x, 3), y=round(u.y, 3))
        elif mv[1] > 0:
            state.log("move", ("AA-G8", "AA-G15", "AA-G18"), f"side {u.side} unit{u.slot} "
                      f"does not move", u.side, unit=u.slot, increments=0)

    def _fire_die(self, state: AAState, row: list[int]) -> int:
        """The firer's Attack die for ``row``, or 0 when the line does not fire (AA-G21: the
        final order does not fire, a Split Fire target without Split Fire, no LOS)."""
        fs, fu, ts, tu, extra = row
        u, t = state.units[fs][fu], state.units[ts][tu]
        kind = final_order(state, u)
        why = None
        if not u.alive or not t.alive:
            why = "a unit is gone"
        elif kind in NO_FIRE:
            why = f"its order ({kind}) does not fire"
        elif extra and kind != "split_fire":
            why = "the extra target needs Split Fire"
        elif not state.los((u.x, u.y), (t.x, t.y)):
            why = "no line of sight after movement"
        if why is not None:
            state.log("no_fire", ("AA-G21",), f"side {fs} unit{fu} does not fire at unit{tu}: "
                      f"{why}", fs, unit=fu, target=tu)
            return 0
        steps = u.suppression + (u.wounds if u.vehicle else 0)
        steps += (1 if u.confused else 0) - (1 if kind == "aimed_fire" else 0)
        return shifted(u.equipment, steps) or 4

    def _apply(self, state: AAState) -> None:
        g = state.game
        for row, roll in zip(self.lines, self.rolls):
            fs, fu, ts, tu, extra, die = row
            u, t = state.units[fs][fu], state.units[ts][tu]
            attack = roll + u.figures // g.figures_per_attack_point
            d = math.hypot(u.x - t.x, u.y - t.y)
            rng = state.range_threshold(d)
            if t.vehicle:
                dmg = rng + t.defense
            else:
                p = posture_of(state, t) if state.ap.is_involved(ts, tu) else "standing"
                dmg = rng + state.cover(t.x, t.y) + {"standing": 0, "crouched": g.crouched_bonus,
                                                     "prone": g.prone_bonus}[p]
            markers = wounds = 0
            if attack > dmg:
                wounds = max(1, (attack - dmg) // 2)
            if t.vehicle:
                if attack > dmg and not t.vehicle_marked:
                    markers = 1
                    t.vehicle_marked = True
            elif attack > rng:
                markers = 1
            t.suppression += markers
            t.wounds += wounds
            state.log("fire", ("AA-G14",), f"side {fs} unit{fu} fires at unit{tu}: attack "
                      f"{attack} (d{die}={roll}) vs range {rng} / damage {dmg} at {d:.1f} cm: "
                      f"{markers} marker(s), {wounds} wound(s)", fs, unit=fu, target=tu,
                      attack=attack, range_threshold=rng, damage_threshold=dmg,
                      markers=markers, wounds=wounds)


# ---------------------------------------------------------------------------------------------
# Clean-Up
# ---------------------------------------------------------------------------------------------
def needs_split(u: Unit) -> bool:
    """C1: infantry whose wounds would shift the Morale die below d4; a vehicle whose
    Equipment die would go below d4 (AA-G17)."""
    if u.vehicle:
        return shifted(u.equipment, u.wounds) is None
    return shifted(u.morale, u.wounds) is None


def split_unit(state: AAState, u: Unit, rules: tuple[str, ...]) -> Unit | None:
    """C2: split ``u`` into two groups as equal as possible, sharing markers and wounds (the
    odd counter to the larger group by default); ``None`` when no unit slot is free."""
    g = state.game
    free = next((k for k in range(g.max_units_per_side) if state.units[u.side][k] is None
                 or (not state.units[u.side][k].alive and
                     state.zones.size(f"order:{u.side}:{k}") == 0)), None)
    if free is None:
        return None
    big, small = (u.figures + 1) // 2, u.figures // 2
    def share(n: int) -> tuple[int, int]:
        hi, lo = (n + 1) // 2, n // 2
        return (hi, lo) if g.split_extra_to == "larger" else (lo, hi)
    wb, ws = share(u.wounds)
    sb, ss = share(u.suppression)
    x2 = min(max(u.x + 2.0, 0.0), g.width)
    new = Unit(u.side, free, f"{u.name}/b", u.utype, u.attached, small, u.morale, u.equipment,
               u.defense, x2, u.y, ws, ss, True, u.acted)
    u.figures, u.wounds, u.suppression = big, wb, sb
    state.units[u.side][free] = new
    state.log("split", rules, f"side {u.side} unit{u.slot} splits into {big} and {small} "
              f"figures (unit{u.slot}: {sb} markers, {wb} wounds; unit{free}: {ss} markers, "
              f"{ws} wounds)", u.side, unit=u.slot, new=free, figures=[big, small],
              markers=[sb, ss], wounds=[wb, ws])
    return new


def remove_unit(state: AAState, u: Unit, rules: tuple[str, ...], why: str) -> None:
    u.alive = False
    state.destroyed[u.side] += 1
    state.discard_order(u.side, u.slot)
    state.log("destroyed", rules, f"side {u.side} unit{u.slot} ({u.name}) is removed: {why}",
              u.side, unit=u.slot)


@register
@dataclass(slots=True)
class CleanUp(Frame):
    """Clean-Up Phase: forced splits and removals (C1-C3, AA-G17), voluntary splits (C4),
    the Morale Sub-phase (C6, AA-G16), discards (AA-G6)."""

    kind = "aa.cleanup"
    step: str = "forced"
    side: int = 0
    queue: list[list[int]] = field(default_factory=list)

    def run(self, state: AAState) -> Step:
        g = state.game
        if self.step == "forced":
            self.forced(state)
            self.step = "voluntary"
        if self.step == "voluntary":
            while self.side < 2:
                if g.voluntary_splits and self._splittable(state, self.side):
                    return Wait(self.side, Decision.CLEANUP)
                self.side += 1
            self.step = "morale"
            self.queue = [[u.side, u.slot] for s in (0, 1) for u in state.alive_units(s)
                          if u.suppression > 0]
        if self.step == "morale":
            if self.queue:
                s, k = self.queue[0]
                u = state.units[s][k]
                die = u.morale if u.vehicle else (shifted(u.morale, u.wounds) or 4)
                return Push(RollDice(1, f"side {s} unit{k} morale", ("C6", "AA-G16"), s, die,
                                     DIE_OFFSET[die]))
            # AA-G6: unused orders and the Reserve are discarded; a new turn begins
            for s in (0, 1):
                for k in range(g.max_units_per_side):
                    state.discard_order(s, k)
                    u = state.units[s][k]
                    if u is not None:
                        u.acted = False
                        u.vehicle_marked = False
                state.zones.move_all(f"reserve:{s}", f"discard:{s}")
            state.log("cleanup_end", ("AA-G6",), "orders and Reserves are discarded", None)
            return Done()
        return Done()

    def forced(self, state: AAState) -> None:
        """C1-C3, AA-G17: until no unit is below d4."""
        g = state.game
        changed = True
        while changed:
            changed = False
            for s in (0, 1):
                for u in list(state.alive_units(s)):
                    if not needs_split(u):
                        continue
                    changed = True
                    if u.vehicle:
                        remove_unit(state, u, ("AA-G17",), "Equipment shifted below d4")
                    elif u.figures < 2 * g.min_unit_figures:
                        remove_unit(state, u, ("C1", "C3"), f"Morale below d4 and fewer than "
                                    f"{2 * g.min_unit_figures} figures")
                    elif split_unit(state, u, ("C1", "C2")) is None:
                        remove_unit(state, u, ("C1",), "Morale below d4 and no free unit slot")

    def _splittable(self, state: AAState, side: int) -> list[Unit]:
        g = state.game
        if all(state.units[side][k] is not None and (state.units[side][k].alive or
               state.zones.size(f"order:{side}:{k}")) for k in range(g.max_units_per_side)):
            return []
        return [u for u in state.alive_units(side) if not u.vehicle
                and u.figures >= 2 * g.min_unit_figures]

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        return [ids.split0 + u.slot for u in self._splittable(state, self.side)] + [
            ids.split_done]

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        return Illegality(("C3", "C4"), "only a unit of six or more figures may split, into a "
                          "free unit slot")

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        if action == ids.split_done:
            self.side += 1
            return None
        split_unit(state, state.units[self.side][action - ids.split0], ("C4", "C2"))
        return None

    def on_child_done(self, state: AAState, child: Frame) -> None:
        g = state.game
        s, k = self.queue.pop(0)
        u = state.units[s][k]
        v = child.values[0]
        n = 2 if v >= g.rally_two else 1 if v >= g.rally_one else 0
        n = min(n, u.suppression)
        u.suppression -= n
        state.log("morale", ("C6", "AA-G16"), f"side {s} unit{k} Morale roll {v}: {n} "
                  f"marker(s) removed", s, unit=k, roll=v, removed=n)

    def context(self, state: AAState, viewer: int) -> DecisionContext:
        return DecisionContext(self.kind, self.side, Decision.CLEANUP)


_ = (CommitContext, Visibility, SPECIALS)
