"""The procedures (frames) of Atomic Africa, one module per phase:

* :mod:`.common`: ``UnitContext``, ``DeckDraw``, the In-transit and Targeting helpers,
  ``Contest`` (a die-roll contest, rerolled on ties; AA-G7, AA-G10, AA-D3);
* :mod:`.turn`: ``Turn``, ``OrdersPhase``, ``ActivationPhases`` (AA-G4, AA-G7, AA-G23);
* :mod:`.activation`: ``Activation`` (AA-G7, AA-G8, Targeting);
* :mod:`.reaction`: ``ReactionSubPhase`` (AA-R1 … AA-R9; the voluntary choice is the core
  reaction window of :mod:`..reactions`);
* :mod:`.declaration`: ``Declaration``, ``ChangeCommit`` (AA-D1 … AA-D8);
* :mod:`.resolution`: ``Resolution``, ``final_order``, ``posture_of`` (AA-G8, AA-G14,
  AA-G15, AA-G21);
* :mod:`.cleanup`: ``CleanUp``, ``SplitUnit``, ``needs_split``, ``split_unit``, ``remove_unit``
  (C1 … C6, AA-G16, AA-G17).

Every frame is a registered ``@dataclass(slots=True)`` of :mod:`envs.core.procedure` (importing
this package registers them all, so a state's JSON can be read back); the data they share
during one Activation Phase lives in ``state.phase`` (:class:`..state.PhaseData`).
"""

from __future__ import annotations

from .activation import Activation
from .cleanup import CleanUp, SplitUnit, needs_split, remove_unit, split_unit
from .common import Contest, DeckDraw, UnitContext
from .declaration import ChangeCommit, Declaration
from .reaction import ReactionSubPhase
from .resolution import Resolution, final_order, posture_of
from .turn import ActivationPhases, OrdersPhase, Turn

__all__ = ["Activation", "ActivationPhases", "ChangeCommit", "CleanUp", "Contest", "DeckDraw",
           "Declaration", "OrdersPhase", "ReactionSubPhase", "Resolution", "SplitUnit", "Turn",
           "UnitContext", "final_order", "needs_split", "posture_of", "remove_unit",
           "split_unit"]
