"""Wrappers around the Riposte PettingZoo env.

:class:`IllegalActionLoss` — the documented alternative to raising on an illegal action
(rl_anchors §4 item 13, aesthetics pitfall 3): an agent that chooses an action its mask forbids
loses the game on the spot (−1 for its side; the other sides share +1, so the game stays
zero-sum), every agent is terminated, and ``infos[agent]["termination_cause"]`` names the action,
the rule ids that mask it and the legal labels. Nothing is ever substituted. It ends the game
through the adapter's public :meth:`~envs.adapters.aec.RiposteAECEnv.end_game` rather than by
writing the env's private dicts (pitfall 13).

The single-agent env offers the same policy as ``RiposteGymEnv(illegal_action="loss")``.

:class:`OrderEnforcing` — PettingZoo's ``OrderEnforcingWrapper`` (what ``envs.<ruleset>_v0.env()``
returns), but a call that needs a game before ``reset()`` raises the project's
:class:`~envs.core.errors.ResetNeededError` (a ``RuntimeError``) instead of an ``AssertionError``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import BaseWrapper, OrderEnforcingWrapper

from envs.core.errors import ParameterError

from .aec import RiposteAECEnv
from ._common import as_action_id, illegal_message, reset_needed


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's order checks (see the module docstring) with the project's error: ``step``,
    ``observe``, ``last``, ``state`` and ``agent_iter`` before ``reset()`` raise
    :class:`~envs.core.errors.ResetNeededError` saying so; ``render`` before ``reset()`` is the
    wrapped env's (the initial table, or a "call reset()" line). Reading ``agent_selection``,
    ``rewards``, ``infos``, ... before ``reset()`` stays PettingZoo's ``AttributeError``.

    Raises:
        ResetNeededError: from the methods above, before ``reset()``.
    """

    def _require_reset(self, call: str) -> None:
        if not self._has_reset:
            raise reset_needed(call)

    def step(self, action: Any) -> None:
        self._require_reset("step")
        super().step(action)

    def observe(self, agent: str) -> Any:
        self._require_reset("observe")
        return super().observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._require_reset("last")
        # the wrapped env's own ``last`` (what PettingZoo's reads through this wrapper's
        # attribute forwarding, one lookup at a time)
        return self.env.last(observe)

    def state(self) -> Any:
        self._require_reset("state")
        return super().state()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self._require_reset("agent_iter")
        return super().agent_iter(max_iter)

    def render(self) -> Any:
        return super().render() if self._has_reset else self.env.render()


def _forwarded(name: str) -> property:
    """A read-only property reading ``name`` of the wrapped env once the wrapper was reset
    (before: PettingZoo's ``AttributeError``), as ``OrderEnforcingWrapper.__getattr__`` does,
    without its two-level lookup on every read (the AEC loop reads these at every turn)."""

    def get(self: OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}``.")


for _name in ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos"):
    setattr(OrderEnforcing, _name, _forwarded(_name))
del _name


class IllegalActionLoss(BaseWrapper):
    """End the game as a loss for the agent that chose an illegal action (see module docstring).

    Args:
        env: a :class:`RiposteAECEnv`, possibly already wrapped.

    Raises:
        ParameterError: when ``env`` does not wrap a :class:`RiposteAECEnv`.
    """

    def __init__(self, env: Any):
        super().__init__(env)
        if not isinstance(env.unwrapped, RiposteAECEnv):
            raise ParameterError(f"IllegalActionLoss needs a RiposteAECEnv, got {type(env.unwrapped)!r}")

    def step(self, action: Any) -> None:
        base: RiposteAECEnv = self.env.unwrapped
        base.require_game("step")
        agent = base.agent_selection
        if not (base.terminations[agent] or base.truncations[agent]):
            st = base.game_state
            aid = as_action_id(action)
            if aid is None or not (0 <= aid < base.game.num_distinct_actions) \
                    or aid not in st.legal_actions():
                n = base.game.num_players
                offender = base.side_of(agent)
                returns = [-1.0 if s == offender else 1.0 / (n - 1) for s in range(n)]
                base.end_game(returns, "illegal action: " + illegal_message(st, action, f"agent {agent}"))
                return
        super().step(action)

    def __str__(self) -> str:
        return str(self.env)
