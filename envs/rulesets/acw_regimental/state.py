"""The ACW regimental state (seed 003 + acw_fillins.md, RULINGS items 1-9).

The game is driven by a stack of typed, JSON-serialisable frames (:mod:`envs.core.procedure`):
the frame on top runs until it names what happens next — a decision of one side (``Wait``),
one die (the core :class:`envs.core.frames.RollDice`: every d6 is its own chance node), child
frames to run first (``Push``) or its own end (``Done``). The frames, one module each, are in
:mod:`.procedures`: the player-turn cycle (ACW-PD-12, turn count ACW-PD-35, army break and
victory ACW-PD-36), the five phases — Command (ACW-PD-13..15), Maneuver (ACW-PD-12), Ranged
Combat (ACW-PD-25b), Melee (ACW-PD-26), End (ACW-PD-27, PD-32) — a unit's activation and its
movement primitives (ACW-PD-21) stopping at each Window A trigger point (ACW-PD-24), the charge
with Windows B1 and B2 (ACW-PD-23), volleys (ACW-PD-25), the winner's advance (ACW-PD-26) and
Passage of Lines tests (ACW-PD-29). The reactions are in :mod:`.reactions`.
"""

from __future__ import annotations

import math
from typing import Any

from envs.core.geometry import (Footprint, distance_exceeds,
                                first_crossing, footprint_distance, interiors_overlap,
                                overlaps, polygon_contains, zone_of)
from envs.core.geometry import point_segment_distance as psd
from envs.core.procedure import ChanceNode, Done, Frame, Push, Wait, record_from_dict
from envs.core.protocol import CHANCE, TERMINAL, Illegality, State

from . import combat as C
from . import tables as T
from .actions import ACWDecision
from .procedures import PlayerTurnCycle, TurnStep
from .procedures.passage_of_lines import PassageOfLinesTests
from .procedures.winner_advance import WinnerAdvance
from .paths import _fp_list, path_fn
from .movement import circ, footprint_points, partly_in_arc, points_in_arc, segment_hits_footprint
from .tables import Cover, Health
from .units import EXPE, FORM, KIND, WEAP, Unit, clear_turn_flags, footprint_size

D_CHANCE = ACWDecision.CHANCE
D_TERM = ACWDecision.TERMINAL

SIDE = ("Union", "Confederate")
# contact beside a friend (ACW-PD-23 step 7, ACW-PD-26): a charger slid along the contacted edge
# still covers this much of it, is searched in these steps and stops this clear of its neighbour
CONTACT_MIN_OVERLAP = 0.1
SLIDE_STEP = 0.05
SLIDE_GAP = 0.01
_ALW_MEMO: dict[tuple, float] = {}  # ACWState.allowance by (kind, formation, screen, road, dis)

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
        self.stack: list[Frame] = [PlayerTurnCycle()]
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
        s.stack = [frame.copy() for frame in self.stack]
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
                "stack": [frame.to_dict() for frame in self.stack],
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
        s.stack = [record_from_dict(frame) for frame in d["stack"]]
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
        return self.stack[-1].legal_actions(self)

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
        frame = self.stack[-1]
        why = frame.why_illegal(self, action)
        if why is not None:
            return why
        label = self.game.actions.labels[action]
        return Illegality(("ACW-PD-12",), f"{label!r} is not a choice of this "
                                          f"{self.cur[1].value} decision ({frame.kind})")

    def returns(self) -> list[float]:
        return list(self.result) if self.done else [0.0, 0.0]

    # ------------------------------------------------------------------------------------------
    # the driver
    # ------------------------------------------------------------------------------------------
    def _advance(self) -> None:
        """Run the top frame until one waits (a decision or a chance node) or the game ends."""
        stack = self.stack
        while True:
            if self.done:
                self.cur = (TERMINAL, D_TERM)
                return
            if self._run_frame(stack[-1]):
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
        """Act on a frame's ``Push`` or ``Done`` (a ``Done`` pops it and hands it to the frame
        below, which reads it in ``on_child_done``)."""
        stack = self.stack
        if type(step) is Push:
            stack.extend(step.frames)
            return
        child = stack.pop()
        if stack:
            stack[-1].on_child_done(self, child)
        if step.then:
            stack.extend(step.then)

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

    @staticmethod
    def _place(u: Unit, fp: Footprint) -> None:
        """Put ``u`` at ``fp`` keeping its current frontage/depth (stands may have been lost
        while the move was paused)."""
        if fp.width != u.fp.width or fp.depth != u.fp.depth:
            fp = fp.with_size(u.fp.width, u.fp.depth)
        u.fp = fp

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
