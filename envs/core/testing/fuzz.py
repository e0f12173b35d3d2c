"""One fuzzed game (``python -m envs fuzz``): :func:`fuzz_game`.

Part of :mod:`envs.core.testing` (see its docstring).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..chance import sample_chance_outcome
from ..protocol import CHANCE, TERMINAL, Game, State
from .common import ConformanceError, _Ctx, game_rng, _is_shaped, _value
from .random_play import (_check_chance_node, _check_decision_node, _check_history_and_events,
                          _check_observations, _check_returns, _check_terminal)
from .round_trips import _first_diff


# -- fuzzing (python -m envs fuzz) -------------------------------------------------------------
#: keys of ``State._to_dict()`` (at any depth) that count something and so are never negative
COUNTER_KEYS = frozenset({"pips", "turn", "decisions_taken", "hits", "lost", "lost_turn",
                          "moved", "refused_n", "stands", "starting_stands", "reserved", "count",
                          "casualties", "ammo", "strength"})


def _has_negative_counter(data: Any) -> bool:
    """Fast pass of :func:`_negative_counter` (no paths built)."""
    stack = [data]
    pop, push = stack.pop, stack.append
    while stack:
        d = pop()
        if type(d) is dict:
            for k, v in d.items():
                if k in COUNTER_KEYS:
                    for x in (v if type(v) is list else (v,)):
                        if isinstance(x, (int, float)) and not isinstance(x, bool) and x < 0:
                            return True
                if type(v) is dict or type(v) is list:
                    push(v)
        elif type(d) is list:
            for v in d:
                if type(v) is dict or type(v) is list:
                    push(v)
    return False


def _negative_counter(data: Any, path: str = "") -> str | None:
    """The path and value of the first negative :data:`COUNTER_KEYS` entry of a serialised
    state (``"/units[3]/hits = -1"``), or ``None``."""
    if path == "" and not _has_negative_counter(data):
        return None
    if isinstance(data, dict):
        for k, v in data.items():
            here = f"{path}/{k}"
            if k in COUNTER_KEYS:
                vals = v if isinstance(v, list) else [v]
                for i, x in enumerate(vals):
                    if isinstance(x, (int, float)) and not isinstance(x, bool) and x < 0:
                        return f"{here}{f'[{i}]' if isinstance(v, list) else ''} = {x!r}"
            found = _negative_counter(v, here)
            if found:
                return found
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found = _negative_counter(v, f"{path}[{i}]")
            if found:
                return found
    return None


def _round_trips(ctx: _Ctx, g: Game[Any], s: State) -> None:
    """clone, JSON and pickle round trips of ``s``: same serialised state and legal list.

    Every copy must give the same dynamic fields' JSON (``_to_dict()``, sorted keys), history,
    event log, game config, current player and legal list as ``s``. Clone and pickle keep
    Python types, so their event logs are compared as objects. ``from_json(to_json())``
    rebuilds the events from parsed JSON: an equal event log (as objects) means an equal
    ``to_json()``, and when the objects differ (a tuple in an event's data comes back as a
    list) the two ``to_json()`` texts decide, as before — the same verdict without encoding
    the event log (which makes ``to_json`` O(game length)) a second time when nothing
    differs."""
    import pickle

    whole = s.to_dict()  # what to_json() encodes, built once
    text = json.dumps(whole, sort_keys=True)
    player, legal = s.current_player(), list(s.legal_actions())
    mine = json.dumps(whole["state"], sort_keys=True)
    config = whole["game"]
    for how, make in (("clone()", s.clone),
                      ("from_json(to_json())", lambda: State.from_json(text, g)),
                      ("pickle", lambda: pickle.loads(pickle.dumps(s, pickle.HIGHEST_PROTOCOL)))):
        try:
            c = make()
            same = (json.dumps(c._to_dict(), sort_keys=True) == mine
                    and c.history == s.history and c.game.config() == config)
            if same and c.events != s.events:
                same = how.startswith("from_json") and c.to_json() == text
            same = same and (c.current_player(), list(c.legal_actions())) == (player, legal)
        except Exception as e:  # noqa: BLE001 - a failing round trip is the violation
            raise ctx.fail(s, f"{how} round trip raised {type(e).__name__}: {e}") from e
        if not same:
            got = c.to_json()
            raise ctx.fail(s, f"{how} round trip changed the state: "
                              f"{_first_diff(text, got) if got != text else 'legal'}")


@dataclass(slots=True)
class FuzzGameResult:
    """What :func:`fuzz_game` saw in one game."""

    decisions: int = 0
    chance_nodes: int = 0
    round_trips: int = 0
    returns: list[float] = field(default_factory=list)


def fuzz_game(game: Game[Any], seed: int, game_index: int, *, extreme_chance: bool = False,
              round_trip_every: int = 150, observe_every: int = 8,
              why_illegal_every: int = 8) -> FuzzGameResult:
    """One random game checked like :func:`check_random_games` at every node (mask = legal
    list, never an empty legal set at a decision, chance probabilities > 0 summing to 1,
    zero returns before the end and zero-sum at it, history and events), plus counters of the
    serialised state (:data:`COUNTER_KEYS`) never negative, and clone / JSON / pickle round
    trips at random steps (each with probability ``1 / round_trip_every``) and at the end. Observations and counters are
    checked every ``observe_every``-th decision and at the end, one masked action's
    ``why_illegal`` every ``why_illegal_every``-th decision.

    Randomness: decisions uniform from :func:`game_rng` ``(seed, game_index)``; chance outcomes
    sampled from their probabilities, or with ``extreme_chance`` the lowest or highest outcome
    id (the extremes of a die or table), each with probability 1/2.

    Raises:
        ConformanceError: at the first violation (any engine exception included), carrying
            the labels played so far (:attr:`ConformanceError.labels`).
    """
    ctx = _Ctx("fuzz", seed, game_index)
    rng = game_rng(seed, game_index)
    crng = np.random.default_rng((seed, game_index, 1))
    shaped = _is_shaped(game)
    types = {_value(t) for t in game.decision_types}
    out = FuzzGameResult()
    s: State = game.new_initial_state()
    applied: list[tuple[int, int]] = []
    labelled: set[int] = set()  # ids whose label round trip passed (_check_decision_node)
    chance_labelled: set[int] = set()  # the same for chance outcome ids
    step = 0
    try:
        while True:
            p = s.current_player()
            dt = _value(s.decision_type())
            if dt not in types:
                raise ctx.fail(s, f"decision_type() {dt!r} not in game.decision_types")
            if crng.random() * round_trip_every < 1.0:
                _round_trips(ctx, game, s)
                out.round_trips += 1
            if p == TERMINAL:
                if dt != "terminal":
                    raise ctx.fail(s, f"decision_type() is {dt!r} at a terminal node")
                break
            if p == CHANCE:
                out.chance_nodes += 1
                if out.chance_nodes > 100 * game.max_game_length + 1000:
                    raise ctx.fail(s, f"{out.chance_nodes} chance nodes without an end")
                if dt != "chance":
                    raise ctx.fail(s, f"decision_type() is {dt!r} at a chance node")
                outcomes = _check_chance_node(ctx, game, s, chance_labelled)
                if extreme_chance:
                    ids = [o for o, _ in outcomes]
                    a = min(ids) if crng.random() < 0.5 else max(ids)
                else:
                    a = sample_chance_outcome(s, rng)
            else:
                if not isinstance(p, (int, np.integer)) or not 0 <= p < game.num_players:
                    raise ctx.fail(s, f"current_player() = {p!r}: not a side, CHANCE or TERMINAL")
                if dt in ("chance", "terminal"):
                    raise ctx.fail(s, f"decision_type() is {dt!r} at a decision of side {p}")
                out.decisions += 1
                if out.decisions > game.max_game_length:
                    raise ctx.fail(s, f"no end after max_game_length={game.max_game_length} "
                                      f"decisions")
                legal = _check_decision_node(
                    ctx, game, s, p, crng, 1 if out.decisions % why_illegal_every == 0 else 0,
                    labelled)
                if out.decisions % observe_every == 1:
                    _check_observations(ctx, game, s, strings=out.decisions == 1)
                    bad = _negative_counter(s._to_dict())
                    if bad:
                        raise ctx.fail(s, f"negative counter {bad}")
                _check_returns(ctx, game, s, False, shaped)
                a = legal[int(rng.integers(len(legal)))]
            s.apply_action(a)
            applied.append((int(p), int(a)))
            step += 1
        _check_terminal(ctx, game, s)
        _check_observations(ctx, game, s, strings=True)
        out.returns = _check_returns(ctx, game, s, True, shaped)
        bad = _negative_counter(s._to_dict())
        if bad:
            raise ctx.fail(s, f"negative counter {bad}")
        _round_trips(ctx, game, s)
        out.round_trips += 1
        _check_history_and_events(ctx, game, s, applied)
    except ConformanceError:
        raise
    except Exception as e:  # noqa: BLE001 - an engine crash is a violation too
        raise ctx.fail(s, f"engine raised {type(e).__name__}: {e}") from e
    return out
