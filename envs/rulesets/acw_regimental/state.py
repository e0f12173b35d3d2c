"""The ACW regimental state (seed 003 + acw_fillins.md, RULINGS items 1-10).

The game is driven by a stack of typed, JSON-serialisable frames (:mod:`envs.core.procedure`):
the frame on top runs until it names what happens next — a decision of one side (``Wait``),
one die (the core :class:`envs.core.frames.RollDice`: every d6 is its own chance node), child
frames to run first (``Push``) or its own end (``Done``). The frames, one module each, are in
:mod:`.procedures`: the player-turn cycle (ACW-PD-12, turn count ACW-PD-35, army break and
victory ACW-PD-36), the five phases — Command (ACW-PD-13..15), Maneuver (ACW-PD-12), Ranged
Combat (ACW-PD-25b), Melee (ACW-PD-26), End (ACW-PD-27, PD-32) — a unit's activation and its
movement primitives (ACW-PD-21) stopping at each Window A trigger point (ACW-PD-24), the charge
with Windows B1 and B2 (ACW-PD-23), volleys (ACW-PD-25), the winner's advance (ACW-PD-26) and
Passage of Lines tests (ACW-PD-29). The reactions are in :mod:`.reactions`.
"""

from __future__ import annotations

import math
from typing import Any, Literal, cast

from envs.core.errors import InvalidStateError
from envs.core.observer import ObservationLayout
from envs.core.procedure import ChanceNode, Done, Frame, Push, Step, Wait, frame_from_dict
from envs.core.protocol import CHANCE, TERMINAL, Game, Illegality, State
from envs.core.reactions import Cost

from .actions import ACWDecision, Ids
from .movement import Terrain
from .params import ScenarioSpec
from .units import Unit

D_CHANCE = ACWDecision.CHANCE
D_TERM = ACWDecision.TERMINAL

SIDE = ("Union", "Confederate")


def _int_bounds(game: Any) -> dict[str, tuple[int, int | None]]:
    """The range of each integer field of a saved state of ``game`` (inclusive; None: no
    upper bound): a game ends after its last turn, so ``turn`` reaches ``turns + 1``."""
    return {"first": (0, 1), "active": (0, 1), "turn": (1, game.turns + 1),
            "player_turn": (0, 2 * (game.turns + 1)), "phase": (1, 5),
            "decisions_taken": (0, None),
            "winner": (-2, 1)}


def _is_int_list(value: Any, kind: type = int) -> bool:
    return isinstance(value, list) and all(type(x) is kind for x in value)


def _is_count_pair(value: Any) -> bool:
    """A pair of integers >= 0 (pips, reserved pips, banked VP)."""
    return _is_int_list(value) and len(value) == 2 and min(value) >= 0


def _check_fields(game: Any, data: dict[str, Any]) -> None:
    """Refuse a saved state whose fields have the wrong type, shape or range (an infinity or
    ``1.5`` where a turn belongs, ``true`` where a side belongs, a turn past the game's end,
    a finished game without a winner), before any of it is used.

    Raises:
        ValueError: naming the key, the value and what it must be.
    """
    units = data["units"]
    slots = game.max_units_per_side
    if not isinstance(units, list) or len(units) != game.num_players or any(
            not isinstance(side, list) or len(side) != slots for side in units):
        raise ValueError(f"'units' must be {game.num_players} lists of {slots} unit slots each")
    for key, (low, high) in _int_bounds(game).items():
        value = data[key]
        if type(value) is not int or value < low or (high is not None and value > high):
            rng = f">= {low}" if high is None else f"in {low}..{high}"
            raise ValueError(f"{key!r} must be an integer {rng}, got {value!r}")
    if type(data["done"]) is not bool:
        raise ValueError(f"'done' must be true or false, got {data['done']!r}")
    for key in ("pips", "reserved"):
        if not _is_count_pair(data[key]):
            raise ValueError(f"{key!r} must be a pair of integers >= 0, got {data[key]!r}")
    value = data["result"]
    if not isinstance(value, list) or len(value) != 2 or any(
            isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x)
            for x in value):
        raise ValueError(f"'result' must be a pair of finite numbers, got {value!r}")
    if (data["winner"] != -2) != data["done"]:
        raise ValueError(f"'done' is {data['done']!r} but 'winner' is {data['winner']!r} "
                         f"(-2 while the game runs, -1 a draw, 0 or 1 once it is done)")
    cur = data["cur"]
    if not isinstance(cur, list) or len(cur) != 2 or type(cur[0]) is not int \
            or cur[0] not in (CHANCE, TERMINAL, *range(game.num_players)):
        raise ValueError(f"'cur' must be [player, decision] with player one of "
                         f"{list(range(game.num_players))}, {CHANCE} (chance) or {TERMINAL} "
                         f"(terminal), got {cur!r}")
    if not isinstance(data["stack"], list) or not data["stack"]:
        raise ValueError("'stack' must be a non-empty list of procedure frames")
    banked = data.get("objective_vp_banked", [0, 0])
    if not _is_count_pair(banked):
        raise ValueError(f"'objective_vp_banked' must be a pair of integers >= 0, got "
                         f"{banked!r}")
    if not _is_int_list(data["reacted"]):
        raise ValueError(f"'reacted' must be a list of integers, got {data['reacted']!r}")
    spent = data["spent_triggers"]
    if not isinstance(spent, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int
            and isinstance(pair[1], str) for pair in spent):
        raise ValueError(f"'spent_triggers' must be a list of [slot, trigger] pairs, got "
                         f"{spent!r}")
    broken = data["broken_this_player_turn"]
    if not isinstance(broken, list) or not all(_is_int_list(pair) for pair in broken):
        raise ValueError(f"'broken_this_player_turn' must be a list of lists of integers, got "
                         f"{broken!r}")


