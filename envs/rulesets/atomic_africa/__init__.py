"""Atomic Africa: playing-card orders, the hidden Reserve, the Reaction and Declaration
sub-phases (seed 000, ``atomic_africa.md``; RULINGS "Atomic Africa").

## Description

Two platoons (sides 0 and 1) of infantry squads with on-board attached units (support teams,
vehicles) fight on a table measured in centimetres; infantry move in 4.5 cm increments, vehicles
in 9 cm (seed Pt 12). Orders are playing cards from each side's own deck. A game turn is:

1. **Orders Phase** (AA-G4): each side draws one card per non-attached unit plus its Experience
   bonus — every draw a chance node over the cards left in its deck (AA-G1, AA-G6 reshuffle) —
   and gives each unit a face-down card or none (``assign:<card>`` / ``assign:none``, one
   decision per unit). The cards kept are the side's hidden **Reserve**.
2. **Activation Phases**, the sides alternating (AA-G7: a d6 contest decides who starts,
   rerolled on ties, side 0 after three ties (engine cap); a side with no eligible unit
   passes). One phase: choose the unit (``activate:unitK``; a unit with a face-down order
   that has not acted), place its In-transit figure (``move:<dir>:<n>``, n =
   1-4 increments in one of six egocentric directions, or ``move:hold``; AA-G8), Targeting
   (``target:unitK`` or ``target:none``; a second target is a Split Fire declaration, AA-R9).

   * **Reaction sub-phase**: targeted units must react (AA-R2); otherwise the reacting side may
     choose one unit with line of sight to the Start Group or In-transit figure
     (``react:unitK`` / ``react:none``, AA-R1, AA-R3). An orderless reactor takes a card of the
     Reserve (``reserve:play:<card>``, decision type ``reserve_assign``, AA-R4); without an
     eligible card it cannot react voluntarily (AA-R5) and a targeted unit reacts Confused with
     the top card of its deck (AA-R6, AA-G18: it only returns fire, may not move, Attack die
     one type lower). Each reactor places its In-transit figure (AA-R7), returns fire at the
     unit that fired on it (AA-R8) and, only when its own order card carries Split Fire (a
     Jack or a Joker), may declare one extra target, whose unit reacts in turn (AA-R9;
     AA-G20: every unit acts once a turn, a cascaded reactor only returns fire).
   * **Declaration sub-phase**: the orders of every unit involved are revealed together
     (AA-D1); each face card announces a special action (``special:<name>``, menus AA-G12) in
     the order Jacks, Queens, Kings, Jokers; ties by Experience (lower first, AA-G10), then a d6
     contest (AA-D2, AA-D3). Then the change loop (AA-D4 … AA-D7, AA-G11): each round both
     sides commit face down — ``reserve:play:<card>`` (any Reserve card, a Joker included,
     AA-G13) on their principal unit (the activating unit; the first reacting unit) or
     ``reserve:stand`` — as a hidden sequential commitment
     (:class:`envs.core.frames.HiddenCommit`: the second side does not see the first's
     choice), revealed together; a new card replaces the old (AA-D6) and new face cards
     announce. The loop ends when both stand or no Reserve card is left. A revealed Joker
     freezes the opponent's orders for the rest of the phase — its Reserve play is masked,
     ``why_illegal`` cites AA-D8 — and its owner names any order (``special:basic`` or a
     special) and a posture (``posture:*``, AA-D8, AA-G13, AA-G22).
   * **Resolution**: every involved unit moves toward its In-transit figure up to its final
     order's allowance (basic 2, rush 4, aimed fire 1, go to ground 1, assault 3, rally 2
     increments; prone halves; 3+ suppression markers hold, AA-G8, AA-G15), then every declared
     fire line resolves at once (AA-G14: Attack = the Equipment die, shifted one type lower per
     suppression marker, + 1 per 3 figures, against the range threshold 2/4/6/8 for ≤15/30/60/
     >60 cm and the damage threshold = range + cover (+2 soft, +4 hard) + posture; beating the
     range threshold gives a suppression marker, beating the damage threshold 1 wound per 2
     points over (minimum 1); vehicles: damage threshold = range + defense, at most one new
     marker a turn, wounds shift the Equipment die). Targets are locked at Targeting; a rush
     does not fire; a Split Fire target without Split Fire is cancelled (AA-G21).

3. **Clean-Up Phase**: forced splits — a unit whose wound counters would shift its Morale die
   below d4 splits into two groups as equal as possible, sharing markers and wounds — its
   owner gives an odd wound and an odd marker each to a group (``odd_wound:larger`` /
   ``odd_wound:smaller``, ``odd_marker:*``, C2) — or is destroyed below six figures (C1-C3);
   a vehicle whose
   Equipment die falls below d4 is knocked out (AA-G17); voluntary splits of units of six or
   more figures (``split:unitK`` / ``split:done``, C4); the Morale sub-phase — one roll of the
   wound-shifted Morale die per unit with markers: 4+ removes one, 8+ two (C6, AA-G16);
   unused orders and the Reserves are discarded (AA-G6).

Victory (AA-G23): after the scenario's turns, 1 point per destroyed enemy unit and 1 per
objective held (a unit within 9 cm and no enemy); a side with no units left loses at once.
Every AA-G default is a named parameter of :class:`.params.AAParams`.

## Action Space

``Discrete(104)`` for the default ``max_units_per_side = 8`` (``unitK``: own slot K for
``activate``/``react``/``split``, enemy slot K for ``target``):

| ids | labels | decision type | rules |
|---|---|---|---|
| 0–13 | `assign:A` … `assign:10`, `assign:J`, `assign:Q`, `assign:K`, `assign:Joker` | orders | AA-G4 |
| 14 | `assign:none` | orders | AA-G4 |
| 15–22 | `activate:unit0` … `activate:unit7` | activation | AA-G7 |
| 23 | `move:hold` | maneuver | AA-G8, AA-R7 |
| 24–47 | `move:<forward, forward_left, forward_right, left, right, back>:<1-4>` | maneuver | AA-G8, AA-R7 |
| 48–55 | `target:unit0` … `target:unit7` | fire | AA-R2, AA-R8, AA-R9 |
| 56 | `target:none` | fire | AA-R3 |
| 57–64 | `react:unit0` … `react:unit7` | reaction | AA-R1, AA-R3, AA-R5 |
| 65 | `react:none` | reaction | AA-R3 |
| 66–79 | `reserve:play:A` … `reserve:play:Joker` | reserve_assign, reserve_play | AA-R4, AA-D4 |
| 80 | `reserve:stand` | reserve_play | AA-D4, AA-D7 |
| 81–87 | `special:basic`, `special:split_fire`, `special:rush`, `special:aimed_fire`, `special:go_to_ground`, `special:assault`, `special:rally` | declaration | AA-D2, AA-D8, AA-G12 |
| 88–90 | `posture:standing`, `posture:crouched`, `posture:prone` | declaration | AA-D8, AA-G22 |
| 91–98 | `split:unit0` … `split:unit7` | cleanup | C4 |
| 99 | `split:done` | cleanup | C4 |
| 100–101 | `odd_wound:larger`, `odd_wound:smaller` | cleanup | C2 |
| 102–103 | `odd_marker:larger`, `odd_marker:smaller` | cleanup | C2 |

Chance outcomes (54): ``card=A`` … ``card=Joker`` (a card drawn from a deck: probability =
copies left / cards left), then ``d4=1`` … ``d12=12``. A decision with a single legal option
(one eligible unit, only ``move:hold``) is applied without asking and is not in the history.

## Observation Space

``Box(float32, (869,))`` for 8 slots, egocentric (own units first; side 1 sees the table turned
round so that forward is toward the enemy for both). Built only from
:meth:`envs.core.zones.Zones.public_view` and the decision context: the side's own hand,
Reserve and face-down orders; of the opponent only revealed cards and public counts.

| piece | shape | meaning |
|---|---|---|
| `own_units` | (8, 44) | per slot: present, x, y, figures/12, wounds/6, markers/6, Morale and Equipment die (shifted), vehicle, attached, has order, acted, confused, In-transit figure (flag, x, y), activating, reacting, targeted, revealed, card one-hot (14), announced order (7), posture (3) |
| `enemy_units` | (8, 44) | the same; the card only once revealed |
| `los` | (8, 8) | own unit i and enemy unit j see each other |
| `own_reserve` | (14,) | own Reserve by card / 4 |
| `counts` | (5,) | enemy Reserve size / 10, own and enemy deck / 54, own and enemy discard / 54 |
| `own_discard`, `enemy_discard` | (14,) each | discard piles by card / 4 (public) |
| `turn` | (2,) | turn / turns; 1 if the observer activated first |
| `decision` | (11,) | one-hot decision type |
| `subject` | (8,) | one-hot own unit the decision is about |
| `commit` | (17,) | change loop: own committed, enemy committed, own stand, own card (one-hot) — never the enemy's card before the reveal |
| `frozen` | (2,) | own, enemy orders frozen (AA-D8) |
| `objectives` | (3, 4) | x, y, held by own, held by enemy |
| `score` | (2,) | own, enemy score / 10 |

Decision types: ``orders``, ``activation``, ``maneuver``, ``fire``, ``reaction``,
``reserve_assign``, ``declaration``, ``reserve_play``, ``cleanup`` (plus ``chance``,
``terminal``).

## Starting State

The scenario's units and decks (default: the standard 54-card deck each, AA-G1); the first
Orders Phase draws are chance nodes. A scenario with a ``[start]`` table starts after the
Orders Phase of its ``turn``: each unit's face-down order (``[[units]] order``), each side's
Reserve and discard pile (``[[sides]] reserve``, ``discard``) are dealt from its deck, and
``first_side`` (optional) skips the first-activation contest. ``[[sides]] deck_order`` names
the next cards a deck gives, top first (each such draw is a chance node with one outcome).

## Rewards

+1 win, −1 loss, 0 draw at the end.

## Episode End

After the scenario's turns or when a side has no units left; truncated at ``max_decisions``.

## Arguments

``load_game("atomic_africa", scenario, params)``; scenarios ``default`` (platoon battle),
``duel``, ``reaction``, ``cleanup_example``, ``activation`` (one squad a side after the
Orders Phase of the only turn: small enough to solve exactly, ``agents/research/exact.py``).

## Version History

* v1: initial version.
* v2: a Joker of the Reserve may be played in the change loop (AA-D4, AA-G13); the owner
  places a split's odd wound and odd marker (C2, four new actions); an extra target only with
  a Split Fire card (AA-R8).
"""

from __future__ import annotations

from .game import AAGame

__all__ = ["AAGame"]
