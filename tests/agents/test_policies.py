"""Built-in policies: legality over many random states, reaction baselines, make_agent and
MaskablePPOPolicy loading errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

from agents import (AgentLoadError, AlwaysReact, MaskablePPOPolicy, NeverReact, RandomPolicy,
                    UnknownAgentError, make_agent)
from envs import load_game
from envs.core.actions import ActionCatalogue
from envs.core.chance import sample_chance_outcome
from envs.core.errors import InvalidStateError
from envs.core.protocol import CHANCE, TERMINAL, Game


def random_decisions(game: Game, n_games: int, seed: int, max_per_game: int = 400):
    """``(state, side, observation, mask)`` at every decision of ``n_games`` uniformly random
    games (the state is a clone frozen at that decision)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        st = game.new_initial_state()
        k = 0
        while st.current_player() != TERMINAL and k < max_per_game:
            p = st.current_player()
            if p == CHANCE:
                st.apply_action_unchecked(sample_chance_outcome(st, rng))
                continue
            mask = st.legal_action_mask()
            out.append((st.clone(), p, game.observation(st, p), mask))
            legal = np.flatnonzero(mask)
            st.apply_action(int(legal[rng.integers(len(legal))]))
            k += 1
    return out


@pytest.fixture(scope="session")
def toy_game():
    return load_game("toy")


@pytest.fixture(scope="session")
def acw_game():
    """The default ACW battle (skips while the ruleset is still being written)."""
    try:
        return load_game("acw_regimental")
    except ImportError as exc:  # pragma: no cover - only before the ACW engine lands
        pytest.skip(f"acw_regimental not importable yet: {exc}")


BASELINES = ["random", "never-react", "always-react"]


@pytest.mark.parametrize("name", BASELINES)
def test_baselines_only_pick_legal_actions_toy(toy_game, name):
    agent = make_agent(name, toy_game, seed=3)
    points = random_decisions(toy_game, n_games=40, seed=1)
    assert len(points) > 300
    for _, _, obs, mask in points:
        a = agent.act(obs, mask)
        assert mask[a], (name, a)
        assert mask[agent(obs, mask.astype(np.int8))]  # int8 masks (AEC) work too


@pytest.mark.slow
@pytest.mark.parametrize("name", BASELINES + ["heuristic"])
def test_builtin_agents_only_pick_legal_actions_acw(acw_game, name):
    agent = make_agent(name, acw_game, seed=5)
    points = random_decisions(acw_game, n_games=6, seed=2, max_per_game=300)
    assert len(points) > 200
    types = set()
    for st, side, obs, mask in points:
        types.add(str(getattr(st.decision_type(), "value", st.decision_type())))
        a = agent.act(obs, mask)
        assert mask[a], (name, st.action_to_string(a), st.legal_labels())
    assert {"maneuver", "reaction"} <= types


def test_never_react_declines_and_always_react_reacts_toy(toy_game):
    never, always = NeverReact(toy_game, 0), AlwaysReact(toy_game, 0)
    dodge, decline = toy_game.actions.id("react:dodge"), toy_game.actions.id("react:decline")
    windows = [(o, m) for st, _, o, m in random_decisions(toy_game, 20, seed=4)
               if st.decision_type() == "reaction"]
    assert len(windows) > 20
    for obs, mask in windows:
        assert never.act(obs, mask) == decline
        assert always.act(obs, mask) == dodge


@pytest.mark.slow
def test_reaction_baselines_in_acw_windows(acw_game):
    never, always = NeverReact(acw_game, 0), AlwaysReact(acw_game, 0)
    labels = acw_game.actions.labels
    free = ("react:closing_volley", "react:opportunity_fire", "react:evade_4", "react:evade_5",
            "react:evade_6")
    seen_free = 0
    for st, _, obs, mask in random_decisions(acw_game, 24, seed=7, max_per_game=300):
        legal = set(st.legal_labels())
        if not any(lab.startswith("react:") for lab in legal):
            continue
        if "react:decline" in legal:
            assert labels[never.act(obs, mask)] == "react:decline"
        choice = labels[always.act(obs, mask)]
        if legal & set(free):
            seen_free += 1
            assert choice in free
        elif "react:decline" in legal:
            assert choice == "react:decline"
    assert seen_free > 0


@pytest.fixture
def acw_labels():
    from envs.rulesets.acw_regimental.actions import build_labels

    class FakeGame:  # only the catalogue is read by the label policies
        actions = ActionCatalogue(build_labels(8))

    return FakeGame()


def _mask(game, *labels):
    m = np.zeros(len(game.actions), dtype=bool)
    for lab in labels:
        m[game.actions.id(lab)] = True
    return m


@pytest.mark.parametrize("offered, expected", [
    (("react:wait_short", "react:opportunity_fire", "react:decline"), "react:opportunity_fire"),
    (("react:evade_4", "react:closing_volley", "react:decline"), "react:closing_volley"),
    (("react:refuse_1", "react:refuse_2", "react:decline"), "react:decline"),
    (("react:counter_charge_2", "react:evade_5", "react:decline"), "react:evade_5"),
    (("react:wait_short", "react:decline"), "react:decline"),
])
def test_always_react_preferences(acw_labels, offered, expected):
    pol = AlwaysReact(acw_labels, seed=0)
    obs = np.zeros(4, np.float32)
    for s in range(5):
        pol.reset(s)
        assert acw_labels.actions.labels[pol.act(obs, _mask(acw_labels, *offered))] == expected
    never = NeverReact(acw_labels, seed=0)
    assert acw_labels.actions.labels[never.act(obs, _mask(acw_labels, *offered))] == "react:decline"


