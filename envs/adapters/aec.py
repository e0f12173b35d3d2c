"""PettingZoo AEC view of any Riposte ruleset.

## Description

``RiposteAECEnv`` exposes every side of a Riposte game as a PettingZoo agent. Agents are
``player_0 .. player_{n-1}`` (``possible_agents`` is fixed); each is mapped to a side (seat) —
the identity by default, a fixed ``seat_permutation``, or a permutation drawn at every reset
(``randomize_seats=True``). The agent to move is taken from ``state.current_player()`` — never a
cyclic selector — so reaction windows (the non-active side deciding inside the active side's
activation) and long runs of decisions by one side need nothing special (aesthetics §2.5 item 15,
pitfall 7). Chance nodes are resolved by the env before control returns, with its own
``numpy.random.Generator`` seeded in ``reset(seed=...)``: the same seed gives the same game.

## Action Space

``Discrete(game.num_distinct_actions)`` for every agent (the ruleset's fixed action catalogue,
documented in the ruleset's module docstring). An illegal action raises
:class:`~envs.core.errors.IllegalActionError` naming the agent, its side, the rule ids that mask
the action and the legal labels; it is never substituted. The
:class:`~envs.adapters.wrappers.IllegalActionLoss` wrapper ends the game as a loss instead.

## Observation Space

``Dict({"observation": Box(-inf, inf, (observation_size,), float32), "action_mask": Box(0, 1,
(num_distinct_actions,), int8)})``. ``observation`` is ``game.observation(state, side)`` — the
agent's own egocentric view (no hidden information of other sides); ``action_mask`` is the legal
mask for the agent on move and all zeros for every other agent. ``infos[agent]`` holds
``side``, ``side_name``, ``decision_type`` and ``action_mask`` (int8, same convention) for every
agent, ``legal_action_labels`` for the agent on move, and ``returns``/``winner`` at the end.

## Starting State

``game.new_initial_state()`` (ruleset + scenario + params) with opening chance nodes resolved.

## Rewards

At the end, each agent receives its side's entry of ``state.returns()`` (+1 win, −1 loss, 0 draw);
0 before. With ``shaped_reward=True`` the game is built with its ``shaped_reward`` parameter and
every step pays each agent the change of its side's return (RULINGS 9).

## Episode End

Terminated (all agents) when the game ends; truncated (all agents) after ``max_decisions``
decisions (default ``game.max_game_length``). Finished agents are stepped with ``None``.

## Arguments

``ruleset``, ``scenario``, ``params``, ``seat_permutation`` (sequence: side of ``player_i``),
``randomize_seats``, ``max_decisions``, ``shaped_reward``, ``render_mode`` (``"ansi"``,
``"human"``, ``"rgb_array"``, ``None``).

## Version History

* v0: initial version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.core.chance import sample_chance_outcome
from envs.core.errors import IllegalActionError, ParameterError
from envs.core.protocol import CHANCE, TERMINAL, Game, State
from envs.rulesets import load_game

from ._common import (as_action_id, check_reset_options, check_seed, decision_name, game_params,
                      illegal_message, render_rgb, render_text, reset_needed, winner_of)
from .spaces import mask_box, observation_box


class RiposteAECEnv(AECEnv):
    """PettingZoo AEC env over one Riposte game (see the module docstring).

    Args:
        ruleset: registered ruleset id.
        scenario: built-in scenario name or TOML path; ``None`` for the ruleset's default.
        params: game parameters.
        seat_permutation: ``seat_permutation[i]`` is the side played by ``player_i``
            (a permutation of ``0..n-1``); ``None`` = identity.
        randomize_seats: draw a fresh permutation at every reset from the env's seeded stream
            (overrides ``seat_permutation``).
        max_decisions: decision cap (chance outcomes are not counted); ``None`` =
            ``game.max_game_length``.
        shaped_reward: see the module docstring.
        render_mode: ``"ansi"`` (text), ``"human"`` (that text printed after every step),
            ``"rgb_array"`` (the table as an ``(H, W, 3)``
            uint8 image, :func:`envs.adapters.rendering.drawing_to_rgb` of
            ``game.drawing(state)``) or ``None``.

    Raises:
        UnknownRulesetError, ScenarioError, ParameterError: on bad arguments.
    """

    metadata = {"name": "riposte_v0", "render_modes": ["ansi", "rgb_array", "human"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, ruleset: str = "acw_regimental", scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None,
                 seat_permutation: Sequence[int] | None = None, randomize_seats: bool = False,
                 max_decisions: int | None = None, shaped_reward: bool = False,
                 render_mode: str | None = None):
        super().__init__()
        params = game_params(ruleset, params, shaped_reward)
        self.game: Game = load_game(ruleset, scenario, params)
        g = self.game
        self.metadata = {**type(self).metadata, "name": f"{ruleset}_v0"}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ParameterError(f"render_mode {render_mode!r} is not one of "
                                 f"{self.metadata['render_modes']} or None")
        if max_decisions is None:
            max_decisions = int(g.max_game_length)
        if not isinstance(max_decisions, (int, np.integer)) or max_decisions < 1:
            raise ParameterError(f"max_decisions {max_decisions!r} must be a positive int")
        self.render_mode = render_mode
        self.max_decisions = int(max_decisions)
        self.shaped_reward = bool(shaped_reward)
        self.randomize_seats = bool(randomize_seats)
        n = g.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._agent_index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._zeros = np.zeros(g.num_distinct_actions, dtype=np.int8)
        #: ``(state, len(state.history), mask)``: the int8 mask of the decision waiting in
        #: ``state`` (what ``observe`` and the infos share; copied out)
        self._live_mask: tuple[State, int, np.ndarray] | None = None
        if seat_permutation is None:
            seat_permutation = range(n)
        perm = [int(s) for s in seat_permutation]
        if sorted(perm) != list(range(n)):
            raise ParameterError(f"seat_permutation {list(seat_permutation)!r} is not a "
                                 f"permutation of 0..{n - 1}")
        self._fixed_perm = perm
        self.seats: list[int] = list(perm)  # seats[i] = side of player_i
        self._obs_space = spaces.Dict({"observation": observation_box(g),
                                       "action_mask": mask_box(g)})
        self._act_space = spaces.Discrete(g.num_distinct_actions)
        self.state_space = spaces.Box(low=-np.inf, high=np.inf,
                                      shape=(n * g.observation_size,), dtype=np.float32)
        self._np_random: np.random.Generator | None = None
        self._chance_rng: np.random.Generator | None = None
        self._seat_rng: np.random.Generator | None = None
        self.game_state: State | None = None
        self.decisions = 0
        self._paid = [0.0] * n
        self.agents: list[str] = []

    # -- spaces --------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        """The (cached, shared) observation space."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """The (cached, shared) action space ``Discrete(num_distinct_actions)``."""
        return self._act_space

    # -- seats ---------------------------------------------------------------------------------
    def side_of(self, agent: str) -> int:
        """Side index played by ``agent`` this episode.

        Raises:
            ValueError: for a name that is not one of ``possible_agents``.
        """
        try:
            return self.seats[self._agent_index[agent]]
        except KeyError:
            raise ValueError(f"{agent!r} is not one of {self.possible_agents}") from None

    def agent_of(self, side: int) -> str:
        """Agent name playing ``side`` this episode."""
        return self.possible_agents[self.seats.index(side)]

    # -- PettingZoo API ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed`` re-seeds the env's generator (chance and seat streams);
        without it the streams continue.

        ``options``: none are read; ``"ruleset"``, ``"scenario"`` and ``"params"`` are refused
        (:func:`check_reset_options`: the game is fixed when the env is made), other keys
        pass as PettingZoo expects.

        Raises:
            TypeError, ValueError: for a ``seed`` that is not a non-negative int or None.
            ParameterError: for an ``options`` key naming the game (e.g. ``"scenario"``).
        """
        seed = check_seed(seed)
        check_reset_options(options, (), "AEC env", strict=False)
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
            self._chance_rng, self._seat_rng = self._np_random.spawn(2)
        n = self.game.num_players
        if self.randomize_seats:
            self.seats = [int(s) for s in self._seat_rng.permutation(n)]
        else:
            self.seats = list(self._fixed_perm)
        self.agents = self.possible_agents[:]
        self._skip_agent_selection = None
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.game_state = self.game.new_initial_state()
        self.decisions = 0
        self._paid = [0.0] * n
        self._resolve_chance()
        self._after_transition()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 (observation_size,), "action_mask": int8
        (num_distinct_actions,)}`` of ``agent`` (mask all zeros unless it is on move).

        Raises:
            ResetNeededError: before ``reset()`` (or after ``close()``).
        """
        self.require_game("observe")
        side = self.side_of(agent)
        return {"observation": np.array(self.game.observation(self.game_state, side),
                                        dtype=np.float32),
                "action_mask": self._mask_of(side)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, cumulative reward, terminated, truncated, info)`` of
        ``agent_selection`` (PettingZoo's ``AECEnv.last``).

        Raises:
            ResetNeededError: before ``reset()`` (or after ``close()``).
        """
        self.require_game("last")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's agent iterator (the agent on move at each step).

        Raises:
            ResetNeededError: before ``reset()`` (or after ``close()``): the loop would
                otherwise end at once without a word.
        """
        self.require_game("agent_iter")
        return super().agent_iter(max_iter)

    def step(self, action: Any) -> None:
        """Apply the decision of ``agent_selection`` and advance through chance nodes.

        Raises:
            IllegalActionError: when ``action`` is not legal for the agent on move (the message
                names the agent, side, rule ids and legal labels); also for ``None`` from a live
                agent.
            ResetNeededError: before ``reset()`` (or after ``close()``).
        """
        self.require_game("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.game_state
        aid = as_action_id(action)
        if aid is None or not (0 <= aid < self.game.num_distinct_actions) \
                or aid not in st.legal_actions():
            raise IllegalActionError(illegal_message(st, action, f"agent {agent}"))
        self._cumulative_rewards[agent] = 0.0
        st.apply_action_unchecked(aid)  # checked just above
        self.decisions += 1
        self._resolve_chance()
        self._after_transition()

    def end_game(self, returns: Sequence[float], cause: str) -> None:
        """End the episode now with the given per-side ``returns`` (e.g. a loss for an agent
        that chose an illegal action): every live agent is terminated, paid its side's return
        (minus what it was already paid) and ``infos[agent]["termination_cause"] = cause``.

        Raises:
            ParameterError: when ``returns`` does not have one entry per side.
            ResetNeededError: before ``reset()`` (or after ``close()``).
        """
        self.require_game("end_game")
        n = self.game.num_players
        if len(returns) != n:
            raise ParameterError(f"end_game(): {len(returns)} returns for {n} sides")
        self._clear_rewards()
        for agent in self.agents:
            side = self.side_of(agent)
            self.rewards[agent] = float(returns[side]) - self._paid[side]
            self._paid[side] = float(returns[side])
            self.terminations[agent] = True
        self._accumulate_rewards()
        for agent in self.agents:
            side = self.side_of(agent)
            self.infos[agent] = {**self._base_info(side), "action_mask": self._zero_mask(),
                                 "decision_type": "terminal",
                                 "returns": [float(r) for r in returns],
                                 "winner": winner_of([float(r) for r in returns]),
                                 "termination_cause": cause}
        self._deads_step_first()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the agent on move's ``observation_string`` and the last few events (a
        str); ``"rgb_array"``: the whole table, ``(H, W, 3)`` uint8 (see
        :mod:`envs.adapters.rendering`; before ``reset``, the initial table); ``"human"``:
        prints the ``"ansi"`` text to stdout (also after every step) and returns None."""
        if self.render_mode is None:
            return None
        st = self.game_state
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, st)
        if self.render_mode == "human":
            p = st.current_player() if st is not None else TERMINAL
            print(render_text(self.game, st, p if p >= 0 else self.seats[0]))
            return None
        p = st.current_player() if st is not None else TERMINAL
        side = p if p >= 0 else self.seats[0]
        return render_text(self.game, st, side)

    def state(self) -> np.ndarray:
        """Global state for centralised critics: every side's observation, concatenated in side
        order (float32, shape ``(num_players * observation_size,)``).

        Raises:
            ResetNeededError: before ``reset()`` (or after ``close()``).
        """
        self.require_game("state")
        return np.concatenate([self.game.observation(self.game_state, s)
                               for s in range(self.game.num_players)]).astype(np.float32)

    def close(self) -> None:
        self.game_state = None

    def require_game(self, call: str) -> State:
        """The game in play, for a ``call`` that needs one.

        Raises:
            ResetNeededError: ``"<call>() before reset(): call reset() first"`` when there is no
                game yet (or any more: ``close()`` ends it).
        """
        if self.game_state is None:
            raise reset_needed(call)
        return self.game_state

    #: what ``reset()`` sets (PettingZoo's per-episode attributes): reading one before it is an
    #: AttributeError that says so, not "object has no attribute"
    _SET_BY_RESET = frozenset({"agent_selection", "rewards", "terminations", "truncations",
                               "infos", "_cumulative_rewards"})

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails
        if name in RiposteAECEnv._SET_BY_RESET:
            raise AttributeError(f"{type(self).__name__}.{name} is set by reset(): call reset() "
                                 f"first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- internals -----------------------------------------------------------------------------
    def _resolve_chance(self) -> None:
        st = self.game_state
        while st.current_player() == CHANCE:
            st.apply_action_unchecked(sample_chance_outcome(st, self._chance_rng))

    def _zero_mask(self) -> np.ndarray:
        return self._zeros.copy()

    def _mask_of(self, side: int) -> np.ndarray:
        st = self.game_state
        if st is None or st.current_player() != side:
            return self._zeros.copy()
        agent = self.agent_of(side)
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            return self._zeros.copy()
        # the state changes only by applying actions, each of which lengthens its history
        live = self._live_mask
        n = len(st.history)
        if live is None or live[0] is not st or live[1] != n:
            mask = self.game.actions.mask(st.legal_actions()).view(np.int8)
            live = self._live_mask = (st, n, mask)
        return live[2].copy()

    def _base_info(self, side: int) -> dict[str, Any]:
        return {"side": side, "side_name": self.game.side_names[side]}

    def _after_transition(self) -> None:
        """Pay rewards, set terminations/truncations, the agent on move and the infos."""
        st = self.game_state
        self._clear_rewards()
        p = st.current_player()
        returns = [float(r) for r in st.returns()]
        for agent in self.agents:
            side = self.side_of(agent)
            self.rewards[agent] = returns[side] - self._paid[side]
            self._paid[side] = returns[side]
        if p == TERMINAL:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.decisions >= self.max_decisions:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        dt = decision_name(st)
        infos: dict[str, dict[str, Any]] = {}
        self.infos = infos
        if p >= 0:
            self.agent_selection = self.agent_of(p)
        else:
            self.agent_selection = self.agents[0]
        terminations, truncations = self.terminations, self.truncations
        for agent in self.agents:
            side = self.side_of(agent)
            info = infos[agent] = self._base_info(side)
            info["decision_type"] = dt
            if side == p and not (terminations[agent] or truncations[agent]):
                # the agent on move: its mask has a 1 (a decision's legal list is never empty)
                info["action_mask"] = self._mask_of(side)
                info["legal_action_labels"] = st.legal_labels()
            else:
                info["action_mask"] = self._zeros.copy()
            if p == TERMINAL:
                info["returns"] = list(returns)
                info["winner"] = winner_of(returns)
            elif truncations[agent]:
                info["termination_cause"] = f"max_decisions={self.max_decisions}"
        if p == TERMINAL or any(self.truncations.values()):
            self._deads_step_first()
