"""Determinism: the engine reads its own generators only, in one process and across
processes.

Part of :mod:`envs.core.testing` (see its docstring).
"""

from __future__ import annotations

import json
import random  # global-rng-ok: check_determinism disturbs and restores it
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..protocol import Game, State
from ..replay import transcript
from .common import _as_game, _Ctx, game_rng, GameOrFactory, _random_step
from .round_trips import _first_diff


# -- determinism --------------------------------------------------------------------------------
def _disturb_global_rngs(k: int) -> None:
    """Draw from (and so advance) the global generators the engine must never read."""
    for _ in range(1 + k % 3):
        random.random()  # global-rng-ok: deliberate disturbance, see check_determinism
        np.random.random()  # global-rng-ok: deliberate disturbance, see check_determinism


def _seeded_transcript(g: Game[Any], seed: int, disturb: bool) -> tuple[list[str], str]:
    rng = game_rng(seed, 0)
    s: State = g.new_initial_state()
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
