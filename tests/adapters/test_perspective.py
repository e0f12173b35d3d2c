"""Perspective tests (aesthetics pitfall 6): whatever the single-agent env returns — observation,
mask, reward — belongs to the learner's side, in both seats, including after an opponent reaction
inside the learner's own activation; the opponent sees its own view."""

from __future__ import annotations

import numpy as np
import pytest

from envs.adapters import RiposteGymEnv
from envs.core.protocol import TERMINAL

from . import RULESETS, require_ruleset


class RecordingOpponent:
    """Checks, at every call, that it is asked on its own side's decision with its own view."""

    name = "recorder"

    def __init__(self, rng_seed: int = 0):
        self.env: RiposteGymEnv | None = None
        self.calls: list[tuple[int, str]] = []
        self.rng = np.random.default_rng(rng_seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        env = self.env
        st = env.state
        side = st.current_player()
        assert side >= 0 and side != env.learner
        assert np.array_equal(obs, env.game.observation(st, side))
        assert mask.dtype == bool and np.array_equal(mask, st.legal_action_mask())
        self.calls.append((side, str(getattr(st.decision_type(), "value", st.decision_type()))))
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])


def check_learner_view(env: RiposteGymEnv, obs: np.ndarray, info: dict, done: bool) -> None:
    st, g, me = env.state, env.game, env.learner
    assert info["side"] == me and info["seat"] == me and info["side_name"] == g.side_names[me]
    assert np.array_equal(obs, g.observation(st, me))
    if done:
        assert not env.action_masks().any()
    else:
        assert st.current_player() == me
        assert np.array_equal(env.action_masks(), st.legal_action_mask())
        assert np.array_equal(info["action_mask"], st.legal_action_mask())


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seat", [0, 1])
def test_everything_returned_belongs_to_the_learner(ruleset, seat):
    require_ruleset(ruleset)
    opp = RecordingOpponent()
    env = RiposteGymEnv(ruleset, seat=seat, opponent=opp)
    opp.env = env
    rng = np.random.default_rng(seat)
    finished = 0
    for episode in range(4 if ruleset == "toy" else 1):
        obs, info = env.reset(seed=100 + episode)
        check_learner_view(env, obs, info, done=False)
        total = 0.0
        while True:
            legal = np.flatnonzero(env.action_masks())
            obs, r, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            total += r
            check_learner_view(env, obs, info, done=term or trunc)
            if term:
                assert env.state.current_player() == TERMINAL
                assert r == env.state.returns()[seat] == info["returns"][seat]
                assert total == env.state.returns()[seat]
                finished += 1
            else:
                assert r == 0.0
            if term or trunc:
                break
    assert opp.calls, "the opponent never decided"
    assert {side for side, _ in opp.calls} == {1 - seat}
    if ruleset == "toy":
        assert finished > 0


@pytest.mark.parametrize("seat", [0, 1])
def test_opponent_reaction_inside_the_learner_activation_toy(seat):
    """Toy: after the learner's 'attack' the reaction window belongs to the other side; the env
    asks the opponent, rolls the die, and returns to the learner's same activation."""
    opp = RecordingOpponent()
    env = RiposteGymEnv("toy", seat=seat, opponent=opp)
    opp.env = env
    env.reset(seed=5)
    while env.state.active != seat:  # wait for the learner's own turn
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    turn = env.state.turn
    n_before = len(env.state.history)
    opp.calls.clear()
    obs, r, term, trunc, info = env.step(env.game.actions.id("attack"))
    new = env.state.history[n_before:]
    assert new[0] == (seat, 0)                                 # the learner's attack
    assert new[1][0] == 1 - seat and new[1][1] in (3, 4)       # the opponent's reaction
    assert new[2][0] == -1                                     # the die
    assert opp.calls == [(1 - seat, "reaction")]
    if not term:
        assert env.state.active == seat and env.state.turn == turn  # same activation
        assert info["decision_type"] == "maneuver"
        check_learner_view(env, obs, info, done=False)


@pytest.mark.parametrize("seat", [0, 1])
def test_learner_reacts_inside_the_opponent_activation_toy(seat):
    """Toy: when the opponent attacks, the learner is handed the reaction window."""
    env = RiposteGymEnv("toy", seat=seat, opponent=lambda obs, mask: 0 if mask[0] else 3)
    obs, info = env.reset(seed=0)
    if seat == 0:  # red (the learner) moves first: pass the turn to blue
        obs, _, _, _, info = env.step(env.game.actions.id("pass"))
    # the always-attacking opponent's attack opens the learner's reaction window
    assert info["decision_type"] == "reaction"
    assert env.state.current_player() == seat and env.state.active == 1 - seat
    assert info["legal_action_labels"] == ["react:dodge", "react:decline"]
    check_learner_view(env, obs, info, done=False)


