"""The frames of the skirmish alert game (on :mod:`envs.core.procedure`), one module per
part of the flow: :mod:`.context`, :mod:`.resolution`, :mod:`.alert`, :mod:`.redirect`,
:mod:`.action`, :mod:`.turn`.

Stack, bottom to top, in the middle of a reaction::

    Match                 rounds (AL-PD-10)
      Activations         the initiative track's order (envs.core.activation.InitiativeTrack)
        Turn              one fighter's game turn: AP refilled, keep/drop alert, actions
          ActionFrame     one declared action: (movement first,) alert window, then effect
            Facing        after a Move or Disengage, the mover's free facing (AL-PD-15)
            ChargeSquare  the charge's target moved but is in reach: the charger re-picks
            AlertWindow   AL-4: the window of this declaration, slot by slot (AL-22, AL-23)
              AttemptWindow   a team's slot: which alert fighter attempts, or decline
              AptitudeTest    2d6 + REF vs the difficulty (AL-5, AL-8, AL-13)
                ReactWindow   the reactor's one action from the menu (AL-15..AL-17)
                RearmWindow   pay 1 AP to stay on alert (AL-19)
          RedirectWindow  after the window, the declared destination of a Move (or of a
                          Charge whose attack was lost) can no longer be reached: the actor
                          may pick another (AL-25, AL-PD-20)
"""

from .action import ActionFrame, Phase
from .alert import (AlertWindow, AptitudeTest, AttemptReaction, AttemptWindow, MenuReaction,
                    ReactWindow, Rearm, RearmWindow, react_menu, state_eligibility)
from .charge import ChargeSquare
from .context import AlertContext
from .facing import Facing
from .redirect import RedirectMove, RedirectWindow
from .resolution import Attack, TechTest, effect
from .turn import Activations, Initiative, Match, RoundMaintain, Turn

__all__ = ["ActionFrame", "Activations", "AlertContext", "AlertWindow", "AptitudeTest",
           "Attack", "ChargeSquare", "Facing", "AttemptReaction", "AttemptWindow", "Initiative", "Match", "MenuReaction",
           "Phase", "ReactWindow", "Rearm", "RearmWindow", "RedirectMove", "RedirectWindow",
           "RoundMaintain", "TechTest", "Turn", "effect", "react_menu", "state_eligibility"]
