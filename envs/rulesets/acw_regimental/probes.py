"""Read-only questions about an ACW state that no decision node asks, for tests and tools.

The protocol's ``why_illegal`` explains a masked action at the current node; these explain rule
checks away from it (a reaction a unit was never offered, a melee side before the roll), so
that tests need not call the state's private methods. None of them changes the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.procedure import filled
from envs.core.protocol import Illegality

from .combat import melee_modifier_breakdown
from .procedures.melee import MeleePhase, MeleeStep
from .procedures.activation import Activation, reference_legal_primitives
from . import queries
from .reactions import counter_charge
from .reactions.refusals import why_reaction_illegal

if TYPE_CHECKING:
    from .state import ACWState
    from .units import Unit


def _illegality(reason: Any) -> Illegality | None:
    if not reason:
        return None
    rules, text = reason
    return Illegality(tuple(rules), str(text))


def why_no_reaction(state: ACWState, trigger: str, defender: Unit, label: str) -> Illegality | None:
    """Why ``defender`` may not take the reaction ``label`` (``"react:closing_volley"``, ...)
    against ``trigger`` (``"b2"``, ``"opp_medium"``, ``"opp_short"``, ``"refuse"``, ...), or
    ``None`` when it may (RULE-04-1.2, RULE-04-1.4 and the reaction's own rules).

    Raises:
        IllegalActionError: for a label the game does not know.
    """
    return _illegality(why_reaction_illegal(state, defender, state.game.actions.id(label)))


def why_no_counter_charge(state: ACWState, charger: Unit, defender: Unit) -> Illegality | None:
    """Why ``defender`` may not Counter-Charge ``charger``'s charge, or ``None`` when it may
    (RULE-04-6.1..6.3, ACW-PD-34, I-2)."""
    return _illegality(counter_charge.why_no_counter_charge(state, charger, defender))


def melee_side(state: ACWState, units: list[Any], enemies: list[Any], *, defending: bool) -> Any:
    """The ``combat.MeleeSide`` that ``units`` would fight ``enemies`` with in the Opposed
    Melee Roll (ACW-PD-26): modifiers, stands and the flank-or-rear flag, from the current
    positions and flags."""
    return queries.melee_side(state, units, enemies, is_def=defending)


def reference_legal_actions(state: ACWState) -> list[int] | None:
    """At an activation decision (ACW-PD-21), the legal primitive ids found the slow way, label
    by label through the rule checks that ``why_illegal`` reports, sorted; ``None`` at any other
    node. ``state.legal_actions()`` must equal it (the fast list is an optimisation)."""
    frame = state.stack[-1] if state.stack else None
    if state.current_player() < 0 or type(frame) is not Activation:
        return None
    return sorted(reference_legal_primitives(state, frame))


def melee_terms(state: ACWState) -> tuple[dict[str, int], dict[str, int]]:
    """At the chance node of an Opposed Melee Roll (ACW-PD-26), the non-zero modifier terms
    the roll will use, ``({term: value} of the attacking side, {term: value} of the
    defender)`` (``combat.melee_modifier_breakdown`` of the two :func:`melee_side`; terms such
    as ``"charging momentum"``, ``"flank or rear contact"``, ``"support"``).

    Raises:
        ValueError: when the state is not waiting for the dice of a melee roll.
    """
    frame = state.stack[-2] if len(state.stack) >= 2 else None
    if not state.is_chance_node() or type(frame) is not MeleePhase or \
            frame.step is not MeleeStep.RESOLVE:
        raise ValueError("melee_terms: the state is not at the dice of an Opposed Melee Roll")
    defender_slot, attacker_slots = filled(frame.melees, "the melees")[frame.index]
    active = state.active
    defender = state.unit_in(1 - active, defender_slot)
    attackers = [state.unit_in(active, k) for k in attacker_slots]
    attacking = queries.melee_side(state, attackers, [defender], is_def=False)
    defending = queries.melee_side(state, [defender], attackers, is_def=True)
    return (dict(melee_modifier_breakdown(attacking, defending.stands)),
            dict(melee_modifier_breakdown(defending, attacking.stands)))
