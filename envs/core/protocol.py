"""The decision-point protocol (OpenSpiel vocabulary) shared by every Riposte ruleset.

A :class:`Game` is immutable and holds the static facts of one ruleset + scenario + parameters
(number of distinct actions, chance outcomes, observation layout, sides, decision cap). A
:class:`State` is everything that changes. Every decision of a game — the active side's
maneuvers, the non-active side's reactions, a play from a Reserve — is one discrete action chosen
by ``current_player()``; every die roll or card draw is an explicit chance node whose outcome the
caller chooses (tests, replays) or samples with its own ``numpy.random.Generator``
(:mod:`envs.core.chance`). The state never owns a random generator.

What the core allows, because the later rulesets need it: any number of sides (``num_players``),
hidden per-side information (the observer takes a side; ``public_*`` helpers never leak), the same
side deciding many times in a row, decisions by a side that is not the active one, and chance
nodes whose outcomes are cards of a finite deck (probabilities need not be uniform).
"""

from __future__ import annotations

import abc
import copy
import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from .actions import ActionCatalogue
from .appendlog import AppendLog
from .drawing import Drawing, text_drawing
from .errors import IllegalActionError, InvalidStateError, RiposteError
from .events import Event, make_event
from .registry import GameClass, game_class, load_game

#: ``current_player()`` at a chance node (OpenSpiel's kChancePlayerId).
CHANCE: int = -1
#: ``current_player()`` at a terminal node (OpenSpiel's kTerminalPlayerId).
TERMINAL: int = -4


class DecisionType(str, enum.Enum):
    """The shared core set of decision types. Rulesets define their own ``str`` enums that reuse
    these values where they mean the same thing (``decision_type()`` returns a ``str`` enum
    member, so ``state.decision_type() == "reaction"`` works across rulesets)."""

    CHANCE = "chance"
    TERMINAL = "terminal"
    COMMAND = "command"
    MANEUVER = "maneuver"
    REACTION = "reaction"
    RESERVE_PLAY = "reserve_play"
    DECLARATION = "declaration"
    FIRE = "fire"


@dataclass(frozen=True, slots=True)
class Illegality:
    """Why an action is masked: the rule ids that forbid it and a short reason."""

    rules: tuple[str, ...]
    reason: str

    def __str__(self) -> str:
        return f"{', '.join(self.rules) or '-'}: {self.reason}"


#: the state class of a game (its ruleset's :class:`State` subclass)
GameStateT = TypeVar("GameStateT", bound="State")


class Game(abc.ABC, Generic[GameStateT]):
    """Static facts of one ruleset + scenario + parameters. Immutable after construction.

    Subclasses set, in ``__init__``: ``num_players``, ``side_names``, ``actions`` (decision
    catalogue), ``chance`` (chance-outcome catalogue), ``max_game_length`` (decision cap),
    ``decision_types`` (ordered tuple of decision-type values), ``scenario_name`` and ``params``
    (a JSON-serialisable mapping, part of the game's identity).
    """

    ruleset_id: ClassVar[str] = ""
    version: ClassVar[int] = 0
    #: whether the ruleset has a ``shaped_reward`` parameter (returns that move during the game,
    #: RULINGS 9); the envs' ``shaped_reward=True`` is refused for a ruleset without one
    has_shaped_reward: ClassVar[bool] = False
    #: the directory of the ruleset's built-in scenarios (``NAME.toml``, what a scenario name
    #: resolves to; :func:`envs.core.scenario.resolve_scenario_path`), None when it has none
    scenario_dir: ClassVar[Path | None] = None

    num_players: int
    side_names: tuple[str, ...]
    actions: ActionCatalogue
    chance: ActionCatalogue
    max_game_length: int
    decision_types: tuple[str, ...]
    scenario_name: str
    params: Mapping[str, Any]

    #: names of instance attributes that are memo caches (e.g. line-of-sight answers): a pure
    #: function of the game's facts, so pickling and ``copy.deepcopy`` carry them empty (a
    #: pickled state carries its game; a full cache made that up to a hundred times larger)
    _cache_attrs: ClassVar[tuple[str, ...]] = ()

    def __getstate__(self) -> dict[str, Any]:
        """Pickle / ``copy.deepcopy`` support: the instance dict with every cache of
        :attr:`_cache_attrs` replaced by an empty one of its type."""
        state = self.__dict__.copy()
        for name in self._cache_attrs:
            if name in state:
                state[name] = type(state[name])()
        return state

    @property
    def num_distinct_actions(self) -> int:
        return len(self.actions)

    @property
    def max_chance_outcomes(self) -> int:
        return len(self.chance)

    def config(self) -> dict[str, Any]:
        """The game's identity: ruleset, version, scenario and parameters (JSON-serialisable)."""
        return {"ruleset": self.ruleset_id, "version": self.version,
                "scenario": self.scenario_name, "params": dict(self.params)}

    @abc.abstractmethod
    def new_initial_state(self) -> GameStateT:
        """A fresh state at the start of the game."""

    @abc.abstractmethod
    def state_from_dict(self, data: Mapping[str, Any]) -> GameStateT:
        """Rebuild a state from ``State.to_dict()["state"]`` (lossless)."""

    # -- observations ---------------------------------------------------------------------
    @property
    @abc.abstractmethod
    def observation_size(self) -> int:
        """Length of the flat float32 observation vector (same for every side)."""

    @abc.abstractmethod
    def observation(self, state: GameStateT, side: int) -> np.ndarray:
        """Egocentric observation of ``side``: float32 array of shape ``(observation_size,)``."""

    @abc.abstractmethod
    def observation_string(self, state: GameStateT, side: int) -> str:
        """Human-readable twin of :meth:`observation` (no hidden information of other sides)."""

    # -- pictures ------------------------------------------------------------------------
    def drawing(self, state: GameStateT) -> Drawing:
        """The table of ``state`` as simple shapes (:mod:`envs.core.drawing`), the whole table
        as a spectator sees it. Rulesets override this; the default is the observation string of
        side 0 as text on a blank table."""
        return text_drawing(self.observation_string(state, 0).splitlines(),
                            caption=f"{self.ruleset_id}/{self.scenario_name}")

    def action_words(self, state: GameStateT, action: int) -> str:
        """Decision ``action`` at ``state`` in words for people (e.g. "Fire a Closing Volley at
        14th Brooklyn"); rulesets override this, the default is the action's label."""
        return self.actions.labels[action]


