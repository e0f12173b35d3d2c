"""A text sketch of an ACW table: ``render_sketch(state)``.

Units are letters (Union ``A``, ``B``, ... by slot; Confederate ``a``, ``b``, ...) filling their
footprint, with an arrow just ahead of the front-edge centre showing the facing; terrain is drawn
under them (``:`` woods or rough, ``~`` crest, ``+`` fence, ``#`` wall, ``.`` road) and the
objectives as ``*`` (ACW-PD-3, ACW-PD-16, ACW-PD-20, ACW-PD-36). A header names the turn, phase
and who is to decide; a legend below gives each letter's unit, formation, stands, health and
exact front-edge position and facing. Failing ACW tests attach it to their report
(``tests/acw/conftest.py``). Built on :class:`envs.core.sketch.TextGrid`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from envs.core.protocol import CHANCE, TERMINAL
from envs.core.sketch import TextGrid, heading_arrow

if TYPE_CHECKING:
    from .state import ACWState
    from .units import Unit

#: terrain and marker characters, in drawing order (later ones draw over earlier ones)
TERRAIN_CHARS = {"woods": ":", "road": ".", "crest": "~", "fence": "+", "wall": "#",
                 "objective": "*"}


def unit_letter(unit: Unit) -> str:
    """``A``, ``B``, ... for Union slots 0, 1, ...; ``a``, ``b``, ... for Confederate slots."""
    letter = chr(ord("A") + unit.slot % 26)
    return letter if unit.side == 0 else letter.lower()


def render_sketch(state: ACWState, *, crop: bool = True, margin: float = 3.0,
                  cell_width: float = 1.0, cell_depth: float = 2.0) -> str:
    """A multi-line text picture of ``state``'s table (see the module docstring).

    Args:
        state: an ``ACWState``.
        crop: show only the live units' bounding box plus ``margin`` inches (clipped to the
            table) instead of the whole table.
        margin: inches around the units when cropping.
        cell_width, cell_depth: inches per character column and row.

    Returns:
        The header line, the framed grid (far edge, the Confederate side of the default battle,
        on top; inch marks on the left and below: a row marked ``y`` covers ``[y, y +
        cell_depth)``, a column marked ``x`` starts at ``x``), the terrain key and one legend line per live
        unit.
    """
    game = state.game
    terrain = game.terrain
    units = [u for side in state.units for u in side if u is not None and u.alive]
    x0, y0, x1, y1 = 0.0, 0.0, float(terrain.width), float(terrain.depth)
    if crop and units:
        xs = [p[0] for u in units for p in u.fp.corners()]
        ys = [p[1] for u in units for p in u.fp.corners()]
        # aligned to whole cells, so that a row marked y covers [y, y + cell_depth)
        x0 = max(x0, math.floor((min(xs) - margin) / cell_width) * cell_width)
        x1 = min(x1, math.ceil((max(xs) + margin) / cell_width) * cell_width)
        y0 = max(y0, math.floor((min(ys) - margin) / cell_depth) * cell_depth)
        y1 = min(y1, math.ceil((max(ys) + margin) / cell_depth) * cell_depth)
    grid = TextGrid(x0, y0, x1, y1, cell_width, cell_depth)
    for area in terrain.areas:
        grid.fill_polygon(area, TERRAIN_CHARS["woods"])
    for kind, segments in (("road", terrain.roads), ("crest", terrain.crests),
                           ("fence", terrain.fences), ("wall", terrain.walls)):
        for a, b in segments:
            grid.segment(a, b, TERRAIN_CHARS[kind])
    for point in game.objectives:
        grid.put(point, TERRAIN_CHARS["objective"])
    for u in units:
        grid.fill_polygon(u.fp.corners(), unit_letter(u))
    for u in units:  # arrows last: the first cell ahead of the front edge off the unit
        fp, letter = u.fp, unit_letter(u)
        step = min(cell_width, cell_depth) / 4
        for k in range(1, 13):
            ahead = (fp.x + math.cos(fp.heading) * k * step,
                     fp.y + math.sin(fp.heading) * k * step)
            here = grid.get(ahead)
            if here != letter:
                if here is not None and not here.isalpha():  # never over another unit
                    grid.put(ahead, heading_arrow(fp.heading))
                break
    player = state.current_player()
    if player == TERMINAL:
        to_move = "game over"
    elif player == CHANCE:
        to_move = "chance"
    else:
        to_move = f"{game.side_names[player]} to decide ({state.decision_name()})"
    lines = [f"{game.scenario_name}: turn {state.turn}, phase {state.phase}, "
             f"{game.side_names[state.active]} active; {to_move}",
             grid.render(),
             "key: " + ", ".join(f"{c!r} {k}" for k, c in TERRAIN_CHARS.items())
             + ", letters = units (Union upper case), arrows = facing"]
    for u in units:
        flags = [f for f, on in (("disordered", u.disordered), ("screen", u.is_screen)) if on]
        lines.append(f"{unit_letter(u)} = {u.label()}: {u.kind} {u.formation}, {u.stands} "
                     f"stands, {u.health.value}; front edge ({u.fp.x:.2f}, {u.fp.y:.2f}) facing "
                     f"{math.degrees(u.fp.heading) % 360:.0f} deg"
                     + (f" [{', '.join(flags)}]" if flags else ""))
    return "\n".join(lines)
