"""Wrappers around the Riposte PettingZoo env.

:class:`IllegalActionLoss` — the documented alternative to raising on an illegal action
(rl_anchors §4 item 13, aesthetics pitfall 3): an agent that chooses an action its mask forbids
loses the game on the spot (−1 for its side; the other sides share +1, so the game stays
zero-sum), every agent is terminated, and ``infos[agent]["termination_cause"]`` names the action,
the rule ids that mask it and the legal labels. Nothing is ever substituted. It ends the game
through the adapter's public :meth:`~envs.adapters.aec.RiposteAECEnv.end_game` rather than by
writing the env's private dicts (pitfall 13).

The single-agent env offers the same policy as ``RiposteGymEnv(illegal_action="loss")``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import BaseWrapper

from envs.core.errors import ParameterError

from .aec import RiposteAECEnv
from ._common import as_action_id, illegal_message


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
