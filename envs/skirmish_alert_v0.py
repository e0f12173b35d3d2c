"""PettingZoo AEC environment: a skirmish with On Alert reactions for 2 to 4 teams (v0).

## Description

Two, three or four teams of fighters (seed 001) take game turns one fighter at a time in the
order of an initiative track rolled every round; a fighter on alert may, inside an opposing
fighter's turn, test to interrupt each action it declares. A thin wrapper of
:class:`envs.adapters.aec.RiposteAECEnv` over ruleset ``"skirmish_alert"``; the rules model,
action catalogue, decision types and observation layout are tabulated in
:mod:`envs.rulesets.skirmish_alert`.

## Agents

``player_0 … player_{n-1}``, ``n`` the scenario's team count (``default``: 2, ``ffa3``: 3,
``ffa4``: 4). The agent to move follows the rules (a team answering a window decides inside
another team's turn), not a cycle.

## Action Space

``Discrete(num_distinct_actions)``: 515 ids for two teams, 563 for three, 611 for four (fighter
slots padded to 4 per team, element slots to 8), the same for every scenario of a team count.

| family | examples |
|---|---|
| own turn | ``move:+1:+2``, ``charge:e1:SW``, ``melee:e0``, ``shoot:e2``, ``disengage:-2:+0``, ``pivot:E``, ``stand_up``, ``activate:x0``, ``repair:x4``, ``use:smoke``, ``alert``, ``pass`` |
| after a move or disengage | ``face:N`` … ``face:NW`` |
| start of an alert fighter's turn | ``keep_alert``, ``drop_alert`` |
| a window slot | ``alert:attempt:f{i}``, ``alert:decline`` |
| the reaction | ``react:move:+0:-4``, ``react:shoot:e2``, …, ``react:none`` |
| after the reaction | ``rearm``, ``rearm:decline`` |

## Observation Space

``Dict(observation=Box(float32, (observation_size,)), action_mask=Box(int8, 0/1))``: the
team's egocentric vector (own fighter slots first); 1497 floats for two teams, 1843 for four.

## Starting State

The scenario's fighters and elements, the first round's initiative rolled.

## Rewards

At the end, teams are placed by victory points; each agent receives (teams placed below − teams
placed above) / (n − 1): zero-sum for any number of teams, +1 / −1 / 0 for two.

## Episode End

After the scenario's rounds, or when at most one team has fighters (terminated); after
``max_decisions`` decisions (truncated).

## Arguments

``env(scenario=None, params=None, seat_permutation=None, randomize_seats=False,
max_decisions=None, render_mode=None)``; ``raw_env`` takes the same.

## Version History

* v0: initial version.
"""

from __future__ import annotations

from typing import Any

from envs.adapters.aec import RiposteAECEnv
from envs.adapters.wrappers import OrderEnforcing

RULESET = "skirmish_alert"


def raw_env(**kwargs: Any) -> RiposteAECEnv:
    """The unwrapped AEC env of ruleset ``skirmish_alert`` (keyword arguments as above)."""
    kwargs.setdefault("ruleset", RULESET)
    return RiposteAECEnv(**kwargs)


def env(**kwargs: Any) -> OrderEnforcing:
    """:func:`raw_env` wrapped in :class:`envs.adapters.wrappers.OrderEnforcing` only:
    PettingZoo's order checks, with :class:`~envs.core.errors.ResetNeededError` for a call
    before ``reset()``. Illegal actions raise; wrap with
    :class:`envs.adapters.wrappers.IllegalActionLoss` to end the game instead."""
    return OrderEnforcing(raw_env(**kwargs))
