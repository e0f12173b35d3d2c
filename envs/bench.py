"""Speed of a ruleset's engine under random play: ``python -m envs.bench``.

Plays random legal games — decisions uniform over ``legal_actions()``, chance outcomes drawn
from a seeded ``numpy.random.Generator`` — on one core for a wall-clock budget and prints (and
optionally writes) a JSON record::

    python -m envs.bench --ruleset acw_regimental --seconds 5 --json bench.json
    python -m envs.bench --ruleset acw_regimental --scenario example_a_closing_volley --seed 3
    python -m envs.bench --ruleset acw_regimental --seconds 5 --reference
    valgrind --tool=callgrind python -m envs.bench --ruleset acw_regimental --games 10

Keys: ``decisions_per_s``, ``chance_nodes_per_s``, ``games_per_s``, ``mean_decisions_per_game``
(rates per wall-clock second; games counted when finished), and ``ruleset``, ``scenario``,
``seed``, ``seconds`` (measured), ``games``, ``decisions``, ``chance_nodes``, ``python``,
``machine``. The hot loop uses ``apply_action_unchecked`` (legality is guaranteed by
construction), calls ``legal_actions()`` once per decision and samples chance outcomes without
building lists.

``--reference`` calibrates the numbers against PettingZoo's own benchmark, so that they can be
compared across machines: after the engine run it steps, for the same ``--seconds`` each, (a)
PettingZoo's ``connect_four_v3`` AEC env and (b) this project's AEC env of the same ruleset and
scenario (``envs.<ruleset>_v0.env()`` when that module exists, else
:class:`envs.adapters.aec.RiposteAECEnv` in ``OrderEnforcingWrapper``) through the loop of
``pettingzoo.test.performance_benchmark`` (see :func:`aec_benchmark`), and adds the keys

* ``reference`` — ``{"env": "pettingzoo.classic.connect_four_v3", "turns_per_s": ...}``, the
  machine's yardstick (what ``performance_benchmark(connect_four_v3.env())`` prints as "turns
  per second");
* ``aec_turns_per_s`` — turns per second of this project's AEC env through the same loop (the
  engine plus the adapter: observations, masks, infos);
* ``decisions_per_reference_turn`` — ``decisions_per_s / reference["turns_per_s"]`` (3
  decimals): engine decisions per connect-four AEC turn, a machine-independent speed (> 1: the
  engine decides faster than PettingZoo steps connect four).
* ``aec_turns_per_reference_turn`` — ``aec_turns_per_s / reference["turns_per_s"]`` (3
  decimals): the same ratio for the whole AEC env.

The command line adds the cost of ``State.clone()`` in the middle of a game (what a search
pays per simulation; :func:`clone_benchmark`): ``clone_us`` (microseconds per clone of the state
reached after ``clone_at_decision`` decisions — 150, or the longest of the seeded games when none
is that long) and ``clone_per_decision`` (``clone_us`` over the mean wall-clock time of one
decision of the run, ``1e6 / decisions_per_s``; 3 decimals). ``--games`` runs (instruction
counts) leave it out.

``--fingerprint GAMES`` times nothing: it plays ``GAMES`` seeded random games (game ``i`` drawn
from ``numpy.random.default_rng([seed, i])``, checked ``apply_action``) and prints a SHA-256 of
every decision's player, decision type and legal list and of every final ``to_json()`` (state,
history, event log), with keys ``ruleset``, ``scenario``, ``seed``, ``games``, ``decisions``,
``chance_nodes``, ``fingerprint``. A speed change that leaves the fingerprint unchanged leaves
the game unchanged on those games::

    python -m envs.bench --ruleset acw_regimental --fingerprint 60

``--fingerprint GAMES --behaviour`` plays the same games but hashes only what a player or a
replay can see — legal labels, chance outcomes with their probabilities, every event (kind,
rule ids, side, data, text), every side's observation vector at every decision, returns — and
not the state's JSON or any frame (:func:`observable_fingerprint`; its record has the extra keys
``events`` and ``covers``). A change of form (frames, names, JSON layout) that leaves it
unchanged changes nothing a player sees on those games::

    python -m envs.bench --ruleset acw_regimental --scenario crossroads --fingerprint 300 --behaviour

``--reference`` needs ``pettingzoo`` and ``pygame`` (connect four imports it; both are in the
``test`` extra); they are imported only under the flag, and a missing one is a one-line
``error:`` naming the package, exit status 2, before anything is measured. Without the flag the
record is the one above.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, blank_arguments, check_output_path
from envs.core.protocol import CHANCE, TERMINAL, Game, State


def run_benchmark(game: Game, seconds: float | None, seed: int = 0,
                  games: int | None = None) -> dict[str, Any]:
    """Play random games of ``game`` for about ``seconds`` of wall-clock time, or exactly
    ``games`` games.

    With a time budget the clock is checked between games and every 256 actions inside a game,
    so the run stops within one such slice of the budget; an unfinished last game adds its
    decisions and chance nodes to the counts but not to ``games``. A fixed number of games is
    for instruction counts (``valgrind --tool=callgrind``): the first ``n`` games of a seed are
    the same whatever the number asked for.

    Args:
        game: the game to play.
        seconds: wall-clock budget (finite, > 0), or ``None`` with ``games``.
        seed: seed of the ``numpy.random.default_rng`` drawing decisions and chance outcomes
            (uniform floats drawn in blocks, see :func:`_uniform_stream`: a decision takes
            ``legal[int(u * len(legal))]``, a chance node the outcome whose cumulative
            probability first exceeds ``u``).
        games: number of games to play (>= 1) instead of a time budget.

    Returns:
        The JSON-serialisable record described in the module docstring.

    Raises:
        ValueError: when ``seconds`` is not finite and positive, ``games`` < 1, or not exactly
            one of the two is given.
    """
    if (seconds is None) == (games is None):
        raise ValueError("give either seconds or games")
    if games is not None and games < 1:
        raise ValueError(f"games must be >= 1, got {games!r}")
    if seconds is not None and not 0 < seconds < math.inf:
        raise ValueError(f"seconds must be finite and > 0, got {seconds!r}")
    random = _uniform_stream(np.random.default_rng(seed))
    clock = time.perf_counter
    max_games = games if games is not None else -1
    games = decisions = chance_nodes = 0
    finished_decisions = 0
    t0 = clock()
    deadline = t0 + seconds if seconds is not None else math.inf
    done = False
    while not done:
        state = game.new_initial_state()
        current = state.current_player
        apply = state.apply_action_unchecked
        legal_actions = state.legal_actions
        chance_outcomes = state.chance_outcomes
        game_decisions = 0
        k = 0
        while True:
            p = current()
            if p == TERMINAL:
                games += 1
                finished_decisions += game_decisions
                break
            if p == CHANCE:
                u = random()
                acc = 0.0
                outcome = -1
                for outcome, prob in chance_outcomes():
                    acc += prob
                    if u < acc:
                        break
                apply(outcome)
                chance_nodes += 1
            else:
                legal = legal_actions()
                apply(legal[int(random() * len(legal))])
                game_decisions += 1
            k += 1
            if k & 255 == 0 and clock() >= deadline:
                done = True
                break
        decisions += game_decisions
        if games == max_games or clock() >= deadline:
            done = True
    elapsed = clock() - t0
    return {
        "ruleset": game.ruleset_id,
        "scenario": game.scenario_name,
        "seed": seed,
        "seconds": round(elapsed, 4),
        "games": games,
        "decisions": decisions,
        "chance_nodes": chance_nodes,
        "decisions_per_s": round(decisions / elapsed, 1),
        "chance_nodes_per_s": round(chance_nodes / elapsed, 1),
        "games_per_s": round(games / elapsed, 3),
        "mean_decisions_per_game": round(finished_decisions / games, 2) if games else None,
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or platform.system()}".strip(),
    }


def clone_benchmark(game: Game, decisions_per_s: float, seed: int = 0, at: int = 150,
                    seconds: float = 0.5) -> dict[str, Any]:
    """Time ``State.clone()`` of a state in the middle of a game.

    The state is that of a random game (game ``i`` drawn from ``numpy.random.default_rng([seed,
    i])`` as in :func:`behaviour_fingerprint`) after ``at`` decisions: the first of games
    ``i = 0, 1, ...`` (at most 50) that gets that far, else the one of them that went furthest.
    Clones are timed in batches of 100 for about ``seconds``; the fastest batch is reported (the
    least disturbed by other processes, as ``timeit`` advises).

    Args:
        game: the game to play.
        decisions_per_s: the engine's decision rate (``run_benchmark``'s ``decisions_per_s``),
            the yardstick of ``clone_per_decision``.
        seed: first entry of each game's generator seed.
        at: decisions to play before cloning (>= 0).
        seconds: timing budget (> 0).

    Returns:
        ``{"clone_us": ..., "clone_at_decision": ..., "clone_per_decision": ...}``.

    Raises:
        ValueError: when ``at`` < 0, ``seconds`` is not finite and positive, or
            ``decisions_per_s`` is not positive.
    """
    from envs.core.chance import sample_chance_outcome

    if at < 0:
        raise ValueError(f"at must be >= 0, got {at!r}")
    if not 0 < seconds < math.inf:
        raise ValueError(f"seconds must be finite and > 0, got {seconds!r}")
    if not decisions_per_s > 0:
        raise ValueError(f"decisions_per_s must be > 0, got {decisions_per_s!r}")
    best: State | None = None
    best_decisions = -1
    for i in range(50):
        rng = np.random.default_rng([seed, i])
        state = game.new_initial_state()
        decisions = 0
        while decisions < at:
            p = state.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                state.apply_action(sample_chance_outcome(state, rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                decisions += 1
        if decisions > best_decisions:
            best, best_decisions = state, decisions
        if decisions >= at:
            break
    if best is None:  # (the loop above plays at least one game)
        raise ValueError("no game was played")
    clone = best.clone
    clock = time.perf_counter
    fastest = math.inf
    deadline = clock() + seconds
    while True:
        t0 = clock()
        for _ in range(100):
            clone()
        t1 = clock()
        fastest = min(fastest, (t1 - t0) / 100)
        if t1 >= deadline:
            break
    clone_us = fastest * 1e6
    return {"clone_us": round(clone_us, 2), "clone_at_decision": best_decisions,
            "clone_per_decision": round(clone_us * decisions_per_s / 1e6, 3)}


def behaviour_fingerprint(game: Game, games: int, seed: int = 0) -> dict[str, Any]:
    """A digest of how ``game`` plays: ``games`` random games, the ``i``-th with decisions
    uniform over ``legal_actions()`` and chance sampled by ``chance_outcomes()``, both from
    ``numpy.random.default_rng([seed, i])``, actions applied with the checked
    ``apply_action``.

    The SHA-256 covers, at every decision, the player, the decision type and the legal list,
    and at the end of every game its ``to_json()`` (dynamic state, history and the event log
    with its rule ids and texts). Identical digests before and after a change mean the change
    altered nothing these games reach (how exact speed changes are checked).

    Args:
        game: the game to play.
        games: number of games (>= 1).
        seed: first entry of each game's generator seed.

    Returns:
        ``{"ruleset", "scenario", "seed", "games", "decisions", "chance_nodes",
        "fingerprint"}`` (the digest as 64 hex digits).

    Raises:
        ValueError: when ``games`` < 1.
    """
    from envs.core.chance import sample_chance_outcome

    if games < 1:
        raise ValueError(f"games must be >= 1, got {games!r}")
    digest = hashlib.sha256()
    decisions = chance_nodes = 0
    for i in range(games):
        rng = np.random.default_rng([seed, i])
        state = game.new_initial_state()
        while True:
            p = state.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                action = sample_chance_outcome(state, rng)
                chance_nodes += 1
            else:
                legal = state.legal_actions()
                digest.update(f"{p}|{state.decision_name()}|{legal}\n".encode())
                action = legal[int(rng.integers(len(legal)))]
                decisions += 1
            state.apply_action(action)
        digest.update(state.to_json().encode())
    return {"ruleset": game.ruleset_id, "scenario": game.scenario_name, "seed": seed,
            "games": games, "decisions": decisions, "chance_nodes": chance_nodes,
            "fingerprint": digest.hexdigest()}


def observable_fingerprint(game: Game, games: int, seed: int = 0) -> dict[str, Any]:
    """A digest of what a player or a replay can see of how ``game`` plays, blind to the
    state's internal layout (``--fingerprint GAMES --behaviour``).

    The games are those of :func:`behaviour_fingerprint` (game ``i`` from
    ``numpy.random.default_rng([seed, i])``, decisions uniform over ``legal_actions()``, chance
    sampled by ``chance_outcomes()``, checked ``apply_action``). The SHA-256 covers, in order:

    * at every decision: the player, the decision type, the legal *labels*, the SHA-256 of every
      side's observation vector (``game.observation(state, side)`` for ``side`` in
      ``range(num_players)``: dtype, shape and bytes) and the chosen label;
    * at every chance node: the ``(label, probability)`` pairs of ``chance_outcomes()``
      (probabilities written with 12 significant digits) and the drawn label;
    * every event, as it is logged: kind, rule ids, side, data (JSON, sorted keys) and text;
    * at the end of every game: ``returns()``.

    It does not read ``to_json()``, ``history`` ids or any frame: renaming a frame key, changing
    the JSON layout or reordering action ids behind the same labels leaves it unchanged, while
    any change to a legal list, a chance distribution, an event, an observation or a result
    changes it.

    Args:
        game: the game to play.
        games: number of games (>= 1).
        seed: first entry of each game's generator seed.

    Returns:
        ``{"ruleset", "scenario", "seed", "games", "decisions", "chance_nodes", "events",
        "fingerprint", "covers"}``: ``fingerprint`` is 64 hex digits, ``covers`` is
        ``"behaviour"``.

    Raises:
        ValueError: when ``games`` < 1.
    """
    from envs.core.chance import sample_chance_outcome

    if games < 1:
        raise ValueError(f"games must be >= 1, got {games!r}")
    digest = hashlib.sha256()
    update = digest.update
    sides = range(game.num_players)
    actions, chance = game.actions, game.chance
    decisions = chance_nodes = events = 0

    def observation_digest(state: Any, side: int) -> str:
        vec = np.asarray(game.observation(state, side))
        return hashlib.sha256(f"{vec.dtype.str}{vec.shape}".encode()
                              + vec.tobytes()).hexdigest()

    for i in range(games):
        rng = np.random.default_rng([seed, i])
        state = game.new_initial_state()
        update(json.dumps(["G", i]).encode() + b"\n")
        logged = 0
        while True:
            for event in state.events[logged:]:
                update(json.dumps([event.kind, list(event.rules), event.side, event.data,
                                   event.text], sort_keys=True).encode() + b"\n")
            events += len(state.events) - logged
            logged = len(state.events)
            p = state.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                outcomes = state.chance_outcomes()
                action = sample_chance_outcome(state, rng)
                update(json.dumps(["C", [[chance.labels[o], f"{prob:.12g}"]
                                         for o, prob in outcomes],
                                   chance.labels[action]]).encode() + b"\n")
                chance_nodes += 1
            else:
                legal = state.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
                update(json.dumps(["D", p, state.decision_name(),
                                   [actions.labels[a] for a in legal],
                                   [observation_digest(state, side) for side in sides],
                                   actions.labels[action]]).encode() + b"\n")
                decisions += 1
            state.apply_action(action)
        update(json.dumps(["R", [float(r) for r in state.returns()]]).encode() + b"\n")
    return {"ruleset": game.ruleset_id, "scenario": game.scenario_name, "seed": seed,
            "games": games, "decisions": decisions, "chance_nodes": chance_nodes,
            "events": events, "fingerprint": digest.hexdigest(), "covers": "behaviour"}


#: the PettingZoo env whose AEC loop is the yardstick of ``--reference``
REFERENCE_ENV = "pettingzoo.classic.connect_four_v3"

#: what ``--reference`` imports, in order: (module, requirement to install, why it is needed);
#: pygame first, so that it is our PYGAME_HIDE_SUPPORT_PROMPT that silences its banner (importing
#: pettingzoo sets the variable too)
_REFERENCE_PACKAGES = (
    ("pygame", "pygame>=2.5", "pettingzoo.classic.connect_four_v3 imports it"),
    ("pettingzoo", "pettingzoo>=1.24", "PettingZoo's AEC API and its connect_four_v3"),
)


def aec_benchmark(env: Any, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Step a PettingZoo AEC ``env`` with random masked actions for about ``seconds``.

    This is the loop of ``pettingzoo.test.performance_benchmark`` with a configurable budget
    (PettingZoo's is a fixed 5 s), a private seeded generator instead of the global ``random``
    module, and a returned record instead of printed lines. Per turn, exactly its work:
    ``env.last()``; action ``None`` when the agent is terminated or truncated, else a uniform
    choice among ``np.flatnonzero(obs["action_mask"]).tolist()``; ``env.step(action)``;
    ``env.reset()`` once every agent is terminated (or every agent truncated). Turns come in
    cycles of ``env.num_agents`` (``env.agent_iter(env.num_agents)``) and the clock is read
    after each cycle, as there.

    The choice draws uniform floats from ``numpy.random.default_rng(seed)`` in blocks
    (``legal[int(u * len(legal))]``, about the cost of ``random.choice``; ``envs/`` uses no
    ``random`` module, see tests/core/test_imports.py); the env is reset with ``seed`` first
    and without a seed afterwards (its streams continue).

    Args:
        env: a PettingZoo AEC env whose observations are dicts with an ``"action_mask"``.
        seconds: wall-clock budget (finite, > 0).
        seed: seed of the action choices and of the first ``env.reset``.

    Returns:
        ``{"turns": ..., "seconds": ... (measured), "turns_per_s": ...}``.

    Raises:
        ValueError: when ``seconds`` is not finite and positive, or for an observation without an
            action mask (``performance_benchmark`` would sample the action space instead).
    """
    if not 0 < seconds < math.inf:
        raise ValueError(f"seconds must be finite and > 0, got {seconds!r}")
    uniform = _uniform_stream(np.random.default_rng(seed))
    flatnonzero = np.flatnonzero
    clock = time.perf_counter
    turns = 0
    env.reset(seed=seed)
    t0 = clock()
    while True:
        for agent in env.agent_iter(env.num_agents):
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            elif isinstance(obs, dict) and "action_mask" in obs:
                legal = flatnonzero(obs["action_mask"]).tolist()
                action = legal[int(uniform() * len(legal))]
            else:
                raise ValueError(f"agent {agent!r}: the observation has no 'action_mask'")
            env.step(action)
            turns += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
        elapsed = clock() - t0
        if elapsed > seconds:
            break
    return {"turns": turns, "seconds": round(elapsed, 4),
            "turns_per_s": round(turns / elapsed, 1)}


