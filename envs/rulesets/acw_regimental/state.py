"""The ACW regimental state machine (seed 003 + acw_fillins.md, RULINGS items 1-9).

The game is driven by a stack of small JSON-serialisable *frames* (plain dicts). The frame on
top decides what happens next: it either runs (pushing and popping other frames), or waits for
a decision of one side, or waits for one die (a ``roll`` frame: every d6 is its own chance
node). Frames:

* typed frames of :mod:`.procedures`: the player-turn cycle (ACW-PD-12, turn count ACW-PD-35,
  army break and victory ACW-PD-36) and the five phases — Command (ACW-PD-13..15), Maneuver
  (ACW-PD-12), Ranged Combat (ACW-PD-25b), Melee (ACW-PD-26), End (ACW-PD-27, PD-32).
* ``act`` / ``move``: Phase 2 activations and movement primitives (ACW-PD-21) that stop at
  each Window A trigger point on the mover's path (the typed
  :class:`.procedures.window_a.WindowA`, ACW-PD-24). A declared charge is the typed
  :class:`.procedures.charge.Charge` with Windows B1 and B2 (ACW-PD-23).
* volleys (ACW-PD-25: Phase 3 fire, Opportunity Fire, Closing Volley): the typed
  :class:`.procedures.volley.Volley`.
* Passage of Lines tests (ACW-PD-29) and the winner's advance after a melee (ACW-PD-26): the
  typed :class:`.procedures.passage_of_lines.PassageOfLinesTests` and
  :class:`.procedures.winner_advance.WinnerAdvance`.
* dice: one chance node per die, the core frame :class:`envs.core.frames.RollDice`.

Typed frames (``envs.core.procedure.Frame`` subclasses) and the remaining dict frames share the
stack while the flow moves onto the core procedure pieces: the driver runs a typed frame through
its interface (``run`` returns a ``Wait`` / ``ChanceNode`` / ``Push`` / ``Done`` step) and a dict
frame through the methods listed for its kind ``"k"`` in the tables ``_RUN`` / ``_LEGAL`` /
``_APPLY`` / ``_WHY`` at the end of the module (the activation and the move).
"""

from __future__ import annotations

import math
from typing import Any

from envs.core.geometry import (Footprint, distance_exceeds,
                                first_crossing, footprint_distance, interiors_overlap,
                                overlaps, polygon_contains, zone_of)
from envs.core.geometry import point_segment_distance as psd
from envs.core.frames import RollDice
from envs.core.procedure import ChanceNode, Done, Frame, Push, Wait, record_from_dict
from envs.core.protocol import CHANCE, TERMINAL, Illegality, State

from . import combat as C
from . import tables as T
from .actions import ACWDecision
from .procedures import PlayerTurnCycle, TurnStep, WindowA
from .procedures.charge import declare_charge
from .procedures.passage_of_lines import PassageOfLinesTests
from .procedures.winner_advance import WinnerAdvance
from .procedures.window_a import OFFERS
from .reactions.counter_charge import why_no_pip
from .paths import _fp_list, path_fn, path_speed
from .movement import (circ, footprint_points, partly_in_arc, plan_path, points_in_arc,
                       segment_hits_footprint)
from .reactions import (can_evade, can_fire_reaction, can_refuse, counter_charge_eligible,
                        trigger_clearance, trigger_pred, trigger_range,
                        trigger_zone_clearance)
from .tables import Band, Cover, Health
from .units import EXPE, FORM, KIND, WEAP, Unit, clear_turn_flags, footprint_size

D_CHANCE = ACWDecision.CHANCE
D_TERM = ACWDecision.TERMINAL
D_CMD = ACWDecision.COMMAND
D_MAN = ACWDecision.MANEUVER
D_REACT = ACWDecision.REACTION
D_FIRE = ACWDecision.FIRE

SIDE = ("Union", "Confederate")
R45 = math.pi / 4
R22 = math.pi / 8
MAX_PRIMS = 8  # engine cap on primitives per activation (keeps episodes finite)
# contact beside a friend (ACW-PD-23 step 7, ACW-PD-26): a charger slid along the contacted edge
# still covers this much of it, is searched in these steps and stops this clear of its neighbour
CONTACT_MIN_OVERLAP = 0.1
SLIDE_STEP = 0.05
SLIDE_GAP = 0.01
_AUTO = {"act"}  # dict frames whose single legal option is applied silently (typed frames:
# ``Frame.auto_apply_forced``)
_ADV_FRAC = {"third": 1 / 3, "two_thirds": 2 / 3, "all": 1.0}  # advance primitives (PD-21)
_ALW_MEMO: dict[tuple, float] = {}  # ACWState.allowance by (kind, formation, screen, road, dis)
_FACE_ANG = {"face_left": math.pi / 2, "face_right": -math.pi / 2, "face_about": math.pi}

