"""Phase 4, Melee (ACW-PD-26): one Opposed Melee Roll per enemy unit in contact."""

from __future__ import annotations

import math
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, filled, register
from envs.core.geometry import Footprint, first_crossing, overlaps

from .. import combat, effects, queries, tables
from ..units import Unit
from .passage_of_lines import PassageOfLinesTests
from .winner_advance import WinnerAdvance

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["MeleePhase", "MeleeStep"]


class MeleeStep(str, enum.Enum):
    BUILD = "build"  #: list the defenders in contact and their attackers
    NEXT = "next"  #: roll the next melee still in contact
    RESOLVE = "resolve"  #: the Opposed Melee Roll is back


@register
@dataclass(slots=True)
class MeleePhase(Frame["ACWState"]):
    """Phase 4: one Opposed Melee Roll per enemy unit in contact, in slot order (ACW-PD-26).
    ``melees``: ``[defender slot, [attacker slots]]`` rows; ``index``: the melee being fought;
    ``dice``: the (attacker, defender) roll."""

    kind = "acw.melee_phase"
    step: MeleeStep = MeleeStep.BUILD
    melees: list[list] | None = None
    index: int = 0
    dice: list[int] | None = None

    def run(self, state: ACWState) -> Step:
        side = state.active
        step = self.step
        if step is MeleeStep.BUILD:
            melees = []
            for defender in state.units[1 - side]:
                if defender is not None and defender.alive and defender.engaged:
                    melees.append([defender.slot, sorted(defender.engaged)])
            self.melees, self.index, self.step = melees, 0, MeleeStep.NEXT
            if not melees:
                state.log("no_melee", ("ACW-PD-26",), "no contacts: no melee", side)
            return None
        if step is MeleeStep.NEXT:
            own = state.units[side]
            contacts = filled(self.melees, "the melees")
            while self.index < len(contacts):
                defender_slot, attackers = contacts[self.index]
                defender = state.units[1 - side][defender_slot]
                attackers = [k for k in attackers if own[k] is not None and own[k].alive
                             and defender_slot in own[k].engaged]
                if defender is None or not defender.alive or not attackers:
                    self.index += 1
                    continue
                contacts[self.index][1] = attackers
                self.step = MeleeStep.RESOLVE
                return Push(RollDice(2, "Opposed Melee Roll (attacker, defender)",
                                     ("ACW-PD-26",), None))
            for units in state.units:  # clear any leftover contacts
                for unit in units:
                    if unit is not None:
                        unit.engaged = []
            return Done()
        defender_slot, attackers = filled(self.melees, "the melees")[self.index]
        resolve_melee(state, defender_slot, attackers, filled(self.dice, "the melee roll"))
        self.index += 1
        self.step = MeleeStep.NEXT
        return None

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        if isinstance(child, RollDice):
            self.dice = child.values


