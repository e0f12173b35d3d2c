"""ACW regimental tables: enumerations, constants and pure table look-ups.

Every function here is a pure function of primitive values (``str`` enums, ints, floats): no game
state, no dice rolling. Values are the binding defaults of ``acw_fillins.md`` (seed 003 rule ids
``RULE-04-x.y``, house rules ``ACW-PD-n``, resolutions ``I-n``); each docstring names its source.
All distances are in inches. Look-ups are plain dict/tuple indexing so they can sit in the engine's
hot path.

The dice arithmetic (checks, hit counting, hit counter, Disorder, melee) lives in
:mod:`envs.rulesets.acw_regimental.combat`, which imports this module and re-exports its public
names; this module imports nothing of ``combat`` (one way only).

Errors: bad input (unknown enum value, die outside 1..6, negative distance, impossible
kind/formation pair) raises :class:`envs.core.errors.ParameterError` naming the argument.
"""

from __future__ import annotations

import math
from enum import Enum

from envs.core.errors import ParameterError

__all__ = [
    "UnitKind", "Formation", "Weapon", "Experience", "Health", "Cover", "Band", "Zone",
    "stand_size", "discipline_target", "pips_from_roll", "PIPS_FIXED", "MAX_RESERVED",
    "worn_at", "spent_at", "health_state", "range_band", "base_to_hit", "to_hit_needed",
    "dice_per_stand", "save_needed", "movement_allowance", "can_charge", "wheel_cost",
    "formation_change_cost", "morale_modifier", "rally_modifier",
    "CHARGE_DISTANCE", "OBSTACLE_CROSSING_COST", "PASSAGE_OF_LINES_COST", "NO_APPROACH",
    "SKIRMISH_NO_APPROACH", "VP_STAND", "VP_BROKEN", "VP_OBJECTIVE", "OBJECTIVE_RADIUS",
    "REFUSE_RANGE", "OPP_FIRE_RANGE", "SHORT_RANGE", "VOLLEY_MARK", "STALL_DISTANCE",
    "EVADE_TRIGGER", "EVADE_DISTANCES", "SURGE_DISTANCES", "BAND_EPS", "EMERGENCY_DRILL_TARGET",
    "COLUMN_PIVOT_COST", "MAX_COLUMN_PIVOTS", "SIDE_STEP_MAX", "BACKWARD_COST_FACTOR",
    "MAX_WHEEL", "REFUSE_ANGLE", "MELEE_TIE_RECOIL", "COUNTER_CHARGE_TIE_RECOIL",
    "WINNER_ADVANCE", "MORALE_FALLBACK", "SKIRMISH_DETACH_RANGE", "SKIRMISH_LEASH",
    "MOVE_AND_FIRE_FRACTION", "MOVE_OUT_OF_SMOKE", "GAME_TURNS", "Refusal",
]

#: why an action or a reaction is refused: ``(rule ids, reason)``
Refusal = tuple[tuple[str, ...], str]


# --------------------------------------------------------------------------------------------
# Enumerations
# --------------------------------------------------------------------------------------------


class UnitKind(str, Enum):
    """Unit type (ACW-PD-4)."""

    INFANTRY = "infantry"
    CAVALRY = "cavalry"
    ARTILLERY = "artillery"


class Formation(str, Enum):
    """Formation of a unit (ACW-PD-6)."""

    LINE = "line"
    ASSAULT_COLUMN = "assault_column"
    ROAD_COLUMN = "road_column"
    MOUNTED_LINE = "mounted_line"
    UNLIMBERED = "unlimbered"
    LIMBERED = "limbered"
    SKIRMISH = "skirmish"


class Weapon(str, Enum):
    """Weapon class (ACW-PD-5). ``CARBINE`` is cavalry's and never fires in v1 (ACW-PD-25b, PD-38)."""

    SMOOTHBORE = "smoothbore"
    RIFLED_MUSKET = "rifled_musket"
    NAPOLEON = "napoleon"
    RIFLE_3IN = "rifle_3in"
    CARBINE = "carbine"


