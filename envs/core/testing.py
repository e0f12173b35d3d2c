"""The shared conformance suite: protocol checks every ruleset must pass.

In the spirit of OpenSpiel's ``random_sim_test`` and ``pettingzoo.test.api_test``: each check
takes a :class:`~envs.core.protocol.Game` (or a zero-argument factory returning one) and a seed,
plays random legal games and raises :class:`ConformanceError` with a precise message — game
index, seed, step, decision and the labels played so far — at the first violation. A ruleset's
test module runs :func:`run_all` on its default scenario; unit tests of a new ruleset can run the
single checks while the ruleset is being written.

Randomness: every check draws from ``numpy.random.default_rng((seed, game_index))`` (decisions
uniform over the legal list, chance outcomes with
:func:`envs.core.chance.sample_chance_outcome`), so a failure is reproduced by
:func:`play_random_game` with the seed named in the message. :func:`check_determinism`
deliberately disturbs the *global* ``random`` and ``numpy.random`` generators to prove the engine
never reads them; it restores both afterwards.

Imports only the standard library, numpy and :mod:`envs.core`.
"""

from __future__ import annotations

import json
import math
import random  # global-rng-ok: check_determinism disturbs and restores it
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .chance import sample_chance_outcome
from .errors import IllegalActionError, InvalidStateError, RiposteError
from .protocol import CHANCE, TERMINAL, Game, Illegality, State
from .replay import ABSENT, first_difference, play_labels, transcript

__all__ = [
    "COUNTER_KEYS", "ConformanceError", "FuzzGameResult", "RandomGamesStats",
    "check_clone_independence",
    "check_cross_process_determinism", "check_determinism", "check_every_legal_action_applies",
    "check_game_static", "check_illegal_action_raises", "check_json_round_trip",
    "check_pickle_round_trip", "check_random_games", "check_replay", "game_rng",
    "fuzz_game", "play_random_game", "run_all",
]

#: tolerance on the sum of chance probabilities and on zero-sum returns
PROB_TOL = 1e-9

GameOrFactory = Game | Callable[[], Game]


class ConformanceError(RiposteError):
    """A ruleset broke the decision-point protocol.

    Attributes:
        seed: the suite seed of the failing check (``None`` for static checks).
        game_index: index of the failing random game (its generator is
            ``default_rng((seed, game_index))``).
        step: number of actions (decisions + chance outcomes) applied before the violation.
        labels: the transcript up to the violation (replayable with
            :func:`envs.core.replay.play_labels`).
    """

    def __init__(self, message: str, *, seed: int | None = None, game_index: int | None = None,
                 step: int | None = None, labels: Sequence[str] = ()):
        super().__init__(message)
        self.seed = seed
        self.game_index = game_index
        self.step = step
        self.labels = list(labels)


@dataclass(slots=True)
class RandomGamesStats:
    """What :func:`check_random_games` saw."""

    games: int = 0
    decisions: int = 0
    chance_nodes: int = 0
    events: int = 0
    max_decisions: int = 0
    #: returns vector (formatted ``"1,-1"``) -> number of games
    returns_histogram: dict[str, int] = field(default_factory=dict)
    #: decision type value -> number of decisions of that type
    decision_types: dict[str, int] = field(default_factory=dict)

    @property
    def mean_length(self) -> float:
        """Mean number of decisions per game."""
        return self.decisions / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["mean_length"] = self.mean_length
        return d


# -- helpers ------------------------------------------------------------------------------------
def _as_game(game: GameOrFactory) -> Game:
    return game if isinstance(game, Game) else game()


def _value(x: Any) -> str:
    """The plain string value of a ``str`` enum member (``str()`` of a mixed-in enum would give
    ``Class.MEMBER`` on Python 3.11)."""
    v = getattr(x, "value", x)
    return v if isinstance(v, str) else str(v)


