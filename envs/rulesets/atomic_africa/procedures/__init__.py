"""The procedures (frames) of Atomic Africa, one module per phase:

* :mod:`.common`: ``UnitContext``, ``Contest`` (a die-roll contest, rerolled on ties;
  AA-G7, AA-G10, AA-D3);
* :mod:`.turn`: ``Turn``, ``OrdersPhase``, ``ActivationPhases`` (AA-G4, AA-G7, AA-G23);
* :mod:`.activation`: ``Activation``, ``ReactionSubPhase`` (AA-G7, AA-G8, AA-R1 … AA-R9);
* :mod:`.declaration`: ``Declaration``, ``ChangeCommit`` (AA-D1 … AA-D8);
* :mod:`.resolution`: ``Resolution``, ``final_order``, ``posture_of`` (AA-G8, AA-G14,
  AA-G15, AA-G21);
* :mod:`.cleanup`: ``CleanUp``, ``needs_split``, ``split_unit``, ``remove_unit`` (C1 … C6,
  AA-G16, AA-G17).

Every frame is a registered ``@dataclass(slots=True)`` of :mod:`envs.core.procedure` (importing
this package registers them all, so a state's JSON can be read back); the data they share
during one Activation Phase lives in ``state.ap`` (:class:`..state.PhaseData`).
"""

from __future__ import annotations

from .activation import Activation, ReactionSubPhase
from .cleanup import CleanUp, needs_split, remove_unit, split_unit
from .common import Contest, UnitContext
from .declaration import ChangeCommit, Declaration
from .resolution import Resolution, final_order, posture_of
from .turn import ActivationPhases, OrdersPhase, Turn

__all__ = ["Activation", "ActivationPhases", "ChangeCommit", "CleanUp", "Contest",
           "Declaration", "OrdersPhase", "ReactionSubPhase", "Resolution", "Turn",
           "UnitContext", "final_order", "needs_split", "posture_of", "remove_unit",
           "split_unit"]