class ACWGameData(Game["ACWState"]):
    """The ACW game as its state and rules read it: the parameters, scenario, terrain and units
    that :class:`~.game.ACWGame` (its one subclass) sets up, and the two calls the state makes
    of it. Declared here, beside the state, because the game module imports the state."""

    params: dict[str, Any]
    max_units_per_side: int
    pips_fixed: bool
    turns: int
    own_fire_blocks_reactions: bool
    phase3_six_all: bool
    cavalry_charge_12: bool
    morale_cascade: bool
    shaped_reward: bool
    max_decisions: int
    counter_charge_cost: int
    opportunity_fire_trigger: float
    spec: ScenarioSpec
    first_side: int | Literal["roll_off"]
    ids: Ids
    terrain: Terrain
    objectives: list[tuple[float, float]]
    objective_vp: int
    objectives_score: Literal["end", "each_turn", "after_enemy_turn"]
    initial_units: list[Unit]
    units_at_start: list[int]
    layout: ObservationLayout

    def opening_frames(self, roll_off: bool) -> list[Frame[Any]]:
        """The stack a new game starts with."""
        raise NotImplementedError

    def end_game(self, state: ACWState, why: str, winner: int | None = None) -> None:
        """End ``state``'s game now, scored on victory points (ACW-PD-36)."""
        raise NotImplementedError


