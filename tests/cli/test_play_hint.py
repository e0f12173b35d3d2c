"""python -m envs play's "What would the AI do?": the search's analysis of the person's decision
through the Flask routes, its advisor chosen by --hint or from a search:MODEL opponent, and bad
--hint specs as one error line."""

from __future__ import annotations

import math

from agents.search import NetworkEvaluator, SearchAgent, SearchConfig
from envs import load_game
from envs.cli.play import PlaySession, create_app, make_advisor
from tests.search.conftest import network
from tests.search.test_specs import acw_model  # noqa: F401  (a fixture: a small checkpoint)

from .scripted import CHARGER, Scripted


def _prior(game, favour: dict[str, float]):
    """A randomly initialised network (its value head says something at every state) whose
    logits are raised by ``favour[label]``."""
    import torch

    policy = network(game, seed=3)
    with torch.no_grad():
        for label, v in favour.items():
            policy.action_net.bias[game.actions.id(label)] += v
    return policy


def _game():
    return load_game("acw_regimental", "example_a_closing_volley",
                     {"pips_fixed": True, "turns": 1})


def _session(tmp_path, advisor_policy=None, sims=6):
    g = _game()
    advisor = None
    if advisor_policy is not None:
        advisor = SearchAgent(g, NetworkEvaluator(g, advisor_policy),
                              SearchConfig(simulations=sims), seed=0, name="search:test")
    return PlaySession(g, Scripted(g, CHARGER), "scripted", 1, 7, tmp_path / "replay.toml",
                       "example_a_closing_volley", advisor=advisor)


def _until_my_turn(client):
    v = client.post("/api/start").get_json()
    for _ in range(500):
        if v["your_turn"]:
            return v
        v = client.post("/api/advance").get_json()
    raise AssertionError("the agent never handed over")


def test_the_search_values_every_legal_action_of_the_reaction_window(tmp_path):
    # the network prefers declining; the values are the search's (the value head at its leaves)
    g = _game()
    ps = _session(tmp_path, _prior(g, {"react:decline": 6.0}), sims=6)
    client = create_app(ps).test_client()
    r = client.post("/api/hint")
    assert r.status_code == 409 and "your decision" in r.get_json()["error"]
    v = _until_my_turn(client)
    assert v["hints"] and v["window"]
    legal = {a["label"]: a for a in v["actions"] if a["legal"]}
    h = client.post("/api/hint").get_json()
    assert h["seq"] == v["seq"] and h["decision"] == "reaction" and h["advisor"] == "search:test"
    rows = {row["label"]: row for row in h["actions"]}
    assert set(rows) == set(legal) == {"react:closing_volley", "react:decline"}
    assert {row["id"] for row in h["actions"]} == {a["id"] for a in legal.values()}
    assert rows["react:closing_volley"]["words"] == "Fire a Closing Volley at 14th Brooklyn"
    assert h["chosen"]["label"] in legal
    assert [row["label"] for row in h["actions"] if row["chosen"]] == [h["chosen"]["label"]]
    assert h["searched"] and h["simulations"] == 6
    assert sum(row["visits"] for row in h["actions"]) == 6
    assert math.isclose(sum(row["prior"] for row in h["actions"]), 1.0, abs_tol=1e-3)
    assert math.isclose(sum(row["policy"] for row in h["actions"]), 1.0, abs_tol=1e-3)
    assert rows["react:decline"]["prior"] > 0.9  # the bias of 3 logits
    for row in h["actions"]:
        assert -1.0 <= row["q"] <= 1.0 and row["visits"] == 3  # sequential halving: 3 + 3
    qs = [row["q"] for row in h["actions"]]
    assert qs == sorted(qs, reverse=True) and qs[0] > qs[1]  # best value first
    assert h["root_value"] is not None and -1.0 <= h["root_value"] <= 1.0
    # asking changes nothing: the same decision, and a move from it goes on as before
    assert client.get("/api/state").get_json()["seq"] == v["seq"]
    r = client.post("/api/act", json={"action": h["chosen"]["id"], "seq": v["seq"]})
    assert r.status_code == 200 and r.get_json()["seq"] == v["seq"] + 1


def test_the_same_seed_gives_the_same_hint_and_the_page_has_the_button(tmp_path):
    g = _game()
    policy = _prior(g, {"react:closing_volley": 0.5})
    answers = []
    for _ in range(2):
        client = create_app(_session(tmp_path, policy, sims=4)).test_client()
        _until_my_turn(client)
        answers.append(client.post("/api/hint").get_json())
    for a in answers:
        a.pop("seconds")
    assert answers[0] == answers[1]
    assert b"What would the AI do?" in client.get("/").data


def test_without_an_advisor_there_is_no_hint(tmp_path):
    client = create_app(_session(tmp_path)).test_client()
    v = _until_my_turn(client)
    assert not v["hints"]
    r = client.post("/api/hint")
    assert r.status_code == 404 and "--hint" in r.get_json()["error"]
    assert r.get_json()["state"]["seq"] == v["seq"]


def test_make_advisor_from_hint_or_a_search_opponent(acw_model):
    from agents import make_agent

    g = load_game("acw_regimental")
    assert make_advisor(None, make_agent("heuristic", g, seed=0), g, 0) is None
    a = make_advisor(acw_model, make_agent("heuristic", g, seed=0), g, 0)
    assert isinstance(a, SearchAgent) and a.config == SearchConfig()
    a = make_advisor(f"search:{acw_model}:sims=3", None, g, 0)
    assert a.config.simulations == 3
    opponent = make_agent(f"search:{acw_model}:sims=5", g, seed=1)
    a = make_advisor(None, opponent, g, 0)
    # the opponent's network and settings, its own generator
    assert a is not opponent and a.evaluator is opponent.evaluator
    assert a.config.simulations == 5 and a.rng is not opponent.rng


def test_cli_serves_with_hints_and_refuses_a_bad_hint(acw_model, capsys, monkeypatch, tmp_path):
    from envs import __main__ as envs_main
    from envs.cli import play

    served = []

    class Server:
        port = 0

        def __init__(self, session):
            served.append(session)
            self._riposte_socket = self

        def serve_forever(self):
            pass

        def server_close(self):
            pass

        close = server_close

    monkeypatch.setattr(play, "make_server", lambda session, port: Server(session))
    base = ["play", "--opponent", "heuristic", "--port", "0", "--save", str(tmp_path / "r.toml")]
    assert envs_main.main([*base, "--hint", f"search:{acw_model}:sims=2"]) == 0
    assert served[-1].advisor.config.simulations == 2 and served[-1].view()["hints"]
    assert envs_main.main(base) == 0 and served[-1].advisor is None
    capsys.readouterr()
    for hint, needle in ((f"search:{acw_model}:bogus=1", "unknown option 'bogus'"),
                         ("/no/such/model.zip", "not found"),
                         (f"search:{acw_model}:sims=0", "positive")):
        assert envs_main.main([*base, "--hint", hint]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
    code = envs_main.main(["play", "--ruleset", "atomic_africa", "--opponent", "random",
                           "--port", "0", "--save", str(tmp_path / "r.toml"),
                           "--hint", acw_model])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "acw" in lines[0], lines
    assert len(served) == 2
