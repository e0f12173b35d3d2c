"""Riposte's rulesets as OpenSpiel games (``pyspiel``, the optional ``openspiel`` extra).

Importing this module registers one OpenSpiel game per built-in ruleset with
``pyspiel.register_game``:

==========================  ====================  =================================================
OpenSpiel short name        Riposte ruleset       information
==========================  ====================  =================================================
``riposte_acw_regimental``  ``acw_regimental``    perfect
``riposte_atomic_africa``   ``atomic_africa``     imperfect (face-down orders, Reserves, decks)
``riposte_skirmish_alert``  ``skirmish_alert``    perfect (2 to 4 teams)
==========================  ====================  =================================================

so that ``pyspiel.load_game("riposte_acw_regimental(scenario=example_a_closing_volley)")`` works.

Game parameters (OpenSpiel's game-string syntax, ``name(key=value,...)``):

* ``scenario`` (str): a built-in scenario name of the ruleset; default ``default`` (the
  ruleset's default battle). Paths are not accepted through the game string.
* ``prefix`` (str): decision and chance ids joined by ``;`` (``13;62;1``), played from the
  scenario's start before the game begins: the game's root is the state they reach (a subgame,
  e.g. a decision point small enough to solve exactly). Default empty: the scenario's start.
* every field of the ruleset's parameter model (``ACWParams``, ``AAParams``,
  ``AlertParams``) by its own name, with its own default and OpenSpiel type (bool, int, float,
  str). Two encodings: a parameter whose Riposte default is ``None`` (``turns``, ``rounds``,
  the skirmish ``max_decisions``) is an int whose value ``0`` stands for ``None`` (the
  scenario's / no cap); a list parameter (``range_bands_cm``, ``non_triggering_actions``) is a
  str of its items joined by ``;`` (``range_bands_cm=10.0;20.0;40.0``).

Bad input is refused by OpenSpiel's own checks (``Unknown parameter 'x'. Available parameters
are: ...``, ``Wrong type for parameter turns ...``) or, for a value the ruleset refuses (an
unknown scenario, ``turns=0`` where the ruleset needs at least 1), by ``pyspiel.SpielError``
naming the parameter.

Mapping of Riposte's protocol (:mod:`envs.core.protocol`) to OpenSpiel's:

* decisions and chance outcomes keep Riposte's ids; ``action_to_string`` gives Riposte's labels
  (``react:closing_volley``, ``d6=3``); ``chance_outcomes`` are Riposte's, explicit
  (``ChanceMode.EXPLICIT_STOCHASTIC``); players are sides, chance is ``-1``, terminal ``-4``;
* returns are Riposte's terminal returns in ``[-1, 1]``, zero-sum for any number of sides
  (``Utility.ZERO_SUM``, ``RewardModel.TERMINAL``);
* ``GameInfo.max_game_length`` is the Riposte game's ``max_game_length`` (its decision cap or
  bound; chance outcomes are not counted, as in OpenSpiel);
* ``observation_tensor`` / ``observation_string`` are the ruleset's observer
  (``Game.observation`` / ``Game.observation_string``: egocentric, float32, the layout's pieces
  are the observer's ``dict``). For Atomic Africa ``information_state_string`` is perfect
  recall: the side's own decisions and every change of its observation string, in order; its
  ``information_state_tensor`` is the side's observation (Riposte's observer keeps what a side
  has seen: revealed orders, discards, its Reserve), of fixed size but not a full recall of the
  past. For the perfect-information rulesets ``information_state_string`` is the history of
  labels, as for OpenSpiel's own perfect-information games;
* ``serialize`` / ``deserialize`` carry Riposte's lossless JSON (``State.to_json``).

Also here: :class:`RiposteBot` (a Riposte policy as an OpenSpiel bot), :class:`SidePolicies`
(Riposte policies as an OpenSpiel ``Policy``, for ``exploitability`` and
``expected_game_score``) and :func:`resample_from_infostate` (a determinisation of the hidden
cards, for information-set search). ``docs/openspiel.md`` has the examples.
"""

from __future__ import annotations

import copy
import json
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python import policy as openspiel_policy
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError("envs.adapters.openspiel needs OpenSpiel: pip install 'riposte[openspiel]' "
                      "(or pip install open-spiel)") from e