def test_never_react_without_decline_picks_an_offered_reaction(acw_labels):
    pol = NeverReact(acw_labels, seed=0)
    offered = {"react:evade_4", "react:evade_6"}
    picks = {acw_labels.actions.labels[pol.act(np.zeros(1), _mask(acw_labels, *offered))]
             for _ in range(30)}
    assert picks == offered


def test_random_policy_is_uniform_and_seeded():
    mask = np.array([0, 1, 1, 0, 1], dtype=bool)
    a = RandomPolicy(seed=9)
    draws = [a.act(np.zeros(1), mask) for _ in range(3000)]
    counts = np.bincount(draws, minlength=5)
    assert counts[0] == counts[3] == 0
    assert all(abs(c - 1000) < 120 for c in counts[[1, 2, 4]])
    b = RandomPolicy(seed=9)
    assert [b.act(np.zeros(1), mask) for _ in range(50)] == draws[:50]
    b.reset(9)
    assert [b.act(np.zeros(1), mask) for _ in range(50)] == draws[:50]
    with pytest.raises(InvalidStateError, match="all-false"):
        a.act(np.zeros(1), np.zeros(5, dtype=bool))


def test_make_agent_errors(toy_game, tmp_path):
    with pytest.raises(UnknownAgentError, match="random, heuristic, never-react, always-react"):
        make_agent("alphago", toy_game)
    with pytest.raises(UnknownAgentError, match="no scripted heuristic for ruleset 'toy'"):
        make_agent("heuristic", toy_game)
    missing = tmp_path / "nope.zip"
    with pytest.raises(AgentLoadError, match="nope.zip"):
        make_agent(str(missing), toy_game)
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(AgentLoadError, match="corrupt.zip"):
        make_agent(str(corrupt), toy_game)
    import zipfile

    empty_zip = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty_zip, "w") as zf:
        zf.writestr("hello.txt", "not a model")
    with pytest.raises(AgentLoadError, match="empty.zip"):
        MaskablePPOPolicy.load(empty_zip, toy_game)


@pytest.fixture(scope="module")
def toy_checkpoint(tmp_path_factory):
    from sb3_contrib import MaskablePPO

    from envs.adapters.single_agent import RiposteGymEnv

    env = RiposteGymEnv("toy", seat="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    from agents.policies.checkpoint import save_model

    path = save_model(model, tmp_path_factory.mktemp("ckpt") / "toy_model.zip")
    return path, model


@pytest.mark.slow
def test_ppo_policy_matches_predict_and_stays_legal(toy_game, toy_checkpoint):
    path, model = toy_checkpoint
    pol = make_agent(str(path), toy_game, seed=0)
    assert isinstance(pol, MaskablePPOPolicy) and pol.name == str(path)
    sampler = MaskablePPOPolicy(model, deterministic=False, seed=1)
    for _, _, obs, mask in random_decisions(toy_game, 10, seed=5):
        a = pol.act(obs, mask)
        assert mask[a]
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert a == int(expected)
        assert mask[sampler.act(obs, mask)]


def test_ppo_checkpoint_of_another_game_is_rejected(acw_game, toy_checkpoint, tmp_path):
    path, model = toy_checkpoint
    with pytest.raises(AgentLoadError, match="toy_model.zip.*expects observations"):
        MaskablePPOPolicy.load(path, acw_game)
    from agents.policies.checkpoint import save_model
    from envs import load_game

    # saved with its game: the message says what it was trained on and what it was given
    named = save_model(model, tmp_path / "toy_named.zip", load_game("toy"))
    with pytest.raises(AgentLoadError, match=r"actions \(trained on toy/\w+\), but "
                                             r"acw_regimental/default has \("):
        MaskablePPOPolicy.load(named, acw_game)


def test_agent_identity_reads_names_as_make_agent_does(tmp_path, monkeypatch):
    """A built-in name stays the bot even where a file of that name lies in the current
    folder (make_agent plays the bot); a checkpoint path is its real file."""
    from agents.builtin import agent_identity
    from agents.policies.base import first_repeated

    monkeypatch.chdir(tmp_path)
    (tmp_path / "rush").write_bytes(b"PK")
    (tmp_path / "a.zip").write_bytes(b"PK")
    (tmp_path / "link.zip").symlink_to(tmp_path / "a.zip")
    assert agent_identity("rush") == "rush"
    os.link(tmp_path / "a.zip", tmp_path / "hard.zip")
    (tmp_path / "b.zip").write_bytes(b"PK")
    assert agent_identity("./rush") != "rush"
    assert agent_identity("link.zip") == agent_identity("./a.zip") == agent_identity("hard.zip")
    assert agent_identity("a.zip") != agent_identity("b.zip")
    assert agent_identity("nope.zip") == str(tmp_path / "nope.zip")  # no file: its path
    (tmp_path / "dangling.zip").symlink_to(tmp_path / "nope.zip")
    assert agent_identity("dangling.zip") != agent_identity("nope.zip")  # two missing files
    assert first_repeated(["hard.zip", "a.zip"], key=agent_identity) == (
        "'hard.zip' and 'a.zip' are the same checkpoint")
    assert first_repeated(["rush", "./rush"], key=agent_identity) is None
    assert first_repeated(["a.zip", "random", "link.zip"], key=agent_identity) == (
        "'a.zip' and 'link.zip' are the same checkpoint")
    assert first_repeated(["a.zip", "./a.zip"]) is None  # without a key: names as written
    assert first_repeated(["rush", "x", "rush", "rush"]) == "'rush' is given 3 times"