def _uniform_stream(rng: np.random.Generator, block: int = 4096) -> Callable[[], float]:
    """A function returning the next uniform float in [0, 1) of ``rng``, drawn ``block`` at a
    time (one Python call per draw, no numpy call)."""
    buf: list[float] = []
    pop = buf.pop

    def uniform() -> float:
        if not buf:
            buf.extend(reversed(rng.random(block).tolist()))
        return pop()

    return uniform


def _import_reference() -> Callable[..., Any]:
    """Import what ``--reference`` needs; returns ``connect_four_v3.env``.

    Sets ``PYGAME_HIDE_SUPPORT_PROMPT=1`` first, so pygame prints no banner on stdout.

    Raises:
        ImportError: with a one-line message naming the package to install.
    """
    os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    for module, requirement, why in _REFERENCE_PACKAGES:
        try:
            importlib.import_module(module)
        except ImportError as e:
            missing = (e.name or module).split(".")[0]
            if missing != module:  # the package is there but one of its own imports is not
                requirement = missing
            raise ImportError(f"--reference needs {missing} ({why}), which cannot be imported: "
                              f"pip install '{requirement}' (in the project's test extra)"
                              ) from None
    with warnings.catch_warnings():  # PettingZoo >= 1.27 prefers pettingzoo.make(...)
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.classic import connect_four_v3
    return connect_four_v3.env


