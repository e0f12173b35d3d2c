"""envs.bench: the record's keys and the consistency of its counts (never its timings)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import envs.bench as bench
from envs.bench import REFERENCE_ENV, aec_benchmark, main, riposte_aec_env, run_benchmark
from tests.toy_ruleset import ToyGame

ROOT = Path(__file__).resolve().parents[2]

KEYS = {"decisions_per_s", "chance_nodes_per_s", "games_per_s", "mean_decisions_per_game",
        "ruleset", "scenario", "seconds", "games", "decisions", "chance_nodes", "python",
        "machine", "seed"}
#: what --reference adds
REFERENCE_KEYS = {"reference", "aec_turns_per_s", "decisions_per_reference_turn",
                  "aec_turns_per_reference_turn"}
#: what the command line adds to a timed run (the cost of a clone)
CLONE_KEYS = {"clone_us", "clone_at_decision", "clone_per_decision"}


def test_run_benchmark_record_is_consistent() -> None:
    r = run_benchmark(ToyGame(), 0.3, seed=1)
    assert set(r) == KEYS
    assert (r["ruleset"], r["scenario"], r["seed"]) == ("toy", "duel", 1)
    assert r["games"] > 0
    assert r["seconds"] >= 0.3
    # a finished toy game has at least 10 decisions (five attacks, five reactions) and at most
    # the cap
    assert 10 <= r["mean_decisions_per_game"] <= ToyGame().max_game_length
    # the unfinished last game may add decisions but fewer than one game's cap (the mean is
    # rounded to 2 decimals)
    finished = r["mean_decisions_per_game"] * r["games"]
    slack = 0.005 * r["games"] + 1e-6
    assert finished - slack <= r["decisions"] < finished + slack + ToyGame().max_game_length
    # one d6 per attack, one reaction per attack: chance nodes never exceed decisions / 2
    assert 0 < r["chance_nodes"] <= r["decisions"] / 2
    assert r["decisions_per_s"] == pytest.approx(r["decisions"] / r["seconds"], rel=1e-3)
    assert r["chance_nodes_per_s"] == pytest.approx(r["chance_nodes"] / r["seconds"], rel=1e-3)
    assert r["games_per_s"] == pytest.approx(r["games"] / r["seconds"], rel=1e-2)
    json.dumps(r)


def test_run_benchmark_rejects_non_positive_budget() -> None:
    with pytest.raises(ValueError, match="seconds must be finite and > 0"):
        run_benchmark(ToyGame(), 0)


def test_cli_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert main(["--ruleset", "toy", "--seconds", "0.2", "--seed", "4", "--json", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text())
    assert printed == written
    assert set(written) == KEYS | CLONE_KEYS and written["seed"] == 4
    assert written["ruleset"] == "toy"


@pytest.mark.parametrize("argv,needle", [
    (["--ruleset", "toy", "--seconds", "-1"], "must be finite and > 0"),
    (["--ruleset", "toy", "--seconds", "inf"], "must be finite and > 0, got 'inf'"),
    (["--ruleset", "toy", "--seconds", "nan"], "must be finite and > 0, got 'nan'"),
    (["--ruleset", "toy", "--seconds", "abc"], "not a number"),
    (["--ruleset", "toy", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ([], "the following arguments are required: --ruleset"),
    (["--ruleset", "toy", "--fingerprint", "0"], "--fingerprint must be >= 1 games, got 0"),
    (["--ruleset", "toy", "--fingerprint", "2", "--seconds", "1"],
     "takes no --seconds, --games or --reference"),
    (["--ruleset", "toy", "--fingerprint", "2", "--reference"],
     "takes no --seconds, --games or --reference"),
    (["--ruleset", "toy", "--fingerprint", "two"], "invalid int value: 'two'"),
    (["--ruleset", "toy", "--games", "0"], "--games must be >= 1, got 0"),
    (["--ruleset", "toy", "--games", "2", "--seconds", "1"], "takes no --seconds or --reference"),
    (["--ruleset", "toy", "--games", "2", "--reference"], "takes no --seconds or --reference"),
    (["--ruleset", "toy", "--games", "2", "--fingerprint", "2"],
     "takes no --seconds, --games or --reference"),
])
def test_cli_bad_flags_exit_2(argv: list[str], needle: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    assert needle in capsys.readouterr().err


def test_cli_unknown_ruleset_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ruleset", "chess", "--seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown ruleset 'chess'") and err.count("\n") == 1


# -- --reference -----------------------------------------------------------------------------------
def _check_reference_record(r: dict[str, Any]) -> None:
    assert set(r) == KEYS | REFERENCE_KEYS | CLONE_KEYS
    assert r["ruleset"] == "acw_regimental" and r["decisions"] > 0
    ref = r["reference"]
    assert set(ref) == {"env", "turns_per_s"} and ref["env"] == REFERENCE_ENV
    assert ref["turns_per_s"] > 0 and r["aec_turns_per_s"] > 0
    assert r["decisions_per_reference_turn"] > 0
    # each ratio is rounded to 3 decimals and computed from unrounded rates, so it may differ
    # from the quotient of the printed (rounded) rates by a little more than 5e-4
    assert r["decisions_per_reference_turn"] == pytest.approx(
        r["decisions_per_s"] / ref["turns_per_s"], abs=1e-3)
    assert r["aec_turns_per_reference_turn"] == pytest.approx(
        r["aec_turns_per_s"] / ref["turns_per_s"], abs=1e-3)
    # the default battle lasts well over 150 decisions
    assert r["clone_at_decision"] == 150 and r["clone_us"] > 0
    assert r["clone_per_decision"] == pytest.approx(
        r["clone_us"] * r["decisions_per_s"] / 1e6, abs=1e-3)


def test_cli_reference_adds_the_calibration(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert main(["--ruleset", "acw_regimental", "--seconds", "0.3", "--seed", "2", "--reference",
                 "--json", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text())
    assert printed == written
    _check_reference_record(written)
    assert written["seed"] == 2 and written["scenario"] == "default"


@pytest.mark.slow
def test_cli_reference_stdout_is_json_in_a_fresh_process(tmp_path: Path) -> None:
    # a fresh interpreter imports pygame for the first time: no banner may reach stdout
    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, "-m", "envs.bench", "--ruleset", "acw_regimental",
                        "--seconds", "0.2", "--reference", "--json", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(out.read_text())
    _check_reference_record(json.loads(r.stdout))


@pytest.mark.parametrize("package", ["pygame", "pettingzoo"])
def test_cli_reference_without_a_package_is_one_line_error(
        package: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # None in sys.modules makes `import package` raise ImportError even when it is installed
    # (and even when pettingzoo.classic.connect_four, which imports pygame, is already loaded)
    monkeypatch.setitem(sys.modules, package, None)

    def no_run(*args: Any, **kwargs: Any) -> dict[str, Any]:
        pytest.fail("the engine was measured although --reference cannot run")

    monkeypatch.setattr(bench, "run_benchmark", no_run)
    assert main(["--ruleset", "acw_regimental", "--seconds", "0.1", "--reference"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.startswith(f"error: --reference needs {package} ") and cap.err.count("\n") == 1
    assert f"pip install '{package}>=" in cap.err


def test_reference_keys_only_with_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ruleset", "acw_regimental", "--seconds", "0.1"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == KEYS | CLONE_KEYS


def test_clone_benchmark_clones_the_state_it_reached() -> None:
    # the toy duel is shorter than 150 decisions: the longest of the seeded games is cloned
    r = bench.clone_benchmark(ToyGame(), 1000.0, seed=0, at=150, seconds=0.05)
    assert set(r) == CLONE_KEYS
    assert 10 <= r["clone_at_decision"] < 150 and r["clone_us"] > 0
    assert r["clone_per_decision"] == pytest.approx(r["clone_us"] / 1000.0, abs=1e-3)
    assert bench.clone_benchmark(ToyGame(), 1000.0, at=3, seconds=0.05)["clone_at_decision"] == 3


@pytest.mark.parametrize("kwargs,needle", [({"at": -1}, "at must be >= 0"),
                                           ({"seconds": 0}, "seconds must be finite"),
                                           ({"decisions_per_s": 0.0}, "decisions_per_s must be")])
def test_clone_benchmark_refuses_bad_input(kwargs: dict[str, Any], needle: str) -> None:
    args = {"decisions_per_s": 1000.0, **kwargs}
    with pytest.raises(ValueError, match=needle):
        bench.clone_benchmark(ToyGame(), **args)


class _ScriptedAEC:
    """A two-agent AEC env with a fixed script, recording what the loop does: a game is a
    decision of a, b, a; then b is terminated (stepped with None); then a last decision of a,
    after which both are terminated. The agent on move may choose between two actions of six,
    which shift with the decision count."""

    possible_agents = ["a", "b"]

    def __init__(self) -> None:
        self.log: list[tuple[str, Any, list[int]]] = []  # (agent, action, legal actions)
        self.resets: list[int | None] = []

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    def agent_iter(self, max_iter: int):  # same contract as pettingzoo's AECIterator
        from pettingzoo.utils.env import AECIterable
        return AECIterable(self, max_iter)

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        self.resets.append(seed)
        self.agents = list(self.possible_agents)
        self.k = 0
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = "a"

    def _legal(self) -> list[int]:
        return sorted({self.k % 6, (self.k + 3) % 6})

    def last(self) -> tuple[Any, ...]:
        agent = self.agent_selection
        mask = np.zeros(6, dtype=np.int8)
        if not self.terminations[agent]:
            mask[self._legal()] = 1
        return ({"observation": np.zeros(1, np.float32), "action_mask": mask}, 0.0,
                self.terminations[agent], self.truncations[agent], {})

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        self.log.append((agent, action, [] if self.terminations[agent] else self._legal()))
        if not self.terminations[agent]:
            self.k += 1
            if self.k == 3:
                self.terminations["b"] = True
            elif self.k == 4:
                self.terminations["a"] = True
        self.agent_selection = "b" if agent == "a" else "a"


def _fake_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """envs.bench's clock advances by 1 per reading: a budget of N seconds is N + 1 cycles."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(bench, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))