from envs.core.errors import RiposteError
from envs.core.frames import HiddenCommit
from envs.core.protocol import CHANCE, Game as RiposteGame, State as RiposteState
from envs.core.registry import game_class, load_game

#: Riposte ruleset id -> OpenSpiel short name
SHORT_NAMES: dict[str, str] = {"acw_regimental": "riposte_acw_regimental",
                               "atomic_africa": "riposte_atomic_africa",
                               "skirmish_alert": "riposte_skirmish_alert"}
#: rulesets with hidden information (an information-state string and tensor of their own)
IMPERFECT: frozenset[str] = frozenset({"atomic_africa"})
#: separator of the items of a list parameter inside the game string
LIST_SEPARATOR = ";"


def _param_models() -> dict[str, type]:
    from envs.rulesets.acw_regimental.params import ACWParams
    from envs.rulesets.atomic_africa.params import AAParams
    from envs.rulesets.skirmish_alert.params import AlertParams

    return {"acw_regimental": ACWParams, "atomic_africa": AAParams,
            "skirmish_alert": AlertParams}


@dataclass(frozen=True)
class _Param:
    """How one Riposte parameter travels through OpenSpiel's game string."""

    name: str
    kind: str  # "plain", "optional" (0 is None) or "list"
    item: type  # the item type of a list, the value type otherwise
    default: Any  # the OpenSpiel default (bool, int, float or str)

    def to_riposte(self, value: Any) -> Any:
        if self.kind == "optional":
            return None if value == 0 else value
        if self.kind == "list":
            items = [s.strip() for s in str(value).split(LIST_SEPARATOR) if s.strip()]
            try:
                return [self.item(s) for s in items]
            except ValueError:
                raise pyspiel.SpielError(
                    f"Wrong value for parameter {self.name}: {value!r} is not a "
                    f"'{LIST_SEPARATOR}'-separated list of {self.item.__name__}") from None
        return value


def _params_of(model: type) -> dict[str, _Param]:
    """The OpenSpiel form of every field of a pydantic parameter model."""
    out: dict[str, _Param] = {}
    for name, field in model.model_fields.items():
        default = field.get_default(call_default_factory=True)
        ann = field.annotation
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if default is None:
            out[name] = _Param(name, "optional", args[0], 0)
        elif isinstance(default, (list, tuple)):
            item = typing.get_args(ann)[0] if typing.get_args(ann) else str
            out[name] = _Param(name, "list", item,
                               LIST_SEPARATOR.join(str(v) for v in default))
        else:
            out[name] = _Param(name, "plain", type(default), default)
    return out


@dataclass(frozen=True)
class _Spec:
    """Everything registration needs for one ruleset."""

    ruleset: str
    params: dict[str, _Param]
    scenarios: tuple[str, ...]
    game_type: Any


def builtin_scenarios(ruleset: str) -> tuple[str, ...]:
    """The built-in scenario names of ``ruleset`` (the stems of its ``scenario_dir``), sorted."""
    folder = game_class(ruleset).scenario_dir
    return tuple(sorted(p.stem for p in folder.glob("*.toml"))) if folder else ()


