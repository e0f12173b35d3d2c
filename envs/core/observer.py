"""Observation layouts built from named pieces (OpenSpiel's observer pattern).

A layout is an ordered list of ``(name, shape, meaning)`` pieces over one flat ``float32``
buffer; each ruleset's observer fills the pieces for one side (egocentric) and documents them
with :meth:`ObservationLayout.table`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    meaning: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class ObservationLayout:
    """Named, shaped views over a flat float32 vector.

    Args:
        pieces: the pieces in order.
    """

    def __init__(self, pieces: list[Piece]):
        self.pieces = tuple(pieces)
        self.slices: dict[str, slice] = {}
        off = 0
        for p in self.pieces:
            if p.name in self.slices:
                raise ValueError(f"duplicate observation piece {p.name!r}")
            self.slices[p.name] = slice(off, off + p.size)
            off += p.size
        self.size = off
        #: first index of each piece in the flat vector
        self.offsets: dict[str, int] = {name: sl.start for name, sl in self.slices.items()}

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def view(self, vec: np.ndarray, name: str) -> np.ndarray:
        """The piece ``name`` of ``vec``, reshaped to its shape (a view, not a copy)."""
        piece = next(p for p in self.pieces if p.name == name)
        return vec[self.slices[name]].reshape(piece.shape)

    def split(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """All pieces of ``vec`` by name."""
        return {p.name: vec[self.slices[p.name]].reshape(p.shape) for p in self.pieces}

    def table(self) -> str:
        """Markdown table ``| piece | index range | shape | meaning |``."""
        rows = ["| piece | indices | shape | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            s = self.slices[p.name]
            rows.append(f"| `{p.name}` | {s.start}–{s.stop - 1} | {p.shape} | {p.meaning} |")
        return "\n".join(rows)