def game_rng(seed: int, game_index: int) -> np.random.Generator:
    """The generator the suite uses for random game ``game_index`` of a check run with ``seed``."""
    return np.random.default_rng((seed, game_index))


def _labels(state: State) -> list[str]:
    try:
        return transcript(state)
    except Exception:  # a broken history must not hide the original violation
        return [f"<history entry {p}:{a}>" for p, a in state.history]


class _Ctx:
    """Where a check is, for error messages."""

    __slots__ = ("check", "seed", "game_index")

    def __init__(self, check: str, seed: int | None, game_index: int | None = None):
        self.check, self.seed, self.game_index = check, seed, game_index

    def fail(self, state: State | None, msg: str) -> ConformanceError:
        labels = _labels(state) if state is not None else []
        where = f"{self.check}"
        if self.seed is not None:
            where += f" seed={self.seed}"
        if self.game_index is not None:
            where += f" game={self.game_index}"
        if state is not None:
            where += f" step={len(labels)}"
            try:
                where += f" node={_value(state.decision_type())}"
            except Exception:
                pass
            tail = labels[-12:]
            more = "… " if len(labels) > len(tail) else ""
            msg = f"{msg}\n  last labels: {more}{tail}"
        return ConformanceError(f"[{where}] {msg}", seed=self.seed, game_index=self.game_index,
                                step=len(labels) if state is not None else None, labels=labels)


def play_random_game(game: Game, rng: np.random.Generator, max_steps: int | None = None,
                     state: State | None = None) -> State:
    """Play uniformly random legal decisions and sampled chance outcomes until the end (or
    ``max_steps`` actions), checked with ``apply_action``. Returns the final state.

    Raises:
        ConformanceError: when the game is not over after ``max_game_length`` decisions.
    """
    s = game.new_initial_state() if state is None else state
    decisions = 0
    steps = 0
    while not s.is_terminal() and (max_steps is None or steps < max_steps):
        if s.is_chance_node():
            s.apply_action(sample_chance_outcome(s, rng))
        else:
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
            if decisions > game.max_game_length:
                raise _Ctx("play_random_game", None).fail(
                    s, f"no end after max_game_length={game.max_game_length} decisions")
        steps += 1
    return s


def _random_step(s: State, rng: np.random.Generator) -> int:
    """One random legal action (decision or chance outcome), applied checked; returns its id."""
    if s.is_chance_node():
        a = sample_chance_outcome(s, rng)
    else:
        legal = s.legal_actions()
        a = legal[int(rng.integers(len(legal)))]
    s.apply_action(a)
    return a


def _is_shaped(game: Game) -> bool:
    """True when a parameter whose name mentions shaping is switched on."""
    return any("shap" in str(k).lower() and bool(v) for k, v in dict(game.params).items())


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
def _check_observations(ctx: _Ctx, g: Game, s: State, strings: bool) -> None:
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