class Experience(str, Enum):
    """Experience level (RULE-04-2.4, ACW-PD-7)."""

    VETERAN = "veteran"
    REGULAR = "regular"
    GREEN = "green"


class Health(str, Enum):
    """Health state set by stands lost (ACW-PD-9)."""

    FRESH = "fresh"
    WORN = "worn"
    SPENT = "spent"
    BROKEN = "broken"


class Cover(str, Enum):
    """Cover of a fire target (ACW-PD-20, ACW-PD-25)."""

    NONE = "none"
    LIGHT = "light"
    HEAVY = "heavy"


class Band(str, Enum):
    """Range band of a volley (RULE-04-2.3, RULE-04-3.3, ACW-PD-25, I-8)."""

    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"
    EXTREME = "extreme"


class Zone(str, Enum):
    """Zone of a unit that holds another unit's centre (I-9, ACW-PD-16)."""

    FRONT = "front"
    LEFT = "left"
    RIGHT = "right"
    REAR = "rear"


# --------------------------------------------------------------------------------------------
# Constants (inches unless stated)
# --------------------------------------------------------------------------------------------

#: Maximum charge distance, infantry and cavalry alike (RULE-04-6.1, ACW-PD-19).
CHARGE_DISTANCE = 9.0
#: Movement cost of crossing a linear obstacle (ACW-PD-20).
OBSTACLE_CROSSING_COST = 3.0
#: Movement cost of a voluntary Passage of Lines (ACW-PD-29).
PASSAGE_OF_LINES_COST = 3.0
#: A non-charging unit may not end a move this close to an enemy (ACW-PD-21.7).
NO_APPROACH = 2.0
#: The no-approach distance for skirmish stands (ACW-PD-21.7).
SKIRMISH_NO_APPROACH = 1.0
#: Victory points: per enemy stand/section destroyed, per enemy unit Broken, per objective held
#: (ACW-PD-36).
VP_STAND = 1
VP_BROKEN = 2
VP_OBJECTIVE = 3
#: Radius within which a unit in good order holds an objective (ACW-PD-36).
OBJECTIVE_RADIUS = 3.0
#: Refuse the Flank may only be triggered by an enemy within this range (I-23, ACW-PD-33).
REFUSE_RANGE = 12.0
#: Opportunity fire trigger range (RULE-04-3.1, I-18).
OPP_FIRE_RANGE = 8.0
#: Top edge (inclusive) of the Short band (RULE-04-2.3, I-8).
SHORT_RANGE = 6.0
#: The charger is halted this far from the defender's front edge for the Closing Volley
#: (RULE-04-1.2, RULE-04-2.3).
VOLLEY_MARK = 4.0
#: A stalled charger halts this far from the defender (RULE-04-2.5).
STALL_DISTANCE = 2.0
#: A formed enemy this close triggers a screen's Evade (RULE-04-4.1).
EVADE_TRIGGER = 6.0
#: Evade withdrawal distances offered as choices (RULE-04-4.3, I-20).
EVADE_DISTANCES = (4.0, 5.0, 6.0)
#: Counter-charge surge distances offered as choices (RULE-04-6.4).
SURGE_DISTANCES = (2.0, 3.0)
#: Staff pips per brigade in the deterministic variant ``pips_fixed`` (ACW-PD-13).
PIPS_FIXED = 3
#: At most this many reserved pips per brigade (ACW-PD-14).
MAX_RESERVED = 2
#: Flat target of the Emergency Drill Check (RULE-04-5.2, I-19).
EMERGENCY_DRILL_TARGET = 4
#: Float tolerance on inclusive band edges: a distance within BAND_EPS above an edge counts as on
#: the edge (I-8; guards geometry round-off such as 6.000000000001).
BAND_EPS = 1e-6
#: Any pivot of a column about its head stand costs this much; at most MAX_COLUMN_PIVOTS per
#: activation (ACW-PD-21.3).
COLUMN_PIVOT_COST = 1.0
MAX_COLUMN_PIVOTS = 2
#: A Line may side-step at most this far, at BACKWARD_COST_FACTOR cost (ACW-PD-21.1).
SIDE_STEP_MAX = 2.0
#: Moving backwards (and side-stepping) costs double, except for skirmishers (ACW-PD-21.1).
BACKWARD_COST_FACTOR = 2.0
#: Largest wheel / unlimbered pivot, radians (ACW-PD-19, ACW-PD-21.2).
MAX_WHEEL = math.pi / 4
#: Refused stands swing back this far, radians (RULE-04-5.3).
REFUSE_ANGLE = math.pi / 4
#: Melee tie: the charger recoils this far; in a counter-charge clash both recoil
#: COUNTER_CHARGE_TIE_RECOIL (ACW-PD-26).
MELEE_TIE_RECOIL = 2.0
COUNTER_CHARGE_TIE_RECOIL = 1.0
#: A winning charger may advance up to this far (ACW-PD-26).
WINNER_ADVANCE = 2.0
#: A unit failing its Morale Test falls back this far (ACW-PD-27).
MORALE_FALLBACK = 3.0
#: A detached skirmish stand is placed within this distance of the parent's front edge, and must
#: end its moves within SKIRMISH_LEASH of the parent (ACW-PD-30).
SKIRMISH_DETACH_RANGE = 4.0
SKIRMISH_LEASH = 6.0
#: A unit may fire in Phase 3 only if it used at most this fraction of its allowance (ACW-PD-22).
MOVE_AND_FIRE_FRACTION = 0.5
#: A move of at least this far removes a Smoke Marker (ACW-PD-22, RULE-04-3.4).
MOVE_OUT_OF_SMOKE = 1.0
#: Game length in game turns (ACW-PD-35).
GAME_TURNS = 10


