"""The player-turn cycle (ACW-PD-12): the five phases of each player-turn in order, the turn count
(ACW-PD-35) and the army-break check after both sides have moved (ACW-PD-36). The turn passes
from side to side by the core :class:`envs.core.activation.AlternatingTurns`; the end of the game
(army break, victory points, rewards) is at the end of this module."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.activation import AlternatingTurns
from envs.core.frames import RollDice
from envs.core.procedure import Frame, Push, Step, register
from envs.core.protocol import TERMINAL

from .. import queries
from ..actions import ACWDecision
from .command import CommandPhase
from .context import SIDE_NAMES
from .end_phase import EndPhase
from .maneuver import ManeuverPhase
from .melee import MeleePhase
from .ranged_combat import RangedCombatPhase

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["PlayerTurnCycle", "TurnStep"]


class TurnStep(str, enum.Enum):
    ROLL_OFF = "roll_off"  #: before play: roll 1D6 a side for the first move (ACW-PD-11)
    PHASE_1 = "p1"  #: start Phase 1, Command
    PHASE_2 = "p2"  #: start Phase 2, Active Maneuver & Assault
    PHASE_3 = "p3"  #: start Phase 3, Ranged Combat
    PHASE_4 = "p4"  #: start Phase 4, Melee
    PHASE_5 = "p5"  #: start Phase 5, End
    END = "end"  #: close the player-turn


@register
@dataclass(slots=True)
class PlayerTurnCycle(Frame["ACWState"]):
    """The bottom frame of the stack: runs the phases of each player-turn (``step``: the
    phase to start next), then passes the turn; the game ends on the turn limit (ACW-PD-35) or
    an army break (ACW-PD-36), checked after the second side's player-turn."""

    kind = "acw.player_turn_cycle"
    step: TurnStep = TurnStep.PHASE_1

    def run(self, state: ACWState) -> Step:
        step = self.step
        side = state.active
        if step is TurnStep.ROLL_OFF:  # answered in on_child_done
            return Push(RollDice(2, "roll-off for the first move (Union, Confederate)",
                                 ("ACW-PD-11",)))
        if step is TurnStep.PHASE_1:
            self.step = TurnStep.PHASE_2
            state.phase = 1
            return Push(CommandPhase())
        if step is TurnStep.PHASE_2:
            self.step = TurnStep.PHASE_3
            state.phase = 2
            state.log("phase", ("ACW-PD-12", "RULE-04-1.2"), f"turn {state.turn}: "
                      f"{SIDE_NAMES[side]} Phase 2, Active Maneuver & Assault", side, phase=2,
                      turn=state.turn)
            return Push(ManeuverPhase())
        if step is TurnStep.PHASE_3:
            self.step = TurnStep.PHASE_4
            state.phase = 3
            state.pips[side] = 0
            state.log("phase", ("ACW-PD-12", "ACW-PD-25b"), f"turn {state.turn}: "
                      f"{SIDE_NAMES[side]} Phase 3, Ranged Combat (unspent pips lost, "
                      f"ACW-PD-14)", side, phase=3, turn=state.turn)
            return Push(RangedCombatPhase())
        if step is TurnStep.PHASE_4:
            self.step = TurnStep.PHASE_5
            state.phase = 4
            state.log("phase", ("ACW-PD-12", "ACW-PD-26"), f"turn {state.turn}: "
                      f"{SIDE_NAMES[side]} Phase 4, Melee", side, phase=4, turn=state.turn)
            return Push(MeleePhase())
        if step is TurnStep.PHASE_5:
            self.step = TurnStep.END
            state.phase = 5
            state.log("phase", ("ACW-PD-12", "ACW-PD-27"), f"turn {state.turn}: "
                      f"{SIDE_NAMES[side]} Phase 5, End", side, phase=5, turn=state.turn)
            return Push(EndPhase())
        # the end of a player-turn: the core order of alternating player-turns passes the turn
        # to the other side and says whether that closed a game turn (the state keeps the
        # active side, the game turn and the player-turn count, which every query reads)
        if state.game.objectives_score == "after_enemy_turn":
            bank_objectives(state, sides=(1 - side,))
        order = AlternatingTurns(2, state.first, side, state.turn, state.player_turn)
        game_turn_closed = order.end_player_turn()
        state.player_turn = order.player_turn
        state.broken_this_player_turn = []
        if game_turn_closed:
            if state.game.objectives_score == "each_turn":
                bank_objectives(state)
            if army_break(state):
                return None
            state.turn = order.turn
            if state.turn > state.game.turns:
                state.log("time", ("ACW-PD-35",), f"{state.game.turns} game turns played")
                end_game(state, "turn limit")
                return None
        state.active = order.active
        self.step = TurnStep.PHASE_1
        return None

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        """A phase has finished; the next one starts on the next run. After the roll-off
        (ACW-PD-11) the higher roller moves first; a tie rolls again."""
        if self.step is TurnStep.ROLL_OFF and isinstance(child, RollDice):
            union, confederate = child.values
            if union == confederate:
                state.log("roll_off", ("ACW-PD-11",), f"roll-off tied {union}-{confederate}: "
                          f"roll again", None, rolls=[union, confederate])
                return
            first = 0 if union > confederate else 1
            state.first = state.active = first  # player-turn 0 of turn 1 still
            state.log("roll_off", ("ACW-PD-11",), f"roll-off {union}-{confederate}: "
                      f"{SIDE_NAMES[first]} moves first", first, rolls=[union, confederate],
                      first=first)
            self.step = TurnStep.PHASE_1