# -- ACW: the same position seen from the other seat ------------------------------------------------
W, D = 48.0, 36.0  # table (inches)

MIRROR_BASE = {
    "name": "mirror_a",
    "first_side": 0,
    "table": {"width": W, "depth": D},
    "objectives": [{"x": 20.0, "y": 17.0, "name": "crossroads"}],
    "terrain": {"woods": [{"rect": [30.0, 8.0, 40.0, 14.0], "name": "copse"}],
                "fences": [{"points": [[6.0, 20.0], [16.0, 22.0]], "name": "rail"}]},
    "units": [
        {"side": 0, "name": "First", "kind": "infantry", "stands": 5, "formation": "line",
         "x": 14.0, "y": 8.0, "facing_deg": 90.0, "experience": "veteran"},
        {"side": 0, "name": "Guns", "kind": "artillery", "stands": 2, "formation": "unlimbered",
         "x": 26.0, "y": 7.0, "facing_deg": 80.0},
        {"side": 1, "name": "Second", "kind": "infantry", "stands": 4, "formation": "line",
         "x": 30.0, "y": 27.0, "facing_deg": 270.0, "weapon": "smoothbore"},
        {"side": 1, "name": "Horse", "kind": "cavalry", "stands": 3,
         "formation": "mounted_line", "x": 12.0, "y": 29.0, "facing_deg": 255.0},
    ],
}


def rotate_scenario(spec: dict) -> dict:
    """Swap the sides and rotate everything 180 degrees about the table centre."""
    rot = lambda x, y: [W - x, D - y]  # noqa: E731
    out = {"name": "mirror_b", "first_side": 1 - spec["first_side"], "table": spec["table"],
           "objectives": [{**o, "x": W - o["x"], "y": D - o["y"]} for o in spec["objectives"]],
           "terrain": {
               "woods": [{**a, "rect": [W - a["rect"][2], D - a["rect"][3],
                                        W - a["rect"][0], D - a["rect"][1]]}
                         for a in spec["terrain"]["woods"]],
               "fences": [{**f, "points": [rot(*p) for p in f["points"]]}
                          for f in spec["terrain"]["fences"]]},
           "units": [{**u, "side": 1 - u["side"], "x": W - u["x"], "y": D - u["y"],
                      "facing_deg": (u["facing_deg"] + 180.0) % 360.0} for u in spec["units"]]}
    return out


def to_toml(spec: dict) -> str:
    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v + '"'
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return repr(float(v)) if isinstance(v, float) else str(v)

    lines = [f"{k} = {val(v)}" for k, v in spec.items() if not isinstance(v, (dict, list))]
    lines += ["[table]"] + [f"{k} = {val(v)}" for k, v in spec["table"].items()]
    for o in spec["objectives"]:
        lines += ["[[objectives]]"] + [f"{k} = {val(v)}" for k, v in o.items()]
    for kind, items in spec["terrain"].items():
        for it in items:
            lines += [f"[[terrain.{kind}]]"] + [f"{k} = {val(v)}" for k, v in it.items()]
    for u in spec["units"]:
        lines += ["[[units]]"] + [f"{k} = {val(v)}" for k, v in u.items()]
    return "\n".join(lines) + "\n"


def test_acw_mirrored_position_gives_the_same_observation(tmp_path):
    require_ruleset("acw_regimental")
    from envs.rulesets import load_game

    a_path, b_path = tmp_path / "mirror_a.toml", tmp_path / "mirror_b.toml"
    a_path.write_text(to_toml(MIRROR_BASE))
    b_path.write_text(to_toml(rotate_scenario(MIRROR_BASE)))
    ga, gb = load_game("acw_regimental", a_path), load_game("acw_regimental", b_path)
    sa, sb = ga.new_initial_state(), gb.new_initial_state()
    for step in range(150):
        pa, pb = sa.current_player(), sb.current_player()
        assert pb == (pa if pa < 0 else 1 - pa)  # chance/terminal alike, decisions swapped
        for side in (0, 1):
            np.testing.assert_allclose(ga.observation(sa, side), gb.observation(sb, 1 - side),
                                       atol=1e-5, err_msg=f"side {side} after {step} steps")
        if sa.is_terminal():
            break
        if sa.is_chance_node():
            oa, ob = sa.chance_outcomes(), sb.chance_outcomes()
            assert oa == ob
            sa.apply_action(oa[step % len(oa)][0])
            sb.apply_action(ob[step % len(ob)][0])
        else:
            assert np.array_equal(sa.legal_action_mask(), sb.legal_action_mask())
            legal = sa.legal_actions()
            a = legal[(7 * step) % len(legal)]  # deterministic but varied choices
            sa.apply_action(a)
            sb.apply_action(a)
