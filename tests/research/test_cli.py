"""evaluate.py's research subcommands (whatif, ablate, masking) on the toy duel with tiny
budgets, their JSON (commit, parameters, seeds) and the bad-input cases (one line, exit 2,
nothing written, before any rollout or game)."""

from __future__ import annotations

import json

import pytest

import evaluate

TOY_REPLAY = """ruleset = "toy"
actions = ["attack", "react:dodge", "d6=4", "pass"]
[params]
turns = 2
hp = 3
"""


@pytest.fixture()
def replay(tmp_path):
    p = tmp_path / "toy.toml"
    p.write_text(TOY_REPLAY)
    return p


def test_subcommands_are_dispatched():
    assert set(evaluate.SUBCOMMANDS) >= {"whatif", "ablate", "masking"}


@pytest.mark.slow
def test_whatif_writes_table_json_and_plot(replay, tmp_path, capsys):
    out, png = tmp_path / "w.json", tmp_path / "w.png"
    rc = evaluate.main(["whatif", str(replay), "--at", "1", "--agents", "random", "random",
                        "--rollouts", "40", "--seed", "2", "--compare-independent",
                        "--json", str(out), "--plot", str(png), "--quiet"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["commit"] and doc["params"]["rollouts"] == 40 and doc["seeds"]["seed"] == 2
    assert doc["side"] == 1 and doc["decision"] == "reaction" and doc["at"] == 1
    assert [o["label"] for o in doc["options"]] == ["react:dodge", "react:decline"]
    assert doc["params"]["baseline"] == "react:decline"
    assert doc["variance_ratio"]["react:dodge"] > 1.0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rc = evaluate.main(["whatif", str(replay), "--at", "1", "--agents", "random", "random",
                        "--rollouts", "4"])
    assert rc == 0 and "react:dodge" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--at", "4"], "--at 4 is outside the replay's 4 labels"),
    (["--at", "2"], "label 2 ('d6=4') is a chance outcome, not a decision"),
    (["--at", "1", "--agents", "heuristic", "random"], "no scripted heuristic for ruleset 'toy'"),
    (["--at", "1", "--agents", "random", "missing/model.zip"], "checkpoint not found"),
    (["--at", "1", "--baseline", "attack"], "baseline 'attack' is not legal"),
    (["--at", "1", "--rollouts", "1"], "--rollouts must be >= 2"),
])
def test_whatif_bad_input(replay, tmp_path, capsys, args, message):
    out = tmp_path / "w.json"
    rc = evaluate.main(["whatif", str(replay), "--agents", "random", "random", *args,
                        "--json", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and err.count("\n") == 1 and err.startswith("error: ")
    assert "rollouts:" not in err  # no progress bar: nothing was played
    assert not out.exists()


def test_whatif_missing_replay(tmp_path, capsys):
    assert evaluate.main(["whatif", str(tmp_path / "nope.toml"), "--at", "0"]) == 2
    assert "nope.toml" in capsys.readouterr().err


@pytest.mark.slow
def test_ablate_pairs_games_on_common_seeds(tmp_path):
    out, png = tmp_path / "a.json", tmp_path / "a.png"
    rc = evaluate.main(["ablate", "--ruleset", "toy", "--agents", "random", "never-react",
                        "--param", "turns=6", "--param", "hp=2,turns=3", "--games", "8",
                        "--seed", "4", "--json", str(out), "--plot", str(png), "--quiet"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["commit"] and doc["seeds"]["seed"] == 4 and doc["params"]["games"] == 8
    same, other = doc["variants"]
    # turns=6 is the toy's default: the paired games are the same games, shift exactly 0
    assert same["variant"] == "turns=6"
    assert same["pairs"][0]["shift"] == 0.0 and same["pairs"][0]["games_changed"] == 0
    for per in same["reactions"].values():
        for r in per.values():
            assert r["shift_per_game"] == 0.0
    assert other["params"] == {"hp": 2, "turns": 3}
    p = other["pairs"][0]
    assert p["a_score_variant"] - p["a_score_default"] == pytest.approx(p["shift"])
    assert p["shift_ci95"][0] <= p["shift"] <= p["shift_ci95"][1]
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_ablate_list_parameters_and_commas_inside_them():
    from agents.research.ablate import parse_variant

    assert parse_variant("range_bands_cm=[10,20,40]") == {"range_bands_cm": [10, 20, 40]}
    assert parse_variant("non_triggering_actions=[pass],rounds=2") == {
        "non_triggering_actions": ["pass"], "rounds": 2}
    assert parse_variant('a="x,y",b=[]') == {"a": "x,y", "b": []}


def test_ablate_a_list_valued_rule_runs(tmp_path):
    out = tmp_path / "a.json"
    rc = evaluate.main(["ablate", "--ruleset", "skirmish_alert", "--scenario", "duel",
                        "--agents", "heuristic", "never-alert", "--param",
                        "non_triggering_actions=[pass]", "--games", "2", "--json", str(out),
                        "--quiet"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["variants"][0]["params"] == {"non_triggering_actions": ["pass"]}


@pytest.mark.parametrize("param, message", [
    ("bogus=1", "variant 'bogus=1': params: bogus"),
    ("turns=many", "turns: Input should be a valid integer"),
    ("turns", "expected NAME=VALUE"),
    ("turns=3,turns=4", "'turns' is given twice"),
])
def test_ablate_bad_parameters(tmp_path, capsys, param, message):
    out = tmp_path / "a.json"
    rc = evaluate.main(["ablate", "--ruleset", "toy", "--agents", "random", "never-react",
                        "--param", param, "--games", "4", "--json", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.slow
def test_ablate_train_compares_learned_reactions(tmp_path):
    out = tmp_path / "a.json"
    rc = evaluate.main(["ablate", "--ruleset", "toy", "--agents", "random", "never-react",
                        "--param", "hp=3", "--games", "4", "--train", "64",
                        "--train-opponent", "random", "--json", str(out), "--quiet"])
    assert rc == 0
    trained = json.loads(out.read_text())["trained"]
    assert [t["variant"] for t in trained] == ["default", "hp=3"]
    for t in trained:
        assert 0.0 <= t["score"] <= 1.0
        assert sum(t["reaction_shares"].values()) == pytest.approx(1.0) or not t["reaction_shares"]


@pytest.mark.slow
def test_masking_tiny_run(tmp_path):
    out, png = tmp_path / "m.json", tmp_path / "m.png"
    rc = evaluate.main(["masking", "--ruleset", "toy", "--timesteps", "64", "--seeds", "0",
                        "--eval-every", "32", "--eval-games", "4", "--n-steps", "32",
                        "--batch-size", "16", "--n-epochs", "1", "--opponent", "random",
                        "--eval-opponent", "random", "--json", str(out), "--plot", str(png),
                        "--quiet"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["commit"] and doc["seeds"] == [0] and doc["params"]["timesteps"] == 64
    for method in ("mask", "penalty"):
        pts = doc["curves"][method]["0"]
        assert [p["timesteps"] for p in pts] == [0, 32, 64]
        for p in pts:
            assert p["wins"] + p["draws"] + p["losses"] == 4
    assert all(p["illegal"] == 0 for p in doc["curves"]["mask"]["0"])
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_masking_without_json_says_how_long_and_how_to_keep_the_results(capsys, tmp_path):
    """Minutes of training (the defaults: about 5) whose results are only printed: one line at
    the start says so; with --json no such line."""
    tiny = ["masking", "--ruleset", "toy", "--timesteps", "32", "--seeds", "0", "1",
            "--eval-every", "32", "--eval-games", "2", "--n-steps", "32", "--batch-size", "16",
            "--n-epochs", "1", "--opponent", "random", "--eval-opponent", "random"]
    assert evaluate.main(tiny) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("note: 4 training runs of 32 timesteps, under 2 min on an idle 2-core "
                      "machine; the results are only printed (--json OUT saves them)")
    assert out[1].startswith("masking vs penalty on toy/")  # then the results, as before
    assert evaluate.main([*tiny, "--json", str(tmp_path / "m.json")]) == 0
    assert "note:" not in capsys.readouterr().out


def test_masking_defaults_say_about_five_minutes(capsys, monkeypatch):
    import agents.research.masking as masking

    class Started(Exception):
        pass

    def run(*args, **kwargs):
        raise Started

    monkeypatch.setattr(masking, "run", run)  # the notice comes before any training
    with pytest.raises(Started):
        evaluate.main(["masking"])
    assert capsys.readouterr().out == ("note: 6 training runs of 20000 timesteps, about 5 min "
                                       "on an idle 2-core machine; the results are only "
                                       "printed (--json OUT saves them)\n")


def test_masking_bad_input(capsys):
    assert evaluate.main(["masking", "--timesteps", "0"]) == 2
    assert "--timesteps must be >= 1" in capsys.readouterr().err
    assert evaluate.main(["masking", "--eval-seed", "-5"]) == 2
    assert "--eval-seed must be >= 0, got -5" in capsys.readouterr().err


@pytest.mark.parametrize("argv, command", [
    (["ablate", "--ruleset", "skirmish_alert", "--scenario", "ffa3", "--agents", "heuristic",
      "never-alert", "--param", "rounds=2", "--games", "2"], "ablate"),
    (["whatif", "tests/skirmish_alert/golden/three_teams.toml", "--at", "14", "--rollouts", "4"],
     "whatif"),
    (["masking", "--ruleset", "skirmish_alert", "--scenario", "ffa3", "--timesteps", "64"],
     "masking"),
    (["exploit", "no_such_model.zip", "--ruleset", "skirmish_alert", "--scenario", "ffa3"],
     "exploit"),
])
def test_two_sided_commands_refuse_a_free_for_all_before_any_work(capsys, argv, command):
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: skirmish_alert/") and " has 3 sides: " in err, err
    assert command in err and err.count("\n") == 1, err


@pytest.mark.slow
def test_masking_also_eval_scores_further_opponents(tmp_path):
    out = tmp_path / "m.json"
    rc = evaluate.main(["masking", "--ruleset", "toy", "--timesteps", "32", "--seeds", "0",
                        "--eval-every", "32", "--eval-games", "4", "--n-steps", "32",
                        "--batch-size", "16", "--n-epochs", "1", "--opponent", "random",
                        "--eval-opponent", "random", "--also-eval", "never-react",
                        "--json", str(out), "--quiet"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["params"]["also_eval"] == ["never-react"]
    for method in ("mask", "penalty"):
        for p in doc["curves"][method]["0"]:
            other = p["others"]["never-react"]
            assert other["wins"] + other["draws"] + other["losses"] == 4
        rows = doc["summary_others"]["never-react"][method]
        assert [r["timesteps"] for r in rows] == [0, 32]
        assert rows[0]["mean_score"] == doc["curves"][method]["0"][0]["others"]["never-react"]["score"]


def test_masking_also_eval_unknown_agent_is_one_line(tmp_path, capsys):
    rc = evaluate.main(["masking", "--ruleset", "toy", "--timesteps", "32", "--seeds", "0",
                        "--opponent", "random", "--eval-opponent", "random",
                        "--also-eval", "no-such-bot", "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-bot" in err[0]


def test_a_mistyped_subcommand_is_named_with_the_nearest(capsys):
    assert evaluate.main(["abalte", "--param", "turns=3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown subcommand 'abalte' (did you mean 'ablate'?); "
                          "subcommands: exploit, whatif, ablate, masking"), err
    assert err.count("\n") == 1


def test_whatif_baseline_is_the_rulesets_decline():
    """skirmish's reaction window declines with alert:decline (the baseline was its first
    label, alert:attempt:f0)."""
    from envs import load_game
    from agents.research.whatif import resolve_baseline
    import numpy as np

    state = load_game("skirmish_alert", "default").new_initial_state()
    rng = np.random.default_rng(0)
    while state.decision_name() != "reaction":
        if state.is_chance_node():
            ids, ps = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(ids, p=ps)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    legal = state.legal_labels()
    assert legal[0] != "alert:decline" and "alert:decline" in legal
    assert resolve_baseline(state, None) == "alert:decline"


def test_whatif_on_an_empty_replay_says_so(tmp_path, capsys):
    empty = tmp_path / "empty.toml"
    empty.write_text('ruleset = "toy"\nactions = []\n')
    assert evaluate.main(["whatif", str(empty), "--at", "0", "--agents", "random", "random"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {empty}: the replay has no labels: nothing to decide\n"
