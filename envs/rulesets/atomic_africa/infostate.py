"""Atomic Africa states drawn from one side's information state (determinization).

What a side cannot see in Atomic Africa is cards (:mod:`envs.core.zones`): the opponent's
face-down orders and hidden Reserve (AA-G4; visible to their owner only), every deck (visible to
nobody; draws are chance nodes over the cards left, AA-G1, AA-G6), and, inside the Declaration
sub-phase's change loop, the opponent's face-down commitment before both are revealed (AA-D4,
AA-G11; :class:`envs.core.frames.HiddenCommit`).

:func:`resample_from_infostate` keeps everything the side sees and redraws the rest:

* for every other side, the cards of all its zones the viewer may not look into are pooled,
  put in card order (so the pool depends only on what the viewer knows: the side's deck list
  minus its public cards), shuffled with the caller's generator and dealt back into the same
  zones, each keeping its size (sizes are public);
* the viewer's own deck is left as it is: its contents follow from what the viewer sees (its
  deck list minus its own cards elsewhere), and its order is no information (zones are kept
  sorted; draws are chance nodes);
* an opponent's commitment in an open :class:`~envs.core.frames.HiddenCommit` is redrawn
  uniformly among the choices legal for that side in the redrawn state.

Only the sizes of hidden zones and the viewer's own cards are read, so two states that differ
only in what the viewer cannot see give the same sample for the same generator state. The
event log and the action history are carried over as they are and are not read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.errors import InvalidStateError
from envs.core.frames import HiddenCommit

if TYPE_CHECKING:
    from .state import AAState

__all__ = ["resample_from_infostate"]


def resample_from_infostate(state: AAState, player: int, rng: np.random.Generator) -> AAState:
    """A copy of the Atomic Africa ``state`` with what ``player`` cannot see redrawn (see the
    module docstring).

    Args:
        state: an ``AAState`` (not modified).
        player: the viewing side, 0 or 1.
        rng: the generator the hidden cards and commitments are drawn with.

    Returns:
        A new ``AAState``; its observation for ``player`` equals ``state``'s.

    Raises:
        InvalidStateError: for a ``player`` that is not a side of the game, or at a chance
            node (its outcomes were listed from the cards before the redraw).
    """
    if not 0 <= player < state.game.num_players:
        raise InvalidStateError(f"resample_from_infostate: player {player} is not a side "
                                f"(0..{state.game.num_players - 1})")
    if state.is_chance_node():
        raise InvalidStateError("resample_from_infostate at a chance node: resample at a "
                                "decision or at the end")
    out = state.clone()
    zones = out.zones
    for side in range(state.game.num_players):
        if side == player:
            continue
        hidden = [zone for zone in zones if zone.owner == side and not zone.visible_to(player)]
        pool = sorted(card for zone in hidden for card in zone.cards)
        if not pool:
            continue
        order = rng.permutation(len(pool))
        dealt = 0
        for zone in hidden:
            size = len(zone.cards)
            zone.cards = sorted(pool[index] for index in order[dealt:dealt + size])
            dealt += size
    for frame in out.stack:
        if isinstance(frame, HiddenCommit):
            _redraw_commitments(out, frame, player, rng)
    out._legal_cache = None
    return out


def _redraw_commitments(state: AAState, frame: HiddenCommit[AAState], player: int,
                        rng: np.random.Generator) -> None:
    """Redraw, in commitment order, each committed choice of a side other than ``player``
    uniformly among its legal choices in ``state`` (the frame asks the next uncommitted side,
    so each choice is cleared before its legal choices are listed)."""
    for position, side in enumerate(frame.sides):
        if frame.choices[position] is None or side == player:
            continue
        later = frame.choices[position:]
        frame.choices[position:] = [None] * len(later)
        legal = frame.legal_actions(state)
        frame.choices[position:] = later
        frame.choices[position] = int(legal[int(rng.integers(len(legal)))])
