"""Replay scripts and the ``python -m envs replay FILE [--json]`` command, on toy fixtures.

The toy ruleset is registered only by tests/conftest.py, so a fresh ``python -m envs`` process
cannot load it: the success paths run the module with ``runpy`` after registering the toy (the
same ``__main__`` code path), the error paths that need no ruleset run the real
``python -m envs`` in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envs.__main__ import main
from envs.core.errors import ReplayError
from envs.core.replay import ABSENT, ReplayScript, first_difference, play_labels, transcript
from envs.core.scenario import key_path
from tests.toy_ruleset import ToyGame

ROOT = Path(__file__).resolve().parents[2]
FIX = Path(__file__).resolve().parent / "fixtures"
PY = sys.executable

_RUN_WITH_TOY = ("import runpy, sys, tests.conftest; sys.argv = ['envs'] + sys.argv[1:]; "
                 "runpy.run_module('envs', run_name='__main__', alter_sys=True)")


def _module(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m envs ARGS`` in a fresh interpreter (no toy ruleset)."""
    return subprocess.run([PY, "-m", "envs", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def _module_with_toy(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``envs`` module run as ``__main__`` in a fresh interpreter, toy registered first."""
    return subprocess.run([PY, "-c", _RUN_WITH_TOY, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


TWO_VOLLEYS_LOG = ("   0 [TOY-4] d6=4 hits\n"
                   "   1 [TOY-4] d6=4 misses\n"
                   "# final: <ToyState player=0 decision=maneuver>\n")


# -- success -------------------------------------------------------------------------------------
def test_replay_prints_one_line_per_event_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIX / "toy_two_volleys.toml")]) == 0
    out = capsys.readouterr()
    assert out.out == TWO_VOLLEYS_LOG and out.err == ""


@pytest.mark.slow
def test_replay_prints_one_line_per_event_subprocess() -> None:
    r = _module_with_toy("replay", str(FIX / "toy_two_volleys.toml"))
    assert (r.returncode, r.stdout, r.stderr) == (0, TWO_VOLLEYS_LOG, "")


@pytest.mark.slow
def test_replay_to_the_end() -> None:
    r = _module_with_toy("replay", str(FIX / "toy_to_the_end.toml"))
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["   0 [TOY-4] d6=6 hits",
                                     "# final: <ToyState player=-4 decision=terminal>"]


@pytest.mark.slow
def test_replay_json_is_the_final_state(capsys: pytest.CaptureFixture[str]) -> None:
    f = FIX / "toy_two_volleys.toml"
    assert main(["replay", str(f), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["state"] == {"hp": [5, 4], "turn": 1, "active": 0, "phase": "act",
                            "rested": False, "dodged": True}
    assert doc["game"]["params"] == {"turns": 2, "hp": 5}
    assert [e["rules"] for e in doc["events"]] == [["TOY-4"], ["TOY-4"]]
    assert doc == json.loads(ReplayScript.load(f).play().to_json())
    r = _module_with_toy("replay", str(f), "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == doc


def test_script_api_and_transcript_round_trip() -> None:
    script = ReplayScript.load(FIX / "toy_two_volleys.toml")
    assert (script.ruleset, script.scenario, script.params) == ("toy", None, {"turns": 2})
    s = script.play()
    assert transcript(s) == script.actions
    assert script.play(upto=3).hp == [5, 4]
    fresh = play_labels(ToyGame(params={"turns": 2}).new_initial_state(), transcript(s))
    assert fresh.to_json() == s.to_json()


# -- illegal or unknown labels: exit 2, position and legal labels -------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name,message", [
    ("toy_illegal_label.toml",
     "action 4 'pass' is not legal at this reaction node (TOY-2: only a reaction may be chosen "
     "in the reaction window); legal labels: ['react:dodge', 'react:decline']"),
    ("toy_unknown_label.toml",
     "action 1 'react:parry' is not legal at this reaction node (unknown label); legal labels: "
     "['react:dodge', 'react:decline']"),
    ("toy_after_end.toml", "action 2 'attack': the game has already ended"),
])
def test_bad_label_stops_with_exit_2(name: str, message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    f = FIX / name
    assert main(["replay", str(f)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"error: {f}: {message}\n"
    r = _module_with_toy("replay", str(f))
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"error: {f}: {message}\n")
    with pytest.raises(ReplayError, match="action [0-9]+ "):
        ReplayScript.load(f).play()


# -- malformed files: one line naming the file ---------------------------------------------------
MALFORMED = [
    ("bad_toml.toml", "not valid TOML: "),
    ("missing_ruleset.toml", "ruleset: required string"),
    ("unknown_key.toml", "unknown key(s) ['action']"),
    ("actions_not_strings.toml", "actions: must be a list of label strings"),
    ("unknown_ruleset.toml", "unknown ruleset 'chess' (registered: "),
    ("no_such_file.toml", "file not found"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,problem", MALFORMED)
def test_malformed_file_subprocess(name: str, problem: str) -> None:
    f = FIX / name
    r = _module("replay", str(f))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {f}: {problem}"), r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("name,problem", [*MALFORMED,
                                          ("bad_params.toml",
                                           "params: turns: Input should be a valid integer")])
def test_malformed_file_in_process(name: str, problem: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    f = FIX / name
    assert main(["replay", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: {problem}"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("data,problem", [
    ({"ruleset": "toy", "scenario": 3}, "scenario: must be a string (name or path)"),
    ({"ruleset": "toy", "params": [1]}, "params: must be a table"),
    ({"ruleset": 7}, "ruleset: required string"),
    ({"ruleset": "toy", "actions": "attack"}, "actions: must be a list of label strings"),
])
def test_from_mapping_errors_name_source_and_key(data: dict, problem: str) -> None:
    with pytest.raises(ReplayError) as ei:
        ReplayScript.from_mapping(data, source="bug-report.toml")
    assert str(ei.value) == f"bug-report.toml: {problem}"


@pytest.mark.slow
def test_cli_usage_errors_exit_2() -> None:
    r = _module("replay")
    assert r.returncode == 2 and "the following arguments are required: file" in r.stderr
    r = _module("frobnicate")
    assert r.returncode == 2 and "invalid choice: 'frobnicate'" in r.stderr


def test_replay_to_toml_round_trips_with_meta(tmp_path):
    from envs.core.replay import ReplayScript

    rs = ReplayScript("acw_regimental", "example_a_closing_volley", {"pips_fixed": True},
                      ["activate:u0", "charge:e0", "react:closing_volley"], "<t>",
                      description='Example "A"',
                      meta={"agents": ["heuristic", "random"], "seed": 17, "score": 0.5})
    p = tmp_path / "r.toml"
    p.write_text(rs.to_toml())
    back = ReplayScript.load(p)
    assert (back.ruleset, back.scenario, back.params, back.actions, back.description,
            back.meta) == (rs.ruleset, rs.scenario, rs.params, rs.actions, rs.description,
                           rs.meta)
    assert back.play().decision_name() == "chance"  # the volley's dice come next


def test_replay_meta_must_be_a_table(tmp_path):
    import pytest

    from envs.core.errors import ReplayError
    from envs.core.replay import ReplayScript

    p = tmp_path / "r.toml"
    p.write_text('ruleset = "acw_regimental"\nmeta = 3\n')
    with pytest.raises(ReplayError, match="meta: must be a table"):
        ReplayScript.load(p)
    with pytest.raises(ReplayError, match="cannot be written"):
        ReplayScript("acw_regimental", None, meta={"x": None}).to_toml()


def test_first_difference_names_the_first_path_and_both_values() -> None:
    a = {"state": {"units": [[{"x": 1.0, "name": "A"}]], "turn": 2}, "events": [1, 2]}
    assert first_difference(a, json.loads(json.dumps(a))) is None
    b = json.loads(json.dumps(a))
    b["state"]["units"][0][0]["x"] = 1.5
    path, x, y = first_difference(a, b)
    assert (path, x, y) == (("state", "units", 0, 0, "x"), 1.0, 1.5)
    assert key_path(path) == "state.units[0][0].x" and key_path(()) == "<top level>"
    b["state"]["turn"] = 3  # keys in sorted order: "turn" before "units"
    assert first_difference(a, b) == (("state", "turn"), 2, 3)
    # a missing list item or key is ABSENT on that side; a different type is a difference
    assert first_difference(a, a | {"events": [1, 2, 3]}) == (("events", 2), ABSENT, 3)
    assert first_difference(a | {"seed": 7}, a) == (("seed",), 7, ABSENT)
    assert first_difference({"n": 1}, {"n": 1.0}) == (("n",), 1, 1.0)
    assert first_difference(1, 2) == ((), 1, 2)
    assert repr(ABSENT) == "(absent)"


@pytest.mark.slow
@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_replay_cli_into_a_closed_pipe_is_quiet(flags):
    """``python -m envs replay FILE | head -1``: the reader closes the pipe early; the command
    ends with status 0 and no BrokenPipeError traceback."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "envs", "replay",
                             str(root / "tests/acw/golden/example_a.toml"), *flags],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line (`| head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""
