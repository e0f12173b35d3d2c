"""The conformance suite (envs.core.testing) on the toy ruleset, and on deliberately broken
variants of it: a suite that cannot fail is worthless, so every check is shown to catch the
fault it exists for, with a message that says what is wrong."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from envs.core import Illegality
from envs.core.errors import IllegalActionError, RiposteError
from envs.core.testing import (ConformanceError, check_clone_independence, check_determinism,
                               check_every_legal_action_applies, check_game_static, check_illegal_action_raises,
                               check_json_round_trip, check_random_games, check_replay,
                               game_rng, play_random_game, run_all)
from envs.core.replay import transcript
from tests.toy_ruleset import ToyGame, ToyState


# -- the healthy toy game passes ---------------------------------------------------------------
def test_run_all_passes_on_toy() -> None:
    out = run_all(ToyGame, n_games=150, seed=3)
    rg = out["random_games"]
    assert rg["games"] == 150
    assert rg["decisions"] == sum(rg["decision_types"].values())
    assert set(rg["decision_types"]) == {"maneuver", "reaction"}
    # every attack opens one reaction window and then exactly one d6 roll (TOY rules)
    assert rg["chance_nodes"] == rg["decision_types"]["reaction"]
    assert rg["events"] == rg["chance_nodes"]  # one hit/miss event per roll
    assert sum(rg["returns_histogram"].values()) == 150
    assert set(rg["returns_histogram"]) <= {"1,-1", "-1,1", "0,0"}
    assert len(rg["returns_histogram"]) == 3  # wins, losses and draws all happen
    assert rg["mean_length"] == pytest.approx(rg["decisions"] / 150)
    assert 0 < rg["max_decisions"] <= ToyGame().max_game_length
    assert out["clone_points"] >= 2 * 5
    assert out["json_round_trips"] > 10
    assert out["replayed_labels"] > 0
    assert out["refusals"] > 100
    # one random game: every legal id at every node (2 or 3 decisions, 2 reactions, 6 rolls)
    assert out["legal_actions_applied"] >= 2 * 10
    assert out["pickle_points"] >= 5  # start, maneuver, reaction, chance + evenly spaced cuts


def test_random_games_stats_are_seed_deterministic() -> None:
    a = check_random_games(ToyGame(), 20, seed=11).to_dict()
    b = check_random_games(ToyGame, 20, seed=11).to_dict()
    c = check_random_games(ToyGame(), 20, seed=12).to_dict()
    assert a == b
    assert a != c


def test_run_all_on_non_default_params() -> None:
    out = run_all(lambda: ToyGame(params={"turns": 2, "hp": 1}), n_games=30, seed=0)
    assert out["random_games"]["max_decisions"] <= 2 * 2 * 30


def test_play_random_game_reproduces_a_suite_game() -> None:
    g = ToyGame()
    s1 = play_random_game(g, game_rng(5, 2))
    s2 = play_random_game(g, game_rng(5, 2))
    assert s1.is_terminal()
    assert transcript(s1) == transcript(s2)


def test_check_determinism_restores_global_rngs() -> None:
    random.seed(123)
    np.random.seed(123)
    expected = (random.random(), np.random.random())
    random.seed(123)
    np.random.seed(123)
    check_determinism(ToyGame, seed=1)
    assert (random.random(), np.random.random()) == expected


# -- broken variants -----------------------------------------------------------------------------
class _Broken(ToyState):
    """Base of the broken toy states: keeps its class through clone() and from_json()."""

    def clone(self) -> "ToyState":
        c = super().clone()
        c.__class__ = type(self)
        return c


def _game_of(state_cls: type[ToyState], **game_attrs: Any) -> ToyGame:
    class G(ToyGame):
        def new_initial_state(self) -> ToyState:
            return state_cls(self)

        def state_from_dict(self, data: dict[str, Any]) -> ToyState:
            s = super().state_from_dict(data)
            s.__class__ = state_cls
            return s

    g = G()
    for k, v in game_attrs.items():
        setattr(g, k, v)
    return g


class ChanceSumsTo09(_Broken):
    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 0.15) for i in range(6)]


class ChanceZeroProbability(_Broken):
    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 0.2) for i in range(5)] + [(5, 0.0)]


class ChanceDuplicateIds(_Broken):
    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 1 / 6) for i in range(5)] + [(0, 1 / 6)]


class MaskDisagrees(_Broken):
    def legal_action_mask(self) -> np.ndarray:
        m = super().legal_action_mask()
        if self.phase == "act":
            m[4] = True  # react:decline offered outside the reaction window
        return m


class MaskWrongDtype(_Broken):
    def legal_action_mask(self) -> np.ndarray:
        return super().legal_action_mask().astype(np.int8)


class LegalUnsorted(_Broken):
    def _legal_actions(self) -> list[int]:
        return sorted(super()._legal_actions(), reverse=True)


class LegalEmpty(_Broken):
    def _legal_actions(self) -> list[int]:
        return [] if self.turn == 2 and self.active == 1 else super()._legal_actions()


class WhyIllegalEmptyReason(_Broken):
    def _why_illegal(self, action: int) -> Illegality:
        return Illegality(("TOY-1",), "")


class WhyIllegalForLegal(_Broken):
    def why_illegal(self, action: int) -> Illegality | None:
        return Illegality(("TOY-1",), "always illegal")


class UnknownDecisionType(_Broken):
    def decision_type(self) -> str:
        return "bargain" if self.phase == "react" else super().decision_type()


class NotZeroSum(_Broken):
    def returns(self) -> list[float]:
        r = super().returns()
        return [r[0], 0.0] if self.phase == "over" else r


class RewardBeforeEnd(_Broken):
    def returns(self) -> list[float]:
        return [0.5, -0.5] if self.turn == 1 and self.phase != "over" else super().returns()


class NeverEnds(_Broken):
    def _apply_action(self, action: int) -> None:
        super()._apply_action(action)
        if self.phase == "over":
            self.phase = "act"
            self.hp = [self.game.hp, self.game.hp]


class Crashes(_Broken):
    def _apply_action(self, action: int) -> None:
        if self.turn == 3 and action == 2:
            raise KeyError("unit 7")
        super()._apply_action(action)


class CloneSharesList(_Broken):
    def clone(self) -> "ToyState":
        c = super().clone()
        c.hp = self.hp  # shares the hit-point list
        return c


class CloneForgetsRested(_Broken):
    def clone(self) -> "ToyState":
        c = super().clone()
        c.rested = False
        return c


class JsonDropsDodged(_Broken):
    def _to_dict(self) -> dict[str, Any]:
        d = super()._to_dict()
        d["dodged"] = False
        return d


class GlobalRandomFatigue(_Broken):
    """Ending a turn costs a hit point on a coin flip of the *global* generator."""

    def _apply_action(self, action: int) -> None:
        if self.phase == "act" and action == 2 and random.random() < 0.5:
            self.hp[self.active] = max(1, self.hp[self.active] - 1)
        super()._apply_action(action)


_COUNTER = [0]


class EventsCountGlobally(_Broken):
    """Events carry a process-wide counter: a replay cannot reproduce them."""

    def _apply_action(self, action: int) -> None:
        _COUNTER[0] += 1
        super()._apply_action(action)
        self.log("serial", (), f"serial number {_COUNTER[0]}", None, serial=_COUNTER[0])


class AcceptsMaskedAction(_Broken):
    def apply_action(self, action: int) -> None:
        if isinstance(action, (int, np.integer)) and 0 <= int(action) < 5 \
                and self.current_player() >= 0:
            self.apply_action_unchecked(int(action))
            return
        super().apply_action(action)


class RefusalMutatesState(_Broken):
    def apply_action(self, action: int) -> None:
        if not isinstance(action, (int, np.integer)) or action not in self.legal_actions():
            self.rested = not self.rested
        super().apply_action(action)


class VagueRefusal(_Broken):
    def apply_action(self, action: int) -> None:
        try:
            super().apply_action(action)
        except IllegalActionError:
            raise IllegalActionError("no") from None


class OffersRestItCannotTake(_Broken):
    """The mask offers ``rest`` at full hit points, but the engine refuses to overheal."""

    def _legal_actions(self) -> list[int]:
        return [3, 4] if self.phase == "react" else [0, 1, 2]

    def _apply_action(self, action: int) -> None:
        if self.phase == "act" and action == 1 and self.hp[self.active] >= self.game.hp:
            raise ValueError("cannot rest at full strength")
        super()._apply_action(action)


class EventWithoutRuleText(_Broken):
    def _apply_action(self, action: int) -> None:
        super()._apply_action(action)
        if action == 1 and self.phase == "act":
            self.log("heal", ("",), "rested")


BROKEN: list[tuple[str, Any, Any, str]] = [
    ("chance 0.9", ChanceSumsTo09, check_random_games, "sum to 0.9"),
    ("chance p=0", ChanceZeroProbability, check_random_games, "has probability 0.0"),
    ("chance dup", ChanceDuplicateIds, check_random_games, "duplicate chance outcome ids [0]"),
    ("mask", MaskDisagrees, check_random_games, "disagrees with legal_actions()"),
    ("mask dtype", MaskWrongDtype, check_random_games, "must be a bool array"),
    ("unsorted", LegalUnsorted, check_random_games, "not sorted and unique"),
    ("empty legal", LegalEmpty, check_random_games, "must be a non-empty list"),
    ("why reason", WhyIllegalEmptyReason, check_random_games, "has an empty reason"),
    ("why legal", WhyIllegalForLegal, check_random_games, "for a legal action (must be None)"),
    ("decision type", UnknownDecisionType, check_random_games, "'bargain' not in game.decision_types"),
    ("zero-sum", NotZeroSum, check_random_games, "are not zero-sum"),
    ("early reward", RewardBeforeEnd, check_random_games, "before the end (must be zeros)"),
    ("no end", NeverEnds, check_random_games, "no end after max_game_length=360 decisions"),
    ("crash", Crashes, check_random_games, "engine raised KeyError: 'unit 7'"),
    ("event rule", EventWithoutRuleText, check_random_games, "rule ids must be non-empty"),
    ("legal crashes", OffersRestItCannotTake, check_every_legal_action_applies,
     "applying the legal 'rest' raised ValueError: cannot rest at full strength"),
    ("clone shares", CloneSharesList, check_clone_independence, "/state/hp["),
    ("clone lossy", CloneForgetsRested, check_clone_independence, "differs from the original"),
    ("json lossy", JsonDropsDodged, check_json_round_trip,
     "applying 'd6=4' gives a different state than on the original: /events[0]/kind: 'miss' -> 'hit'"),
    ("global rng", GlobalRandomFatigue, check_determinism, "same seed"),
    ("replay", EventsCountGlobally, check_replay, "different state: /events["),
    ("accepts masked", AcceptsMaskedAction, check_illegal_action_raises, "was accepted"),
    ("refusal mutates", RefusalMutatesState, check_illegal_action_raises, "changed the state"),
    ("vague refusal", VagueRefusal, check_illegal_action_raises, "does not name"),
]


@pytest.mark.parametrize("state_cls,check,expected", [b[1:] for b in BROKEN],
                         ids=[b[0] for b in BROKEN])
def test_suite_catches_broken_game(state_cls: type[ToyState], check: Any, expected: str) -> None:
    g = _game_of(state_cls)
    with pytest.raises(ConformanceError) as ei:
        if check is check_random_games:
            check(g, 60, 0)
        else:
            check(g, 0)
    msg = str(ei.value)
    assert expected in msg, msg
    assert msg.startswith(f"[{check.__name__} seed=0")
    assert isinstance(ei.value, RiposteError)


@pytest.mark.slow
@pytest.mark.parametrize("state_cls,check,expected", [b[1:] for b in BROKEN],
                         ids=[b[0] for b in BROKEN])
def test_run_all_catches_broken_game(state_cls: type[ToyState], check: Any, expected: str) -> None:
    with pytest.raises(ConformanceError):
        run_all(lambda: _game_of(state_cls), n_games=60, seed=0)


def test_error_carries_seed_step_and_replayable_labels() -> None:
    g = _game_of(ChanceSumsTo09)
    with pytest.raises(ConformanceError) as ei:
        check_random_games(g, 5, seed=4)
    e = ei.value
    assert (e.seed, e.game_index) == (4, 0)
    assert e.step == len(e.labels) > 0
    assert e.labels[-1] == "react:dodge" or e.labels[-1] == "react:decline"  # a roll follows
    assert "last labels:" in str(e) and repr(e.labels[-1]) in str(e)
    # the labels replay on a healthy game to the same node
    from envs.core.replay import play_labels
    s = play_labels(ToyGame().new_initial_state(), e.labels)
    assert s.is_chance_node()


def test_float64_observation_is_caught() -> None:
    class G(ToyGame):
        def observation(self, state: ToyState, side: int) -> np.ndarray:
            return super().observation(state, side).astype(np.float64)

    with pytest.raises(ConformanceError, match=r"dtype float64; expected \(8,\) float32"):
        check_random_games(G(), 1, 0)


def test_nan_observation_is_caught() -> None:
    class G(ToyGame):
        def observation(self, state: ToyState, side: int) -> np.ndarray:
            v = super().observation(state, side)
            v[2] = np.nan
            return v

    with pytest.raises(ConformanceError, match=r"non-finite entries at \[2\]"):
        check_random_games(G(), 1, 0)


def test_shaped_returns_may_leave_unit_range_but_stay_zero_sum() -> None:
    class Big(_Broken):
        def returns(self) -> list[float]:
            return [3 * x for x in super().returns()]

    g = _game_of(Big)
    with pytest.raises(ConformanceError, match=r"outside \[-1, 1\]"):
        check_random_games(g, 30, 0)
    stats = check_random_games(g, 30, 0, shaped=True)
    assert set(stats.returns_histogram) <= {"3,-3", "-3,3", "0,0"}
    g.params = {**g.params, "shaped_reward": True}
    assert check_random_games(g, 30, 0).returns_histogram == stats.returns_histogram


def test_static_checks() -> None:
    check_game_static(ToyGame())
    with pytest.raises(ConformanceError, match="has 1 names for num_players=2"):
        check_game_static(_game_of(ToyState, side_names=("red",)))
    with pytest.raises(ConformanceError, match="lacks 'chance'"):
        check_game_static(_game_of(ToyState, decision_types=("terminal", "maneuver", "reaction")))
    with pytest.raises(ConformanceError, match="max_game_length=0"):
        check_game_static(_game_of(ToyState, max_game_length=0))


def test_seed_without_effect_is_caught() -> None:
    class Forced(_Broken):
        def _legal_actions(self) -> list[int]:
            return [4] if self.phase == "react" else [2]

    g = _game_of(Forced)
    with pytest.raises(ConformanceError, match="the seed has no effect"):
        check_determinism(g, 0)


# -- across processes ---------------------------------------------------------------------------
_REGISTER_TOY = ("from envs.rulesets import REGISTRY\n"
                 "REGISTRY.setdefault('toy', 'tests.toy_ruleset:ToyGame')\n")


@pytest.mark.slow
def test_cross_process_determinism_on_toy() -> None:
    from envs.core.testing import check_cross_process_determinism

    digests = check_cross_process_determinism("toy", params={"turns": 3}, seed=2, n_games=2,
                                              preamble=_REGISTER_TOY)
    assert len(digests) == 2 and digests[0] != digests[1]


@pytest.mark.slow
def test_cross_process_determinism_catches_hash_order() -> None:
    from envs.core.testing import check_cross_process_determinism

    # a ruleset whose first player is picked by iterating a set of strings
    preamble = _REGISTER_TOY + (
        "import tests.toy_ruleset as t\n"
        "_init = t.ToyState.__init__\n"
        "def _hashy(self, game):\n"
        "    _init(self, game)\n"
        "    self.active = ['red', 'blue'].index(next(iter({'red', 'blue'})))\n"
        "t.ToyState.__init__ = _hashy\n")
    with pytest.raises(ConformanceError, match="depends on hash order"):
        check_cross_process_determinism("toy", seed=0, n_games=2, preamble=preamble,
                                        hash_seeds=(0, 1, 2, 3, 4, 5))


# -- states pickle (check_pickle_round_trip) ------------------------------------------------------
class HoldsClosure(_Broken):
    """Memoises a local closure in a plain attribute: the state no longer pickles."""

    def _apply_action(self, action: int) -> None:
        super()._apply_action(action)
        hp = list(self.hp)
        self.memo = lambda: hp


class CachesClosure(HoldsClosure):
    """The same closure declared transient: pickling drops it and the copy plays on."""

    _transient_attrs = ("memo",)
    memo = None


class PickleForgetsRested(_Broken):
    def __getstate__(self) -> dict[str, Any]:
        d = super().__getstate__()
        d["rested"] = False
        d["hp"] = [self.game.hp] * len(self.hp)  # and heals the wounded
        return d


class _PicklableGame(ToyGame):
    """A module-level game (``_game_of`` builds local classes, which cannot be pickled)."""

    state_cls: type[ToyState] = ToyState

    def new_initial_state(self) -> ToyState:
        return self.state_cls(self)


class _HoldsClosureGame(_PicklableGame):
    state_cls = HoldsClosure


class _CachesClosureGame(_PicklableGame):
    state_cls = CachesClosure


class _PickleForgetsRestedGame(_PicklableGame):
    state_cls = PickleForgetsRested


class MemoisesOnGame(ToyState):
    """Memoises a pure answer (hit points seen -> turn) in a cache dict on the game, like
    Atomic Africa's line-of-sight memo."""

    def _apply_action(self, action: int) -> None:
        super()._apply_action(action)
        self.game.memo.setdefault((tuple(self.hp), self.turn), self.turn)