class State(abc.ABC):
    """Everything that changes during a game, behind the decision-point protocol.

    Subclasses implement the underscored hooks: ``current_player``, ``decision_type``,
    ``_legal_actions``, ``_chance_outcomes``, ``_apply_action``, ``_why_illegal``,
    ``returns``, ``_to_dict`` and ``clone``. The base class supplies checking, masks, labels,
    JSON and the event log.
    """

    #: names of instance attributes that are caches (closures, memoised predicates): dropped
    #: when the state is pickled or deep-copied (``clone`` drops them or carries them over,
    #: as the ruleset's clone says). Each must have a class-level default, which the copy
    #: then reads.
    _transient_attrs: ClassVar[tuple[str, ...]] = ()

    def __init__(self, game: Game[Any]):
        self.game = game
        #: structured event log (see :class:`envs.core.events.Event`); an append-only sequence
        #: that clones share (:class:`envs.core.appendlog.AppendLog`)
        self.events: AppendLog[Event] = AppendLog()
        #: ``(player, action)`` pairs in order; ``player`` is ``CHANCE`` for chance outcomes
        #: (an :class:`~envs.core.appendlog.AppendLog` too)
        self.history: AppendLog[tuple[int, int]] = AppendLog()
        self._legal_cache: list[int] | None = None

    # -- hooks -------------------------------------------------------------------------------
    @abc.abstractmethod
    def current_player(self) -> int:
        """Side index ``0..num_players-1``, or :data:`CHANCE`, or :data:`TERMINAL`."""

    @abc.abstractmethod
    def decision_type(self) -> str:
        """What is being decided now (a ``str`` enum member; ``"chance"`` / ``"terminal"``)."""

    @abc.abstractmethod
    def _legal_actions(self) -> list[int]:
        """Sorted legal decision ids for ``current_player()`` (only called at decisions)."""

    @abc.abstractmethod
    def _chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome_id, probability)`` pairs (only called at chance nodes)."""

    @abc.abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply a decision or chance outcome that is known to be legal."""

    @abc.abstractmethod
    def _why_illegal(self, action: int) -> Illegality:
        """Why the (masked) decision ``action`` is illegal here."""

    @abc.abstractmethod
    def returns(self) -> list[float]:
        """Per-side returns: zero-sum at the end, zeros before it."""

    @abc.abstractmethod
    def _to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dynamic fields (excluding events and history)."""

    @abc.abstractmethod
    def clone(self) -> "State":
        """An independent deep copy sharing only the immutable game."""

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> "State":
        """A full state drawn from those ``player`` cannot tell apart from this one (its
        information state; OpenSpiel's ``ResampleFromInfostate``): what ``player`` sees is
        kept, what it cannot see is drawn with ``rng`` consistently with what it sees. The
        draw reads only what ``player`` may see, so two states that differ only in what is
        hidden from ``player`` give the same sample for the same ``rng`` state.

        The default, for rulesets with no hidden information, is :meth:`clone` (``rng`` is
        not used); rulesets with hidden cards override it.

        Args:
            player: the side whose information is kept, ``0..num_players-1``.
            rng: the generator the hidden part is drawn with.

        Raises:
            InvalidStateError: for a ``player`` that is not a side of the game.
        """
        if not 0 <= player < self.game.num_players:
            raise InvalidStateError(f"resample_from_infostate: player {player} is not a side "
                                    f"(0..{self.game.num_players - 1})")
        return self.clone()

    # -- protocol ---------------------------------------------------------------------------
    def decision_name(self) -> str:
        """The plain string value of :meth:`decision_type` (``"reaction"``), for messages:
        ``str()`` of a ``str`` enum member gives ``Class.MEMBER`` on Python 3.11."""
        dt = self.decision_type()
        return str(getattr(dt, "value", dt))

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[int]:
        """Sorted legal ids: decision ids at a decision, outcome ids at a chance node, ``[]`` at
        the end. Never empty at a decision."""
        if self._legal_cache is None:
            p = self.current_player()
            if p == TERMINAL:
                self._legal_cache = []
            elif p == CHANCE:
                self._legal_cache = sorted(o for o, _ in self._chance_outcomes())
            else:
                self._legal_cache = self._legal_actions()
        return self._legal_cache

    def legal_action_mask(self) -> np.ndarray:
        """Legal decisions as a bool array of shape ``(num_distinct_actions,)``; all ``False`` at
        the end.

        Raises:
            InvalidStateError: at a chance node (use :meth:`chance_outcomes`).
        """
        p = self.current_player()
        if p == CHANCE:
            raise InvalidStateError("legal_action_mask() at a chance node; use chance_outcomes()")
        if p == TERMINAL:
            return np.zeros(self.game.num_distinct_actions, dtype=bool)
        return self.game.actions.mask(self.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome_id, probability)`` pairs summing to 1.

        Raises:
            InvalidStateError: when the node is not a chance node.
        """
        if self.current_player() != CHANCE:
            raise InvalidStateError(
                f"chance_outcomes() at a {self.decision_name()} node (current player "
                f"{self.current_player()})")
        return self._chance_outcomes()

    def apply_action(self, action: int | np.integer[Any]) -> None:
        """Apply a decision (at a decision node) or a chance outcome (at a chance node), checked.
        ``action`` is an id, a Python or numpy integer (recorded in the history as an ``int``).

        Raises:
            IllegalActionError: for an id that is out of range or not legal here; the message
                names the action, the side, the decision and the legal labels.
            InvalidStateError: at a terminal node.
        """
        p = self.current_player()
        if p == TERMINAL:
            raise InvalidStateError(f"apply_action({action!r}) after the game has ended")
        legal = self.legal_actions()
        if (isinstance(action, bool) or not isinstance(action, (int, np.integer))
                or int(action) not in legal):
            raise IllegalActionError(self._illegal_message(action, p))
        self.apply_action_unchecked(int(action))

    def apply_action_unchecked(self, action: int) -> None:
        """Fast path for simulations: the caller guarantees ``action`` is legal."""
        self.history.append((self.current_player(), action))
        self._legal_cache = None
        self._apply_action(action)
        self._legal_cache = None

    def why_illegal(self, action: int) -> Illegality | None:
        """``None`` when ``action`` is legal here, else the rule ids and reason it is masked."""
        p = self.current_player()
        if p == TERMINAL:
            return Illegality((), "the game has ended")
        if p == CHANCE:
            return None if action in self.legal_actions() else Illegality((), "not a chance outcome here")
        self.game.actions.label(action)  # range check, raises IllegalActionError
        if action in self.legal_actions():
            return None
        return self._why_illegal(int(action))

    def _illegal_message(self, action: Any, player: int) -> str:
        if player == CHANCE:
            cat, who = self.game.chance, "chance"
        else:
            cat, who = self.game.actions, f"side {player} ({self.game.side_names[player]})"
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            what = f"action {action!r} of type {type(action).__name__} (ids are ints 0..{len(cat) - 1})"
        elif 0 <= int(action) < len(cat):
            what = f"action {cat.labels[int(action)]!r} (id {int(action)})"
            why = self.why_illegal(int(action)) if player != CHANCE else None
            if why is not None:
                what += f" [{why}]"
        else:
            what = f"action id {int(action)} (out of range 0..{len(cat) - 1})"
        legal = [cat.labels[a] for a in self.legal_actions()]
        return (f"illegal {what} for {who} at decision {self.decision_name()}; "
                f"legal: {legal}")

    # -- labels -------------------------------------------------------------------------------
    def action_to_string(self, action: int, player: int | None = None) -> str:
        """Stable label of ``action``: a decision label, or a chance label (``d6=3``) when
        ``player`` (default: the current player) is :data:`CHANCE`."""
        p = self.current_player() if player is None else player
        cat = self.game.chance if p == CHANCE else self.game.actions
        return cat.label(action)

    def string_to_action(self, label: str) -> int:
        """Id of ``label`` at the current node (chance label at chance nodes).

        Raises:
            IllegalActionError: for a label unknown to the catalogue of this node.
        """
        cat = self.game.chance if self.current_player() == CHANCE else self.game.actions
        return cat.id(label)

    def legal_labels(self) -> list[str]:
        """Labels of :meth:`legal_actions` at this node."""
        cat = self.game.chance if self.current_player() == CHANCE else self.game.actions
        labels = cat.labels
        return [labels[a] for a in self.legal_actions()]

    # -- events ---------------------------------------------------------------------------------
    def log(self, kind: str, rules: tuple[str, ...] | list[str], text: str,
            side: int | None = None, **data: Any) -> None:
        """Append an :class:`Event` citing ``rules``."""
        # same object as ``Event(kind, tuple(rules), text, side, data)``, built faster (hot path)
        self.events.append(make_event(kind, tuple(rules), text, side, data))

    # -- serialisation --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game.config(), "state": self._to_dict(),
                "history": [list(h) for h in self.history],
                "events": [e.to_dict() for e in self.events]}

    def to_json(self, indent: int | None = None) -> str:
        """Lossless JSON of the state (with its game's identity, history and event log)."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @staticmethod
    def from_json(text: str | Mapping[str, Any], game: Game[Any] | None = None) -> "State":
        """Rebuild a state from :meth:`to_json` output.

        Args:
            text: the JSON text (or the already-parsed dict).
            game: the game to attach; built from the JSON's game config when ``None``.

        Raises:
            InvalidStateError: for text that is not valid JSON, or a document that is not a
                serialised state (names the missing or malformed key), or a state saved by
                another ruleset (names both) or another version of the ruleset (names both
                versions), or whose ``game`` has no integer ``version``.
            UnknownRulesetError, ScenarioError, ParameterError: for a bad ``game`` config.
        """
        where = "State.from_json"
        if isinstance(text, (str, bytes, bytearray)):
            try:
                data = json.loads(text)
            except (ValueError, RecursionError) as e:  # (JSONDecodeError, UnicodeDecodeError,
                # an integer of over 4300 digits; nesting deeper than the interpreter's stack)
                raise InvalidStateError(f"{where}: not valid JSON: "
                                        f"{e if str(e) else type(e).__name__}") from None
        else:
            data = text
        if not isinstance(data, Mapping):
            raise InvalidStateError(
                f"{where}: expected a JSON object with keys 'game', 'state', 'history' and "
                f"'events' (State.to_json output), got {type(data).__name__}")
        need = ("state", "history", "events") if game is not None else (
            "game", "state", "history", "events")
        missing = [k for k in need if k not in data]
        if missing:
            raise InvalidStateError(
                f"{where}: missing key(s) {missing} (expected the keys 'game', 'state', "
                f"'history' and 'events' of State.to_json output)")
        if game is None:
            cfg = data["game"]
            if not isinstance(cfg, Mapping):
                raise InvalidStateError(f"{where}: game: expected an object with 'ruleset', "
                                        f"'scenario' and 'params', got {type(cfg).__name__}")
            miss = [k for k in ("ruleset", "scenario", "params") if k not in cfg]
            if miss:
                raise InvalidStateError(f"{where}: game: missing key(s) {miss}")
            if not isinstance(cfg["scenario"], str) or not cfg["scenario"].strip():
                # (to_json writes the scenario's name)
                raise InvalidStateError(f"{where}: game: scenario must be a scenario name "
                                        f"(a non-empty string), got {cfg['scenario']!r}")
            if not isinstance(cfg["params"], Mapping):
                raise InvalidStateError(f"{where}: game: params must be an object, got "
                                        f"{type(cfg['params']).__name__}")
        saved = data.get("game")
        if isinstance(saved, Mapping):
            # the ruleset and its version first: a state of another version may name
            # parameters or a scenario that this version does not have
            reader: Game[Any] | GameClass = (game if game is not None
                                        else game_class(saved["ruleset"]))
            if "ruleset" in saved and saved["ruleset"] != reader.ruleset_id:
                raise InvalidStateError(
                    f"{where}: this state was saved by the {saved['ruleset']!r} ruleset and "
                    f"cannot be read by {reader.ruleset_id!r}")
            if "version" not in saved:
                raise InvalidStateError(f"{where}: game: missing key 'version' (the ruleset "
                                        f"version the state was saved by)")
            if type(saved["version"]) is not int:
                raise InvalidStateError(f"{where}: game: version must be an integer, got "
                                        f"{saved['version']!r}")
            if saved["version"] != reader.version:
                raise InvalidStateError(
                    f"{where}: this state was saved by {reader.ruleset_id} version "
                    f"{saved['version']!r} and cannot be read by version {reader.version} "
                    f"(states are not converted between versions; a replay script, which holds "
                    f"only action labels, still plays)")
        if game is None:
            game = load_game(cfg["ruleset"], cfg["scenario"], cfg["params"])
        if not isinstance(data["state"], Mapping):
            raise InvalidStateError(f"{where}: state: expected an object, got "
                                    f"{type(data['state']).__name__}")
        try:
            st: State = game.state_from_dict(data["state"])
        except RiposteError:
            raise
        except KeyError as e:
            raise InvalidStateError(f"{where}: state: missing key {e}") from None
        except (TypeError, ValueError, IndexError, AttributeError, OverflowError) as e:
            raise InvalidStateError(f"{where}: state: malformed ({type(e).__name__}: {e})") \
                from None
        try:
            st.history = AppendLog((p, a) for p, a in data["history"])
        except (TypeError, ValueError) as e:
            raise InvalidStateError(f"{where}: history: expected a list of [player, action] "
                                    f"integer pairs ({e})") from None
        for i, (p, a) in enumerate(st.history):
            if type(p) is not int or type(a) is not int:  # (not 0.5 read as 0, nor true as 1)
                raise InvalidStateError(f"{where}: history[{i}]: expected a [player, action] "
                                        f"pair of integers, got {[p, a]!r}")
            n = len(game.chance) if p == CHANCE else len(game.actions)
            if not (p == CHANCE or 0 <= p < game.num_players):
                raise InvalidStateError(f"{where}: history[{i}]: player {p} is not a side "
                                        f"(0..{game.num_players - 1}) nor chance ({CHANCE})")
            if not 0 <= a < n:
                raise InvalidStateError(
                    f"{where}: history[{i}]: {'chance outcome' if p == CHANCE else 'action'} "
                    f"{a} is not an id in 0..{n - 1}")
        try:
            st.events = AppendLog(Event.from_dict(e) for e in data["events"])
        except KeyError as e:
            raise InvalidStateError(f"{where}: events: an event is missing the key {e}") \
                from None
        except (TypeError, ValueError, AttributeError) as e:
            raise InvalidStateError(f"{where}: events: expected a list of event objects "
                                    f"({type(e).__name__}: {e})") from None
        return st

    def __getstate__(self) -> dict[str, Any]:
        """Pickle / ``copy.deepcopy`` support: the instance dict without the transient caches
        (:attr:`_transient_attrs`), which may hold local closures that cannot be pickled. The
        copy plays on exactly as the original (checked by
        :func:`envs.core.testing.check_pickle_round_trip`)."""
        state = self.__dict__.copy()
        for name in self._transient_attrs:
            state.pop(name, None)
        return state

    def _copy_base_into(self, other: "State") -> None:
        """Helper for ``clone()`` implementations: copy the base fields. The event log and the
        history are forked, not copied (:meth:`envs.core.appendlog.AppendLog.fork`: the two
        states share their past entries, events being immutable), so this costs the same
        whatever the length of the game."""
        other.events = self.events.fork()
        other.history = self.history.fork()
        other._legal_cache = None

    def __str__(self) -> str:
        p = self.current_player()
        return f"<{type(self).__name__} player={p} decision={self.decision_name()}>"


def require_two_sides(game: Game[Any], why: str) -> None:
    """Refuse a game of three or more sides where only two-sided battles make sense.

    Raises:
        RiposteError: ``"<ruleset>/<scenario> has <n> sides: <why>"``.
    """
    if game.num_players != 2:
        raise RiposteError(f"{game.ruleset_id}/{game.scenario_name} has {game.num_players} "
                           f"sides: {why}")


def deepcopy_state(state: State) -> State:
    """Generic ``clone()`` helper: deep-copies every attribute except the shared game."""
    memo = {id(state.game): state.game}
    return copy.deepcopy(state, memo)