# --------------------------------------------------------------------------------------------
# Units and experience
# --------------------------------------------------------------------------------------------

_STAND_SIZE = {
    UnitKind.INFANTRY: (1.0, 0.75),
    UnitKind.CAVALRY: (1.0, 1.0),
    UnitKind.ARTILLERY: (1.0, 1.5),
}


def _bad(name: str, value: object, expected: str) -> ParameterError:
    return ParameterError(f"acw tables: argument {name}={value!r} is invalid; expected {expected}")


def stand_size(kind: UnitKind) -> tuple[float, float]:
    """(width, depth) in inches of one stand of ``kind`` (ACW-PD-2).

    Infantry 1.0 x 0.75, cavalry 1.0 x 1.0, artillery section 1.0 x 1.5.
    Raises ParameterError for an unknown kind.
    """
    try:
        return _STAND_SIZE[kind]
    except KeyError:
        raise _bad("kind", kind, "a UnitKind") from None


_DISCIPLINE = {Experience.VETERAN: 3, Experience.REGULAR: 4, Experience.GREEN: 5}


def discipline_target(experience: Experience) -> int:
    """Discipline target on 1D6: Veteran 3, Regular 4, Green 5 (RULE-04-2.4, ACW-PD-7).

    Raises ParameterError for an unknown experience.
    """
    try:
        return _DISCIPLINE[experience]
    except KeyError:
        raise _bad("experience", experience, "an Experience") from None


_DIE_FACES = frozenset(range(1, 7))


def _check_die(name: str, value: int) -> None:
    if value not in _DIE_FACES:
        raise _bad(name, value, "a d6 result, an int in 1..6")


def pips_from_roll(d6: int) -> int:
    """Staff pips per brigade from one d6: ``1 + ceil(d6 / 2)``, i.e. 2..4 (ACW-PD-13).

    Raises ParameterError if ``d6`` is not in 1..6.
    """
    _check_die("d6", d6)
    return 1 + (d6 + 1) // 2


