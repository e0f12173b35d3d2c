"""Registration of the rulesets with OpenSpiel: names, parameters, the GameType and GameInfo,
and the refusal of bad input through the game string."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from envs.adapters import openspiel as osa  # noqa: E402
from envs.core.registry import load_game  # noqa: E402

GT = pyspiel.GameType


def test_every_ruleset_is_registered_under_its_short_name():
    names = set(pyspiel.registered_names())
    assert {"riposte_acw_regimental", "riposte_atomic_africa",
            "riposte_skirmish_alert"} <= names


def test_load_game_by_string_plays_the_named_scenario():
    g = pyspiel.load_game("riposte_acw_regimental(scenario=example_a_closing_volley)")
    assert g.riposte.scenario_name == "example_a_closing_volley"
    assert g.get_parameters()["scenario"] == "example_a_closing_volley"
    assert pyspiel.load_game("riposte_acw_regimental").riposte.scenario_name == "default"


def test_ruleset_parameters_by_their_own_names_reach_the_riposte_game():
    g = pyspiel.load_game("riposte_acw_regimental(turns=3,pips_fixed=True,"
                          "opportunity_fire_trigger=9.5)")
    assert (g.riposte.params["turns"], g.riposte.params["pips_fixed"],
            g.riposte.params["opportunity_fire_trigger"]) == (3, True, 9.5)
    aa = pyspiel.load_game("riposte_atomic_africa(range_bands_cm=10.0;20.0;40.0,turns=2,"
                           "range_thresholds=3;4;5;6)")
    assert aa.riposte.params["range_bands_cm"] == [10.0, 20.0, 40.0]
    assert aa.riposte.params["range_thresholds"] == [3, 4, 5, 6]
    assert aa.riposte.turns == 2
    sk = pyspiel.load_game("riposte_skirmish_alert(scenario=duel,rounds=0,"
                           "non_triggering_actions=pass)")
    assert sk.riposte.params["rounds"] is None
    assert tuple(sk.riposte.params["non_triggering_actions"]) == ("pass",)


def test_parameter_specification_lists_scenario_and_every_ruleset_parameter():
    for rs, model in osa._param_models().items():
        spec = pyspiel.load_game(osa.SHORT_NAMES[rs]).get_type().parameter_specification
        assert set(spec) == {"scenario", "prefix", *model.model_fields}
        assert spec["scenario"] == "default"


@pytest.mark.parametrize("ruleset,information,min_players,max_players", [
    ("acw_regimental", GT.Information.PERFECT_INFORMATION, 2, 2),
    ("atomic_africa", GT.Information.IMPERFECT_INFORMATION, 2, 2),
    ("skirmish_alert", GT.Information.PERFECT_INFORMATION, 2, 4),
])
def test_game_type_states_the_truth(ruleset, information, min_players, max_players):
    t = osa.load(ruleset).get_type()
    assert t.dynamics == GT.Dynamics.SEQUENTIAL
    assert t.chance_mode == GT.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == information
    assert t.utility == GT.Utility.ZERO_SUM
    assert t.reward_model == GT.RewardModel.TERMINAL
    assert (t.min_num_players, t.max_num_players) == (min_players, max_players)
    assert t.provides_observation_tensor and t.provides_observation_string
    assert t.provides_information_state_string
    assert t.provides_information_state_tensor == (ruleset == "atomic_africa")


@pytest.mark.parametrize("ruleset,scenario", [("acw_regimental", "default"),
                                              ("atomic_africa", "duel"),
                                              ("skirmish_alert", "ffa3")])
def test_game_info_is_the_riposte_games(ruleset, scenario):
    g = osa.load(ruleset, scenario)
    r = load_game(ruleset, scenario)
    assert g.num_distinct_actions() == r.num_distinct_actions
    assert g.max_chance_outcomes() == r.max_chance_outcomes
    assert g.num_players() == r.num_players
    assert (g.min_utility(), g.max_utility(), g.utility_sum()) == (-1.0, 1.0, 0.0)
    assert g.max_game_length() == r.max_game_length
    assert g.observation_tensor_shape() == [r.observation_size]


def test_three_team_skirmish_has_three_players_and_zero_sum_returns():
    g = osa.load("skirmish_alert", "three_teams")
    assert g.num_players() == 3
    pyspiel.random_sim_test(g, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("text,needle", [
    ("riposte_acw_regimental(scenario=nowhere)", "parameter scenario"),
    ("riposte_acw_regimental(scenario=../default)", "parameter scenario"),
    ("riposte_acw_regimental(bogus=1)", "Unknown parameter 'bogus'"),
    ("riposte_acw_regimental(turns=abc)", "Wrong type for parameter turns"),
    ("riposte_acw_regimental(pips_fixed=1)", "Wrong type for parameter pips_fixed"),
    ("riposte_acw_regimental(opportunity_fire_trigger=8)",
     "Wrong type for parameter opportunity_fire_trigger"),
    ("riposte_acw_regimental(turns=0)", "turns"),
    ("riposte_acw_regimental(opportunity_fire_trigger=20.0)", "opportunity_fire_trigger"),
    ("riposte_atomic_africa(range_bands_cm=1.0;x;3.0)", "parameter range_bands_cm"),
    ("riposte_atomic_africa(range_bands_cm=1.0;2.0)", "range_bands_cm"),
    ("riposte_skirmish_alert(difficulty_mode=sideways)", "difficulty_mode"),
])
def test_bad_game_string_is_refused_naming_the_parameter(text, needle):
    with pytest.raises(pyspiel.SpielError, match=None) as err:
        pyspiel.load_game(text)
    assert needle in str(err.value)


def test_nothing_is_half_registered_when_a_specification_fails(monkeypatch):
    calls = []
    monkeypatch.setattr(osa, "GAME_CLASSES", {})
    monkeypatch.setattr(osa.pyspiel, "register_game", lambda *a: calls.append(a))
    models = osa._param_models()

    def broken(ruleset, model):
        if ruleset == "skirmish_alert":
            raise RuntimeError("scenario folder unreadable")
        return real(ruleset, model)

    real = osa._build_spec
    monkeypatch.setattr(osa, "_build_spec", broken)
    with pytest.raises(RuntimeError, match="unreadable"):
        osa.register_games()
    assert calls == [] and osa.GAME_CLASSES == {}
    assert len(models) == 3


def test_registering_again_is_harmless():
    before = list(pyspiel.registered_names())
    osa.register_games()
    assert list(pyspiel.registered_names()) == before


def test_openspiel_params_round_trip_to_the_same_riposte_game():
    r = load_game("atomic_africa", "duel", {"turns": 2, "range_bands_cm": [10.0, 20.0, 40.0]})
    g = pyspiel.load_game("riposte_atomic_africa", osa.openspiel_params(r))
    assert g.riposte.config() == r.config()


def test_prefix_roots_the_game_at_a_later_state():
    g = pyspiel.load_game("riposte_acw_regimental(scenario=example_a_closing_volley,turns=1,"
                          "prefix=13;62;1)")
    s = g.new_initial_state()
    assert s.history() == [] and [a for _, a in s.riposte.history] == [13, 62, 1]
    assert s.clone().riposte.to_json() == s.riposte.to_json()
    with pytest.raises(pyspiel.SpielError, match="parameter prefix"):
        pyspiel.load_game("riposte_acw_regimental(prefix=9999)")
    with pytest.raises(pyspiel.SpielError, match="parameter prefix"):
        pyspiel.load_game("riposte_acw_regimental(prefix=1;x)")