# ---------------------------------------------------------------------------------------------
# one Opposed Melee Roll and the retreats it causes (ACW-PD-26, PD-27, PD-29)
# ---------------------------------------------------------------------------------------------
def resolve_melee(state: ACWState, dslot: int, atts: list[int], dice: list[int]) -> None:
    """One Opposed Melee Roll (ACW-PD-26) of the attackers ``atts`` (slots of the active
    side) in contact with the defender ``dslot``; ``dice``: the attacker's and the
    defender's d6.

    Several attackers are one side (:func:`..queries.melee_side`). Engine ruling for that side: the
    result falls on the side once, through its best unit (:func:`..queries.melee_best`, whose
    modifiers were used) - a lost melee's 1-2 stands, or a tie's 1 hit, are taken by that
    unit alone - while every unit of the side is Disordered, and every attacker retreats
    (lost; several attackers each straight back from the edge it faces, which for a lone,
    centred attacker is also straight away from the winner) or recoils (tie); a loss by 5+
    breaks the whole side. Each winning charger may advance. A defender retreats straight
    away from the best winner; an attacker it fought only blocks that retreat if the
    defender would move into it (not just slide along it).
    """
    active = state.active
    defender = state.unit_in(1 - active, dslot)
    attackers = [state.unit_in(active, k) for k in atts]
    best_attacker = queries.melee_best(attackers)
    att_roll, def_roll = dice
    attacking = queries.melee_side(state, attackers, [defender], False)
    defending = queries.melee_side(state, [defender], attackers, True)
    att_mod = combat.melee_modifier(attacking, defending.stands)
    def_mod = combat.melee_modifier(defending, attacking.stands)
    att_total, def_total = att_roll + att_mod, def_roll + def_mod
    result = combat.melee_result(att_total, def_total)
    att_terms = ", ".join(f"{k} {v:+d}" for k, v in
                          combat.melee_modifier_breakdown(attacking, defending.stands))
    def_terms = ", ".join(f"{k} {v:+d}" for k, v in
                          combat.melee_modifier_breakdown(defending, attacking.stands))
    names = "+".join(unit.label() for unit in attackers)
    state.log("melee", ("ACW-PD-26",) + (("RULE-04-6.5",) if defender.counter_charged else ()) +
              (("RULE-04-5.4",) if attacking.flank_or_rear else ()),
              f"melee {names} vs {defender.label()}: {att_roll}{att_mod:+d}={att_total} "
              f"[{att_terms}] against {def_roll}{def_mod:+d}={def_total} [{def_terms}]", active,
              attackers=atts, defender=dslot, rolls=[att_roll, def_roll],
              totals=[att_total, def_total], margin=result.margin, winner=result.winner,
              mods=[att_mod, def_mod], support=[attacking.support, defending.support],
              best=best_attacker.slot)
    for unit in attackers + [defender]:
        unit.fought = True
    if result.winner is None:
        for unit in attackers + [defender]:
            if unit is best_attacker or unit is defender:  # one hit per side, on its best unit
                stands_lost, hits = combat.apply_hits(unit.hits, 1)
                unit.hits = hits
                effects.lose_stands(state, unit, stands_lost, ("ACW-PD-26", "I-5"), "melee tie hit")
            effects.disorder(state, unit, ("ACW-PD-26",), "melee tie")
        recoil = (tables.COUNTER_CHARGE_TIE_RECOIL if defender.counter_charged
                  else tables.MELEE_TIE_RECOIL)
        what = "1 hit each, all Disordered; the charger recoils" if len(attackers) == 1 else\
            f"1 hit per side (on {best_attacker.label()} and {defender.label()}), all " \
            f"Disordered; every "\
            f"charger recoils"
        state.log("melee_tie", ("ACW-PD-26",), f"tie: {what} {recoil:.0f}\"", active)
        for unit in attackers:
            retreat(state, unit, recoil, defender, count_block=False)
        if defender.counter_charged and defender.alive:
            retreat(state, defender, recoil, best_attacker, count_block=False, fought=attackers)
        effects.disengage(state, attackers, defender)
        return
    losers, winners = (attackers, [defender]) if result.winner == 1 else ([defender], attackers)
    for unit in losers:
        if not unit.alive:
            continue
        if result.loser_broken:
            effects.remove(state, unit, ("ACW-PD-26",), f"lost the melee by {result.margin}")
            continue
        if unit.kind == "artillery":
            effects.remove(state, unit, ("ACW-PD-26",), "battery captured")
            continue
    effects.disengage(state, attackers, defender)
    # the side's stand loss falls on its best unit
    main = best_attacker if result.winner == 1 else defender
    if main.alive and not result.loser_broken:
        effects.lose_stands(state, main, result.loser_stands_lost, ("ACW-PD-26",), "lost the melee")
    if result.winner == 0:
        # a winning charger may advance up to 2" into the ground given up (ACW-PD-26);
        # pushed first so it is decided after the loser's retreat and its Passage of Lines
        # tests (the stack runs the last frame first; the first attacker is asked first)
        for winner_unit in reversed(attackers):
            if winner_unit.alive and winner_unit.charged:
                state.stack.append(WinnerAdvance(winner_unit.slot, defender.slot))
    away = best_attacker if result.winner == 0 else defender
    several = len(losers) > 1  # each of several attackers backs straight off its own edge
    for unit in losers:
        if unit.alive:
            effects.disorder(state, unit, ("ACW-PD-26",), "lost the melee")
            retreat(state, unit, result.loser_retreat, away, count_block=True,
                          from_winner=not several, fought=winners)


