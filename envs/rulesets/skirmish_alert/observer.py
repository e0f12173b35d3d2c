"""The observer of the skirmish alert ruleset: one flat float32 vector per team, egocentric
(own fighter slots first, then each other team in seat order after it), built from the state's
public facts and the waiting decision's typed context (:class:`.procedures.AlertContext`).
Everything in this game is public, so no side's view holds anything another lacks except
its own ordering."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.observer import ObservationLayout, Piece

from .actions import DECISION_TYPES
from .params import ACTION_KINDS
from .procedures.context import AlertContext
from .reactions.aptitude import reaction_difficulty
from .queries import engaged, legal_scope

if TYPE_CHECKING:
    from .state import AlertState, Fighter

FIGHTER_FEATURES: tuple[str, ...] = (
    "present", "in_play", "x", "y", *(f"facing_{d}" for d in range(8)), "wounds", "w_max",
    "ap", "on_alert", "knocked_down", "engaged", "track_pos", "activated",
    "attempted_this_turn", "is_active", "ref", "mel", "sho", "tec", "def", "arm", "ini", "mov",
    "range", "ranged_dmg", "melee_dmg", "impact", "draught", "smoke", "grapnel", "shield",
    "grapnel_on", "reaction_difficulty")
ELEMENT_FEATURES: tuple[str, ...] = ("present", "x", "y", "door", "lever", "objective",
                                     "machine", "open_on_working", "held_own", "held_other",
                                     "owned_own", "broken_by_own")


def build_layout(team_count: int, fighters_per_team: int, max_elements: int,
                 max_board: int) -> ObservationLayout:
    fighter_slots = team_count * fighters_per_team
    return ObservationLayout([
        Piece("fighters", (fighter_slots, len(FIGHTER_FEATURES)),
              "fighter slots, own team first (features: " + ", ".join(FIGHTER_FEATURES) + ")"),
        Piece("elements", (max(max_elements, 1), len(ELEMENT_FEATURES)),
              "element slots (features: " + ", ".join(ELEMENT_FEATURES) + ")"),
        Piece("terrain", (4, max_board, max_board),
              "planes: off-board, blocking, difficult, smoke"),
        Piece("round", (1,), "round / rounds"),
        Piece("scores", (team_count,), "victory points / 10, own team first"),
        Piece("decision", (len(DECISION_TYPES),), "one-hot decision type"),
        Piece("asked", (fighter_slots,),
              "one-hot fighter that decides (reaction action, re-arm, own turn)"),
        Piece("actor", (fighter_slots,), "one-hot fighter whose turn it is"),
        Piece("trigger_target", (fighter_slots,), "one-hot target of the declared action"),
        Piece("trigger_kind", (len(ACTION_KINDS),), "one-hot kind of the declared action"),
        Piece("window", (4,), "difficulty / 12 of the team's test, candidates count / F, "
              "this slot's place in the window / (n F), the team's slots left in the window "
              "(this one included) / F"),
        Piece("candidates", (fighters_per_team,),
              "own fighter slots that may attempt in this slot"),
    ])


def _ego(state: AlertState, side: int, gid: int) -> int:
    per_team, team_count = state.game.fighters_per_team, state.game.num_players
    team, index = divmod(gid, per_team)
    return ((team - side) % team_count) * per_team + index


_FACING = tuple(tuple(float(d == facing) for d in range(8)) for facing in range(8))
#: the row of an empty fighter slot (no fighter: all zero)
_EMPTY_ROW = (0.0,) * len(FIGHTER_FEATURES)
_ELEMENT_KINDS = ("door", "lever", "objective", "machine")


def _fighter_row(game: Any, state: AlertState, fighter: Fighter,
                 actor: Fighter | None) -> list[float]:
    """The features of one fighter slot in the order of :data:`FIGHTER_FEATURES`."""
    if not fighter.in_play:
        return [1.0] + [0.0] * (len(FIGHTER_FEATURES) - 1)
    board_size = game.max_board
    if fighter.ranged_weapon is not None:
        ranged = game.ranged_weapons[fighter.ranged_weapon]
        ranged_range, ranged_dmg = ranged.range / 10, ranged.dmg / 3
    else:
        ranged_range = ranged_dmg = 0.0
    melee = game.melee_weapons[fighter.melee_weapon]
    items = fighter.items
    return [
        1.0, 1.0, (fighter.x + 0.5) / board_size, (fighter.y + 0.5) / board_size,
        *_FACING[fighter.facing],
        fighter.wounds / 6, fighter.w_max / 6, fighter.ap / 4, float(fighter.on_alert),
        float(fighter.knocked_down),
        float(engaged(state, fighter)), fighter.track_pos / max(1, len(state.fighters)),
        float(fighter.activated), float(fighter.attempted_turn == state.turn_id),
        float(fighter.gid == state.active),
        fighter.ref / 4, fighter.mel / 4, fighter.sho / 4, fighter.tec / 4, fighter.defence / 3,
        fighter.arm / 2, fighter.ini / 3,
        fighter.mov / 6, ranged_range, ranged_dmg, melee.dmg / 3, float(melee.impact),
        items.get("draught", 0) / 2, items.get("smoke", 0) / 2, items.get("grapnel", 0) / 2,
        float("shield" in items), float(fighter.grapnel),
        reaction_difficulty(state, fighter, actor) / 12
        if actor is not None and fighter.team != actor.team else 0.0]


def observation(game: Any, state: AlertState, side: int) -> np.ndarray:
    """The egocentric observation of team ``side``: float32, shape ``(observation_size,)``.

    Written through each piece's offset in the flat vector (:attr:`ObservationLayout.offsets`);
    the fighter rows, in ego order, are joined into one list and stored with one copy."""
    layout = game.layout
    offsets = layout.offsets
    vector = layout.zeros()
    board_size = game.max_board
    per_team = game.fighters_per_team
    team_count = game.num_players
    fighters = state.fighters
    context = state.decision_context(side)
    actor = fighters[state.active] if state.active >= 0 else None
    rows: list[float] = []
    with legal_scope(state):  # the engagement of every fighter from the board memo
        for offset in range(team_count):  # ego order: own team first, then seat order
            first = ((side + offset) % team_count) * per_team
            for fighter in fighters[first:first + per_team]:
                rows += _EMPTY_ROW if fighter is None else _fighter_row(game, state, fighter,
                                                                        actor)
    start = offsets["fighters"]
    vector[start:start + len(rows)] = rows
    width = len(ELEMENT_FEATURES)
    for index, element in enumerate(state.elements):
        at = offsets["elements"] + index * width
        vector[at] = 1.0
        vector[at + 1] = (element["x"] + 0.5) / board_size
        vector[at + 2] = (element["y"] + 0.5) / board_size
        vector[at + 3 + _ELEMENT_KINDS.index(element["kind"])] = 1.0
        vector[at + 7] = float(element["state"] in ("open", "on", "working"))
        if element["held_by"] is not None:
            vector[at + (8 if element["held_by"] == side else 9)] = 1.0
        vector[at + 10] = float(element["owner"] == side)
        vector[at + 11] = float(element["broken_by"] == side)
    terrain = offsets["terrain"]
    plane = board_size * board_size
    vector[terrain:terrain + 4 * plane] = game.static_terrain.reshape(-1)
    smoke = terrain + 3 * plane
    for x, y in state.smoke:
        vector[smoke + y * board_size + x] = 1.0
    vector[offsets["round"]] = state.round / game.rounds
    scores = state.scores()
    at = offsets["scores"]
    for offset in range(team_count):
        vector[at + offset] = scores[(side + offset) % team_count] / 10
    decision = state.decision_type()
    vector[offsets["decision"] + DECISION_TYPES.index(str(getattr(decision, "value",
                                                                  decision)))] = 1.0
    if isinstance(context, AlertContext):  # (None, or a core frame's context: nothing to show)
        if context.fighter >= 0:
            vector[offsets["asked"] + _ego(state, side, context.fighter)] = 1.0
        if context.actor >= 0:
            vector[offsets["actor"] + _ego(state, side, context.actor)] = 1.0
        if context.trigger_target >= 0:
            vector[offsets["trigger_target"] + _ego(state, side, context.trigger_target)] = 1.0
        if context.trigger:
            kind = game.acts[game.actions.id(context.trigger)].kind
            if kind in ACTION_KINDS:
                vector[offsets["trigger_kind"] + ACTION_KINDS.index(kind)] = 1.0
        at = offsets["window"]
        vector[at] = context.difficulty / 12
        vector[at + 1] = len(context.candidates) / per_team
        vector[at + 2] = context.slot / (team_count * per_team)
        vector[at + 3] = context.slots_left / per_team
        at = offsets["candidates"]
        for gid in context.candidates:
            if gid // per_team == side:
                vector[at + gid % per_team] = 1.0
    return vector


def observation_string(game: Any, state: AlertState, side: int) -> str:
    """A text twin of :func:`observation` (one line per fighter in play)."""
    lines = [f"round {state.round}/{game.rounds}; team {game.side_names[side]}; VP "
             f"{state.scores()}; decision {state.decision_name()}"]
    for fighter in state.fighters:
        if fighter is None or not fighter.in_play:
            continue
        flags = "".join(letter for letter, shown in (("A", fighter.on_alert),
                                                     ("K", fighter.knocked_down),
                                                     ("*", fighter.gid == state.active))
                        if shown)
        lines.append(f"  {game.side_names[fighter.team]}/{fighter.name} "
                     f"@({fighter.x},{fighter.y}) faces "
                     f"{'N NE E SE S SW W NW'.split()[fighter.facing]} "
                     f"W{fighter.wounds}/{fighter.w_max} "
                     f"AP{fighter.ap} pos{fighter.track_pos} {flags}".rstrip())
    return "\n".join(lines)
