"""Ruleset-agnostic drawing of a table: simple shapes and one SVG renderer (standard library only).

A ruleset describes a state as a :class:`Drawing` — a table size in the ruleset's units
(inches for ACW) and a list of shapes in table coordinates (``x`` to the right, ``y`` up the
table, origin at the lower-left corner). Every consumer draws from the same shapes:
:func:`to_svg` here (the replay viewer and the play page), the adapters' ``rgb_array`` renderer
(matplotlib) and anything else that wants a picture. A ruleset without its own drawing gets
:func:`text_drawing` (its observation string on a blank table) from
:meth:`envs.core.protocol.Game.drawing`.

Shapes (frozen dataclasses): :class:`Polygon` (stands or fighters, terrain areas, reaction arcs
and range bands), :class:`Polyline` (linear terrain, a mover's path, the 4.0" mark),
:class:`Circle` (objectives, markers) and :class:`Text` (labels). Each carries a ``role`` — one of
:data:`ROLES`, the SVG ``class`` and the drawing order — and an optional ``title`` (the hover text
in SVG). Colours are CSS colour strings (``"#1f4e9c"``, ``"none"``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from .errors import ParameterError

Vec = tuple[float, float]

#: shape roles in drawing order (lowest first); also the SVG class of each shape
ROLES = ("table", "terrain", "objective", "trigger", "path", "unit", "facing", "marker",
         "label", "text")


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise ParameterError(f"shape role {role!r} is not one of {ROLES}")


@dataclass(frozen=True, slots=True)
class Polygon:
    """A closed polygon: ``points`` (at least 3) in table units."""

    points: tuple[Vec, ...]
    fill: str = "none"
    stroke: str = "#000000"
    stroke_width: float = 0.08
    opacity: float = 1.0
    role: str = "unit"
    title: str = ""
    dash: bool = False

    def __post_init__(self) -> None:
        _check_role(self.role)
        if len(self.points) < 3:
            raise ParameterError(f"a Polygon needs at least 3 points, got {len(self.points)}")


@dataclass(frozen=True, slots=True)
class Polyline:
    """An open line through ``points`` (at least 2) in table units."""

    points: tuple[Vec, ...]
    stroke: str = "#000000"
    stroke_width: float = 0.1
    opacity: float = 1.0
    role: str = "terrain"
    title: str = ""
    dash: bool = False
    arrow: bool = False

    def __post_init__(self) -> None:
        _check_role(self.role)
        if len(self.points) < 2:
            raise ParameterError(f"a Polyline needs at least 2 points, got {len(self.points)}")


@dataclass(frozen=True, slots=True)
class Circle:
    """A circle of radius ``r`` at ``(x, y)``, table units."""

    x: float
    y: float
    r: float
    fill: str = "none"
    stroke: str = "#000000"
    stroke_width: float = 0.08
    opacity: float = 1.0
    role: str = "marker"
    title: str = ""

    def __post_init__(self) -> None:
        _check_role(self.role)
        if not self.r > 0:
            raise ParameterError(f"a Circle needs a radius > 0, got {self.r!r}")


@dataclass(frozen=True, slots=True)
class Text:
    """A text label anchored (centred) at ``(x, y)``; ``size`` is the font height in table
    units."""

    x: float
    y: float
    text: str
    size: float = 0.8
    color: str = "#000000"
    role: str = "label"
    anchor: str = "middle"  # "start" | "middle" | "end"
    bold: bool = False

    def __post_init__(self) -> None:
        _check_role(self.role)
        if self.anchor not in ("start", "middle", "end"):
            raise ParameterError(f"Text anchor {self.anchor!r} is not start/middle/end")


Shape = Polygon | Polyline | Circle | Text


@dataclass(frozen=True, slots=True)
class Drawing:
    """A table of ``width`` × ``height`` units with its shapes; ``caption`` is a one-line
    summary (turn, phase, who decides) and ``background`` the table colour."""

    width: float
    height: float
    shapes: tuple[Shape, ...] = field(default_factory=tuple)
    caption: str = ""
    background: str = "#e8e4c9"

    def __post_init__(self) -> None:
        if not (self.width > 0 and self.height > 0):
            raise ParameterError(f"a Drawing needs width and height > 0, got "
                                 f"{self.width!r} x {self.height!r}")

    def ordered(self) -> list[Shape]:
        """The shapes in drawing order (by :data:`ROLES`, stable within a role)."""
        rank = {r: i for i, r in enumerate(ROLES)}
        return sorted(self.shapes, key=lambda s: rank[s.role])


def text_drawing(lines: Sequence[str], caption: str = "", width: float = 48.0,
                 height: float = 36.0) -> Drawing:
    """A blank ``width`` × ``height`` table carrying ``lines`` of text, the font shrunk to fit
    (for rulesets without a drawing of their own; always the same size, as video needs)."""
    size = min(1.0, height / (1.5 * (len(lines) + 1)))
    shapes = tuple(Text(0.5, height - 1.5 * size * (i + 1), ln, size=size, role="text",
                        anchor="start") for i, ln in enumerate(lines))
    return Drawing(width, height, shapes, caption, background="#ffffff")


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


def to_svg(drawing: Drawing, scale: float = 16.0, element_id: str | None = None) -> str:
    """SVG markup (one ``<svg>`` element, no external references) of ``drawing``.

    Args:
        drawing: the table and its shapes.
        scale: pixels per table unit for the ``width``/``height`` attributes (the ``viewBox``
            is in table units, so the picture scales freely).
        element_id: optional ``id`` attribute of the ``<svg>`` element.

    Returns:
        A ``str``; y is flipped (table ``y`` up → SVG ``y`` down); every shape has the class of
        its role and a ``<title>`` child when it has a title.
    """
    W, H = drawing.width, drawing.height

    def pt(p: Vec) -> str:
        return f"{_fmt(p[0])},{_fmt(H - p[1])}"

    esc = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_fmt(W)} {_fmt(H)}" '
           f'width="{_fmt(W * scale)}" height="{_fmt(H * scale)}"'
           + (f' id="{esc(element_id)}"' if element_id else "") + ' font-family="sans-serif">',
           '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" '
           'markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
           'fill="context-stroke"/></marker></defs>',
           f'<rect class="table" x="0" y="0" width="{_fmt(W)}" height="{_fmt(H)}" '
           f'fill="{esc(drawing.background)}" stroke="#555" stroke-width="0.1"/>']
    for s in drawing.ordered():
        title = f"<title>{esc(s.title)}</title>" if not isinstance(s, Text) and s.title else ""
        if isinstance(s, Polygon):
            pts = " ".join(pt(p) for p in s.points)
            out.append(f'<polygon class="{s.role}" points="{pts}" fill="{esc(s.fill)}" '
                       f'stroke="{esc(s.stroke)}" stroke-width="{_fmt(s.stroke_width)}" '
                       f'opacity="{_fmt(s.opacity)}"'
                       + (' stroke-dasharray="0.4 0.3"' if s.dash else "") + f'>{title}</polygon>')
        elif isinstance(s, Polyline):
            pts = " ".join(pt(p) for p in s.points)
            out.append(f'<polyline class="{s.role}" points="{pts}" fill="none" '
                       f'stroke="{esc(s.stroke)}" stroke-width="{_fmt(s.stroke_width)}" '
                       f'opacity="{_fmt(s.opacity)}" stroke-linecap="round"'
                       + (' stroke-dasharray="0.4 0.3"' if s.dash else "")
                       + (' marker-end="url(#arrowhead)"' if s.arrow else "")
                       + f'>{title}</polyline>')
        elif isinstance(s, Circle):
            out.append(f'<circle class="{s.role}" cx="{_fmt(s.x)}" cy="{_fmt(H - s.y)}" '
                       f'r="{_fmt(s.r)}" fill="{esc(s.fill)}" stroke="{esc(s.stroke)}" '
                       f'stroke-width="{_fmt(s.stroke_width)}" opacity="{_fmt(s.opacity)}">'
                       f'{title}</circle>')
        else:
            out.append(f'<text class="{s.role}" x="{_fmt(s.x)}" y="{_fmt(H - s.y)}" '
                       f'font-size="{_fmt(s.size)}" fill="{esc(s.color)}" '
                       f'text-anchor="{s.anchor}" dominant-baseline="middle"'
                       + (' font-weight="bold"' if s.bold else "") + f'>{esc(s.text)}</text>')
    out.append("</svg>")
    return "\n".join(out)
