"""The ACW procedures as typed frames of :mod:`envs.core.procedure`, one module each.

Converted so far: the player-turn cycle (:mod:`.turn`), the five phases (:mod:`.command`,
:mod:`.maneuver`, :mod:`.ranged_combat`, :mod:`.melee`, :mod:`.end_phase`), Window A
(:mod:`.window_a`, a core reaction window; its reactions in :mod:`..reactions`) and the charge
with Windows B1 and B2 (:mod:`.charge`; Closing Volley and Counter-Charge in
:mod:`..reactions.closing_volley` and :mod:`..reactions.counter_charge`); dice are the core
:class:`~envs.core.frames.RollDice`. The activation (``act``), movement (``move``), volley
(``fire``), winner's advance (``madv``) and Passage of Lines (``pol``) frames are still dict
frames of :mod:`..state`. Importing this package registers the frames.
"""

from .charge import Charge, ChargeStep, WindowB1, WindowB2
from .command import CommandPhase, CommandStep
from .context import SIDE_NAMES, ACWContext
from .end_phase import EndPhase, EndStep
from .maneuver import ManeuverPhase
from .melee import MeleePhase, MeleeStep
from .ranged_combat import RangedCombatPhase
from .turn import PlayerTurnCycle, TurnStep
from .window_a import WindowA

__all__ = ["ACWContext", "Charge", "ChargeStep", "CommandPhase", "CommandStep", "EndPhase", "EndStep", "ManeuverPhase",
           "MeleePhase", "MeleeStep", "PlayerTurnCycle", "RangedCombatPhase", "SIDE_NAMES",
           "TurnStep", "WindowA", "WindowB1", "WindowB2"]
