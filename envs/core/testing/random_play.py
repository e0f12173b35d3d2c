"""Static facts and random play: every protocol property at every node
(:func:`check_random_games`).

Part of :mod:`envs.core.testing` (see its docstring).
"""

from __future__ import annotations

import json
import math
from typing import Any
from collections import Counter

import numpy as np

from ..chance import sample_chance_outcome
from ..errors import InvalidStateError
from ..protocol import CHANCE, TERMINAL, Game, Illegality, State
from .common import (_as_game, ConformanceError, _Ctx, game_rng, GameOrFactory, _is_shaped,
                     PROB_TOL, RandomGamesStats, _value)


# -- static facts -------------------------------------------------------------------------------
def check_game_static(game: GameOrFactory) -> None:
    """The game's static facts are consistent: ``num_players == len(side_names)``, non-empty
    catalogues, positive ``max_game_length`` and ``observation_size``, decision types include
    ``"chance"`` and ``"terminal"``, ``config()`` is JSON-serialisable.

    Raises:
        ConformanceError: naming the inconsistent attribute.
    """
    g = _as_game(game)
    ctx = _Ctx("check_game_static", None)
    if not isinstance(g.num_players, int) or g.num_players < 1:
        raise ctx.fail(None, f"num_players={g.num_players!r} is not a positive int")
    if len(g.side_names) != g.num_players:
        raise ctx.fail(None, f"side_names {g.side_names!r} has {len(g.side_names)} names for "
                             f"num_players={g.num_players}")
    if g.num_distinct_actions < 1 or g.max_chance_outcomes < 1:
        raise ctx.fail(None, f"empty catalogue: num_distinct_actions={g.num_distinct_actions}, "
                             f"max_chance_outcomes={g.max_chance_outcomes}")
    if not isinstance(g.max_game_length, int) or g.max_game_length < 1:
        raise ctx.fail(None, f"max_game_length={g.max_game_length!r} is not a positive int")
    if not isinstance(g.observation_size, int) or g.observation_size < 1:
        raise ctx.fail(None, f"observation_size={g.observation_size!r} is not a positive int")
    types = [_value(t) for t in g.decision_types]
    if len(set(types)) != len(types):
        raise ctx.fail(None, f"decision_types has duplicates: {types}")
    for t in ("chance", "terminal"):
        if t not in types:
            raise ctx.fail(None, f"decision_types {types} lacks {t!r}")
    try:
        json.dumps(g.config())
    except (TypeError, ValueError) as e:
        raise ctx.fail(None, f"config() is not JSON-serialisable: {e}") from None


# -- random play --------------------------------------------------------------------------------
def _check_observations(ctx: _Ctx, g: Game[Any], s: State, strings: bool) -> None:
    for side in range(g.num_players):
        obs = g.observation(s, side)
        if not isinstance(obs, np.ndarray):
            raise ctx.fail(s, f"observation(side {side}) is a {type(obs).__name__}, not an ndarray")
        if obs.shape != (g.observation_size,) or obs.dtype != np.float32:
            raise ctx.fail(s, f"observation(side {side}) has shape {obs.shape} dtype {obs.dtype}; "
                              f"expected ({g.observation_size},) float32")
        if not np.isfinite(obs).all():
            bad = np.flatnonzero(~np.isfinite(obs))[:10].tolist()
            raise ctx.fail(s, f"observation(side {side}) has non-finite entries at {bad}")
        if strings:
            txt = g.observation_string(s, side)
            if not isinstance(txt, str) or not txt:
                raise ctx.fail(s, f"observation_string(side {side}) is {txt!r}, not a non-empty str")


