"""ACW regimental combat arithmetic: checks, hits, the hit counter, Disorder and melee.

Pure functions over primitive values; no game state, no dice rolling: every die value is passed
in (each die is a chance node of the engine). Sources: seed 003 rule ids ``RULE-04-x.y``, house
rules ``ACW-PD-n`` and resolutions ``I-n`` of ``acw_fillins.md``. The tables themselves are
:mod:`envs.rulesets.acw_regimental.tables`, which this module imports by name (one way:
``tables`` knows nothing of ``combat``).

Errors: a die outside 1..6, a negative count or a Broken unit in a melee raises
:class:`envs.core.errors.ParameterError` naming the argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envs.core.errors import ParameterError
from envs.rulesets.acw_regimental.tables import (
    EMERGENCY_DRILL_TARGET,
    Band,
    Experience,
    Health,
    Weapon,
)

__all__ = [
    "check_passes", "emergency_drill_passes", "count_hits", "naturals_six", "count_saves",
    "apply_hits", "volley_disorders", "charge_check_needed", "MeleeSide", "melee_modifier",
    "melee_modifier_breakdown", "MeleeResult", "melee_result",
]

_DIE_FACES = frozenset(range(1, 7))


def _bad(name: str, value: object, expected: str) -> ParameterError:
    return ParameterError(f"acw combat: argument {name}={value!r} is invalid; expected {expected}")


# --------------------------------------------------------------------------------------------
# D6 checks (ACW-PD-15, RULE-04-2.4, RULE-04-5.2)
# --------------------------------------------------------------------------------------------


def check_passes(roll: int, target: int, modifier: int = 0) -> bool:
    """Whether a 1D6 check passes: a natural 6 always passes, a natural 1 always fails
    (ACW-PD-15), otherwise ``roll + modifier >= target``.

    Used for the Charge Discipline Check (RULE-04-2.4, unmodified), Rally (ACW-PD-15), Morale
    (ACW-PD-27) and Passage of Lines (ACW-PD-29) checks. Raises ParameterError if ``roll`` is not
    in 1..6.
    """
    if roll not in _DIE_FACES:
        raise _bad("roll", roll, "a d6 result, an int in 1..6")
    if roll == 6:
        return True
    if roll == 1:
        return False
    return roll + modifier >= target


def emergency_drill_passes(roll: int) -> bool:
    """Emergency Drill Check of Refuse the Flank without a reserved pip: a flat 4+ on 1D6 with no
    modifiers (RULE-04-5.2, I-19). Raises ParameterError if ``roll`` is not in 1..6."""
    return check_passes(roll, EMERGENCY_DRILL_TARGET)


# --------------------------------------------------------------------------------------------
# Fire (ACW-PD-25, RULE-04-2.3, RULE-04-3.3)
# --------------------------------------------------------------------------------------------


def count_hits(dice: Sequence[int], needed: int) -> int:
    """Number of hits in a pool of to-hit dice (ACW-PD-25 step 2).

    ``dice``: d6 values (1..6), one per die of the pool; ``needed``: the modified to-hit number
    (2..6, see ``tables.to_hit_needed``). A natural 1 always misses, a natural 6 always hits.
    Example A: [3, 3, 5, 2, 6] at 3+ -> 4. Raises ParameterError for a die outside 1..6.
    """
    hits = 0
    for d in dice:
        if d not in _DIE_FACES:
            raise _bad("dice", list(dice), "d6 results, ints in 1..6")
        if d == 6 or (d != 1 and d >= needed):
            hits += 1
    return hits


def naturals_six(dice: Sequence[int]) -> int:
    """Number of natural 6s in ``dice`` (RULE-04-2.3). Raises ParameterError for a die outside
    1..6."""
    sixes = 0
    for d in dice:
        if d not in _DIE_FACES:
            raise _bad("dice", list(dice), "d6 results, ints in 1..6")
        if d == 6:
            sixes += 1
    return sixes


def count_saves(dice: Sequence[int], needed: int | None) -> int:
    """Number of successful saves among ``dice`` (one die per hit) against ``needed`` (from
    ``tables.save_needed``; None means no save, 0 saves) (ACW-PD-25 step 3).

    A save succeeds on ``die >= needed``; there is no natural-6 rescue for a save worse than 6+,
    which is already None. Raises ParameterError for a die outside 1..6.
    """
    if needed is None:
        for d in dice:
            if d not in _DIE_FACES:
                raise _bad("dice", list(dice), "d6 results, ints in 1..6")
        return 0
    saves = 0
    for d in dice:
        if d not in _DIE_FACES:
            raise _bad("dice", list(dice), "d6 results, ints in 1..6")
        if d >= needed:
            saves += 1
    return saves


def apply_hits(hit_counter: int, unsaved: int) -> tuple[int, int]:
    """Add ``unsaved`` hits to a unit's persistent hit counter and convert pairs into stand
    losses (RULE-04-2.3 "2 hits = 1 stand", I-5 odd hit carried).

    Returns ``(stands_lost, new_counter)`` with ``new_counter`` in {0, 1}. ``stands_lost`` is not
    capped by the unit's remaining stands (the caller caps it). Example C: ``apply_hits(0, 3) ==
    (1, 1)``; Example A: ``apply_hits(0, 4) == (2, 0)``. Raises ParameterError for negative input.
    """
    if hit_counter < 0:
        raise _bad("hit_counter", hit_counter, "a hit counter >= 0")
    if unsaved < 0:
        raise _bad("unsaved", unsaved, "a hit count >= 0")
    total = hit_counter + unsaved
    return total // 2, total % 2


def volley_disorders(
    dice: Sequence[int],
    *,
    reaction: bool,
    band: Band | None,
    weapon: Weapon,
    phase3_six_all_ranges: bool = False,
) -> bool:
    """Whether a volley Disorders its target (RULE-04-2.3, RULE-04-3.3, I-12, ACW-PD-25 step 5).

    ``dice`` are the to-hit dice (saved hits still Disorder, so pass the to-hit dice, not the
    unsaved ones). Disorder if:
    * Napoleon fire at Short range, always (RULE-04-2.3, I-12), whatever the dice;
    * in reaction fire (Closing Volley, Opportunity Fire), any natural 6;
    * in Phase 3, a natural 6 at Short range only, or at any range if ``phase3_six_all_ranges``.
    An empty pool (nothing fired) never Disorders. Raises ParameterError for a die outside 1..6.
    """
    if not dice:
        return False
    sixes = naturals_six(dice)
    if weapon == Weapon.NAPOLEON and band == Band.SHORT:
        return True
    if sixes == 0:
        return False
    if reaction:
        return True
    return band == Band.SHORT or phase3_six_all_ranges


def charge_check_needed(stands_lost: int, disordered_by_volley: bool) -> bool:
    """Whether the charger must take the Charge Discipline Check after a Closing Volley: the
    volley removed at least one stand OR put a Disorder Marker on it (RULE-04-2.4)."""
    return stands_lost >= 1 or bool(disordered_by_volley)


# --------------------------------------------------------------------------------------------
# Melee (ACW-PD-26)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeleeSide:
    """One side of an Opposed Melee Roll (ACW-PD-26). All flags are decided by the caller.

    experience, health (Fresh/Worn/Spent), disordered, stands (stands of all engaged units on
    this side), is_artillery (a battery fights on this side), charged (charged this turn; gives
    Charging Momentum unless ``momentum_lost``), momentum_lost (counter-charged or crossed an
    obstacle/woods, RULE-04-6.5), downhill (charge started on higher ground; the caller clears it
    when counter-charged, RULE-04-6.5), defends_favourable (defender on higher ground, behind an
    obstacle or in heavy cover that did not counter-charge), flank_or_rear (contact on a flank or
    rear not refused, RULE-04-5.4), rebel_yell (trait and charged/counter-charged, ACW-PD-8,
    RULE-04-6.5), cavalry_shock (ACW-PD-8), support (a second friendly unit in contact, +1 max).
    """

    experience: Experience
    health: Health
    disordered: bool
    stands: int
    is_artillery: bool = False
    charged: bool = False
    momentum_lost: bool = False
    downhill: bool = False
    defends_favourable: bool = False
    flank_or_rear: bool = False
    rebel_yell: bool = False
    cavalry_shock: bool = False
    support: bool = False


_EXP_MELEE = {Experience.VETERAN: 1, Experience.REGULAR: 0, Experience.GREEN: -1}
_HEALTH_MELEE = {Health.FRESH: 0, Health.WORN: -1, Health.SPENT: -2}


def _side_base(side: MeleeSide) -> tuple[int, int]:
    try:
        exp = _EXP_MELEE[side.experience]
    except KeyError:
        raise _bad("side.experience", side.experience, "an Experience") from None
    try:
        health = _HEALTH_MELEE[side.health]
    except KeyError:
        raise _bad("side.health", side.health,
                   "Fresh, Worn or Spent (a Broken unit does not fight)") from None
    return exp, health


def melee_modifier(side: MeleeSide, enemy_stands: int) -> int:
    """Sum of the ACW-PD-26 melee modifiers of ``side`` against an enemy with ``enemy_stands``.

    Charging Momentum +1 (charged, not lost), downhill +1 (charged and downhill), defending
    favourable ground +1, flank/rear contact +2, Rebel Yell +1, Cavalry Shock +1, Veteran +1 /
    Green -1, Disordered -1, Worn -1 / Spent -2, more stands than the enemy +1, artillery -2,
    support +1. Raises ParameterError for a Broken side or an unknown enum.
    """
    exp, health = _side_base(side)
    total = exp + health
    if side.charged:
        if not side.momentum_lost:
            total += 1
        if side.downhill:
            total += 1
    if side.defends_favourable:
        total += 1
    if side.flank_or_rear:
        total += 2
    if side.rebel_yell:
        total += 1
    if side.cavalry_shock:
        total += 1
    if side.disordered:
        total -= 1
    if side.stands > enemy_stands:
        total += 1
    if side.is_artillery:
        total -= 2
    if side.support:
        total += 1
    return total


def melee_modifier_breakdown(side: MeleeSide, enemy_stands: int) -> list[tuple[str, int]]:
    """The non-zero terms of :func:`melee_modifier` as ``(label, value)`` pairs in table order,
    for the event log (ACW-PD-26). ``sum(v for _, v in ...) == melee_modifier(side, ...)``."""
    exp, health = _side_base(side)
    terms: list[tuple[str, int]] = []
    if side.charged and not side.momentum_lost:
        terms.append(("charging momentum", 1))
    if side.charged and side.downhill:
        terms.append(("downhill", 1))
    if side.defends_favourable:
        terms.append(("defending favourable ground", 1))
    if side.flank_or_rear:
        terms.append(("flank or rear contact", 2))
    if side.rebel_yell:
        terms.append(("rebel yell", 1))
    if side.cavalry_shock:
        terms.append(("cavalry shock", 1))
    if exp:
        terms.append((Experience(side.experience).value, exp))
    if side.disordered:
        terms.append(("disordered", -1))
    if health:
        terms.append((Health(side.health).value, health))
    if side.stands > enemy_stands:
        terms.append(("more stands", 1))
    if side.is_artillery:
        terms.append(("artillery", -2))
    if side.support:
        terms.append(("support", 1))
    return terms


@dataclass(frozen=True, slots=True)
class MeleeResult:
    """Outcome of an Opposed Melee Roll (ACW-PD-26).

    winner: 0 (first side), 1 (second side) or None on a tie; margin: abs(total_a - total_b);
    loser_stands_lost: 1 (margin 1-2) or 2 (3-4), 0 on a tie or a rout; loser_retreat: inches,
    3.0 or 6.0; loser_broken: margin >= 5 (the loser is removed); tie_hits: 1 hit onto each
    side's counter on a tie, else 0. Disorder of the loser (or of both on a tie), recoils,
    battery capture and blocked retreats are applied by the caller.
    """

    winner: int | None
    margin: int
    loser_stands_lost: int
    loser_retreat: float
    loser_broken: bool
    tie_hits: int


_TIE = MeleeResult(winner=None, margin=0, loser_stands_lost=0, loser_retreat=0.0,
                   loser_broken=False, tie_hits=1)


def melee_result(total_a: int, total_b: int) -> MeleeResult:
    """Result of an Opposed Melee Roll from the two totals (die + modifiers) (ACW-PD-26).

    Margin 0: tie, 1 hit each. 1-2: loser loses 1 stand and retreats 3". 3-4: loser loses 2
    stands and retreats 6". 5 or more: loser Broken.
    """
    margin = total_a - total_b
    if margin == 0:
        return _TIE
    winner = 0 if margin > 0 else 1
    margin = abs(margin)
    if margin <= 2:
        return MeleeResult(winner, margin, 1, 3.0, False, 0)
    if margin <= 4:
        return MeleeResult(winner, margin, 2, 6.0, False, 0)
    return MeleeResult(winner, margin, 0, 0.0, True, 0)