# --------------------------------------------------------------------------------------------
# Health (ACW-PD-9)
# --------------------------------------------------------------------------------------------


def worn_at(starting_stands: int) -> int:
    """Stands lost at which a unit of starting size ``starting_stands`` becomes Worn: ``(starting_stands+2)//3`` = ceil(starting_stands/3)
    (ACW-PD-9). Raises ParameterError if ``starting_stands < 1``."""
    if starting_stands < 1:
        raise _bad("starting_stands", starting_stands, "a starting stand count >= 1")
    return (starting_stands + 2) // 3


def spent_at(starting_stands: int) -> int:
    """Stands lost at which a unit of starting size ``starting_stands`` becomes Spent: ``(3*starting_stands+4)//5`` =
    ceil(3*starting_stands/5) (ACW-PD-9). Raises ParameterError if ``starting_stands < 1``."""
    if starting_stands < 1:
        raise _bad("starting_stands", starting_stands, "a starting stand count >= 1")
    return (3 * starting_stands + 4) // 5


def health_state(starting_stands: int, lost: int) -> Health:
    """Health of a unit that started with ``starting_stands`` stands and has lost ``lost`` (ACW-PD-9).

    Fresh below ``worn_at(starting_stands)`` losses, Worn below ``spent_at(starting_stands)``, Spent while stands remain,
    Broken when ``lost >= starting_stands`` (no stands left). Broken by a failed Morale Test or a melee loss
    by 5+ is a state flag of the engine, not a function of the counts.
    Raises ParameterError if ``starting_stands < 1`` or ``lost < 0``.
    """
    if starting_stands < 1:
        raise _bad("starting_stands", starting_stands, "a starting stand count >= 1")
    if lost < 0:
        raise _bad("lost", lost, "a stands-lost count >= 0")
    if lost >= starting_stands:
        return Health.BROKEN
    if lost >= (3 * starting_stands + 4) // 5:
        return Health.SPENT
    if lost >= (starting_stands + 2) // 3:
        return Health.WORN
    return Health.FRESH


# --------------------------------------------------------------------------------------------
# Fire (ACW-PD-25, RULE-04-2.3, RULE-04-3.3)
# --------------------------------------------------------------------------------------------

# Inclusive upper edges of the bands, in band order (I-8, ACW-PD-25).
_BAND_EDGES: dict[Weapon, tuple[tuple[float, Band], ...]] = {
    Weapon.SMOOTHBORE: ((6.0, Band.SHORT), (9.0, Band.MEDIUM)),
    Weapon.RIFLED_MUSKET: ((6.0, Band.SHORT), (12.0, Band.MEDIUM), (18.0, Band.LONG)),
    Weapon.NAPOLEON: ((6.0, Band.SHORT), (12.0, Band.MEDIUM), (24.0, Band.LONG),
                      (48.0, Band.EXTREME)),
    Weapon.RIFLE_3IN: ((6.0, Band.SHORT), (12.0, Band.MEDIUM), (24.0, Band.LONG),
                       (48.0, Band.EXTREME)),
    Weapon.CARBINE: (),  # mounted cavalry does not fire in v1 (ACW-PD-25b, ACW-PD-38)
}

# Base to-hit number per weapon and band (ACW-PD-25; Short values are the seed's, RULE-04-2.3).
_TO_HIT: dict[tuple[Weapon, Band], int] = {
    (Weapon.SMOOTHBORE, Band.SHORT): 3,
    (Weapon.SMOOTHBORE, Band.MEDIUM): 6,
    (Weapon.RIFLED_MUSKET, Band.SHORT): 4,
    (Weapon.RIFLED_MUSKET, Band.MEDIUM): 5,
    (Weapon.RIFLED_MUSKET, Band.LONG): 6,
    (Weapon.NAPOLEON, Band.SHORT): 2,
    (Weapon.NAPOLEON, Band.MEDIUM): 4,
    (Weapon.NAPOLEON, Band.LONG): 5,
    (Weapon.NAPOLEON, Band.EXTREME): 6,
    (Weapon.RIFLE_3IN, Band.SHORT): 3,
    (Weapon.RIFLE_3IN, Band.MEDIUM): 5,
    (Weapon.RIFLE_3IN, Band.LONG): 5,
    (Weapon.RIFLE_3IN, Band.EXTREME): 5,
}