def _check_chance_node(ctx: _Ctx, g: Game[Any], s: State,
                       labelled: set[int] | None = None) -> list[tuple[int, float]]:
    """Outcomes, probabilities, legal list and labels of a chance node. ``labelled``: outcome
    ids whose label round trip already passed in this game (as in
    :func:`_check_decision_node`)."""
    outcomes = s.chance_outcomes()
    if not outcomes:
        raise ctx.fail(s, "chance node with no outcomes")
    ids = []
    total = 0.0
    for pair in outcomes:
        if len(pair) != 2:
            raise ctx.fail(s, f"chance outcome {pair!r} is not an (id, probability) pair")
        o, p = pair
        if not isinstance(o, (int, np.integer)) or not 0 <= int(o) < g.max_chance_outcomes:
            raise ctx.fail(s, f"chance outcome id {o!r} outside 0..{g.max_chance_outcomes - 1}")
        if not (isinstance(p, (float, int, np.floating)) and math.isfinite(p) and p > 0):
            raise ctx.fail(s, f"chance outcome {g.chance.labels[int(o)]!r} has probability {p!r} "
                              f"(must be finite and > 0)")
        ids.append(int(o))
        total += float(p)
    if len(set(ids)) != len(ids):
        dup = sorted(k for k, c in Counter(ids).items() if c > 1)
        raise ctx.fail(s, f"duplicate chance outcome ids {dup}")
    if abs(total - 1.0) > PROB_TOL:
        raise ctx.fail(s, f"chance probabilities sum to {total!r}, not 1 (tolerance {PROB_TOL}); "
                          f"outcomes {[(g.chance.labels[o], p) for o, p in outcomes]}")
    legal = s.legal_actions()
    if legal != sorted(ids):
        raise ctx.fail(s, f"legal_actions() at a chance node {legal} differs from the "
                          f"sorted outcome ids {sorted(ids)}")
    try:
        s.legal_action_mask()
    except InvalidStateError:
        pass
    else:
        raise ctx.fail(s, "legal_action_mask() at a chance node did not raise InvalidStateError")
    labelled = _label_memo(type(s), labelled)
    for o in ids:
        if o in labelled:
            continue
        lab = s.action_to_string(o)
        if lab != g.chance.labels[o] or s.string_to_action(lab) != o:
            raise ctx.fail(s, f"chance label round trip failed for id {o}: {lab!r}")
        labelled.add(o)
    return outcomes


def _check_decision_node(ctx: _Ctx, g: Game[Any], s: State, p: int, crng: np.random.Generator,
                         why_samples: int, labelled: set[int] | None = None) -> list[int]:
    """Legal list, mask and labels of a decision node (see :func:`check_random_games`).

    ``labelled``: ids whose label round trip was already checked in this game. While the
    state class keeps the protocol's own ``action_to_string`` / ``string_to_action`` (labels
    read from the game's fixed catalogue, the same at every decision node) one check per id
    and game is the same check as one per node; ids are added to the set as they pass. The
    protocol's own ``why_illegal`` is ``None`` for every listed action by construction, so it
    is called for legal actions only when a state class overrides it."""
    legal = s.legal_actions()
    n = g.num_distinct_actions
    if not isinstance(legal, list) or not legal:
        raise ctx.fail(s, f"legal_actions() of side {p} is {legal!r}: must be a non-empty list")
    prev = -1
    for a in legal:
        if not isinstance(a, (int, np.integer)) or not 0 <= int(a) < n:
            raise ctx.fail(s, f"legal action {a!r} outside 0..{n - 1}")
        if a <= prev:
            raise ctx.fail(s, f"legal_actions() not sorted and unique: {legal}")
        prev = a
    mask = s.legal_action_mask()
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,):
        raise ctx.fail(s, f"legal_action_mask() must be a bool array of shape ({n},); got "
                          f"{type(mask).__name__} {getattr(mask, 'dtype', '?')} "
                          f"{getattr(mask, 'shape', '?')}")
    on = np.flatnonzero(mask).tolist()
    if on != legal:
        raise ctx.fail(s, f"legal_action_mask() {on} disagrees with legal_actions() {legal}")
    labelled = _label_memo(type(s), labelled)
    check_why = _overrides(type(s), "why_illegal")
    for a in legal:
        if a not in labelled:
            lab = s.action_to_string(a)
            if lab != g.actions.labels[a]:
                raise ctx.fail(s, f"action_to_string({a}) = {lab!r}, catalogue says "
                                  f"{g.actions.labels[a]!r}")
            if s.string_to_action(lab) != a:
                raise ctx.fail(s, f"string_to_action({lab!r}) = {s.string_to_action(lab)} "
                                  f"!= {a}")
            labelled.add(a)
        if check_why:
            w = s.why_illegal(a)
            if w is not None:
                raise ctx.fail(s, f"why_illegal({g.actions.labels[a]!r}) = {w!s} for a legal "
                                  f"action (must be None)")
    if why_samples and len(legal) < n:
        masked = np.flatnonzero(~mask)
        pick = masked if len(masked) <= why_samples else crng.choice(masked, why_samples,
                                                                    replace=False)
        for a in pick.tolist():
            w = s.why_illegal(a)
            if not isinstance(w, Illegality):
                raise ctx.fail(s, f"why_illegal({g.actions.labels[a]!r}) = {w!r} for a masked "
                                  f"action (must be an Illegality)")
            if not isinstance(w.reason, str) or not w.reason.strip():
                raise ctx.fail(s, f"why_illegal({g.actions.labels[a]!r}) has an empty reason")
            if not all(isinstance(r, str) and r for r in w.rules):
                raise ctx.fail(s, f"why_illegal({g.actions.labels[a]!r}) rules {w.rules!r} must "
                                  f"be non-empty strings")
    return legal