def test_aec_benchmark_is_performance_benchmarks_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_clock(monkeypatch)
    env = _ScriptedAEC()
    r = aec_benchmark(env, 100, seed=5)
    # the clock is read once at the start and once per cycle of num_agents = 2 turns; the loop
    # stops after the first cycle that ends past the budget
    assert r == {"turns": 202, "seconds": 101, "turns_per_s": 2.0}
    assert len(env.log) == 202
    # reset with the seed first, then without one after every finished game (5 turns each)
    assert env.resets == [5] + [None] * (202 // 5)
    pattern = [("a", True), ("b", True), ("a", True), ("b", False), ("a", True)]
    assert [(agent, action is not None) for agent, action, _ in env.log] == \
        (pattern * 41)[:202]
    live = [(action, legal) for _, action, legal in env.log if action is not None]
    assert all(type(action) is int and action in legal for action, legal in live)
    # uniform over the legal actions: both of each decision's two are taken, about equally
    firsts = sum(action == legal[0] for action, legal in live)
    assert 0.3 * len(live) < firsts < 0.7 * len(live)


def test_aec_benchmark_is_seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    def actions(seed: int) -> list[Any]:
        _fake_clock(monkeypatch)
        env = _ScriptedAEC()
        aec_benchmark(env, 50, seed=seed)
        return [action for _, action, _ in env.log]

    assert actions(3) == actions(3)
    assert actions(3) != actions(4)


def test_aec_benchmark_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="seconds must be finite and > 0"):
        aec_benchmark(_ScriptedAEC(), 0)

    class NoMask(_ScriptedAEC):
        def last(self) -> tuple[Any, ...]:
            return (np.zeros(1), 0.0, False, False, {})

    with pytest.raises(ValueError, match="no 'action_mask'"):
        aec_benchmark(NoMask(), 1)


