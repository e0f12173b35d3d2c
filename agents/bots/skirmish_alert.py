"""Scripted bots of the skirmish alert ruleset (seed 001), reading only the observation and the
legal mask (never the state):

* :class:`SkirmishHeuristic` (``heuristic``) — strikes an engaged enemy, else shoots, else
  charges, else closes on the nearest enemy or an objective not held; spends its last AP on
  going On Alert. In a window it tests (AL-5) when the reaction pays, with the candidate
  most likely to pass (P(2d6 ≥ difficulty − REF), the difficulty from the observation): when
  the declared charge, blow or shot aims at one of its fighters and the chance is at least
  ``threat_chance`` (1/12; the target itself goes first, it can step out of reach, AL-18), when
  the actor claims an objective or works a machine and a blow or shot at it is likely (in
  reach, in range, not into a melee with a friend), or when such a blow or shot is likely and
  the chance is at least ``idle_chance`` (0.4); otherwise it declines and keeps its alert for
  a later trigger. Reacting, strikes an engaged enemy or shoots the actor, steps away from an
  attack aimed at itself, else takes a free step towards the nearest enemy or objective;
  re-arms.
* :class:`NeverAlert` (``never-alert``) — the heuristic, but never goes on alert, drops alert
  and declines every window (an alert-policy baseline for research).
* :class:`AlwaysAlert` (``always-alert``) — the heuristic, but goes on alert whenever it has
  AP left instead of passing, keeps its alert, always attempts and always re-arms.
"""

from __future__ import annotations

import numpy as np

from envs.rulesets.skirmish_alert.params import ACTION_KINDS
from envs.rulesets.skirmish_alert.state import AlertGameData

from ..policies.base import BasePolicy, SeedLike, legal_ids

#: kinds of a declared action that threaten its target (AL-18: moving out of reach cancels it)
THREATS = ("charge", "melee", "shoot")
#: kinds that score for the actor (an objective claimed, a machine broken or repaired)
SCORING = ("activate", "sabotage", "repair")


def test_chance(need: int) -> float:
    """P(2d6 >= need), the success chance of an aptitude test needing ``need`` on the dice
    (AL-5; 1.0 for need <= 2, 0.0 above 12)."""
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= need) / 36