def _label_memo(cls: type, labelled: set[int] | None) -> set[int]:
    """The set of ids whose label round trip need not be checked again: ``labelled`` while
    state class ``cls`` keeps the protocol's own ``action_to_string`` / ``string_to_action``
    (labels from the game's fixed catalogues), else a fresh empty set (check every id)."""
    if labelled is None or _overrides(cls, "action_to_string") \
            or _overrides(cls, "string_to_action"):
        return set()
    return labelled


def _overrides(cls: type, name: str) -> bool:
    """True when state class ``cls`` replaces the protocol method ``State.<name>``."""
    return getattr(cls, name) is not getattr(State, name)


def _check_returns(ctx: _Ctx, g: Game[Any], s: State, terminal: bool, shaped: bool) -> list[float]:
    r = s.returns()
    if len(r) != g.num_players:
        raise ctx.fail(s, f"returns() {r!r} has {len(r)} entries for {g.num_players} sides")
    if not all(isinstance(x, (int, float, np.floating, np.integer)) and math.isfinite(x)
               for x in r):
        raise ctx.fail(s, f"returns() {r!r} are not finite numbers")
    if not terminal:
        if any(x != 0 for x in r):
            raise ctx.fail(s, f"returns() {r!r} before the end (must be zeros)")
        return list(r)
    if abs(sum(r)) > PROB_TOL:
        raise ctx.fail(s, f"returns() {r!r} at the end are not zero-sum")
    if not shaped and any(not -1.0 <= x <= 1.0 for x in r):
        raise ctx.fail(s, f"returns() {r!r} at the end outside [-1, 1]")
    return list(r)


def _check_terminal(ctx: _Ctx, g: Game[Any], s: State) -> None:
    if s.legal_actions() != []:
        raise ctx.fail(s, f"legal_actions() at the end is {s.legal_actions()} (must be [])")
    m = s.legal_action_mask()
    if m.shape != (g.num_distinct_actions,) or m.dtype != np.bool_ or m.any():
        raise ctx.fail(s, "legal_action_mask() at the end must be all False of shape "
                          f"({g.num_distinct_actions},)")
    if not s.is_terminal() or s.is_chance_node():
        raise ctx.fail(s, "is_terminal()/is_chance_node() disagree with current_player()")


def _check_history_and_events(ctx: _Ctx, g: Game[Any], s: State, applied: list[tuple[int, int]]) -> int:
    if [(int(p), int(a)) for p, a in s.history] != applied:
        raise ctx.fail(s, "history does not match the (player, action) pairs applied")
    for i, ev in enumerate(s.events):
        if not isinstance(ev.kind, str) or not ev.kind or not isinstance(ev.text, str):
            raise ctx.fail(s, f"event {i} {ev!r}: kind and text must be strings (kind non-empty)")
        if not all(isinstance(r, str) and r for r in ev.rules):
            raise ctx.fail(s, f"event {i} ({ev.kind}) cites {ev.rules!r}: rule ids must be "
                              f"non-empty strings")
        if ev.side is not None and not 0 <= ev.side < g.num_players:
            raise ctx.fail(s, f"event {i} ({ev.kind}) names side {ev.side!r}")
    return len(s.events)


