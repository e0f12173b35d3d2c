"""render_mode="rgb_array" on the AEC and Gymnasium envs: the table as an (H, W, 3) uint8 image,
PettingZoo's render_test and Gymnasium's RecordVideo; "ansi" stays."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from envs import acw_regimental_v0
from envs.adapters import RiposteGymEnv
from envs.adapters.registration import GYM_ACW_ID, register_envs
from envs.adapters.rendering import CAPTION_PX, PIXELS_PER_UNIT, drawing_to_rgb
from envs.core.drawing import Drawing, Polygon

from . import RULESETS, require_ruleset


def test_rasteriser_puts_the_shapes_where_the_table_says():
    d = Drawing(10.0, 10.0, (Polygon(((0, 0), (5, 0), (5, 5), (0, 5)), fill="#ff0000",
                                     stroke="#ff0000"),), background="#ffffff")
    img = drawing_to_rgb(d)
    assert img.shape == (10 * PIXELS_PER_UNIT + CAPTION_PX, 10 * PIXELS_PER_UNIT, 3)
    assert img.dtype == np.uint8
    H = img.shape[0]
    # the red square fills the lower-left quarter of the table (y up), white elsewhere
    assert tuple(img[H - 20, 20]) == (255, 0, 0)
    assert tuple(img[CAPTION_PX + 20, img.shape[1] - 20]) == (255, 255, 255)


def test_acw_rgb_array_aec_changes_as_the_game_moves():
    env = acw_regimental_v0.env(render_mode="rgb_array")
    env.reset(seed=3)
    first = env.render()
    assert first.shape == (36 * PIXELS_PER_UNIT + CAPTION_PX, 48 * PIXELS_PER_UNIT, 3)
    assert first.dtype == np.uint8
    for i, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
        if i == 30:
            break
    later = env.render()
    assert later.shape == first.shape and not np.array_equal(later, first)
    # Union blue stands are on the picture
    assert np.any(np.all(later == (59, 100, 179), axis=-1))


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_render_test(ruleset, capsys):
    require_ruleset(ruleset)
    from pettingzoo.test import render_test

    from envs.adapters import RiposteAECEnv
    render_test(lambda render_mode=None: RiposteAECEnv(ruleset, render_mode=render_mode,
                                                       max_decisions=40))
    assert "recent events" in capsys.readouterr().out or ruleset == "toy"  # "human" prints


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum) value")
@pytest.mark.filterwarnings("ignore:illegal action ends the episode")
def test_gymnasium_record_video(tmp_path):
    from gymnasium.wrappers import RecordVideo

    register_envs()
    env = gym.make(GYM_ACW_ID, render_mode="rgb_array", max_decisions=30, seat=0)
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda e: True, disable_logger=True)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(env.unwrapped.action_space.sample())
        done = term or trunc
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_gym_rgb_array_and_ansi_side_by_side():
    env = RiposteGymEnv("acw_regimental", seat=1, render_mode="rgb_array")
    before = env.render()  # before reset: the initial table
    env.reset(seed=1)
    img = env.render()
    assert img.shape == before.shape and img.dtype == np.uint8
    text = RiposteGymEnv("acw_regimental", seat=1, render_mode="ansi")
    text.reset(seed=1)
    assert isinstance(text.render(), str) and "Confederate" in text.render()
