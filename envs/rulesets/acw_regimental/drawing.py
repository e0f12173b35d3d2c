"""The ACW table as simple shapes (:mod:`envs.core.drawing`): terrain, objectives, every stand
with its facing mark and a label, Disorder / Smoke / refused-flank markers, and, while a
reaction window is open, its trigger geometry (ACW-PD-24, RULE-04-1.2):

* Window A, Opportunity Fire (RULE-04-3.1, I-18): the defender's forward arc out to 8" (Medium)
  and 6" (Short), the range band the mover is in;
* Window A, Evade (RULE-04-4.1): the 6" trigger circle around the screen;
* Window A / B1, Refuse the Flank (RULE-04-5.1, I-23): the flank zones within 12";
* Window B1 (charge declared) and B2 (the 4.0" mark, RULE-04-2.1): the charger's path to
  contact and the 4.0" line in front of the defender;
* the mover's path (the rest of the move being made, or the charge path).

Coordinates are table inches (x right, y up the table toward the Confederate edge).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from envs.core.drawing import Circle, Drawing, Polygon, Polyline, Text
from envs.core.geometry import Footprint
from envs.core.protocol import CHANCE, TERMINAL

from . import tables as T
from .observer import decision_units
from .paths import path_fn
from .procedures.charge import Charge
from .procedures.move import Move
from .units import Unit

if TYPE_CHECKING:
    from .state import ACWState

SIDE_FILL = ("#3b64b3", "#9a9a9a")     # Union blue, Confederate grey
SIDE_STROKE = ("#142f66", "#3d3d3d")
SIDE_NAME = ("Union", "Confederate")
TERRAIN_STYLE = {"woods": "#6f9a52", "rough": "#b9a66f"}
LINE_STYLE = {"crests": ("#8a6a3a", 0.35, True), "fences": ("#6b4a2b", 0.15, False),
              "walls": ("#5b5b5b", 0.25, False), "roads": ("#c9b48a", 0.6, False)}
TRIGGER_FILL = "#ffb000"
MARK_COLOR = "#d62728"


def _frame(fp: Footprint) -> Callable[[float, float], tuple[float, float]]:
    """Local frame of a footprint: ``to_table(lx, ly)`` with ``lx`` to the unit's right and
    ``ly`` forward of the front edge (inches)."""
    c, s = math.cos(fp.heading), math.sin(fp.heading)

    def to_table(lx: float, ly: float) -> tuple[float, float]:
        return (fp.x + lx * s + ly * c, fp.y - lx * c + ly * s)
    return to_table


def stand_polygons(unit: Unit) -> list[tuple[tuple[float, float], ...]]:
    """One rectangle per stand of ``unit`` laid out by formation (ACW-PD-6): side by side in
    Line / mounted line / unlimbered, two wide in Assault Column, one file in Road Column /
    limbered."""
    n = max(1, unit.stands)
    if unit.formation in ("line", "mounted_line", "unlimbered", "skirmish"):
        cols = n
    elif unit.formation == "assault_column":
        cols = 1 if n == 1 else 2
    else:
        cols = 1
    rows = (n + cols - 1) // cols
    # stand size from the footprint (the source of truth for size, ACW-PD-6)
    sw, sd = unit.fp.width / cols, unit.fp.depth / rows
    to = _frame(unit.fp)
    out: list[tuple[tuple[float, float], ...]] = []
    for i in range(n):
        r, c = divmod(i, cols)
        x0 = -unit.fp.width / 2 + c * sw
        y0 = -r * sd
        out.append((to(x0, y0), to(x0 + sw, y0), to(x0 + sw, y0 - sd), to(x0, y0 - sd)))
    return out


def _facing_mark(unit: Unit) -> Polygon:
    """A small triangle on the front edge pointing forward."""
    to = _frame(unit.fp)
    a = min(0.6, unit.fp.width / 3)
    return Polygon((to(-a, 0.0), to(a, 0.0), to(0.0, a * 1.1)), fill=SIDE_STROKE[unit.side],
                   stroke=SIDE_STROKE[unit.side], stroke_width=0.04, role="facing",
                   title=f"{unit.label()} faces {math.degrees(unit.fp.heading) % 360:.0f}°")


def _arc_polygon(fp: Footprint, radius: float,
                 segments: int = 12) -> tuple[tuple[float, float], ...]:
    """The forward arc of ``fp`` (ACW-PD-16: forward of the front edge, 45° out from its ends)
    cut at ``radius`` inches from the front edge, each rounded corner drawn as ``segments``
    straight pieces."""
    to = _frame(fp)
    hw = fp.width / 2
    pts = [to(-hw, 0.0)]
    for k in range(segments + 1):  # around the left corner from 135° to 90° (local frame)
        a = math.radians(135 - 45 * k / segments)
        pts.append(to(-hw + radius * math.cos(a), radius * math.sin(a)))
    for k in range(segments + 1):
        a = math.radians(90 - 45 * k / segments)
        pts.append(to(hw + radius * math.cos(a), radius * math.sin(a)))
    pts.append(to(hw, 0.0))
    return tuple(pts)


def _flank_polygon(fp: Footprint, left: bool, radius: float) -> tuple[tuple[float, float], ...]:
    """A flank zone of ``fp`` (outside the forward arc, forward of the rear line) within about
    ``radius`` inches, as drawn (I-23)."""
    to = _frame(fp)
    hw = fp.width / 2
    sg = -1.0 if left else 1.0
    corner = (sg * hw, 0.0)
    pts = [to(*corner)]
    for k in range(13):  # from the arc edge (45° forward) round to the rear line
        a = math.radians(45 + 90 * k / 12)
        pts.append(to(corner[0] + sg * radius * math.sin(a), radius * math.cos(a)))
    pts.append(to(sg * hw, -fp.depth))
    return tuple(pts)


def _path_points(spec: list[Any], t0: float, path_length: float) -> tuple[tuple[float, float], ...]:
    """Centres of the mover along the state machine's path (ACW-PD-21) from ``t0`` to
    ``path_length`` inches, every half inch or so (at most 40 points)."""
    f = path_fn(spec)
    n = max(2, min(40, int((path_length - t0) / 0.5) + 2))
    pts = []
    for k in range(n):
        t = t0 + (path_length - t0) * k / (n - 1)
        fp = f(t)
        pts.append((fp.x, fp.y))
    return tuple(pts)


#: the Window A triggers (what a Window A frame's context names as being decided)
WINDOW_A_TRIGGERS = ("opp_medium", "opp_short", "evade", "refuse")


def _move_frame(state: ACWState) -> Move | None:
    """The nearest :class:`.procedures.move.Move` on the stack."""
    return next((f for f in reversed(state.stack) if type(f) is Move), None)


def _charge_frame(state: ACWState) -> Charge | None:
    """The nearest :class:`.procedures.charge.Charge` on the stack."""
    return next((f for f in reversed(state.stack) if type(f) is Charge), None)


def _window(state: ACWState) -> dict | None:
    """The open reaction window as a plain dict (``kind`` A / B1 / B2, ``trig``, defender
    ``d``, mover ``m`` and the move or charge frame giving the path), or None. Read from the
    waiting decision's typed context (:func:`.observer.decision_units`): the unit asked and
    the unit that triggered it."""
    if state.current_player() in (CHANCE, TERMINAL) or not state.stack:
        return None
    asked, trig, what = decision_units(state)
    if asked is None or trig is None:
        return None
    d = state.units[asked[0]][asked[1]]
    m = state.units[trig[0]][trig[1]]
    if what in WINDOW_A_TRIGGERS:
        return {"kind": "A", "trig": what, "d": d, "m": m, "move": _move_frame(state)}
    if what in ("charge_b1", "charge_b2"):
        return {"kind": "B1" if what == "charge_b1" else "B2", "trig": "charge", "d": d, "m": m,
                "charge": _charge_frame(state)}
    return None


def _trigger_shapes(state: ACWState, window: dict) -> list:
    d: Unit | None = window["d"]
    m: Unit | None = window["m"]
    if d is None or m is None:
        return []
    out: list = []
    trig = window["trig"]
    opp = getattr(state.game, "opportunity_fire_trigger", T.OPP_FIRE_RANGE)  # parameter
    tip = {"opp_medium": f"Opportunity Fire trigger: mover in the forward arc within {opp:g}\" "
                         "(RULE-04-3.1, I-18)",
           "opp_short": "Opportunity Fire at Short range: within 6\" (I-18)",
           "evade": "Evade trigger: a formed enemy within 6\" of the screen (RULE-04-4.1)",
           "refuse": "Refuse the Flank trigger: mover in a flank zone within 12\" (I-23)",
           "B1": "Window B1: the charge is declared (RULE-04-1.2, I-10)",
           "B2": "Window B2: the charger has reached the Closing Volley point (RULE-04-2.1)"}
    if trig in ("opp_medium", "opp_short"):
        out.append(Polygon(_arc_polygon(d.fp, opp), fill=TRIGGER_FILL,
                           stroke="#b07800", opacity=0.25 if trig == "opp_medium" else 0.15,
                           role="trigger", title=f"forward arc, Medium range band 6-{opp:g}\" "
                           "(RULE-04-3.1)"))
        out.append(Polygon(_arc_polygon(d.fp, T.SHORT_RANGE), fill=TRIGGER_FILL,
                           stroke="#b07800", opacity=0.35 if trig == "opp_short" else 0.15,
                           role="trigger", title="forward arc, Short range band 0-6\" (I-18)"))
    elif trig == "evade":
        cx, cy = d.fp.centre()
        out.append(Circle(cx, cy, T.EVADE_TRIGGER + max(d.fp.width, d.fp.depth) / 2,
                          fill=TRIGGER_FILL, stroke="#b07800", opacity=0.25, role="trigger",
                          title=tip["evade"]))
    elif trig == "refuse":
        for left in (True, False):
            out.append(Polygon(_flank_polygon(d.fp, left, T.REFUSE_RANGE), fill=TRIGGER_FILL,
                               stroke="#b07800", opacity=0.25, role="trigger",
                               title=tip["refuse"]))
    if trig == "charge":
        c = window["charge"]
        to = _frame(d.fp)
        hw = d.fp.width / 2 + 1.0
        out.append(Polyline((to(-hw, T.VOLLEY_MARK), to(hw, T.VOLLEY_MARK)), stroke=MARK_COLOR,
                            stroke_width=0.18, dash=True, role="trigger",
                            title="the 4.0\" mark: Closing Volley (Window B2, RULE-04-2.1)"))
        lx, ly = max(to(hw, T.VOLLEY_MARK), to(-hw, T.VOLLEY_MARK))  # the right-hand end
        out.append(Text(lx + 0.3, ly, '4.0"', size=0.8, color=MARK_COLOR, role="label",
                        anchor="start", bold=True))
        if c is not None and c.path is not None:
            pts = _path_points(c.path, c.moved, c.path_length)
        else:
            pts = (m.fp.centre(), d.fp.centre())
        out.append(Polyline(pts, stroke=MARK_COLOR, stroke_width=0.15, role="path", arrow=True,
                            title=f"{m.label()} charges {d.label()}"))
    else:
        move = window.get("move")
        if move is not None and move.path_length > move.moved + 1e-6:
            out.append(Polyline(_path_points(move.path, move.moved, move.path_length),
                                stroke=MARK_COLOR, stroke_width=0.12, dash=True, role="path",
                                arrow=True, title=f"rest of {m.label()}'s move "
                                f"({move.path_length - move.moved:.2f}\")"))
    out.append(Polyline((d.fp.centre(), m.fp.centre()), stroke=MARK_COLOR, stroke_width=0.06,
                        dash=True, role="trigger",
                        title=tip[window["kind"]] if trig == "charge" else tip.get(trig, trig)))
    return out


def caption(state: ACWState) -> str:
    """One line: turn, player-turn, phase, Staff Pips and who decides what."""
    g = state.game
    p = state.current_player()
    who = ("game over" if p == TERMINAL else "dice" if p == CHANCE
           else f"{SIDE_NAME[p]} to decide ({state.decision_name()})")
    # the turn counter passes the last turn when the game ends on time (as the observation)
    return (f"Turn {min(state.turn, g.turns)}/{g.turns} · {SIDE_NAME[state.active]} "
            f"player-turn · phase "
            f"{state.phase} · Staff Pips U{state.pips[0]}/C{state.pips[1]} · {who}")


def drawing(state: ACWState) -> Drawing:
    """The whole table of ``state`` (no hidden information in ACW) as a
    :class:`~envs.core.drawing.Drawing` in inches."""
    g = state.game
    spec = g.spec
    shapes: list = []
    tr = spec.terrain
    for kind in ("woods", "rough"):
        for a in getattr(tr, kind):
            shapes.append(Polygon(tuple(a.points()), fill=TERRAIN_STYLE[kind], stroke="#4a6b35",
                                  opacity=0.7, role="terrain",
                                  title=f"{a.name or kind} ({kind})"))
    for kind, (color, width, dash) in LINE_STYLE.items():
        for ln in getattr(tr, kind):
            shapes.append(Polyline(tuple(tuple(p) for p in ln.points), stroke=color,
                                   stroke_width=width, dash=dash, role="terrain",
                                   title=f"{ln.name or kind} ({kind[:-1]})"))
    for o in spec.objectives:
        shapes.append(Circle(o.x, o.y, 0.9, fill="#ffffff", stroke="#b8860b", stroke_width=0.2,
                             role="objective", title=f"objective: {o.name}"))
        shapes.append(Text(o.x, o.y - 1.5, o.name, size=0.7, color="#6b4e00", role="label"))
    w = _window(state)
    if w is not None:
        shapes.extend(_trigger_shapes(state, w))
    for side in (0, 1):
        for u in state.units[side]:
            if u is None or not u.alive:
                continue
            hl = w is not None and (u is w["d"] or u is w["m"])
            info = (f"{u.label()}: {u.kind}, {u.formation}, {u.experience}, {u.stands} stands "
                    f"(lost {u.lost}), {u.health.value}"
                    + (", Disordered" if u.disordered else "")
                    + (", Smoke" if u.smoke >= 0 else "")
                    + (f", refused {u.refused} flank" if u.refused else ""))
            for poly in stand_polygons(u):
                shapes.append(Polygon(poly, fill=SIDE_FILL[side],
                                      stroke=MARK_COLOR if hl else SIDE_STROKE[side],
                                      stroke_width=0.14 if hl else 0.06, role="unit",
                                      title=info))
            shapes.append(_facing_mark(u))
            cx, cy = u.fp.centre()
            back = _frame(u.fp)(0.0, -u.fp.depth - 0.8)
            shapes.append(Text(back[0], back[1], f"{u.name} ({u.stands})", size=0.75,
                               color=SIDE_STROKE[side], role="label"))
            if u.disordered:
                shapes.append(Circle(cx - 0.9, cy, 0.45, fill=MARK_COLOR, stroke="#000000",
                                     stroke_width=0.04, role="marker",
                                     title="Disorder marker (ACW-PD-31)"))
                shapes.append(Text(cx - 0.9, cy, "D", size=0.6, color="#ffffff",
                                   role="label", bold=True))
            if u.smoke >= 0:
                f = _frame(u.fp)(0.0, 0.9)
                shapes.append(Circle(f[0], f[1], 0.8, fill="#dddddd", stroke="#888888",
                                     opacity=0.85, role="marker",
                                     title="Smoke Marker (ACW-PD-32)"))
            if u.refused:
                shapes.append(Text(cx + 0.9, cy, "R" + u.refused[0].upper(), size=0.55,
                                   color="#000000", role="label", bold=True))
    return Drawing(float(spec.table.width), float(spec.table.depth), tuple(shapes),
                   caption(state))
