"""python -m envs view: replay scripts and game records as one self-contained HTML page, and
evaluate.py --record DIR writing replays the viewer opens."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from envs.cli.records import build_frames, load_game_file
from envs.cli.view import render_html
from envs.core.errors import ReplayError
from envs.core.replay import ReplayScript

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_A = ROOT / "tests/acw/golden/example_a.toml"


def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def page_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


@pytest.mark.slow
def test_view_writes_a_self_contained_page(tmp_path):
    out = tmp_path / "a.html"
    r = run("-m", "envs", "view", str(EXAMPLE_A), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "wrote" in r.stdout
    html = out.read_text()
    # nothing fetched from outside: no external src/href, no http(s) URL but the SVG namespace
    assert not re.search(r'(src|href)="(?!#)', html)
    assert set(re.findall(r"https?://[^\s\"'\\]+", html)) <= {"http://www.w3.org/2000/svg"}
    data = page_data(html)
    script = ReplayScript.load(EXAMPLE_A)
    assert len(data["frames"]) == len(script.actions) + 1
    assert [f["chosen"] for f in data["frames"][:-1]] == script.actions
    # the Closing Volley step is a reaction window, with its legal labels and words
    k = script.actions.index("react:closing_volley")
    f = data["frames"][k]
    assert f["window"] and f["who"] == "Confederate" and f["decision"] == "reaction"
    assert f["legal"] == ["react:closing_volley", "react:decline"]
    assert f["chosen_words"] == "Fire a Closing Volley at 14th Brooklyn"
    assert "4.0&quot; mark" in data["svgs"][f["svg"]] or '4.0" mark' in data["svgs"][f["svg"]]
    assert sum(fr["window"] for fr in data["frames"]) == 1
    # the event log carries rule ids and the step each event happened at
    ev = [e for e in data["events"] if "Closing Volley at" in e["text"]]
    assert ev and ev[0]["rules"][:2] == ["RULE-04-2.1", "RULE-04-2.2"] and ev[0]["step"] == k + 1
    assert data["frames"][-1]["who"] == "game over" or data["frames"][-1]["player"] >= -1


def test_view_opens_a_game_record(tmp_path):
    record = tmp_path / "final.json"
    r = run("-m", "envs", "replay", str(EXAMPLE_A), "--json")
    assert r.returncode == 0, r.stderr
    record.write_text(r.stdout)
    gf = load_game_file(record)
    assert gf.kind == "record"
    assert gf.script.actions == ReplayScript.load(EXAMPLE_A).actions
    data = build_frames(gf)
    assert len(data["frames"]) == len(gf.script.actions) + 1
    assert "\\u003csvg" in render_html(data)  # the SVGs ride in the embedded JSON


def _example_a_record() -> dict:
    return json.loads(ReplayScript.load(EXAMPLE_A).play().to_json())


def _edited(tmp_path: Path, rec: dict) -> Path:
    """``rec`` written as ``tmp_path/edited.json`` (again, when it is there)."""
    p = tmp_path / "edited.json"
    p.write_text(json.dumps(rec))
    return p


def test_record_whose_state_disagrees_with_its_history_is_refused(tmp_path):
    rec = _example_a_record()
    assert rec["state"]["units"][0][0]["lost"] == 2
    rec["state"]["units"][0][0]["lost"] = 0
    p = _edited(tmp_path, rec)
    with pytest.raises(ReplayError) as e:
        load_game_file(p)
    assert str(e.value) == (f"{p}: the stored state disagrees with its history (10 entries "
                            f"replayed from the start): first at state.units[0][0].lost: stored 0, "
                            f"replayed 2")


def test_record_whose_event_log_disagrees_with_its_history_is_refused(tmp_path):
    rec = _example_a_record()
    rec["events"][3]["text"] = "something else happened"
    p = _edited(tmp_path, rec)
    with pytest.raises(ReplayError, match=r"edited\.json: the stored state disagrees with its "
                                          r"history .*first at events\[3\]\.text: stored "
                                          r"'something else happened', replayed '"):
        load_game_file(p)


def test_record_whose_history_does_not_replay_is_refused(tmp_path):
    rec = _example_a_record()
    assert rec["history"][0] == [0, 5]
    rec["history"][0] = [1, 5]
    p = _edited(tmp_path, rec)
    with pytest.raises(ReplayError) as e:
        load_game_file(p)
    assert str(e.value) == (f"{p}: history[0] is recorded for side 1 (Confederate) but "
                            f"replaying the history, side 0 (Union) is to move there: the "
                            f"history does not replay")
    rec = _example_a_record()
    rec["history"][0] = [0, 0]  # a Union action id that is not legal at the first decision
    _edited(tmp_path, rec)
    with pytest.raises(ReplayError, match=r"edited\.json: history\[0\] does not replay: illegal "
                                          r"action 'rally:pay_pip' \(id 0\) \[ACW-PD-12: .*\] for side 0 "
                                          r"\(Union\) at decision maneuver; legal: "
                                          r"\['activate:u0', 'end_phase'\]$"):
        load_game_file(p)
    rec = _example_a_record()
    rec["history"] = rec["history"][:9]  # the last entry left out: the end is not reached
    _edited(tmp_path, rec)
    with pytest.raises(ReplayError, match=r"disagrees with its history \(9 entries"):
        load_game_file(p)


@pytest.mark.slow
def test_view_of_an_edited_record_is_one_line_and_writes_nothing(tmp_path):
    rec = _example_a_record()
    rec["state"]["turn"] += 1
    p = _edited(tmp_path, rec)
    out = tmp_path / "out.html"
    r = run("-m", "envs", "view", str(p), "--out", str(out))
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.splitlines() == [
        f"error: {p}: the stored state disagrees with its history (10 entries replayed from "
        f"the start): first at state.turn: stored {rec['state']['turn']}, replayed "
        f"{rec['state']['turn'] - 1}"]


@pytest.mark.slow
@pytest.mark.parametrize("content, message", [
    ("hello = [", "not a replay script (TOML with ruleset and actions) or a game record"),
    ('name = "x"\n[table]\nwidth = 4\n', "unknown key"),
    ('{"game": 1}', "not a game record"),
    ('ruleset = "acw_regimental"\nscenario = "example_a_closing_volley"\nactions = ["d6=9"]\n',
     "action 0 'd6=9'"),
])
def test_view_bad_input_is_one_line_and_writes_nothing(tmp_path, content, message):
    bad = tmp_path / "bad.toml"
    bad.write_text(content)
    out = tmp_path / "out.html"
    r = run("-m", "envs", "view", str(bad), "--out", str(out))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert str(bad) in lines[0] or "bad.toml" in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("name", ["game.png", "game", "game.html.png", "game.svg"])
def test_view_refuses_an_out_that_is_not_html_before_any_work(tmp_path, capsys, name):
    from envs.cli.view import main as view_main

    out = tmp_path / name
    # the input does not exist either: the --out check comes first, before anything is read
    assert view_main(str(tmp_path / "missing.toml"), str(out)) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: --out {str(out)!r}: the viewer writes an HTML page; give a file name ending "
        f"in .html or .htm"]
    assert list(tmp_path.iterdir()) == []


def test_view_takes_html_and_htm_in_any_case(tmp_path, capsys):
    from envs.cli.view import main as view_main

    for name in ("a.html", "b.htm", "c.HTML"):
        assert view_main(str(EXAMPLE_A), str(tmp_path / name)) == 0
        assert (tmp_path / name).read_text().startswith("<!DOCTYPE html>")
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_view_missing_file_and_unwritable_output(tmp_path):
    r = run("-m", "envs", "view", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "o.html"))
    assert r.returncode == 2 and "no such file" in r.stderr
    r = run("-m", "envs", "view", str(EXAMPLE_A), "--out", str(tmp_path))
    assert r.returncode == 2 and r.stderr.startswith("error: ")
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_evaluate_record_saves_every_game_as_a_replay_the_viewer_opens(tmp_path):
    rec = tmp_path / "games"
    r = run("evaluate.py", "--agents", "heuristic", "random", "never-react", "--games", "2",
            "--max-decisions", "60", "--seed", "3", "--record", str(rec), "--quiet")
    assert r.returncode == 0, r.stderr
    files = sorted(p.name for p in rec.glob("*.toml"))
    assert files == ["heuristic-vs-never-react-000.toml", "heuristic-vs-never-react-001.toml",
                     "heuristic-vs-random-000.toml", "heuristic-vs-random-001.toml",
                     "random-vs-never-react-000.toml", "random-vs-never-react-001.toml"]
    s = ReplayScript.load(rec / "heuristic-vs-random-001.toml")
    assert s.meta["agents"] == ["random", "heuristic"]  # game 1: seats swapped
    assert s.meta["seed"] == 3 and s.meta["chance_spawn_key"] == [0, 0]
    assert any(a.startswith("d6=") for a in s.actions)  # chance outcomes are in the labels
    final = s.play()
    assert s.meta["truncated"] or [float(x) for x in final.returns()] == s.meta["returns"]
    out = tmp_path / "g.html"
    r = run("-m", "envs", "view", str(rec / "heuristic-vs-random-001.toml"), "--out", str(out))
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert "random (Union) vs heuristic (Confederate)" in html
    assert len(page_data(html)["frames"]) == len(s.actions) + 1


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, scenario", [("atomic_africa", None),
                                               ("skirmish_alert", "duel")])
def test_evaluate_record_of_the_other_rulesets(tmp_path, ruleset, scenario):
    """Their params hold None (Atomic Africa's turns, skirmish's rounds and max_decisions:
    the scenario's own), which a replay leaves out; every game is saved and replays."""
    rec = tmp_path / "games"
    args = ["--ruleset", ruleset, *(["--scenario", scenario] if scenario else []),
            "--agents", "random", "heuristic", "--games", "2", "--seed", "1",
            "--record", str(rec), "--jobs", "1", "--quiet"]
    r = run("evaluate.py", *args)
    assert r.returncode == 0, r.stderr
    files = sorted(rec.glob("*.toml"))
    assert [p.name for p in files] == ["random-vs-heuristic-000.toml",
                                       "random-vs-heuristic-001.toml"]
    for path in files:
        s = ReplayScript.load(path)
        assert s.ruleset == ruleset and None not in s.params.values()
        final = s.play()
        assert final.is_terminal()
        assert [float(x) for x in final.returns()] == s.meta["returns"]


@pytest.mark.slow
def test_evaluate_record_that_cannot_be_written_keeps_the_results(tmp_path):
    rec = tmp_path / "games"
    (rec / "random-vs-heuristic-001.toml").mkdir(parents=True)  # in the way of game 1
    out = tmp_path / "r.json"
    r = run("evaluate.py", "--agents", "random", "heuristic", "--games", "2", "--record",
            str(rec), "--json", str(out), "--quiet")
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("warning: game 1 of random vs heuristic not recorded: ")
    assert lines[-1] == ("error: --record: 1 game(s) not recorded (the warnings above say "
                         "why); the results were written")
    assert json.loads(out.read_text())["pairs"][0]["games"] == 2
    assert (rec / "random-vs-heuristic-000.toml").is_file()


def test_evaluate_record_of_a_free_for_all_is_refused_before_the_games(tmp_path):
    r = run("evaluate.py", "--ruleset", "skirmish_alert", "--scenario", "ffa3", "--agents",
            "random", "heuristic", "--games", "2", "--record", str(tmp_path / "games"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == ("error: --record: skirmish_alert/ffa3 has 3 sides; only "
                                "two-sided tournaments are recorded")
    assert not (tmp_path / "games").exists()


def test_optional_parameters_default_to_none():
    """What ReplayScript.to_toml relies on when it leaves None parameters out."""
    import types
    import typing

    from envs.rulesets.acw_regimental.params import ACWParams
    from envs.rulesets.atomic_africa.params import AAParams
    from envs.rulesets.skirmish_alert.params import AlertParams

    optional = []
    for model in (ACWParams, AAParams, AlertParams):
        for name, field in model.model_fields.items():
            ann = field.annotation
            if typing.get_origin(ann) in (typing.Union, types.UnionType) and \
                    type(None) in typing.get_args(ann):
                optional.append(f"{model.__name__}.{name}")
                assert field.default is None, f"{model.__name__}.{name}"
    assert "AAParams.turns" in optional and "AlertParams.rounds" in optional


def test_record_that_does_not_replay_is_refused():
    from envs import load_game
    from envs.cli.records import replay_from_decisions

    g = load_game("acw_regimental", "example_a_closing_volley", {"pips_fixed": True})
    with pytest.raises(ReplayError, match="does not replay at step 1: illegal action 'activate"):
        replay_from_decisions(g, [(0, "maneuver", "activate:u0")] * 2, [], {})
    s = replay_from_decisions(g, [(0, "maneuver", "end_phase")], [], {"x": 1})
    assert s.actions == ["end_phase"] and s.meta == {"x": 1}
    with pytest.raises(ReplayError, match="left over"):
        replay_from_decisions(g, [(0, "maneuver", "end_phase")], [0] * 500, {})


@pytest.mark.slow
def test_evaluate_record_into_a_directory_that_cannot_be_written(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run("evaluate.py", "--agents", "random", "never-react", "--games", "2",
            "--record", str(blocker / "games"), "--quiet")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: ")
