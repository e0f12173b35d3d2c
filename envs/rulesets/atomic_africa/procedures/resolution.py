"""Resolution of movement and fire (AA-G8, AA-G14, AA-G15, AA-G17, AA-G21).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, register

from ..cards import ALLOWANCE, DIE_OFFSET, NO_FIRE, shifted
from ..state import AAState, Unit, key


def final_order(state: AAState, u: Unit) -> str:
    """The order kind that resolves: basic for number cards, Aces (AA-G2, AA-G3) and Confused
    units (AA-G18), else the announced special action."""
    if u.confused:
        return "basic"
    c = state.order_card(u.side, u.slot)
    if c is None:
        return "basic"
    return state.phase.special.get(key(u.side, u.slot), "basic")


def posture_of(state: AAState, u: Unit) -> str:
    """AA-G22: Standing, except Go to ground (Prone) and a Joker's named posture."""
    phase = state.phase
    k = key(u.side, u.slot)
    if k in phase.posture:
        return phase.posture[k]
    return "prone" if phase.special.get(k) == "go_to_ground" and not u.confused else "standing"


class ResolutionStep(str, enum.Enum):
    """The stages of the resolution."""

    MOVE = "move"
    ROLL = "roll"


@register
@dataclass(slots=True)
class Resolution(Frame):
    """Movement (AA-G8, AA-G15, AA-G22), then fire of every declared line at once (AA-G14,
    AA-G21): all attack dice are rolled, then markers and wounds are applied together."""

    kind = "aa.resolution"
    step: ResolutionStep = ResolutionStep.MOVE
    rolls: list[int] = field(default_factory=list)
    lines: list[list[int]] = field(default_factory=list)  # fire rows that fire, with die
    i: int = 0

    def run(self, state: AAState) -> Step:
        phase = state.phase
        if self.step is ResolutionStep.MOVE:
            for s, k, _ in phase.involved:
                self._move(state, state.units[s][k])
            for s, k, _ in phase.involved:
                u = state.units[s][k]
                if final_order(state, u) == "rally" and u.suppression:
                    u.suppression -= 1
                    state.log("rally", ("AA-G12",), f"side {s} unit{k} rallies: 1 suppression "
                              f"marker removed", s, unit=k)
            for row in phase.fire:
                die = self._fire_die(state, row)
                if die:
                    self.lines.append(row + [die])
            self.step = ResolutionStep.ROLL
        if self.step is ResolutionStep.ROLL:
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
        mv = state.phase.moves.get(key(u.side, u.slot), [0, 0])
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
                p = posture_of(state, t) if state.phase.is_involved(ts, tu) else "standing"
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
