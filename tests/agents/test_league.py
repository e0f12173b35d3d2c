"""League self-play (agents.training.league.pfsp): PFSP weights from the learner's recent scores,
sampling, episode records from tagged infos, state round trip, and the env tag."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.training.league.pfsp import League, OpponentTag, pfsp_weight
from agents.policies.base import AgentError

from .test_policies import toy_game  # noqa: F401 (fixture)
from .test_selfplay import toy_model  # noqa: F401 (fixture)

BOTS = ("random", "never-react", "always-react")


def test_pfsp_weight_is_alphastar_hard_weighting_plus_floor():
    assert pfsp_weight(0.0) == pytest.approx(1.02)
    assert pfsp_weight(0.5) == pytest.approx(0.27)
    assert pfsp_weight(1.0) == pytest.approx(0.02)
    assert pfsp_weight(0.25, exponent=1.0, floor=0.1) == pytest.approx(0.85)
    assert pfsp_weight(1.7) == pfsp_weight(1.0) and pfsp_weight(-1) == pfsp_weight(0.0)


def test_win_rates_drive_member_probabilities(toy_game):
    league = League(toy_game, bots=BOTS, seed=0, self_play=0.0, window_games=4)
    assert league.win_rate("random") == 0.5  # the prior: one draw
    p0 = league.member_probabilities()
    assert p0 == pytest.approx({n: 1 / 3 for n in BOTS})
    for s in (1, 1, 1, 1, 1, 0):  # the window keeps the last 4: 1, 1, 1, 0
        league.record("random", s)
    for s in (0, 0, 0.5):
        league.record("never-react", s)
    assert league.win_rate("random") == pytest.approx(3.5 / 5)
    assert league.win_rate("never-react") == pytest.approx(1.0 / 4)
    raw = {"random": pfsp_weight(0.7), "never-react": pfsp_weight(0.25),
           "always-react": pfsp_weight(0.5)}
    total = sum(raw.values())
    assert league.member_probabilities() == pytest.approx({n: v / total for n, v in raw.items()})
    rng = np.random.default_rng(3)
    names = Counter(league.sample_opponent(rng).name for _ in range(2000))
    for n, v in raw.items():
        assert abs(names[n] / 2000 - v / total) < 0.04, names


def test_bot_weights_scale_members_and_self_play_share(toy_game, toy_model):
    league = League(toy_game, bots=("random:3", "never-react"), seed=0, self_play=0.25)
    assert league.member_probabilities() == pytest.approx({"random": 0.75, "never-react": 0.25})
    league.set_latest(toy_model)
    rng = np.random.default_rng(0)
    names = Counter(league.sample_opponent(rng).name for _ in range(2000))
    assert abs(names["latest"] / 2000 - 0.25) < 0.03
    assert abs(names["random"] / 2000 - 0.75 * 0.75) < 0.04


def test_snapshots_join_the_league_and_state_round_trips(toy_game, toy_model, tmp_path):
    league = League(toy_game, bots=BOTS, snapshot_dir=tmp_path, seed=0, self_play=0.0)
    league.add_snapshot(toy_model, 64)
    assert set(league.members()) == {*BOTS, "snapshot:snapshot_0000000064"}
    league.record("snapshot:snapshot_0000000064", 0.0)
    league.record("random", 1.0)
    league.save(tmp_path / "pool.json")
    again = League(toy_game, bots=BOTS, snapshot_dir=tmp_path, seed=0, self_play=0.0)
    again.load_state(tmp_path / "pool.json")
    assert again.snapshots == league.snapshots
    assert again.member_probabilities() == pytest.approx(league.member_probabilities())
    rng = np.random.default_rng(1)
    names = Counter(again.sample_opponent(rng).name for _ in range(300))
    assert names["snapshot:snapshot_0000000064"] > names["random"]


def test_record_episode_reads_the_final_info(toy_game):
    league = League(toy_game, bots=BOTS, seed=0)
    assert league.record_episode({"opponent": "random", "returns": [-1.0, 1.0], "side": 1})
    assert league.record_episode({"opponent": "random", "returns": [1.0, -1.0], "side": 1})
    assert league.record_episode({"opponent": "random", "returns": [0.0, 0.0], "side": 0})
    assert list(league.results["random"]) == [1.0, 0.0, 0.5]
    assert not league.record_episode({"opponent": "random", "side": 0})  # not finished
    assert not league.record_episode({"opponent": "latest", "returns": [1, -1], "side": 0})
    assert not league.record_episode({"returns": [1, -1], "side": 0})


@pytest.mark.parametrize("kw", [{"self_play": 1.5}, {"floor": 0.0}, {"window_games": 0},
                                {"exponent": -1.0}])
def test_bad_league_settings_raise(toy_game, kw):
    with pytest.raises(AgentError):
        League(toy_game, bots=BOTS, **kw)


def test_opponent_tag_names_the_episode_opponent():
    from agents import make_agent
    from envs import load_game
    from envs.adapters.single_agent import RiposteGymEnv

    env = OpponentTag(RiposteGymEnv("toy", opponent=make_agent("never-react", load_game("toy"))))
    env.reset(seed=0)
    done, info = False, {}
    while not done:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        done = term or trunc
        assert info["opponent"] == "never-react"
    assert "returns" in info


def test_snapshots_share_one_base_weight(toy_game, toy_model, tmp_path):
    league = League(toy_game, bots=("random",), snapshot_dir=tmp_path, seed=0, self_play=0.0)
    for steps in (64, 128, 192, 256):
        league.add_snapshot(toy_model, steps)
    members = league.members()
    assert members["random"] == 1.0
    assert sorted(v for n, v in members.items() if n.startswith("snapshot:")) == [0.25] * 4
    # no results yet: every member at the prior draw, so the window as a whole is one bot's share
    probs = league.member_probabilities()
    assert sum(v for n, v in probs.items() if n.startswith("snapshot:")) == \
        pytest.approx(probs["random"])
    heavy = League(toy_game, bots=("random",), snapshot_dir=tmp_path / "h", seed=0,
                   self_play=0.0, snapshots_weight=4.0)
    heavy.add_snapshot(toy_model, 64)
    heavy.add_snapshot(toy_model, 128)
    assert heavy.member_probabilities()["random"] == pytest.approx(1 / 5)
    none = League(toy_game, bots=("random",), snapshot_dir=tmp_path / "n", seed=0,
                  self_play=0.0, snapshots_weight=0.0)
    none.add_snapshot(toy_model, 64)
    assert set(none.members()) == {"random"}
    with pytest.raises(AgentError, match="snapshots_weight"):
        League(toy_game, bots=("random",), seed=0, snapshots_weight=-1.0)


def test_exploiters_join_as_arg_max_members_and_round_trip(toy_game, toy_model, tmp_path):
    from agents.policies.checkpoint import save_model

    snaps = tmp_path / "snapshots"
    path = save_model(toy_model, tmp_path / "exploiters" / "exploiter_0000000128.zip", toy_game)
    league = League(toy_game, bots=("random",), snapshot_dir=snaps, seed=0, self_play=0.0,
                    exploiters_weight=3.0)
    assert league.add_exploiter(path) == "exploiter:exploiter_0000000128"
    league.add_exploiter(path)  # twice: still one member
    assert league.members() == {"random": 1.0, "exploiter:exploiter_0000000128": 3.0}
    assert league.member_probabilities()["random"] == pytest.approx(1 / 4)
    rng = np.random.default_rng(0)
    picked = [league.sample_opponent(rng) for _ in range(200)]
    exploiter = next(p for p in picked if p.name.startswith("exploiter:"))
    assert exploiter.deterministic  # it plays its exploit line, arg-max
    assert 120 < sum(p is exploiter for p in picked) < 180  # 3/4 of 200, cached once
    league.record("exploiter:exploiter_0000000128", 1.0)
    league.save(tmp_path / "pool.json")
    # a resumed run whose directory was copied (the original still there) or moved gets
    # its own exploiters back; recorded paths relocate into the new directory
    moved = tmp_path / "moved"
    (moved / "exploiters").mkdir(parents=True)
    (moved / "snapshots").mkdir()
    (moved / "exploiters" / path.name).write_bytes(path.read_bytes())
    (moved / "snapshots" / "snapshot_0000000064.zip").write_bytes(path.read_bytes())
    for original_there in (True, False):
        if not original_there:
            path.unlink()
        again = League(toy_game, bots=("random",), snapshot_dir=moved / "snapshots", seed=0,
                       self_play=0.0, exploiters_weight=3.0)
        again.load_state(tmp_path / "pool.json")
        assert again.exploiters == [str(moved / "exploiters" / path.name)]
        assert again.member_probabilities() == pytest.approx(league.member_probabilities())
        assert again.relocate(str(path)) == str(moved / "exploiters" / path.name)
        assert again.relocate(str(snaps / "snapshot_0000000064.zip")) == \
            str(moved / "snapshots" / "snapshot_0000000064.zip")
        # not in the new directory: still named there, never read from the old one
        assert again.relocate(str(snaps / "snapshot_0000000128.zip")) == \
            str(moved / "snapshots" / "snapshot_0000000128.zip")
    none = League(toy_game, bots=("random",), seed=0, exploiters_weight=0.0)
    none.add_exploiter(moved / "exploiters" / path.name)
    assert set(none.members()) == {"random"}
    with pytest.raises(AgentError, match="exploiters_weight"):
        League(toy_game, bots=("random",), seed=0, exploiters_weight=-1.0)