class ACWState(State):
    """Dynamic state of one ACW regimental game (see the module docstring)."""

    # transient caches, never copied by ``clone`` nor serialised (class-level defaults):
    # ``_pending_legal``: the legal list ``_advance`` computed for the waiting frame;
    # ``_lact_pred``: ``(unit, footprint, predicate)``, the clipping predicate the activation's
    # legal list was computed with; ``_handoff``: the same, while that decision is applied
    # (see :meth:`_blocked_fn`); ``_bcache``: the latest predicate built by ``_blocked_fn``
    _pending_legal: list[int] | None = None
    _lact_pred: tuple | None = None
    _handoff: tuple | None = None
    _bcache: tuple | None = None
    _transient_attrs = ("_pending_legal", "_lact_pred", "_handoff", "_bcache")

    # ------------------------------------------------------------------------------------------
    # construction, copy, serialisation
    # ------------------------------------------------------------------------------------------
    def __init__(self, game, init: bool = True):
        super().__init__(game)
        if not init:
            return
        g = game
        m = g.max_units_per_side
        self.units: list[list[Unit | None]] = [[None] * m, [None] * m]
        for u in g.initial_units:
            self.units[u.side][u.slot] = u.copy()
        st = g.spec.start
        self.first = g.first_side
        self.active = st.active if st.active is not None else g.first_side
        self.turn = st.turn
        self.pt = 0 if self.active == self.first else 1
        self.phase = st.phase
        self.pips = [0, 0]
        self.reserved = list(st.reserved)
        self.ndec = 0
        self.done = False
        self.result = [0.0, 0.0]
        self.winner = -2  # -2 running, -1 draw, 0/1 winner
        self.reacted: list[int] = []
        self.consumed: list[str] = []
        self.broke_pt: list[list[int]] = []
        self.objective_vp_banked = [0, 0]  # scoring "each_turn" (scenario [scoring])
        self.stack: list[dict | Frame] = [PlayerTurnCycle()]
        if st.phase == 2:
            self.pips[self.active] = st.pips
            self.stack = [PlayerTurnCycle(TurnStep.P2)]
        self.cur = (TERMINAL, D_TERM)
        self.log("setup", ("ACW-PD-37", "ACW-PD-11"),
                 f"scenario {g.scenario_name}: {SIDE[self.active]} moves first, turn {self.turn}",
                 None, scenario=g.scenario_name)
        self._advance()

    def clone(self) -> "ACWState":
        s = ACWState.__new__(ACWState)
        s.game = self.game
        self._copy_base_into(s)
        s.units = [[u.copy() if u is not None else None for u in side] for side in self.units]
        s.first, s.active, s.turn = self.first, self.active, self.turn
        s.pt, s.phase = self.pt, self.phase
        s.pips = list(self.pips)
        s.reserved = list(self.reserved)
        s.ndec, s.done, s.winner = self.ndec, self.done, self.winner
        s.result = list(self.result)
        s.reacted = list(self.reacted)
        s.consumed = list(self.consumed)
        s.broke_pt = [list(b) for b in self.broke_pt]
        s.objective_vp_banked = list(self.objective_vp_banked)
        s.stack = [_copy_frame(f) if type(f) is dict else f.copy() for f in self.stack]
        s.cur = self.cur
        return s

    def _to_dict(self) -> dict[str, Any]:
        d = self._to_dict_base()
        if self.game.objectives_score == "each_turn":
            d["objective_vp_banked"] = list(self.objective_vp_banked)
        return d

    def _to_dict_base(self) -> dict[str, Any]:
        return {"units": [[u.to_dict() if u is not None else None for u in side]
                          for side in self.units],
                "first": self.first, "active": self.active, "turn": self.turn, "pt": self.pt,
                "phase": self.phase, "pips": list(self.pips), "reserved": list(self.reserved),
                "ndec": self.ndec, "done": self.done, "winner": self.winner,
                "result": list(self.result), "reacted": list(self.reacted),
                "consumed": list(self.consumed), "broke_pt": [list(b) for b in self.broke_pt],
                "stack": [_copy_frame(f) if type(f) is dict else f.to_dict()
                          for f in self.stack],
                "cur": [self.cur[0], str(self.cur[1].value)]}

    @classmethod
    def from_dict(cls, game, d: dict[str, Any]) -> "ACWState":
        s = cls(game, init=False)
        s.units = [[Unit.from_dict(u) if u is not None else None for u in side]
                   for side in d["units"]]
        for k in ("first", "active", "turn", "pt", "phase", "ndec", "done", "winner"):
            setattr(s, k, d[k])
        s.pips = list(d["pips"])
        s.reserved = list(d["reserved"])
        s.result = list(d["result"])
        s.reacted = list(d["reacted"])
        s.consumed = list(d["consumed"])
        s.broke_pt = [list(b) for b in d["broke_pt"]]
        s.objective_vp_banked = list(d.get("objective_vp_banked", [0, 0]))
        s.stack = [record_from_dict(f) if "kind" in f else _copy_frame(f) for f in d["stack"]]
        s.cur = (int(d["cur"][0]), ACWDecision(d["cur"][1]))
        return s

    # ------------------------------------------------------------------------------------------
    # protocol hooks
    # ------------------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.cur[0]

    def decision_type(self) -> ACWDecision:
        return self.cur[1]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        # the chance frame on top (a die): its run is pure while it waits
        return list(self.stack[-1].run(self).outcomes)

    def _legal_actions(self) -> list[int]:
        pl = self._pending_legal
        if pl is not None:
            return list(pl)
        fr = self.stack[-1]
        if type(fr) is not dict:
            return fr.legal_actions(self)
        return sorted(_LEGAL[fr["k"]](self, fr))

    def _apply_action(self, action: int) -> None:
        self._pending_legal = None
        fr = self.stack[-1]
        if self.cur[0] != CHANCE:
            self.ndec += 1
        # the clipping predicate of this decision's legal list serves its handler (nothing
        # has changed since it was built: the state is only changed by applying actions)
        self._handoff = self._lact_pred
        self._lact_pred = None
        try:
            if type(fr) is dict:
                _APPLY[fr["k"]](self, fr, action)
            else:
                step = fr.apply(self, action)
                if step is not None:
                    self._follow(step)
        finally:
            self._handoff = None
        if self.ndec >= self.game.max_decisions and not self.done:
            self.log("decision_cap", ("ACW-PD-35",),
                     f"decision cap {self.game.max_decisions} reached: game scored on VP")
            self._end_game("decision cap")
        self._advance()

    def _why_illegal(self, action: int) -> Illegality:
        fr = self.stack[-1]
        if type(fr) is dict:
            kind = fr["k"]
            fn = _WHY.get(kind)
            if fn is not None:
                w = fn(self, fr, action)
                if w is not None:
                    return Illegality(tuple(w[0]), w[1])
        else:
            kind = fr.kind
            why = fr.why_illegal(self, action)
            if why is not None:
                return why
        lab = self.game.actions.labels[action]
        return Illegality(("ACW-PD-12",), f"{lab!r} is not a choice of this "
                                          f"{self.cur[1].value} decision ({kind})")

    def returns(self) -> list[float]:
        return list(self.result) if self.done else [0.0, 0.0]

    # ------------------------------------------------------------------------------------------
    # the driver
    # ------------------------------------------------------------------------------------------
    def _advance(self) -> None:
        # a dict frame's methods are looked up by its kind in the explicit tables ``_RUN`` /
        # ``_LEGAL`` / ``_APPLY`` (see the end of the module)
        stack = self.stack
        s_fn = _RUN
        while True:
            if self.done:
                self.cur = (TERMINAL, D_TERM)
                return
            fr = stack[-1]
            if type(fr) is not dict:  # a typed frame (envs.core.procedure)
                if self._run_frame(fr):
                    return
                continue
            k = fr["k"]  # a frame's kind never changes
            if s_fn[k](self, fr):
                if k in _AUTO and self.cur[0] >= 0:
                    legal = _LEGAL[k](self, fr)
                    if len(legal) == 1:
                        self._lact_pred = None
                        _APPLY[k](self, fr, legal[0])
                        continue
                    self._pending_legal = sorted(legal)
                return

    def _run_frame(self, fr: Frame) -> bool:
        """Run a typed frame once and follow its step; ``True`` when it now waits."""
        step = fr.run(self)
        kind = type(step)
        if kind is ChanceNode:
            self.cur = (CHANCE, D_CHANCE)
            return True
        if kind is Wait:
            self.cur = (step.player, step.decision)
            if fr.auto_apply_forced and step.player >= 0:
                legal = fr.legal_actions(self)
                if len(legal) == 1:  # a forced choice is applied silently (not in history)
                    self._lact_pred = None
                    step = fr.apply(self, legal[0])
                    if step is not None:
                        self._follow(step)
                    return False
                self._pending_legal = legal
            return True
        if step is not None:
            self._follow(step)
        return False

    def _follow(self, step: Push | Done) -> None:
        """Act on a typed frame's ``Push`` or ``Done`` (a ``Done`` pops it and hands it to the
        frame below: a typed parent reads it in ``on_child_done``, a dict parent receives dice
        in its ``dice`` key)."""
        stack = self.stack
        if type(step) is Push:
            stack.extend(step.frames)
            return
        child = stack.pop()
        if stack:
            parent = stack[-1]
            if type(parent) is dict:
                if type(child) is RollDice:
                    parent["dice"] = child.values
            else:
                parent.on_child_done(self, child)
        if step.then:
            stack.extend(step.then)

    def _wait(self, player: int, dtype: ACWDecision) -> bool:
        self.cur = (player, dtype)
        return True

    def _roll(self, n: int, what: str, rules: tuple[str, ...], side: int | None) -> None:
        """Push ``n`` dice (a :class:`~envs.core.frames.RollDice`, each die a chance node); the
        result lands in the pushing frame's ``dice`` key."""
        self.stack[-1]["dice"] = None
        self.stack.append(RollDice(n, what, tuple(rules), side))

    # -- reaction costs (envs.core.reactions): a reserved Staff Pip (RULE-04-6.3, I-2) -------
    def can_pay(self, side: int, cost) -> bool:
        return cost.resource == "reserved_pip" and self.reserved[side] >= cost.amount

    def pay(self, side: int, cost) -> None:
        self.reserved[side] -= cost.amount

    # ------------------------------------------------------------------------------------------
    # helpers: units
    # ------------------------------------------------------------------------------------------
    def unit(self, side: int, slot: int) -> Unit | None:
        return self.units[side][slot]

    def alive(self, side: int):
        return [u for u in self.units[side] if u is not None and u.alive]

    def allowance(self, u: Unit, road: bool = False) -> float:
        """Movement allowance in inches now (ACW-PD-19, PD-31)."""
        # memo (exact): the allowance is a pure function of these fields and the static
        # ACW-PD-19 table; an invalid pair is not stored, so it raises every time
        key = (u.kind, u.formation, u.is_screen, road, u.disordered)
        v = _ALW_MEMO.get(key)
        if v is None:
            v = _ALW_MEMO[key] = self._allowance(u, road)
        return v

    def _allowance(self, u: Unit, road: bool) -> float:
        if u.is_screen:
            return T.movement_allowance(KIND[u.kind], T.Formation.SKIRMISH,
                                        skirmish=u.kind == "infantry",
                                        cavalry_screen=u.kind == "cavalry",
                                        disordered=u.disordered)
        form = u.formation
        if u.kind == "cavalry" and form == "line":
            form = "mounted_line"
        return T.movement_allowance(KIND[u.kind], FORM[form], on_road=road,
                                    disordered=u.disordered)

    def _disorder(self, u: Unit, rules: tuple[str, ...], why: str) -> bool:
        if not u.alive or u.disordered:
            return False
        u.disordered = True
        self.log("disorder", rules, f"{u.label()} is Disordered ({why})", u.side,
                 unit=u.slot, why=why)
        return True

    def _lose_stands(self, u: Unit, n: int, rules: tuple[str, ...], why: str) -> int:
        """Remove ``n`` stands from ``u`` (ACW-PD-25 step 4, PD-9); breaks it when none are left.
        Returns the number actually removed."""
        if n <= 0 or not u.alive:
            return 0
        n = min(n, u.stands)
        u.stands -= n
        u.lost += n
        u.lost_turn += n
        if u.is_screen and u.parent >= 0:
            p = self.units[u.side][u.parent]
            if p is not None and p.alive:
                p.lost += n
                p.lost_turn += n
        self.log("stand_lost", rules, f"{u.label()} loses {n} stand(s) ({why}); "
                 f"{u.stands} left", u.side, unit=u.slot, n=n, left=u.stands)
        if u.stands <= 0:
            self._remove(u, rules + ("ACW-PD-9",), "no stands left")
        else:
            u.resize()
            if not u.is_screen:
                h = u.health
                self.log("health", ("ACW-PD-9",), f"{u.label()} is {h.value}", u.side,
                         unit=u.slot, health=h.value)
        return n

    def _remove(self, u: Unit, rules: tuple[str, ...], why: str) -> None:
        """A unit is Broken / destroyed and removed from play (ACW-PD-28)."""
        if not u.alive:
            return
        u.alive = False
        u.broken = True
        u.engaged = []
        self.log("broken", rules, f"{u.label()} is removed ({why})", u.side, unit=u.slot)
        if not u.is_screen:
            self.broke_pt.append([u.side, u.slot])
        for e in self.units[1 - u.side]:
            if e is not None and u.slot in e.engaged:
                e.engaged.remove(u.slot)
        if u.screen >= 0:
            s = self.units[u.side][u.screen]
            if s is not None and s.alive:
                self._remove(s, ("ACW-PD-30",), "its parent is gone")
        if u.is_screen and u.parent >= 0:
            p = self.units[u.side][u.parent]
            if p is not None:
                p.screen = -1

    def _rejoin(self, s: Unit, rules: tuple[str, ...], why: str) -> None:
        """A detached stand rejoins its parent (ACW-PD-30, RULE-04-4.3)."""
        p = self.units[s.side][s.parent]
        s.alive = False
        self.units[s.side][s.slot] = None
        if p is not None and p.alive:
            p.stands += 1
            p.screen = -1
            p.resize()
            self.log("rejoin", rules, f"{s.label()} rejoins {p.label()} ({why}); "
                     f"{p.stands} stands", s.side, unit=s.slot, parent=p.slot)

    def _smoke(self, u: Unit, own: bool) -> None:
        u.smoke = self.pt
        u.smoke_own = own
        self.log("smoke", ("RULE-04-2.6", "RULE-04-3.4", "ACW-PD-32", "I-15"),
                 f"Smoke Marker placed on {u.label()} (counts as fired)", u.side, unit=u.slot)

    # ------------------------------------------------------------------------------------------
    # helpers: geometry
    # ------------------------------------------------------------------------------------------
    def los(self, a: Footprint, b: Footprint, skip: tuple = ()) -> bool:
        """Line of sight between two footprints' centres (ACW-PD-17): terrain, and any other
        formed unit's footprint in between (``skip``: units not to count, e.g. a mover at its
        old position)."""
        ca, cb = a.centre(), b.centre()
        if self.game.terrain.blocks_los(ca, cb):
            return False
        # the sight line for point_segment_distance, inlined below (same float operations)
        ax, ay = ca
        vx = cb[0] - ax
        vy = cb[1] - ay
        vv = vx * vx + vy * vy
        for side in self.units:
            for u in side:
                if u is None or not u.alive or u.is_screen or u in skip:
                    continue
                ufp = u.fp
                if ufp is a or ufp is b:
                    continue
                # exact shortcut: sight line clear of its circle, psd((ux, uy), ca, cb) > ur
                ux, uy, ur = circ(ufp)
                wx = ux - ax
                wy = uy - ay
                if vv > 0.0:
                    t = (wx * vx + wy * vy) / vv
                    if t > 0.0:
                        if t >= 1.0:
                            wx = ux - cb[0]
                            wy = uy - cb[1]
                        else:
                            wx -= t * vx
                            wy -= t * vy
                if math.sqrt(wx * wx + wy * wy) > ur + 1e-6:
                    continue
                if segment_hits_footprint(ca, cb, ufp):
                    return False
        return True

    def _blocked_fn(self, u: Unit, fp0: Footprint, ignore_enemy: tuple = (),
                    friends_block: bool = True):
        """The clipping predicate of :meth:`_make_blocked_fn`, reused when nothing it reads
        has changed: the one the current activation decision's legal list was built with
        (``_handoff``, while that decision is applied), else the latest one built here."""
        h = self._handoff
        if h is not None and h[0] is u and h[1] is fp0 and friends_block and not ignore_enemy:
            return h[2]
        # the key holds everything the predicate reads: the mover, fp0, and every live unit's
        # footprint object (immutable; replaced when a unit moves or re-forms; a unit in a
        # re-used slot is a new unit with a new footprint, and a unit's kind and screen status
        # never change), so a hit is always the predicate a fresh build would give
        u0, u1 = self.units
        sig = tuple([o.fp if o is not None and o.alive else None for o in u0] +
                    [o.fp if o is not None and o.alive else None for o in u1])
        key = (u, fp0, ignore_enemy, friends_block, sig)
        c = self._bcache
        if c is not None and c[0] == key:
            return c[1]
        fn = self._make_blocked_fn(u, fp0, ignore_enemy, friends_block)
        self._bcache = (key, fn)
        return fn

    def _make_blocked_fn(self, u: Unit, fp0: Footprint, ignore_enemy: tuple = (),
                         friends_block: bool = True):
        """Clipping predicate for a normal move (ACW-PD-21.7, PD-29): table edge, within the
        no-approach zone of an enemy (2", 1" for skirmishers; never closer than at the start),
        overlapping a friendly formed unit; limbered artillery may not enter woods off-road.
        Far units are skipped with bounding-circle tests; the predicate accepts footprints of
        any size (a re-formed unit), the shortcuts using the tested footprint's own radius."""
        terr = self.game.terrain
        bcirc = Footprint.bounding_circle
        cx0, cy0, r0 = bcirc(fp0)
        # ``clear``: how far a footprint of fp0's size may have its centre from fp0's centre
        # with every listed unit still outside its bounding-circle test below (a pure
        # shortcut: the skipped per-unit tests would all skip too; 1e-6" margin absorbs
        # rounding); a footprint of radius r gets ``clear + r0 - r``
        clear = math.inf
        enemies = []
        sqrt = math.sqrt
        u_screen = u.is_screen
        na_s, na_f = T.SKIRMISH_NO_APPROACH, T.NO_APPROACH
        for e in self.units[1 - u.side]:
            if e is None or not e.alive or e.slot in ignore_enemy:
                continue
            na = na_s if (u_screen or e.is_screen) else na_f
            efp = e.fp
            ex, ey, er = efp._circ or bcirc(efp)  # the cached circle, else computed
            rr = er + r0 + na
            dx, dy = cx0 - ex, cy0 - ey
            d2 = dx * dx + dy * dy
            if d2 > rr * rr:
                lim = na - 1e-6
            else:  # never closer than at the start
                d0 = footprint_distance(fp0, efp)
                lim = (d0 if d0 < na else na) - 1e-6
            enemies.append((efp, lim, ex, ey, er + na))
            c = sqrt(d2) - rr
            if c < clear:
                clear = c
        friends = []
        touching: list[Footprint] = []
        if not u_screen and friends_block:
            for f in self.units[u.side]:
                if f is None or not f.alive or f is u or f.is_screen:
                    continue
                ffp = f.fp
                fx, fy, fr_ = ffp._circ or bcirc(ffp)
                rr = fr_ + r0
                dx, dy = cx0 - fx, cy0 - fy
                d2 = dx * dx + dy * dy
                if d2 > rr * rr or not overlaps(fp0, ffp):
                    friends.append((ffp, fx, fy, fr_))
                elif not interiors_overlap(fp0, ffp):
                    # in base contact at the start: blocks moving into it, not sliding along
                    # or away from it (ACW-PD-21.8)
                    touching.append(ffp)
                else:
                    continue  # already overlapping: free to move out of it
                c = sqrt(d2) - rr
                if c < clear:
                    clear = c
        clear2 = (clear - 1e-6) ** 2 if clear > 1e-6 else -1.0
        art = u.kind == "artillery" and bool(terr.areas)
        W, D = terr.width + 1e-6, terr.depth + 1e-6
        cos, sin = math.cos, math.sin
        w0, d0_ = fp0.width, fp0.depth
        hypot = math.hypot

        def blocked(fp: Footprint) -> bool:
            h = fp.heading
            hd = 0.5 * fp.depth
            cx = fp.x - hd * cos(h)
            cy = fp.y - hd * sin(h)
            if fp.width == w0 and fp.depth == d0_:
                r = r0
                cl2 = clear2
            else:  # another size: its own radius (the shortcuts stay exact)
                r = 0.5 * hypot(fp.width, fp.depth)
                cl = clear + r0 - r
                cl2 = (cl - 1e-6) ** 2 if cl > 1e-6 else -1.0
            if cx < r or cy < r or cx > W - r or cy > D - r:
                for x, y in fp.corners():
                    if x < -1e-6 or y < -1e-6 or x > W or y > D:
                        return True
            dx = cx - cx0
            dy = cy - cy0
            if dx * dx + dy * dy < cl2:
                if art and terr.in_woods((cx, cy)) and not terr.on_road((cx, cy)):
                    return True
                return False
            for efp, lim, ex, ey, ern in enemies:
                dx, dy = cx - ex, cy - ey
                rr = ern + r
                if dx * dx + dy * dy > rr * rr:
                    continue
                if footprint_distance(fp, efp) < lim:
                    return True
            for ffp, fx, fy, fr_ in friends:
                dx, dy = cx - fx, cy - fy
                rr = fr_ + r
                if dx * dx + dy * dy > rr * rr:
                    continue
                if overlaps(fp, ffp):
                    return True
            for ffp in touching:
                if interiors_overlap(fp, ffp):
                    return True
            if art:
                if terr.in_woods((cx, cy)) and not terr.on_road((cx, cy)):
                    return True
            return False

        # ``free_r``: any footprint of fp0's size whose centre is within this distance of
        # fp0's centre is not blocked (it passes the edge box and the ``clear2`` test above);
        # -1 when that shortcut does not apply (artillery's woods test, or a unit already
        # close)
        box = min(cx0 - r0, cy0 - r0, (W - r0) - cx0, (D - r0) - cy0)
        blocked.free_r = min(box, clear - 1e-6) - 1e-7 if (clear2 > 0.0 and not art) else -1.0
        return blocked

    def firing_stands(self, u: Unit, target: Footprint, limit: int = 1 << 30) -> int:
        """Stands of ``u`` with some part of ``target`` in their own forward arc (ACW-PD-16,
        PD-6); refused stands use their rotated arcs (ACW-PD-33). The count stops at
        ``limit`` (``limit=1``: whether any stand can fire)."""
        if u.is_screen:
            return 1 if (u.kind == "infantry" and partly_in_arc(u.fp, target)) else 0
        if u.kind == "cavalry" or u.formation not in ("line", "assault_column", "unlimbered"):
            return 0
        fp = u.fp
        sw, sd = footprint_size(u.kind, "line", 1)
        n = u.stands if u.formation != "assault_column" else min(2, u.stands)
        W = sw * n
        h = fp.heading
        c = math.cos(h)
        s = math.sin(h)
        rx, ry = s, -c  # fp.right()
        x0 = fp.x
        y0 = fp.y
        hsw = 0.5 * sw
        # the target's sample points once for all stands (partly_in_arc = points_in_arc on
        # footprint_points, the same float operations)
        pts = footprint_points(target)
        ref = u.refused if u.formation == "line" else ""
        k = u.refused_n
        count = 0
        for i in range(n):
            lx = -W / 2 + (i + 0.5) * sw
            sx = x0 + rx * lx
            sy = y0 + ry * lx
            if ref == "right" and i >= n - k:
                px = W / 2 - k * sw
                sfp = Footprint(sx, sy, h, sw, sd).rotated_about((x0 + rx * px, y0 + ry * px),
                                                               -T.REFUSE_ANGLE)
            elif ref == "left" and i < k:
                px = -W / 2 + k * sw
                sfp = Footprint(sx, sy, h, sw, sd).rotated_about((x0 + rx * px, y0 + ry * px),
                                                               T.REFUSE_ANGLE)
            else:
                # an unrotated stand: its footprint has fp's heading, so the same cos/sin
                if points_in_arc(sx, sy, c, s, hsw, pts):
                    count += 1
                    if count >= limit:
                        break
                continue
            sh = sfp.heading
            if points_in_arc(sfp.x, sfp.y, math.cos(sh), math.sin(sh), hsw, pts):
                count += 1
                if count >= limit:
                    break
        return count

    def contact_zone(self, charger: Unit, target: Unit) -> str:
        """Zone of ``target`` holding the charger's centre; a refused flank counts as front
        (ACW-PD-23 step 2, RULE-04-5.4)."""
        z = zone_of(target.fp, charger.fp.centre())
        if z in ("left", "right") and target.refused == z:
            return "front"
        return z

    def enfilade(self, firer: Unit, target: Unit) -> bool:
        """Fire from the target's flank or rear zone, not a refused flank (ACW-PD-18,
        RULE-04-5.4)."""
        z = zone_of(target.fp, firer.fp.centre())
        if z == "front":
            return False
        if z in ("left", "right") and target.refused == z:
            return False
        return True

    def _contact_fp(self, charger: Unit, target: Unit, zone: str) -> Footprint:
        """Charger footprint flush and centred on the contacted edge (ACW-PD-23 step 7)."""
        t = target.fp
        fx, fy = t.forward()
        rx, ry = t.right()
        W, D = t.width, t.depth
        if zone == "front":
            px, py, h = t.x, t.y, t.heading + math.pi
        elif zone == "rear":
            px, py, h = t.x - fx * D, t.y - fy * D, t.heading
        elif zone == "left":
            px, py = t.x - rx * W / 2 - fx * D / 2, t.y - ry * W / 2 - fy * D / 2
            h = math.atan2(ry, rx)
        else:
            px, py = t.x + rx * W / 2 - fx * D / 2, t.y + ry * W / 2 - fy * D / 2
            h = math.atan2(-ry, -rx)
        h = math.atan2(math.sin(h), math.cos(h))
        return Footprint(px, py, h, charger.fp.width, charger.fp.depth)

    def _charge_others(self, charger: Unit, target: Unit) -> list[Unit]:
        """Units a charge may neither pass through nor end on: every live formed unit but the
        charger and its target (screens are overrun, RULE-04-4.4)."""
        return [o for side in self.units for o in side if o is not None and o.alive
                and o is not charger and o is not target and not o.is_screen]

    def _charge_blocker(self, charger: Unit, target: Unit, dest: Footprint,
                        origin: Footprint | None = None,
                        others: list[Unit] | None = None) -> Unit | None:
        """The first unit the straight charge path from ``origin`` (default: where the charger
        stands) to ``dest`` overlaps, sampled every 0.5", or None (ACW-PD-23 step 1).
        ``others``: :meth:`_charge_others` when the caller has it."""
        if others is None:
            others = self._charge_others(charger, target)
        spec, L = self._charge_path(charger, dest, origin)
        f = path_fn(spec)
        t = 0.0
        while others and t < L:
            t = min(L, t + 0.5)
            fp = f(t)
            for o in others:
                if overlaps(fp, o.fp):
                    return o
        return None

    def _charge_dest(self, charger: Unit, target: Unit, zone: str,
                     origin: Footprint | None = None) -> Footprint | None:
        """Where the charger ends its charge: flush on the ``zone`` edge of ``target`` (ACW-PD-23
        step 7), or None when that edge has no room. The one helper of legality
        (:meth:`_charge_reason`) and execution (:meth:`_charge_move`, :meth:`_charge_contact`).

        Centred on the edge (:meth:`_contact_fp`) when that spot overlaps no other formed unit.
        Otherwise - a friend is already in contact there (several friends against one enemy,
        ACW-PD-26), or any other unit stands in the way - the charger slides along the edge,
        first toward the side of the edge nearer its own centre at ``origin`` (its position at
        declaration), then toward the other side, to the nearest spot that overlaps no other
        unit, stays on the table and still covers at least ``CONTACT_MIN_OVERLAP`` of the edge;
        among those the nearest one reached by a clear straight path (else the nearest one, and
        the path check names the blocker)."""
        c0 = self._contact_fp(charger, target, zone)
        others = self._charge_others(charger, target)

        def free(fp: Footprint) -> bool:
            return not any(overlaps(fp, o.fp) for o in others)

        if free(c0):
            return c0
        o = origin if origin is not None else charger.fp
        terr = self.game.terrain
        edge = target.fp.width if zone in ("front", "rear") else target.fp.depth
        lim = 0.5 * (edge + c0.width) - CONTACT_MIN_OVERLAP
        rx, ry = c0.right()
        (ox, oy), (cx, cy) = o.centre(), c0.centre()
        first = 1.0 if (ox - cx) * rx + (oy - cy) * ry >= 0.0 else -1.0
        fallback = None
        for sg in (first, -first):
            s, clear_before = 0.0, False
            while s + SLIDE_STEP <= lim + 1e-9:
                s += SLIDE_STEP
                fp = c0.sidestepped(sg * s)
                if not free(fp):
                    clear_before = False
                    continue
                if not clear_before:
                    # first free step past a blocker: pull back to just clear of it
                    lo, hi = s - SLIDE_STEP, s
                    for _ in range(12):
                        mid = 0.5 * (lo + hi)
                        if free(c0.sidestepped(sg * mid)):
                            hi = mid
                        else:
                            lo = mid
                    t = min(s, hi + SLIDE_GAP)
                    if free(c0.sidestepped(sg * t)):
                        s, fp = t, c0.sidestepped(sg * t)
                    clear_before = True
                if not terr.on_table(fp):
                    continue
                if self._charge_blocker(charger, target, fp, o, others) is None:
                    return fp
                if fallback is None:
                    fallback = fp
        return fallback

    def _charge_path(self, charger: Unit, dest: Footprint,
                     origin: Footprint | None = None) -> tuple[list, float]:
        """A straight path to ``dest`` keeping ``dest``'s heading (the charger turns to face the
        contacted edge at declaration, then moves straight, ACW-PD-23 step 4); it starts where
        the charger stands, or at ``origin``."""
        fp = charger.fp if origin is None else origin
        dx, dy = dest.x - fp.x, dest.y - fp.y
        L = math.hypot(dx, dy)
        ux, uy = (dx / L, dy / L) if L > 1e-9 else (0.0, 0.0)
        start = Footprint(fp.x, fp.y, dest.heading, fp.width, fp.depth)
        return ["line", _fp_list(start), ux, uy], L

    # ------------------------------------------------------------------------------------------
    # the end of the game (ACW-PD-35, PD-36); the turn cycle is procedures.turn
    # ------------------------------------------------------------------------------------------
    def _army_break(self) -> bool:
        """ACW-PD-36: a side that has lost at least half its starting units breaks."""
        broke = []
        for s in (0, 1):
            n0 = self.game.units_at_start[s]
            lost = 0
            for u in self.units[s]:
                if u is not None and not u.is_screen and u.broken:
                    lost += 1
            if 2 * lost >= n0:
                broke.append(s)
                self.log("army_break", ("ACW-PD-36",),
                         f"the {SIDE[s]} army breaks ({lost} of {n0} units lost)", s)
        if not broke:
            return False
        if len(broke) == 1:
            self._end_game("army break", winner=1 - broke[0])
        else:
            self._end_game("both armies break")
        return True

    def _bank_objectives(self) -> None:
        """Scenario scoring ``each_turn``: each side banks the VP of the objectives it holds at
        the end of a game turn (ACW-PD-36 holding test, the scenario's ``objective_vp``)."""
        held = self._objective_vp()
        for s in (0, 1):
            self.objective_vp_banked[s] += held[s]
        self.log("objectives_score", ("ACW-PD-36",),
                 f"end of turn {self.turn}: objectives score Union {held[0]}, Confederate "
                 f"{held[1]} (banked {self.objective_vp_banked[0]} - "
                 f"{self.objective_vp_banked[1]})", None, vp=held,
                 banked=list(self.objective_vp_banked))

    def victory_points(self) -> list[int]:
        """VP per side (ACW-PD-36): 1 per enemy stand lost, +2 per enemy unit Broken, and the
        objectives: the scenario's ``objective_vp`` (3 by default) per objective held (good
        order within 3", no enemy in good order within 3") at the end, or, with scoring
        ``each_turn``, the VP banked at the end of every game turn."""
        vp = [0, 0]
        for s in (0, 1):
            for u in self.units[s]:
                if u is None or u.is_screen:
                    continue
                vp[1 - s] += T.VP_STAND * min(u.lost, u.s0)
                if u.broken:
                    vp[1 - s] += T.VP_BROKEN
        obj = (self.objective_vp_banked if self.game.objectives_score == "each_turn"
               else self._objective_vp())
        return [vp[0] + obj[0], vp[1] + obj[1]]

    def _objective_vp(self) -> list[int]:
        """VP of the objectives each side holds now (ACW-PD-36)."""
        vp = [0, 0]
        for ob in self.game.objectives:
            near = [False, False]
            for s in (0, 1):
                for u in self.units[s]:
                    if u is None or not u.alive or u.is_screen or not u.good_order:
                        continue
                    # exact shortcut: the objective point is outside the footprint's bounding
                    # circle by more than the radius (+1e-6" for rounding), so neither test
                    # below can pass
                    cx, cy, r = circ(u.fp)
                    dx = ob[0] - cx
                    dy = ob[1] - cy
                    if math.sqrt(dx * dx + dy * dy) - r > T.OBJECTIVE_RADIUS + 1e-6:
                        continue
                    fl, fr, rr, rl = u.fp.corners()
                    d = min(psd(ob, fl, fr), psd(ob, fr, rr), psd(ob, rr, rl), psd(ob, rl, fl))
                    if d <= T.OBJECTIVE_RADIUS or polygon_contains([fl, fr, rr, rl], ob):
                        near[s] = True
            for s in (0, 1):
                if near[s] and not near[1 - s]:
                    vp[s] += self.game.objective_vp
        return vp

    def _end_game(self, why: str, winner: int | None = None) -> None:
        vp = self.victory_points()
        if winner is None:
            winner = 0 if vp[0] > vp[1] else 1 if vp[1] > vp[0] else -1
        self.winner = winner
        if self.game.shaped_reward:
            r = max(-1.0, min(1.0, (vp[0] - vp[1]) / 20.0))
            if winner >= 0 and r == 0.0:
                r = 0.05 if winner == 0 else -0.05
            self.result = [r, -r]
        else:
            self.result = [0.0, 0.0] if winner < 0 else \
                ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
        self.done = True
        self.cur = (TERMINAL, D_TERM)
        who = "draw" if winner < 0 else f"{SIDE[winner]} win"
        self.log("game_end", ("ACW-PD-36",), f"game over ({why}): {who}; VP Union {vp[0]}, "
                 f"Confederate {vp[1]}", None, vp=vp, winner=winner, why=why)

    # ------------------------------------------------------------------------------------------
    # Phase 1 (ACW-PD-13..15): procedures.command
    # ------------------------------------------------------------------------------------------
    def _rally_threat(self, u: Unit) -> bool:
        """A good-order formed enemy within 6" with ``u`` partly in its forward arc
        (ACW-PD-15 Rally Check modifier)."""
        ufp = u.fp
        for e in self.alive(1 - u.side):
            if not e.good_order or e.is_screen:
                continue
            efp = e.fp
            if distance_exceeds(efp, ufp, 6.0):
                continue
            if partly_in_arc(efp, ufp):
                return True
        return False

    # ------------------------------------------------------------------------------------------
    # Phase 2 (procedures.maneuver): the activation frame
    # ------------------------------------------------------------------------------------------
    def _run_activation(self, fr) -> bool:
        u = self.units[self.active][fr["u"]]
        if u is None or not u.alive or u.engaged or fr.get("over"):
            self.stack.pop()
            return False
        return self._wait(self.active, D_MAN)

    def _budget(self, fr, u: Unit) -> float:
        return fr["frac"] * self.allowance(u, fr["road"])

    def _activation_legal(self, fr):
        """Legal primitives of the active unit: a fast twin of :meth:`_activation_legal_reference` (which asks
        :meth:`_prim_reason` label by label; the tests check the two agree)."""
        ids = self.game.ids
        P = ids.prim
        u = self.units[self.active][fr["u"]]
        out = [ids.end_activation]
        if fr["n"] >= MAX_PRIMS:
            return out
        alw = self.allowance(u, fr["road"])
        budget = fr["frac"] * alw
        fp = u.fp
        form = u.formation
        # built afresh (the unit has just moved, so no earlier predicate fits) and handed to
        # the handler of the decision taken from this list (see _apply_action)
        blocked = self._make_blocked_fn(u, fp)
        self._lact_pred = (u, fp, blocked)
        # exact shortcut: a test footprint whose centre moves less than ``free`` from the
        # current one is unblocked (see _make_blocked_fn), so it need not be built
        free = blocked.free_r
        screen = u.is_screen
        column = form in ("assault_column", "road_column", "limbered")
        # formation changes (ACW-PD-21.5)
        if not screen and not u.disordered and fr["frac"] >= self._fchange_frac(u) - 1e-9:
            for arg in _FORM_ARGS[u.kind]:
                target = self._formation_target(u, arg)
                if target != form and self._reform_fp(u, target, blocked) is not None:
                    out.append(P["formation:" + arg])
        if not fr["skd"]:
            # exact shortcut: _skirmish_reason refuses at once a detach by a screen, a unit not
            # in Line, one with a stand out or fewer than 3 stands, and a rejoin with nothing
            # to re-join
            if not screen and u.screen < 0 and u.stands >= 3 and \
                    form in ("line", "mounted_line") and \
                    self._skirmish_reason(fr, u, "detach") is None:
                out.append(P["skirmish:detach"])
            if (screen or u.screen >= 0) and self._skirmish_reason(fr, u, "rejoin") is None:
                out.append(P["skirmish:rejoin"])
        if form == "unlimbered":
            if fr["piv"] < 1:
                for arg in _WHEEL_ARGS:
                    if free > 1e-6 or not blocked(self._rot_fp(u, arg, "centre")):
                        out.append(P["wheel:" + arg])
            return out
        if budget > 0.05:
            step_free = free > 0.05 + 1e-6
            if step_free or not blocked(fp.advanced(0.05)):
                out += (P["advance:third"], P["advance:two_thirds"], P["advance:all"])
            else:
                for arg in self._passable_advances(u, budget):
                    out.append(P["advance:" + arg])
            if step_free or not blocked(fp.advanced(-0.05)):
                out.append(P["retire"])
            if form == "line" and u.kind == "infantry" and not screen and budget >= 0.1:
                if step_free or not blocked(fp.sidestepped(0.05)):
                    out.append(P["sidestep:right"])
                if step_free or not blocked(fp.sidestepped(-0.05)):
                    out.append(P["sidestep:left"])
        if screen:
            for arg in _WHEEL_ARGS:
                if free > 1e-6 or not blocked(self._rot_fp(u, arg, "centre")):
                    out.append(P["wheel:" + arg])
        elif column:
            if fr["piv"] < T.MAX_COLUMN_PIVOTS and budget >= T.COLUMN_PIVOT_COST - 1e-9:
                for arg in _WHEEL_ARGS:
                    # the centre swings at most angle x depth/2 about the front-edge centre
                    ang = R22 if arg.endswith("_half") else R45
                    if free > ang * 0.5 * fp.depth + 1e-6 or \
                            not blocked(self._rot_fp(u, arg, "head")):
                        out.append(P["wheel:" + arg])
        elif form in ("line", "mounted_line") and budget > 0.05:
            r_fp = circ(fp)[2]  # a front corner is this far from the centre
            for arg in _WHEEL_ARGS:
                ang = R22 if arg.endswith("_half") else R45
                pivot = "left" if arg.startswith("left") else "right"
                sgn = 1.0 if pivot == "left" else -1.0
                th = min(ang, 0.05 / fp.width)
                if free > th * r_fp + 1e-6 or not blocked(fp.wheeled(sgn * th, pivot)):
                    out.append(P["wheel:" + arg])
        cost = 0.0 if screen else (T.COLUMN_PIVOT_COST if column else 0.5 * alw)
        if cost <= budget + 1e-9:
            for arg in ("left", "right", "about"):
                if free > 1e-6 or not blocked(self._rot_fp(u, "face_" + arg, "centre")):
                    out.append(P["face:" + arg])
        if fr["n"] == 0 and not screen and not u.disordered and u.moved <= 0 and not u.charged \
                and self.pips[u.side] >= 1 and T.can_charge(KIND[u.kind], FORM[u.formation]):
            reach = 12.0 if (self.game.cavalry_charge_12 and u.kind == "cavalry") \
                else T.CHARGE_DISTANCE
            cx, cy = fp.centre()
            r0 = 0.5 * math.hypot(fp.width, fp.depth) + reach
            for e in self.alive(1 - self.active):
                ex, ey = e.fp.centre()
                rr = r0 + 0.5 * math.hypot(e.fp.width, e.fp.depth)
                if (cx - ex) ** 2 + (cy - ey) ** 2 > rr * rr:
                    continue
                if self._charge_reason(u, e) is None:
                    out.append(ids.charge[e.slot])
        return out

    def _activation_legal_reference(self, fr):
        ids = self.game.ids
        u = self.units[self.active][fr["u"]]
        out = [ids.end_activation]
        if fr["n"] >= MAX_PRIMS:
            return out
        self._pmemo = {"budget": self._budget(fr, u)}
        try:
            for p, pid in ids.prim.items():
                if self._prim_reason(fr, u, p) is None:
                    out.append(pid)
        finally:
            self._pmemo = None
        if fr["n"] == 0:
            for e in self.alive(1 - self.active):
                if self._charge_reason(u, e) is None:
                    out.append(ids.charge[e.slot])
        return out

    def _why_activation_illegal(self, fr, a):
        ids = self.game.ids
        u = self.units[self.active][fr["u"]]
        if fr["n"] >= MAX_PRIMS:
            return ("ACW-PD-21",), f"engine cap of {MAX_PRIMS} primitives per activation reached"
        lab = self.game.actions.labels[a]
        if lab in ids.prim:
            return self._prim_reason(fr, u, lab)
        if a in ids.charge:
            if fr["n"] > 0:
                return ("ACW-PD-23",), "a unit that has already moved this phase cannot charge"
            e = self.units[1 - self.active][ids.charge.index(a)]
            if e is None or not e.alive:
                return ("ACW-PD-23",), "no enemy unit in that slot"
            return self._charge_reason(u, e)
        return None

    def _prim_reason(self, fr, u: Unit, p: str):
        """None if primitive ``p`` is legal for ``u`` now, else (rule ids, reason)."""
        kind, _, arg = p.partition(":")
        form = u.formation
        memo = getattr(self, "_pmemo", None)
        budget = memo["budget"] if memo else self._budget(fr, u)
        line_like = form in ("line", "mounted_line") and not u.is_screen
        column = form in ("assault_column", "road_column", "limbered")
        if kind == "formation":
            if u.is_screen:
                return ("ACW-PD-30",), "a skirmish stand has no formations"
            if u.disordered:
                return ("ACW-PD-21", "ACW-PD-31"), "a Disordered unit may not change formation"
            target = self._formation_target(u, arg)
            if target is None or target == form:
                return ("ACW-PD-21",), f"{arg} is not a new formation for this {u.kind}"
            if fr["frac"] < self._fchange_frac(u) - 1e-9:
                return ("ACW-PD-21", "ACW-PD-7"), "not enough allowance left to change formation"
            if self._reform_fp(u, target) is None:
                return ("ACW-PD-21",), "no room to re-form here"
            return None
        if kind == "skirmish":
            return self._skirmish_reason(fr, u, arg)
        if form == "unlimbered":
            if kind == "wheel" and arg in ("left", "right", "left_half", "right_half"):
                if fr["piv"] >= 1:
                    return ("ACW-PD-19",), "an unlimbered battery pivots at most once (45°)"
                return None if self._rot_ok(u, arg, "centre") else \
                    (("ACW-PD-21",), "no room to pivot")
            return ("ACW-PD-19",), "an unlimbered battery may only pivot in place"
        if kind in ("advance", "retire", "sidestep"):
            if budget <= 0.05:
                return ("ACW-PD-19",), "no movement allowance left"
            if kind == "sidestep" and not (u.formation == "line" and u.kind == "infantry"
                                           and not u.is_screen):
                return ("ACW-PD-21",), "only a Line may side-step"
            if kind == "sidestep" and budget < 0.1:
                return ("ACW-PD-21",), "no allowance for a side-step at double cost"
            fp0 = u.fp
            mkey = kind + arg if kind == "sidestep" else kind
            if memo is not None and mkey in memo:
                return memo[mkey]
            if kind == "advance":
                test = fp0.advanced(0.05)
            elif kind == "retire":
                test = fp0.advanced(-0.05)
            else:
                test = fp0.sidestepped(0.05 if arg == "right" else -0.05)
            res = None
            if kind == "advance" and self._blocked_fn(u, fp0)(test):
                if arg in self._passable_advances(u, budget):
                    return None
                return ("ACW-PD-21", "ACW-PD-29"), "blocked at once (table edge, 2\" " \
                    "no-approach zone or a friendly unit it cannot pass through)"
            if self._blocked_fn(u, fp0)(test):
                res = ("ACW-PD-21",), "the move would not move the unit (blocked: table " \
                                      "edge, 2\" no-approach zone or a friendly unit)"
            if memo is not None:
                memo[mkey] = res
            return res
        if kind == "wheel":
            half = arg.endswith("_half")
            if u.is_screen:
                return None if self._rot_ok(u, arg, "centre") else (("ACW-PD-21",), "no room")
            if column:
                if fr["piv"] >= T.MAX_COLUMN_PIVOTS:
                    return ("ACW-PD-21",), "a column may pivot at most twice per activation"
                if budget < T.COLUMN_PIVOT_COST - 1e-9:
                    return ("ACW-PD-21",), "a column pivot costs 1\""
                return None if self._rot_ok(u, arg, "head") else (("ACW-PD-21",), "no room")
            if line_like:
                ang = R22 if half else R45
                if budget <= 0.05:
                    return ("ACW-PD-21",), "no movement allowance left"
                pivot = "left" if arg.startswith("left") else "right"
                sgn = 1.0 if pivot == "left" else -1.0
                test = u.fp.wheeled(sgn * min(ang, 0.05 / u.fp.width), pivot)
                if self._blocked_fn(u, u.fp)(test):
                    return ("ACW-PD-21",), "the wheel is blocked"
                return None
            return ("ACW-PD-21",), "this formation cannot wheel"
        if kind == "face":
            if u.is_screen:
                cost = 0.0
            elif column:
                cost = T.COLUMN_PIVOT_COST
            else:
                cost = 0.5 * self.allowance(u, fr["road"])
            if cost > budget + 1e-9:
                return ("ACW-PD-21",), \
                    f"facing costs {cost:.1f}\" of allowance ({budget:.1f}\" left)"
            return None if self._rot_ok(u, "face_" + arg, "centre") else \
                (("ACW-PD-21",), "no room to face")
        return ("ACW-PD-21",), "unknown primitive"

    def _rot_fp(self, u: Unit, arg: str, about: str) -> Footprint:
        fp = u.fp
        if arg.startswith("face_"):
            return fp.faced(_FACE_ANG[arg])
        ang = R22 if arg.endswith("_half") else R45
        if arg.startswith("right"):
            ang = -ang
        if about == "head":
            return fp.rotated_about((fp.x, fp.y), ang)
        return fp.faced(ang)

    def _rot_ok(self, u: Unit, arg: str, about: str) -> bool:
        nfp = self._rot_fp(u, arg, about)
        return not self._blocked_fn(u, u.fp)(nfp)

    def _formation_target(self, u: Unit, arg: str) -> str | None:
        if u.kind == "infantry":
            return arg if arg in ("line", "assault_column", "road_column") else None
        if u.kind == "cavalry":
            return {"line": "mounted_line", "road_column": "road_column"}.get(arg)
        return {"limber": "limbered", "unlimber": "unlimbered"}.get(arg)

    def _fchange_frac(self, u: Unit) -> float:
        """Formation change costs half the allowance, the whole for Green (ACW-PD-21.5)."""
        return 1.0 if u.experience == "green" else 0.5

    def _reform_fp(self, u: Unit, target: str, blocked=None) -> Footprint | None:
        """Footprint after re-forming on the centre, keeping the facing (ACW-PD-21.5).
        ``blocked``: the caller's ``self._blocked_fn(u, u.fp)``, if it has it."""
        w, d = footprint_size(u.kind, target, u.stands)
        cx, cy = u.fp.centre()
        fx, fy = u.fp.forward()
        nfp = Footprint(cx + fx * d / 2, cy + fy * d / 2, u.fp.heading, w, d)
        if (blocked or self._blocked_fn(u, u.fp))(nfp):
            return None
        return nfp

    def _free_slot(self, side: int) -> int:
        for k, v in enumerate(self.units[side]):
            if v is None:
                return k
        return -1

    def _detach_fp(self, u: Unit) -> Footprint | None:
        """Where a stand detached by ``u`` is placed (ACW-PD-30): facing as ``u``, 2", 1" or
        1/4" ahead of its front edge, the first of these spots that is on the table and not
        within 1" (the skirmishers' no-approach distance, ACW-PD-21.7) of an enemy; ``None``
        when none is."""
        w, d = footprint_size(u.kind, "skirmish", 1)
        ufp = u.fp
        base = Footprint(ufp.x, ufp.y, ufp.heading, w, d)
        on_table = self.game.terrain.on_table
        enemies = [e.fp for e in self.units[1 - u.side] if e is not None and e.alive]
        near = T.SKIRMISH_NO_APPROACH
        for gap in (2.0, 1.0, 0.25):
            fp = base.advanced(gap + d)
            if not on_table(fp):
                continue
            cx, cy = fp.centre()
            for efp in enemies:
                # bounding-circle rejection first (a stand's half-diagonal is under 1")
                ex, ey, er = circ(efp)
                rr = er + 2.0
                if (cx - ex) ** 2 + (cy - ey) ** 2 <= rr * rr and \
                        footprint_distance(fp, efp) < near:
                    break
            else:
                return fp
        return None

    def _skirmish_reason(self, fr, u: Unit, arg: str):
        if fr["skd"]:
            return ("ACW-PD-21", "ACW-PD-30"), "detach/re-join once per activation"
        if arg == "detach":
            if u.is_screen:
                return ("ACW-PD-30",), "a skirmish stand cannot detach"
            if u.formation not in ("line", "mounted_line"):
                return ("ACW-PD-30",), "only a Line (or mounted cavalry line) may detach a stand"
            if not u.good_order:
                return ("ACW-PD-30", "ACW-PD-31"), "the unit is not in good order"
            if u.screen >= 0:
                return ("ACW-PD-30",), "at most one detached stand per regiment"
            if u.stands < 3:
                return ("ACW-PD-30",), "too few stands to detach one"
            if self._free_slot(u.side) < 0:
                return ("ACW-PD-30",), "no free unit slot for the stand (max_units_per_side)"
            if self._detach_fp(u) is None:
                return ("ACW-PD-30",), "no room in front to place the stand"
            return None
        # rejoin
        if u.is_screen:
            p = self.units[u.side][u.parent] if u.parent >= 0 else None
            if p is None or not p.alive:
                return ("ACW-PD-30",), "the parent regiment is gone"
            if distance_exceeds(u.fp, p.fp, self._budget(fr, u) + 1e-6):
                return ("ACW-PD-30",), "the parent is beyond this stand's remaining move"
        else:
            if u.screen < 0:
                return ("ACW-PD-30",), "no detached stand to re-join"
            s = self.units[u.side][u.screen]
            p = u
            if s is None or not s.alive or distance_exceeds(s.fp, u.fp, T.SKIRMISH_LEASH):
                return ("ACW-PD-30",), "the detached stand is more than 6\" away"
        if p.formation not in ("line", "mounted_line"):
            return ("ACW-PD-30",), "the parent must be in Line to receive the stand"
        if p.engaged:
            return ("ACW-PD-30",), "the parent is engaged"
        return None

    def _charge_reason(self, u: Unit, e: Unit):
        """None if ``u`` may declare a charge on ``e`` (ACW-PD-23 step 1), else why not."""
        if not T.can_charge(KIND[u.kind], FORM[u.formation]) or u.is_screen:
            return ("ACW-PD-23", "ACW-PD-19"), f"a {u.kind} unit in {u.formation} cannot charge"
        if u.disordered:
            return ("ACW-PD-23", "ACW-PD-31", "I-26"), "a Disordered unit may not declare a charge"
        if u.health is Health.SPENT:
            return ("ACW-PD-23", "ACW-PD-9"), "a Spent unit cannot charge"
        if u.moved > 0 or u.charged:
            return ("ACW-PD-23",), "the unit has already moved this phase"
        if self.pips[u.side] < 1:
            return ("ACW-PD-23", "ACW-PD-14"), "declaring a charge costs 1 Staff Pip; none left"
        reach = 12.0 if (self.game.cavalry_charge_12 and u.kind == "cavalry") else T.CHARGE_DISTANCE
        d = footprint_distance(u.fp, e.fp)
        if d > reach + 1e-9:
            return ("RULE-04-6.1", "ACW-PD-23"), f"the target is {d:.1f}\" away (max {reach:.0f}\")"
        if not partly_in_arc(u.fp, e.fp):
            return ("ACW-PD-23", "ACW-PD-16"), "the target is not in the charger's forward arc"
        # an engaged target may be charged again: friends fight it as one side (ACW-PD-26)
        # when the contacted edge still has room beside them (ACW-PD-23 step 7); the friends in
        # contact with it do not hide it (engine ruling)
        skip = tuple(o for o in self.alive(u.side) if o.slot in e.engaged)
        if not self.los(u.fp, e.fp, skip):
            return ("ACW-PD-23", "ACW-PD-17"), "the target is not visible"
        zone = self.contact_zone(u, e)
        dest = self._charge_dest(u, e, zone)
        if dest is None:
            return ("ACW-PD-23", "ACW-PD-26"), \
                f"no room on {e.label()}'s {zone} edge for the charger to make contact"
        o = self._charge_blocker(u, e, dest)
        if o is not None:
            return ("ACW-PD-23",), f"the charge path is blocked by {o.label()}"
        return None

    def _apply_activation(self, fr, a: int) -> None:
        ids = self.game.ids
        s = self.active
        u = self.units[s][fr["u"]]
        if a == ids.end_activation:
            self._finish_activation(fr, u)
            return
        fr["n"] += 1
        if a in ids.charge:
            e = self.units[1 - s][ids.charge.index(a)]
            charge = declare_charge(self, u, e)
            fr["over"] = True
            self.stack.append(charge)
            return
        lab = self.game.actions.labels[a]
        kind, _, arg = lab.partition(":")
        if kind != "skirmish" and u.refused:
            self.log("refuse_end", ("I-27", "ACW-PD-33"),
                     f"{u.label()} moves: its refused {u.refused} flank re-forms", s, unit=u.slot)
            u.refused, u.refused_n = "", 0
        if kind in ("advance", "retire", "sidestep"):
            self._start_linear(fr, u, kind, arg)
        elif kind == "wheel":
            self._start_wheel(fr, u, arg)
        elif kind == "face":
            self._do_face(fr, u, arg)
        elif kind == "formation":
            self._do_formation(fr, u, arg)
        elif kind == "skirmish":
            fr["skd"] = True
            if arg == "detach":
                self._detach(u)
            else:
                scr = u if u.is_screen else self.units[s][u.screen]
                if u.is_screen:
                    fr["over"] = True
                self._rejoin(scr, ("ACW-PD-30",), "re-joined in Phase 2")

    def _passable_advances(self, u: Unit, budget: float) -> list[str]:
        """The advance distances (``third``, ``two_thirds``, ``all`` of ``budget``) that stay
        legal for a unit blocked at once by a friend: a Passage of Lines within that distance
        ends entirely clear on the far side after paying 3" (ACW-PD-29)."""
        if u.is_screen or budget <= T.PASSAGE_OF_LINES_COST:
            return []
        fp0 = u.fp
        nf = self._make_blocked_fn(u, fp0, (), friends_block=False)
        if nf(fp0.advanced(0.05)):
            return []
        return [arg for arg, frac in _ADV_FRAC.items()
                if self._passage_of_lines(u, lambda t: fp0.advanced(t), budget * frac, budget,
                                          1.0, 0.0, 0.0, dry=True)[2]]

    def _finish_activation(self, fr, u: Unit) -> None:
        s = self.active
        if u is not None and u.alive and u.is_screen and u.parent >= 0:
            p = self.units[s][u.parent]
            if p is not None and p.alive and distance_exceeds(u.fp, p.fp, T.SKIRMISH_LEASH):
                self._rejoin(u, ("ACW-PD-30",), "ended more than 6\" from its parent")
        self.log("end_activation", ("ACW-PD-12",), f"{u.label() if u else 'unit'} ends its "
                 f"activation", s)
        self.stack.pop()

    @staticmethod
    def _place(u: Unit, fp: Footprint) -> None:
        """Put ``u`` at ``fp`` keeping its current frontage/depth (stands may have been lost
        while the move was paused)."""
        if fp.width != u.fp.width or fp.depth != u.fp.depth:
            fp = fp.with_size(u.fp.width, u.fp.depth)
        u.fp = fp

    def _move_mult(self, u: Unit, backward: bool) -> float:
        if backward and not u.is_screen:
            return T.BACKWARD_COST_FACTOR
        return 1.0

    def _start_linear(self, fr, u: Unit, kind: str, arg: str) -> None:
        if fr["road"] and not self._linear_stays_on_road(fr, u, kind, arg):
            # ACW-PD-19: the road rate needs the entire move on the road; a path leaving it
            # ends the road rate for the activation (inches used so far re-priced)
            a_road, a_norm = self.allowance(u, True), self.allowance(u, False)
            fr["road"] = False
            fr["frac"] = max(0.0, 1.0 - (1.0 - fr["frac"]) * a_road / max(a_norm, 1e-9))
        budget = self._budget(fr, u)
        alw = self.allowance(u, fr["road"])
        if kind == "advance":
            f = _ADV_FRAC[arg]
            spec = ["adv", _fp_list(u.fp), 1.0]
            max_t, rate = budget * f, 1.0
            rules = ("ACW-PD-21",)
        elif kind == "retire":
            rate = self._move_mult(u, True)
            spec = ["adv", _fp_list(u.fp), -1.0]
            max_t = min(budget / rate, alw / 2 if not u.is_screen else budget)
            rules = ("ACW-PD-21",)
        else:
            rate = T.BACKWARD_COST_FACTOR
            spec = ["side", _fp_list(u.fp), 1.0 if arg == "right" else -1.0]
            max_t = min(T.SIDE_STEP_MAX, budget / rate)
            rules = ("ACW-PD-21",)
        self._start_move(fr, u, spec, max_t, budget, rate, alw, kind + ":" + arg if arg else kind,
                         rules)

    def _linear_stays_on_road(self, fr, u: Unit, kind: str, arg: str) -> bool:
        """Whether the centre stays on a road along the longest path this primitive could
        take at the road rate (ACW-PD-19), sampled every 0.5"."""
        budget = self._budget(fr, u)
        if kind == "advance":
            (dx, dy), dist = u.fp.forward(), budget
        elif kind == "retire":
            (fx, fy), dist = u.fp.forward(), budget / 2
            dx, dy = -fx, -fy
        else:
            (rx, ry), dist = u.fp.right(), T.SIDE_STEP_MAX
            dx, dy = (rx, ry) if arg == "right" else (-rx, -ry)
        cx, cy = u.fp.centre()
        n = max(1, int(math.ceil(dist / 0.5)))
        terr = self.game.terrain
        return all(terr.on_road((cx + dx * dist * i / n, cy + dy * dist * i / n))
                   for i in range(n + 1))

    def _start_wheel(self, fr, u: Unit, arg: str) -> None:
        form = u.formation
        alw = self.allowance(u, fr["road"])
        if u.is_screen or form == "unlimbered":
            nfp = self._rot_fp(u, arg, "centre")
            fr["piv"] += 1
            if form == "unlimbered":
                u.moved = max(u.moved, 0.01)
            self._start_static(fr, u, nfp, 0.0, alw, f"pivot {arg}", ("ACW-PD-21",))
            return
        if form in ("assault_column", "road_column", "limbered"):
            nfp = self._rot_fp(u, arg, "head")
            fr["piv"] += 1
            self._start_static(fr, u, nfp, T.COLUMN_PIVOT_COST, alw, f"column pivot {arg}",
                               ("ACW-PD-21",))
            return
        ang = R22 if arg.endswith("_half") else R45
        pivot = "left" if arg.startswith("left") else "right"
        sgn = 1.0 if pivot == "left" else -1.0
        W = u.fp.width
        budget = self._budget(fr, u)
        spec = ["wheel", _fp_list(u.fp), sgn / W, pivot]
        self._start_move(fr, u, spec, min(W * ang, budget), budget, 1.0, alw, f"wheel {arg}",
                         ("ACW-PD-21",))

    def _do_face(self, fr, u: Unit, arg: str) -> None:
        alw = self.allowance(u, fr["road"])
        if u.is_screen:
            cost = 0.0
        elif u.formation in ("assault_column", "road_column", "limbered"):
            cost = T.COLUMN_PIVOT_COST
        else:
            cost = 0.5 * alw
        nfp = self._rot_fp(u, "face_" + arg, "centre")
        self._start_static(fr, u, nfp, cost, alw, f"face {arg}", ("ACW-PD-21",))

    def _do_formation(self, fr, u: Unit, arg: str) -> None:
        target = self._formation_target(u, arg)
        nfp = self._reform_fp(u, target)
        old = u.formation
        cf = self._fchange_frac(u)
        fr["frac"] = max(0.0, fr["frac"] - cf)
        u.formation = target
        u.moved += cf * max(self.allowance(u, fr["road"]), 1e-9)
        if u.kind == "artillery":
            u.limbered_now = True
            u.pivot_only = False
        if target in ("road_column", "limbered"):
            u.road_used = True
            fr["road"] = self.game.terrain.on_road(nfp.centre())
        self.log("formation", ("ACW-PD-21", "ACW-PD-7"),
                 f"{u.label()} changes formation {old} -> {target} (costs "
                 f"{'all' if cf >= 1 else 'half'} its allowance)", u.side, unit=u.slot,
                 old=old, new=target)
        # formation changes count as moves for Window A (ACW-PD-24)
        self._start_static(fr, u, nfp, 0.0, 1.0, "re-form", ("ACW-PD-21", "ACW-PD-24"))

    def _detach(self, u: Unit) -> None:
        k = self._free_slot(u.side)
        fp = self._detach_fp(u)
        from .units import new_unit
        s = new_unit(u.side, k, f"{u.name} skirmishers", u.kind, u.weapon, u.experience, 1,
                     "skirmish", 0.0, 0.0, 0.0, (), is_screen=True)
        s.fp = fp
        s.s0 = 1
        s.parent = u.slot
        s.activated = True
        u.screen = k
        u.stands -= 1
        u.resize()
        self.units[u.side][k] = s
        self.log("detach", ("ACW-PD-30",), f"{u.label()} detaches a stand as {s.label()}",
                 u.side, unit=u.slot, screen=k)

    def _start_static(self, fr, u: Unit, nfp: Footprint, cost: float, alw: float, what: str,
                      rules) -> None:
        """An instantaneous re-orientation / re-formation, then the Window A check at the new
        footprint (ACW-PD-24)."""
        if alw > 0 and cost > 0:
            fr["frac"] = max(0.0, fr["frac"] - cost / alw)
            u.moved += cost
        if u.kind == "artillery" and not what.startswith("pivot"):
            u.pivot_only = False
        if u.formation == "road_column":
            u.road_used = True
        u.fp = nfp
        self.log("move", rules, f"{u.label()} {what}", u.side, unit=u.slot, what=what,
                 x=round(nfp.x, 3), y=round(nfp.y, 3), heading=round(math.degrees(nfp.heading), 1))
        spec = ["static", _fp_list(nfp)]
        path_fn(spec, nfp)  # primes the memo the move frame reads (no rebuilt footprint)
        self.stack.append({"k": "move", "u": u.slot, "spec": spec, "L": 0.0,
                           "t": 0.0, "cpt": 0.0, "alw": 1.0, "dis": u.disordered, "what": what,
                           "static": True, "asked": False})

    def _start_move(self, fr, u: Unit, spec, max_t, budget, rate, alw, what, rules) -> None:
        f = path_fn(spec, u.fp)  # the callers build spec[1] from u.fp
        blocked = self._blocked_fn(u, u.fp)
        t_end, cost, obst, woods = plan_path(f, max_t, budget, rate, blocked, self.game.terrain,
                                             not u.is_screen, speed=path_speed(spec))
        passage: list[int] = []
        if spec[0] == "adv" and spec[2] > 0 and not u.is_screen and t_end < max_t - 0.05:
            t_end, cost, passage = self._passage_of_lines(u, f, max_t, budget, rate, t_end, cost)
        cpt = cost / t_end if t_end > 1e-9 else 0.0
        if u.kind == "artillery":
            u.pivot_only = False
        if u.formation == "road_column":
            u.road_used = True
        self.log("move_start", rules, f"{u.label()} {what}: up to {t_end:.2f}\" "
                 f"(allowance cost {cost:.2f}\"{', crosses an obstacle' if obst else ''}"
                 f"{', through woods' if woods else ''})", u.side, unit=u.slot, what=what,
                 length=round(t_end, 3), cost=round(cost, 3))
        self.stack.append({"k": "move", "u": u.slot, "spec": spec, "L": t_end, "t": 0.0,
                           "cpt": cpt, "alw": alw, "dis": u.disordered, "what": what,
                           "static": False, "asked": False, "pol": passage})

    def _passage_of_lines(self, u: Unit, f, max_t: float, budget: float, rate: float,
                          t_end: float, cost: float, dry: bool = False
                          ) -> tuple[float, float, list[int]]:
        """Voluntary Passage of Lines (ACW-PD-29): an advance stopped by a friendly formed unit
        may pass through it if, after paying 3", it ends entirely clear on the far side.
        Returns the (possibly longer) move, its cost and the friends passed through.
        ``f`` is a straight advance (one inch of centre travel per inch of path). ``dry``: no
        log and no charge, and only whether some friend is passed matters (the list stops at
        the first one)."""
        # friends in base contact count (overlap beyond contact is what passing means); a
        # friend the mover already overlaps at the start is not passed through
        ufp = u.fp
        cands = [g for g in self.alive(u.side) if g is not u and not g.is_screen]
        ahead = f(t_end + 0.05)
        # the same test as ``any(overlap(ahead, g) for g in friends)``, the two pure
        # conditions of a friend swapped: usually nothing is ahead and one test per unit does
        if not any(interiors_overlap(ahead, g.fp) and not interiors_overlap(ufp, g.fp)
                   for g in cands):
            return t_end, cost, []
        friends = [g for g in cands if not interiors_overlap(ufp, g.fp)]
        nf = self._make_blocked_fn(u, ufp, (), friends_block=False)
        # speed 1.0: the exact sample-skipping shortcuts of a straight advance
        t2, cost2, _, _ = plan_path(f, max_t, budget - T.PASSAGE_OF_LINES_COST, rate, nf,
                                    self.game.terrain, True, speed=1.0)
        if t2 <= t_end + 0.05 or any(interiors_overlap(f(t2), g.fp) for g in friends):
            return t_end, cost, []
        passed = []
        n = int(t2 / 0.25) + 1
        # the path samples once for all friends (``f`` is pure)
        samples = [f(min(t2, i * 0.25)) for i in range(n + 1)]
        for g in friends:
            gfp = g.fp
            if any(interiors_overlap(p, gfp) for p in samples):
                passed.append(g.slot)
                if dry:
                    break
        if dry:
            return t2, cost2, passed
        self.log("passage_of_lines", ("ACW-PD-29",),
                 f"{u.label()} passes through "
                 f"{', '.join(self.units[u.side][k].label() for k in passed)} (costs 3\")",
                 u.side, unit=u.slot, through=passed)
        return t2, cost2 + T.PASSAGE_OF_LINES_COST, passed

    # -- move frame with Window A (ACW-PD-24) -------------------------------------------
    def _run_move(self, fr) -> bool:
        s = self.active
        u = self.units[s][fr["u"]]
        act = self.stack[-2]
        if u is None or not u.alive:
            self.stack.pop()
            act["over"] = True
            return False
        f = path_fn(fr["spec"])
        if fr["asked"]:
            fr["asked"] = False
            if u.disordered and not fr["dis"] and fr["L"] > fr["t"]:
                rem = fr["L"] - fr["t"]
                fr["L"] = fr["t"] + rem / 2
                # the rest of the move is at the Disordered half rate: each inch after this
                # point costs two inches of the unit's allowance (RULE-04-3.5, ACW-PD-31)
                fr["hx"] = fr["t"]
                self.log("move_halved", ("RULE-04-3.5", "I-16", "ACW-PD-31"),
                         f"{u.label()} was Disordered mid-move: remaining {rem:.2f}\" halved to "
                         f"{rem / 2:.2f}\"", s, unit=u.slot, remaining=round(rem / 2, 3))
            fr["dis"] = u.disordered
        t0, L = fr["t"], fr["L"]
        hit = self._next_trigger(u, f, t0, L, fr["static"], fr.get("checked", False),
                                 fr["spec"])
        if fr["static"]:
            fr["checked"] = True
        if hit is not None:
            tstar, pairs = hit
            self._place(u, f(tstar))
            fr["t"] = tstar
            fr["asked"] = True
            for d_slot, trig in sorted(pairs, reverse=True):
                self.stack.append(WindowA(1 - s, trig, d_slot, OFFERS[trig], mover=u.slot))
            return False
        # finish the move
        self._place(u, f(L))
        travelled = L
        cost = fr["cpt"] * travelled
        if "hx" in fr:
            cost += fr["cpt"] * (L - fr["hx"])
        if not fr["static"]:
            act["frac"] = max(0.0, act["frac"] - cost / fr["alw"]) if fr["alw"] > 0 else 0.0
            u.moved += cost
            act["dist"] += travelled
            self.log("move", ("ACW-PD-21",), f"{u.label()} {fr['what']} {travelled:.2f}\" to "
                     f"({u.fp.x:.2f}, {u.fp.y:.2f})", s, unit=u.slot, dist=round(travelled, 3),
                     x=round(u.fp.x, 3), y=round(u.fp.y, 3))
        if u.smoke >= 0 and act["dist"] >= T.MOVE_OUT_OF_SMOKE - 1e-9:
            u.smoke = -1
            u.out_of_smoke = True
            self.log("smoke_left", ("RULE-04-3.4", "ACW-PD-22"),
                     f"{u.label()} moves out of its smoke (may fire at -1)", s, unit=u.slot)
        self.stack.pop()
        if fr.get("pol") and not fr["static"]:
            # the mover takes the Passage of Lines test after the move (ACW-PD-29)
            self.stack.append(PassageOfLinesTests(s, [u.slot], u.slot, list(fr["pol"])))
        return False

    def _next_trigger(self, u: Unit, f, t0: float, L: float, static: bool, checked: bool,
                      spec: list):
        """Earliest Window A trigger point on the rest of the path (ACW-PD-24); returns
        (t, [(defender slot, trigger), ...]) or None. A static re-orientation or re-formation
        is tested once at its new footprint; a move that does not move triggers nothing."""
        if static:
            if checked:
                return None
        elif L - t0 <= 1e-9:
            return None
        best = None
        pairs: list[tuple[int, str]] = []
        cur = u.fp
        span = L - t0
        speed = path_speed(spec) * (1.0 + 1e-9)
        cx, cy, cr = circ(cur)
        r0 = cr + span + T.REFUSE_RANGE + 0.1
        # the mover's footprint at each sampled distance, shared by every (defender,
        # trigger) scan and by ``pred``/``clear_for`` at one point (``f`` is pure, and the
        # scans sample the same distances); the footprints cache their bounding circles
        fpm: dict[float, Footprint] = {}

        def at(s: float) -> Footprint:
            fp = fpm.get(s)
            if fp is None:
                fp = fpm[s] = f(t0 + s)
            return fp
        for d in self.alive(1 - u.side):
            if d.slot in self.reacted:
                continue
            dx, dy, dr = circ(d.fp)
            rr = r0 + dr
            d2 = (cx - dx) ** 2 + (cy - dy) ** 2
            if d2 > rr * rr:
                continue
            # lower bound of the footprints' distance (centres less both half-diagonals,
            # 1e-6" margin): a trigger beyond it is skipped without the exact distance
            lb = math.sqrt(d2) - cr - dr - 1e-6
            dist0 = None
            for trig in self._triggers_for(d, u):
                if f"{d.slot}:{trig}" in self.consumed:
                    continue
                lim = trigger_range(trig, self.game)
                if lb - span > lim + 0.01:
                    continue
                if dist0 is None:
                    dist0 = footprint_distance(d.fp, cur)
                if dist0 - span > lim + 0.01:
                    continue
                los = (lambda a, b, d=d: self.los(a, b, (u, d)))

                def pred(s, d=d, trig=trig, los=los, lim=lim):
                    return trigger_pred(trig, d, at(s), los, lim)
                if span <= 1e-9:
                    tc = 0.0 if pred(0.0) else None
                else:

                    def clear_for(s, d=d, lim=lim, trig=trig):
                        # exact: no trigger while the bounding circles stay beyond the range,
                        # or while the mover's circle / centre stays out of the trigger's zone
                        fp = at(s)
                        m = trigger_clearance(d, fp, lim)
                        if m <= 0.0:
                            m = trigger_zone_clearance(trig, d, fp)
                        return m / speed if m > 0.0 else 0.0
                    tc = first_crossing(pred, span, 0.25, 0.01,
                                        clear_for if speed > 0.0 else None)
                if tc is None:
                    continue
                t = t0 + tc
                if best is None or t < best - 0.02:
                    best = t
                    pairs = [(d.slot, trig)]
                elif abs(t - best) <= 0.02:
                    pairs.append((d.slot, trig))
        if best is None:
            return None
        # opp_medium and opp_short of one defender at the same point: ask once (Medium)
        seen = set()
        out = []
        for p, q in sorted(pairs):
            key = (p, q.startswith("opp"))
            if key in seen:
                continue
            seen.add(key)
            out.append((p, q))
        return best, out

    def _triggers_for(self, d: Unit, mover: Unit) -> list[str]:
        out = []
        if can_fire_reaction(d) is None and self.firing_stands_possible(d):
            out.append("opp_medium")
            out.append("opp_short")
        if mover.formed and can_evade(d) is None:
            out.append("evade")
        if mover.formed and can_refuse(d) is None:
            out.append("refuse")
        return out

    def firing_stands_possible(self, d: Unit) -> bool:
        return d.kind != "cavalry" and not d.is_screen

    # -- Window A (procedures.window_a) and B1 reaction effects --------------------------------
    def _drill_check(self, d: Unit, flank: str, n: int, v: int) -> bool:
        """Emergency Drill Check ``v`` of ``d`` refusing ``n`` stands of its ``flank``
        (RULE-04-5.2, I-19): 4+ refuses it, else ``d`` is Disordered and frozen."""
        ok = C.emergency_drill_passes(v)
        self.log("drill_check", ("RULE-04-5.2", "I-19"),
                 f"{d.label()} Emergency Drill Check {v} vs 4+: {'passed' if ok else 'failed'}",
                 d.side, unit=d.slot, roll=v, passed=ok)
        if ok:
            self._apply_refuse(d, flank, n, pip=False)
        else:
            self._disorder(d, ("RULE-04-5.2",), "failed Emergency Drill Check, frozen in place")
        return ok

    def _apply_refuse(self, d: Unit, side: str, n: int, pip: bool) -> None:
        d.refused, d.refused_n = side, n
        self.log("refuse", ("RULE-04-5.2", "RULE-04-5.3", "ACW-PD-33"),
                 f"{d.label()} refuses its {side} flank: outer {n} stand(s) wheel back 45°"
                 f"{' (reserved pip spent)' if pip else ''}", d.side, unit=d.slot, flank=side,
                 stands=n, pip=pip)

    def _react_why(self, trig, d: Unit | None, a: int):
        r = self.game.ids.react
        inv = {v: k for k, v in r.items()}
        name = inv.get(a)
        if name is None:
            return None
        if d is None or not d.alive:
            return ("RULE-04-1.2",), "no defending unit is asked"
        if d.slot in self.reacted:
            return ("RULE-04-1.4",), "this unit has already reacted to this enemy action"
        if name in ("opportunity_fire", "wait_short", "closing_volley"):
            w = can_fire_reaction(d)
            if w:
                return w
            if name == "closing_volley":
                return ("RULE-04-2.1", "I-10"), "a Closing Volley is only declared in Window B2"
            if name == "wait_short":
                return ("I-18",), "only at the Medium trigger point and beyond 6\""
            return ("RULE-04-3.1", "RULE-04-1.2"), "no Opportunity Fire trigger here"
        if name.startswith("evade"):
            return can_evade(d) or (("RULE-04-4.1",), "no evade trigger here")
        if name.startswith("refuse"):
            return can_refuse(d) or (("RULE-04-5.1",), "the enemy is not entering a flank zone")
        if name.startswith("counter_charge"):
            w = counter_charge_eligible(d)
            if w:
                return w
            w = why_no_pip(self, d.side)
            if w:
                return w
            return ("RULE-04-6.1", "I-10"), "Counter-Charge only answers a charge declaration (B1)"
        return None

    def _evade(self, d: Unit, dist: float) -> None:
        """Screen Evade: withdraw straight back 4-6", through friends, rejoin the parent if
        reached (RULE-04-4.3, I-20, ACW-PD-30)."""
        ds = d.side
        self.log("react", ("RULE-04-4.1", "RULE-04-4.3", "RULE-04-1.3"),
                 f"{d.label()} evades {dist:.0f}\" to the rear", ds, unit=d.slot,
                 reaction="evade", dist=dist)
        parent = self.units[ds][d.parent] if d.parent >= 0 else None
        terr = self.game.terrain
        enemies = [e.fp for e in self.alive(1 - ds)]
        fp0 = d.fp

        def bad(s):
            fp = fp0.advanced(-s)
            if not terr.on_table(fp):
                return True
            return any(overlaps(fp, e) for e in enemies)

        t_block = first_crossing(bad, dist, 0.25, 0.01)
        t = dist if t_block is None else max(0.0, t_block - 0.02)
        if parent is not None and parent.alive:
            tp = first_crossing(lambda s: footprint_distance(fp0.advanced(-s), parent.fp) <= 0.05,
                                t, 0.25, 0.01)
            if tp is not None:
                d.fp = fp0.advanced(-tp)
                self._rejoin(d, ("RULE-04-4.3", "I-20"), "evaded into its parent")
                return
        d.fp = fp0.advanced(-t)
        self.log("move", ("RULE-04-4.3",), f"{d.label()} withdraws {t:.2f}\"", ds, unit=d.slot,
                 dist=round(t, 3))

    # ------------------------------------------------------------------------------------------
    # Phase 3 (ACW-PD-25b): the queries of procedures.ranged_combat
    # ------------------------------------------------------------------------------------------
    def can_fire_p3(self, u: Unit):
        """Why ``u`` may not fire in its Phase 3, or None (ACW-PD-25b, PD-22, RULE-04-3.4)."""
        if u.engaged:
            return ("ACW-PD-25b",), "the unit is engaged"
        if u.smoke >= 0:
            return ("RULE-04-3.4", "ACW-PD-32", "ACW-PD-25b"), \
                "the unit has a Smoke Marker (counts as fired) and did not move out of it"
        if u.charged:
            return ("ACW-PD-22",), "a unit that charged may not fire"
        if u.kind == "cavalry":
            return ("ACW-PD-25b",), "mounted cavalry does not fire in v1"
        if u.road_used or u.formation in ("road_column", "limbered"):
            return ("ACW-PD-22",), "in Road Column (or limbered) this phase"
        if u.kind == "artillery":
            if u.limbered_now or not u.pivot_only:
                return ("ACW-PD-22",), "a battery that did more than pivot may not fire"
        elif u.moved > 0.5 * self.allowance(u) + 1e-9:
            return ("ACW-PD-22",), "moved more than half its allowance"
        return None

    def fire_targets(self, u: Unit) -> list[Unit]:
        """Enemy units ``u`` may fire at: not engaged, in range of its weapon, in the arc of
        at least one firing stand and in sight (ACW-PD-25, ACW-PD-16, ACW-PD-17)."""
        out = []
        w = WEAP[u.weapon]
        ufp = u.fp
        # exact shortcut: beyond the longest band even by bounding circles -> no band
        ux, uy, ur = circ(ufp)
        mr = T.max_range(w)
        reach = mr + T.BAND_EPS + 1e-6 + ur
        for e in self.alive(1 - u.side):
            if e.engaged:
                continue
            efp = e.fp
            ex, ey, er = circ(efp)
            # (products rather than ** 2: the bounds below carry >= 1e-6" of slack, so a last
            # bit of rounding in cd cannot change what they decide)
            ex -= ux
            ey -= uy
            cd = math.sqrt(ex * ex + ey * ey)
            if cd - er > reach:
                continue
            # exact shortcut the other way: each centre lies in its footprint, so the
            # closest-point distance is at most the centre distance; centres within the
            # longest band's edge are in range (BAND_EPS covers rounding many times over)
            if cd > mr and T.range_band(w, footprint_distance(ufp, efp)) is None:
                continue
            if self.firing_stands(u, efp, 1) == 0:
                continue
            if not self.los(ufp, efp):
                continue
            out.append(e)
        return out

    # ------------------------------------------------------------------------------------------
    # Phase 4: melee (ACW-PD-26), resolved for procedures.melee
    # ------------------------------------------------------------------------------------------
    @staticmethod
    def _melee_best(units: list[Unit]) -> Unit:
        """The unit whose modifiers a side of several friends uses (ACW-PD-26): Veteran first,
        then not Disordered, fewest stands lost, most stands; the first listed on a tie."""
        return max(units, key=lambda u: (u.experience == "veteran", -int(u.disordered),
                                         -u.lost, u.stands))

    def _melee_side(self, units: list[Unit], enemies: list[Unit], is_def: bool) -> C.MeleeSide:
        """One side of the Opposed Melee Roll (ACW-PD-26). Several friends against one enemy
        fight as one side: the best unit's own modifiers (experience, health, Disorder, traits,
        :meth:`_melee_best`), the side's situation (charged with momentum kept by any charger,
        downhill, flank or rear contact by any of them), the stands of all of them, and +1
        support (at most +1)."""
        best = self._melee_best(units)
        stands = sum(u.stands for u in units)
        terr = self.game.terrain
        charged = any(u.charged and not is_def for u in units)
        cc = any(u.cc for u in units)
        flank = (not is_def) and any(u.zone in ("left", "right", "rear") for u in units)
        mom_lost = all(u.momentum_lost for u in units if u.charged) if charged else False
        favourable = False
        if is_def and not cc:
            e0 = enemies[0]
            favourable = (terr.on_crest(best.fp.centre()) and not terr.on_crest(e0.fp.centre())) \
                or terr.behind_obstacle(best.fp, e0.fp.centre()) \
                or terr.cover(best.fp, e0.fp.centre()) is Cover.HEAVY
        enemy_inf_cover = any(e.kind == "infantry" and (
            terr.cover(e.fp, best.fp.centre()) is not Cover.NONE or
            terr.behind_obstacle(e.fp, best.fp.centre())) for e in enemies)
        shock = best.kind == "cavalry" and (charged or cc) and not enemy_inf_cover
        health = best.health
        if health is Health.BROKEN:
            health = Health.SPENT
        return C.MeleeSide(
            experience=EXPE[best.experience], health=health, disordered=best.disordered,
            stands=stands, is_artillery=any(u.kind == "artillery" for u in units),
            charged=charged, momentum_lost=mom_lost,
            downhill=charged and any(u.downhill and not u.momentum_lost for u in units),
            defends_favourable=favourable, flank_or_rear=flank,
            rebel_yell="rebel_yell" in best.traits and (charged or cc),
            cavalry_shock=shock, support=len(units) > 1)

    def _resolve_melee(self, dslot: int, atts: list[int], dice: list[int]) -> None:
        """One Opposed Melee Roll (ACW-PD-26) of the attackers ``atts`` (slots of the active
        side) in contact with the defender ``dslot``; ``dice``: the attacker's and the
        defender's d6.

        Several attackers are one side (:meth:`_melee_side`). Engine ruling for that side: the
        result falls on the side once, through its best unit (:meth:`_melee_best`, whose
        modifiers were used) - a lost melee's 1-2 stands, or a tie's 1 hit, are taken by that
        unit alone - while every unit of the side is Disordered, and every attacker retreats
        (lost; several attackers each straight back from the edge it faces, which for a lone,
        centred attacker is also straight away from the winner) or recoils (tie); a loss by 5+
        breaks the whole side. Each winning charger may advance. A defender retreats straight
        away from the best winner; an attacker it fought only blocks that retreat if the
        defender would move into it (not just slide along it).
        """
        a = self.active
        d = self.units[1 - a][dslot]
        A = [self.units[a][k] for k in atts]
        ba = self._melee_best(A)
        ra, rd = dice
        sa = self._melee_side(A, [d], False)
        sd = self._melee_side([d], A, True)
        ma = C.melee_modifier(sa, sd.stands)
        md = C.melee_modifier(sd, sa.stands)
        ta, td = ra + ma, rd + md
        res = C.melee_result(ta, td)
        bda = ", ".join(f"{k} {v:+d}" for k, v in C.melee_modifier_breakdown(sa, sd.stands))
        bdd = ", ".join(f"{k} {v:+d}" for k, v in C.melee_modifier_breakdown(sd, sa.stands))
        names = "+".join(u.label() for u in A)
        self.log("melee", ("ACW-PD-26",) + (("RULE-04-6.5",) if d.cc else ()) +
                 (("RULE-04-5.4",) if sa.flank_or_rear else ()),
                 f"melee {names} vs {d.label()}: {ra}{ma:+d}={ta} [{bda}] against "
                 f"{rd}{md:+d}={td} [{bdd}]", a, attackers=atts, defender=dslot,
                 rolls=[ra, rd], totals=[ta, td], margin=res.margin, winner=res.winner,
                 mods=[ma, md], support=[sa.support, sd.support], best=ba.slot)
        for u in A + [d]:
            u.fought = True
        if res.winner is None:
            for u in A + [d]:
                if u is ba or u is d:  # one hit per side, on its best unit
                    nl, cnt = C.apply_hits(u.hits, 1)
                    u.hits = cnt
                    self._lose_stands(u, nl, ("ACW-PD-26", "I-5"), "melee tie hit")
                self._disorder(u, ("ACW-PD-26",), "melee tie")
            rec = T.COUNTER_CHARGE_TIE_RECOIL if d.cc else T.MELEE_TIE_RECOIL
            what = "1 hit each, all Disordered; the charger recoils" if len(A) == 1 else \
                f"1 hit per side (on {ba.label()} and {d.label()}), all Disordered; every " \
                f"charger recoils"
            self.log("melee_tie", ("ACW-PD-26",), f"tie: {what} {rec:.0f}\"", a)
            for u in A:
                self._retreat(u, rec, d, count_block=False)
            if d.cc and d.alive:
                self._retreat(d, rec, ba, count_block=False, fought=A)
            self._disengage(A, d)
            return
        losers, winners = (A, [d]) if res.winner == 1 else ([d], A)
        for u in losers:
            if not u.alive:
                continue
            if res.loser_broken:
                self._remove(u, ("ACW-PD-26",), f"lost the melee by {res.margin}")
                continue
            if u.kind == "artillery":
                self._remove(u, ("ACW-PD-26",), "battery captured")
                continue
        self._disengage(A, d)
        main = ba if res.winner == 1 else d  # the side's stand loss falls on its best unit
        if main.alive and not res.loser_broken:
            self._lose_stands(main, res.loser_stands_lost, ("ACW-PD-26",), "lost the melee")
        if res.winner == 0:
            # a winning charger may advance up to 2" into the ground given up (ACW-PD-26);
            # pushed first so it is decided after the loser's retreat and its Passage of Lines
            # tests (the stack runs the last frame first; the first attacker is asked first)
            for w in reversed(A):
                if w.alive and w.charged:
                    self.stack.append(WinnerAdvance(w.slot, d.slot))
        away = ba if res.winner == 0 else d
        several = len(losers) > 1  # each of several attackers backs straight off its own edge
        for u in losers:
            if u.alive:
                self._disorder(u, ("ACW-PD-26",), "lost the melee")
                self._retreat(u, res.loser_retreat, away, count_block=True,
                              from_winner=not several, fought=winners)

    # -- the winning charger's advance (ACW-PD-26) ------------------------------------------
    def _disengage(self, A: list[Unit], d: Unit) -> None:
        for u in A:
            if d.slot in u.engaged:
                u.engaged.remove(d.slot)
            if u.slot in d.engaged:
                d.engaged.remove(u.slot)

    def _retreat(self, u: Unit, dist: float, away_from: Unit, count_block: bool,
                 from_winner: bool = False, fought: list[Unit] | tuple = ()) -> None:
        """Retreat keeping facing: straight away from the winner after a lost melee, else
        straight back (ACW-PD-26, PD-27). Blocked by an enemy -> 1 more stand lost and stop; off
        the table -> removed; friends passed through take a Passage of Lines test (ACW-PD-29).
        An enemy of ``fought`` (the other side of the melee, still in base contact) blocks only
        when the retreat moves into it, not when the unit slides along or away from it."""
        if not u.alive or dist <= 0:
            return
        terr = self.game.terrain
        fp0 = u.fp
        ux, uy = fp0.forward()
        ux, uy = -ux, -uy
        if from_winner and away_from is not u:
            (ax, ay), (bx, by) = away_from.fp.centre(), fp0.centre()
            n = math.hypot(bx - ax, by - ay)
            if n > 1e-9:
                ux, uy = (bx - ax) / n, (by - ay) / n

        def at(x: float) -> Footprint:
            return fp0.shifted(ux * x, uy * x)

        enemies = [e.fp for e in self.alive(1 - u.side)
                   if e is not away_from and e.slot not in u.engaged and e not in fought]
        touching = [e.fp for e in fought if e.alive and e is not away_from]
        friends = [f for f in self.alive(u.side) if f is not u and not f.is_screen]

        def off(s):
            return not terr.on_table(at(s))

        def enemy_block(s):
            fp = at(s)
            if any(overlaps(fp, e) for e in enemies):
                return True
            if touching:  # base contact is not a block: test a footprint inset by 0.01"
                fx, fy = fp.forward()
                ins = Footprint(fp.x - 0.01 * fx, fp.y - 0.01 * fy, fp.heading,
                                max(fp.width - 0.02, 0.01), max(fp.depth - 0.02, 0.01))
                return any(overlaps(ins, e) for e in touching)
            return False

        tb = first_crossing(enemy_block, dist, 0.25, 0.01)
        to = first_crossing(off, dist, 0.25, 0.01)
        if to is not None and (tb is None or to <= tb):
            u.fp = at(min(dist, to))
            self._remove(u, ("ACW-PD-26",), "retreat pushed it off the table")
            return
        t = dist
        if tb is not None:
            t = max(0.0, tb - 0.02)
        # do not end overlapping a friend: keep going until clear (ACW-PD-29)
        extra = 0.0
        while any(overlaps(at(t + extra), f.fp) for f in friends) and extra < 8.0:
            extra += 0.25
            if not terr.on_table(at(t + extra)):
                u.fp = at(t + extra)
                self._remove(u, ("ACW-PD-26", "ACW-PD-29"), "retreat pushed it off the table")
                return
        t += extra
        passed = []
        for f in friends:
            for s in [x * 0.25 for x in range(int(t / 0.25) + 1)] + [t]:
                if overlaps(at(s), f.fp):
                    passed.append(f.slot)
                    break
        u.fp = at(t)
        self.log("retreat", ("ACW-PD-26", "ACW-PD-27"), f"{u.label()} falls back {t:.2f}\"",
                 u.side, unit=u.slot, dist=round(t, 3))
        if tb is not None and count_block:
            self._lose_stands(u, 1, ("ACW-PD-26",), "retreat blocked")
        if passed:
            self.stack.append(PassageOfLinesTests(u.side, passed, u.slot))

    # ------------------------------------------------------------------------------------------
    # Phase 5: end phase (ACW-PD-12, PD-27, PD-32), closed for procedures.end_phase
    # ------------------------------------------------------------------------------------------
    def _end_of_player_turn(self) -> None:
        """Smoke expiry (ACW-PD-32) and per-turn flags (ACW-PD-12 step c)."""
        a = self.active
        own_blocks = self.game.own_fire_blocks_reactions
        for side in self.units:
            for u in side:
                if u is None or not u.alive:
                    continue
                if u.smoke >= 0 and (u.smoke < self.pt or
                                     (not own_blocks and u.smoke_own and u.side == a)):
                    u.smoke = -1
                    u.smoke_own = False
                    self.log("smoke_expires", ("ACW-PD-32",),
                             f"Smoke Marker on {u.label()} is removed", u.side, unit=u.slot)
                clear_turn_flags(u)


_FORM_ARGS = {"infantry": ("line", "assault_column", "road_column"),
              "cavalry": ("line", "road_column"), "artillery": ("limber", "unlimber")}
_WHEEL_ARGS = ("left", "right", "left_half", "right_half")



# The dict frames still run by methods of ACWState, listed by kind (an explicit table; nothing is
# found by method-name prefix): run (True when it now waits), legal actions, apply, why illegal.
_RUN = {"act": ACWState._run_activation, "move": ACWState._run_move}
_LEGAL = {"act": ACWState._activation_legal}
_APPLY = {"act": ACWState._apply_activation}
_WHY = {"act": ACWState._why_activation_illegal}


def _copy_frame(f: dict) -> dict:
    out = {}
    for k, v in f.items():
        if isinstance(v, list):
            out[k] = [list(x) if isinstance(x, list) else x for x in v]
        elif isinstance(v, dict):
            out[k] = dict(v)
        else:
            out[k] = v
    return out