def test_riposte_aec_env_by_ruleset_id(monkeypatch: pytest.MonkeyPatch) -> None:
    from pettingzoo.utils import OrderEnforcingWrapper

    import envs.acw_regimental_v0 as acw
    from envs.adapters.aec import RiposteAECEnv

    # a ruleset with an envs.<id>_v0 module gets that module's env(), with the scenario
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(acw, "env", lambda **kw: calls.append(kw) or "acw env")
    assert riposte_aec_env("acw_regimental", "example_a_closing_volley") == "acw env"
    assert calls == [{"scenario": "example_a_closing_volley"}]
    # any other registered ruleset gets the generic adapter, wrapped like those modules do
    env = riposte_aec_env("toy")
    assert isinstance(env, OrderEnforcingWrapper) and isinstance(env.unwrapped, RiposteAECEnv)
    assert env.unwrapped.game.ruleset_id == "toy"
    assert env.unwrapped.game.scenario_name == ToyGame().scenario_name


# -- --fingerprint -----------------------------------------------------------------------------
FINGERPRINT_KEYS = {"ruleset", "scenario", "seed", "games", "decisions", "chance_nodes",
                    "fingerprint"}


def _fingerprint_by_hand(game: Any, games: int, seed: int) -> tuple[str, int, int]:
    """The documented recipe, written out independently of envs.bench."""
    import hashlib

    from envs.core.chance import sample_chance_outcome
    from envs.core.protocol import CHANCE, TERMINAL

    h = hashlib.sha256()
    decisions = chance = 0
    for i in range(games):
        rng = np.random.default_rng([seed, i])
        s = game.new_initial_state()
        while s.current_player() != TERMINAL:
            if s.current_player() == CHANCE:
                s.apply_action(sample_chance_outcome(s, rng))
                chance += 1
                continue
            legal = s.legal_actions()
            h.update(f"{s.current_player()}|{s.decision_name()}|{legal}\n".encode())
            s.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
        h.update(s.to_json().encode())
    return h.hexdigest(), decisions, chance


