"""A second test-only ruleset ("skirmish"), built wholly on the core procedure pieces.

Rules (TOY-S-n ids are this file's own):

* TOY-S-1: two sides (red, blue), two units each with ``hp`` hit points. ``rounds`` rounds.
* TOY-S-2: each round opens with a hidden bid (``bid:0`` .. ``bid:2``): both sides commit, red
  first, and blue does not see red's bid (:class:`~envs.core.frames.HiddenCommit`).
* TOY-S-3: the higher bid draws one card from the shared deck (3 ``shield``, 3 ``blank``) into
  its hidden hand (:class:`~envs.core.frames.DrawCard`); equal bids draw nothing.
* TOY-S-4: then units activate in the order given by the ``order`` parameter:
  ``alternating`` (each side in turn activates its first unit standing; the first side
  alternates by round), ``initiative`` (every unit standing, by initiative red 5/2, blue 4/3),
  ``cards`` (an order card — two per side — is drawn; its side activates its first unit
  standing; all four cards are drawn each round).
* TOY-S-5: an activated unit attacks an enemy unit standing (``attack:k``) or passes.
* TOY-S-6: an attack opens a reaction window for the defender: ``react:parry`` (costs a shield
  card from the hand, TOY-S-7), ``react:counter`` (the attacked unit needs 2+ hit points,
  TOY-S-8: a counter blow of one d6 hits the attacker on 5+ before the attack is rolled), or
  ``react:decline``.
* TOY-S-9: the attack is one d6: 4+ hits (5+ if parried). A hit takes one hit point; a unit at
  0 is out. The game ends after the last round or when a side has no unit standing; the side
  with more hit points wins, equal is a draw.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pydantic

from envs.core import ActionCatalogue, Game, Illegality, ObservationLayout, Piece
from envs.core.activation import (ActivationLoop, ActivationOrder, Activator, AlternatingTurns,
                                  InitiativeTrack, OrderCards)
from envs.core.frames import CommitContext, DrawCard, HiddenCommit, RollDice, dice_labels
from envs.core.procedure import Done, Frame, FrameStack, ProcedureState, Push, Step, Wait, register
from envs.core.reactions import Cost, Reaction, ReactionContext, ReactionWindow
from envs.core.scenario import validate_params
from envs.core.zones import Visibility, Zones

ACTIONS = ActionCatalogue(["bid:0", "bid:1", "bid:2", "attack:0", "attack:1", "pass",
                           "react:parry", "react:counter", "react:decline"])
SHIELD, BLANK, ORDER_RED, ORDER_BLUE = 6, 7, 8, 9
CHANCE_CAT = ActionCatalogue(dice_labels(6) + ["card=shield", "card=blank", "order=red",
                                               "order=blue"])
DECISIONS = ("chance", "terminal", "declaration", "maneuver", "reaction")
INITIATIVE = ((5, 2), (4, 3))  # by side, unit


class Decision(str, enum.Enum):
    CHANCE = "chance"
    TERMINAL = "terminal"
    DECLARATION = "declaration"
    MANEUVER = "maneuver"
    REACTION = "reaction"


class SkirmishParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    rounds: int = pydantic.Field(3, ge=1, le=50)
    hp: int = pydantic.Field(3, ge=1, le=9)
    order: str = pydantic.Field("alternating", pattern="^(alternating|initiative|cards)$")


# -- reactions -----------------------------------------------------------------------------
class Parry(Reaction):
    label = "react:parry"
    rules = ("TOY-S-6", "TOY-S-7")

    def why_not(self, state: Any, window: ReactionWindow) -> Illegality | None:
        return None

    def cost(self, state: Any, window: ReactionWindow) -> Cost:
        return Cost("shield", 1, ("TOY-S-7",))

    def resolve(self, state: Any, window: ReactionWindow) -> tuple[Frame, ...]:
        state.log("parry", self.rules, f"side {window.side} parries", window.side,
                  unit=window.subject)
        return ()


class Counter(Reaction):
    label = "react:counter"
    rules = ("TOY-S-6", "TOY-S-8")

    def why_not(self, state: Any, window: ReactionWindow) -> Illegality | None:
        if state.hp[window.side][window.subject] < 2:
            return Illegality(("TOY-S-8",), "a unit with 1 hit point cannot counter")
        return None

    def resolve(self, state: Any, window: ReactionWindow) -> tuple[Frame, ...]:
        attacker = state.stack.frames[-2]  # the activation below the window
        return (CounterBlow(window.side, 1 - window.side, attacker.unit),)


@register
@dataclass(slots=True)
class SkirmishWindow(ReactionWindow):
    kind = "skirmish.window"
    decision = Decision.REACTION
    reactions = {r.label: r for r in (Parry(), Counter())}


@register
@dataclass(slots=True)
class CounterBlow(Frame):
    """TOY-S-8: one d6, 5+ hits the attacking unit."""

    kind = "skirmish.counter_blow"
    side: int
    target_side: int
    target: int
    roll: int | None = None

    def run(self, state: Any) -> Step:
        if self.roll is None:
            return Push(RollDice(1, "counter blow", ("TOY-S-8",), self.side))
        if self.roll >= 5:
            state.damage(self.target_side, self.target, ("TOY-S-8",))
        return Done()

    def on_child_done(self, state: Any, child: Frame) -> None:
        self.roll = child.values[0]


# -- activation -------------------------------------------------------------------------------
class ActStep(str, enum.Enum):
    CHOOSE = "choose"
    ROLL = "roll"
    HIT = "hit"


@register
@dataclass(slots=True)
class Activation(Frame):
    """TOY-S-5, TOY-S-9: one unit attacks or passes."""

    kind = "skirmish.activation"
    side: int
    unit: int
    step: ActStep = ActStep.CHOOSE
    target: int = -1
    parried: bool = False
    roll: int | None = None

    def run(self, state: Any) -> Step:
        if self.step is ActStep.CHOOSE:
            return Wait(self.side, Decision.MANEUVER)
        if self.step is ActStep.ROLL:
            if state.hp[self.side][self.unit] <= 0:  # felled by the counter blow
                return Done()
            self.step = ActStep.HIT
            return Push(RollDice(1, "attack", ("TOY-S-9",), self.side))
        need = 5 if self.parried else 4
        hit = self.roll >= need
        state.log("hit" if hit else "miss", ("TOY-S-9",),
                  f"d6={self.roll} {'hits' if hit else 'misses'} (needs {need}+)", self.side,
                  roll=self.roll, need=need)
        if hit:
            state.damage(1 - self.side, self.target, ("TOY-S-9",))
        return Done()

    def legal_actions(self, state: Any) -> list[int]:
        enemy = state.hp[1 - self.side]
        return [3 + k for k in (0, 1) if enemy[k] > 0] + [5]

    def why_illegal(self, state: Any, action: int) -> Illegality | None:
        if action in (3, 4):
            return Illegality(("TOY-S-5",), f"enemy unit {action - 3} is out")
        return Illegality(("TOY-S-5",), "an activated unit attacks or passes")

    def apply(self, state: Any, action: int) -> Push | Done:
        if action == 5:
            state.log("pass", ("TOY-S-5",), f"side {self.side} unit {self.unit} passes",
                      self.side)
            return Done()
        self.target = action - 3
        self.step = ActStep.ROLL
        return Push(SkirmishWindow(1 - self.side, "attack", self.target,
                                   ("react:parry", "react:counter")))

    def on_child_done(self, state: Any, child: Frame) -> None:
        if isinstance(child, SkirmishWindow):
            self.parried = child.chosen == "react:parry"
        elif isinstance(child, RollDice):
            self.roll = child.values[0]


@register
@dataclass(slots=True)
class Activations(ActivationLoop):
    kind = "skirmish.activations"

    def eligible(self, state: Any, who: Activator) -> bool:
        if state.decided():
            return False
        if who.unit is None:
            return state.first_standing(who.side) is not None
        return state.hp[who.side][who.unit] > 0

    def activation(self, state: Any, who: Activator) -> Frame:
        unit = who.unit if who.unit is not None else state.first_standing(who.side)
        return Activation(who.side, unit)


class RoundStep(str, enum.Enum):
    BID = "bid"
    DRAW = "draw"
    ACTIVATE = "activate"
    END = "end"


@register
@dataclass(slots=True)
class Round(Frame):
    """TOY-S-2..4: bid, draw, activations; repeats until the game is over."""

    kind = "skirmish.round"
    step: RoundStep = RoundStep.BID
    bids: list[int] = field(default_factory=list)

    def run(self, state: Any) -> Step:
        step = self.step
        if step is RoundStep.BID:
            self.step = RoundStep.DRAW
            return Push(HiddenCommit((0, 1), (0, 1, 2), Decision.DECLARATION, ("TOY-S-2",)))
        if step is RoundStep.DRAW:
            self.step = RoundStep.ACTIVATE
            b = self.bids
            if b[0] != b[1] and state.zones.size("deck"):
                winner = 0 if b[0] > b[1] else 1
                return Push(DrawCard("deck", f"hand:{winner}", winner, ("TOY-S-3",)))
            return None
        if step is RoundStep.ACTIVATE:
            self.step = RoundStep.END
            return Push(Activations(state.new_order()))
        state.round += 1
        if state.round >= state.game.rounds or state.decided():
            return Done()
        self.step = RoundStep.BID
        return None

    def on_child_done(self, state: Any, child: Frame) -> None:
        if isinstance(child, HiddenCommit):
            self.bids = [int(c) for c in child.choices]


# -- game and state ---------------------------------------------------------------------------
class SkirmishGame(Game):
    ruleset_id = "toy_skirmish"
    version = 1

    def __init__(self, scenario: Any = None, params: Any = None):
        p = validate_params(SkirmishParams, params)
        self.params = p.model_dump()
        self.rounds, self.hp, self.order = p.rounds, p.hp, p.order
        self.scenario_name = "skirmish"
        self.num_players = 2
        self.side_names = ("red", "blue")
        self.actions = ACTIONS
        self.chance = CHANCE_CAT
        self.decision_types = DECISIONS
        self.max_game_length = self.rounds * 12
        self.layout = ObservationLayout([
            Piece("hp", (2, 2), "own units' then enemy units' hit points / hp"),
            Piece("round", (1,), "round / rounds"),
            Piece("hand", (2,), "own hand: shields, blanks"),
            Piece("enemy_hand", (1,), "enemy hand size (contents hidden)"),
            Piece("deck", (1,), "cards left in the deck"),
            Piece("discard", (2,), "discard pile: shields, blanks"),
            Piece("decision", (len(DECISIONS),), "one-hot decision type"),
            Piece("committed", (2,), "own, enemy bid committed (hidden commitment)"),
            Piece("own_bid", (3,), "one-hot own committed bid"),
            Piece("window_subject", (2,), "one-hot own unit asked in a reaction window"),
        ])

    def new_initial_state(self) -> "SkirmishState":
        return SkirmishState(self)

    def state_from_dict(self, data: dict[str, Any]) -> "SkirmishState":
        s = SkirmishState(self, init=False)
        s.hp = [list(h) for h in data["hp"]]
        s.round = data["round"]
        s.zones = Zones.from_list(data["zones"])
        s.stack = FrameStack.from_dict(data["stack"], Decision)
        return s

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def observation(self, state: "SkirmishState", side: int) -> np.ndarray:
        """Built only from ``zones.public_view(side)`` and ``decision_context(side)``."""
        v = self.layout.zeros()
        parts = self.layout.split(v)
        parts["hp"][0] = np.asarray(state.hp[side]) / self.hp
        parts["hp"][1] = np.asarray(state.hp[1 - side]) / self.hp
        parts["round"][0] = state.round / self.rounds
        view = state.zones.public_view(side)
        own = view[f"hand:{side}"].cards
        parts["hand"][:] = (own.count(SHIELD), own.count(BLANK))
        parts["enemy_hand"][0] = view[f"hand:{1 - side}"].size
        parts["deck"][0] = view["deck"].size
        disc = view["discard"].cards
        parts["discard"][:] = (disc.count(SHIELD), disc.count(BLANK))
        parts["decision"][DECISIONS.index(str(getattr(state.decision_type(), "value",
                                                       state.decision_type())))] = 1.0
        ctx = state.decision_context(side)
        if isinstance(ctx, CommitContext):
            parts["committed"][:] = (ctx.committed[side], ctx.committed[1 - side])
            if ctx.own_choice is not None:
                parts["own_bid"][ctx.own_choice] = 1.0
        elif isinstance(ctx, ReactionContext) and ctx.player == side:
            parts["window_subject"][ctx.subject] = 1.0
        return v

    def observation_string(self, state: "SkirmishState", side: int) -> str:
        view = state.zones.public_view(side)
        return (f"round {state.round} hp own={state.hp[side]} enemy={state.hp[1 - side]} "
                f"hand={list(view[f'hand:{side}'].cards)} "
                f"enemy hand size={view[f'hand:{1 - side}'].size}")


class SkirmishState(ProcedureState):
    decision_enum = Decision
    terminal_decision = Decision.TERMINAL
    chance_decision = Decision.CHANCE

    def __init__(self, game: SkirmishGame, init: bool = True):
        super().__init__(game)
        if not init:
            return
        self.hp = [[game.hp, game.hp], [game.hp, game.hp]]
        self.round = 0
        self.zones = Zones()
        self.zones.add("deck", None, Visibility.NOBODY, [SHIELD] * 3 + [BLANK] * 3)
        self.zones.add("hand:0", 0, Visibility.OWNER)
        self.zones.add("hand:1", 1, Visibility.OWNER)
        self.zones.add("discard", None, Visibility.PUBLIC)
        self.zones.add("orders", None, Visibility.NOBODY, [ORDER_RED] * 2 + [ORDER_BLUE] * 2)
        self.zones.add("orders_done", None, Visibility.PUBLIC)
        self.stack.push(Round())
        self.start()

    # -- rules helpers ----------------------------------------------------------------------
    def first_standing(self, side: int) -> int | None:
        return next((k for k in (0, 1) if self.hp[side][k] > 0), None)

    def decided(self) -> bool:
        return self.first_standing(0) is None or self.first_standing(1) is None

    def damage(self, side: int, unit: int, rules: tuple[str, ...]) -> None:
        self.hp[side][unit] -= 1
        self.log("damage", rules, f"side {side} unit {unit} loses 1 hit point",
                 side, unit=unit, hp=self.hp[side][unit])

    def new_order(self) -> ActivationOrder:
        kind = self.game.order
        if kind == "alternating":
            first = self.round % 2
            return AlternatingTurns(2, first, first, turn=self.round + 1)
        if kind == "initiative":
            return InitiativeTrack([[s, k, INITIATIVE[s][k]] for s in (0, 1) for k in (0, 1)])
        self.zones.move_all("orders_done", "orders")
        return OrderCards("orders", "orders_done", {ORDER_RED: 0, ORDER_BLUE: 1}, ("TOY-S-4",))

    # -- costs (envs.core.reactions) -----------------------------------------------------------
    def can_pay(self, side: int, cost: Cost) -> bool:
        return self.zones.count(f"hand:{side}", SHIELD) >= cost.amount

    def pay(self, side: int, cost: Cost) -> None:
        for _ in range(cost.amount):
            self.zones.move(SHIELD, f"hand:{side}", "discard")

    # -- protocol ---------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        a, b = sum(self.hp[0]), sum(self.hp[1])
        return [0.0, 0.0] if a == b else ([1.0, -1.0] if a > b else [-1.0, 1.0])

    def _to_dict(self) -> dict[str, Any]:
        return {"hp": [list(h) for h in self.hp], "round": self.round,
                "zones": self.zones.to_list(), "stack": self.stack.to_dict()}

    def clone(self) -> "SkirmishState":
        s = SkirmishState(self.game, init=False)
        self._copy_base_into(s)
        s.hp = [list(h) for h in self.hp]
        s.round = self.round
        s.zones = self.zones.copy()
        s.stack = self.stack.copy()
        return s
