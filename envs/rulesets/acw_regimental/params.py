"""Game parameters and the scenario schema of the ACW regimental ruleset.

Parameters (:class:`ACWParams`) are part of a game's identity (RULINGS: every default a
researcher may vary is a named parameter). Scenarios are TOML files validated with pydantic;
every problem becomes a :class:`~envs.core.errors.ScenarioError` naming the file, the key and
the problem (``envs.core.scenario.validate_scenario``), including checks pydantic cannot do
(a unit off the table, a kind/formation pair that cannot exist, too many units for the slots).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal

import pydantic

from envs.core.errors import ScenarioError
from envs.core.geometry import Footprint, interiors_overlap
from envs.core.scenario import read_toml, resolve_scenario_path, validate_scenario

from .units import footprint_size

SCENARIO_DIR = Path(__file__).parent / "scenarios"


class ACWParams(pydantic.BaseModel):
    """Game parameters (strict types, unknown keys refused; errors via ``validate_params``).

    Attributes:
        max_units_per_side: unit slots per side, padded (skirmish stands and screens use slots
            too); fixes the action catalogue and observation shape.
        pips_fixed: exactly 3 Staff Pips per turn instead of 1 + ceil(1D6/2) (ACW-PD-13).
        turns: game turns (ACW-PD-35).
        own_fire_blocks_reactions: Smoke from a unit's own Phase 3 fire lasts through the enemy's
            next player-turn (True, ACW-PD-32) or is removed at the end of its own turn (False).
        phase3_six_disorders_all_ranges: a natural 6 in Phase 3 Disorders at any range (PD-25).
        cavalry_charge_12: mounted cavalry may declare charges up to 12" (PD-19 variant).
        morale_cascade: units within 6" of a friend that Broke this player-turn also test (PD-27).
        shaped_reward: terminal returns are (own VP - enemy VP)/20 clipped to [-1, 1] instead of
            +1/0/-1 (ACW-PD-36 optional shaping).
        max_decisions: decision cap; reaching it ends the game, scored on VP.
        counter_charge_cost: reserved Staff Pips a Counter-Charge spends (RULE-04-6.3, I-2; the
            seed's 1). 0 makes it free; at most 2, the most a side may reserve (ACW-PD-14).
        opportunity_fire_trigger: the Medium Opportunity Fire trigger point, inches from the
            defender in its forward arc (RULE-04-3.1, I-18, ACW-PD-24; the seed's 8.0). From
            6.0 (the Short point, I-18, which it may not pass) to 12.0 (the widest Window A
            trigger, the Refuse-Flank range I-23, which bounds the trigger scan). The volley
            still needs the target in range (ACW-PD-25).
    """

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)

    max_units_per_side: int = pydantic.Field(8, ge=2, le=16)
    pips_fixed: bool = False
    turns: int = pydantic.Field(10, ge=1, le=50)
    own_fire_blocks_reactions: bool = True
    phase3_six_disorders_all_ranges: bool = False
    cavalry_charge_12: bool = False
    morale_cascade: bool = False
    shaped_reward: bool = False
    max_decisions: int = pydantic.Field(3000, ge=10, le=1_000_000)
    counter_charge_cost: int = pydantic.Field(1, ge=0, le=2)
    opportunity_fire_trigger: float = pydantic.Field(8.0, ge=6.0, le=12.0, allow_inf_nan=False)


# -- scenario schema ---------------------------------------------------------------------------
# Strict scalar types, as for the parameters: ``stands = "5"`` or ``disordered = "yes"`` is an
# error, not silently coerced; an int is accepted where a float is expected (``x = 10``).
# Coordinates, sizes and angles must be finite (``inf``/``nan`` are refused by the schema).
SInt = Annotated[int, pydantic.Strict()]
SBool = Annotated[bool, pydantic.Strict()]
FFloat = Annotated[float, pydantic.Strict(), pydantic.AllowInfNan(False)]
Pt = tuple[FFloat, FFloat]


class _Model(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class TableSpec(_Model):
    """The table in inches: at most 144" (12 feet) a side, the largest tables played."""

    width: FFloat = pydantic.Field(48.0, gt=0, le=144)
    depth: FFloat = pydantic.Field(36.0, gt=0, le=144)


class AreaSpec(_Model):
    """A woods/rough area: a polygon (list of [x, y]) or a rect [x0, y0, x1, y1] (inches)."""

    polygon: list[Pt] | None = None
    rect: tuple[FFloat, FFloat, FFloat, FFloat] | None = None
    name: str = ""

    @pydantic.model_validator(mode="after")
    def _one(self) -> "AreaSpec":
        if (self.polygon is None) == (self.rect is None):
            raise ValueError("give exactly one of 'polygon' or 'rect'")
        if self.polygon is not None and len(self.polygon) < 3:
            raise ValueError("a polygon needs at least 3 points")
        return self

    def points(self) -> list[Pt]:
        if self.polygon is not None:
            return [(x, y) for x, y in self.polygon]
        x0, y0, x1, y1 = self.rect  # type: ignore[misc]
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


class LineSpec(_Model):
    """A polyline (crest, fence, wall, road): at least two [x, y] points (inches)."""

    points: list[Pt] = pydantic.Field(min_length=2)
    name: str = ""


class TerrainSpec(_Model):
    woods: list[AreaSpec] = []
    rough: list[AreaSpec] = []
    crests: list[LineSpec] = []
    fences: list[LineSpec] = []
    walls: list[LineSpec] = []
    roads: list[LineSpec] = []


class ObjectiveSpec(_Model):
    x: FFloat
    y: FFloat
    name: str = ""


Kind = Literal["infantry", "cavalry", "artillery"]
FormationName = Literal["line", "assault_column", "road_column", "mounted_line", "unlimbered",
                        "limbered", "skirmish"]
WeaponName = Literal["smoothbore", "rifled_musket", "napoleon", "rifle_3in", "carbine"]
ExperienceName = Literal["veteran", "regular", "green"]
Trait = Literal["rebel_yell"]

LEGAL_FORMATIONS = {
    "infantry": ("line", "assault_column", "road_column", "skirmish"),
    "cavalry": ("mounted_line", "road_column", "skirmish"),
    "artillery": ("unlimbered", "limbered"),
}
DEFAULT_WEAPON = {"infantry": "rifled_musket", "cavalry": "carbine", "artillery": "napoleon"}
#: weapons a unit kind may carry (ACW-PD-5, tables.Weapon): small arms for infantry, the carbine
#: for cavalry, guns for artillery.
LEGAL_WEAPONS = {
    "infantry": ("smoothbore", "rifled_musket"),
    "cavalry": ("carbine",),
    "artillery": ("napoleon", "rifle_3in"),
}


class UnitSpec(_Model):
    """One unit: ``x, y`` is the front-edge centre (inches), ``facing_deg`` the facing in
    degrees counter-clockwise from the table's +x axis (90 = up the table). A unit with
    ``detached_from`` set is a skirmish stand / cavalry screen of the named regiment of its
    side (``stands = 1``); the parent's ``stands`` are those in its body, and its starting size
    S0 is ``stands + 1`` (ACW-PD-30)."""

    side: SInt = pydantic.Field(ge=0, le=1)
    name: str = pydantic.Field(min_length=1)
    kind: Kind
    weapon: WeaponName | None = None
    experience: ExperienceName = "regular"
    stands: SInt = pydantic.Field(ge=1, le=8)
    formation: FormationName
    x: FFloat
    y: FFloat
    facing_deg: FFloat
    traits: list[Trait] = []
    detached_from: str | None = None
    disordered: SBool = False
    hits: SInt = pydantic.Field(0, ge=0, le=1)


class StartSpec(_Model):
    """Optional starting-state overrides used by the worked examples: start in ``phase`` 1 or 2
    of game ``turn`` with ``active`` side to move, ``pips`` available to the active side (phase
    2 start) and ``reserved`` pips per side (ACW-PD-14)."""

    turn: SInt = pydantic.Field(1, ge=1)
    phase: SInt = pydantic.Field(1, ge=1, le=2)
    active: SInt | None = pydantic.Field(None, ge=0, le=1)
    pips: SInt = pydantic.Field(0, ge=0, le=6)
    reserved: tuple[Annotated[SInt, pydantic.Field(ge=0)],
                    Annotated[SInt, pydantic.Field(ge=0)]] = (0, 0)


class ScoringSpec(_Model):
    """How objectives score (the scenario's ``[scoring]`` table; ACW-PD-36 as the defaults).

    ``objective_vp``: VP per objective held (an objective is held by a side with a unit in good
    order within 3" of it and no enemy in good order within 3"); ``objectives_score``:
    ``"end"`` (held at the end of the game, ACW-PD-36), ``"each_turn"`` (the holder banks
    ``objective_vp`` at the end of every game turn, the last included) or
    ``"after_enemy_turn"`` (at the end of every player-turn, the side that did not move banks
    ``objective_vp`` per objective it still holds: each side banks once per game turn, each
    time after the enemy has had its move, so the side that moves second has no last word
    before the count); with either banking mode the banked VP are what objectives are worth
    at the end."""

    objective_vp: SInt = pydantic.Field(3, ge=0, le=20)
    objectives_score: Literal["end", "each_turn", "after_enemy_turn"] = "end"


class ScenarioSpec(_Model):
    name: str = ""
    description: str = ""
    table: TableSpec = TableSpec()
    #: the side that moves first in every game turn: 0 or 1, or ``"roll_off"`` (ACW-PD-11: both
    #: sides roll 1D6 before play, ties re-rolled, and the higher roller moves first; two chance
    #: nodes per roll at the start of the game)
    first_side: Annotated[SInt, pydantic.Field(ge=0, le=1)] | Literal["roll_off"] = 0
    terrain: TerrainSpec = TerrainSpec()
    objectives: list[ObjectiveSpec] = []
    units: list[UnitSpec] = pydantic.Field(min_length=2)
    start: StartSpec = StartSpec()
    scoring: ScoringSpec = ScoringSpec()
    #: the file the spec was read from (set by :func:`load_scenario`; for error messages)
    _source: str = pydantic.PrivateAttr("")

    @property
    def source(self) -> str:
        return self._source


def _distinct(points: list[Pt]) -> list[Pt]:
    out: list[Pt] = []
    for p in points:
        if all(abs(p[0] - q[0]) > 1e-9 or abs(p[1] - q[1]) > 1e-9 for q in out):
            out.append(p)
    return out


def _collinear(points: list[Pt]) -> bool:
    """Whether all ``points`` (at least 2 distinct) lie on one line (a zero-area polygon)."""
    (ax, ay), (bx, by) = points[0], points[1]
    scale = max(1.0, max(abs(c) for p in points for c in p))
    return all(abs((bx - ax) * (py - ay) - (by - ay) * (px - ax)) <= 1e-9 * scale * scale
               for px, py in points[2:])


def _clip_to_table(start: Pt, end: Pt, table_width: float,
                   table_depth: float) -> tuple[Pt, Pt] | None:
    """The part of segment ``start``-``end`` inside the closed table ``[0, table_width] x
    [0, table_depth]`` (inches; Liang-Barsky), or None when the segment misses it."""
    t0, t1 = 0.0, 1.0
    dx, dy = end[0] - start[0], end[1] - start[1]
    for pk, qk in ((-dx, start[0]), (dx, table_width - start[0]), (-dy, start[1]),
                   (dy, table_depth - start[1])):
        if pk == 0.0:
            if qk < 0.0:
                return None
            continue
        r = qk / pk
        if pk < 0.0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return None
    return ((start[0] + t0 * dx, start[1] + t0 * dy), (start[0] + t1 * dx, start[1] + t1 * dy))


def _strictly_inside(point: Pt, table_width: float, table_depth: float) -> bool:
    return 0.0 < point[0] < table_width and 0.0 < point[1] < table_depth


def _point_in_polygon(point: Pt, poly: list[Pt]) -> bool:
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > point[1]) != (y2 > point[1]):
            if point[0] < x1 + (point[1] - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
    return inside


def _area_on_table(poly: list[Pt], table_width: float, table_depth: float) -> bool:
    """Whether the area ``poly`` covers some of the interior of the table ``table_width`` x
    ``table_depth`` inches (touching an edge from outside does not count)."""
    if any(_strictly_inside(p, table_width, table_depth) for p in poly):
        return True
    n = len(poly)
    for i in range(n):
        seg = _clip_to_table(poly[i], poly[(i + 1) % n], table_width, table_depth)
        if seg is not None:
            mid = (0.5 * (seg[0][0] + seg[1][0]), 0.5 * (seg[0][1] + seg[1][1]))
            if _strictly_inside(mid, table_width, table_depth):
                return True
    # no vertex and no edge inside: the table is either wholly inside the area or wholly out
    return _point_in_polygon((0.5 * table_width, 0.5 * table_depth), poly)


def _line_on_table(points: list[Pt], table_width: float, table_depth: float) -> bool:
    """Whether the polyline ``points`` touches the (closed) table ``table_width`` x
    ``table_depth`` inches."""
    return any(_clip_to_table(points[i], points[i + 1], table_width, table_depth) is not None
               for i in range(len(points) - 1))


def _check_terrain(spec: "ScenarioSpec", src: str) -> None:
    w, d = spec.table.width, spec.table.depth
    tr = spec.terrain
    for group in ("woods", "rough"):
        for i, a in enumerate(getattr(tr, group)):
            key = f"{src}: terrain.{group}[{i}]" + (f" ({a.name})" if a.name else "")
            field = "polygon" if a.polygon is not None else "rect"
            pts = a.points()
            dist = _distinct(pts)
            if len(dist) < 3 or _collinear(dist):
                raise ScenarioError(f"{key}.{field}: degenerate area (needs at least 3 distinct "
                                    f"points, not all on one line)")
            if not _area_on_table(pts, w, d):
                raise ScenarioError(f"{key}.{field}: the area lies entirely off the table "
                                    f"({w} x {d} inches)")
    for group in ("crests", "fences", "walls", "roads"):
        for i, ln in enumerate(getattr(tr, group)):
            key = f"{src}: terrain.{group}[{i}]" + (f" ({ln.name})" if ln.name else "")
            pts = [tuple(p) for p in ln.points]
            if len(_distinct(pts)) < 2:
                raise ScenarioError(f"{key}.points: degenerate line (needs at least 2 distinct "
                                    f"points)")
            if not _line_on_table(pts, w, d):
                raise ScenarioError(f"{key}.points: the line lies entirely off the table "
                                    f"({w} x {d} inches)")


def check_start_turn(spec: "ScenarioSpec", turns: int, source: str) -> None:
    """Refuse a ``[start] turn`` after the last game turn (``turns`` parameter, ACW-PD-35).

    Raises:
        ScenarioError: naming ``source``, ``start.turn`` and the turn limit.
    """
    if spec.start.turn > turns:
        raise ScenarioError(f"{source}: start.turn: {spec.start.turn} is after the last game "
                            f"turn (turns = {turns})")


def load_scenario(scenario: str | Path | None, max_units: int,
                  turns: int | None = None) -> tuple[str, ScenarioSpec]:
    """Load and check a scenario: a built-in name, a TOML path, or None (``default``).

    ``turns`` (the game's turn limit), when given, also checks ``start.turn`` against it
    (:func:`check_start_turn`; ``ACWGame`` passes its ``turns`` parameter).

    Returns:
        (scenario name for the game config, validated spec).

    Raises:
        ScenarioError: naming the file, the key and the problem.
    """
    name = "default" if scenario is None else str(scenario)
    path = resolve_scenario_path(name, SCENARIO_DIR)
    data = read_toml(path)
    spec = validate_scenario(ScenarioSpec, data, str(path))
    src = str(path)
    per_side = [0, 0]
    names: set[tuple[int, str]] = set()
    fps: list[tuple[UnitSpec, Footprint]] = []
    _check_terrain(spec, src)
    for i, u in enumerate(spec.units):
        key = f"{src}: units[{i}] ({u.name})"
        if u.formation not in LEGAL_FORMATIONS[u.kind]:
            raise ScenarioError(f"{key}.formation: {u.formation!r} is not a formation of "
                                f"{u.kind} (allowed: {', '.join(LEGAL_FORMATIONS[u.kind])})")
        if (u.side, u.name) in names:
            raise ScenarioError(f"{key}.name: duplicate unit name on side {u.side}")
        names.add((u.side, u.name))
        if u.detached_from is not None:
            if u.stands != 1 or u.formation != "skirmish":
                raise ScenarioError(f"{key}.detached_from: a detached stand must have "
                                    f"stands = 1 and formation = 'skirmish'")
        elif u.formation == "skirmish":
            raise ScenarioError(f"{key}.formation: 'skirmish' needs detached_from (ACW-PD-30)")
        if u.weapon is not None and u.weapon not in LEGAL_WEAPONS[u.kind]:
            raise ScenarioError(f"{key}.weapon: {u.weapon!r} is not a weapon of {u.kind} "
                                f"(allowed: {', '.join(LEGAL_WEAPONS[u.kind])})")
        if "rebel_yell" in u.traits and (u.side != 1 or u.kind != "infantry"):
            raise ScenarioError(f"{key}.traits: rebel_yell is for Confederate infantry "
                                f"(side 1) only (ACW-PD-8)")
        w, d = footprint_size(u.kind, u.formation, u.stands)
        fp = Footprint(u.x, u.y, math.radians(u.facing_deg), w, d)
        for cx, cy in fp.corners():
            if not (-1e-6 <= cx <= spec.table.width + 1e-6
                    and -1e-6 <= cy <= spec.table.depth + 1e-6):
                raise ScenarioError(
                    f"{key}: unit is off the table (corner ({cx:.2f}, {cy:.2f}) outside "
                    f"{spec.table.width} x {spec.table.depth} inches)")
        for j, (v, fv) in enumerate(fps):
            if interiors_overlap(fp, fv):
                raise ScenarioError(
                    f"{key}: unit overlaps units[{j}] ({v.name}) at setup (footprints may touch, "
                    f"not overlap)")
        fps.append((u, fp))
        per_side[u.side] += 1
    for i, u in enumerate(spec.units):
        if u.detached_from is not None and (u.side, u.detached_from) not in names:
            raise ScenarioError(f"{src}: units[{i}] ({u.name}).detached_from: no unit named "
                                f"{u.detached_from!r} on side {u.side}")
    for s in (0, 1):
        if per_side[s] == 0:
            raise ScenarioError(f"{src}: units: side {s} has no units")
        if per_side[s] > max_units:
            raise ScenarioError(f"{src}: units: side {s} has {per_side[s]} units, more than "
                                f"max_units_per_side = {max_units}")
    for i, ob in enumerate(spec.objectives):
        if not (0 <= ob.x <= spec.table.width and 0 <= ob.y <= spec.table.depth):
            raise ScenarioError(f"{src}: objectives[{i}]: off the table")
    if spec.start.pips and spec.start.phase != 2:
        raise ScenarioError(f"{src}: start.pips: only meaningful with start.phase = 2")
    if turns is not None:
        check_start_turn(spec, turns, src)
    spec._source = src
    return (path.stem if path.parent == SCENARIO_DIR else str(path)), spec


def scenario_unit_weapon(unit: UnitSpec) -> str:
    return unit.weapon or DEFAULT_WEAPON[unit.kind]