class ACWState(State):
    """Dynamic state of one ACW regimental game (see the module docstring)."""

    game: ACWGameData


    # transient caches, never serialised (class-level defaults):
    # ``_pending_legal``: the legal list ``_advance`` computed for the waiting frame;
    # ``_lact_pred``: ``(unit, footprint, predicate)``, the clipping predicate the activation's
    # legal list was computed with; ``_handoff``: the same, while that decision is applied
    # (see :func:`.blocking.blocked_fn`); ``_bcache``: the latest predicate built there.
    # ``clone`` carries the legal list and ``_lact_pred`` over (a copy is the same state, with
    # no hidden part: a search's copies need not rebuild what their original has)
    _pending_legal: list[int] | None = None
    _lact_pred: tuple | None = None
    _handoff: tuple | None = None
    _bcache: tuple | None = None
    _transient_attrs = ("_pending_legal", "_lact_pred", "_handoff", "_bcache")

    # ------------------------------------------------------------------------------------------
    # construction, copy, serialisation
    # ------------------------------------------------------------------------------------------
    def __init__(self, game: ACWGameData, init: bool = True):
        super().__init__(game)
        if not init:
            return
        slots = game.max_units_per_side
        self.units: list[list[Unit | None]] = [[None] * slots, [None] * slots]
        for unit in game.initial_units:
            self.units[unit.side][unit.slot] = unit.copy()
        start = game.spec.start
        roll_off = game.first_side == "roll_off" and start.active is None
        # a roll-off (ACW-PD-11) decides the first side at the first chance nodes; until then
        # side 0 stands in for it (no decision is asked before the roll)
        self.first = 0 if game.first_side == "roll_off" else game.first_side
        self.active = start.active if start.active is not None else self.first
        self.turn = start.turn
        self.player_turn = 0 if self.active == self.first else 1
        self.phase = start.phase
        self.pips = [0, 0]
        self.reserved = list(start.reserved)
        self.decisions_taken = 0
        self.done = False
        self.result = [0.0, 0.0]
        self.winner = -2  # -2 running, -1 draw, 0/1 winner
        self.reacted: list[int] = []
        #: Window A triggers spent in the current activation: ``(defender slot, trigger)``
        self.spent_triggers: list[tuple[int, str]] = []
        self.broken_this_player_turn: list[list[int]] = []
        self.objective_vp_banked = [0, 0]  # scoring "each_turn" (scenario [scoring])
        if start.phase == 2:
            self.pips[self.active] = start.pips
        # the player-turn cycle, started where the scenario starts (the game builds it: the
        # procedures sit above this module)
        self.stack: list[Frame] = game.opening_frames(roll_off)
        self.cur = (TERMINAL, D_TERM)
        first = ("a roll-off decides who moves first" if roll_off
                 else f"{SIDE[self.active]} moves first")
        self.log("setup", ("ACW-PD-37", "ACW-PD-11"),
                 f"scenario {game.scenario_name}: {first}, turn {self.turn}",
                 None, scenario=game.scenario_name)
        self._advance()

    def clone(self) -> "ACWState":
        s = ACWState.__new__(ACWState)
        s.game = self.game
        self._copy_base_into(s)
        s.units = [[u.copy() if u is not None else None for u in side] for side in self.units]
        s.first, s.active, s.turn = self.first, self.active, self.turn
        s.player_turn, s.phase = self.player_turn, self.phase
        s.pips = list(self.pips)
        s.reserved = list(self.reserved)
        s.decisions_taken, s.done, s.winner = self.decisions_taken, self.done, self.winner
        s.result = list(self.result)
        s.reacted = list(self.reacted)
        s.spent_triggers = list(self.spent_triggers)
        s.broken_this_player_turn = [list(b) for b in self.broken_this_player_turn]
        s.objective_vp_banked = list(self.objective_vp_banked)
        s.stack = [frame.copy() for frame in self.stack]
        s.cur = self.cur
        if self._legal_cache is not None:
            s._legal_cache = list(self._legal_cache)
        if self._pending_legal is not None:
            s._pending_legal = self._pending_legal
        pred = self._lact_pred
        if pred is not None:  # the copy's unit in that slot, the same footprint and predicate
            s._lact_pred = (s.units[pred[0].side][pred[0].slot], pred[1], pred[2])
        return s

    def _to_dict(self) -> dict[str, Any]:
        d = self._to_dict_base()
        if self.game.objectives_score != "end":
            d["objective_vp_banked"] = list(self.objective_vp_banked)
        return d

    def _to_dict_base(self) -> dict[str, Any]:
        return {"units": [[u.to_dict() if u is not None else None for u in side]
                          for side in self.units],
                "first": self.first, "active": self.active, "turn": self.turn,
                "player_turn": self.player_turn,
                "phase": self.phase, "pips": list(self.pips), "reserved": list(self.reserved),
                "decisions_taken": self.decisions_taken, "done": self.done, "winner": self.winner,
                "result": list(self.result), "reacted": list(self.reacted),
                "spent_triggers": [list(pair) for pair in self.spent_triggers],
                "broken_this_player_turn": [list(pair)
                                            for pair in self.broken_this_player_turn],
                "stack": [frame.to_dict() for frame in self.stack],
                "cur": [self.cur[0], str(self.cur[1].value)]}

    @classmethod
    def from_dict(cls, game: Any, data: dict[str, Any]) -> "ACWState":
        s = cls(game, init=False)
        _check_fields(game, data)
        s.units = [[Unit.from_dict(u) if u is not None else None for u in side]
                   for side in data["units"]]
        for k in ("first", "active", "turn", "player_turn", "phase", "decisions_taken", "done",
                  "winner"):
            setattr(s, k, data[k])
        s.pips = list(data["pips"])
        s.reserved = list(data["reserved"])
        s.result = list(data["result"])
        s.reacted = list(data["reacted"])
        s.spent_triggers = [(slot, trigger) for slot, trigger in data["spent_triggers"]]
        s.broken_this_player_turn = [list(b) for b in data["broken_this_player_turn"]]
        s.objective_vp_banked = list(data.get("objective_vp_banked", [0, 0]))
        s.stack = [frame_from_dict(frame) for frame in data["stack"]]
        s.cur = (int(data["cur"][0]), ACWDecision(data["cur"][1]))
        return s

    # ------------------------------------------------------------------------------------------
    # protocol hooks
    # ------------------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.cur[0]

    def decision_type(self) -> ACWDecision:
        return self.cur[1]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        # the chance frame on top (a die): its run is pure while it waits
        node = self.stack[-1].run(self)
        if type(node) is not ChanceNode:
            raise InvalidStateError("chance_outcomes() away from a chance node")
        return list(node.outcomes)

    def _legal_actions(self) -> list[int]:
        pending = self._pending_legal
        if pending is not None:
            return list(pending)
        return self.stack[-1].legal_actions(self)

    def _apply_action(self, action: int) -> None:
        self._pending_legal = None
        frame = self.stack[-1]
        if self.cur[0] != CHANCE:
            self.decisions_taken += 1
        # the clipping predicate of this decision's legal list serves its handler (nothing
        # has changed since it was built: the state is only changed by applying actions)
        self._handoff = self._lact_pred
        self._lact_pred = None
        try:
            step = frame.apply(self, action)
            if step is not None:
                self._follow(step)
        finally:
            self._handoff = None
        if self.decisions_taken >= self.game.max_decisions and not self.done:
            self.log("decision_cap", ("ACW-PD-35",),
                     f"decision cap {self.game.max_decisions} reached: game scored on VP")
            self.game.end_game(self, "decision cap")
        self._advance()

    def _why_illegal(self, action: int) -> Illegality:
        frame = self.stack[-1]
        why = frame.why_illegal(self, action)
        if why is not None:
            return why
        label = self.game.actions.labels[action]
        return Illegality(("ACW-PD-12",), f"{label!r} is not a choice of this "
                                          f"{self.cur[1].value} decision ({frame.kind})")

    def returns(self) -> list[float]:
        return list(self.result) if self.done else [0.0, 0.0]

    # ------------------------------------------------------------------------------------------
    # the driver
    # ------------------------------------------------------------------------------------------
    def _advance(self) -> None:
        """Run the top frame until one waits (a decision or a chance node) or the game ends."""
        stack = self.stack
        while True:
            if self.done:
                self.cur = (TERMINAL, D_TERM)
                return
            if self._run_frame(stack[-1]):
                return

    def _run_frame(self, frame: Frame) -> bool:
        """Run a typed frame once and follow its step; ``True`` when it now waits."""
        step = frame.run(self)
        if type(step) is ChanceNode:
            self.cur = (CHANCE, D_CHANCE)
            return True
        if type(step) is Wait:
            # (an ACW frame waits with an ACWDecision member; Wait types it as its str base)
            self.cur = (step.player, cast(ACWDecision, step.decision))
            if frame.auto_apply_forced and step.player >= 0:
                legal = frame.legal_actions(self)
                if len(legal) == 1:  # a forced choice is applied silently (not in history)
                    self._lact_pred = None
                    step = frame.apply(self, legal[0])
                    if step is not None:
                        self._follow(step)
                    return False
                self._pending_legal = legal
            return True
        if step is not None:
            self._follow(step)
        return False

    def _follow(self, step: Step) -> None:
        """Act on a frame's ``Push`` or ``Done`` (a ``Done`` pops it and hands it to the frame
        below, which reads it in ``on_child_done``).

        Raises:
            InvalidStateError: for another step (a frame's ``apply`` returns ``Push``,
                ``Done`` or ``None``).
        """
        stack = self.stack
        if type(step) is Push:
            stack.extend(step.frames)
            return
        if type(step) is not Done:
            raise InvalidStateError(f"frame {stack[-1].kind!r} returned {step!r} where a Push "
                                    f"or a Done was expected")
        child = stack.pop()
        if stack:
            stack[-1].on_child_done(self, child)
        if step.then:
            stack.extend(step.then)

    # -- reaction costs (envs.core.reactions): a reserved Staff Pip (RULE-04-6.3, I-2) -------
    def can_pay(self, side: int, cost: Cost) -> bool:
        return cost.resource == "reserved_pip" and self.reserved[side] >= cost.amount

    def pay(self, side: int, cost: Cost) -> None:
        self.reserved[side] -= cost.amount

    # ------------------------------------------------------------------------------------------
    # the units (queries and effects are the functions of .queries and .effects)
    # ------------------------------------------------------------------------------------------
    def unit(self, side: int, slot: int) -> Unit | None:
        """The unit of ``side`` in ``slot``, or ``None`` for an empty slot."""
        return self.units[side][slot]

    def unit_in(self, side: int, slot: int) -> Unit:
        """The unit of ``side`` in ``slot``, a slot that a frame or a decision names (a unit
        once there stays in its slot until removed).

        Raises:
            InvalidStateError: when the slot is empty.
        """
        unit = self.units[side][slot]
        if unit is None:
            raise InvalidStateError(f"side {side} has no unit in slot {slot}")
        return unit

    def alive(self, side: int) -> list[Unit]:
        """The live units of ``side``, in slot order."""
        return [unit for unit in self.units[side] if unit is not None and unit.alive]