def riposte_aec_env(ruleset: str, scenario: str | Path | None = None) -> Any:
    """This project's PettingZoo AEC env of ``ruleset`` (``scenario`` as in ``load_game``):
    ``envs.<ruleset>_v0.env(scenario=...)`` when that module exists (e.g.
    :mod:`envs.acw_regimental_v0`), else :class:`envs.adapters.aec.RiposteAECEnv` — the AEC view
    of any registered ruleset — wrapped in :class:`envs.adapters.wrappers.OrderEnforcing`
    (PettingZoo's ``OrderEnforcingWrapper``) as those modules do. Imports pettingzoo and gymnasium.

    Raises:
        UnknownRulesetError, ScenarioError, ParameterError: on bad input.
    """
    name = f"envs.{ruleset}_v0"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
    else:
        return module.env(scenario=scenario)
    from envs.adapters.aec import RiposteAECEnv
    from envs.adapters.wrappers import OrderEnforcing
    return OrderEnforcing(RiposteAECEnv(ruleset=ruleset, scenario=scenario))


def add_reference(result: dict[str, Any], reference_turns_per_s: float,
                  aec_turns_per_s: float) -> dict[str, Any]:
    """``result`` (a :func:`run_benchmark` record) with the ``--reference`` keys added."""
    return {**result,
            "reference": {"env": REFERENCE_ENV, "turns_per_s": reference_turns_per_s},
            "aec_turns_per_s": aec_turns_per_s,
            "decisions_per_reference_turn": round(
                result["decisions_per_s"] / reference_turns_per_s, 3),
            "aec_turns_per_reference_turn": round(aec_turns_per_s / reference_turns_per_s, 3)}


