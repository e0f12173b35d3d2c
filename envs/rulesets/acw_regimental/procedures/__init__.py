"""The ACW procedures as typed frames of :mod:`envs.core.procedure`, one module each.

Converted so far: the player-turn cycle (:mod:`.turn`), the five phases (:mod:`.command`,
:mod:`.maneuver`, :mod:`.ranged_combat`, :mod:`.melee`, :mod:`.end_phase`), Window A
(:mod:`.window_a`, a core reaction window; its reactions in :mod:`..reactions`) and the charge
with Windows B1 and B2 (:mod:`.charge`; Closing Volley and Counter-Charge in
:mod:`..reactions.closing_volley` and :mod:`..reactions.counter_charge`) and the volley
(:mod:`.volley`), the winner's advance (:mod:`.winner_advance`) and Passage of Lines tests
(:mod:`.passage_of_lines`), a unit's activation (:mod:`.activation`) and its movement
primitives stopping at Window A trigger points (:mod:`.move`); dice are the core
:class:`~envs.core.frames.RollDice`. Every frame on the stack is typed. Importing this package
registers the frames.
"""

from .activation import Activation
from .charge import Charge, ChargeStep, WindowB1, WindowB2
from .command import CommandPhase, CommandStep
from .context import SIDE_NAMES, ACWContext
from .end_phase import EndPhase, EndStep
from .maneuver import ManeuverPhase
from .melee import MeleePhase, MeleeStep
from .move import Move, MoveStep
from .passage_of_lines import PassageOfLinesTests
from .ranged_combat import RangedCombatPhase
from .turn import PlayerTurnCycle, TurnStep
from .volley import FireMode, Volley, VolleyStep
from .window_a import WindowA
from .winner_advance import WinnerAdvance

__all__ = ["ACWContext", "Activation", "Charge", "ChargeStep", "CommandPhase", "CommandStep", "EndPhase",
           "EndStep", "FireMode", "ManeuverPhase", "MeleePhase", "MeleeStep", "Move", "MoveStep",
           "PassageOfLinesTests", "PlayerTurnCycle", "RangedCombatPhase", "SIDE_NAMES",
           "TurnStep", "Volley", "VolleyStep", "WindowA", "WindowB1", "WindowB2",
           "WinnerAdvance"]
