"""PettingZoo AEC environment: regimental American Civil War battles with reaction rules (v0).

## Description

Two sides (Union, Confederate) fight a brigade-scale action on a table measured in inches; the
non-active side may react inside the active side's activation (reaction windows, e.g. a closing
volley or an evade), so the agent on move follows the rules, not a fixed cycle. A thin wrapper of
:class:`envs.adapters.aec.RiposteAECEnv` over ruleset ``"acw_regimental"``; the full rules model,
action catalogue and observation layout are documented in :mod:`envs.rulesets.acw_regimental`.

## Action Space

``Discrete(num_distinct_actions)`` — one fixed catalogue for every scenario (unit slots padded to
``max_units_per_side``). Families, in brief:

| family | examples |
|---|---|
| command / activation | choose the regiment to activate, end activation |
| maneuver primitives | advance a fraction of the allowance, wheel, change formation, charge |
| reactions | ``react:...`` choices, ``decline`` |
| fire | target choices, fire now or hold |

## Observation Space

``Dict(observation=Box(float32, (observation_size,)), action_mask=Box(int8, 0/1))``: the side's
egocentric vector (own units first, table mirrored so that forward is the same for both sides);
no hidden information of the other side. Pieces are tabulated in the ruleset's docstring.

## Starting State

The chosen scenario (default: "Two Farms", this project's symmetric battle for two seats; the
earlier one-brigade-a-side battle of RULINGS 8 is ``crossroads``), opening rolls resolved.

## Rewards

+1 win, −1 loss, 0 draw at the end (victory points); optional shaped reward (``shaped_reward``).

## Episode End

When the scenario's turns are played or a side's army breaks (terminated), or after
``max_decisions`` decisions (truncated).

## Arguments

``env(scenario=None, params=None, seat_permutation=None, randomize_seats=False,
max_decisions=None, shaped_reward=False, render_mode=None)``; ``raw_env`` takes the same.

## Version History

* v0: initial version.
"""

from __future__ import annotations

from typing import Any

from envs.adapters.aec import RiposteAECEnv
from envs.adapters.wrappers import OrderEnforcing

RULESET = "acw_regimental"


def raw_env(**kwargs: Any) -> RiposteAECEnv:
    """The unwrapped AEC env of ruleset ``acw_regimental`` (keyword arguments as above)."""
    kwargs.setdefault("ruleset", RULESET)
    return RiposteAECEnv(**kwargs)


def env(**kwargs: Any) -> OrderEnforcing:
    """:func:`raw_env` wrapped in :class:`envs.adapters.wrappers.OrderEnforcing` only:
    PettingZoo's order checks, with :class:`~envs.core.errors.ResetNeededError` for a call
    before ``reset()``. Illegal actions raise; wrap with
    :class:`envs.adapters.wrappers.IllegalActionLoss` to end the game instead."""
    return OrderEnforcing(raw_env(**kwargs))
