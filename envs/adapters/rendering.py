"""``render_mode="rgb_array"``: a :class:`~envs.core.drawing.Drawing` as an ``(H, W, 3)`` uint8
image, drawn with matplotlib (Agg canvas, no display needed) from the same shapes as the SVG of
:func:`envs.core.drawing.to_svg`."""

from __future__ import annotations

import numpy as np

from envs.core.drawing import Circle, Drawing, Polygon, Polyline, Text, ROLES

#: pixels per table unit of the rgb_array image (a 48" x 36" table → 576 x 432 pixels + caption)
PIXELS_PER_UNIT = 12
#: height in pixels of the caption strip above the table
CAPTION_PX = 24


def drawing_to_rgb(drawing: Drawing, pixels_per_unit: int = PIXELS_PER_UNIT) -> np.ndarray:
    """Rasterise ``drawing``: a uint8 array of shape ``(H, W, 3)`` with ``W = width *
    pixels_per_unit`` and ``H = height * pixels_per_unit + CAPTION_PX`` (rounded), the caption
    printed above the table. Always the same shape for the same table size (video encoders need
    that)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib import patches

    W = max(1, int(round(drawing.width * pixels_per_unit)))
    Ht = max(1, int(round(drawing.height * pixels_per_unit)))
    H = Ht + CAPTION_PX
    dpi = 100
    fig = Figure(figsize=(W / dpi, H / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, Ht / H))
    ax.set_xlim(0, drawing.width)
    ax.set_ylim(0, drawing.height)
    ax.set_axis_off()
    ax.add_patch(patches.Rectangle((0, 0), drawing.width, drawing.height,
                                   facecolor=drawing.background, edgecolor="#555555", zorder=0))
    pt_per_unit = 72.0 * pixels_per_unit / dpi  # line widths and font sizes are in points
    for s in drawing.ordered():
        z = 1 + ROLES.index(s.role)
        if isinstance(s, Polygon):
            ax.add_patch(patches.Polygon(s.points, closed=True,
                                         facecolor="none" if s.fill == "none" else s.fill,
                                         edgecolor=s.stroke, alpha=s.opacity, zorder=z,
                                         linewidth=s.stroke_width * pt_per_unit,
                                         linestyle="--" if s.dash else "-"))
        elif isinstance(s, Polyline):
            xs, ys = zip(*s.points)
            ax.plot(xs, ys, color=s.stroke, alpha=s.opacity, zorder=z,
                    linewidth=s.stroke_width * pt_per_unit, linestyle="--" if s.dash else "-",
                    solid_capstyle="round")
            if s.arrow and len(s.points) >= 2:
                (x0, y0), (x1, y1) = s.points[-2], s.points[-1]
                ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=z,
                            arrowprops={"arrowstyle": "-|>", "color": s.stroke})
        elif isinstance(s, Circle):
            ax.add_patch(patches.Circle((s.x, s.y), s.r,
                                        facecolor="none" if s.fill == "none" else s.fill,
                                        edgecolor=s.stroke, alpha=s.opacity, zorder=z,
                                        linewidth=s.stroke_width * pt_per_unit))
        elif isinstance(s, Text):
            ax.text(s.x, s.y, s.text, fontsize=s.size * pt_per_unit, color=s.color,
                    ha={"start": "left", "middle": "center", "end": "right"}[s.anchor],
                    va="center", zorder=z, fontweight="bold" if s.bold else "normal",
                    clip_on=True)
    if drawing.caption:
        fig.text(0.005, 1 - (CAPTION_PX / 2) / H, drawing.caption, fontsize=8, va="center",
                 ha="left")
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[:, :, :3]
    if img.shape[:2] != (H, W):  # guard against rounding in the backend
        out = np.full((H, W, 3), 255, dtype=np.uint8)
        h, w = min(H, img.shape[0]), min(W, img.shape[1])
        out[:h, :w] = img[:h, :w]
        return out
    return np.ascontiguousarray(img, dtype=np.uint8)
