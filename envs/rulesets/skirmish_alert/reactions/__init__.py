"""The On Alert reactions of the skirmish alert game, one module each, on the core's
:class:`envs.core.reactions.ReactionWindow`:

* :mod:`.window` — the one window a declared action opens, slot by slot (AL-4, AL-23);
* :mod:`.eligibility` — which alert fighters may attempt in it (AL-PD-32);
* :mod:`.attempt` — a team's slot: which of its fighters attempts, or decline (AL-5, AL-22);
* :mod:`.aptitude` — the aptitude test and its difficulty (AL-5, AL-8, AL-13);
* :mod:`.menu` — the successful reactor's one action (AL-15, AL-16, AL-17);
* :mod:`.rearm` — paying 1 AP to stay on alert afterwards (AL-19, AL-20).
"""

from .aptitude import AptitudeStep, AptitudeTest, difficulty, reaction_difficulty
from .attempt import AttemptReaction, AttemptWindow
from .eligibility import why_not_eligible
from .menu import MenuReaction, ReactWindow, react_menu
from .rearm import Rearm, RearmWindow
from .window import AlertWindow

__all__ = ["AlertWindow", "AptitudeStep", "AptitudeTest", "AttemptReaction", "AttemptWindow",
           "MenuReaction", "ReactWindow", "Rearm", "RearmWindow", "difficulty", "react_menu",
           "reaction_difficulty", "why_not_eligible"]