def _check_chance_node(ctx: _Ctx, g: Game, s: State,
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


def _check_decision_node(ctx: _Ctx, g: Game, s: State, p: int, crng: np.random.Generator,
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


def _check_returns(ctx: _Ctx, g: Game, s: State, terminal: bool, shaped: bool) -> list[float]:
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


def _check_terminal(ctx: _Ctx, g: Game, s: State) -> None:
    if s.legal_actions() != []:
        raise ctx.fail(s, f"legal_actions() at the end is {s.legal_actions()} (must be [])")
    m = s.legal_action_mask()
    if m.shape != (g.num_distinct_actions,) or m.dtype != np.bool_ or m.any():
        raise ctx.fail(s, "legal_action_mask() at the end must be all False of shape "
                          f"({g.num_distinct_actions},)")
    if not s.is_terminal() or s.is_chance_node():
        raise ctx.fail(s, "is_terminal()/is_chance_node() disagree with current_player()")


def _check_history_and_events(ctx: _Ctx, g: Game, s: State, applied: list[tuple[int, int]]) -> int:
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
        s = g.new_initial_state()
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


# -- fuzzing (python -m envs fuzz) -------------------------------------------------------------
#: keys of ``State._to_dict()`` (at any depth) that count something and so are never negative
COUNTER_KEYS = frozenset({"pips", "turn", "ndec", "hits", "lost", "lost_turn", "moved",
                          "refused_n", "stands", "s0", "reserved", "count", "casualties",
                          "ammo", "strength"})


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


def _round_trips(ctx: _Ctx, g: Game, s: State) -> None:
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


def fuzz_game(game: Game, seed: int, game_index: int, *, extreme_chance: bool = False,
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
    s = game.new_initial_state()
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


# -- clone ---------------------------------------------------------------------------------------
def _random_actions(g: Game, seed: int, game_index: int) -> list[int]:
    s = play_random_game(g, game_rng(seed, game_index))
    return [a for _, a in s.history]


def _replay_ids(g: Game, ids: Sequence[int], ctx: _Ctx | None = None) -> State:
    """Re-apply recorded action ids from a new initial state (checked).

    Raises:
        ConformanceError: when a recorded id is refused: the same ids gave a different game.
    """
    s = g.new_initial_state()
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


def _snapshot(g: Game, s: State) -> tuple[str, int, list[int], list[bytes]]:
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
        s = g.new_initial_state()
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
        s = g.new_initial_state()
        t = g.new_initial_state()
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


# -- determinism --------------------------------------------------------------------------------
def _disturb_global_rngs(k: int) -> None:
    """Draw from (and so advance) the global generators the engine must never read."""
    for _ in range(1 + k % 3):
        random.random()  # global-rng-ok: deliberate disturbance, see check_determinism
        np.random.random()  # global-rng-ok: deliberate disturbance, see check_determinism


def _seeded_transcript(g: Game, seed: int, disturb: bool) -> tuple[list[str], str]:
    rng = game_rng(seed, 0)
    s = g.new_initial_state()
    k = 0
    decisions = 0
    while not s.is_terminal():
        if disturb:
            _disturb_global_rngs(k)
        if not s.is_chance_node():
            decisions += 1
            if decisions > g.max_game_length:
                raise _Ctx("check_determinism", seed, 0).fail(
                    s, f"no end after max_game_length={g.max_game_length} decisions")
        _random_step(s, rng)
        k += 1
    return transcript(s), s.to_json()


def check_determinism(game: GameOrFactory, seed: int, other_seeds: int = 4) -> None:
    """The same seed gives the same game; the engine reads no global random generator.

    Plays the game with ``seed`` twice — on two separately built games when ``game`` is a
    factory — once with unrelated ``random.random()`` and ``numpy.random.random()`` calls
    between the steps (RLCard's determinism test); transcripts and final JSON must be equal.
    Then at least one of ``seed + 1 … seed + other_seeds`` must give a different transcript
    (a game whose random play never varies means the seed is ignored). The global generators'
    states are restored afterwards.

    Raises:
        ConformanceError: naming the first differing label.
    """
    ctx = _Ctx("check_determinism", seed, 0)
    g1 = _as_game(game)
    g2 = _as_game(game)
    py_state = random.getstate()  # global-rng-ok: saved to be restored, not drawn from
    np_state = np.random.get_state()  # global-rng-ok: saved to be restored, not drawn from
    try:
        t1, j1 = _seeded_transcript(g1, seed, disturb=False)
        t2, j2 = _seeded_transcript(g2, seed, disturb=True)
    finally:
        random.setstate(py_state)  # global-rng-ok: restoring the caller's state
        np.random.set_state(np_state)  # global-rng-ok: restoring the caller's state
    if t1 != t2:
        i = next((i for i, (a, b) in enumerate(zip(t1, t2)) if a != b), min(len(t1), len(t2)))
        raise ctx.fail(None, f"same seed, different transcripts (global RNG calls interleaved in "
                             f"the second): first difference at step {i}: "
                             f"{t1[i] if i < len(t1) else '<end>'!r} vs "
                             f"{t2[i] if i < len(t2) else '<end>'!r}; common prefix ends "
                             f"{t1[max(0, i - 8):i]}")
    if j1 != j2:
        raise ctx.fail(None, f"same seed and transcript, different final JSON: "
                             f"{_first_diff(j1, j2)}")
    if other_seeds and all(_seeded_transcript(g1, seed + d, False)[0] == t1
                           for d in range(1, other_seeds + 1)):
        raise ctx.fail(None, f"seeds {seed}..{seed + other_seeds} all give the same transcript "
                             f"({len(t1)} labels): the seed has no effect")


_CROSS_PROCESS = """
import hashlib, json, sys
from envs.core.registry import load_game
from envs.core.testing import game_rng, play_random_game
from envs.core.replay import transcript
cfg = json.loads(sys.argv[1])
game = load_game(cfg["ruleset"], cfg["scenario"], cfg["params"])
out = []
for i in range(cfg["n_games"]):
    s = play_random_game(game, game_rng(cfg["seed"], i))
    out.append(hashlib.sha256(s.to_json().encode()).hexdigest()[:16])
print(json.dumps(out))
"""


def check_cross_process_determinism(ruleset: str, scenario: str | None = None,
                                    params: dict[str, Any] | None = None, seed: int = 0,
                                    n_games: int = 2, hash_seeds: Sequence[int] = (0, 4242),
                                    preamble: str = "", timeout: float = 300.0) -> list[str]:
    """The same seed gives the same games in fresh interpreters with different
    ``PYTHONHASHSEED`` values (catches iteration over sets of strings, ``id()``-keyed
    ordering and other per-process accidents that a same-process check cannot see).

    Runs ``sys.executable`` in the current working directory, so ``envs`` must be importable
    from there; ``preamble`` is Python code run first (e.g. registering a test-only ruleset).

    Returns:
        The per-game digests of the final ``to_json`` (equal in every process).

    Raises:
        ConformanceError: naming the hash seeds whose games differ, or a failed subprocess.
    """
    import os
    import subprocess
    import sys

    ctx = _Ctx("check_cross_process_determinism", seed)
    cfg = json.dumps({"ruleset": ruleset, "scenario": scenario, "params": params or {},
                      "seed": seed, "n_games": n_games})
    results: dict[int, list[str]] = {}
    for h in hash_seeds:
        env = {**os.environ, "PYTHONHASHSEED": str(h)}
        r = subprocess.run([sys.executable, "-c", preamble + "\n" + _CROSS_PROCESS, cfg],
                           capture_output=True, text=True, env=env, timeout=timeout)
        if r.returncode != 0:
            tail = r.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
            raise ctx.fail(None, f"subprocess with PYTHONHASHSEED={h} failed: {tail[0]}")
        results[h] = json.loads(r.stdout.strip().splitlines()[-1])
    first = results[hash_seeds[0]]
    for h, digests in results.items():
        if digests != first:
            bad = [i for i, (a, b) in enumerate(zip(first, digests)) if a != b]
            raise ctx.fail(None, f"games {bad} differ between PYTHONHASHSEED={hash_seeds[0]} and "
                                 f"PYTHONHASHSEED={h}: the engine depends on hash order")
    return first


# -- every legal action applies ------------------------------------------------------------------
def check_every_legal_action_applies(game: GameOrFactory, seed: int, n_games: int = 1,
                                     node_every: int = 1) -> int:
    """Every id the mask offers can be applied: at every ``node_every``-th node of ``n_games``
    random games, each legal decision (or chance outcome) is applied to its own clone without
    an exception, and leaves a state whose ``current_player()`` is a side, CHANCE or TERMINAL.
    (Random play applies one legal id per node; a mask that offers an action the engine cannot
    carry out shows up here.)

    Returns:
        The number of (node, action) pairs applied.

    Raises:
        ConformanceError: naming the node and the action whose application failed.
    """
    g = _as_game(game)
    applied = 0
    for gi in range(n_games):
        ctx = _Ctx("check_every_legal_action_applies", seed, gi)
        rng = game_rng(seed, gi)
        s = g.new_initial_state()
        k = 0
        while not s.is_terminal():
            if k % node_every == 0:
                for a in list(s.legal_actions()):
                    c = s.clone()
                    try:
                        c.apply_action(a)
                        p = c.current_player()
                    except Exception as e:
                        raise ctx.fail(s, f"applying the legal {s.action_to_string(a)!r} raised "
                                          f"{type(e).__name__}: {e}") from e
                    if p not in (CHANCE, TERMINAL) and not 0 <= p < g.num_players:
                        raise ctx.fail(s, f"after {s.action_to_string(a)!r} current_player() is "
                                          f"{p!r}")
                    applied += 1
            _random_step(s, rng)
            k += 1
    return applied


# -- illegal actions ----------------------------------------------------------------------------
_WRONG_TYPES: tuple[Any, ...] = ("0", 0.0, 1.5, None, True, [0], np.float32(0.0))


def _expect_refused(ctx: _Ctx, g: Game, s: State, action: Any, exc: type[Exception],
                    must_name: Sequence[str]) -> None:
    before = _fingerprint(s)
    legal = list(s.legal_actions())
    p = s.current_player()
    try:
        s.apply_action(action)
    except exc as e:
        msg = str(e)
        missing = [m for m in must_name if m not in msg]
        if missing:
            raise ctx.fail(s, f"{exc.__name__} for action {action!r} does not name {missing}: "
                              f"{msg!r}") from None
    except Exception as e:
        raise ctx.fail(s, f"apply_action({action!r}) raised {type(e).__name__} ({e}), expected "
                          f"{exc.__name__}") from None
    else:
        raise ctx.fail(s, f"apply_action({action!r}) was accepted (expected {exc.__name__})")
    after = _fingerprint(s)
    if after != before or s.legal_actions() != legal or s.current_player() != p:
        what = [name for name, x, y in zip(("state", "history length", "history", "event count",
                                            "events"), before, after) if x != y]
        detail = _first_diff(before[0], after[0]) if "state" in what else ""
        raise ctx.fail(s, f"refused apply_action({action!r}) changed the state "
                          f"({', '.join(what) or 'player or legal actions'}) {detail}".rstrip())


def check_illegal_action_raises(game: GameOrFactory, seed: int, n_games: int = 2,
                                masked_per_node: int = 3) -> int:
    """Refused actions raise the right error, say why, and leave the state untouched.

    At every node of ``n_games`` random games: out-of-range ids (``-1``, ``N``, ``N + 7``),
    up to ``masked_per_node`` masked ids, and wrong types (``"0"``, floats, ``None``, ``True``,
    a list, a numpy float) raise :class:`IllegalActionError`; for in-range masked ids the
    message names the action label, for all it names the side, the decision type and every
    legal label. A legal id given as a numpy integer is accepted (on a clone). At the end
    ``apply_action`` raises :class:`InvalidStateError`. After every refusal the state is
    unchanged: its serialised fields, history, event log (count and tail), legal list and
    player.

    Returns:
        The number of refusals checked.

    Raises:
        ConformanceError: naming the action and the problem.
    """
    g = _as_game(game)
    n = g.num_distinct_actions
    refused = 0
    for gi in range(n_games):
        ctx = _Ctx("check_illegal_action_raises", seed, gi)
        rng = game_rng(seed, gi)
        crng = np.random.default_rng((seed, gi, 3))
        s = g.new_initial_state()
        while not s.is_terminal():
            p = s.current_player()
            dt = _value(s.decision_type())
            legal_labels = s.legal_labels()
            if p == CHANCE:
                who, size = ["chance"], g.max_chance_outcomes
                cat = g.chance
            else:
                who, size = [g.side_names[p]], n
                cat = g.actions
            common = [*who, dt, *legal_labels]
            for a in (-1, size, size + 7):
                _expect_refused(ctx, g, s, a, IllegalActionError, [repr(a), *common])
                refused += 1
            legal = set(s.legal_actions())
            masked = [a for a in range(size) if a not in legal]
            if len(masked) > masked_per_node:
                masked = crng.choice(masked, masked_per_node, replace=False).tolist()
            for a in masked:
                _expect_refused(ctx, g, s, a, IllegalActionError, [repr(cat.labels[a]), *common])
                _expect_refused(ctx, g, s, np.int64(a), IllegalActionError,
                                [repr(cat.labels[a]), *common])
                refused += 2
            for a in _WRONG_TYPES:
                _expect_refused(ctx, g, s, a, IllegalActionError, common)
                refused += 1
            c = s.clone()
            a0 = s.legal_actions()[0]
            try:
                c.apply_action(np.int64(a0))
            except RiposteError as e:
                raise ctx.fail(s, f"a legal id given as numpy.int64 ({a0}) was refused: {e}") from e
            if c.history[-1] != (p, a0) or type(c.history[-1][1]) is not int:
                raise ctx.fail(s, f"history entry {c.history[-1]!r} after apply_action(np.int64"
                                  f"({a0})) is not the plain-int pair {(p, a0)}")
            _random_step(s, rng)
        for a in (0, -1, "x"):
            _expect_refused(ctx, g, s, a, InvalidStateError, [])
            refused += 1
    return refused


# -- everything ---------------------------------------------------------------------------------
def run_all(game_factory: GameOrFactory, n_games: int, seed: int, *,
            json_games: int = 1, json_every_step: bool = True, clone_games: int = 2,
            replay_games: int = 3, illegal_games: int = 2, apply_games: int = 1,
            why_illegal_samples: int = 3,
            observe_every: int = 1, pickle_games: int = 1) -> dict[str, Any]:
    """Run every check of this module; the game must not change while they run.

    Args:
        game_factory: a game or a zero-argument factory (determinism then builds two games).
        n_games: random games for :func:`check_random_games`.
        seed: suite seed (each check derives its generators from it).

    Returns:
        ``{"random_games": RandomGamesStats.to_dict(), "clone_points": …, "json_round_trips":
        …, "replayed_labels": …, "legal_actions_applied": …, "refusals": …,
        "pickle_points": …}``.

    Raises:
        ConformanceError: at the first violation.
    """
    g = _as_game(game_factory)
    config = json.dumps(g.config(), sort_keys=True)
    check_game_static(g)
    out: dict[str, Any] = {}
    out["random_games"] = check_random_games(
        g, n_games, seed, why_illegal_samples=why_illegal_samples,
        observe_every=observe_every).to_dict()
    out["clone_points"] = check_clone_independence(g, seed, n_games=clone_games)
    out["json_round_trips"] = check_json_round_trip(g, seed, every_step=json_every_step,
                                                    n_games=json_games)
    out["replayed_labels"] = check_replay(g, seed, n_games=replay_games)
    check_determinism(game_factory, seed)
    out["legal_actions_applied"] = check_every_legal_action_applies(g, seed, n_games=apply_games)
    out["refusals"] = check_illegal_action_raises(g, seed, n_games=illegal_games)
    out["pickle_points"] = check_pickle_round_trip(g, seed, n_games=pickle_games)
    if json.dumps(g.config(), sort_keys=True) != config:
        raise _Ctx("run_all", seed).fail(None, f"game.config() changed while the suite ran: "
                                               f"{config} -> {json.dumps(g.config())}")
    return out
