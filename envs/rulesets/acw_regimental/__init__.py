"""ACW regimental: the American Civil War regimental game of seed 003 with its five reactions.

## Description

Two sides, Union (side 0) and Confederate (side 1), each a brigade of infantry regiments of
stands, a battery of gun sections, skirmish screens and (in the crossroads battle) a small cavalry
regiment, fight over a 48" x 36" table. The game is IGOUGO (RULE-04-1.1): a game turn is two
player-turns of five phases (ACW-PD-12) — 1 Command (Staff Pips, Rally, Reserve), 2 Active
Maneuver & Assault, 3 Ranged Combat, 4 Melee, 5 End (Morale, Smoke expiry, flags, army break).
The non-active side is not passive: inside the active side's Phase 2 it may react with the
seed's five Tactical Reactions (RULE-04-1.2): Opportunity Fire, Skirmish/Screen Evade and
Refuse the Flank in Window A (along the path of ordinary moves, ACW-PD-24), Evade, Refuse the
Flank and Counter-Charge at a charge declaration (Window B1) and the Closing Volley at the 4.0"
mark (Window B2) (I-10). Three reactions are free, two are commanded (RULE-04-1.3, I-2, I-3):
Refuse the Flank spends a reserved pip or passes a flat 4+ Emergency Drill Check (RULE-04-5.2,
I-19); Counter-Charge needs a reserved pip (RULE-04-6.3). Each defending unit reacts at most once
per enemy activation (RULE-04-1.4). Every die is its own chance node (``d6=1`` … ``d6=6``).
Rules sources: the seed ``RULE-04-x.y`` statements (section 6 renumbered 6.1-6.5), the
resolutions ``I-1`` … ``I-28`` and house rules ``ACW-PD-1`` … ``ACW-PD-38`` of
``acw_fillins.md`` (RULINGS "ACW regimental" items 1-10; item 10 is cited as ``RULINGS-10``).
Every event of the log cites them.

Decision types (:class:`~.actions.ACWDecision`): ``command`` (rally, reserve), ``maneuver``
(which unit to activate and its movement primitives), ``reaction`` (every reaction window;
"decline" is always offered, and a window opens only when some reaction is legal), ``fire``
(Phase 3 target), plus ``chance`` and ``terminal``. When several defenders trigger at the same
point of a mover's path they are asked in slot order. A move that begins inside a trigger
zone (the Opportunity Fire band, a screen's 6.0", a Line's flank threat) triggers at the first
point of its path, and that window's event cites ``RULINGS-10``; PD-24's "first enters" is the
mover that starts outside. A decision with a single legal option
(only ``end_phase``, only ``end_activation``, only ``reserve:0``) is applied automatically and
does not appear in the history.

Design rulings of this engine where the texts leave room (beyond the PD defaults):

* Reaction fire (Closing Volley, Opportunity Fire) uses the seed's range-bracket to-hit numbers
  with no enfilade bonus (RULE-04-2.3, RULE-04-3.3; worked Example C fires at a column's flank
  on 4+); the enfilade +1 of ACW-PD-18 and the moved/disordered modifiers apply in Phase 3.
* Zones and arcs use footprint sample points (corners, centre, edge midpoints); LOS is traced
  centre to centre (ACW-PD-17).
* The charger turns to face the contacted edge at declaration and moves straight to its final
  flush position (ACW-PD-23 step 7); the path is capped at the charge distance (9", or 12"
  for cavalry with ``cavalry_charge_12``; a redirected charge, I-21, at 9" in all) and a
  charger that cannot reach falls short, except against a refused flank (contact is drawn on
  the front edge there). The road rate holds while every straight move of the activation
  stays on a road (ACW-PD-19); a unit more than 2" inside woods neither sees nor is seen
  from outside (ACW-PD-17).
* Several friends against one enemy (ACW-PD-26): a unit may charge an enemy that friends
  already engage this phase when the contacted edge has room. The first charger lands centred
  on the edge; a later one whose centred spot is taken slides along that edge (first toward
  its own side) to the nearest spot clear of every other unit that still covers part of the
  edge and is reached by a clear straight path; with no such spot the charge is illegal
  (ACW-PD-23). Friends in contact do not hide the target from the charger; the engaged target
  has no Window B1/B2 reaction. In Phase 4 the friends are one side: the best unit's own
  modifiers, the side's flank/rear contact, momentum and downhill from any of them, all their
  stands, +1 support. The side's result falls once, on that best unit (the 1-2 stands of a
  loss, the 1 hit of a tie); every unit of the side is Disordered and retreats (on a tie, every
  charger recoils), a loss by 5+ breaks all of them, and every winning charger may advance.
* Counter-Charge requires the charger in the defender's front zone and open ground between the
  two centres (ACW-PD-34). Refuse the Flank is offered to infantry Lines of 3+ stands in good
  order, triggered by formed movers (ACW-PD-33, I-23).
* Voluntary Passage of Lines (ACW-PD-29): an advance (a third, two thirds or all) stopped by
  a friendly formed unit passes through it when, after paying 3", it ends entirely clear on
  the far side; the mover then takes the Discipline Check. Retire and side-step never pass
  through friends (they are clipped). Retreats through friends make the friends test. A
  friend in base contact with the mover blocks moving into it but not sliding along it, so
  Lines flank to flank advance side by side (ACW-PD-21.8); a friend the mover already
  overlaps when the move starts does not stop it moving out.
* An activation chains at most 8 primitives (engine cap, keeps episodes finite).

## Action Space

``Discrete(65)`` for the default ``max_units_per_side = 8`` (``u{k}``: own slot k, ``e{k}``:
enemy slot k; the same ids for every scenario):

| ids | labels | decision | rule |
|---|---|---|---|
| 0–1 | `rally:pay_pip`, `rally:roll` | command | ACW-PD-15 |
| 2–4 | `reserve:0` … `reserve:2` | command | ACW-PD-14 |
| 5–12 | `activate:u0` … `activate:u7` | maneuver | ACW-PD-12 |
| 13 | `end_phase` | maneuver | ACW-PD-12 |
| 14–16 | `advance:third|two_thirds|all` (of the remaining allowance) | maneuver | ACW-PD-21 |
| 17 | `retire` (half allowance back, double cost) | maneuver | ACW-PD-21.1 |
| 18–19 | `sidestep:left|right` (2", double cost, Line only) | maneuver | ACW-PD-21.1 |
| 20–23 | `wheel:left|right` (45°), `wheel:left_half|right_half` (22.5°) [1] | maneuver | ACW-PD-21.2/3 |
| 24–26 | `face:left|right|about` | maneuver | ACW-PD-21.4 |
| 27–31 | `formation:line|assault_column|road_column|limber|unlimber` | maneuver | ACW-PD-21.5 |
| 32–33 | `skirmish:detach|rejoin` | maneuver | ACW-PD-30 |
| 34–41 | `charge:e0` … `charge:e7` (1 Staff Pip) | maneuver | ACW-PD-23 |
| 42 | `end_activation` | maneuver | ACW-PD-12 |
| 43–44 | `react:opportunity_fire`, `react:wait_short` | reaction | RULE-04-3.x, I-18 |
| 45–47 | `react:evade_4|5|6` | reaction | RULE-04-4.x |
| 48–49 | `react:refuse_1|2` | reaction | RULE-04-5.x |
| 50–51 | `react:counter_charge_2|3` (surge inches) | reaction | RULE-04-6.x |
| 52 | `react:closing_volley` | reaction | RULE-04-2.x |
| 53 | `react:decline` | reaction | RULE-04-1.2 |
| 54–61 | `fire:e0` … `fire:e7` | fire | ACW-PD-25b |
| 62 | `hold_fire` | fire | ACW-PD-25b |
| 63–64 | `melee:advance`, `melee:hold` (a winning charger may advance up to 2") | maneuver | ACW-PD-26 |

[1] A Line wheels on a front corner; a column pivots on its head (1"); a screen or an
unlimbered battery pivots in place.

Chance outcomes: ``d6=1`` … ``d6=6`` (ids 0-5), uniform.

## Observation Space

``Box(float32, (736,))`` for 8 slots, egocentric: own units first, the table rotated 180° for
side 1 so "forward" is the same for both seats. Per unit slot (42 features): present, kind
one-hot (3), formation one-hot (7), x/W, y/D, cos/sin heading, stands/S0, S0/8, hit counter,
Disordered, smoked, engaged, refused left/right, refused stands/2, health one-hot (4),
experience one-hot (3), weapon one-hot (5), activated, moved, charged, fired, is screen, Rebel
Yell.

| piece | indices | shape | meaning |
|---|---|---|---|
| `own_units` | 0–335 | (8, 42) | own unit slots |
| `enemy_units` | 336–671 | (8, 42) | enemy unit slots |
| `resources` | 672–674 | (3,) | own pips/6, own reserved/2, enemy reserved/2 |
| `phase` | 675–679 | (5,) | phase one-hot (ACW-PD-12) |
| `turn` | 680 | (1,) | game turn / turns |
| `active` | 681 | (1,) | observer is the active side |
| `decision` | 682–687 | (6,) | decision type one-hot |
| `ctx_unit` | 688–703 | (16,) | unit asked / acting (own slots, then enemy slots) |
| `ctx_trigger` | 704–719 | (16,) | unit that triggered the window |
| `ctx_distance` | 720 | (1,) | their distance / 12" |
| `ctx_zone` | 721–724 | (4,) | zone of the asked unit holding the trigger's centre |
| `ctx_kind` | 725–735 | (11,) | rally, reserve, activation, opp_medium/short, evade, refuse, charge_b1/b2, fire, melee_advance |

There is no hidden information in this ruleset; ``observation_string`` is the text twin.

## Starting State

The scenario's units in their deployment (``default``: "Two Farms", this project's symmetric
battle: both sides' forces, deployment, terrain and objectives are images of each other under a
half turn of the table, a roll-off decides who moves first, and after every player-turn the
side that did not move banks the objectives it still holds; ``two_farms_union_first``: the same
battle with the Union always first; ``two_farms_each_turn``: the Union first and the
objectives banked at the end of every game turn, as it was first measured; ``crossroads``:
"Crossroads", ACW-PD-37 adapted to RULINGS item 8, the v0 default; or the worked-example
scenarios ``example_a_closing_volley``, ``example_b_refuse_flank``,
``example_c_opportunity_fire``), ``first_side`` to move (``0``, ``1``, or ``"roll_off"``:
ACW-PD-11's roll-off, 1D6 a side, ties rolled again, the higher roller first — two chance nodes
per roll before Phase 1), Phase 1 of turn 1 (or the scenario's ``[start]`` overrides: phase 2,
pips, reserved pips; an ``active`` override skips the roll-off).

Scenario scoring (the TOML's optional ``[scoring]`` table, :class:`~.params.ScoringSpec`;
validated on load, a bad value names the file and the key):

| key | values | default | meaning |
|---|---|---|---|
| ``objective_vp`` | int 0–20 | 3 (ACW-PD-36) | VP per objective held (a unit in good order within 3", no enemy in good order within 3") |
| ``objectives_score`` | ``"end"``, ``"each_turn"``, ``"after_enemy_turn"`` | ``"end"`` (ACW-PD-36) | held at the end of the game; banked by the holder at the end of every game turn (the last included); or banked at the end of every player-turn by the side that did not move (each side once a game turn, after the enemy's move); banked VP are the objectives' share of the final VP |

Game length is the ``turns`` game parameter (10, ACW-PD-35).

## Rewards

Zero until the end; then +1 / -1 (0 for a draw) by the winner (ACW-PD-36, RULINGS item 9): VP
are 1 per enemy stand lost, 2 per enemy unit Broken and the objectives' VP (scenario
``[scoring]``); an army break wins outright.
With ``shaped_reward`` the terminal return is (own VP - enemy VP) / 20 clipped to [-1, 1].

## Episode End

After ``turns`` game turns (ACW-PD-35; the side with more VP wins, equal VP is a draw), when a
side has lost at least half its starting units at the end of a game turn (army break, ACW-PD-36),
or at the ``max_decisions`` cap (scored on VP).

## Arguments

``load_game("acw_regimental", scenario=None, params=None)``; ``params`` (strict types, unknown
keys refused): ``max_units_per_side`` (8), ``pips_fixed`` (False), ``turns`` (10),
``own_fire_blocks_reactions`` (True), ``phase3_six_disorders_all_ranges`` (False),
``cavalry_charge_12`` (False), ``morale_cascade`` (False), ``shaped_reward`` (False),
``max_decisions`` (3000), ``counter_charge_cost`` (1 reserved pip, RULE-04-6.3),
``opportunity_fire_trigger`` (8.0 inches, RULE-04-3.1, I-18). See :class:`~.params.ACWParams`.

## Version History

* v0: first version — the 28 seed rule statements, I-1 … I-28, PD-1 … PD-38 with PD-25b.
* v1: the turn cycle, phases, Window A and dice stored as typed frames (same play).
* v2: the charge and Windows B1/B2 stored as typed frames (``acw.charge``, ``acw.window_b1``,
  ``acw.window_b2``); same play.
* v3: the volley, the winner's advance and Passage of Lines tests stored as typed frames
  (``acw.volley``, ``acw.winner_advance``, ``acw.passage_of_lines``); same play.
* v4: the activation and the move stored as typed frames (``acw.activation``, ``acw.move``);
  same play.
* v5: a Window A frame (``acw.window_a``) records ``at_path_start``, and the ``window_a``
  event of a move that began inside the trigger's zone cites ``RULINGS-10``; same play.
* v6: state keys named for what they hold: ``player_turn`` (was ``pt``), ``decisions_taken``
  (``ndec``), ``broken_this_player_turn`` (``broke_pt``), ``spent_triggers`` as
  ``[slot, trigger]`` pairs (``consumed``, ``"slot:trigger"`` strings); unit keys
  ``starting_stands`` (``s0``) and ``counter_charged`` (``cc``); same play.
"""