# Per weapon: (inclusive upper edge, base to-hit) in band order, for the hot path.
_FIRE_ROWS: dict[Weapon, tuple[tuple[float, int], ...]] = {
    w: tuple((edge, _TO_HIT[(w, band)]) for edge, band in edges) for w, edges in _BAND_EDGES.items()
}


def max_range(weapon: Weapon) -> float:
    """Upper edge (inches) of ``weapon``'s longest band (ACW-PD-25): ``range_band`` is None
    beyond ``max_range + BAND_EPS``; ``-1.0`` for a weapon that never fires (carbines, v1).

    Raises:
        ParameterError: for an unknown weapon.
    """
    try:
        edges = _BAND_EDGES[weapon]
    except KeyError:
        raise _bad("weapon", weapon, "a Weapon") from None
    return edges[-1][0] if edges else -1.0


def range_band(weapon: Weapon, distance: float) -> Band | None:
    """Range band of ``weapon`` at ``distance`` inches (closest points), or None if out of range.

    Upper edges are inclusive (I-8): Short d <= 6; Medium d <= 9 (smoothbore) or <= 12; Long
    d <= 18 (rifled musket) or <= 24 (guns); Extreme d <= 48 (guns only) (ACW-PD-25). A distance
    within ``BAND_EPS`` above an edge counts as on it. Carbines never fire in v1: always None.
    Raises ParameterError for a negative distance or an unknown weapon.
    """
    if distance < 0.0:
        raise _bad("distance", distance, "a distance in inches >= 0")
    try:
        edges = _BAND_EDGES[weapon]
    except KeyError:
        raise _bad("weapon", weapon, "a Weapon") from None
    d = distance - BAND_EPS
    for edge, band in edges:
        if d <= edge:
            return band
    return None


def base_to_hit(weapon: Weapon, band: Band | None) -> int | None:
    """Unmodified to-hit number (2..6) of ``weapon`` in ``band``, or None where the weapon has no
    such band (ACW-PD-25; Short values from RULE-04-2.3).

    Smoothbore 3/6/-/-, rifled musket 4/5/6/-, Napoleon 2/4/5/6, 3-inch rifle 3/5/5/5 for
    Short/Medium/Long/Extreme.
    """
    if band is None:
        return None
    return _TO_HIT.get((weapon, band))


def to_hit_needed(
    weapon: Weapon,
    distance: float,
    *,
    enfilade: bool = False,
    firer_disordered: bool = False,
    firer_moved: bool = False,
    target_is_screen: bool = False,
) -> int | None:
    """Number needed on each die to hit, or None if out of range (ACW-PD-25 steps 1-2).

    Base number from :func:`base_to_hit` at ``range_band(weapon, distance)``; enfilade (ACW-PD-18,
    RULE-04-5.4) lowers it by 1; a Disordered firer (ACW-PD-31), a firer that moved (ACW-PD-22)
    and a skirmish/screen target (ACW-PD-6) each raise it by 1. Clamped to 2..6.
    Raises ParameterError as :func:`range_band`.
    """
    if distance < 0.0:
        raise _bad("distance", distance, "a distance in inches >= 0")
    try:
        rows = _FIRE_ROWS[weapon]
    except KeyError:
        raise _bad("weapon", weapon, "a Weapon") from None
    d = distance - BAND_EPS
    for edge, base in rows:
        if d <= edge:
            break
    else:
        return None
    needed = base - int(enfilade) + int(firer_disordered) + int(firer_moved) + int(target_is_screen)
    if needed < 2:
        return 2
    if needed > 6:
        return 6
    return needed