def check_random_games(game: GameOrFactory, n_games: int, seed: int, *,
                       why_illegal_samples: int = 3, observe_every: int = 1,
                       shaped: bool | None = None) -> RandomGamesStats:
    """Play ``n_games`` random games to the end, checking the protocol at every node.

    At a decision: ``current_player()`` is a side index, ``decision_type()`` is one of
    ``game.decision_types``; ``legal_actions()`` is a non-empty, sorted, unique list of ids in
    range; ``legal_action_mask()`` is a bool array of shape ``(num_distinct_actions,)`` equal to
    it; every legal id has ``why_illegal() is None`` and round-trips through
    ``action_to_string``/``string_to_action``; ``why_illegal_samples`` masked ids give an
    :class:`Illegality` with a non-empty reason; every side's observation is a finite float32
    array of shape ``(observation_size,)`` (every ``observe_every``-th decision, and at the end);
    ``returns()`` are zeros. At a chance node: outcome ids are unique and in range,
    probabilities are > 0 and sum to 1 (``PROB_TOL``), the mask raises InvalidStateError. At the
    end (within ``game.max_game_length`` decisions): no legal action, an all-False mask,
    zero-sum returns within [-1, 1] unless ``shaped`` (default: a ``*shap*`` parameter is on),
    a history equal to what was applied and well-formed events.

    Args:
        game: the game, or a zero-argument factory.
        n_games: number of games; game ``i`` uses :func:`game_rng` ``(seed, i)``.
        seed: suite seed.

    Returns:
        Counts, the mean decisions per game and a histogram of final returns.

    Raises:
        ConformanceError: at the first violation (or any exception raised by the engine),
            naming seed, game, step, node and the last labels.
    """
    g = _as_game(game)
    check_game_static(g)
    if shaped is None:
        shaped = _is_shaped(g)
    types = {_value(t) for t in g.decision_types}
    stats = RandomGamesStats()
    hist: Counter[str] = Counter()
    dtypes: Counter[str] = Counter()
    for gi in range(n_games):
        ctx = _Ctx("check_random_games", seed, gi)
        rng = game_rng(seed, gi)
        crng = np.random.default_rng((seed, gi, 1))  # for sampling what to check, not play
        s: State = g.new_initial_state()
        applied: list[tuple[int, int]] = []
        decisions = 0
        chance_nodes = 0
        try:
            while True:
                p = s.current_player()
                dt = _value(s.decision_type())
                if dt not in types:
                    raise ctx.fail(s, f"decision_type() {dt!r} not in game.decision_types "
                                      f"{sorted(types)}")
                if p == TERMINAL:
                    if dt != "terminal":
                        raise ctx.fail(s, f"decision_type() is {dt!r} at a terminal node")
                    break
                if p == CHANCE:
                    if dt != "chance":
                        raise ctx.fail(s, f"decision_type() is {dt!r} at a chance node")
                    chance_nodes += 1
                    if chance_nodes > 100 * g.max_game_length + 1000:
                        raise ctx.fail(s, f"{chance_nodes} chance nodes without an end")
                    _check_chance_node(ctx, g, s)
                    a = sample_chance_outcome(s, rng)
                else:
                    if not isinstance(p, (int, np.integer)) or not 0 <= p < g.num_players:
                        raise ctx.fail(s, f"current_player() = {p!r}: not a side, CHANCE or "
                                          f"TERMINAL")
                    if dt in ("chance", "terminal"):
                        raise ctx.fail(s, f"decision_type() is {dt!r} at a decision of side {p}")
                    decisions += 1
                    if decisions > g.max_game_length:
                        raise ctx.fail(s, f"no end after max_game_length={g.max_game_length} "
                                          f"decisions")
                    dtypes[dt] += 1
                    legal = _check_decision_node(ctx, g, s, p, crng, why_illegal_samples)
                    if observe_every and (decisions - 1) % observe_every == 0:
                        _check_observations(ctx, g, s, strings=decisions == 1)
                    _check_returns(ctx, g, s, False, shaped)
                    a = legal[int(rng.integers(len(legal)))]
                s.apply_action(a)
                applied.append((int(p), int(a)))
            _check_terminal(ctx, g, s)
            _check_observations(ctx, g, s, strings=True)
            r = _check_returns(ctx, g, s, True, shaped)
            stats.events += _check_history_and_events(ctx, g, s, applied)
        except ConformanceError:
            raise
        except Exception as e:  # an engine crash during random play is a violation too
            raise ctx.fail(s, f"engine raised {type(e).__name__}: {e}") from e
        hist[",".join(f"{x + 0.0:g}" for x in r)] += 1  # + 0.0: no "-0" key
        stats.games += 1
        stats.decisions += decisions
        stats.chance_nodes += chance_nodes
        stats.max_decisions = max(stats.max_decisions, decisions)
    stats.returns_histogram = dict(sorted(hist.items()))
    stats.decision_types = dict(sorted(dtypes.items()))
    return stats
