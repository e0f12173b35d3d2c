"""Single-agent Gymnasium view of any Riposte ruleset: one learner seat against an opponent.

## Description

``RiposteGymEnv`` plays one side (the *learner seat*) of a Riposte game; every other side is
played by an opponent policy inside the env. After the learner acts (and at ``reset``) the env
advances through chance nodes (resolved with its own seeded generator) and through EVERY opponent
decision — including the opponent's reactions in the middle of the learner's own activation —
until the learner must decide again or the game ends. Observation, mask and reward returned by
``reset``/``step`` therefore always belong to the learner (aesthetics §2.5 item 16, pitfalls 6
and 18). The advance loop is bounded by ``max_decisions`` (→ ``truncated=True``).

## Action Space

``Discrete(game.num_distinct_actions)`` (a :class:`~envs.adapters.spaces.LegalDiscrete`, whose
argument-less ``sample()`` draws from the learner's legal ids). Ids and labels are the ruleset's
fixed action catalogue (``game.actions``; see the ruleset's module docstring for the table).
``action_masks()`` returns the learner's legal ids as a bool array of shape
``(num_distinct_actions,)`` — what sb3-contrib's ``MaskablePPO`` calls, also through
``DummyVecEnv``/``SubprocVecEnv.env_method``. An illegal id raises
:class:`~envs.core.errors.IllegalActionError` (never substituted) unless
``illegal_action="loss"``, which ends the game as a loss for the learner (the registered
Gymnasium ids use ``"loss"``, PettingZoo's convention; a ``UserWarning`` the first time).

## Observation Space

``Box(-inf, inf, (game.observation_size,), float32)``: ``game.observation(state, learner_side)``,
the learner's egocentric view (the ruleset documents the pieces).

## Starting State

``game.new_initial_state()`` of the ruleset + scenario + params, advanced to the learner's first
decision. With ``seat="random"`` the learner's side is drawn at every reset.

## Rewards

The learner's entry of ``state.returns()`` when the game ends (+1 win, −1 loss, 0 draw), 0 before.
With ``shaped_reward=True`` the game is built with its ``shaped_reward`` parameter and each step
pays the change of the learner's return since the previous step (RULINGS 9), so the episode sum is
still the final return.

## Episode End

``terminated`` when the game ends (``info["returns"]``, ``info["winner"]`` — side index or
``None`` for a draw); ``truncated`` when ``max_decisions`` decisions (both sides counted) have been
taken without an end. Every ``info`` names the episode's opponent (``info["opponent"]``: its
``name``, e.g. ``"heuristic"`` or ``"snapshot:snapshot_0000020000"``; ``"random"`` for the built-in
one), so win rates can be kept per opponent.

## Arguments

``ruleset`` (registered id), ``scenario`` (built-in name or TOML path, ``None`` = default),
``params`` (game parameters), ``seat`` (``"random"``, a side index or a side name), ``opponent``
(callable ``(obs, mask) -> int`` on the opponent's own view, a policy with ``act``, an agent
that reads the state — ``reads_state = True`` and ``step(state) -> int``, a search agent —, an
``OpponentSampler`` with ``sample_opponent(rng)``, or ``None`` = uniform random over the mask;
in a game of three or more sides a sampler is asked once per opponent seat at every reset, so
each of the n − 1 other sides is played by its own draw from the pool, named in
``info["opponents"]`` by side),
``max_decisions`` (default ``game.max_game_length``), ``shaped_reward``, ``render_mode``
(``"ansi"``, ``"rgb_array"`` or ``None``), ``illegal_action`` (``"raise"`` or ``"loss"``), ``info_labels``
(``False`` leaves ``legal_action_labels`` out of ``info``; training does not read them).

## Randomness

``reset(seed=s)`` seeds ``self.np_random`` and spawns five independent streams from it: chance
outcomes, seat draws, the built-in random opponent, opponent-pool draws, and the seeds passed to
an opponent's ``reset(seed=...)`` (called before every game when the opponent has one, as in
:mod:`agents.policies.base`) — so changing the opponent never changes the dice. ``reset()`` without
a seed continues the streams.

## Version History

* v0: initial version.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np

from envs.core.errors import (IllegalActionError, InvalidStateError, ParameterError,
                              ResetNeededError)
from envs.core.chance import sample_chance_outcome
from envs.core.protocol import CHANCE, TERMINAL, Game, State
from envs.rulesets import load_game

from ._common import (RENDER_EVENTS, SHAPED_REWARD_PARAM, as_action_id,  # noqa: F401
                      check_reset_options, check_seed, decision_name, game_params,
                      illegal_message, render_rgb, render_text, reset_needed, winner_of)
from .spaces import LegalDiscrete, observation_box

OpponentFn = Callable[[np.ndarray, np.ndarray], int]

@runtime_checkable
class OpponentSampler(Protocol):
    """An opponent pool: ``sample_opponent(rng)`` returns the opponent for the next episode."""

    def sample_opponent(self, rng: np.random.Generator) -> OpponentFn: ...


def opponent_name(opp: Any) -> str:
    """A short printable name of an opponent (its ``name`` attribute, else its repr)."""
    name = getattr(opp, "name", None)
    return str(name) if name is not None else repr(opp)


class RiposteGymEnv(gym.Env):
    """One learner seat of a Riposte game against an opponent policy (see the module docstring).

    Args:
        ruleset: registered ruleset id (``envs.rulesets.REGISTRY``).
        scenario: built-in scenario name or TOML path; ``None`` for the ruleset's default.
        params: game parameters (validated by the ruleset).
        seat: ``"random"`` (drawn every reset), a side index ``0..num_players-1`` or a side name.
        opponent: plays every side but the learner's (see the module docstring).
        max_decisions: decision cap per episode (learner and opponent decisions; chance outcomes
            are not counted); ``None`` = ``game.max_game_length``.
        shaped_reward: build the game with ``params["shaped_reward"] = True`` and pay the
            per-step change of the learner's return.
        render_mode: ``"ansi"`` (text), ``"rgb_array"`` (the table as an ``(H, W, 3)``
            uint8 image, :func:`envs.adapters.rendering.drawing_to_rgb` of
            ``game.drawing(state)``) or ``None``.
        illegal_action: ``"raise"`` (default of the class) or ``"loss"`` (default of the
            registered Gymnasium ids: an illegal learner action ends the game, −1 for the
            learner, the others share +1; ``info["illegal_action"]`` says what; a
            ``UserWarning`` the first time per env).
        info_labels: put ``legal_action_labels`` (the learner's legal labels) in ``info``
            (default); ``False`` saves building them at every step (training).

    Raises:
        UnknownRulesetError, ScenarioError, ParameterError: bad ruleset/scenario/params/seat/
            max_decisions/render_mode/illegal_action.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, ruleset: str = "acw_regimental", scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None, seat: int | str = "random",
                 opponent: OpponentFn | OpponentSampler | None = None,
                 max_decisions: int | None = None, shaped_reward: bool = False,
                 render_mode: str | None = None, illegal_action: str = "raise",
                 info_labels: bool = True):
        params = game_params(ruleset, params, shaped_reward)
        self.ruleset = ruleset
        self.game: Game = load_game(ruleset, scenario, params)
        g = self.game
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ParameterError(f"render_mode {render_mode!r} is not one of "
                                 f"{self.metadata['render_modes']} or None")
        if illegal_action not in ("raise", "loss"):
            raise ParameterError(f"illegal_action {illegal_action!r} must be 'raise' or 'loss'")
        if max_decisions is None:
            max_decisions = int(g.max_game_length)
        if not isinstance(max_decisions, (int, np.integer)) or max_decisions < 1:
            raise ParameterError(f"max_decisions {max_decisions!r} must be a positive int")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.max_decisions = int(max_decisions)
        self.shaped_reward = bool(shaped_reward)
        self.info_labels = bool(info_labels)
        self._fixed_seat = self._parse_seat(seat)
        self.observation_space = observation_box(g)
        self.action_space = LegalDiscrete(g.num_distinct_actions, self.action_masks)

        self._opponent_spec: Any = None
        self._policy: Callable[[np.ndarray, np.ndarray], Any] | None = None
        self._chance_rng: np.random.Generator | None = None
        self._seat_rng: np.random.Generator | None = None
        self._random_opp_rng: np.random.Generator | None = None
        self._pool_rng: np.random.Generator | None = None
        self._opp_seed_rng: np.random.Generator | None = None
        self._opponent_obj: Any = None
        #: games of 3+ sides with a pool: (object, policy) of each extra opponent seat drawn
        #: this episode, for the sides after the first opponent's (``None``: one opponent
        #: plays every other side)
        self._extra_opps: list[tuple[Any, Callable[[np.ndarray, np.ndarray], Any]]] | None = None
        self._seat_policy: dict[int, Callable[[np.ndarray, np.ndarray], Any]] = {}
        self.state: State | None = None
        self.learner: int = self._fixed_seat if self._fixed_seat is not None else 0
        self.decisions = 0
        self._paid = 0.0
        self._done = True
        self._illegal: str | None = None
        self._warned_illegal = False
        #: the learner's mask at the current node, built once per reset/step (``None``: stale)
        self._mask: np.ndarray | None = None
        self.set_opponent(opponent)

    # -- configuration ------------------------------------------------------------------------
    def _parse_seat(self, seat: int | str) -> int | None:
        g = self.game
        if isinstance(seat, str):
            if seat == "random":
                return None
            if seat in g.side_names:
                return g.side_names.index(seat)
            raise ParameterError(f"seat {seat!r} is not 'random', a side index or one of "
                                 f"{list(g.side_names)}")
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) \
                and 0 <= int(seat) < g.num_players:
            return int(seat)
        raise ParameterError(f"seat {seat!r} must be 'random', 0..{g.num_players - 1} or a side "
                             f"name in {list(g.side_names)}")

    def set_opponent(self, opponent: OpponentFn | OpponentSampler | None) -> None:
        """Replace the opponent. A callable (or policy with ``act``) plays from the next opponent
        decision on; a sampler is asked for an opponent now (when the env has been reset) and at
        every reset; ``None`` is uniform random over the mask (the env's own stream).

        Raises:
            ParameterError: for an object that is neither callable, nor a policy, nor a sampler.
        """
        if opponent is not None and not (hasattr(opponent, "sample_opponent")
                                         or callable(opponent) or hasattr(opponent, "act")):
            raise ParameterError(f"opponent {opponent!r} is not callable (obs, mask) -> int, "
                                 "a policy with act(), or a sampler with sample_opponent(rng)")
        self._opponent_spec = opponent
        self._extra_opps, self._seat_policy = None, {}
        if not hasattr(opponent, "sample_opponent"):
            self._use_opponent(opponent)
        elif self._pool_rng is not None:
            self._use_opponent(opponent.sample_opponent(self._pool_rng))
        else:
            self._use_opponent(None)  # until the first reset samples one

    def _use_opponent(self, opp: Any) -> None:
        self._opponent_obj, self._policy = self._policy_of(opp)

    def _policy_of(self, opp: Any) -> tuple[Any, Callable[[np.ndarray, np.ndarray], Any]]:
        if opp is None:
            return None, self._random_opponent
        if getattr(opp, "reads_state", False) and callable(getattr(opp, "step", None)):
            # an agent that decides from the state (a search agent): step(state) on the state
            # the env is advancing, which is at that agent's decision when it is asked
            return opp, lambda observation, action_mask: opp.step(self.state)
        if callable(opp):
            return opp, opp
        if hasattr(opp, "act"):
            return opp, opp.act
        raise ParameterError(f"sampled opponent {opp!r} is not callable (obs, mask) -> int")

    def _random_opponent(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[int(self._random_opp_rng.integers(len(legal)))])

    @property
    def opponent(self) -> Any:
        """The opponent currently playing (the sampled one when a sampler was given; ``None``
        for the built-in uniform random opponent)."""
        return self._opponent_obj

    # -- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game and advance it to the learner's first decision.

        ``options`` may hold ``{"seat": ...}`` to fix the learner's side for this episode;
        any other key is refused (:func:`check_reset_options`: the scenario and parameters
        are fixed when the env is made).
        Returns ``(observation float32 (observation_size,), info)``.

        Raises:
            TypeError, ValueError: for a ``seed`` that is not a non-negative int or None.
            ParameterError: for an ``options`` key other than ``"seat"`` (e.g.
                ``"scenario"``).
            InvalidStateError: when 100 fresh games in a row end (or hit ``max_decisions``)
                before the learner's first decision.
        """
        seed = check_seed(seed)
        options = check_reset_options(options, ("seat",), "Gym env")
        super().reset(seed=seed)
        if seed is not None or self._chance_rng is None:
            (self._chance_rng, self._seat_rng, self._random_opp_rng, self._pool_rng,
             self._opp_seed_rng) = self.np_random.spawn(5)
        fixed = self._fixed_seat
        if options and "seat" in options:
            fixed = self._parse_seat(options["seat"])
        n = self.game.num_players
        self._extra_opps = None
        if hasattr(self._opponent_spec, "sample_opponent"):
            self._use_opponent(self._opponent_spec.sample_opponent(self._pool_rng))
            if n > 2:  # each further opponent seat is drawn from the pool too
                self._extra_opps = [self._policy_of(self._opponent_spec.sample_opponent(
                    self._pool_rng)) for _ in range(n - 2)]
        for obj in [self._opponent_obj] + [o for o, _ in self._extra_opps or ()]:
            opp_reset = getattr(obj, "reset", None)
            if callable(opp_reset):  # agents.policies.base protocol: reset(seed) before every game
                opp_reset(seed=int(self._opp_seed_rng.integers(2**63)))
        for _ in range(100):
            self.learner = fixed if fixed is not None else int(
                self._seat_rng.integers(self.game.num_players))
            self._seat_policy = {}
            if self._extra_opps is not None:
                others = [(self.learner + k) % n for k in range(1, n)]
                pols = [self._policy] + [p for _, p in self._extra_opps]
                self._seat_policy = dict(zip(others, pols))
            self.state = self.game.new_initial_state()
            self.decisions = 0
            self._paid = 0.0
            self._illegal = None
            self._mask = None
            truncated = self._advance()
            if not truncated and not self.state.is_terminal():
                self._done = False
                return self._observation(), self._info()
        raise InvalidStateError(
            f"reset(): 100 games of {self.game.config()} ended or reached max_decisions="
            f"{self.max_decisions} before the learner (side {self.learner}) had to decide")

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the learner's ``action`` and advance to its next decision (or the end).

        Returns ``(observation float32 (observation_size,), reward float, terminated, truncated,
        info)``, all from the learner's point of view.

        Raises:
            IllegalActionError: for an action the learner may not take here (naming it, the
                rule ids that mask it and the legal labels), unless ``illegal_action="loss"``;
                also when the opponent returns an illegal action (naming the opponent).
            ResetNeededError: when called before ``reset`` (or after ``close``) or after the
                episode ended (an :class:`~envs.core.errors.InvalidStateError` and a
                ``RuntimeError``).
        """
        if self.state is None:
            raise reset_needed("step")
        if self._done:
            raise ResetNeededError("step() after the episode ended: call reset() to start the "
                                   "next one")
        st = self.state
        aid = as_action_id(action)
        if aid is None or not (0 <= aid < self.game.num_distinct_actions) \
                or aid not in st.legal_actions():
            msg = illegal_message(st, action, "learner")
            if self.illegal_action == "raise":
                raise IllegalActionError(msg)
            if not self._warned_illegal:
                self._warned_illegal = True
                warnings.warn(f"illegal action ends the episode as a loss (illegal_action="
                              f"'loss'; pass illegal_action='raise' to debug): {msg}",
                              UserWarning, stacklevel=2)
            self._illegal = msg
            self._done = True
            self._mask = None
            return self._finish_illegal()
        st.apply_action_unchecked(aid)  # checked just above
        self._mask = None
        self.decisions += 1
        truncated = self._advance()
        terminated = st.is_terminal()
        reward = self._collect_reward()
        self._done = terminated or truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions: bool array of shape ``(num_distinct_actions,)``; all
        ``False`` once the episode is over.

        Raises:
            ResetNeededError: before ``reset`` (or after ``close``): there is no game to ask.
        """
        if self.state is None:
            raise reset_needed("action_masks")
        if self._mask is None:
            st = self.state
            if self._done or st.current_player() != self.learner:
                self._mask = np.zeros(self.game.num_distinct_actions, dtype=bool)
            else:
                self._mask = st.legal_action_mask()
        return self._mask.copy()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the learner's ``observation_string`` and the last few events (a str);
        ``"rgb_array"``: the whole table, ``(H, W, 3)`` uint8 (see
        :mod:`envs.adapters.rendering`; before ``reset``, the initial table)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, self.state)
        return render_text(self.game, self.state, self.learner)

    def close(self) -> None:
        self.state = None
        self._mask = None

    # -- internals -------------------------------------------------------------------------------
    def _advance(self) -> bool:
        """Resolve chance and opponent decisions until the learner is on move or the game ends.
        Returns ``True`` when stopped by ``max_decisions`` (truncation)."""
        st, g = self.state, self.game
        while True:
            p = st.current_player()
            if p == TERMINAL:
                return False
            if p == CHANCE:
                st.apply_action_unchecked(sample_chance_outcome(st, self._chance_rng))
                continue
            if self.decisions >= self.max_decisions:
                return True
            if p == self.learner:
                return False
            mask = st.legal_action_mask()
            if not mask.any():
                dt = decision_name(st)
                raise InvalidStateError(
                    f"all-false action mask at a decision: side {p} ({g.side_names[p]}), "
                    f"decision {dt!r}, step {len(st.history)} (the ruleset offers no action)")
            policy = self._seat_policy.get(p, self._policy)
            choice = policy(g.observation(st, p), mask.copy())
            aid = as_action_id(choice)
            if aid is None or not (0 <= aid < g.num_distinct_actions) or not mask[aid]:
                raise IllegalActionError(illegal_message(
                    st, choice, f"opponent {opponent_name(policy)}"))
            st.apply_action_unchecked(aid)
            self.decisions += 1

    def _collect_reward(self) -> float:
        now = float(self.state.returns()[self.learner])
        reward, self._paid = now - self._paid, now
        return reward

    def _finish_illegal(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        n = self.game.num_players
        returns = [1.0 / (n - 1) if s != self.learner else -1.0 for s in range(n)]
        reward = returns[self.learner] - self._paid
        self._paid = returns[self.learner]
        info = self._info()
        info.update(returns=returns, winner=None if n > 2 else 1 - self.learner,
                    illegal_action=self._illegal)
        return self._observation(), reward, True, False, info

    def _observation(self) -> np.ndarray:
        return np.array(self.game.observation(self.state, self.learner), dtype=np.float32)

    def _info(self) -> dict[str, Any]:
        st, g = self.state, self.game
        info: dict[str, Any] = {
            "action_mask": self.action_masks(),
            "decision_type": decision_name(st),
            "side": self.learner,
            "side_name": g.side_names[self.learner],
            "seat": self.learner,
            "decisions": self.decisions,
            "opponent": "random" if self._opponent_obj is None
            else opponent_name(self._opponent_obj),
        }
        if self._extra_opps is not None:
            info["opponents"] = {int(s): "random" if o is None else opponent_name(o)
                                 for s, o in zip(
                    [(self.learner + k) % g.num_players for k in range(1, g.num_players)],
                    [self._opponent_obj] + [o for o, _ in self._extra_opps])}
        if self.info_labels and st.current_player() == self.learner:
            info["legal_action_labels"] = st.legal_labels()
        if st.is_terminal():
            returns = [float(r) for r in st.returns()]
            info["returns"] = returns
            info["winner"] = winner_of(returns)
        return info