def dice_per_stand(kind: UnitKind) -> int:
    """Fire dice per firing stand: 1 per infantry or skirmish stand, 2 per artillery section
    (RULE-04-2.3, I-13); 0 for cavalry, which does not fire in v1 (ACW-PD-25b).

    Raises ParameterError for an unknown kind.
    """
    if kind is UnitKind.INFANTRY:
        return 1
    if kind is UnitKind.ARTILLERY:
        return 2
    if kind is UnitKind.CAVALRY:
        return 0
    try:
        return dice_per_stand(UnitKind(kind))
    except ValueError:
        raise _bad("kind", kind, "a UnitKind") from None


_BASE_SAVE = {Cover.LIGHT: 5, Cover.HEAVY: 4}
_SAVE_PENALTY = {
    Formation.ASSAULT_COLUMN: 1,  # seed Example C, I-4
    Formation.ROAD_COLUMN: 2,     # RULE-04-3.3, I-4 (against all fire)
    Formation.LIMBERED: 2,        # ACW-PD-6
}


def save_needed(cover: Cover, formation: Formation, *, artillery_short: bool = False) -> int | None:
    """Number needed on 1D6 to save one hit, or None if no save (ACW-PD-25 step 3, I-4,
    RULE-04-3.3).

    Light cover 5+, heavy cover 4+, open ground none. Each save penalty makes the number 1 higher:
    Assault Column -1, Road Column or limbered battery -2, artillery fire at Short range -1. A
    result worse than 6+ means no save (None). Raises ParameterError for an unknown cover.
    """
    if cover is Cover.NONE:
        return None
    base = _BASE_SAVE.get(cover)
    if base is None:
        if cover == Cover.NONE:
            return None
        raise _bad("cover", cover, "a Cover")
    needed = base + _SAVE_PENALTY.get(formation, 0) + int(artillery_short)
    return needed if needed <= 6 else None


# --------------------------------------------------------------------------------------------
# Movement (ACW-PD-19 .. PD-21)
# --------------------------------------------------------------------------------------------

# (normal, entire move on a road) allowances in inches (ACW-PD-19).
_MOVE: dict[tuple[UnitKind, Formation], tuple[float, float]] = {
    (UnitKind.INFANTRY, Formation.LINE): (6.0, 6.0),
    (UnitKind.INFANTRY, Formation.ASSAULT_COLUMN): (8.0, 8.0),
    (UnitKind.INFANTRY, Formation.ROAD_COLUMN): (10.0, 14.0),
    (UnitKind.INFANTRY, Formation.SKIRMISH): (9.0, 9.0),
    (UnitKind.CAVALRY, Formation.MOUNTED_LINE): (12.0, 12.0),
    (UnitKind.CAVALRY, Formation.LINE): (12.0, 12.0),
    (UnitKind.CAVALRY, Formation.ROAD_COLUMN): (12.0, 16.0),
    (UnitKind.CAVALRY, Formation.SKIRMISH): (12.0, 16.0),
    (UnitKind.ARTILLERY, Formation.LIMBERED): (8.0, 12.0),
    (UnitKind.ARTILLERY, Formation.ROAD_COLUMN): (8.0, 12.0),
    (UnitKind.ARTILLERY, Formation.UNLIMBERED): (0.0, 0.0),
}


