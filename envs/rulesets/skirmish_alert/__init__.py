"""Skirmish alert (seed 001): action points, On Alert, the initiative track and aptitude tests,
for 2, 3 or 4 teams on a square grid with eight facings.

## Description

Each round every fighter in play rolls 2d6 + INI for its place on the initiative track
(AL-PD-6; every die is a chance node), then fighters take their game turns in track order
(AL-PD-7, the core's ``InitiativeTrack``), each with its AP refilled (AL-PD-11). A fighter may
spend 1 AP to go On Alert, which ends its turn (AL-1, AL-2). Every action an opponent then
declares opens one window (AL-4): alert fighters that are not behind-backed by the actor
(AL-9) may, slot by slot in track order (AL-23; a team sends its fighters in the order it
chooses, AL-22), attempt an aptitude test, 2d6 + REF against a difficulty read from the acting
opponent's track position (AL-8, AL-10: 12, 12, 10, 10, 8, 8, 6, 6 — position 1 gives 12
(AL-11), position 6 gives 8 (AL-12)). Failure loses the alert (AL-13). Success pauses the
actor (AL-5, AL-14) while the reactor takes exactly one action of the menu (AL-15, AL-16:
activate an element, melee an engaged enemy, move or disengage, repair or sabotage, shoot or use
equipment when not engaged), at any target (AL-17); its alert then ends unless it pays 1 AP to
re-arm (AL-19, AL-20). One attempt per opposing fighter's turn (AL-21). The actor then
resumes (AL-24): an attack whose target moved out of reach, range or sight is lost (AL-18;
the event says why, a closed door included), but a charge's movement part is still made, to
the square the charger chose when it declared it (Q1, AL-25, AL-PD-20; a target still within
reach lets the charger pick its square next to it again); a move, disengage, or that charge
movement, whose destination can no longer be reached lets the actor pick another legal
destination within its MOV (AL-25, AL-PD-20; see the ``action`` decision below); an actor
knocked down loses the action (AL-26); AP stays spent. A Move goes to any square a free route
within MOV reaches, and the mover then sets its facing (AL-PD-15, a ``facing`` decision); so do
a reaction's move (AL-16(c)), a Disengage and a new destination after a blocked move.
At the start of its turn an alert fighter keeps its alert for 1 AP (AL-27, ends the turn) or
drops it. Terms (AL-28): AP = action point = action token; track = grid; fighter = character.

Everything the seed does not say is a proposed default of ``shared/research/alert_skirmish.md``
(``AL-PD-n``), each a parameter of :class:`~.params.AlertParams` where a researcher could want
to vary it (reaction timing, difficulty mode, reaction cost, re-arm after failure, ...).
Melee and shooting (AL-PD-21..25): 2d6 + MEL/SHO (+1 charging, +1 from the target's rear, +2
against a knocked-down target; cover and long range +1 to the target number) against 7 + DEF;
damage ``max(1, dmg - ARM)``; a margin of 3 or an impact weapon knocks down. Elements
(AL-PD-30): doors (closed ones block movement and sight), levers (toggle a door), objectives
(claimed by activating), machines (repair / sabotage: 2d6 + TEC against 8). Equipment
(AL-PD-31): draught (+2 W), smoke (3 x 3 blocks sight for the round), grapnel (ignore
difficult terrain this turn), shield (+1 DEF).

## Decision types

| value | who decides | actions |
|---|---|---|
| ``action`` | the active fighter's team | the own-turn menu below (AP paid on declaration); or, after a window, when the declared destination of its move (or disengage, or of its charge whose attack was lost) can no longer be reached: the legal ``move:+dx:+dy`` (``disengage:+dx:+dy``; free, the AP is paid) or ``pass`` (stay; here it does not end the turn); the context's ``trigger`` (observation ``trigger_kind``) names the blocked move or charge (frame ``alert.redirect``, AL-25, AL-PD-20); or, when the target of its charge moved but is still within reach, the ``charge:e{j}:D`` squares next to it that it can reach (frame ``alert.charge_square``, Q1) |
| ``maintain_alert`` | an alert fighter's team, at the start of its turn (``maintain_timing="round_start"``: of the round, in track order) | ``keep_alert`` (1 AP, ends the turn), ``drop_alert`` |
| ``reaction`` | the team owning the next slot of a window | ``alert:attempt:f{i}`` (own slot ``i`` tests), ``alert:decline`` |
| ``react`` | a reactor that passed its test | ``react:...`` menu (AL-16), ``react:none`` |
| ``rearm`` | the reactor, after its reaction | ``rearm`` (1 AP), ``rearm:decline`` |
| ``facing`` | the fighter that just moved or disengaged (own turn, reaction, new destination) | ``face:D`` for the eight ``D`` (AL-PD-15) |

## Action Space

One catalogue per team count (``Discrete``; 515 ids for 2 teams, 563 for 3, 611 for 4, with
``max_fighters_per_team = 4`` and ``max_elements = 8``). ``e{j}`` is an egocentric enemy slot
(the teams after the decider's in seat order, 4 slots each), ``x{k}`` an element slot, ``D``
one of ``N NE E SE S SW W NW`` (``y`` grows northwards).

| labels | AP | conditions |
|---|---|---|
| ``move:+dx:+dy`` (-6..6) | 1 | not engaged; a square a free route within MOV reaches (difficult squares cost 2); then ``face:D`` |
| ``charge:e{j}:D`` | 2 | not engaged; target in the front arc and in sight; ends on the free square on the target's side ``D``, reachable within MOV; then a blow at +1 (Q1) |
| ``melee:e{j}`` | 1 | engaged with the target |
| ``shoot:e{j}`` | 1 | not engaged; ranged weapon; target in range and sight |
| ``disengage:+dx:+dy`` (-2..2) | 1 | engaged; at most 2 steps within MOV; must end out of contact; then ``face:D`` |
| ``pivot:D`` | 1 | any other facing |
| ``stand_up`` | 1 | knocked down (a knocked-down fighter can do nothing else) |
| ``activate:x{k}`` / ``repair:x{k}`` / ``sabotage:x{k}`` | 1 | adjacent to the element |
| ``use:draught`` / ``use:smoke`` / ``use:grapnel`` | 1 | carried, uses left, not engaged |
| ``alert`` | 1 | ends the turn (AL-1, AL-2) |
| ``pass`` | 0 | ends the turn |
| ``keep_alert`` / ``drop_alert`` | 1 / 0 | start of an alert fighter's turn (AL-27) |
| ``alert:attempt:f{i}`` / ``alert:decline`` | — | a window slot (AL-5, AL-22) |
| ``react:<move, disengage, melee, shoot, activate, repair, sabotage, use>...`` / ``react:none`` | free (Q4) | the reaction menu (AL-16) |
| ``rearm`` / ``rearm:decline`` | 1 / 0 | after a reaction (AL-19) |
| ``face:D`` | — | the facing after a move or disengage (AL-PD-15) |

Chance outcomes: ``d6=1`` … ``d6=6`` (every roll is made of single d6 nodes).

## Observation Space

``Box(float32, (observation_size,))`` per team, egocentric (own fighter slots first, then the
other teams in seat order after it): 1497 floats for 2 teams, 1670 for 3, 1843 for 4 (with
``max_board = 16``). Pieces (``game.layout.table()`` prints indices):

| piece | shape | meaning |
|---|---|---|
| ``fighters`` | (n·F, 40) | per slot: present, in play, x, y, facing one-hot, wounds, W, AP, on alert, knocked down, engaged, track position, activated, attempted this turn, is active, REF MEL SHO TEC DEF ARM INI MOV, weapon range/damage, impact, items, grapnel on, the difficulty it would face reacting to the active fighter |
| ``elements`` | (X, 12) | present, x, y, kind one-hot, open/on/working, held by own / other, owned by own, broken by own |
| ``terrain`` | (4, B, B) | off-board, blocking, difficult, smoke |
| ``round``, ``scores`` | (1,), (n,) | round / rounds; VP / 10, own first |
| ``decision`` | (8,) | one-hot decision type |
| ``asked``, ``actor``, ``trigger_target`` | (n·F,) each | the fighter deciding, the fighter whose turn it is, the declared action's target |
| ``trigger_kind`` | (14,) | kind of the declared action in a window |
| ``window``, ``candidates`` | (4,), (F,) | difficulty / 12, candidate count / F, the slot's place in the window / (n·F), the team's slots left in it (this one included) / F; own slots that may attempt |

## Starting State

The scenario's fighters and elements; the first round's initiative rolls are the first chance
nodes. Built-in scenarios: ``default`` (2 teams of 4, doors, a lever, an objective, two
machines), ``ffa4`` (4 teams of 3), and the rule scenarios ``worked_example``, ``dodge``,
``knockdown``, ``three_teams``, ``duel``.

## Rewards

At the end, teams are placed by victory points (fighters in play, objectives held, machines
working or broken by the team; a team with nobody left places after those with fighters);
each team's return is (teams placed below − teams placed above) / (n − 1): zero-sum, +1 / −1 /
0 for two teams. ``state.placements()`` gives the places.

## Episode End

After the scenario's rounds, when at most one team has fighters in play, or at the
``max_decisions`` cap when it is set (scored on VP as they stand; chance outcomes are not
counted).

## Arguments

``load_game("skirmish_alert", scenario, params)``; parameters in :class:`~.params.AlertParams`.

## Version History

* v1: initial version.
* v2: the rules audit's fixes change outcomes, so states saved by v1 are refused: an attack
  paid with the fighter's last AP is resolved (AL-18, AL-24); a Charge whose attack is lost
  still moves to its declared square, and a Move blocked by a reaction asks for another
  destination (``alert.redirect``, RULINGS AL-PD-20); an engaged reactor never uses equipment
  (AL-16f).
* v3: a Move, a reaction's move and a Disengage name their destination square
  (``move:+dx:+dy``) and reach it by any free route, then set a free facing (``face:D``, a
  ``facing`` decision); a Charge names its square next to the target (``charge:e{j}:D``) and,
  when the target moves but stays in reach, picks again (AL-PD-15, Q1, RULINGS); window events
  list the fighters on alert that are not eligible, and why; a lost attack's event says why.
"""
