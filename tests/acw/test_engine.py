"""Engine tests of the ACW regimental ruleset: complete random games, the shared conformance
suite, JSON and clone round trips, scenario/parameter errors and illegal actions."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.core.chance import sample_chance_outcome
from envs.core.errors import IllegalActionError, ParameterError, ScenarioError
from envs.core.protocol import TERMINAL
from envs.core.replay import ReplayScript, play_labels
from envs.core.testing import run_all
from envs.rulesets import load_game
from envs.core.geometry import Footprint
from envs.rulesets.acw_regimental.arcs import zone_of
from envs.rulesets.acw_regimental.movement import partly_in_arc
from envs.rulesets.acw_regimental.probes import reference_legal_actions, why_no_reaction
from envs.rulesets.acw_regimental.reactions import can_fire_reaction, trigger_zone_clearance

GOLDEN = Path(__file__).parent / "golden"
PHASE_EVENTS = {1, 2, 3, 4, 5}


def _random_game(g, seed: int, aggressive: bool = False):
    rng = np.random.default_rng(seed)
    s = g.new_initial_state()
    labels = g.actions.labels
    prefs = ("charge:", "react:counter", "react:closing", "react:opportunity", "react:refuse",
             "react:evade", "fire:", "advance:all", "reserve:")
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(sample_chance_outcome(s, rng))
            continue
        legal = s.legal_actions()
        assert legal, "empty legal list at a decision"
        a = legal[int(rng.integers(len(legal)))]
        if aggressive:
            for pref in prefs:
                cand = [x for x in legal if labels[x].startswith(pref)]
                if cand and rng.random() < 0.8:
                    a = cand[int(rng.integers(len(cand)))]
                    break
        s.apply_action(a)
    return s


@pytest.fixture(scope="module")
def game():
    return load_game("acw_regimental")


@pytest.mark.slow
def test_random_games_run_to_the_end(game):
    kinds: set[str] = set()
    phases: set[int] = set()
    for i in range(50):
        s = _random_game(game, i)
        assert s.current_player() == TERMINAL
        r = s.returns()
        assert r[0] == -r[1] and r[0] in (-1.0, 0.0, 1.0)
        assert s.events[-1].kind == "game_end"
        kinds |= {e.kind for e in s.events}
        phases |= {e.data["phase"] for e in s.events if e.kind == "phase"}
        assert all(e.rules for e in s.events if e.kind not in ("setup",))
    assert phases == PHASE_EVENTS
    assert {"pips", "reserve", "activate", "move", "fire", "smoke", "game_end"} <= kinds


@pytest.mark.slow
def test_aggressive_games_exercise_every_reaction():
    # the Union-first Two Farms: these eight seeds' games are the ones this test was written on
    # (the default battle's roll-off draws its first dice from the same streams)
    game = load_game("acw_regimental", "two_farms_union_first")
    kinds: set[str] = set()
    reactions: set[str] = set()
    ends: set[str] = set()
    for i in range(8):
        s = _random_game(game, 200 + i, aggressive=True)
        kinds |= {e.kind for e in s.events}
        reactions |= {e.data.get("reaction") for e in s.events if e.kind == "react"}
        ends.add(s.events[-1].data["why"])
    assert {"opportunity_fire", "closing_volley", "evade", "refuse_flank",
            "counter_charge"} <= reactions
    assert {"charge", "contact", "melee", "morale", "window_a", "window_b1", "window_b2",
            "charge_check", "stand_lost", "broken", "retreat", "rally"} <= kinds
    assert "army break" in ends


@pytest.mark.slow
def test_conformance_suite(game):
    out = run_all(lambda: load_game("acw_regimental", None, {"turns": 2}), n_games=3, seed=7,
                  json_every_step=False, clone_games=1, replay_games=1, illegal_games=1,
                  why_illegal_samples=2, observe_every=5)
    assert out["random_games"]["games"] == 3
    assert out["json_round_trips"] > 0 and out["replayed_labels"] > 0


def test_json_round_trip_mid_game(game):
    rng = np.random.default_rng(5)
    s = game.new_initial_state()
    for _ in range(400):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_action(sample_chance_outcome(s, rng))
        else:
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        if s.history and len(s.history) % 97 == 0:
            t = type(s).from_json(s.to_json(), game)
            assert t.to_json() == s.to_json()
            assert t.legal_actions() == s.legal_actions()
            assert str(t.decision_type()) == str(s.decision_type())
            assert np.array_equal(game.observation(t, 0), game.observation(s, 0))


def test_clone_is_independent():
    s = ReplayScript.load(GOLDEN / "example_a.toml").play(upto=3)  # at the B2 window
    before = s.to_json()
    c = s.clone()
    play_labels(c, ["d6=6"] * 5 + ["d6=1"])
    assert s.to_json() == before
    assert c.units[0][0].stands == 0 or c.units[0][0].stands < s.units[0][0].stands
    assert s.units[0][0].stands == 5 and s.units[1][0].smoke == -1


def test_unit_copy_copies_every_slot_and_shares_no_list():
    """``Unit.copy`` (written out field by field for speed) copies every slot of the unit: a
    copy of a unit whose every field holds a distinct value equals it slot by slot, and its
    ``engaged`` list is its own."""
    from envs.rulesets.acw_regimental.units import Unit, new_unit

    unit = new_unit(1, 3, "5th Virginia", "infantry", "rifled_musket", "veteran", 5, "line",
                    10.0, 12.0, 90.0, ("rebel_yell",))
    for index, name in enumerate(Unit.__slots__):
        if name not in ("fp", "traits", "engaged"):
            setattr(unit, name, f"value {index}")
    unit.engaged = [2, 4]
    copy = unit.copy()
    assert [getattr(copy, name) for name in Unit.__slots__] == \
        [getattr(unit, name) for name in Unit.__slots__]
    assert copy.engaged is not unit.engaged and copy.fp is unit.fp
    copy.engaged.append(6)
    assert unit.engaged == [2, 4]


def test_observation_is_egocentric_and_seat_symmetric(game):
    s = game.new_initial_state()
    o0, o1 = game.observation(s, 0), game.observation(s, 1)
    assert o0.shape == (game.observation_size,) and o0.dtype == np.float32
    lay = game.layout
    own0 = lay.view(o0, "own_units")
    own1 = lay.view(o1, "own_units")
    # both sides' first regiments stand 5" / 5" in front of their own edge, facing forward
    assert own0[0, 0] == 1.0 and own1[0, 0] == 1.0
    heading_cols = slice(13, 15)
    assert np.allclose(own0[0, heading_cols], own1[0, heading_cols])  # both face "forward"
    # the same unit seen from the other seat appears mirrored in the enemy block
    en1 = lay.view(o1, "enemy_units")
    assert en1[0, 11] == pytest.approx(1.0 - own0[0, 11])
    assert en1[0, 12] == pytest.approx(1.0 - own0[0, 12])
    assert "Union" in game.observation_string(s, 0)


def test_reaction_window_context_in_observation():
    s = ReplayScript.load(GOLDEN / "example_c.toml").play(upto=2)  # Medium trigger point
    g = s.game
    assert s.decision_type() == "reaction" and s.current_player() == 0
    assert s.legal_labels() == ["react:opportunity_fire", "react:wait_short", "react:decline"]
    o = g.observation(s, 0)
    ctx = g.layout.split(o)
    assert ctx["ctx_unit"][0] == 1.0  # own slot 0 (the Wisconsin) is asked
    assert ctx["ctx_trigger"][g.max_units_per_side + 0] == 1.0  # enemy slot 0 triggered it
    assert ctx["ctx_distance"][0] == pytest.approx(8.0 / 12.0, abs=0.01)
    assert ctx["ctx_kind"][3] == 1.0  # opp_medium


# -- errors -----------------------------------------------------------------------------------
def _write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "bad.toml"
    p.write_text(body)
    return p


UNIT_A = """
[[units]]
side = 0
name = "A"
kind = "infantry"
stands = 5
formation = "line"
x = 10.0
y = 5.0
facing_deg = 90.0
"""
UNIT_B = UNIT_A.replace("side = 0", "side = 1").replace('"A"', '"B"').replace("y = 5.0", "y = 30.0")


def test_scenario_missing_unit_field(tmp_path):
    p = _write(tmp_path, UNIT_A.replace('kind = "infantry"\n', "") + UNIT_B)
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", str(p))
    msg = str(ei.value)
    assert str(p) in msg and "units[0].kind" in msg and "required" in msg.lower()


def test_scenario_unit_off_table(tmp_path):
    p = _write(tmp_path, UNIT_A.replace("x = 10.0", "x = 47.0") + UNIT_B)
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", str(p))
    msg = str(ei.value)
    assert str(p) in msg and "units[0] (A)" in msg and "off the table" in msg


def test_scenario_bad_enum_and_formation(tmp_path):
    p = _write(tmp_path, UNIT_A.replace('"line"', '"phalanx"') + UNIT_B)
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", str(p))
    assert "units[0].formation" in str(ei.value)
    p = _write(tmp_path, UNIT_A.replace('"line"', '"unlimbered"') + UNIT_B)
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", str(p))
    assert "not a formation of infantry" in str(ei.value)


def test_scenario_negative_reserved_pips_are_refused(tmp_path):
    """They loaded and played, and every saved state of the game was then refused."""
    from envs.rulesets.acw_regimental.scenarios import __path__ as where

    text = (Path(where[0]) / "example_b_refuse_flank.toml").read_text(encoding="utf-8")
    assert "reserved = [1, 0]" in text
    p = _write(tmp_path, text.replace("reserved = [1, 0]", "reserved = [-1, 0]"))
    with pytest.raises(ScenarioError, match=r"start\.reserved\[0\]: Input should be greater "
                                            r"than or equal to 0"):
        load_game("acw_regimental", str(p))


def test_unknown_scenario_name():
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", "no_such_battle")
    assert "example_a_closing_volley" in str(ei.value)


def test_param_errors():
    with pytest.raises(ParameterError) as ei:
        load_game("acw_regimental", None, {"turns": "10"})
    assert "turns" in str(ei.value)
    with pytest.raises(ParameterError) as ei:
        load_game("acw_regimental", None, {"pips_fixed": 1})
    assert "pips_fixed" in str(ei.value)
    with pytest.raises(ParameterError) as ei:
        load_game("acw_regimental", None, {"no_such_param": True})
    assert "no_such_param" in str(ei.value)


def test_params_change_identity():
    # the Union-first battle: the default's first chance nodes are its roll-off
    g = load_game("acw_regimental", "two_farms_union_first", {"pips_fixed": True, "turns": 4})
    cfg = g.config()
    assert cfg["params"]["pips_fixed"] is True and cfg["params"]["turns"] == 4
    assert json.loads(json.dumps(cfg)) == cfg
    s = g.new_initial_state()
    assert not s.is_chance_node()  # no pip roll with pips_fixed
    assert s.pips[0] == 3


def test_illegal_action_raises_with_rule():
    s = ReplayScript.load(GOLDEN / "example_a.toml").play(upto=2)  # B2 window of the Virginians
    g = s.game
    with pytest.raises(IllegalActionError) as ei:
        s.apply_action(g.actions.id("react:counter_charge_2"))
    assert "RULE-04-6.4" in str(ei.value) and "react:closing_volley" in str(ei.value)
    with pytest.raises(IllegalActionError):
        s.apply_action(10_000)


def test_counter_charge_needs_reserved_pip(tmp_path):
    # a Rebel Yell regiment charged in its flank: B1 offers Refuse the Flank, but no
    # Counter-Charge without a reserved pip (RULE-04-6.3, I-2)
    body = (UNIT_A.replace("y = 5.0", "y = 14.0").replace("x = 10.0", "x = 24.0")
            + UNIT_B.replace("y = 30.0", "y = 21.0").replace("x = 10.0", "x = 24.0")
            .replace("facing_deg = 90.0", "facing_deg = 0.0")
            .replace('formation = "line"', 'formation = "line"\ntraits = ["rebel_yell"]'))
    body = "[start]\nphase = 2\nactive = 0\npips = 3\n" + body
    p = _write(tmp_path, body)
    g = load_game("acw_regimental", str(p))
    s = g.new_initial_state()
    play_labels(s, ["activate:u0", "charge:e0"])
    assert s.decision_type() == "reaction" and s.current_player() == 1
    assert "react:refuse_1" in s.legal_labels()
    why = s.why_illegal(g.actions.id("react:counter_charge_2"))
    assert why is not None and "RULE-04-6.3" in why.rules


def test_one_reaction_per_unit_and_smoke_blocks_volley():
    s = ReplayScript.load(GOLDEN / "example_c.toml").play(upto=9)  # after the Opportunity Fire
    wis = s.units[0][0]
    assert wis.slot in s.reacted
    why = why_no_reaction(s, "opp_short", wis, "react:opportunity_fire")
    assert "RULE-04-1.4" in why.rules
    rules, _ = can_fire_reaction(wis)
    assert "RULE-04-2.2" in rules and "ACW-PD-32" in rules


def test_fast_activation_legal_list_matches_rule_by_rule_check(game):
    """The fast legal list of an activation equals the label-by-label rule check
    (``probes.reference_legal_actions``), and every masked primitive has a rule-citing
    reason."""
    checked = 0
    for seed in (11, 12):
        rng = np.random.default_rng(seed)
        s = game.new_initial_state()
        while not s.is_terminal() and checked < 150:
            if s.is_chance_node():
                s.apply_action(sample_chance_outcome(s, rng))
                continue
            reference = reference_legal_actions(s)
            if reference is not None:
                assert sorted(s.legal_actions()) == reference
                for a in range(game.num_distinct_actions):
                    if a not in s.legal_actions():
                        w = s.why_illegal(a)
                        assert w is not None and w.rules and w.reason
                checked += 1
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked >= 100


def test_path_and_trigger_shortcuts_are_exact(game, monkeypatch):
    """The exact shortcuts of the movement scan (ACW-PD-21 clipping: ``plan_path``'s ``speed``)
    and of Window A (ACW-PD-24: ``first_crossing``'s ``clear_for``) give the same answer as the
    full 0.25" sample scan on every call made in three random games."""
    import sys

    from envs.core.geometry import first_crossing as real_cross
    from envs.rulesets.acw_regimental.movement import plan_path as real_plan
    # every ruleset module that calls them (the activation, the move, the effects)
    users = [m for name, m in sorted(sys.modules.items())
             if name.startswith("envs.rulesets.acw_regimental") and m is not None]
    calls = {"plan": 0, "plan_fast": 0, "cross": 0}

    def plan_both(*a, **k):
        fast = real_plan(*a, **k)
        slow = real_plan(*a, **{key: v for key, v in k.items() if key != "speed"})
        assert fast == slow
        calls["plan"] += 1
        calls["plan_fast"] += k.get("speed") is not None
        return fast

    def cross_both(f, length, step=0.25, tol=0.01, clear_for=None):
        fast = real_cross(f, length, step, tol, clear_for)
        assert fast == real_cross(f, length, step, tol)
        calls["cross"] += clear_for is not None
        return fast

    patched = 0
    for module in users:
        if getattr(module, "plan_path", None) is real_plan:
            monkeypatch.setattr(module, "plan_path", plan_both)
            patched += 1
        if getattr(module, "first_crossing", None) is real_cross:
            monkeypatch.setattr(module, "first_crossing", cross_both)
    assert patched >= 2  # the activation and the move
    for seed in (21, 22, 23):
        _random_game(game, seed, aggressive=seed == 23)
    assert calls["plan"] > 100 and calls["plan_fast"] > 100 and calls["cross"] > 5


_coord = st.floats(-20.0, 20.0, allow_nan=False).map(lambda v: round(v, 6))
_angle = st.floats(-math.pi, math.pi, allow_nan=False)
_size = st.floats(0.5, 8.0, allow_nan=False).map(lambda v: round(v, 6))
_fps = st.builds(Footprint, _coord, _coord, _angle, _size, _size)


@pytest.mark.slow
@pytest.mark.rule("ACW-PD-24", "ACW-PD-16")
@settings(max_examples=400, deadline=None)
@given(d_fp=_fps, m_fp=_fps, trig=st.sampled_from(["opp_medium", "opp_short", "refuse"]),
       direction=_angle, frac=st.floats(0.0, 1.0), turn=_angle)
def test_trigger_zone_clearance_is_a_lower_bound(d_fp, m_fp, trig, direction, frac, turn):
    """``trigger_zone_clearance`` (the Window A shortcut, ACW-PD-24): a mover whose centre
    travels less than the bound (any direction, any turn about its centre) is still not in the
    defender's forward arc (Opportunity Fire) and its centre not in a flank zone (Refuse the
    Flank); when the zone part already holds, the bound is <= 0."""
    d = SimpleNamespace(fp=d_fp)
    g = trigger_zone_clearance(trig, d, m_fp)
    in_zone = (partly_in_arc(d_fp, m_fp) if trig.startswith("opp")
               else zone_of(d_fp, m_fp.centre()) in ("left", "right"))
    if in_zone:
        assert g <= 0.0
    if g <= 0.0:
        return
    step = frac * g
    moved = m_fp.shifted(step * math.cos(direction), step * math.sin(direction))
    moved = moved.faced(turn)
    if trig.startswith("opp"):
        assert not partly_in_arc(d_fp, moved)
    else:
        assert zone_of(d_fp, moved.centre()) not in ("left", "right")


def test_trigger_zone_clearance_examples():
    """Worked values (inches) of the Window A zone bound: a 4"-wide Line facing +y with its
    front edge centred on the origin, 1" deep."""
    d = SimpleNamespace(fp=Footprint(0.0, 0.0, math.pi / 2, 4.0, 1.0))
    # a 1" x 1" mover centred 10" right of the front edge, level with it: outside the arc by
    # (|lx| - ly - W/2) / sqrt(2) = (10 - 0 - 2) / sqrt(2), less its half-diagonal sqrt(0.5)
    m = Footprint(10.0, 0.5, math.pi / 2, 1.0, 1.0)  # centre (10, 0)
    expect = 8.0 / math.sqrt(2.0) - math.sqrt(0.5) - 1e-6
    assert trigger_zone_clearance("opp_medium", d, m) == pytest.approx(expect, abs=1e-8)
    # that centre is in the right flank zone already: Refuse the Flank may trigger at once
    assert zone_of(d.fp, m.centre()) == "right"
    assert trigger_zone_clearance("refuse", d, m) <= 0.0
    # 6" straight ahead: must leave the arc first, min(ly, (W/2 + ly - |lx|) / sqrt(2)) = 5.66"
    ahead = Footprint(0.0, 6.5, math.pi / 2, 1.0, 1.0)  # centre (0, 6)
    assert trigger_zone_clearance("refuse", d, ahead) == pytest.approx(
        8.0 / math.sqrt(2.0) - 1e-6, abs=1e-8)
    # 3" behind the rear line (ly = -4, D = 1): 3" to the flank zones
    behind = Footprint(0.0, -3.5, math.pi / 2, 1.0, 1.0)  # centre (0, -4)
    assert trigger_zone_clearance("refuse", d, behind) == pytest.approx(3.0 - 1e-6, abs=1e-8)
    assert trigger_zone_clearance("evade", d, behind) == -math.inf


def test_disc_clear_of_woods_and_obstacles():
    """``Terrain.disc_clear``: a disc misses every woods box and obstacle box by > 1e-6"."""
    from envs.rulesets.acw_regimental.movement import Terrain
    terr = Terrain(48.0, 48.0, [[(10.0, 10.0), (14.0, 10.0), (14.0, 14.0), (10.0, 14.0)]],
                   [], [((30.0, 0.0), (30.0, 20.0))], [], [])
    assert terr.disc_clear((20.0, 12.0), 5.0)        # 6" from the wood, 10" from the fence
    assert not terr.disc_clear((20.0, 12.0), 6.0)     # touches the wood's box
    assert not terr.disc_clear((25.0, 30.0), 11.2)    # reaches the fence end (11.18" off)
    assert terr.disc_clear((25.0, 30.0), 11.1)
    assert not terr.disc_clear((12.0, 12.0), 0.0)     # inside the wood


def test_mirrored_position_gives_the_same_unit_pieces(tmp_path):
    """A position and its 180°-rotated twin with the sides swapped look the same from the
    respective seats (egocentric observer)."""
    def unit(side, name, x, y, facing, stands=5):
        return (f'\n[[units]]\nside = {side}\nname = "{name}"\nkind = "infantry"\n'
                f'stands = {stands}\nformation = "line"\nx = {x}\ny = {y}\n'
                f'facing_deg = {facing}\n')
    body = unit(0, "A", 10.0, 6.0, 60.0) + unit(1, "B", 30.0, 25.0, 250.0, 4)
    p = _write(tmp_path, body)
    g = load_game("acw_regimental", str(p))
    s = g.new_initial_state()
    twin = tmp_path / "twin.toml"
    twin.write_text(unit(1, "A", 38.0, 30.0, 240.0) + unit(0, "B", 18.0, 11.0, 70.0, 4))
    g2 = load_game("acw_regimental", str(twin))
    s2 = g2.new_initial_state()
    o = g.layout.split(g.observation(s, 0))
    o2 = g2.layout.split(g2.observation(s2, 1))
    assert np.allclose(o["own_units"], o2["own_units"], atol=1e-5)
    assert np.allclose(o["enemy_units"], o2["enemy_units"], atol=1e-5)


# -- input validation: scenario files, params, serialised states, replay labels ----------------
def _refused(p: Path, *needles: str, params=None) -> str:
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", str(p), params)
    msg = str(ei.value)
    assert str(p) in msg, msg
    for n in needles:
        assert n in msg, msg
    return msg


def test_scenario_not_utf8_is_a_scenario_error(tmp_path):
    p = tmp_path / "b.toml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    _refused(p, "not valid TOML (not UTF-8 text: ")


def test_scenario_start_turn_after_last_turn(tmp_path):
    """``[start] turn`` must be within the ``turns`` parameter (ACW-PD-35)."""
    p = _write(tmp_path, "[start]\nturn = 11\n" + UNIT_A + UNIT_B)
    _refused(p, "start.turn", "turns = 10")
    _refused(p, "start.turn", "turns = 4", params={"turns": 4})
    g = load_game("acw_regimental", str(p), {"turns": 11})  # within a longer game: fine
    assert g.new_initial_state().turn == 11


def test_scenario_units_may_touch_but_not_overlap(tmp_path):
    """Footprints overlapping at setup are refused, friend or foe; base contact is allowed."""
    c = UNIT_A.replace('"A"', '"C"')
    p = _write(tmp_path, UNIT_A + c.replace("x = 10.0", "x = 14.0") + UNIT_B)  # friends overlap
    _refused(p, "units[1] (C)", "overlaps units[0] (A)")
    p = _write(tmp_path, UNIT_A + UNIT_B.replace("y = 30.0", "y = 5.5"))  # foes overlap
    _refused(p, "units[1] (B)", "overlaps units[0] (A)")
    p = _write(tmp_path, UNIT_A + c.replace("x = 10.0", "x = 15.0") + UNIT_B)  # 5" lines touch
    load_game("acw_regimental", str(p))


def test_scenario_weapon_must_fit_the_kind(tmp_path):
    guns = (UNIT_A.replace('"infantry"', '"artillery"').replace('"line"', '"unlimbered"')
            .replace("stands = 5", "stands = 2"))
    p = _write(tmp_path, guns.replace("stands = 2", 'stands = 2\nweapon = "smoothbore"') + UNIT_B)
    _refused(p, "units[0] (A).weapon", "'smoothbore' is not a weapon of artillery")
    p = _write(tmp_path, UNIT_A.replace("stands = 5", 'stands = 5\nweapon = "napoleon"') + UNIT_B)
    _refused(p, "units[0] (A).weapon", "'napoleon' is not a weapon of infantry")
    horse = UNIT_B.replace('"infantry"', '"cavalry"').replace('"line"', '"mounted_line"')
    p = _write(tmp_path, UNIT_A + horse.replace("stands = 5", 'stands = 5\nweapon = "rifle_3in"'))
    _refused(p, "units[1] (B).weapon", "not a weapon of cavalry")
    p = _write(tmp_path, guns.replace("stands = 2", 'stands = 2\nweapon = "rifle_3in"') + UNIT_B)
    load_game("acw_regimental", str(p))


@pytest.mark.parametrize("table,key", [("width = inf", "table.width"),
                                       ("depth = nan", "table.depth")])
def test_scenario_table_size_must_be_finite(tmp_path, table, key):
    p = _write(tmp_path, f"[table]\n{table}\n" + UNIT_A + UNIT_B)
    _refused(p, key, "finite")


@pytest.mark.parametrize("table,key", [("width = 1e300", "table.width"),
                                       ("depth = 145.0", "table.depth")])
def test_scenario_table_is_at_most_12_feet_a_side(tmp_path, table, key):
    """A huge table loaded, played and then broke the drawing (a 57,600-pixel image, or
    none at all)."""
    p = _write(tmp_path, f"[table]\n{table}\n" + UNIT_A + UNIT_B)
    _refused(p, key, "less than or equal to 144")


@pytest.mark.parametrize("terrain,needles", [
    ("[[terrain.woods]]\npolygon = [[1.0, 2.0], [nan, 3.0], [4.0, 4.0]]",
     ("terrain.woods[0].polygon[1][0]", "finite")),
    ("[[terrain.fences]]\npoints = [[5.0, 1.0], [inf, 30.0]]",
     ("terrain.fences[0].points[1][0]", "finite")),
    ("[[terrain.woods]]\nname = \"far\"\nrect = [50.0, 0.0, 60.0, 10.0]",
     ("terrain.woods[0] (far).rect", "entirely off the table")),
    ("[[terrain.rough]]\npolygon = [[-5.0, -5.0], [-1.0, -5.0], [-3.0, 40.0]]",
     ("terrain.rough[0].polygon", "entirely off the table")),
    ("[[terrain.roads]]\npoints = [[-5.0, 1.0], [-1.0, 30.0]]",
     ("terrain.roads[0].points", "entirely off the table")),
    ("[[terrain.woods]]\npolygon = [[1.0, 2.0], [1.0, 2.0], [4.0, 4.0]]",
     ("terrain.woods[0].polygon", "degenerate")),
    ("[[terrain.woods]]\npolygon = [[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]]",
     ("terrain.woods[0].polygon", "degenerate")),
    ("[[terrain.woods]]\nrect = [2.0, 3.0, 2.0, 9.0]", ("terrain.woods[0].rect", "degenerate")),
    ("[[terrain.walls]]\npoints = [[5.0, 1.0], [5.0, 1.0]]",
     ("terrain.walls[0].points", "degenerate")),
])
def test_scenario_bad_terrain_is_refused(tmp_path, terrain, needles):
    p = _write(tmp_path, terrain + "\n" + UNIT_A + UNIT_B)
    _refused(p, *needles)


def test_scenario_terrain_partly_off_the_table_is_fine(tmp_path):
    body = ("[[terrain.woods]]\nrect = [40.0, 20.0, 60.0, 25.0]\n"
            "[[terrain.rough]]\nrect = [-1.0, -1.0, 60.0, 60.0]\n"  # covers the whole table
            "[[terrain.fences]]\npoints = [[-5.0, 10.0], [5.0, 10.0]]\n")
    load_game("acw_regimental", str(_write(tmp_path, body + UNIT_A + UNIT_B)))


@pytest.mark.parametrize("old,new,key", [
    ("stands = 5", 'stands = "5"', "units[0].stands"),
    ("stands = 5", "stands = 5.0", "units[0].stands"),
    ("side = 0", 'side = "0"', "units[0].side"),
    ("x = 10.0", 'x = "10.0"', "units[0].x"),
    ("stands = 5", 'stands = 5\ndisordered = "yes"', "units[0].disordered"),
])
def test_scenario_numbers_are_strict(tmp_path, old, new, key):
    """A number given as a string (or a float for an int) is refused, as for the parameters."""
    p = _write(tmp_path, UNIT_A.replace(old, new) + UNIT_B)
    _refused(p, key)
    p = _write(tmp_path, "[start]\nturn = \"2\"\n" + UNIT_A + UNIT_B)
    _refused(p, "start.turn")


@pytest.mark.parametrize("old,new,key", [("x = 10.0", "x = nan", "units[0].x"),
                                         ("y = 5.0", "y = inf", "units[0].y"),
                                         ("facing_deg = 90.0", "facing_deg = inf",
                                          "units[0].facing_deg")])
def test_scenario_non_finite_unit_position_names_file_and_key(tmp_path, old, new, key):
    """A ScenarioError naming the file and the key, not a bare ParameterError from geometry."""
    p = _write(tmp_path, UNIT_A.replace(old, new) + UNIT_B)
    _refused(p, key, "finite")


@pytest.mark.parametrize("params", [[1, 2], "turns=3", ("turns", 3), {3: 4}])
def test_load_game_params_must_be_a_mapping(params):
    with pytest.raises(ParameterError, match="params must be a mapping of name -> value"):
        load_game("acw_regimental", "default", params=params)


@pytest.mark.parametrize("text,needle", [
    ("{}", "missing key(s) ['game', 'state', 'history', 'events']"),
    ("not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"game": {"ruleset": "acw_regimental"}, "state": {}, "history": [], "events": []}',
     "game: missing key(s) ['scenario', 'params']"),
])
def test_from_json_malformed_text_is_a_named_error(text, needle):
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(text)
    assert needle in str(ei.value)


def test_from_json_malformed_parts_are_named(game):
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State
    doc = json.loads(game.new_initial_state().to_json())
    for bad, needle in ((dict(doc, state={}), "state: missing key 'units'"),
                        (dict(doc, history=[[1]]), "history:"),
                        (dict(doc, events=[{}]), "events: an event is missing the key 'kind'")):
        with pytest.raises(InvalidStateError, match="State.from_json") as ei:
            State.from_json(json.dumps(bad))
        assert needle in str(ei.value)
        with pytest.raises(InvalidStateError):
            State.from_json(bad, game=game)


def test_replay_label_of_the_other_catalogue_is_not_unknown():
    """A chance label at a decision node (or a decision label at a chance node) is a known
    label that is not legal here, not "(unknown label)"; the position and legal labels stay."""
    from envs.core.errors import ReplayError
    game = load_game("acw_regimental", "two_farms_union_first")  # no roll-off before the pips
    s = game.new_initial_state()
    assert s.is_chance_node()  # the Staff Pip roll
    with pytest.raises(ReplayError) as ei:
        play_labels(game.new_initial_state(), ["d6=1", "d6=1"], "s.toml")
    msg = str(ei.value)
    assert msg.startswith("s.toml: action 1 'd6=1' is not legal at this command node (a chance "
                          "outcome label")
    assert "unknown label" not in msg and "legal labels: ['reserve:0'" in msg
    with pytest.raises(ReplayError) as ei:
        play_labels(game.new_initial_state(), ["reserve:0"], "s.toml")
    msg = str(ei.value)
    assert msg.startswith("s.toml: action 0 'reserve:0' is not legal at this chance node (a "
                          "decision label")
    assert "unknown label" not in msg and "legal labels: ['d6=1'" in msg
    with pytest.raises(ReplayError, match=r"\(unknown label\)"):
        play_labels(game.new_initial_state(), ["no_such_label"], "s.toml")


def test_a_state_of_another_ruleset_is_refused_naming_both(game):
    """A state saved by one ruleset and read with another's game is refused naming both (it
    used to be judged by the version alone, named as the reading ruleset's)."""
    from envs import load_game
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    text = game.new_initial_state().to_json()
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(text, game=load_game("skirmish_alert"))
    assert str(ei.value) == ("State.from_json: this state was saved by the 'acw_regimental' "
                             "ruleset and cannot be read by 'skirmish_alert'")


def test_a_state_saved_by_the_previous_version_is_refused_naming_both_versions(game):
    """Version 6 renames state and unit keys (``pt`` -> ``player_turn``, ``s0`` ->
    ``starting_stands`` ...), version 5 added ``at_path_start`` to the Window A frame
    (RULINGS-10), version 4 stored the activation and the move as typed frames, and so on back
    to version 0: a version-5 state is refused with one clear line; replay scripts (labels)
    still play."""
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    assert game.version == 6
    s = game.new_initial_state()
    old = json.loads(s.to_json())
    old["game"]["version"] = 5
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(json.dumps(old))
    msg = str(ei.value)
    assert "saved by acw_regimental version 5" in msg and "read by version 6" in msg
    assert "replay script" in msg
    with pytest.raises(InvalidStateError, match="version 5"):
        State.from_json(old, game=game)
    # the current version reads back
    assert State.from_json(s.to_json()).to_json() == s.to_json()


@pytest.mark.parametrize("version, message", [
    ("4", "State.from_json: game: version must be an integer, got '4'"),
    (4.0, "State.from_json: game: version must be an integer, got 4.0"),
    (True, "State.from_json: game: version must be an integer, got True"),
    (None, "State.from_json: game: missing key 'version' (the ruleset version the state was "
           "saved by)"),
])
def test_a_state_whose_version_is_not_an_integer_is_refused(game, version, message):
    """A version written as a string (or left out) is refused saying so, not as 'version '4'
    cannot be read by version 4' (or silently read as the current version)."""
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    doc = json.loads(game.new_initial_state().to_json())
    if version is None:
        del doc["game"]["version"]
    else:
        doc["game"]["version"] = version
    for g in (None, game):
        with pytest.raises(InvalidStateError) as ei:
            State.from_json(json.dumps(doc), game=g)
        assert str(ei.value) == message


@pytest.mark.parametrize("key, value, message", [
    ("scenario", None, "State.from_json: game: scenario must be a scenario name (a non-empty "
                       "string), got None"),
    ("scenario", 3, "State.from_json: game: scenario must be a scenario name (a non-empty "
                    "string), got 3"),
    ("scenario", " ", "State.from_json: game: scenario must be a scenario name (a non-empty "
                      "string), got ' '"),
    ("params", [], "State.from_json: game: params must be an object, got list"),
])
def test_a_state_whose_game_is_malformed_is_refused(game, key, value, message):
    """``scenario: null`` used to load the default battle for whatever the state held."""
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    doc = json.loads(game.new_initial_state().to_json())
    doc["game"][key] = value
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(json.dumps(doc))
    assert str(ei.value) == message


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(history=[[0.5, 1.7]]), "State.from_json: history[0]: expected a "
                                                "[player, action] pair of integers, got [0.5, 1.7]"),
    (lambda d: d.update(history=[[-1, 1e400]]), "State.from_json: history[0]: expected a "
                                                 "[player, action] pair of integers, got [-1, inf]"),
    (lambda d: d.update(history=[[True, 0]]), "history[0]: expected a [player, action] pair"),
])
def test_a_state_with_non_integer_numbers_is_refused(game, edit, message):
    """Floats used to be truncated (0.5 -> 0) and infinities raised OverflowError."""
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    doc = json.loads(game.new_initial_state().to_json())
    edit(doc)
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(json.dumps(doc))
    assert message in str(ei.value)
    # an infinity where the state wants an integer (the skirmish game's round counter)
    from envs import load_game

    doc = json.loads(load_game("skirmish_alert", None).new_initial_state().to_json())
    doc["state"]["round"] = float("inf")
    with pytest.raises(InvalidStateError, match=r"state: malformed \(OverflowError: "):
        State.from_json(json.dumps(doc))


