"""python -m envs play: the session (moves, stale and illegal actions, the replay saved at the
end), the Flask routes, and the command line's bad input (unknown agent, port in use, a
checkpoint for another ruleset)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from envs import load_game
from envs.cli.play import PlayError, PlaySession, create_app, parse_param
from envs.core.replay import ReplayScript

from .scripted import CHARGER, Scripted

ROOT = Path(__file__).resolve().parents[2]


def session(tmp_path, side=1, prefer=CHARGER):
    g = load_game("acw_regimental", "example_a_closing_volley", {"pips_fixed": True, "turns": 1})
    return PlaySession(g, Scripted(g, prefer), "scripted", side, 7, tmp_path / "replay.toml",
                       "example_a_closing_volley")


def until_my_turn(ps):
    for _ in range(500):
        v = ps.advance()
        if v["your_turn"] or v["over"]:
            return v
    raise AssertionError("the agent never handed over")


def test_a_reaction_prompt_in_the_middle_of_the_agents_move_then_the_end(tmp_path):
    ps = session(tmp_path)
    v = ps.view()
    assert not v["started"] and not v["your_turn"] and v["actions"] == []
    assert ps.advance()["seq"] == 0  # nothing happens before Start
    ps.start()
    v = until_my_turn(ps)
    # Union charged: the Confederates are asked at the 4.0" mark (Window B2)
    assert v["window"] and v["decision"] == "reaction"
    legal = [a for a in v["actions"] if a["legal"]]
    assert [a["words"] for a in legal] == ["Fire a Closing Volley at 14th Brooklyn",
                                           "5th Virginia: no reaction"]
    masked = {a["label"]: a for a in v["actions"] if not a["legal"]}
    assert "RULE-04-6.4" in masked["react:counter_charge_2"]["why"]
    assert [r["kind"] for r in v["recent"][:2]] == ["agent", "agent"]
    assert "charges 5th Virginia" in v["recent"][0]["text"]
    # a stale action (an older step) and an illegal one are refused; the game goes on
    with pytest.raises(PlayError, match="stale") as e:
        ps.act(legal[0]["id"], v["seq"] - 1)
    assert e.value.status == 409
    with pytest.raises(PlayError, match="illegal action 'react:counter_charge_2'.*RULE-04-6.4"):
        ps.act(masked["react:counter_charge_2"]["id"], v["seq"])
    v = ps.act(legal[0]["id"], v["seq"])
    assert v["recent"][0]["text"] == "You (Confederate): Fire a Closing Volley at 14th Brooklyn"
    v = ps.advance()
    assert v["recent"][0]["kind"] == "chance" and v["recent"][0]["text"].startswith("die: d6=")
    while not v["over"]:
        v = until_my_turn(ps)
        if v["over"]:
            break
        acts = [a for a in v["actions"] if a["legal"]]
        pick = next((a for a in acts if a["label"] in ("end_phase", "hold_fire", "reserve:0",
                                                        "react:decline", "end_activation")),
                    acts[0])
        v = ps.act(pick["id"], v["seq"])
    assert v["result"] in ("You win", "You lose", "Draw")
    assert v["saved"] == str(tmp_path / "replay.toml")
    s = ReplayScript.load(v["saved"])
    assert s.meta["agents"] == ["scripted", "human"] and s.meta["seed"] == 7
    assert "react:closing_volley" in s.actions
    assert [float(x) for x in s.play().returns()] == v["returns"]
    with pytest.raises(PlayError, match="not your turn"):
        ps.act(0, v["seq"])


def test_flask_routes_show_errors_and_keep_the_game(tmp_path):
    ps = session(tmp_path)
    client = create_app(ps).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b"Start the game" in page.data
    assert b"http" not in page.data.replace(b"http://www.w3.org/2000/svg", b"")
    assert client.post("/api/start").get_json()["started"]
    v = client.get("/api/state").get_json()
    while not v["your_turn"]:
        v = client.post("/api/advance").get_json()
    r = client.post("/api/act", json={"action": 10_000, "seq": v["seq"]})
    assert r.status_code == 400 and "not an action id" in r.get_json()["error"]
    assert r.get_json()["state"]["seq"] == v["seq"]
    r = client.post("/api/act", data="nonsense", content_type="application/json")
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    ok = next(a["id"] for a in v["actions"] if a["legal"])
    r = client.post("/api/act", json={"action": ok, "seq": v["seq"] + 5})
    assert r.status_code == 409 and "stale" in r.get_json()["error"]
    r = client.post("/api/act", json={"action": ok, "seq": v["seq"]})
    assert r.status_code == 200 and r.get_json()["seq"] == v["seq"] + 1


def test_parse_param():
    assert parse_param("turns=2") == ("turns", 2)
    assert parse_param("pips_fixed=true") == ("pips_fixed", True)
    assert parse_param("name=abc") == ("name", "abc")
    assert parse_param("bands=[10, 20, 40]") == ("bands", [10, 20, 40])
    assert parse_param("acts=[pass, rest]") == ("acts", ["pass", "rest"])
    assert parse_param("flag=True") == ("flag", True)
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_param("turns")


def play_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "envs", "play", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def one_line_error(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for n in needles:
        assert n in lines[0]


@pytest.mark.slow
def test_cli_unknown_agent_and_scenario(tmp_path):
    one_line_error(play_cli("--opponent", "grandmaster", "--save", str(tmp_path / "r.toml")),
                   "unknown agent 'grandmaster'")
    one_line_error(play_cli("--opponent", "random", "--scenario", "nowhere",
                            "--save", str(tmp_path / "r.toml")), "nowhere")
    one_line_error(play_cli("--opponent", "random", "--param", "turns",
                            "--save", str(tmp_path / "r.toml")), "KEY=VALUE")
    one_line_error(play_cli("--opponent", "random", "--seed", "-1",
                            "--save", str(tmp_path / "r.toml")), "--seed must be >= 0, got -1")
    one_line_error(play_cli("--opponent", "random", "--ruleset", "skirmish_alert", "--scenario",
                            "ffa3", "--save", str(tmp_path / "r.toml")),
                   "skirmish_alert/ffa3 has 3 sides: play is one person against one agent")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r.txt", "r.html", "r"])
def test_cli_save_must_be_a_toml_file(tmp_path, name):
    one_line_error(play_cli("--opponent", "random", "--save", str(tmp_path / name)),
                   f"--save '{tmp_path / name}': the game record is written as TOML; give a "
                   f"file name ending in .toml")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_cli_port_in_use(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        one_line_error(play_cli("--opponent", "random", "--port", str(port),
                                "--save", str(tmp_path / "r.toml")),
                       f"127.0.0.1:{port} is already in use")
    assert not (tmp_path / "r.toml").exists()


@pytest.mark.slow
def test_cli_checkpoint_for_another_ruleset(tmp_path):
    from sb3_contrib import MaskablePPO

    from envs.adapters import RiposteGymEnv

    model = MaskablePPO("MlpPolicy", RiposteGymEnv("toy"), n_steps=32, batch_size=32,
                        policy_kwargs={"net_arch": [8]}, device="cpu")
    path = tmp_path / "toy.zip"
    model.save(path)
    one_line_error(play_cli("--opponent", str(path), "--save", str(tmp_path / "r.toml")),
                   str(path))


@pytest.mark.slow
def test_cli_serves_a_whole_game_on_localhost(tmp_path):
    """The real entry point: serve on a free port, play through the JSON API to the end, get
    the replay; then stop the server (Ctrl-C, exit 0)."""
    import json
    import re
    import signal
    import urllib.request

    save = tmp_path / "cli.toml"
    proc = subprocess.Popen([sys.executable, "-m", "envs", "play", "--opponent", "heuristic",
                             "--side", "1", "--scenario", "example_a_closing_volley",
                             "--param", "turns=1", "--port", "0", "--seed", "5",
                             "--save", str(save)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        base = m.group(0)

        def call(path, body=None):
            req = urllib.request.Request(base + path.lstrip("/"), method="POST" if body is not
                                         None else "GET", data=None if body is None else
                                         json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())
        assert "Start the game" in urllib.request.urlopen(base, timeout=60).read().decode()
        v = call("/api/start", {})
        for _ in range(2000):
            if v["over"]:
                break
            if v["your_turn"]:
                legal = [a for a in v["actions"] if a["legal"]]
                v = call("/api/act", {"action": legal[-1]["id"], "seq": v["seq"]})
            else:
                v = call("/api/advance", {})
        assert v["over"] and v["saved"] == str(save)
        s = ReplayScript.load(save)
        assert s.meta["agents"] == ["heuristic", "human"] and s.meta["seed"] == 5
        assert s.scenario == "example_a_closing_volley" and s.params["turns"] == 1
        assert [float(x) for x in s.play().returns()] == v["returns"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    assert proc.returncode == 0