def retreat(state: ACWState, unit: Unit, dist: float, away_from: Unit, count_block: bool,
             from_winner: bool = False, fought: list[Unit] | tuple = ()) -> None:
    """Retreat keeping facing: straight away from the winner after a lost melee, else
    straight back (ACW-PD-26, PD-27). Blocked by an enemy -> 1 more stand lost and stop; off
    the table -> removed; friends passed through take a Passage of Lines test (ACW-PD-29).
    An enemy of ``fought`` (the other side of the melee, still in base contact) blocks only
    when the retreat moves into it, not when the unit slides along or away from it."""
    if not unit.alive or dist <= 0:
        return
    terr = state.game.terrain
    fp0 = unit.fp
    ux, uy = fp0.forward()
    ux, uy = -ux, -uy
    if from_winner and away_from is not unit:
        (ax, ay), (bx, by) = away_from.fp.centre(), fp0.centre()
        count = math.hypot(bx - ax, by - ay)
        if count > 1e-9:
            ux, uy = (bx - ax) / count, (by - ay) / count

    def at(distance: float) -> Footprint:
        return fp0.shifted(ux * distance, uy * distance)

    enemies = [enemy.fp for enemy in state.alive(1 - unit.side)
               if enemy is not away_from and enemy.slot not in unit.engaged and enemy not in fought]
    touching = [enemy.fp for enemy in fought if enemy.alive and enemy is not away_from]
    friends = [friend for friend in state.alive(unit.side)
               if friend is not unit and not friend.is_screen]

    def off(distance: float) -> bool:
        return not terr.on_table(at(distance))

    def enemy_block(distance: float) -> bool:
        fp = at(distance)
        if any(overlaps(fp, enemy) for enemy in enemies):
            return True
        if touching:  # base contact is not a block: test a footprint inset by 0.01"
            fx, fy = fp.forward()
            ins = Footprint(fp.x - 0.01 * fx, fp.y - 0.01 * fy, fp.heading,
                            max(fp.width - 0.02, 0.01), max(fp.depth - 0.02, 0.01))
            return any(overlaps(ins, enemy) for enemy in touching)
        return False

    blocked_at = first_crossing(enemy_block, dist, 0.25, 0.01)
    off_at = first_crossing(off, dist, 0.25, 0.01)
    if off_at is not None and (blocked_at is None or off_at <= blocked_at):
        unit.fp = at(min(dist, off_at))
        effects.remove(state, unit, ("ACW-PD-26",), "retreat pushed it off the table")
        return
    t = dist
    if blocked_at is not None:
        t = max(0.0, blocked_at - 0.02)
    # do not end overlapping a friend: keep going until clear (ACW-PD-29)
    extra = 0.0
    while any(overlaps(at(t + extra), friend.fp) for friend in friends) and extra < 8.0:
        extra += 0.25
        if not terr.on_table(at(t + extra)):
            unit.fp = at(t + extra)
            effects.remove(state, unit, ("ACW-PD-26", "ACW-PD-29"),
                           "retreat pushed it off the table")
            return
    t += extra
    passed = []
    for friend in friends:
        for s in [x * 0.25 for x in range(int(t / 0.25) + 1)] + [t]:
            if overlaps(at(s), friend.fp):
                passed.append(friend.slot)
                break
    unit.fp = at(t)
    state.log("retreat", ("ACW-PD-26", "ACW-PD-27"), f"{unit.label()} falls back {t:.2f}\"",
              unit.side, unit=unit.slot, dist=round(t, 3))
    if blocked_at is not None and count_block:
        effects.lose_stands(state, unit, 1, ("ACW-PD-26",), "retreat blocked")
    if passed:
        state.stack.append(PassageOfLinesTests(unit.side, passed, unit.slot))
