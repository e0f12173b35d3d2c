"""``python -m envs.bench --fingerprint N --behaviour``: the digest of what a player or a replay
sees (legal labels, chance outcomes, events, observations, returns) and not of the state's
internal layout. Each test changes one thing and checks which digest notices."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import envs.bench as bench
from envs.bench import behaviour_fingerprint, main, observable_fingerprint
from envs.rulesets import load_game
from envs.rulesets.acw_regimental import state as acw_state
from envs.rulesets.acw_regimental import tables as acw_tables
from envs.rulesets.acw_regimental.game import ACWGame
from tests.toy_ruleset import ToyGame, ToyState

KEYS = {"ruleset", "scenario", "seed", "games", "decisions", "chance_nodes", "events",
        "fingerprint", "covers"}


def _by_hand(game: Any, games: int, seed: int) -> tuple[str, int, int, int]:
    """The documented recipe, written out independently of envs.bench."""
    from envs.core.chance import sample_chance_outcome
    from envs.core.protocol import CHANCE, TERMINAL

    h = hashlib.sha256()
    decisions = chance = events = 0

    def line(item: Any) -> None:
        h.update(json.dumps(item, sort_keys=True).encode() + b"\n")

    for i in range(games):
        rng = np.random.default_rng([seed, i])
        s = game.new_initial_state()
        line(["G", i])
        seen = 0
        while True:
            for e in s.events[seen:]:
                line([e.kind, list(e.rules), e.side, e.data, e.text])
                events += 1
            seen = len(s.events)
            if s.current_player() == TERMINAL:
                break
            if s.current_player() == CHANCE:
                outs = s.chance_outcomes()
                a = sample_chance_outcome(s, rng)
                line(["C", [[game.chance.labels[o], f"{p:.12g}"] for o, p in outs],
                      game.chance.labels[a]])
                chance += 1
            else:
                legal = s.legal_actions()
                a = legal[int(rng.integers(len(legal)))]
                obs = []
                for side in range(game.num_players):
                    v = game.observation(s, side)
                    obs.append(hashlib.sha256(f"{v.dtype.str}{v.shape}".encode()
                                              + v.tobytes()).hexdigest())
                line(["D", s.current_player(), s.decision_name(),
                      [game.actions.labels[x] for x in legal], obs, game.actions.labels[a]])
                decisions += 1
            s.apply_action(a)
        line(["R", [float(r) for r in s.returns()]])
    return h.hexdigest(), decisions, chance, events


def test_follows_its_recipe_and_plays_the_same_games_as_the_state_fingerprint() -> None:
    r = observable_fingerprint(ToyGame(), 5, seed=3)
    assert set(r) == KEYS
    assert (r["ruleset"], r["scenario"], r["seed"], r["games"], r["covers"]) == (
        "toy", "duel", 3, 5, "behaviour")
    assert (r["fingerprint"], r["decisions"], r["chance_nodes"], r["events"]) == _by_hand(
        ToyGame(), 5, 3)
    # the same games as --fingerprint without --behaviour (same draws, same counts)
    old = behaviour_fingerprint(ToyGame(), 5, seed=3)
    assert (old["decisions"], old["chance_nodes"]) == (r["decisions"], r["chance_nodes"])
    # every toy attack rolls one d6 and logs one hit or miss
    assert r["events"] == r["chance_nodes"] > 0


def test_repeatable_and_tells_seeds_and_games_apart() -> None:
    a = observable_fingerprint(ToyGame(), 4, seed=0)["fingerprint"]
    assert observable_fingerprint(ToyGame(), 4, seed=0)["fingerprint"] == a
    assert observable_fingerprint(ToyGame(), 4, seed=1)["fingerprint"] != a
    assert observable_fingerprint(ToyGame(), 5, seed=0)["fingerprint"] != a
    assert observable_fingerprint(ToyGame(params={"hp": 4}), 4, seed=0)["fingerprint"] != a


def test_rejects_no_games() -> None:
    with pytest.raises(ValueError, match="games must be >= 1"):
        observable_fingerprint(ToyGame(), 0)


# -- sensitive to a rule change ------------------------------------------------------------------
def test_toy_rule_change_changes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    before = observable_fingerprint(ToyGame(), 6, seed=2)["fingerprint"]
    real_apply = ToyState._apply_action

    def dodge_needs_six(self: Any, action: int) -> None:
        if self.phase == "roll" and self.dodged and action == 4:
            action = 3  # a 5 no longer hits a dodging side
        real_apply(self, action)

    monkeypatch.setattr(ToyState, "_apply_action", dodge_needs_six)
    assert observable_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] != before
    monkeypatch.setattr(ToyState, "_apply_action", real_apply)
    assert observable_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] == before


def test_acw_rule_change_changes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regular troops pass a discipline test on 5+ instead of 4+ (ACW-PD-10's table)."""
    game = load_game("acw_regimental")
    before = observable_fingerprint(game, 3, seed=1)["fingerprint"]
    regular = acw_tables.Experience.REGULAR
    monkeypatch.setitem(acw_tables._DISCIPLINE, regular, acw_tables._DISCIPLINE[regular] + 1)
    assert observable_fingerprint(game, 3, seed=1)["fingerprint"] != before


