"""Game parameters, weapons, equipment and the scenario schema of the skirmish alert ruleset.

Every proposed default of ``shared/research/alert_skirmish.md`` that a researcher may vary is a
field of :class:`AlertParams` (RULINGS, skirmish section: each default a named parameter, part
of the game's identity). Scenarios are TOML files validated with pydantic; every problem
becomes a :class:`~envs.core.errors.ScenarioError` naming the file, the key and the problem,
including the checks pydantic cannot do (two fighters on one square, a fighter on a blocking
square, a square off the board, a lever controlling something that is not a door).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Union

import pydantic

from envs.core.errors import ScenarioError
from envs.core.scenario import read_toml, resolve_scenario_path, validate_scenario

SCENARIO_DIR = Path(__file__).parent / "scenarios"

#: the eight facings, clockwise from north; ``(dx, dy)`` with ``y`` growing northwards
DIRECTIONS: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
VECTORS: tuple[tuple[int, int], ...] = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1),
                                        (-1, 0), (-1, 1))

#: actions that may be named in ``non_triggering_actions`` (Q8)
ACTION_KINDS: tuple[str, ...] = ("move", "charge", "melee", "shoot", "disengage", "pivot",
                                 "stand_up", "activate", "repair", "sabotage", "use", "alert",
                                 "keep_alert", "pass")


class AlertParams(pydantic.BaseModel):
    """Game parameters (strict types, unknown keys refused).

    Attributes:
        max_fighters_per_team: fighter slots per team, padded (fixes the action catalogue and
            observation shape of a team count).
        max_elements: element slots (doors, levers, objectives, machines), padded.
        max_board: the observation's terrain grid is ``max_board`` x ``max_board`` squares.
        rounds: rounds to play; ``None`` takes the scenario's ``rounds``.
        track_size: initiative positions with their own difficulty (AL-PD-5; beyond it the
            last band applies).
        difficulty_mode: ``"absolute"`` — the difficulty is read from the acting opponent's
            position alone (AL-8, AL-10, AL-PD-8) — or ``"relative"`` — 10, or 12 / 8 when the
            reactor is 3 or more positions behind / ahead of the opponent (research §2 Q2).
        reaction_timing: ``"after_declaration"`` (AL-PD-20: the window opens once the action is
            declared and paid; the action resolves afterwards) or ``"before_effect"`` (the
            movement part of a Move or Charge is made first, the window opens before the
            attack roll).
        non_triggering_actions: declared actions that open no window (Q8).
        reaction_action_costs_ap: the reaction's own action costs 1 AP (Q4; default free).
        rearm_after_failure: a failed test may still be followed by a re-arm (Q5).
        maintain_ends_turn: keeping alert at the start of a turn ends that turn (Q6).
        maintain_timing: when an alert fighter keeps or drops its alert (AL-27, research Q7):
            ``"own_activation"`` (PD-11: at the start of its own turn, 1 AP of the refilled
            AP) or ``"round_start"`` (once the round's initiative track is placed, every
            fighter on alert, in track order, keeps it for 1 AP taken from the AP of its coming
            turn or drops it; a kept fighter's turn, still on alert, ends at once when
            ``maintain_ends_turn``; nothing is asked at its own turn).
        reaction_requires_los: the reactor needs line of sight to the acting fighter (Q9).
        natural_extremes: a double 6 always passes an aptitude test, a double 1 always fails
            (AL-PD-2).
        modifier_cap: the largest total bonus from modifiers on one test (AL-PD-3).
        knockdown_margin: a hit that beats its target number by this much knocks down
            (AL-PD-23).
        attack_base: the target number of attacks before the target's DEF (AL-PD-21, PD-24).
        machine_difficulty: default difficulty of repair and sabotage tests (AL-PD-30).
        allow_shoot_into_melee: shooting at an enemy engaged with a friend is allowed
            (AL-PD-25).
        equipment_blocked_when_engaged: equipment cannot be used while engaged in the
            fighter's own turn (AL-PD-15, extending AL-16f). A reaction never uses equipment
            while engaged (AL-16f), whatever this parameter.
        max_decisions: decision cap (chance outcomes are not counted); the decision that
            reaches it ends the game, scored on VP as they stand (``None``: no cap; the envs
            then truncate at ``max_game_length``).
    """

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)

    max_fighters_per_team: int = pydantic.Field(4, ge=1, le=6)
    max_elements: int = pydantic.Field(8, ge=0, le=16)
    max_board: int = pydantic.Field(16, ge=4, le=32)
    rounds: int | None = pydantic.Field(None, ge=1, le=30)
    track_size: int = pydantic.Field(8, ge=2, le=24)
    difficulty_mode: Literal["absolute", "relative"] = "absolute"
    reaction_timing: Literal["after_declaration", "before_effect"] = "after_declaration"
    non_triggering_actions: tuple[str, ...] = ("pass", "alert", "keep_alert")
    reaction_action_costs_ap: bool = False
    rearm_after_failure: bool = False
    maintain_ends_turn: bool = True
    maintain_timing: Literal["own_activation", "round_start"] = "own_activation"
    reaction_requires_los: bool = False
    natural_extremes: bool = False
    modifier_cap: int = pydantic.Field(4, ge=0, le=8)
    knockdown_margin: int = pydantic.Field(3, ge=1, le=12)
    attack_base: int = pydantic.Field(7, ge=2, le=12)
    machine_difficulty: int = pydantic.Field(8, ge=2, le=14)
    allow_shoot_into_melee: bool = True
    equipment_blocked_when_engaged: bool = True
    max_decisions: int | None = pydantic.Field(None, ge=10, le=1_000_000)

    @pydantic.field_validator("non_triggering_actions", mode="before")
    @classmethod
    def _kinds(cls, value):
        if isinstance(value, list):
            value = tuple(value)
        if not isinstance(value, tuple) or not all(isinstance(k, str) for k in value):
            raise ValueError("must be a list of action kinds")
        bad = [k for k in value if k not in ACTION_KINDS]
        if bad:
            raise ValueError(f"unknown action kind(s) {bad} (known: {list(ACTION_KINDS)})")
        return value


# -- weapons and equipment (AL-PD-4, AL-PD-31) -----------------------------------------------
class MeleeWeapon(pydantic.BaseModel):
    """A melee weapon (AL-PD-22, AL-PD-23): damage ``dmg`` and whether it knocks down on any
    hit (``impact``); in a scenario, ``melee_weapon = { dmg = 2, impact = true }``."""

    model_config = pydantic.ConfigDict(frozen=True, extra="forbid", strict=True)
    dmg: int = pydantic.Field(ge=1, le=4)
    impact: bool = False  #: knocks down on any hit (AL-PD-23)

    def key(self) -> str:
        """The weapon's name in a game's table when a scenario gives it by its numbers."""
        return f"melee(dmg={self.dmg}{', impact' if self.impact else ''})"


class RangedWeapon(pydantic.BaseModel):
    """A ranged weapon (AL-PD-24): ``range`` in squares and damage ``dmg``; in a scenario,
    ``ranged_weapon = { range = 9, dmg = 2 }``."""

    model_config = pydantic.ConfigDict(frozen=True, extra="forbid", strict=True)
    range: int = pydantic.Field(ge=1, le=16)
    dmg: int = pydantic.Field(ge=1, le=4)

    def key(self) -> str:
        """The weapon's name in a game's table when a scenario gives it by its numbers."""
        return f"ranged(range={self.range}, dmg={self.dmg})"


def _weapon_form(value: object) -> str:
    return "stats" if isinstance(value, dict) else "name"


#: a scenario's weapon: a built-in name, or a table of its numbers
MeleeWeaponSpec = Annotated[Union[Annotated[str, pydantic.Tag("name")],
                                  Annotated[MeleeWeapon, pydantic.Tag("stats")]],
                            pydantic.Discriminator(_weapon_form)]
RangedWeaponSpec = Annotated[Union[Annotated[str, pydantic.Tag("name")],
                                   Annotated[RangedWeapon, pydantic.Tag("stats")]],
                             pydantic.Discriminator(_weapon_form)]


MELEE_WEAPONS: dict[str, MeleeWeapon] = {
    "fists": MeleeWeapon(dmg=1), "knife": MeleeWeapon(dmg=1), "blade": MeleeWeapon(dmg=2),
    "axe": MeleeWeapon(dmg=3), "hammer": MeleeWeapon(dmg=2, impact=True),
    "maul": MeleeWeapon(dmg=3, impact=True),
}
RANGED_WEAPONS: dict[str, RangedWeapon] = {
    "pistol": RangedWeapon(range=6, dmg=1), "crossbow": RangedWeapon(range=8, dmg=2),
    "rifle": RangedWeapon(range=10, dmg=2),
}
#: equipment items and their uses (``None``: passive); AL-PD-31
EQUIPMENT_USES: dict[str, int | None] = {"draught": 1, "smoke": 1, "grapnel": 2, "shield": None}
#: items with a ``use:`` action, in catalogue order
USABLE_ITEMS: tuple[str, ...] = ("draught", "smoke", "grapnel")

ELEMENT_KINDS: tuple[str, ...] = ("door", "lever", "objective", "machine")


# -- scenario schema -------------------------------------------------------------------------
class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)


class FighterSpec(_Strict):
    """One fighter (AL-PD-4 profile; ranges as in research §3.2)."""

    team: int = pydantic.Field(ge=0, le=3)
    name: str = pydantic.Field(min_length=1, max_length=40)
    x: int
    y: int
    facing: Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"] = "N"
    ap: int = pydantic.Field(3, ge=1, le=4)
    mov: int = pydantic.Field(4, ge=1, le=6)
    ini: int = pydantic.Field(0, ge=0, le=3)
    ref: int = pydantic.Field(1, ge=0, le=4)
    mel: int = pydantic.Field(1, ge=0, le=4)
    sho: int = pydantic.Field(1, ge=0, le=4)
    tec: int = pydantic.Field(1, ge=0, le=4)
    defence: int = pydantic.Field(1, ge=0, le=3, alias="def")
    arm: int = pydantic.Field(0, ge=0, le=2)
    w: int = pydantic.Field(4, ge=3, le=6)
    melee_weapon: MeleeWeaponSpec = "fists"
    ranged_weapon: RangedWeaponSpec | None = None
    equipment: list[str] = pydantic.Field(default_factory=list, max_length=2)
    on_alert: bool = False  #: starts the game on alert (kept from an earlier turn, AL-PD-13)
    #: AP held when the game starts (AL-PD-14: what an alert fighter has left to re-arm or,
    #: with ``reaction_action_costs_ap``, to react); at most ``ap``. Refilled at its own turn.
    ap_left: int = pydantic.Field(0, ge=0, le=4)
    knocked_down: bool = False  #: starts knocked down (AL-PD-26; not with on_alert, AL-PD-29)
    wounds_taken: int = pydantic.Field(0, ge=0, le=5)  #: wounds already lost (AL-PD-22)

    @pydantic.field_validator("melee_weapon")
    @classmethod
    def _melee(cls, value: str | MeleeWeapon) -> str | MeleeWeapon:
        if isinstance(value, str) and value not in MELEE_WEAPONS:
            raise ValueError(f"unknown melee weapon {value!r} (known: {sorted(MELEE_WEAPONS)}, or "
                             f"a table {{ dmg = 1..4, impact = true/false }})")
        return value

    @pydantic.field_validator("ranged_weapon")
    @classmethod
    def _ranged(cls, value: str | RangedWeapon | None) -> str | RangedWeapon | None:
        if isinstance(value, str) and value not in RANGED_WEAPONS:
            raise ValueError(f"unknown ranged weapon {value!r} (known: {sorted(RANGED_WEAPONS)}, "
                             f"or a table {{ range = 1..16, dmg = 1..4 }})")
        return value

    def melee(self) -> tuple[str, MeleeWeapon]:
        """``(name in the game's table, weapon)`` of the melee weapon."""
        weapon = self.melee_weapon
        if isinstance(weapon, str):
            return weapon, MELEE_WEAPONS[weapon]
        return weapon.key(), weapon

    def ranged(self) -> tuple[str, RangedWeapon] | None:
        """``(name in the game's table, weapon)`` of the ranged weapon, or ``None``."""
        weapon = self.ranged_weapon
        if weapon is None:
            return None
        if isinstance(weapon, str):
            return weapon, RANGED_WEAPONS[weapon]
        return weapon.key(), weapon

    @pydantic.field_validator("equipment")
    @classmethod
    def _items(cls, value: list[str]) -> list[str]:
        bad = [i for i in value if i not in EQUIPMENT_USES]
        if bad:
            raise ValueError(f"unknown equipment {bad} (known: {sorted(EQUIPMENT_USES)})")
        if len(set(value)) != len(value):
            raise ValueError("an item is listed twice")
        return value


class ElementSpec(_Strict):
    """A game element (AL-PD-30): a door (``open``/``closed``), a lever (``on``/``off``, may
    ``control`` a door by element index), an objective, or a machine (``working``/``broken``,
    owned by a team, with a repair/sabotage ``difficulty``)."""

    kind: Literal["door", "lever", "objective", "machine"]
    x: int
    y: int
    state: str | None = None
    controls: int | None = None
    owner: int | None = pydantic.Field(None, ge=0, le=3)
    difficulty: int | None = pydantic.Field(None, ge=2, le=14)


class Scoring(_Strict):
    """Victory points at the end: per own fighter still in play, per objective held, per
    machine the team owns that is working or that the team broke (AL-PD: ours)."""

    fighter_vp: int = pydantic.Field(1, ge=0, le=10)
    objective_vp: int = pydantic.Field(2, ge=0, le=10)
    machine_vp: int = pydantic.Field(2, ge=0, le=10)


class Board(_Strict):
    width: int = pydantic.Field(ge=4, le=32)
    height: int = pydantic.Field(ge=4, le=32)


Square = Annotated[list[int], pydantic.Field(min_length=2, max_length=2)]


class ScenarioSpec(_Strict):
    name: str = ""
    description: str = ""
    teams: list[str] = pydantic.Field(min_length=2, max_length=4)
    rounds: int = pydantic.Field(6, ge=1, le=30)
    board: Board
    blocking: list[Square] = pydantic.Field(default_factory=list)
    difficult: list[Square] = pydantic.Field(default_factory=list)
    fighters: list[FighterSpec] = pydantic.Field(min_length=2)
    elements: list[ElementSpec] = pydantic.Field(default_factory=list)
    scoring: Scoring = Scoring()


_DEFAULT_STATE = {"door": "closed", "lever": "off", "objective": None, "machine": "working"}
_STATES = {"door": ("open", "closed"), "lever": ("on", "off"), "objective": (None,),
           "machine": ("working", "broken")}


def _check(spec: ScenarioSpec, source: str, params: AlertParams) -> ScenarioSpec:
    def fail(key: str, msg: str) -> ScenarioError:
        return ScenarioError(f"{source}: {key}: {msg}")

    width, height = spec.board.width, spec.board.height
    if max(width, height) > params.max_board:
        raise fail("board", f"{width}x{height} is larger than max_board={params.max_board}")
    team_count = len(spec.teams)

    def on_board(key: str, x: int, y: int) -> None:
        if not (0 <= x < width and 0 <= y < height):
            raise fail(key, f"square ({x}, {y}) is off the {width}x{height} board")

    blocking = set()
    for index, (x, y) in enumerate(spec.blocking):
        on_board(f"blocking[{index}]", x, y)
        blocking.add((x, y))
    for index, (x, y) in enumerate(spec.difficult):
        on_board(f"difficult[{index}]", x, y)
    if len(spec.elements) > params.max_elements:
        raise fail("elements", f"{len(spec.elements)} elements for max_elements="
                               f"{params.max_elements} slots")
    occupied: dict[tuple[int, int], str] = {}
    for index, element in enumerate(spec.elements):
        key = f"elements[{index}]"
        on_board(key, element.x, element.y)
        if (element.x, element.y) in blocking:
            raise fail(key, f"element on the blocking square ({element.x}, {element.y})")
        if (element.x, element.y) in occupied:
            raise fail(key, f"square ({element.x}, {element.y}) already holds "
                            f"{occupied[(element.x, element.y)]}")
        occupied[(element.x, element.y)] = key
        if element.state is None:
            element.state = _DEFAULT_STATE[element.kind]
        if element.state not in _STATES[element.kind]:
            raise fail(f"{key}.state", f"{element.state!r} is not a state of a {element.kind} "
                                       f"({[s for s in _STATES[element.kind] if s]})")
        if element.kind == "lever" and element.controls is not None:
            if not 0 <= element.controls < len(spec.elements) or \
                    spec.elements[element.controls].kind != "door":
                raise fail(f"{key}.controls", f"{element.controls} is not the index of a door")
        elif element.controls is not None:
            raise fail(f"{key}.controls", f"only a lever controls a door, not a {element.kind}")
        if element.kind == "machine":
            if element.owner is None:
                raise fail(f"{key}.owner", "a machine needs an owner team")
            if element.owner >= team_count:
                raise fail(f"{key}.owner", f"team {element.owner} does not exist "
                                           f"({team_count} teams)")
            if element.difficulty is None:
                element.difficulty = params.machine_difficulty
    per_team = [0] * team_count
    squares: dict[tuple[int, int], str] = {}
    for index, fighter in enumerate(spec.fighters):
        key = f"fighters[{index}]"
        if fighter.team >= team_count:
            raise fail(f"{key}.team", f"team {fighter.team} does not exist ({team_count} teams: "
                                      f"{spec.teams})")
        per_team[fighter.team] += 1
        on_board(key, fighter.x, fighter.y)
        if (fighter.x, fighter.y) in blocking:
            raise fail(key, f"{fighter.name} stands on the blocking square "
                            f"({fighter.x}, {fighter.y})")
        if (fighter.x, fighter.y) in squares:
            raise fail(key, f"{fighter.name} and {squares[(fighter.x, fighter.y)]} stand on the "
                            f"same square ({fighter.x}, {fighter.y})")
        if fighter.ap_left > fighter.ap:
            raise fail(f"{key}.ap_left", f"{fighter.name} cannot hold {fighter.ap_left} AP: its "
                                         f"profile has ap = {fighter.ap}")
        if fighter.wounds_taken >= fighter.w:
            raise fail(f"{key}.wounds_taken", f"{fighter.name} would start out of action: "
                                              f"{fighter.wounds_taken} wounds taken of "
                                              f"w = {fighter.w}")
        if fighter.knocked_down and fighter.on_alert:
            raise fail(f"{key}.knocked_down", f"{fighter.name} cannot start both knocked down "
                                              f"and on alert (AL-PD-29: a knocked-down fighter "
                                              f"loses its alert)")
        element_key = occupied.get((fighter.x, fighter.y))
        if element_key is not None:
            element = spec.elements[int(element_key[9:-1])]
            if element.kind in ("lever", "machine") or \
                    (element.kind == "door" and element.state == "closed"):
                raise fail(key, f"{fighter.name} stands on the {element.kind} of {element_key}")
        squares[(fighter.x, fighter.y)] = fighter.name
    for team, count in enumerate(per_team):
        if count == 0:
            raise fail("fighters", f"team {team} ({spec.teams[team]}) has no fighter")
        if count > params.max_fighters_per_team:
            raise fail("fighters", f"team {team} ({spec.teams[team]}) has {count} fighters for "
                                   f"max_fighters_per_team={params.max_fighters_per_team}")
    return spec


def load_scenario(scenario: str | Path | None, params: AlertParams) -> tuple[str, ScenarioSpec]:
    """Read and validate a scenario (built-in name, TOML path, or ``None`` for ``default``).

    Returns:
        ``(name, spec)``: the scenario's name (the built-in name or the file's stem) and the
        validated spec (element states and machine difficulties filled in).

    Raises:
        ScenarioError: naming the file, the key and the problem (a team count outside 2–4, two
            fighters on one square, a fighter on a blocking square, an unknown weapon, a profile
            value outside its range, ...).
    """
    path = resolve_scenario_path("default" if scenario is None else scenario, SCENARIO_DIR)
    data = read_toml(path)
    if isinstance(data.get("teams"), list) and not 2 <= len(data["teams"]) <= 4:
        raise ScenarioError(f"{path}: teams: {len(data['teams'])} teams; the game is for 2 to "
                            f"4 teams")
    spec = validate_scenario(ScenarioSpec, data, str(path))
    spec = _check(spec, str(path), params)
    return ("default" if scenario is None else str(scenario)), spec
