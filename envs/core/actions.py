"""Fixed, ordered action catalogues: typed labels <-> ids ``0..N-1``.

A ruleset has one catalogue for decisions (``num_distinct_actions`` ids, the same for every
scenario) and one for chance outcomes (e.g. ``d6=1`` … ``d6=6`` or the cards of a deck).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from .errors import IllegalActionError


class ActionCatalogue:
    """An immutable ordered table of distinct action labels.

    Args:
        labels: the labels in id order; must be unique, non-empty strings.

    Raises:
        ValueError: on a duplicate or empty label.
    """

    __slots__ = ("_labels", "_index")

    def __init__(self, labels: Iterable[str]):
        self._labels: tuple[str, ...] = tuple(labels)
        self._index: dict[str, int] = {}
        for i, lab in enumerate(self._labels):
            if not lab or lab in self._index:
                raise ValueError(f"action catalogue: duplicate or empty label {lab!r} at id {i}")
            self._index[lab] = i

    def __len__(self) -> int:
        return len(self._labels)

    def __iter__(self) -> Iterator[str]:
        return iter(self._labels)

    @property
    def labels(self) -> tuple[str, ...]:
        return self._labels

    def label(self, action: int) -> str:
        """Label of id ``action``. Raises IllegalActionError when out of range."""
        if not isinstance(action, (int, np.integer)) or not 0 <= int(action) < len(self._labels):
            raise IllegalActionError(
                f"action id {action!r} is out of range 0..{len(self._labels) - 1}")
        return self._labels[int(action)]

    def id(self, label: str) -> int:
        """Id of ``label``. Raises IllegalActionError for an unknown label."""
        try:
            return self._index[label]
        except KeyError:
            raise IllegalActionError(f"unknown action label {label!r}") from None

    def __contains__(self, label: object) -> bool:
        return label in self._index

    def mask(self, legal: Sequence[int]) -> np.ndarray:
        """Bool mask of shape ``(len(self),)`` with ``True`` at the ``legal`` ids."""
        # filled as bytes, then viewed as bool: cheaper than numpy's fancy indexing for the
        # short lists of a decision
        filled = bytearray(len(self._labels))
        for action in legal:
            filled[action] = 1
        return np.frombuffer(filled, dtype=bool)

    def table(self) -> str:
        """Markdown table ``| id | label |`` for docs."""
        rows = ["| id | label |", "|---|---|"]
        rows += [f"| {i} | `{lab}` |" for i, lab in enumerate(self._labels)]
        return "\n".join(rows)
