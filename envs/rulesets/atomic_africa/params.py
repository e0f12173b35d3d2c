"""Parameters (the AA-G1 … AA-G25 defaults of ``atomic_africa.md`` §18, each a named field)
and scenario files of Atomic Africa, validated on load (errors name the file, key, problem)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pydantic

from envs.core.errors import ScenarioError
from envs.core.scenario import read_toml, resolve_scenario_path, validate_scenario

from .cards import CARD_ID, CARD_NAMES, STANDARD_DECK

SCENARIO_DIR = Path(__file__).parent / "scenarios"

Die = Literal[4, 6, 8, 10, 12]


class AAParams(pydantic.BaseModel):
    """Game parameters; the defaults are the gap fills AA-G1 … AA-G25 (RULINGS: binding)."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    #: unit slots per side (all scenarios share one action space and observation shape)
    max_units_per_side: int = pydantic.Field(8, ge=2, le=12)
    #: AA-G23: game turns (``None``: the scenario's)
    turns: int | None = pydantic.Field(None, ge=1, le=30)
    #: AA-G4: cards drawn per non-attached unit in the Orders Phase
    cards_per_unit: int = pydantic.Field(1, ge=0, le=4)
    #: AA-G4: add the Experience bonus (green 0 / regular 1 / veteran 2 / elite 3)
    experience_draw_bonus: bool = True
    #: AA-G5: a Joker may be the card given to an orderless reactor (AA-R4); the change loop
    #: offers every Reserve card whatever this says (AA-D4, AA-G13)
    joker_eligible_from_reserve: bool = False
    #: AA-G8: centimetres per increment for infantry and vehicles (seed Pt 12)
    infantry_increment_cm: float = pydantic.Field(4.5, gt=0)
    vehicle_increment_cm: float = pydantic.Field(9.0, gt=0)
    #: AA-G14: upper edges of the range bands (cm) and their thresholds; beyond: the last
    range_bands_cm: list[float] = pydantic.Field(default_factory=lambda: [15.0, 30.0, 60.0],
                                                 min_length=3, max_length=3)
    range_thresholds: list[int] = pydantic.Field(default_factory=lambda: [2, 4, 6, 8],
                                                 min_length=4, max_length=4)
    #: AA-G14: figures per +1 to the Attack score
    figures_per_attack_point: int = pydantic.Field(3, ge=1)
    #: AA-G14: cover added to the infantry damage threshold (soft terrain / hard terrain)
    cover_soft: int = pydantic.Field(2, ge=0)
    cover_hard: int = pydantic.Field(4, ge=0)
    #: AA-G15: suppression markers from which a unit may not move
    suppressed_no_move: int = pydantic.Field(3, ge=1)
    #: AA-G16: Morale roll that removes 1 marker, and 2 markers
    rally_one: int = pydantic.Field(4, ge=1)
    rally_two: int = pydantic.Field(8, ge=1)
    #: AA-G22: damage-threshold bonus of a Crouched / Prone target
    crouched_bonus: int = pydantic.Field(1, ge=0)
    prone_bonus: int = pydantic.Field(2, ge=0)
    #: AA-G24 / C3: minimum figures of a unit (a unit of fewer than twice this cannot split)
    min_unit_figures: int = pydantic.Field(3, ge=1)
    #: C4: offer voluntary splits in the Clean-Up Phase
    voluntary_splits: bool = True
    #: AA-G23: points per destroyed enemy unit and per objective held at the end
    destroyed_points: int = pydantic.Field(1, ge=0)
    objective_points: int = pydantic.Field(1, ge=0)
    objective_radius_cm: float = pydantic.Field(9.0, gt=0)
    #: engine cap on decisions (truncation)
    max_decisions: int = pydantic.Field(2000, ge=10)


class TableSpec(pydantic.BaseModel):
    """The table in cm: at most 400 cm a side (the largest tables played are about 370 cm)."""

    model_config = pydantic.ConfigDict(extra="forbid")
    width: float = pydantic.Field(gt=0, le=400)
    depth: float = pydantic.Field(gt=0, le=400)


class TerrainSpec(pydantic.BaseModel):
    """A terrain area: ``soft`` (woods, scrub) or ``hard`` (buildings, rocks) cover; both
    block line of sight when ``blocks_los`` (AA-G9)."""

    model_config = pydantic.ConfigDict(extra="forbid")
    name: str = ""
    cover: Literal["soft", "hard"] = "soft"
    blocks_los: bool = True
    points: list[tuple[float, float]] = pydantic.Field(min_length=3)