def movement_allowance(
    kind: UnitKind,
    formation: Formation,
    *,
    on_road: bool = False,
    disordered: bool = False,
    skirmish: bool = False,
    cavalry_screen: bool = False,
) -> float:
    """Movement allowance in inches for one Phase 2 activation (ACW-PD-19).

    Infantry: Line 6, Assault Column 8, Road Column 10 (14 if the entire move is on a road),
    skirmish stand 9. Cavalry: mounted line 12; Road Column or screen 12 (16 on a road). Artillery:
    limbered 8 (12 on a road); unlimbered 0.0 (it may only pivot in place, up to 45°).
    ``skirmish`` (infantry) / ``cavalry_screen`` (cavalry) select the detached-stand rows whatever
    the formation. A Disordered unit moves at half rate (ACW-PD-31, RULE-04-3.5).
    Raises ParameterError for a kind/formation pair that cannot exist (e.g. unlimbered infantry).
    """
    if skirmish or cavalry_screen:
        formation = Formation.SKIRMISH
    try:
        normal, road = _MOVE[(kind, formation)]
    except KeyError:
        raise _bad("(kind, formation)", (kind, formation),
                   "a legal pair of ACW-PD-19 (e.g. infantry/line, cavalry/mounted_line, "
                   "artillery/limbered)") from None
    allowance = road if on_road else normal
    return allowance * 0.5 if disordered else allowance


_CAN_CHARGE = frozenset({
    (UnitKind.INFANTRY, Formation.LINE),
    (UnitKind.INFANTRY, Formation.ASSAULT_COLUMN),
    (UnitKind.CAVALRY, Formation.MOUNTED_LINE),
    (UnitKind.CAVALRY, Formation.LINE),
})


def can_charge(kind: UnitKind, formation: Formation) -> bool:
    """Whether a unit of this kind and formation may declare a charge (ACW-PD-19, ACW-PD-23):
    infantry in Line or Assault Column, or mounted cavalry in line. Road Column, skirmish stands,
    screens and artillery never charge. (Good order, pips and range are the caller's checks.)"""
    return (kind, formation) in _CAN_CHARGE


def wheel_cost(frontage: float, angle_rad: float) -> float:
    """Movement cost in inches of a wheel: the outer front corner's arc, ``frontage * |angle|``
    (ACW-PD-21.2). A 5" line wheeling 45° pays 3.93". Raises ParameterError if frontage < 0."""
    if frontage < 0.0:
        raise _bad("frontage", frontage, "a frontage in inches >= 0")
    return frontage * abs(angle_rad)


def formation_change_cost(experience: Experience, allowance: float) -> float:
    """Movement cost in inches of a formation change: half the allowance, the whole allowance
    for Green units (ACW-PD-21.5, ACW-PD-7). Raises ParameterError for an unknown experience or
    a negative allowance."""
    if allowance < 0.0:
        raise _bad("allowance", allowance, "an allowance in inches >= 0")
    if experience is Experience.GREEN:
        return allowance
    if experience is Experience.VETERAN or experience is Experience.REGULAR:
        return allowance * 0.5
    return formation_change_cost(_as_experience(experience), allowance)


def _as_experience(value: object) -> Experience:
    try:
        return Experience(value)
    except ValueError:
        raise _bad("experience", value, "an Experience") from None


# --------------------------------------------------------------------------------------------
# Morale and rally (ACW-PD-27, ACW-PD-15)
# --------------------------------------------------------------------------------------------

_HEALTH_MOD = {Health.FRESH: 0, Health.WORN: -1, Health.SPENT: -2}


def _health_mod(health: Health) -> int:
    try:
        return _HEALTH_MOD[health]
    except KeyError:
        raise _bad("health", health, "Fresh, Worn or Spent (a Broken unit takes no test)") from None


def morale_modifier(health: Health, in_heavy_cover: bool) -> int:
    """Modifier to the End-phase Morale Test roll: Worn -1, Spent -2, in heavy cover +1
    (ACW-PD-27). The roll is then checked with ``combat.check_passes`` against the Discipline
    target. Raises ParameterError for Broken or an unknown health."""
    return _health_mod(health) + int(in_heavy_cover)


def rally_modifier(health: Health, enemy_threat_within_6: bool) -> int:
    """Modifier to the Phase 1 Rally Check: Worn -1, Spent -2, and -1 if an enemy unit in good
    order within 6" has the unit in its forward arc (ACW-PD-15). Raises ParameterError for
    Broken or an unknown health."""
    return _health_mod(health) - int(enemy_threat_within_6)
