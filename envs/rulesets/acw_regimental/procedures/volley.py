"""One volley (ACW-PD-25): Phase 3 fire (ACW-PD-25b), Opportunity Fire (RULE-04-3.3) and the
Closing Volley (RULE-04-2.3).

A :class:`Volley` rolls the firing stands' dice against the to-hit number (by weapon, range band
and modifiers), the target's cover saves (I-4), applies the unsaved hits to the hit counter
(I-5) and the Disorder of a natural 6 (RULE-04-2.3, I-12); the firer gets a Smoke Marker
(ACW-PD-32). The stands it took off and whether the target was Disordered are left in ``lost``
and ``disordered`` for the frame that pushed it (a charge's Charge Discipline Check reads them).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envs.core.errors import InvalidStateError
from envs.core.frames import RollDice, rolled
from envs.core.geometry import footprint_distance
from envs.core.procedure import Done, Frame, Push, Step, filled, register

from .. import combat, tables
from ..arcs import zone_of
from ..tables import Band, Cover
from ..units import FORMATION_BY_VALUE, UNIT_KIND_BY_VALUE, WEAPON_BY_VALUE
from .. import effects, queries

if TYPE_CHECKING:
    from ..state import ACWState
    from ..units import Unit

__all__ = ["FireMode", "Volley", "VolleyStep"]


class FireMode(str, enum.Enum):
    """Why the volley is fired."""

    PHASE3 = "p3"          # the active side's Ranged Combat phase (ACW-PD-25b)
    OPPORTUNITY = "opp"    # Opportunity Fire in Window A (RULE-04-3.3)
    CLOSING = "cv"         # the Closing Volley of Window B2 (RULE-04-2.3)


#: rule ids of a volley by mode (ACW-PD-25)
FIRE_RULES = {FireMode.PHASE3: ("ACW-PD-25", "ACW-PD-25b"),
              FireMode.OPPORTUNITY: ("RULE-04-3.3", "ACW-PD-25"),
              FireMode.CLOSING: ("RULE-04-2.3", "ACW-PD-25")}


class VolleyStep(str, enum.Enum):
    START = "start"   # count the dice and the to-hit number, roll
    HITS = "hits"     # count the hits; roll the target's saves when it has cover
    SAVES = "saves"   # count the saves
    APPLY = "apply"   # hit counter, stands lost, Disorder, smoke


@register
@dataclass(slots=True)
class Volley(Frame["ACWState"]):
    """Unit ``firer`` of side ``firer_side`` fires at the enemy unit ``target``.

    Fields set as it resolves: ``rules`` (the mode's rule ids), ``band`` (range band value),
    ``needed`` (to-hit number), ``dice_count``, ``enfilade``, ``refused_flank`` (a Phase 3
    enfilade cancelled by a refused flank, RULE-04-5.4), ``hit_dice`` / ``hits``,
    ``save_needed`` / ``cover`` / ``saved``, ``rolled`` (the last dice rolled), and the result
    ``lost`` / ``disordered``.
    """

    kind = "acw.volley"
    firer_side: int
    firer: int
    target: int
    mode: FireMode
    step: VolleyStep = VolleyStep.START
    rules: tuple[str, ...] = ()
    band: str | None = None
    needed: int | None = None
    dice_count: int = 0
    enfilade: bool = False
    refused_flank: bool = False
    hit_dice: list[int] = field(default_factory=list)
    hits: int = 0
    save_needed: int | None = None
    cover: str = ""
    saved: int = 0
    rolled: list[int] = field(default_factory=list)
    lost: int = 0
    disordered: bool = False

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        self.rolled = rolled(child)

    def run(self, state: ACWState) -> Step:
        firer = state.unit_in(self.firer_side, self.firer)
        target = state.unit_in(1 - self.firer_side, self.target)
        step = self.step
        if step is VolleyStep.START:
            return self._start(state, firer, target)
        if step is VolleyStep.HITS:
            return self._hits(state, firer, target)
        if step is VolleyStep.SAVES:
            self.saved = combat.count_saves(self.rolled, self.save_needed)
            state.log("saved", ("ACW-PD-25",), f"{target.label()} saves {self.saved} hit(s)",
                      target.side, saved=self.saved)
            self.step = VolleyStep.APPLY
            return None
        return self._apply(state, firer, target)

    def _start(self, state: ACWState, firer: Unit, target: Unit) -> Step:
        if firer is None or target is None or not firer.alive or not target.alive:
            return Done()
        mode = self.mode
        phase3 = mode is FireMode.PHASE3
        stands = queries.firing_stands(state, firer, target.fp)
        per_stand = tables.dice_per_stand(UNIT_KIND_BY_VALUE[firer.kind])
        dist = footprint_distance(firer.fp, target.fp)
        weapon = WEAPON_BY_VALUE[firer.weapon]
        if mode is FireMode.CLOSING:
            band = Band.SHORT
            dist_for = min(dist, tables.SHORT_RANGE)
        else:
            in_range = tables.range_band(weapon, dist)
            if in_range is None:
                raise InvalidStateError(f"{self.kind}: the target is out of range ({dist:.2f}\")")
            band = in_range
            dist_for = dist
        # Enfilade is a Phase 3 modifier: reaction fire uses the seed's bracket numbers
        # (RULE-04-2.3, RULE-04-3.3; Example C fires at a column's flank on 4+).
        enfilade = phase3 and queries.enfilade(state, firer, target)
        moved = phase3 and (firer.moved > 0 or firer.out_of_smoke)
        needed = tables.to_hit_needed(weapon, dist_for, enfilade=enfilade,
                                      firer_disordered=firer.disordered, firer_moved=moved,
                                      target_is_screen=target.is_screen)
        count = stands * per_stand
        self.band = band.value if band else None
        self.needed, self.dice_count, self.enfilade = needed, count, enfilade
        rules: tuple[str, ...] = FIRE_RULES[mode]
        self.rules = rules
        if needed is None or count == 0:
            state.log("fire_none", rules, f"{firer.label()} cannot bring fire to bear",
                      firer.side)
            return Done()
        refused = phase3 and not enfilade and target.refused != "" and \
            zone_of(target.fp, firer.fp.centre()) == target.refused
        self.refused_flank = refused
        mods = []
        if refused:
            mods.append("no enfilade: refused flank (RULE-04-5.4)")
            rules = rules + ("RULE-04-5.4", "ACW-PD-33")
        if enfilade:
            mods.append("enfilade +1 (ACW-PD-18)")
        if firer.disordered:
            mods.append("firer Disordered -1")
        if moved:
            mods.append("firer moved -1 (ACW-PD-22)")
        if target.is_screen:
            mods.append("screen target -1")
        state.log("fire", rules + (("ACW-PD-18",) if enfilade else ()),
                  f"{firer.label()} fires at {target.label()}: {stands} stand(s), {count}D6 at "
                  f"{band.value} range ({dist:.2f}\"), hits on {needed}+"
                  f"{' [' + ', '.join(mods) + ']' if mods else ' [no enfilade]'}",
                  firer.side, firer=firer.slot, target=target.slot, dice=count, needed=needed,
                  band=band.value, enfilade=enfilade, distance=round(dist, 3), mode=mode.value,
                  refused_flank=refused, moved=moved)
        self.step = VolleyStep.HITS
        return Push(RollDice(count, f"{firer.label()} fire", rules, firer.side))

    def _hits(self, state: ACWState, firer: Unit, target: Unit) -> Step:
        dice = self.rolled
        self.hit_dice = dice
        hits = combat.count_hits(dice, filled(self.needed, "the hit target"))
        self.hits = hits
        state.log("hits", tuple(self.rules), f"{firer.label()} rolls {dice}: {hits} hit(s) "
                  f"({combat.naturals_six(dice)} natural 6)", firer.side, dice=list(dice),
                  hits=hits)
        cover = state.game.terrain.cover(target.fp, firer.fp.centre()) if target.alive \
            else Cover.NONE
        formation = FORMATION_BY_VALUE.get(target.formation, tables.Formation.LINE)
        save = tables.save_needed(cover, formation, artillery_short=(
            firer.kind == "artillery" and self.band == "short"))
        self.save_needed = save
        self.cover = cover.value
        if hits and save is not None:
            self.step = VolleyStep.SAVES
            state.log("saves", ("ACW-PD-25", "I-4"), f"{target.label()} in {cover.value} cover "
                      f"saves on {save}+", target.side, needed=save, cover=cover.value)
            return Push(RollDice(hits, f"{target.label()} saves", ("ACW-PD-25", "I-4"),
                                 target.side))
        self.step = VolleyStep.APPLY
        self.saved = 0
        return None

    def _apply(self, state: ACWState, firer: Unit, target: Unit) -> Step:
        unsaved = self.hits - self.saved
        lost = 0
        disordered = False
        reaction = self.mode is not FireMode.PHASE3
        if target.alive:
            stands_lost, counter = combat.apply_hits(target.hits, unsaved)
            target.hits = counter
            state.log("hit_counter", ("RULE-04-2.3", "I-5"),
                      f"{target.label()} takes {unsaved} unsaved hit(s): {stands_lost} stand(s) "
                      f"lost, hit counter {counter}", target.side, unit=target.slot,
                      unsaved=unsaved, stands=stands_lost, counter=counter)
            lost = effects.lose_stands(state, target, stands_lost, ("RULE-04-2.3", "I-5"), "fire")
            band = Band(self.band) if self.band else None
            if target.alive and combat.volley_disorders(
                    self.hit_dice, reaction=reaction, band=band,
                    weapon=WEAPON_BY_VALUE[firer.weapon],
                    phase3_six_all_ranges=state.game.phase3_six_all):
                canister = firer.weapon == "napoleon" and band is Band.SHORT
                rules = ("RULE-04-2.3", "I-12") if canister else \
                    (("RULE-04-2.3", "RULE-04-3.3") if reaction else ("ACW-PD-25",))
                disordered = effects.disorder(state, target, rules,
                                             "Napoleon canister" if canister else "natural 6")
                disordered = disordered or target.disordered
        effects.smoke(state, firer, own=not reaction)
        firer.fired = True
        self.lost, self.disordered = lost, bool(disordered)
        return Done()