class UnitSpec(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    side: Literal[0, 1]
    name: str = pydantic.Field(min_length=1)
    kind: Literal["infantry", "support", "vehicle"] = "infantry"
    #: on-board attached unit (seed Pt 12: needs orders, adds no card to the draw)
    attached: bool = False
    figures: int = pydantic.Field(ge=1, le=30)
    morale: Die = 8
    equipment: Die = 8
    #: vehicle defense (damage threshold = range threshold + defense, seed Pt 12)
    defense: int = pydantic.Field(0, ge=0)
    x: float
    y: float
    wounds: int = pydantic.Field(0, ge=0)
    suppression: int = pydantic.Field(0, ge=0)
    #: with ``[start]``: the unit's face-down order (a card name), or none
    order: str | None = None


class SideSpec(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str
    experience: Literal["green", "regular", "veteran", "elite"] = "regular"
    #: card name -> copies (AA-G1); ``None``: the standard 54-card deck
    deck: dict[str, int] | None = None
    deck_size: int | None = pydantic.Field(None, ge=1)
    #: with ``[start]``: the side's hidden Reserve (card names)
    reserve: list[str] = []
    #: with ``[start]``: the side's discard pile (card names, public)
    discard: list[str] = []
    #: the next cards drawn from the deck, top first (the rest of the deck is drawn at random)
    deck_order: list[str] = []


class StartSpec(pydantic.BaseModel):
    """A game that starts after the Orders Phase of turn ``turn``: each unit's face-down order
    (``[[units]] order``), each side's Reserve and discard pile are given; ``first_side``
    activates first (``None``: the AA-G7 contest is rolled)."""

    model_config = pydantic.ConfigDict(extra="forbid")
    turn: int = pydantic.Field(1, ge=1, le=30)
    first_side: Literal[0, 1] | None = None


class ObjectiveSpec(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str = ""
    x: float
    y: float


class ScenarioSpec(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str
    description: str = ""
    turns: int = pydantic.Field(6, ge=1, le=30)
    table: TableSpec
    sides: list[SideSpec] = pydantic.Field(min_length=2, max_length=2)
    terrain: list[TerrainSpec] = []
    objectives: list[ObjectiveSpec] = []
    units: list[UnitSpec] = pydantic.Field(min_length=2)
    #: the game starts after an Orders Phase (``None``: at the first turn's Orders Phase)
    start: StartSpec | None = None


@dataclass(frozen=True)
class Decks:
    """Each side's cards at the start, as card ids: ``deck`` (what is left to draw),
    ``deck_order`` (the next draws, top first, also in ``deck``), ``reserve``, ``discard`` and
    ``orders`` (unit index in the file's ``[[units]]`` -> card id)."""

    deck: list[list[int]]
    deck_order: list[list[int]]
    reserve: list[list[int]]
    discard: list[list[int]]
    orders: dict[int, int]


def _card_ids(path: Path, where: str, names: list[str]) -> list[int]:
    """Card names -> ids; an unknown name raises :class:`ScenarioError` naming ``where``."""
    ids = []
    for index, name in enumerate(names):
        if name not in CARD_ID:
            raise ScenarioError(f"{path}: {where}[{index}]: unknown card name {name!r} (cards: "
                                f"{', '.join(CARD_NAMES)})")
        ids.append(CARD_ID[name])
    return ids


def _side_cards(path: Path, spec: ScenarioSpec, index: int, orders: dict[int, int]
                ) -> tuple[list[int], list[int], list[int], list[int]]:
    """One side's deck left to draw, deck order, Reserve and discard pile (AA-G1, AA-G4,
    AA-G6), checked against its deck's copies of each card."""
    side = spec.sides[index]
    key = f"sides[{index}]"
    deck = dict(STANDARD_DECK) if side.deck is None else dict(side.deck)
    for name, copies in deck.items():
        if name not in CARD_NAMES:
            raise ScenarioError(f"{path}: {key}.deck: unknown card name {name!r} "
                                f"(cards: {', '.join(CARD_NAMES)})")
        if not isinstance(copies, int) or copies < 0:
            raise ScenarioError(f"{path}: {key}.deck.{name}: copies must be an "
                                f"integer >= 0, got {copies!r}")
    total = sum(deck.values())
    if side.deck_size is not None and total != side.deck_size:
        raise ScenarioError(f"{path}: {key}.deck: the counts add up to {total} cards "
                            f"but deck_size is {side.deck_size}")
    if total == 0:
        raise ScenarioError(f"{path}: {key}.deck: the deck has no cards")
    if spec.start is None:
        for field_name in ("reserve", "discard"):
            if getattr(side, field_name):
                raise ScenarioError(f"{path}: {key}.{field_name}: given without a [start] "
                                    f"table (only a game that starts after the Orders Phase "
                                    f"has a Reserve or a discard pile)")
    reserve = _card_ids(path, f"{key}.reserve", side.reserve)
    discard = _card_ids(path, f"{key}.discard", side.discard)
    deck_order = _card_ids(path, f"{key}.deck_order", side.deck_order)
    left = Counter({CARD_ID[name]: copies for name, copies in deck.items()})
    placed = Counter(reserve) + Counter(discard) + Counter(
        card for unit, card in orders.items() if spec.units[unit].side == index)
    for card, used in sorted(placed.items()):
        if used > left[card]:
            raise ScenarioError(f"{path}: {key}: the orders, reserve and discard use {used} "
                                f"{CARD_NAMES[card]} card(s) but the deck has {left[card]}")
    left -= placed
    for card, wanted in sorted(Counter(deck_order).items()):
        if wanted > left[card]:
            raise ScenarioError(f"{path}: {key}.deck_order: {wanted} {CARD_NAMES[card]} "
                                f"card(s) but only {left[card]} are left in the deck")
    return sorted(left.elements()), deck_order, reserve, discard


def load_scenario(scenario: str | Path | None, max_units: int) -> tuple[ScenarioSpec, Decks]:
    """Read and check a scenario: a built-in name, a TOML path or ``None`` (``default``).

    Returns:
        the spec and each side's cards (:class:`Decks`).

    Raises:
        ScenarioError: naming the file, the key and the problem: an unknown card name, a deck
            whose counts do not add up to ``deck_size``, orders, a Reserve or a discard pile
            without a ``[start]`` table or using more copies of a card than the deck has, a
            ``deck_order`` the deck cannot supply, a start turn after the last turn, a unit off
            the table, two units at the same position, more units than
            ``max_units_per_side``, a value of the wrong type.
    """
    path = resolve_scenario_path("default" if scenario is None else scenario, SCENARIO_DIR)
    spec = validate_scenario(ScenarioSpec, read_toml(path), str(path))
    width, depth = spec.table.width, spec.table.depth
    orders: dict[int, int] = {}
    for index, unit in enumerate(spec.units):
        if unit.order is None:
            continue
        if spec.start is None:
            raise ScenarioError(f"{path}: units[{index}] ({unit.name}).order: given without a "
                                f"[start] table (only a game that starts after the Orders "
                                f"Phase has face-down orders)")
        orders[index] = _card_ids(path, f"units[{index}] ({unit.name}).order", [unit.order])[0]
    if spec.start is not None and spec.start.turn > spec.turns:
        raise ScenarioError(f"{path}: start.turn: {spec.start.turn} is after the scenario's "
                            f"last turn ({spec.turns})")
    cards = [_side_cards(path, spec, side, orders) for side in range(len(spec.sides))]
    decks = Decks([deck for deck, _, _, _ in cards], [order for _, order, _, _ in cards],
                  [reserve for _, _, reserve, _ in cards],
                  [discard for _, _, _, discard in cards], orders)
    counts = [0, 0]
    placed: dict[tuple[float, float], int] = {}
    named: dict[tuple[int, str], int] = {}
    for index, unit in enumerate(spec.units):
        # names are how records, views and the action words tell a side's units apart
        first = named.setdefault((unit.side, unit.name), index)
        if first != index:
            raise ScenarioError(f"{path}: units[{index}] ({unit.name}).name: side {unit.side} "
                                f"already has a unit named {unit.name!r} (units[{first}]); "
                                f"names must differ within a side")
        if not (0 <= unit.x <= width and 0 <= unit.y <= depth):
            raise ScenarioError(f"{path}: units[{index}] ({unit.name}): position ({unit.x}, "
                                f"{unit.y}) cm is off the {width} x {depth} cm table")
        # a unit is a point on the table (its position): two units on one point would be one
        # target, one range and one line of sight for every shot; the setup never means that
        first = placed.setdefault((unit.x, unit.y), index)
        if first != index:
            raise ScenarioError(f"{path}: units[{index}] ({unit.name}): position ({unit.x}, "
                                f"{unit.y}) cm is already units[{first}] "
                                f"({spec.units[first].name})'s; two units may not stand on one "
                                f"point")
        counts[unit.side] += 1
    for side in (0, 1):
        if counts[side] > max_units:
            raise ScenarioError(f"{path}: units: side {side} has {counts[side]} units, more than "
                                f"max_units_per_side = {max_units}")
        if counts[side] == 0:
            raise ScenarioError(f"{path}: units: side {side} has no unit")
    for index, objective in enumerate(spec.objectives):
        if not (0 <= objective.x <= width and 0 <= objective.y <= depth):
            raise ScenarioError(f"{path}: objectives[{index}]: ({objective.x}, "
                                f"{objective.y}) cm is off the table")
    if len(spec.objectives) > 3:
        raise ScenarioError(f"{path}: objectives: at most 3, got {len(spec.objectives)}")
    return spec, decks


def describe_params() -> list[dict[str, Any]]:
    """The parameters as ``{"name", "default"}`` rows (for docs)."""
    return [{"name": name, "default": field.default}
            for name, field in AAParams.model_fields.items()]