# ---------------------------------------------------------------------------------------------
# the end of the game (ACW-PD-35, PD-36)
# ---------------------------------------------------------------------------------------------
def army_break(state: ACWState) -> bool:
    """ACW-PD-36: a side that has lost at least half its starting units breaks."""
    broke = []
    for side in (0, 1):
        at_start = state.game.units_at_start[side]
        lost = 0
        for unit in state.units[side]:
            if unit is not None and not unit.is_screen and unit.broken:
                lost += 1
        if 2 * lost >= at_start:
            broke.append(side)
            state.log("army_break", ("ACW-PD-36",),
                      f"the {SIDE_NAMES[side]} army breaks ({lost} of {at_start} units lost)", side)
    if not broke:
        return False
    if len(broke) == 1:
        end_game(state, "army break", winner=1 - broke[0])
    else:
        end_game(state, "both armies break")
    return True


def bank_objectives(state: ACWState, sides: tuple[int, ...] = (0, 1)) -> None:
    """Scenario scoring ``each_turn`` (``sides`` both, at the end of a game turn) or
    ``after_enemy_turn`` (``sides`` the side that did not move, at the end of a player-turn):
    each side of ``sides`` banks the VP of the objectives it holds now (ACW-PD-36 holding
    test, the scenario's ``objective_vp``)."""
    held = queries.objective_vp(state)
    scored = [held[side] if side in sides else 0 for side in (0, 1)]
    for side in sides:
        state.objective_vp_banked[side] += held[side]
    when = (f"end of turn {state.turn}" if len(sides) == 2 else
            f"end of the {SIDE_NAMES[1 - sides[0]]} player-turn {state.turn}")
    state.log("objectives_score", ("ACW-PD-36",),
              f"{when}: objectives score Union {scored[0]}, Confederate "
              f"{scored[1]} (banked {state.objective_vp_banked[0]} - "
              f"{state.objective_vp_banked[1]})", sides[0] if len(sides) == 1 else None,
              vp=scored,
              banked=list(state.objective_vp_banked))


def end_game(state: ACWState, why: str, winner: int | None = None) -> None:
    points = queries.victory_points(state)
    if winner is None:
        winner = 0 if points[0] > points[1] else 1 if points[1] > points[0] else -1
    state.winner = winner
    if state.game.shaped_reward:
        reward = max(-1.0, min(1.0, (points[0] - points[1]) / 20.0))
        if winner >= 0 and reward == 0.0:
            reward = 0.05 if winner == 0 else -0.05
        state.result = [reward, -reward]
    else:
        state.result = [0.0, 0.0] if winner < 0 else\
            ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
    state.done = True
    state.cur = (TERMINAL, ACWDecision.TERMINAL)
    who = "draw" if winner < 0 else f"{SIDE_NAMES[winner]} win"
    state.log("game_end", ("ACW-PD-36",), f"game over ({why}): {who}; VP Union {points[0]}, "
              f"Confederate {points[1]}", None, vp=points, winner=winner, why=why)