@pytest.mark.parametrize("key, value, message", [
    ("turn", float("inf"), "'turn' must be an integer in 1..11, got inf"),
    ("turn", 1.5, "'turn' must be an integer in 1..11, got 1.5"),
    ("turn", 0, "'turn' must be an integer in 1..11, got 0"),
    ("turn", 9999, "'turn' must be an integer in 1..11, got 9999"),  # (the game has 10)
    ("player_turn", 10**9, "'player_turn' must be an integer in 0..22, got 1000000000"),
    ("active", True, "'active' must be an integer in 0..1, got True"),
    ("phase", 6, "'phase' must be an integer in 1..5, got 6"),
    ("winner", 2, "'winner' must be an integer in -2..1, got 2"),
    ("decisions_taken", -1, "'decisions_taken' must be an integer >= 0, got -1"),
    ("done", 0, "'done' must be true or false, got 0"),
    ("pips", [1], "'pips' must be a pair of integers >= 0, got [1]"),
    ("reserved", [0, -1], "'reserved' must be a pair of integers >= 0, got [0, -1]"),
    ("result", [float("nan"), 0.0], "'result' must be a pair of finite numbers, got [nan, 0.0]"),
    ("done", True, "'done' is True but 'winner' is -2 (-2 while the game runs, -1 a draw, 0 "
                   "or 1 once it is done)"),
    ("winner", 0, "'done' is False but 'winner' is 0"),
    ("cur", [1.5, "command"], "'cur' must be [player, decision] with player one of [0, 1], -1 "
                              "(chance) or -4 (terminal), got [1.5, 'command']"),
    ("cur", [True, "command"], "'cur' must be [player, decision]"),
    ("cur", [7, "command"], "'cur' must be [player, decision]"),
    ("stack", [], "'stack' must be a non-empty list of procedure frames"),
    ("units", [[], []], "'units' must be 2 lists of 8 unit slots each"),
    ("objective_vp_banked", [1], "'objective_vp_banked' must be a pair of integers >= 0, got [1]"),
    ("reacted", "ab", "'reacted' must be a list of integers, got 'ab'"),
    ("spent_triggers", [[1]], "'spent_triggers' must be a list of [slot, trigger] pairs, "
                              "got [[1]]"),
    ("spent_triggers", ["0:evade"], "'spent_triggers' must be a list of [slot, trigger] pairs"),
    ("broken_this_player_turn", ["x"], "'broken_this_player_turn' must be a list of lists of "
                                       "integers, got ['x']"),
])
def test_a_state_with_a_field_out_of_range_is_refused_naming_it(game, key, value, message):
    """ACW's state fields are checked for type, shape and range (an infinite turn used to
    load; a player of 1.5 or true was read as side 1; an empty stack or unit list
    failed later, in the observation)."""
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    doc = json.loads(game.new_initial_state().to_json())
    doc["state"][key] = value
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(json.dumps(doc))
    assert str(ei.value).startswith(f"State.from_json: state: malformed (ValueError: {message}")


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a": ' + "9" * 5000 + "}"])
def test_json_too_deep_or_with_a_huge_integer_is_refused(text):
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    with pytest.raises(InvalidStateError, match="^State.from_json: not valid JSON: "):
        State.from_json(text)


def test_a_state_of_a_later_version_is_refused_by_its_version_first(game):
    """A later version may add a parameter: its state is refused by version, not by the
    parameter this version does not know (the game config used to be loaded first)."""
    from envs.core.errors import InvalidStateError
    from envs.core.protocol import State

    doc = json.loads(game.new_initial_state().to_json())
    doc["game"]["version"] = game.version + 1
    doc["game"]["params"]["a_rule_of_the_next_version"] = True
    with pytest.raises(InvalidStateError) as ei:
        State.from_json(json.dumps(doc))
    assert str(ei.value).startswith(
        f"State.from_json: this state was saved by acw_regimental version {game.version + 1} "
        f"and cannot be read by version {game.version} (")
