"""Clones, pickles, JSON states and replays: every copy of a state plays on as the original.

Part of :mod:`envs.core.testing` (see its docstring).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import RiposteError
from ..protocol import CHANCE, TERMINAL, Game, State
from ..replay import ABSENT, first_difference, play_labels, transcript
from .common import _as_game, _Ctx, game_rng, GameOrFactory, play_random_game, _random_step, _value


# -- clone ---------------------------------------------------------------------------------------
def _random_actions(g: Game[Any], seed: int, game_index: int) -> list[int]:
    s = play_random_game(g, game_rng(seed, game_index))
    return [a for _, a in s.history]


def _replay_ids(g: Game[Any], ids: Sequence[int], ctx: _Ctx | None = None) -> State:
    """Re-apply recorded action ids from a new initial state (checked).

    Raises:
        ConformanceError: when a recorded id is refused: the same ids gave a different game.
    """
    s: State = g.new_initial_state()
    for i, a in enumerate(ids):
        try:
            s.apply_action(a)
        except RiposteError as e:
            raise (ctx or _Ctx("replay_ids", None)).fail(
                s, f"re-applying the recorded actions from a new initial state failed at step "
                   f"{i} (non-deterministic engine?): {e}") from e
    return s


def _fingerprint(s: State) -> tuple[Any, ...]:
    """A cheap stand-in for ``to_json()`` when two states share most of their past: the
    serialised dynamic fields, the history length and tail, the event count and tail (the full
    event log makes ``to_json`` O(game length))."""
    return (json.dumps(s._to_dict(), sort_keys=True), len(s.history), s.history[-4:],
            len(s.events), s.events[-4:])


def _snapshot(g: Game[Any], s: State) -> tuple[str, int, list[int], list[bytes]]:
    obs = [g.observation(s, side).tobytes() for side in range(g.num_players)]
    return s.to_json(), s.current_player(), list(s.legal_actions()), obs


def check_clone_independence(game: GameOrFactory, seed: int, n_games: int = 2,
                             cuts_per_game: int = 6) -> int:
    """``clone()`` gives an equal, independent copy.

    For ``cuts_per_game`` points of each of ``n_games`` random games (the start, the end, the
    first chance node, evenly spaced points between): the clone has the same ``to_json``,
    player, legal list and observations; playing the clone on to the end leaves the original
    unchanged; playing the original on to the end leaves a fresh clone unchanged.

    Returns:
        The number of clone points checked.

    Raises:
        ConformanceError: naming the cut point and what changed.
    """
    g = _as_game(game)
    checked = 0
    for gi in range(n_games):
        ctx = _Ctx("check_clone_independence", seed, gi)
        ids = _random_actions(g, seed, gi)
        n = len(ids)
        cuts = {0, n, *(round(n * k / (cuts_per_game - 1)) for k in range(1, cuts_per_game - 1))}
        first_chance = next((i for i, (p, _) in enumerate(_replay_ids(g, ids, ctx).history)
                             if p == CHANCE), None)
        if first_chance is not None:
            cuts.add(first_chance)
        for k in sorted(cuts):
            orig = _replay_ids(g, ids[:k], ctx)
            before = _snapshot(g, orig)
            c = orig.clone()
            if type(c) is not type(orig) or c is orig:
                raise ctx.fail(orig, f"clone() returned {type(c).__name__} (same object: "
                                     f"{c is orig})")
            if c.game is not orig.game:
                raise ctx.fail(orig, "clone() does not share the (immutable) game")
            if _snapshot(g, c) != before:
                raise ctx.fail(orig, f"clone at step {k} differs from the original (to_json, "
                                     f"player, legal actions or observations)")
            rng = np.random.default_rng((seed, gi, k))
            try:
                play_random_game(g, rng, state=c)
            except RiposteError as e:
                raise ctx.fail(c, f"playing on a clone made at step {k} failed: {e}") from e
            if _snapshot(g, orig) != before:
                raise ctx.fail(orig, f"playing a clone made at step {k} on to the end changed "
                                     f"the original: {_first_diff(before[0], orig.to_json())}")
            c2 = orig.clone()
            c2_before = _snapshot(g, c2)
            try:
                play_random_game(g, np.random.default_rng((seed, gi, k, 2)), state=orig)
            except RiposteError as e:
                raise ctx.fail(orig, f"playing on after cloning at step {k} failed: {e}") from e
            if _snapshot(g, c2) != c2_before:
                raise ctx.fail(c2, f"playing the original on from step {k} changed its clone: "
                                   f"{_first_diff(c2_before[0], c2.to_json())}")
            checked += 1
    return checked


def _node_kind(s: State) -> str:
    p = s.current_player()
    return "chance" if p == CHANCE else "terminal" if p == TERMINAL else _value(s.decision_type())


def check_pickle_round_trip(game: GameOrFactory, seed: int, n_games: int = 2,
                            cuts_per_game: int = 4) -> int:
    """Every state survives ``pickle`` and ``copy.deepcopy`` and plays on identically.

    For each of ``n_games`` random games the cut points are the first node of every kind met
    (each decision type — reaction windows included — and the first chance node) plus
    ``cuts_per_game`` evenly spaced steps. At each cut the state is pickled (highest protocol)
    and deep-copied; the original and both copies are then played on in lockstep to the end
    with one random stream, and at every step they must agree on the player, the legal list,
    the chance outcomes with their probabilities and every side's observation; at the end on
    the returns and ``to_json``. Finally the game itself must pickle to as many bytes as
    before the games: a memo cache filled by play and not declared in
    :attr:`~envs.core.protocol.Game._cache_attrs` would ride along in every pickled state.

    Returns:
        The number of cut points checked.

    Raises:
        ConformanceError: naming the cut, the copy and what differs (or the pickling error),
            or the growth of the pickled game.
    """
    import copy
    import pickle

    g = _as_game(game)
    game_bytes = len(pickle.dumps(g, pickle.HIGHEST_PROTOCOL))
    checked = 0
    for gi in range(n_games):
        ctx = _Ctx("check_pickle_round_trip", seed, gi)
        ids = _random_actions(g, seed, gi)
        s: State = g.new_initial_state()
        first: dict[str, int] = {}
        for i, a in enumerate(ids):
            first.setdefault(_node_kind(s), i)
            s.apply_action(a)
        n = len(ids)
        cuts = set(first.values()) | {round(n * k / max(cuts_per_game, 1))
                                      for k in range(cuts_per_game)}
        for k in sorted(cuts):
            orig = _replay_ids(g, ids[:k], ctx)
            try:
                copies = {"pickle": pickle.loads(pickle.dumps(orig, pickle.HIGHEST_PROTOCOL)),
                          "deepcopy": copy.deepcopy(orig)}
            except Exception as e:  # noqa: BLE001 - any pickling failure is the violation
                raise ctx.fail(orig, f"state at step {k} ({_node_kind(orig)}) cannot be "
                                     f"pickled or deep-copied: {type(e).__name__}: {e}") from e
            rng = np.random.default_rng((seed, gi, k, 3))
            step = k
            while True:
                ref = (orig.current_player(), list(orig.legal_actions()),
                       orig.chance_outcomes() if orig.is_chance_node() else None,
                       [g.observation(orig, side).tobytes() for side in range(g.num_players)])
                for name, c in copies.items():
                    got = (c.current_player(), list(c.legal_actions()),
                           c.chance_outcomes() if c.is_chance_node() else None,
                           [g.observation(c, side).tobytes() for side in range(g.num_players)])
                    if got != ref:
                        what = [f for f, x, y in zip(("player", "legal actions",
                                                      "chance outcomes", "observations"),
                                                     ref, got) if x != y]
                        raise ctx.fail(orig, f"the {name} copy made at step {k} differs at "
                                             f"step {step}: {', '.join(what)}")
                if orig.is_terminal():
                    break
                a = _random_step(orig, rng)
                for c in copies.values():
                    c.apply_action(a)
                step += 1
            for name, c in copies.items():
                if list(c.returns()) != list(orig.returns()) or c.to_json() != orig.to_json():
                    raise ctx.fail(orig, f"the {name} copy made at step {k} ends differently: "
                                         f"returns {c.returns()} vs {orig.returns()}, "
                                         f"{_first_diff(orig.to_json(), c.to_json())}")
            checked += 1
    grown = len(pickle.dumps(g, pickle.HIGHEST_PROTOCOL))
    if grown != game_bytes:
        raise _Ctx("check_pickle_round_trip", seed).fail(
            None, f"the pickled game grew from {game_bytes} to {grown} bytes over {n_games} "
                  f"games: a cache filled by play is pickled with every state (declare it in "
                  f"{type(g).__name__}._cache_attrs)")
    return checked


def _first_diff(a: str, b: str) -> str:
    """A short description of where two JSON documents first differ."""
    try:
        da, db = json.loads(a), json.loads(b)
    except ValueError:
        return "(not JSON)"
    d = first_difference(da, db)
    if d is None:
        return "(equal after parsing)"
    parts, x, y = d
    path = "".join(f"[{k}]" if isinstance(k, int) else f"/{k}" for k in parts) or "/"
    if x is ABSENT or y is ABSENT:
        return f"{path}: present only in {'second' if x is ABSENT else 'first'}"
    return f"{path}: {x!r:.80} -> {y!r:.80}"


# -- JSON ---------------------------------------------------------------------------------------
def _compare_branches(ctx: _Ctx, s: State, t: State, branches: int,
                      rng: np.random.Generator) -> None:
    """Apply each of (up to ``branches`` of) the legal actions to clones of ``s`` and ``t`` and
    compare the results: catches a field ``to_json`` drops that only matters one step later."""
    if branches <= 0 or s.is_terminal():
        return
    legal = s.legal_actions()
    pick = legal if len(legal) <= branches else \
        sorted(rng.choice(legal, branches, replace=False).tolist())
    for a in pick:
        cs, ct = s.clone(), t.clone()
        cs.apply_action(a)
        ct.apply_action(a)
        if _fingerprint(cs) != _fingerprint(ct):
            raise ctx.fail(s, f"after from_json, applying {s.action_to_string(a)!r} gives a "
                              f"different state than on the original: "
                              f"{_first_diff(cs.to_json(), ct.to_json())}")


def check_json_round_trip(game: GameOrFactory, seed: int, every_step: bool = True,
                          n_games: int = 1, branches: int = 8) -> int:
    """``State.from_json(s.to_json(), game)`` is lossless and behaves the same afterwards.

    Two copies of each random game are played with the same actions: ``s`` is never serialised,
    ``t`` is rebuilt from its own JSON before every step (every 7th step and at chance nodes
    when ``every_step`` is False). At each rebuild ``to_json`` must be identical; player,
    decision type, legal list, chance outcomes and observations must agree with ``s``; and up to
    ``branches`` legal actions applied to clones of both give identical JSON (a field the JSON
    drops shows one step later). At the end both transcripts, returns and JSON are equal.

    Returns:
        The number of round trips checked.

    Raises:
        ConformanceError: naming the step and the first JSON difference.
    """
    g = _as_game(game)
    trips = 0
    for gi in range(n_games):
        ctx = _Ctx("check_json_round_trip", seed, gi)
        rng = game_rng(seed, gi)
        s: State = g.new_initial_state()
        t: State = g.new_initial_state()
        step = 0
        while True:
            if every_step or step % 7 == 0 or s.is_chance_node() or s.is_terminal():
                js = s.to_json()
                j = t.to_json()
                if j != js:
                    raise ctx.fail(s, "the round-tripped copy diverged from the original: "
                                      f"{_first_diff(js, j)}")
                try:
                    json.loads(j)
                    t = State.from_json(j, g)
                except Exception as e:
                    raise ctx.fail(s, f"State.from_json failed: {type(e).__name__}: {e}") from e
                j2 = t.to_json()
                if j2 != j:
                    raise ctx.fail(s, f"to_json differs after from_json: {_first_diff(j, j2)}")
                trips += 1
                _compare_branches(ctx, s, t, branches, np.random.default_rng((seed, gi, step)))
            elif _fingerprint(s) != _fingerprint(t):
                raise ctx.fail(s, "the round-tripped copy diverged from the original: "
                                  f"{_first_diff(s.to_json(), t.to_json())}")
            if (s.current_player(), _value(s.decision_type()), s.legal_actions()) != \
                    (t.current_player(), _value(t.decision_type()), t.legal_actions()):
                raise ctx.fail(s, f"after from_json: player/decision/legal "
                                  f"{(t.current_player(), _value(t.decision_type()), t.legal_actions())} "
                                  f"!= {(s.current_player(), _value(s.decision_type()), s.legal_actions())}")
            if s.is_chance_node() and s.chance_outcomes() != t.chance_outcomes():
                raise ctx.fail(s, "after from_json: chance_outcomes() differ")
            for side in range(g.num_players):
                if not np.array_equal(g.observation(s, side), g.observation(t, side)):
                    raise ctx.fail(s, f"after from_json: observation of side {side} differs")
            if s.is_terminal():
                break
            a = _random_step(s, rng)
            try:
                t.apply_action(a)
            except RiposteError as e:
                raise ctx.fail(t, f"the round-tripped copy refused {a}: {e}") from e
            step += 1
        if transcript(s) != transcript(t) or list(s.returns()) != list(t.returns()):
            raise ctx.fail(s, "transcripts or returns differ at the end")
    return trips


# -- replay -------------------------------------------------------------------------------------
def check_replay(game: GameOrFactory, seed: int, n_games: int = 3) -> int:
    """A random game's transcript labels (:func:`envs.core.replay.transcript`), replayed from a
    new initial state with :func:`envs.core.replay.play_labels`, reproduce the same ``to_json``
    (and so do the first half of the labels, against the state at mid-game).

    Returns:
        The number of labels replayed.

    Raises:
        ConformanceError: naming the first JSON difference or the refused label.
    """
    g = _as_game(game)
    total = 0
    for gi in range(n_games):
        ctx = _Ctx("check_replay", seed, gi)
        s = play_random_game(g, game_rng(seed, gi))
        labels = transcript(s)
        half = len(labels) // 2
        for upto in (half, len(labels)):
            ref = _replay_ids(g, [a for _, a in s.history[:upto]], ctx)
            try:
                r = play_labels(g.new_initial_state(), labels[:upto], f"transcript[:{upto}]")
            except RiposteError as e:
                raise ctx.fail(ref, f"replaying its own transcript failed: {e}") from e
            if r.to_json() != ref.to_json():
                raise ctx.fail(ref, f"replayed {upto} labels give a different state: "
                                    f"{_first_diff(ref.to_json(), r.to_json())}")
        total += len(labels)
    return total