def test_fingerprint_follows_its_recipe() -> None:
    r = bench.behaviour_fingerprint(ToyGame(), 5, seed=3)
    assert set(r) == FINGERPRINT_KEYS
    assert (r["ruleset"], r["scenario"], r["seed"], r["games"]) == ("toy", "duel", 3, 5)
    digest, decisions, chance = _fingerprint_by_hand(ToyGame(), 5, 3)
    assert (r["fingerprint"], r["decisions"], r["chance_nodes"]) == (digest, decisions, chance)
    assert len(r["fingerprint"]) == 64 and r["decisions"] >= 5 * 10


def test_fingerprint_is_repeatable_and_tells_games_apart() -> None:
    a = bench.behaviour_fingerprint(ToyGame(), 4, seed=0)["fingerprint"]
    assert bench.behaviour_fingerprint(ToyGame(), 4, seed=0)["fingerprint"] == a
    assert bench.behaviour_fingerprint(ToyGame(), 4, seed=1)["fingerprint"] != a
    assert bench.behaviour_fingerprint(ToyGame(), 5, seed=0)["fingerprint"] != a
    assert bench.behaviour_fingerprint(ToyGame(params={"hp": 4}), 4, seed=0)["fingerprint"] != a


def test_fingerprint_sees_a_changed_rule_and_a_changed_event_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.toy_ruleset as toy

    before = bench.behaviour_fingerprint(ToyGame(), 6, seed=2)["fingerprint"]
    real_apply, real_log = toy.ToyState._apply_action, toy.ToyState.log

    def dodge_needs_six(self: Any, action: int) -> None:  # a rule change: dodging needs a 6
        if self.phase == "roll" and self.dodged and action == 4:
            action = 3
        real_apply(self, action)

    monkeypatch.setattr(toy.ToyState, "_apply_action", dodge_needs_six)
    assert bench.behaviour_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] != before
    monkeypatch.setattr(toy.ToyState, "_apply_action", real_apply)
    assert bench.behaviour_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] == before

    def louder(self: Any, kind: str, rules: Any, text: str, side: Any = None, **data: Any) -> None:
        real_log(self, kind, rules, text.upper(), side, **data)  # same play, other log text

    monkeypatch.setattr(toy.ToyState, "log", louder)
    assert bench.behaviour_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] != before


