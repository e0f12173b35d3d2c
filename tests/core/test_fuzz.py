"""``python -m envs fuzz``: random games with every invariant checked, a violation reported with
a replay script that reproduces it, exit 1; bad input one line, exit 2."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envs.__main__ import main
from envs.core.replay import ReplayScript
from envs.rulesets import REGISTRY
from tests.toy_ruleset import ToyGame, ToyState

ROOT = Path(__file__).resolve().parents[2]


class _SumsTo09(ToyState):
    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 0.15) for i in range(6)]


class ChanceSumsTo09Game(ToyGame):
    ruleset_id = "toy_chance09"

    def new_initial_state(self) -> ToyState:
        return _SumsTo09(self)


class _NegativeTurn(ToyState):
    def _to_dict(self) -> dict[str, Any]:
        d = super()._to_dict()
        if self.turn >= 1:
            d["turn"] = -self.turn
        return d


class NegativeTurnGame(ToyGame):
    ruleset_id = "toy_negative_turn"

    def new_initial_state(self) -> ToyState:
        return _NegativeTurn(self)


_PARENT = os.getpid()


class _DiesInAWorker(ToyState):
    def _apply_action(self, action: int) -> None:
        if os.getpid() != _PARENT:  # a worker killed by the OS (out of memory, a crash)
            os._exit(9)
        super()._apply_action(action)


class DiesInAWorkerGame(ToyGame):
    ruleset_id = "toy_dies_in_a_worker"

    def new_initial_state(self) -> ToyState:
        return _DiesInAWorker(self)


REGISTRY.setdefault("toy_dies_in_a_worker", "tests.core.test_fuzz:DiesInAWorkerGame")
REGISTRY.setdefault("toy_chance09", "tests.core.test_fuzz:ChanceSumsTo09Game")
REGISTRY.setdefault("toy_negative_turn", "tests.core.test_fuzz:NegativeTurnGame")


@pytest.mark.slow
def test_fuzz_healthy_toy_reports_counts(tmp_path, capsys):
    out = tmp_path / "fuzz.json"
    rc = main(["fuzz", "--ruleset", "toy", "--games", "40", "--seed", "5", "--json", str(out),
               "--no-progress", "--replay-dir", str(tmp_path / "r")])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    doc = json.loads(out.read_text())
    assert doc["games"] == 40 and doc["extreme_chance_games"] == 10 and doc["violations"] == []
    assert doc["decisions"] > 40 * 5 and doc["chance_nodes"] > 40 and doc["round_trips"] >= 40
    assert printed.splitlines()[0].startswith(
        f"40 games (10 with extreme chance), {doc['decisions']} decisions, "
        f"{doc['chance_nodes']} chance nodes, ")
    assert printed.splitlines()[0].endswith(" 0 violations")
    assert not (tmp_path / "r").exists()
    # the same games split in two ranges add up to the same counts
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["fuzz", "--ruleset", "toy", "--games", "25", "--seed", "5", "--json", str(a),
                 "--no-progress"]) == 0
    assert main(["fuzz", "--ruleset", "toy", "--games", "15", "--start", "25", "--seed", "5",
                 "--json", str(b), "--no-progress"]) == 0
    da, db = json.loads(a.read_text()), json.loads(b.read_text())
    for k in ("decisions", "chance_nodes", "extreme_chance_games"):
        assert da[k] + db[k] == doc[k], k


def test_fuzz_a_dead_worker_is_one_line_and_exit_1(tmp_path, capsys):
    """A worker that dies is reported (with the games it may have been playing), not waited
    for forever; nothing is written."""
    out = tmp_path / "fuzz.json"
    rc = main(["fuzz", "--ruleset", "toy_dies_in_a_worker", "--games", "40", "--jobs", "2",
               "--json", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert err.startswith("error: a worker process died while playing one of games 0..39 "), err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    assert main(["fuzz", "--ruleset", "toy_dies_in_a_worker", "--games", "3",
                 "--no-progress"]) == 0  # in one process it plays (and passes)


def test_fuzz_violation_exits_1_with_a_replay_that_reproduces_it(tmp_path, capsys):
    rdir = tmp_path / "fails"
    rc = main(["fuzz", "--ruleset", "toy_chance09", "--games", "3", "--seed", "0",
               "--no-progress", "--replay-dir", str(rdir)])
    printed = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert printed[0].endswith(" 3 violations")
    assert printed[1].startswith("violation in game 0: [fuzz seed=0 game=0 step=")
    assert "sum to 0.9" in printed[1]
    replay = rdir / "toy_chance09_seed0_game0.toml"
    assert printed[2] == f"  replay: python -m envs replay {replay}"
    assert printed[3] == ("  re-run: python -m envs fuzz --ruleset toy_chance09 --games 1 "
                          "--seed 0 --start 0 --extreme-share 0.25")
    script = ReplayScript.load(replay)
    state = script.play()  # the labels up to the violation replay on the broken game ...
    assert state.is_chance_node()  # ... and stop at the chance node whose sum is wrong
    assert abs(sum(p for _, p in state.chance_outcomes()) - 0.9) < 1e-9


def test_fuzz_replay_dir_that_cannot_be_written_is_refused_before_the_games(tmp_path, capsys):
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a directory")
    out = tmp_path / "f.json"
    rc = main(["fuzz", "--ruleset", "toy_chance09", "--games", "3", "--no-progress",
               "--json", str(out), "--replay-dir", str(blocker)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"error: --replay-dir {str(blocker)!r} cannot take the replays "
                             f"of violations: "), err
    assert not out.exists()


def test_fuzz_a_replay_that_cannot_be_written_still_reports_everything(tmp_path, capsys,
                                                                      monkeypatch):
    """A replay directory that fails only at the end (a full disk): every violation is still
    printed and the --json summary written, each violation naming why it has no replay."""
    from envs.cli import fuzz

    real = fuzz.atomic_write_text

    def write(path, text):
        if str(path).endswith(".toml"):
            raise OSError(28, "No space left on device")
        return real(path, text)

    monkeypatch.setattr(fuzz, "atomic_write_text", write)
    out = tmp_path / "f.json"
    rdir = tmp_path / "fails"
    rc = main(["fuzz", "--ruleset", "toy_chance09", "--games", "3", "--seed", "0",
               "--no-progress", "--json", str(out), "--replay-dir", str(rdir)])
    printed = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert printed[0].endswith(" 3 violations")
    replay = rdir / "toy_chance09_seed0_game0.toml"
    assert printed[2] == f"  replay: cannot write {str(replay)!r}: No space left on device"
    doc = json.loads(out.read_text())
    assert len(doc["violations"]) == 3 and doc["violations"][0]["replay"] is None
    assert doc["violations"][0]["replay_error"].startswith("cannot write ")


def test_fuzz_negative_counter_is_a_violation(tmp_path, capsys):
    rc = main(["fuzz", "--ruleset", "toy_negative_turn", "--games", "4", "--seed", "0",
               "--no-progress", "--replay-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1 and "negative counter /turn = -" in out, out


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "--games must be >= 1, got 0"),
    (["--games", "2", "--json", " "], "--json must not be empty or whitespace"),
    (["--games", "2", "--extreme-share", "2"], "--extreme-share must be in [0, 1], got 2.0"),
    (["--games", "2", "--ruleset", "nope"], "unknown ruleset 'nope'"),
    (["--games", "2", "--jobs", "0"], "--jobs must be >= 1, got 0"),
])
def test_fuzz_bad_input_is_one_line(capsys, args, message):
    rc = main(["fuzz", "--ruleset", "toy", *args, "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


@pytest.mark.slow
def test_fuzz_acw_default_small_n(tmp_path):
    """CI's small N on the ACW default battle, as a real command line."""
    out = tmp_path / "acw.json"
    r = subprocess.run([sys.executable, "-m", "envs", "fuzz", "--ruleset", "acw_regimental",
                        "--games", "8", "--seed", "11", "--json", str(out), "--no-progress"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert doc["games"] == 8 and doc["extreme_chance_games"] == 2 and doc["violations"] == []
    assert doc["decisions"] > 8 * 100


#: ``python -m envs`` with the test rulesets registered (the toy)
LAUNCH_ENVS = ("import runpy, sys, tests.conftest; sys.argv[0] = 'envs'; "
               "runpy.run_module('envs', run_name='__main__')")


def _start_toy_fuzz(out: Path, *extra: str, **popen: Any) -> subprocess.Popen:
    """A toy-ruleset fuzz of a hundred million games writing ``out``, in a real process."""
    return subprocess.Popen([sys.executable, "-c", LAUNCH_ENVS, "fuzz", "--ruleset", "toy",
                             "--games", "100000000", *extra, "--json", str(out),
                             "--no-progress"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


@pytest.mark.slow
def test_fuzz_ctrl_c_reports_the_games_played(tmp_path):
    import signal
    import time

    out = tmp_path / "acw.json"
    proc = _start_toy_fuzz(out)
    time.sleep(5.0)  # past the imports: the fuzz loop is running
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    lines = stdout.splitlines()
    assert lines[0].startswith("interrupted (SIGINT) after ") and " of 100000000 games" in lines[0]
    doc = json.loads(out.read_text())
    assert doc["interrupted"] == "SIGINT" and doc["games"] >= 1 and doc["violations"] == []


def test_fuzz_jobs_play_the_same_games_with_the_same_violations(tmp_path, capsys):
    """--jobs splits the range over worker processes: same counts, same violations (in game
    order) as one process; the violations of the deliberately broken toy are all found."""
    docs = []
    for jobs, ruleset in [(1, "toy"), (3, "toy"), (1, "toy_chance09"), (2, "toy_chance09")]:
        out = tmp_path / f"{ruleset}{jobs}.json"
        rc = main(["fuzz", "--ruleset", ruleset, "--games", "23", "--seed", "7", "--jobs",
                   str(jobs), "--json", str(out), "--no-progress", "--replay-dir",
                   str(tmp_path / f"r{jobs}")])
        assert rc == (0 if ruleset == "toy" else 1)
        docs.append(json.loads(out.read_text()))
    assert f", {2} jobs), 23 violations" in capsys.readouterr().out
    keys = ("games", "extreme_chance_games", "decisions", "chance_nodes", "round_trips")
    for one, many in (docs[:2], docs[2:]):
        assert [one[k] for k in keys] == [many[k] for k in keys]
        strip = [{k: v for k, v in d.items() if k != "replay"} for d in one["violations"]]
        assert strip == [{k: v for k, v in d.items() if k != "replay"}
                         for d in many["violations"]]
    assert docs[1]["jobs"] == 3 and docs[0]["decisions"] > 23 * 5
    assert [v["game"] for v in docs[3]["violations"]] == list(range(23))


#: every ruleset the package registers (test-only toys excluded): new ones are fuzzed too
PACKAGE_RULESETS = sorted(r for r, t in REGISTRY.items() if str(t).startswith("envs.rulesets."))


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", PACKAGE_RULESETS)
def test_fuzz_runs_on_every_registered_ruleset(ruleset, tmp_path, capsys):
    out = tmp_path / "f.json"
    rc = main(["fuzz", "--ruleset", ruleset, "--games", "4", "--seed", "3", "--jobs", "2",
               "--json", str(out), "--no-progress", "--replay-dir", str(tmp_path / "r")])
    doc = json.loads(out.read_text())
    assert rc == 0, capsys.readouterr().out
    assert doc["games"] == 4 and doc["extreme_chance_games"] == 1 and doc["violations"] == []
    assert doc["decisions"] >= 4 and doc["round_trips"] >= 4


@pytest.mark.slow
@pytest.mark.parametrize("name, group, status", [("SIGINT", False, 130),
                                                 ("SIGTERM", True, 143)])
def test_fuzz_jobs_interrupt_stops_the_workers_and_reports(tmp_path, name, group, status):
    """Ctrl-C to the fuzz (SIGINT) stops its workers; SIGTERM to the whole process group (what
    ``timeout`` and batch schedulers send) kills the workers too. Either way the games finished
    before it are reported and written."""
    import os
    import signal
    import time

    sig = getattr(signal, name)
    out = tmp_path / "toy.json"
    proc = _start_toy_fuzz(out, "--jobs", "2", start_new_session=group)
    time.sleep(6.0)  # past the imports: the workers are playing
    assert proc.poll() is None, proc.communicate()
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    # the forked workers hold the pipes too: communicate() returns only once they are gone
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == status, stderr
    assert "Traceback" not in stderr, stderr
    assert stdout.splitlines()[0].startswith(f"interrupted ({name}) after ")
    doc = json.loads(out.read_text())
    assert doc["interrupted"] == name and doc["games"] >= 10 and doc["games"] % 10 == 0
    assert doc["jobs"] == 2 and doc["violations"] == []


def test_fuzz_interrupt_hidden_by_a_clean_up_error_is_the_interrupt(monkeypatch, capsys):
    """A second Ctrl-C that a library's clean-up turned into its own error (as ``torch.save``'s
    zip writer did in train.py) still gives one line and 130, not a traceback."""
    import signal

    from agents.interrupts import Interrupted
    from envs.cli import fuzz

    def run(args):
        try:
            raise Interrupted(signal.SIGINT)
        except Interrupted as exc:
            raise RuntimeError("writer: file write failed") from exc

    monkeypatch.setattr(fuzz, "run", run)
    assert main(["fuzz", "--ruleset", "toy", "--games", "1"]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted (SIGINT): aborted, nothing was written\n"
    monkeypatch.setattr(fuzz, "run", lambda args: (_ for _ in ()).throw(RuntimeError("bug")))
    with pytest.raises(RuntimeError, match="bug"):  # other errors are not swallowed
        main(["fuzz", "--ruleset", "toy", "--games", "1"])


@pytest.mark.parametrize("signalled", [None, 15])
def test_fuzz_worker_death_is_an_error_unless_the_run_was_signalled(monkeypatch, capsys,
                                                                    tmp_path, signalled):
    """A worker killed by the same SIGTERM as the parent (``kill -- -PGID``) is the interrupt
    (143, one line); a worker that died alone is an error (exit 1)."""
    from envs.cli import fuzz
    from envs.core.workers import WorkerDiedError

    def play(game, args, guard, bar, violations):
        guard.requested = signalled
        raise WorkerDiedError("a worker process died while it played one of games 0..9")

    monkeypatch.setattr(fuzz, "_play_parallel", play)
    out = tmp_path / "f.json"
    rc = main(["fuzz", "--ruleset", "toy", "--games", "20", "--jobs", "2", "--no-progress",
               "--json", str(out)])
    err = capsys.readouterr().err
    if signalled is None:
        assert rc == 1 and err.startswith("error: a worker process died while it played")
    else:
        assert rc == 143
        assert err == "interrupted (SIGTERM): a worker stopped with it, nothing was written\n"
    assert not out.exists()


@pytest.mark.parametrize("share, first_100", [
    (0.25, [i for i in range(100) if i % 4 == 0]),  # the default: every 4th game, as before
    (0.5, list(range(0, 100, 2))),
    (1.0, list(range(100))),
    (0.0, []),
])
def test_extreme_share_picks_that_share_of_games(share, first_100):
    from envs.cli.fuzz import extreme_game

    assert [i for i in range(100) if extreme_game(i, share)] == first_100


@pytest.mark.parametrize("share", [0.7, 0.6, 0.3, 0.01, 1e-5])
def test_extreme_share_is_a_share_not_a_rounded_period(share):
    """0.7 used to round to every game and 0.6 to every other one."""
    from envs.cli.fuzz import extreme_game

    for n in (10, 1000, 100_000):
        count = sum(extreme_game(i, share) for i in range(n))
        assert count == math.floor((n - 1) * share) + 1


# -- the fuzz's shortcuts (labels once per id, events compared as objects) still catch bugs ---
class _LabelDrifts(ToyState):
    """``action_to_string`` overridden: the label of ``rest`` is wrong from turn 2 on, so a
    check of each id once per game would miss it; the fuzz must check every node."""

    def action_to_string(self, action: int, player: int | None = None) -> str:
        lab = super().action_to_string(action, player)
        return "rest!" if lab == "rest" and self.turn >= 2 else lab


class LabelDriftsGame(ToyGame):
    ruleset_id = "toy_label_drifts"

    def new_initial_state(self) -> ToyState:
        return _LabelDrifts(self)


class _PickleLosesEvent(ToyState):
    def __reduce__(self):
        fn, args, state = super().__reduce__()[:3]
        state = dict(state)
        state["events"] = state["events"][:-1]
        return fn, args, state


class PickleLosesEventGame(ToyGame):
    ruleset_id = "toy_pickle_loses_event"

    def new_initial_state(self) -> ToyState:
        return _PickleLosesEvent(self)


class _TupleInEventData(ToyState):
    """Logs a tuple in an event's data: JSON brings it back as a list, so the JSON copy's
    events differ as objects but ``to_json()`` is the same, which is no violation."""

    def _apply_action(self, action: int) -> None:
        super()._apply_action(action)
        self.log("note", ("TOY-1",), "a tuple", None, pair=(1, 2))


class TupleInEventDataGame(ToyGame):
    ruleset_id = "toy_tuple_in_event"

    def new_initial_state(self) -> ToyState:
        return _TupleInEventData(self)


REGISTRY.setdefault("toy_label_drifts", "tests.core.test_fuzz:LabelDriftsGame")
REGISTRY.setdefault("toy_pickle_loses_event", "tests.core.test_fuzz:PickleLosesEventGame")
REGISTRY.setdefault("toy_tuple_in_event", "tests.core.test_fuzz:TupleInEventDataGame")


def test_fuzz_checks_an_overridden_label_at_every_node(tmp_path, capsys):
    rc = main(["fuzz", "--ruleset", "toy_label_drifts", "--games", "6", "--seed", "0",
               "--no-progress", "--replay-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1 and "action_to_string(1) = 'rest!', catalogue says 'rest'" in out, out


def test_fuzz_round_trip_compares_the_event_log(tmp_path, capsys):
    rc = main(["fuzz", "--ruleset", "toy_pickle_loses_event", "--games", "3", "--seed", "0",
               "--no-progress", "--replay-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1 and "pickle round trip changed the state" in out, out


def test_fuzz_json_round_trip_judges_by_the_text(tmp_path, capsys):
    from envs import load_game
    from envs.core.protocol import State

    s = load_game("toy_tuple_in_event").new_initial_state()
    s.apply_action(s.legal_actions()[0])
    c = State.from_json(s.to_json(), s.game)
    assert c.events != s.events and c.to_json() == s.to_json()  # the case this test is about
    rc = main(["fuzz", "--ruleset", "toy_tuple_in_event", "--games", "5", "--seed", "0",
               "--no-progress", "--replay-dir", str(tmp_path)])
    assert rc == 0, capsys.readouterr().out


def test_events_pickle_and_deepcopy_to_equal_events():
    import copy
    import pickle

    from envs.core.events import Event, make_event

    e = make_event("hit", ("TOY-4",), "d6=5 hits", 1, {"roll": 5, "dice": [5, 2]})
    for c in (pickle.loads(pickle.dumps(e, pickle.HIGHEST_PROTOCOL)), copy.deepcopy(e),
              Event.from_dict(e.to_dict())):
        assert type(c) is Event and c == e and c.data is not e.data
    assert pickle.loads(pickle.dumps(e, 0)) == Event("hit", ("TOY-4",), "d6=5 hits", 1,
                                                     {"roll": 5, "dice": [5, 2]})