def _output_path(text: str) -> str:
    """The name as given (a ``Path`` would drop a trailing ``/``, which
    :func:`~envs.core.files.check_output_path` refuses)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty file name")
    return text


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < v < math.inf:
        raise argparse.ArgumentTypeError(f"must be finite and > 0, got {text!r}")
    return v


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status (2 on bad input, 130 when
    interrupted)."""
    from envs.rulesets import list_rulesets, load_game

    parser = argparse.ArgumentParser(prog="python -m envs.bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", required=True,
                        help=f"ruleset id (registered: {', '.join(list_rulesets())})")
    parser.add_argument("--scenario", default=None,
                        help="built-in scenario name or TOML path (default: the ruleset's default)")
    parser.add_argument("--seconds", type=_positive_float, default=None,
                        help="wall-clock budget in seconds (default 5)")
    parser.add_argument("--games", type=int, default=None,
                        help="play exactly this many games instead of a time budget (for "
                             "instruction counts under valgrind)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", metavar="OUT", type=_output_path, default=None,
                        help="also write the JSON record to OUT")
    parser.add_argument("--reference", action="store_true",
                        help="also time PettingZoo's connect_four_v3 and this ruleset's AEC env "
                             "(--seconds each) and add their turns per second (needs "
                             "pettingzoo and pygame)")
    parser.add_argument("--fingerprint", metavar="GAMES", type=int, default=None,
                        help="time nothing: print a SHA-256 of how GAMES seeded random games "
                             "play (legal lists, final states, event logs), to check that a "
                             "speed change is exact")
    parser.add_argument("--behaviour", action="store_true",
                        help="with --fingerprint: hash only what a player or a replay sees "
                             "(labels, chance, events, observations, returns), not the state's "
                             "JSON, to check that a change of form is exact")
    args = parser.parse_args(argv)
    if blank := blank_arguments(args):
        parser.error(f"{', '.join(blank)} must not be empty or whitespace")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    if args.fingerprint is not None:
        if args.fingerprint < 1:
            parser.error(f"--fingerprint must be >= 1 games, got {args.fingerprint}")
        if args.reference or args.seconds is not None or args.games is not None:
            parser.error("--fingerprint times nothing: it takes no --seconds, --games or "
                         "--reference")
    if args.behaviour and args.fingerprint is None:
        parser.error("--behaviour is a kind of --fingerprint: give --fingerprint GAMES too")
    if args.games is not None:
        if args.games < 1:
            parser.error(f"--games must be >= 1, got {args.games}")
        if args.seconds is not None or args.reference:
            parser.error("--games replaces the time budget: it takes no --seconds or "
                         "--reference")
    seconds = 5.0 if args.seconds is None and args.games is None else args.seconds
    try:
        if args.json is not None:  # before the run, not after it
            check_output_path(args.json)
        game = load_game(args.ruleset, args.scenario)
        if args.reference:  # imports and envs before the runs: a missing package costs no wait
            reference_env = _import_reference()()
            aec_env = riposte_aec_env(args.ruleset, args.scenario)
    except (RiposteError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: cannot write {args.json}: {e}", file=sys.stderr)
        return 2
    try:
        if args.fingerprint is not None:
            fingerprint = observable_fingerprint if args.behaviour else behaviour_fingerprint
            result = fingerprint(game, args.fingerprint, args.seed)
        else:
            result = run_benchmark(game, seconds, args.seed, games=args.games)
            if args.games is None and result["decisions_per_s"] > 0:
                result.update(clone_benchmark(game, result["decisions_per_s"], args.seed))
        if args.reference:
            ref = aec_benchmark(reference_env, seconds, args.seed)
            ours = aec_benchmark(aec_env, seconds, args.seed)
            result = add_reference(result, ref["turns_per_s"], ours["turns_per_s"])
    except KeyboardInterrupt:
        print("interrupted: nothing measured, nothing written", file=sys.stderr)
        return 130
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        try:
            atomic_write_text(args.json, text + "\n")
        except OSError as e:
            print(f"error: cannot write {args.json}: {e.strerror}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
