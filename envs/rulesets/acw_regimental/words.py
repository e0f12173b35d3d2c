"""ACW actions in words for people ("Fire a Closing Volley at 14th Brooklyn"), from the state
the action would be taken in (the unit asked, the mover, the target: the waiting decision's
typed context, :func:`.observer.decision_units`). See the action table in the package docstring
for the rules each label applies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.protocol import CHANCE, TERMINAL

from .observer import decision_units

if TYPE_CHECKING:
    from .state import ACWState
    from .units import Unit

PRIMITIVE_WORDS = {
    "advance:third": "advance a third of the remaining allowance",
    "advance:two_thirds": "advance two thirds of the remaining allowance",
    "advance:all": "advance the whole remaining allowance",
    "retire": "retire (half allowance back, double cost)",
    "sidestep:left": "side-step 2\" left",
    "sidestep:right": "side-step 2\" right",
    "wheel:left": "wheel 45° left",
    "wheel:right": "wheel 45° right",
    "wheel:left_half": "wheel 22.5° left",
    "wheel:right_half": "wheel 22.5° right",
    "face:left": "face left",
    "face:right": "face right",
    "face:about": "face about",
    "formation:line": "form Line of Battle",
    "formation:assault_column": "form Assault Column",
    "formation:road_column": "form Road Column",
    "formation:limber": "limber up",
    "formation:unlimber": "unlimber",
    "skirmish:detach": "detach a skirmish stand",
    "skirmish:rejoin": "rejoin its skirmish stand",
}


def _name(units: list[Unit | None], slot: int) -> str:
    unit = units[slot] if 0 <= slot < len(units) else None
    return unit.name if unit is not None else f"slot {slot}"


def describe_action(state: ACWState, action: int) -> str:
    """``action`` (a decision id) in words at ``state``; the label itself at chance and terminal
    nodes or where the context is missing."""
    game = state.game
    label = game.actions.labels[action]
    player = state.current_player()
    if player in (CHANCE, TERMINAL):
        return label
    own, enemy = state.units[player], state.units[1 - player]
    kind, _, arg = label.partition(":")
    asked, trig, _what = decision_units(state)
    # the unit acting (activation, fire) or asked to react, and the enemy that triggered it
    mine = _name(state.units[asked[0]], asked[1]) if asked is not None else "the unit"
    theirs = _name(state.units[trig[0]], trig[1]) if trig is not None else "the enemy"
    mover = mine
    if label == "rally:pay_pip":
        return "Rally automatically (pay a Staff Pip)"
    if label == "rally:roll":
        return "Roll to rally"
    if kind == "reserve":
        return f"Reserve {arg} Staff Pip{'s' if arg != '1' else ''} for reactions"
    if kind == "activate":
        return f"Activate {_name(own, int(arg[1:]))}"
    if label == "end_phase":
        return "End the Maneuver phase"
    if label in PRIMITIVE_WORDS:
        return f"{mover}: {PRIMITIVE_WORDS[label]}"
    if kind == "charge":
        return f"{mover} charges {_name(enemy, int(arg[1:]))} (1 Staff Pip)"
    if label == "end_activation":
        return f"End {mover}'s activation"
    if kind == "fire" or label == "hold_fire":
        firer = mine
        if label == "hold_fire":
            return f"{firer} holds its fire"
        return f"{firer} fires at {_name(enemy, int(arg[1:]))}"
    if kind == "melee":
        return ("Advance up to 2\" into the ground given up" if arg == "advance"
                else "Hold the ground after the melee")
    if kind == "react":
        d, m = mine, theirs
        if arg == "opportunity_fire":
            return f"{d}: Opportunity Fire at {m}"
        if arg == "wait_short":
            return f"{d}: hold fire for the Short-range point"
        if arg.startswith("evade_"):
            return f"{d}: Evade {arg[-1]}\""
        if arg.startswith("refuse_"):
            stands = arg[-1]
            return f"{d}: Refuse the Flank with {stands} stand{'s' if stands != '1' else ''}"
        if arg.startswith("counter_charge_"):
            return f"{d}: Counter-Charge {m} (surge {arg[-1]}\")"
        if arg == "closing_volley":
            return f"Fire a Closing Volley at {m}"
        if arg == "decline":
            return f"{d}: no reaction"
    return label