class _UndeclaredCacheGame(_PicklableGame):
    state_cls = MemoisesOnGame

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.memo: dict = {}


class _DeclaredCacheGame(_UndeclaredCacheGame):
    _cache_attrs = ("memo",)


def test_game_caches_pickle_empty() -> None:
    """A declared cache rides along empty (the original keeps it); play on is identical."""
    import pickle

    from envs.core.testing import check_pickle_round_trip

    g = _DeclaredCacheGame()
    assert check_pickle_round_trip(g, seed=1, n_games=3) >= 3 * 5
    assert len(g.memo) > 3
    copy = pickle.loads(pickle.dumps(g.new_initial_state()))
    assert copy.game.memo == {} and len(g.memo) > 3
    assert len(pickle.dumps(g)) == len(pickle.dumps(_DeclaredCacheGame()))


def test_undeclared_game_cache_is_caught() -> None:
    from envs.core.testing import check_pickle_round_trip

    with pytest.raises(ConformanceError, match=r"the pickled game grew from \d+ to \d+ bytes "
                                               r"over 3 games.*_UndeclaredCacheGame\._cache_attrs"):
        check_pickle_round_trip(_UndeclaredCacheGame(), seed=1, n_games=3)


def test_pickle_round_trip_passes_and_covers_every_node_kind() -> None:
    from envs.core.testing import check_pickle_round_trip

    assert check_pickle_round_trip(ToyGame(), seed=2, n_games=3, cuts_per_game=4) >= 3 * 5
    assert check_pickle_round_trip(_CachesClosureGame(), seed=2, n_games=2) >= 2 * 5


@pytest.mark.parametrize("game_cls, expected", [
    (_HoldsClosureGame, "cannot be pickled or deep-copied: "),
    (_PickleForgetsRestedGame, "copy made at step"),
])
def test_pickle_round_trip_catches(game_cls: type[ToyGame], expected: str) -> None:
    from envs.core.testing import check_pickle_round_trip

    with pytest.raises(ConformanceError) as ei:
        check_pickle_round_trip(game_cls(), seed=0, n_games=3)
    assert expected in str(ei.value) and str(ei.value).startswith(
        "[check_pickle_round_trip seed=0 game=")
