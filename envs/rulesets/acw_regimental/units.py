"""Units of the ACW regimental ruleset: one mutable, slotted record per regiment, battery,
skirmish stand or cavalry screen (ACW-PD-4, PD-6, PD-9, PD-30).

Positions are in inches on the table; a unit's :class:`~envs.core.geometry.Footprint` is the
single source of truth for where it stands (front-edge centre, heading in radians, frontage and
depth recomputed from its stands and formation, ACW-PD-2/PD-6/PD-16). Everything else is plain
ints, floats, bools and strings so that a unit is JSON-serialisable and cheap to copy.
"""

from __future__ import annotations

import math
from typing import Any

from envs.core.geometry import Footprint

from .tables import Experience, Formation, Health, UnitKind, Weapon, health_state, stand_size

#: (width, depth) in inches of one stand (ACW-PD-2), by kind value.
STAND = {k.value: stand_size(k) for k in UnitKind}

FORMED_FIRING = ("line", "assault_column", "unlimbered")


def footprint_size(kind: str, formation: str, stands: int) -> tuple[float, float]:
    """Frontage and depth (inches) of a unit of ``stands`` stands in ``formation`` (ACW-PD-6):
    Line / mounted line / unlimbered battery side by side; Assault Column 2 wide in ceil(S/2)
    ranks; Road Column and limbered battery 1 wide in file; a skirmish stand or screen 1 stand."""
    w, d = STAND[kind]
    s = max(1, stands)
    if formation in ("line", "mounted_line", "unlimbered", "skirmish"):
        return w * s, d
    if formation == "assault_column":
        if s == 1:
            return w, d
        return 2 * w, d * ((s + 1) // 2)
    return w, d * s  # road column, limbered


_new_unit_object = object.__new__


class Unit:
    """One unit on the table (ACW-PD-4).

    Attributes (all JSON-serialisable): ``side`` (0 Union, 1 Confederate), ``slot`` (index in
    its side's padded slot list), ``name``, ``kind``/``weapon``/``experience``/``formation``
    (enum values as ``str``), ``traits`` (tuple of str, e.g. ``"rebel_yell"``), ``fp`` (the
    footprint), ``starting_stands`` (including a detached stand), ``stands`` (stands in
    the body now), ``lost`` (stands lost so far, ACW-PD-9), ``hits`` (persistent hit counter,
    I-5), ``disordered``, ``smoke`` (player-turn index the Smoke Marker was placed, -1 = none,
    ACW-PD-32), ``smoke_own`` (placed by its own Phase 3 fire), ``engaged`` (enemy slots in
    contact, ACW-PD-23 step 7), ``refused`` / ``refused_n`` (refused flank "left"/"right" and
    stands, RULE-04-5.3), per-phase flags ``activated``, ``moved`` (allowance inches used),
    ``charged``, ``fired``, ``counter_charged``, ``momentum_lost``, ``downhill``,
    ``zone`` (contact zone of its charge), ``road_used``, ``limbered_now``, ``pivot_only``,
    ``out_of_smoke``, ``fought``, ``lost_turn`` (stands lost this player-turn), and the screen
    links ``parent`` / ``screen`` (slots, -1 = none), ``is_screen``, ``alive``, ``broken``.
    """

    __slots__ = ("side", "slot", "name", "kind", "weapon", "experience", "traits", "formation",
                 "fp", "starting_stands", "stands", "lost", "hits", "disordered", "smoke", "smoke_own",
                 "engaged", "refused", "refused_n", "activated", "moved", "charged", "fired",
                 "counter_charged", "momentum_lost", "downhill", "zone", "road_used", "limbered_now",
                 "pivot_only", "out_of_smoke", "fought", "lost_turn", "parent", "screen",
                 "is_screen", "alive", "broken")

    FIELDS = __slots__

    side: int
    slot: int
    name: str
    kind: str
    weapon: str
    experience: str
    traits: tuple[str, ...]
    formation: str
    fp: Footprint
    starting_stands: int
    stands: int
    lost: int
    hits: int
    disordered: bool
    smoke: int
    smoke_own: bool
    engaged: list[int]
    refused: str
    refused_n: int
    activated: bool
    moved: float
    charged: bool
    fired: bool
    counter_charged: bool
    momentum_lost: bool
    downhill: bool
    zone: str
    road_used: bool
    limbered_now: bool
    pivot_only: bool
    out_of_smoke: bool
    fought: bool
    lost_turn: int
    parent: int
    screen: int
    is_screen: bool
    alive: bool
    broken: bool

    def copy(self) -> "Unit":
        """An independent copy (the ``engaged`` list is copied; every other field is an
        immutable value or the immutable footprint, shared). Written out field by field: a
        state's ``clone`` copies every unit, and a loop of ``setattr`` over the slots costs
        three times as much (``tests/acw/test_engine.py`` checks that every slot is copied)."""
        new = _new_unit_object(Unit)
        new.side = self.side
        new.slot = self.slot
        new.name = self.name
        new.kind = self.kind
        new.weapon = self.weapon
        new.experience = self.experience
        new.traits = self.traits
        new.formation = self.formation
        new.fp = self.fp
        new.starting_stands = self.starting_stands
        new.stands = self.stands
        new.lost = self.lost
        new.hits = self.hits
        new.disordered = self.disordered
        new.smoke = self.smoke
        new.smoke_own = self.smoke_own
        new.engaged = self.engaged[:]
        new.refused = self.refused
        new.refused_n = self.refused_n
        new.activated = self.activated
        new.moved = self.moved
        new.charged = self.charged
        new.fired = self.fired
        new.counter_charged = self.counter_charged
        new.momentum_lost = self.momentum_lost
        new.downhill = self.downhill
        new.zone = self.zone
        new.road_used = self.road_used
        new.limbered_now = self.limbered_now
        new.pivot_only = self.pivot_only
        new.out_of_smoke = self.out_of_smoke
        new.fought = self.fought
        new.lost_turn = self.lost_turn
        new.parent = self.parent
        new.screen = self.screen
        new.is_screen = self.is_screen
        new.alive = self.alive
        new.broken = self.broken
        return new

    # -- derived ----------------------------------------------------------------------------
    @property
    def health(self) -> Health:
        """Fresh / Worn / Spent / Broken from stands lost (ACW-PD-9)."""
        if self.broken or not self.alive:
            return Health.BROKEN
        return health_state(self.starting_stands, min(self.lost, self.starting_stands))

    @property
    def formed(self) -> bool:
        """Formed units (ACW-PD-6): everything but skirmish stands and cavalry screens."""
        return not self.is_screen

    @property
    def good_order(self) -> bool:
        """Not Disordered and not Spent (I-22, ACW-PD-10)."""
        if self.disordered:
            return False
        return self.health not in (Health.SPENT, Health.BROKEN)

    def centre(self) -> tuple[float, float]:
        return self.fp.centre()

    def resize(self) -> None:
        """Recompute frontage/depth from stands and formation, keeping the front-edge centre."""
        w, d = footprint_size(self.kind, self.formation, self.stands)
        if w != self.fp.width or d != self.fp.depth:
            self.fp = self.fp.with_size(w, d)

    def label(self) -> str:
        return f"{self.name} ({'UC'[self.side]}{self.slot})"

    # -- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = {f: getattr(self, f) for f in Unit.__slots__ if f != "fp"}
        d["traits"] = list(self.traits)
        d["engaged"] = list(self.engaged)
        fp = self.fp
        d["fp"] = [fp.x, fp.y, fp.heading, fp.width, fp.depth]
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Unit":
        unit = cls.__new__(cls)
        for field in cls.__slots__:
            if field == "fp":
                x, y, h, w, depth = data["fp"]
                unit.fp = Footprint(float(x), float(y), float(h), float(w), float(depth))
            else:
                setattr(unit, field, data[field])
        unit.traits = tuple(data["traits"])
        unit.engaged = list(data["engaged"])
        return unit


def clear_turn_flags(unit: Unit) -> None:
    """Reset the per-player-turn flags (moved, charged, fired, reacted ...) of ``unit``
    (ACW-PD-12 step 5c)."""
    unit.activated = False
    unit.moved = 0.0
    unit.charged = False
    unit.fired = False
    unit.counter_charged = False
    unit.momentum_lost = False
    unit.downhill = False
    unit.zone = ""
    unit.road_used = False
    unit.limbered_now = False
    unit.pivot_only = True
    unit.out_of_smoke = False
    unit.fought = False
    unit.lost_turn = 0


def new_unit(side: int, slot: int, name: str, kind: str, weapon: str, experience: str,
             stands: int, formation: str, x: float, y: float, facing_deg: float,
             traits: tuple[str, ...] = (), is_screen: bool = False) -> Unit:
    """A fresh unit at front-edge centre ``(x, y)`` inches facing ``facing_deg`` degrees (CCW
    from the table's +x axis)."""
    unit = Unit.__new__(Unit)
    unit.side, unit.slot, unit.name = side, slot, name
    unit.kind, unit.weapon, unit.experience = kind, weapon, experience
    unit.traits = tuple(traits)
    unit.formation = formation
    w, d = footprint_size(kind, formation, stands)
    unit.fp = Footprint(float(x), float(y), math.radians(facing_deg), w, d)
    unit.starting_stands = stands
    unit.stands = stands
    unit.lost = 0
    unit.hits = 0
    unit.disordered = False
    unit.smoke = -1
    unit.smoke_own = False
    unit.engaged = []
    unit.refused = ""
    unit.refused_n = 0
    clear_turn_flags(unit)
    unit.parent = -1
    unit.screen = -1
    unit.is_screen = is_screen
    unit.alive = True
    unit.broken = False
    return unit


# enum lookups without Enum.__call__ in the hot path
UNIT_KIND_BY_VALUE = {k.value: k for k in UnitKind}
FORMATION_BY_VALUE = {f.value: f for f in Formation}
WEAPON_BY_VALUE = {w.value: w for w in Weapon}
EXPERIENCE_BY_VALUE = {e.value: e for e in Experience}