def test_event_data_or_text_change_changes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    before = observable_fingerprint(ToyGame(), 6, seed=2)["fingerprint"]
    real_log = ToyState.log

    def other_data(self: Any, kind: str, rules: Any, text: str, side: Any = None,
                   **data: Any) -> None:
        real_log(self, kind, rules, text, side, **data, extra=1)

    monkeypatch.setattr(ToyState, "log", other_data)
    assert observable_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] != before

    def other_text(self: Any, kind: str, rules: Any, text: str, side: Any = None,
                   **data: Any) -> None:
        real_log(self, kind, rules, text.upper(), side, **data)

    monkeypatch.setattr(ToyState, "log", other_text)
    assert observable_fingerprint(ToyGame(), 6, seed=2)["fingerprint"] != before


def test_chance_probabilities_are_covered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same draws (the cumulative sums cross the uniforms at the same outcomes), other
    probabilities: only the behaviour digest notices."""
    game = ToyGame()
    before = observable_fingerprint(game, 3, seed=0)
    old = behaviour_fingerprint(game, 3, seed=0)["fingerprint"]
    uniform = ToyState._chance_outcomes

    def with_zero_outcome(self: Any) -> list[tuple[int, float]]:
        return uniform(self)[:-1] + [(5, 1 / 6 - 1e-9), (5, 1e-9)]

    monkeypatch.setattr(ToyState, "_chance_outcomes", with_zero_outcome)
    assert behaviour_fingerprint(game, 3, seed=0)["fingerprint"] == old
    assert observable_fingerprint(game, 3, seed=0)["fingerprint"] != before["fingerprint"]


# -- sensitive to an observation change, which the state fingerprint does not see ----------------
def test_observation_change_changes_it_but_not_the_state_fingerprint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game("acw_regimental")
    before = observable_fingerprint(game, 2, seed=4)["fingerprint"]
    old = behaviour_fingerprint(game, 2, seed=4)["fingerprint"]
    real_observation = ACWGame.observation

    def second_side_sees_more(self: Any, state: Any, side: int) -> np.ndarray:
        v = real_observation(self, state, side)
        if side == 1:
            v = v.copy()
            v[-1] += 0.5
        return v

    monkeypatch.setattr(ACWGame, "observation", second_side_sees_more)
    assert behaviour_fingerprint(game, 2, seed=4)["fingerprint"] == old
    assert observable_fingerprint(game, 2, seed=4)["fingerprint"] != before


# -- blind to the internal layout ----------------------------------------------------------------
def test_blind_to_renamed_frame_keys_which_the_state_fingerprint_sees(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The ACW state serialises its procedure frames under other key names (``"kind"`` ->
    ``"frame_kind"``, ``"k"`` -> ``"frame_k"``, ...), round-tripping through ``from_dict``: a
    change of form only."""
    game = load_game("acw_regimental")
    before = observable_fingerprint(game, 2, seed=6)["fingerprint"]
    old = behaviour_fingerprint(game, 2, seed=6)["fingerprint"]
    real_to_dict, real_from_dict = acw_state.ACWState._to_dict, acw_state.ACWState.from_dict.__func__

    def renamed_to_dict(self: Any) -> dict[str, Any]:
        d = real_to_dict(self)
        d["procedure"] = [{f"frame_{k}": v for k, v in fr.items()} for fr in d.pop("stack")]
        return d

    def renamed_from_dict(cls: Any, game: Any, d: dict[str, Any]) -> Any:
        d = dict(d)
        d["stack"] = [{k.removeprefix("frame_"): v for k, v in fr.items()}
                      for fr in d.pop("procedure")]
        return real_from_dict(cls, game, d)

    monkeypatch.setattr(acw_state.ACWState, "_to_dict", renamed_to_dict)
    monkeypatch.setattr(acw_state.ACWState, "from_dict", classmethod(renamed_from_dict))
    # it is a faithful change of form: a state still round-trips
    s = game.new_initial_state()
    s.apply_action(s.legal_actions()[0])
    back = type(s).from_json(s.to_json())
    assert back.to_json() == s.to_json() and '"frame_kind"' in s.to_json()
    assert behaviour_fingerprint(game, 2, seed=6)["fingerprint"] != old
    assert observable_fingerprint(game, 2, seed=6)["fingerprint"] == before


# -- command line --------------------------------------------------------------------------------
def test_cli_behaviour_prints_and_writes_the_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fp.json"
    assert main(["--ruleset", "acw_regimental", "--scenario", "example_a_closing_volley",
                 "--fingerprint", "2", "--behaviour", "--seed", "5", "--json", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out.read_text())
    assert set(printed) == KEYS
    game = load_game("acw_regimental", "example_a_closing_volley")
    assert (printed["scenario"], printed["games"], printed["covers"]) == (
        game.scenario_name, 2, "behaviour")
    assert printed["fingerprint"] == _by_hand(game, 2, 5)[0]


def test_cli_behaviour_needs_fingerprint(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ei:
        main(["--ruleset", "toy", "--behaviour"])
    assert ei.value.code == 2
    assert "--behaviour is a kind of --fingerprint" in capsys.readouterr().err


def test_module_documents_the_flag() -> None:
    assert "--behaviour" in bench.__doc__ and "observable_fingerprint" in bench.__doc__