def test_fingerprint_rejects_no_games() -> None:
    with pytest.raises(ValueError, match="games must be >= 1"):
        bench.behaviour_fingerprint(ToyGame(), 0)


def test_cli_fingerprint_prints_and_writes_the_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fp.json"
    assert main(["--ruleset", "acw_regimental", "--fingerprint", "2", "--seed", "5",
                 "--json", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out.read_text())
    assert set(printed) == FINGERPRINT_KEYS
    assert (printed["ruleset"], printed["scenario"], printed["games"]) == (
        "acw_regimental", "default", 2)
    from envs.rulesets import load_game
    assert printed["fingerprint"] == _fingerprint_by_hand(load_game("acw_regimental"), 2, 5)[0]


# -- --games -----------------------------------------------------------------------------------
def test_run_benchmark_fixed_number_of_games() -> None:
    r3 = run_benchmark(ToyGame(), None, seed=2, games=3)
    assert set(r3) == KEYS and r3["games"] == 3
    # no unfinished game: the decisions are exactly the finished games'
    assert r3["decisions"] == pytest.approx(3 * r3["mean_decisions_per_game"], abs=0.015)
    assert run_benchmark(ToyGame(), None, seed=2, games=3)["decisions"] == r3["decisions"]
    r5 = run_benchmark(ToyGame(), None, seed=2, games=5)
    assert r5["games"] == 5 and r5["decisions"] >= r3["decisions"] + 2 * 10  # >= 10 per game


def test_run_benchmark_first_games_do_not_depend_on_how_many(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first n games of a seed are the same whatever number is asked for (what makes
    instruction counts of --games 10 and --games 20 comparable)."""
    import tests.toy_ruleset as toy

    played: list[int] = []
    real = toy.ToyState.apply_action_unchecked

    def record(self: Any, action: int) -> None:
        played.append(action)
        real(self, action)

    monkeypatch.setattr(toy.ToyState, "apply_action_unchecked", record)
    run_benchmark(ToyGame(), None, seed=7, games=2)
    two = list(played)
    played.clear()
    run_benchmark(ToyGame(), None, seed=7, games=3)
    assert len(played) > len(two) >= 2 * 10
    assert played[:len(two)] == two


@pytest.mark.parametrize("kwargs,needle", [
    ({"seconds": None}, "either seconds or games"),
    ({"seconds": 1.0, "games": 2}, "either seconds or games"),
    ({"seconds": None, "games": 0}, "games must be >= 1"),
])
def test_run_benchmark_budget_errors(kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        run_benchmark(ToyGame(), **kwargs)


def test_cli_games_prints_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ruleset", "toy", "--games", "4", "--seed", "1"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert set(r) == KEYS and r["games"] == 4
    assert r["decisions"] == run_benchmark(ToyGame(), None, seed=1, games=4)["decisions"]


def test_cli_interrupted_run_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise KeyboardInterrupt

    monkeypatch.setattr(bench, "run_benchmark", interrupted)
    out = tmp_path / "bench.json"
    assert main(["--ruleset", "toy", "--seconds", "1", "--json", str(out)]) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "interrupted: nothing measured, nothing written\n"
    assert list(tmp_path.iterdir()) == []


def test_cli_empty_json_path_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ei:
        main(["--ruleset", "toy", "--seconds", "0.1", "--json", ""])
    assert ei.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("argument --json: empty file name")