class SkirmishHeuristic(BasePolicy):
    """See the module docstring. ``game`` gives the static labels and observation layout."""

    name = "heuristic"
    alert_mode = "fair"  #: "fair", "never" or "always"
    #: least success chance to test when the trigger threatens one of ours (or scores)
    threat_chance = 1 / 12
    #: least success chance to test otherwise (only when a blow or shot is likely)
    idle_chance = 0.4

    def __init__(self, game: AlertGameData, seed: SeedLike = None):
        super().__init__(seed)
        self.game = game
        self.labels = game.actions.labels
        self.layout = game.layout
        self.fi = dict(game.feature_index)
        self.fighters_per_team = game.fighters_per_team
        self.decisions = tuple(game.decision_types)
        self.ids = {lab: i for i, lab in enumerate(self.labels)}

    # -- reading the observation ------------------------------------------------------------
    def _parts(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return self.layout.split(np.asarray(obs, dtype=np.float32))

    def _pos(self, row: np.ndarray) -> np.ndarray:
        B = self.game.max_board
        return np.array([row[self.fi["x"]] * B - 0.5, row[self.fi["y"]] * B - 0.5])

    def _enemy_rows(self, p: dict[str, np.ndarray]) -> list[tuple[int, np.ndarray]]:
        fv = p["fighters"]
        per_team = self.fighters_per_team
        return [(j, fv[per_team + j]) for j in range(fv.shape[0] - per_team)
                if fv[per_team + j, self.fi["in_play"]] > 0]

    def _pick(self, legal: np.ndarray, prefix: str) -> list[int]:
        return [int(a) for a in legal if self.labels[a].startswith(prefix)]

    def _weakest(self, ids: list[int], p: dict[str, np.ndarray]) -> int:
        fv = p["fighters"]

        def wounds(a: int) -> float:
            j = self._enemy(a)
            return float(fv[self.fighters_per_team + j, self.fi["wounds"]])
        return min(ids, key=lambda a: (wounds(a), a))

    def _enemy(self, a: int) -> int:
        """The enemy slot a ``...:e{j}`` or ``charge:e{j}:D`` label names."""
        return int(self.labels[a].split(":e", 1)[1].split(":")[0])

    # -- acting -----------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_ids(action_mask)
        if legal.size == 1:
            return int(legal[0])
        p = self._parts(observation)
        dt = self.decisions[int(np.argmax(p["decision"]))]
        lab = {self.labels[a]: int(a) for a in legal}
        if dt == "maintain_alert":
            if self.alert_mode == "always":
                return lab["keep_alert"]
            return lab["drop_alert"]
        if dt == "reaction":
            return self._attempt(p, legal, lab)
        if dt == "rearm":
            if self.alert_mode == "never":
                return lab["rearm:decline"]
            return lab.get("rearm", lab["rearm:decline"])
        if dt == "react":
            return self._react(p, legal, lab)
        if dt == "facing":
            return self._facing(p, lab)
        return self._action(p, legal, lab)

    def _attempt(self, p, legal, lab) -> int:
        """A window slot: test when the reaction pays (module docstring). ``p`` holds the
        observation pieces; the chance of each candidate is P(2d6 >= difficulty - REF) with
        the difficulty it faces (``reaction_difficulty``, else the window's)."""
        attempts = self._pick(legal, "alert:attempt:")
        if self.alert_mode == "never" or not attempts:
            return lab["alert:decline"]
        if self.alert_mode == "always":
            return attempts[0]
        fv, fi = p["fighters"], self.fi
        target = int(np.argmax(p["trigger_target"])) if p["trigger_target"].any() else -1
        kind = (ACTION_KINDS[int(np.argmax(p["trigger_kind"]))] if p["trigger_kind"].any()
                else "")
        actor = int(np.argmax(p["actor"])) if p["actor"].any() else -1

        def slot(a: int) -> int:
            return int(self.labels[a].rsplit("f", 1)[1])

        def chance(a: int) -> float:
            row = fv[slot(a)]
            diff = row[fi["reaction_difficulty"]] * 12 or p["window"][0] * 12
            return test_chance(int(round(diff - row[fi["ref"]] * 4)))

        def useful(a: int) -> bool:  # a blow or a shot is likely on the menu
            row = fv[slot(a)]
            if row[fi["engaged"]] > 0:
                return True
            if row[fi["range"]] <= 0 or actor < 0:
                return False
            apos = self._pos(fv[actor])
            if any(fv[j, fi["in_play"]] > 0 and np.abs(self._pos(fv[j]) - apos).max() < 1.5
                   for j in range(self.fighters_per_team)):
                return False  # the actor is in melee with one of ours: no shooting (AL-PD-25)
            return bool(np.abs(self._pos(row) - apos).max() <= row[fi["range"]] * 10 + 0.5)

        threatened = 0 <= target < self.fighters_per_team and kind in THREATS
        if threatened:  # the trigger aims at us: the target itself dodges or hits first
            pick = max(attempts, key=lambda a: (slot(a) == target, useful(a), chance(a), -a))
            if chance(pick) >= self.threat_chance:
                return pick
        if kind in SCORING:  # the actor claims an objective or breaks a machine
            pick = max(attempts, key=lambda a: (useful(a), chance(a), -a))
            if useful(pick) and chance(pick) >= self.threat_chance:
                return pick
        shooters = [a for a in attempts if useful(a)]  # otherwise only for a shot or a blow
        if shooters:
            pick = max(shooters, key=lambda a: (chance(a), -a))
            if chance(pick) >= self.idle_chance:
                return pick
        return lab["alert:decline"]

    def _react(self, p, legal, lab) -> int:
        melee = self._pick(legal, "react:melee:")
        if melee:
            return self._weakest(melee, p)
        shoot = self._pick(legal, "react:shoot:")
        actor = int(np.argmax(p["actor"])) if p["actor"].any() else -1
        if shoot:
            own = [a for a in shoot if self.fighters_per_team + self._enemy(a) == actor]
            return own[0] if own else self._weakest(shoot, p)
        asked = int(np.argmax(p["asked"])) if p["asked"].any() else -1
        if asked >= 0 and p["trigger_target"].any() and int(np.argmax(p["trigger_target"])) \
                == asked and actor >= 0:
            moves = self._pick(legal, "react:move:") + self._pick(legal, "react:disengage:")
            if moves:
                fv = p["fighters"]
                apos = self._pos(fv[actor])
                here = self._pos(fv[asked])
                return max(moves, key=lambda a: (self._after(here, a) - apos).__abs__().max())
        if asked >= 0 and self.alert_mode == "fair":  # a free step towards the goals
            best = self._closing_move(p, self._pick(legal, "react:move:"), asked)
            if best is not None:
                return best
        return lab["react:none"]

    def _after(self, here: np.ndarray, a: int) -> np.ndarray:
        """The square a ``move:+dx:+dy`` / ``disengage:+dx:+dy`` label ends on."""
        parts = self.labels[a].split(":")
        return here + np.array([int(parts[-2]), int(parts[-1])])

    def _facing(self, p, lab) -> int:
        """After a move: face the nearest enemy (AL-PD-15, AL-9: keeps it out of the rear
        arc)."""
        from envs.rulesets.skirmish_alert.params import DIRECTIONS, VECTORS

        asked = int(np.argmax(p["asked"])) if p["asked"].any() else 0
        here = self._pos(p["fighters"][asked])
        enemies = [self._pos(r) for _, r in self._enemy_rows(p)]
        if not enemies:
            return lab["face:N"]
        near = min(enemies, key=lambda q: (float(np.abs(q - here).max()), tuple(q)))
        way = near - here
        best = max(range(8), key=lambda d: (float(np.dot(VECTORS[d], way))
                                            / np.hypot(*VECTORS[d]), -d))
        return lab[f"face:{DIRECTIONS[best]}"]

    def _action(self, p, legal, lab) -> int:
        fv = p["fighters"]
        me = int(np.argmax(p["actor"])) if p["actor"].any() else 0
        ap = fv[me, self.fi["ap"]] * 4
        if "stand_up" in lab:
            return lab["stand_up"]
        melee = self._pick(legal, "melee:")
        if melee:
            return self._weakest(melee, p)
        shoot = self._pick(legal, "shoot:")
        if shoot:
            return self._weakest(shoot, p)
        charge = self._pick(legal, "charge:")
        if charge:
            return self._weakest(charge, p)
        if "alert" in lab and self.alert_mode != "never" and (
                ap <= 1.01 or self.alert_mode == "always"):
            return lab["alert"]
        for kind in ("sabotage:", "repair:", "activate:"):
            ids = [a for a in self._pick(legal, kind) if self._useful(p, a)]
            if ids:
                return ids[0]
        best = self._closing_move(p, self._pick(legal, "move:"), me)
        if best is not None:
            return best
        if "alert" in lab and self.alert_mode != "never":
            return lab["alert"]
        return lab["pass"]

    def _closing_move(self, p, moves: list[int], me: int) -> int | None:
        """The move (``move:`` or ``react:move:``) of slot ``me`` that ends nearest (Chebyshev)
        to an enemy or an objective not held, if it gets nearer than standing still."""
        if not moves:
            return None
        here = self._pos(p["fighters"][me])
        goals = [self._pos(r) for _, r in self._enemy_rows(p)]
        ev = p["elements"]
        for x in range(ev.shape[0]):
            if ev[x, 0] > 0 and ev[x, 5] > 0 and ev[x, 8] == 0:  # objective not held
                B = self.game.max_board
                goals.append(np.array([ev[x, 1] * B - 0.5, ev[x, 2] * B - 0.5]))
        if not goals:
            return None

        def dist(a: int) -> float:
            q = self._after(here, a)
            return min(float(np.abs(q - g).max()) for g in goals)
        best = min(moves, key=lambda a: (dist(a), a))
        if dist(best) < min(float(np.abs(here - g).max()) for g in goals):
            return best
        return None

    def _useful(self, p, a: int) -> bool:
        kind, x = self.labels[a].split(":x")
        ev = p["elements"][int(x)]
        if kind == "activate":
            return ev[5] > 0  # claim objectives; leave doors and levers alone
        if kind == "sabotage":
            return ev[10] == 0  # not our own machine
        return ev[10] > 0  # repair our own


class NeverAlert(SkirmishHeuristic):
    name = "never-alert"
    alert_mode = "never"


class AlwaysAlert(SkirmishHeuristic):
    name = "always-alert"
    alert_mode = "always"
