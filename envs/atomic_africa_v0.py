"""PettingZoo AEC environment: Atomic Africa — playing-card orders, a hidden Reserve, the
Reaction and Declaration sub-phases (v0).

## Description

Two platoons fight on a table measured in centimetres; orders are face-down playing cards from
each side's own deck, the cards kept form a hidden Reserve, and the non-active side decides
inside the active side's Activation Phase (compulsory and voluntary reactions, Reserve plays,
the simultaneous change loop as hidden commitments, a Joker that freezes the opponent). A thin
wrapper of :class:`envs.adapters.aec.RiposteAECEnv` over ruleset ``"atomic_africa"``; the rules
model, action catalogue and observation layout are tabulated in
:mod:`envs.rulesets.atomic_africa`.

## Action Space

``Discrete(100)`` (8 unit slots): ``assign:*`` (Orders Phase), ``activate:unitK``,
``move:*`` (In-transit figure), ``target:*``, ``react:*``, ``reserve:play:<card>`` /
``reserve:stand``, ``special:*``, ``posture:*``, ``split:*``.

## Observation Space

``Dict(observation=Box(float32, (869,)), action_mask=Box(int8, 0/1))``: the side's egocentric
vector — its own hand, Reserve and face-down orders; of the opponent only revealed cards and
public counts. ``infos[agent]["decision_type"]`` names the decision (``orders``,
``reaction``, ``reserve_assign``, ``reserve_play``, ...).

## Starting State

The chosen scenario (default: the platoon battle), the first draws resolved by the env's
seeded generator.

## Rewards

+1 win, −1 loss, 0 draw at the end.

## Episode End

After the scenario's turns or when a side has no units (terminated); after ``max_decisions``
decisions (truncated).

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

RULESET = "atomic_africa"


def raw_env(**kwargs: Any) -> RiposteAECEnv:
    """The unwrapped AEC env of ruleset ``atomic_africa`` (keyword arguments as above)."""
    kwargs.setdefault("ruleset", RULESET)
    return RiposteAECEnv(**kwargs)


def env(**kwargs: Any) -> OrderEnforcing:
    """:func:`raw_env` wrapped in :class:`envs.adapters.wrappers.OrderEnforcing` only:
    PettingZoo's order checks, with :class:`~envs.core.errors.ResetNeededError` for a call
    before ``reset()``. Illegal actions raise; wrap with
    :class:`envs.adapters.wrappers.IllegalActionLoss` to end the game instead."""
    return OrderEnforcing(raw_env(**kwargs))