def _build_spec(ruleset: str, model: type) -> _Spec:
    params = _params_of(model)
    scenarios = builtin_scenarios(ruleset)
    players = [load_game(ruleset, name).num_players for name in scenarios]
    imperfect = ruleset in IMPERFECT
    info = (pyspiel.GameType.Information.IMPERFECT_INFORMATION if imperfect
            else pyspiel.GameType.Information.PERFECT_INFORMATION)
    spec = {"scenario": "default", "prefix": "", **{n: p.default for n, p in params.items()}}
    game_type = pyspiel.GameType(
        short_name=SHORT_NAMES[ruleset],
        long_name=f"Riposte {ruleset}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=info,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=imperfect,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec)
    return _Spec(ruleset, params, scenarios, game_type)


_SPECS: dict[str, _Spec] = {}


def riposte_params(ruleset: str, params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The Riposte ``(scenario, params)`` of OpenSpiel game parameters of ``ruleset`` (only the
    parameters given; the ruleset fills in its defaults).

    Raises:
        pyspiel.SpielError: an unknown scenario name (names the parameter and the choices), or
            a list parameter whose items do not parse.
    """
    spec = _SPECS[ruleset]
    scenario = params.get("scenario", "default")
    if scenario not in spec.scenarios:
        raise pyspiel.SpielError(
            f"Wrong value for parameter scenario: unknown scenario {scenario!r} of "
            f"{SHORT_NAMES[ruleset]} (built-in: {', '.join(spec.scenarios)})")
    out = {name: spec.params[name].to_riposte(value)
           for name, value in params.items() if name not in ("scenario", "prefix")}
    return scenario, out


def openspiel_params(game: RiposteGame) -> dict[str, Any]:
    """The OpenSpiel game parameters that load the same game as Riposte ``game`` (built-in
    scenario only): the inverse of :func:`riposte_params`, every parameter spelt out."""
    spec = _SPECS[game.ruleset_id]
    out: dict[str, Any] = {"scenario": game.scenario_name}
    for name, p in spec.params.items():
        v = game.params[name]
        if p.kind == "optional":
            v = 0 if v is None else v
        elif p.kind == "list":
            v = LIST_SEPARATOR.join(str(x) for x in v)
        out[name] = v
    return out


# -- the game and its states -------------------------------------------------------------------
class _Holder:
    """The Riposte state inside an OpenSpiel state, its information-state trails and a memo of
    its observations.

    OpenSpiel's Python states are cloned by ``copy.deepcopy`` of their attributes and serialised
    by pickling them: here a deep copy is Riposte's ``clone`` (sharing the immutable game) and a
    pickle is Riposte's lossless JSON. A fresh state refers to its game's root (``proto``) and
    copies it on first use, so that the fresh state OpenSpiel makes before copying another into
    it costs nothing, and its observations (what OpenSpiel's tensor-shape queries ask for) are
    the root's, computed once.
    """

    __slots__ = ("game", "_state", "trails", "memo", "proto")

    def __init__(self, game: RiposteGame, state: RiposteState | None = None,
                 trails: list[list[str]] | None = None, proto: "_Holder | None" = None):
        self.game = game
        self._state = state
        #: per side: its information-state entries (imperfect-information rulesets only)
        self.trails = trails
        #: ``(kind, side) -> observation`` of the current state, emptied by every action
        self.memo: dict[tuple[str, int], Any] = {}
        self.proto = proto

    @classmethod
    def root(cls, game: RiposteGame, prefix: list[int]) -> "_Holder":
        """The state after ``prefix`` (decision and chance ids) from the start of ``game``."""
        h = cls(game, game.new_initial_state())
        if game.ruleset_id in IMPERFECT:
            h.trails = [[h.observation_string(p)] for p in range(game.num_players)]
        for action in prefix:
            h.apply(action)
        return h

    @property
    def state(self) -> RiposteState:
        if self._state is None:
            p = self.proto
            self._state = p.state.clone()
            self.trails = None if p.trails is None else [list(t) for t in p.trails]
            self.memo = dict(p.memo)
        return self._state

    def apply(self, action: int) -> None:
        """Apply a decision or chance outcome (checked by Riposte) and extend the trails."""
        s = self.state
        p = s.current_player()
        s.apply_action(int(action))
        self.memo.clear()
        if self.trails is not None:
            for side, trail in enumerate(self.trails):
                if side == p:
                    trail.append(f"> {self.game.actions.labels[action]}")
                obs = self.observation_string(side)
                if obs != trail[-1]:
                    trail.append(obs)

    def observation(self, side: int) -> np.ndarray:
        """The side's observation (float32, shape ``(observation_size,)``; do not modify)."""
        if self._state is None:
            return self.proto.observation(side)
        key = ("tensor", side)
        out = self.memo.get(key)
        if out is None:
            out = self.memo[key] = self.game.observation(self._state, side)
        return out

    def observation_string(self, side: int) -> str:
        if self._state is None:
            return self.proto.observation_string(side)
        key = ("string", side)
        out = self.memo.get(key)
        if out is None:
            out = self.memo[key] = self.game.observation_string(self._state, side)
        return out

    def __deepcopy__(self, memo: dict) -> "_Holder":
        if self._state is None:
            return _Holder(self.game, proto=self.proto)
        out = _Holder(self.game, self._state.clone(),
                      None if self.trails is None else [list(t) for t in self.trails])
        out.memo = dict(self.memo)
        return out

    def __reduce__(self):
        state = self.state
        return (_restore, (state.to_json(), self.trails))


def _restore(text: str, trails: list[list[str]] | None) -> _Holder:
    state = RiposteState.from_json(text)
    return _Holder(state.game, state, trails)


class RiposteOpenSpielGame(pyspiel.Game):
    """One Riposte game (ruleset + built-in scenario + parameters) as an OpenSpiel game.

    Attributes:
        riposte: the Riposte :class:`~envs.core.protocol.Game` it plays.

    Raises:
        pyspiel.SpielError: a parameter value the ruleset refuses (the message names it).
    """

    ruleset: str = ""

    def __init__(self, params: Mapping[str, Any] | None = None):
        spec = _SPECS[self.ruleset]
        given = dict(params or {})
        scenario, rparams = riposte_params(self.ruleset, given)
        try:
            self.riposte = load_game(self.ruleset, scenario, rparams)
        except RiposteError as e:
            raise pyspiel.SpielError(f"{SHORT_NAMES[self.ruleset]}: {e}") from None
        g = self.riposte
        text = str(given.get("prefix", ""))
        try:
            self.prefix = [int(a) for a in text.split(LIST_SEPARATOR) if a.strip()]
            #: the state every new state starts from: the scenario's start after ``prefix``
            self.root = _Holder.root(g, self.prefix)
        except (ValueError, RiposteError) as e:
            raise pyspiel.SpielError(
                f"Wrong value for parameter prefix: {text!r} is not a '{LIST_SEPARATOR}'-"
                f"separated list of legal action ids from the start of {g.scenario_name} "
                f"({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
        info = pyspiel.GameInfo(
            num_distinct_actions=g.num_distinct_actions,
            max_chance_outcomes=g.max_chance_outcomes,
            num_players=g.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=g.max_game_length)
        super().__init__(spec.game_type, info, given)

    def new_initial_state(self) -> "RiposteOpenSpielState":
        return RiposteOpenSpielState(self)

    def state_from_riposte(self, state: RiposteState) -> "RiposteOpenSpielState":
        """An OpenSpiel state holding a clone of Riposte ``state`` (of this game's ruleset,
        scenario and parameters), with its history replayed into OpenSpiel's.

        Raises:
            pyspiel.SpielError: a state of another game.
        """
        if state.game.config() != self.riposte.config():
            raise pyspiel.SpielError(f"state of {state.game.config()} given to a game of "
                                     f"{self.riposte.config()}")
        done = [a for _, a in state.history]
        if done[:len(self.prefix)] != self.prefix:
            raise pyspiel.SpielError("the state does not start with this game's prefix")
        out = self.new_initial_state()
        for action in done[len(self.prefix):]:
            out.apply_action(action)
        return out

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer OpenSpiel asks for: the information state when ``perfect_recall``,
        else the observation.

        Raises:
            ValueError: observer parameters (none are supported).
        """
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return InformationStateObserver(self.riposte)
        return ObservationObserver(self.riposte)


class RiposteOpenSpielState(pyspiel.State):
    """An OpenSpiel state over a Riposte state (``.riposte``)."""

    def __init__(self, game: RiposteOpenSpielGame):
        super().__init__(game)
        self._h = _Holder(game.riposte, proto=game.root)

    @property
    def riposte(self) -> RiposteState:
        """The Riposte state (its ``decision_type``, ``events``, ``why_illegal`` ...)."""
        return self._h.state

    def current_player(self) -> int:
        p = self.riposte.current_player()
        return pyspiel.PlayerId.CHANCE if p == CHANCE else (
            pyspiel.PlayerId.TERMINAL if p < 0 else p)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.riposte.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.riposte.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        self._h.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.riposte.action_to_string(action, CHANCE if player < 0 else player)

    def is_terminal(self) -> bool:
        return self.riposte.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.riposte.returns()]

    def __str__(self) -> str:
        return json.dumps(self.riposte._to_dict(), sort_keys=True)


class ObservationObserver:
    """OpenSpiel's observer interface over the ruleset's observer: ``tensor`` (float32, shape
    ``(observation_size,)``), ``dict`` (the layout's named pieces, views into ``tensor``)."""

    def __init__(self, game: RiposteGame):
        self.game = game
        self.tensor = np.zeros(game.observation_size, np.float32)
        layout = getattr(game, "layout", None)
        self.dict = (dict(layout.split(self.tensor)) if layout is not None
                     else {"observation": self.tensor})

    def set_from(self, state: RiposteOpenSpielState, player: int) -> None:
        self.tensor[:] = state._h.observation(player)

    def string_from(self, state: RiposteOpenSpielState, player: int) -> str:
        return state._h.observation_string(player)


class InformationStateObserver(ObservationObserver):
    """The information state: perfect recall as a string (the history of labels under perfect
    information; the side's own decisions and observation changes under hidden information);
    as a tensor the side's observation, only for the imperfect-information rulesets."""

    def __init__(self, game: RiposteGame):
        super().__init__(game)
        if game.ruleset_id not in IMPERFECT:
            self.tensor = None
            self.dict = {}

    def set_from(self, state: RiposteOpenSpielState, player: int) -> None:
        if self.tensor is not None:
            super().set_from(state, player)

    def string_from(self, state: RiposteOpenSpielState, player: int) -> str:
        h = state._h
        s = h.state
        if h.trails is not None:
            return f"side {player}\n" + "\n".join(h.trails[player])
        cat_c, cat_d = h.game.chance.labels, h.game.actions.labels
        return " ".join(cat_c[a] if p == CHANCE else f"{p}:{cat_d[a]}" for p, a in s.history)


# -- Riposte policies as OpenSpiel bots and policies ---------------------------------------------
def _act(policy: Any, state: RiposteOpenSpielState, player: int, seed: int | None) -> int:
    rs = state.riposte
    if seed is not None and callable(getattr(policy, "reset", None)):
        policy.reset(seed)
    act = getattr(policy, "act", policy)
    return int(act(rs.game.observation(rs, player), rs.legal_action_mask()))


class RiposteBot(pyspiel.Bot):
    """A Riposte policy (anything with ``act(observation, action_mask) -> int``, e.g.
    ``agents.builtin.make_agent("heuristic", game)``) as an OpenSpiel bot of ``player``: it sees
    what the policy would see in Riposte, the side's observation and the legal mask.

    Args:
        policy: the Riposte policy.
        player: the side it plays.
        seed: passed to ``policy.reset`` at every ``restart_at`` (the start of a game), when
            the policy has one.
    """

    def __init__(self, policy: Any, player: int, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        self.policy, self.player, self.seed = policy, player, seed

    def step(self, state: RiposteOpenSpielState) -> int:
        return _act(self.policy, state, self.player, None)

    def restart_at(self, state: RiposteOpenSpielState) -> None:
        if self.seed is not None and callable(getattr(self.policy, "reset", None)):
            self.policy.reset(self.seed)

    def inform_action(self, state: RiposteOpenSpielState, player: int, action: int) -> None:
        return None

    def provides_policy(self) -> bool:
        return False


def policy_probabilities(policy: Any, state: RiposteOpenSpielState, player: int,
                         seed: int = 0) -> dict[int, float]:
    """The action distribution of a Riposte policy at ``state``: uniform over the legal actions
    for a policy named ``random``; otherwise the one action it chooses after ``reset(seed)``
    (a deterministic policy of the side's observation: ties a policy breaks at random are
    broken the same way at every visit)."""
    legal = state.legal_actions(player)
    if getattr(policy, "name", None) == "random":
        return {a: 1.0 / len(legal) for a in legal}
    return {_act(policy, state, player, seed): 1.0}


class SidePolicies(openspiel_policy.Policy):
    """One Riposte policy per side as an OpenSpiel ``Policy`` (what ``exploitability``,
    ``nash_conv`` and ``expected_game_score`` take); see :func:`policy_probabilities`.

    Args:
        game: the OpenSpiel game.
        policies: one Riposte policy per side, in side order.
        seed: the seed of :func:`policy_probabilities`.
    """

    def __init__(self, game: RiposteOpenSpielGame, policies: list[Any], seed: int = 0):
        super().__init__(game, list(range(game.num_players())))
        self.policies, self.seed = list(policies), seed

    def action_probabilities(self, state: RiposteOpenSpielState,
                             player_id: int | None = None) -> dict[int, float]:
        p = state.current_player() if player_id is None else player_id
        return policy_probabilities(self.policies[p], state, p, self.seed)


# -- hidden information: sampling a state the side cannot tell from the real one -------------------
def resample_from_infostate(state: RiposteOpenSpielState, player: int,
                            rng: np.random.Generator) -> RiposteOpenSpielState:
    """A state ``player`` cannot tell from ``state`` (for information-set search, e.g.
    ``ismcts.ISMCTSBot.set_resampler``): a determinisation. For every other side, the cards of
    its zones that ``player`` may not see (its Reserve, face-down orders, deck) are pooled and
    dealt back at random into those zones, each keeping its size; a commitment of that side
    inside an open hidden commitment (:class:`~envs.core.frames.HiddenCommit`) is chosen
    again, uniformly among its legal options in the dealt state. What ``player`` sees — its
    observation and information-state string — is unchanged. Under perfect information the
    state is cloned. The other sides' information-state strings start afresh at the dealt
    state (their past is not ``player``'s to know).

    Args:
        state: the real state.
        player: the side whose information is kept.
        rng: the generator the deal draws from.
    """
    out = state.clone()
    rs = out.riposte
    zones = getattr(rs, "zones", None)
    if zones is None:
        return out
    sides = range(rs.game.num_players)
    for other in sides:
        if other == player:
            continue
        hidden = [z for z in zones if z.owner == other and not z.visible_to(player)]
        pool = [c for z in hidden for c in z.cards]
        rng.shuffle(pool)
        i = 0
        for z in hidden:
            n = len(z.cards)
            z.cards = sorted(int(c) for c in pool[i:i + n])
            i += n
    stack = getattr(rs, "stack", None)
    for frame in (stack if stack is not None else ()):
        if isinstance(frame, HiddenCommit) and None in frame.choices:
            for i, side in enumerate(frame.sides):
                if side != player and frame.choices[i] is not None:
                    frame.choices[i] = None  # asked first again: legal_actions asks this side
                    if frame.choices.index(None) == i:
                        frame.choices[i] = int(rng.choice(frame.legal_actions(rs)))
    rs._legal_cache = None
    h = out._h
    h.memo.clear()
    for other in sides:  # the other sides' pasts are not known: their trails start here
        if other != player:
            h.trails[other] = ["(resampled)", h.observation_string(other)]
    return out


# -- registration ------------------------------------------------------------------------------
def _game_class(ruleset: str) -> type:
    return type(f"Riposte{''.join(w.title() for w in ruleset.split('_'))}OpenSpielGame",
                (RiposteOpenSpielGame,), {"ruleset": ruleset, "__module__": __name__})


GAME_CLASSES: dict[str, type] = {}


def register_games() -> None:
    """Register every ruleset with OpenSpiel (idempotent). The specifications of all three are
    built before the first registration, so that a failure registers none."""
    if GAME_CLASSES:
        return
    specs = {rs: _build_spec(rs, model) for rs, model in _param_models().items()}
    classes = {rs: _game_class(rs) for rs in specs}
    _SPECS.update(specs)
    known = set(pyspiel.registered_names())
    for rs, spec in specs.items():
        if spec.game_type.short_name not in known:
            pyspiel.register_game(spec.game_type, classes[rs])
    GAME_CLASSES.update(classes)


def load(ruleset: str, scenario: str = "default", **params: Any):
    """``pyspiel.load_game`` of a Riposte ruleset by its Riposte id, e.g.
    ``load("skirmish_alert", "duel", rounds=2)`` (OpenSpiel parameter encodings)."""
    return pyspiel.load_game(SHORT_NAMES[ruleset], {"scenario": scenario, **params})


register_games()

__all__ = ["GAME_CLASSES", "IMPERFECT", "SHORT_NAMES", "RiposteBot", "RiposteOpenSpielGame",
           "RiposteOpenSpielState", "SidePolicies", "builtin_scenarios", "load",
           "openspiel_params", "policy_probabilities", "register_games", "resample_from_infostate",
           "riposte_params"]
