"""Core frames every ruleset reuses: dice, card draws and hidden simultaneous commitments.

* :class:`RollDice` — ``count`` dice of ``sides`` faces, one chance node per die (outcome ids
  ``first_outcome .. first_outcome + sides - 1`` mean faces ``1 .. sides``); the values are left
  in ``values`` for the frame that pushed it.
* :class:`DrawCard` — one card from a finite deck zone (:mod:`envs.core.zones`); the chance
  outcomes are the distinct cards left, each with probability (copies left) / (cards left); the
  card moves to a destination zone and is left in ``card``.
* :class:`HiddenCommit` — a simultaneous hidden choice by several sides, taken as sequential
  decisions: a later side's decision context never holds an earlier side's choice, and the
  choices are revealed (``choices``, a ``reveal`` event) only once all have committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .errors import InvalidStateError
from .procedure import ChanceNode, DecisionContext, Done, Frame, Step, Wait, register
from .protocol import Game, State
from .zones import Zones

__all__ = ["CommitContext", "DrawCard", "HiddenCommit", "RollDice", "ZonedState",
           "dice_labels", "rolled"]


class ZonedState(Protocol):
    """What :class:`DrawCard` (and :class:`~envs.core.activation.OrderCards`) use of a state:
    its game, its card zones and its event log."""

    @property
    def game(self) -> Game[Any]: ...

    @property
    def zones(self) -> Zones: ...

    def log(self, kind: str, rules: tuple[str, ...] | list[str], text: str,
            side: int | None = None, **data: Any) -> None: ...


#: the state of a :class:`DrawCard` (a ruleset's subclass names its own state class)
ZonedStateT = TypeVar("ZonedStateT", bound=ZonedState)
#: the state of a :class:`HiddenCommit`
CommitStateT = TypeVar("CommitStateT", bound=State)

_UNIFORM: dict[tuple[int, int], ChanceNode] = {}


def dice_labels(sides: int, prefix: str | None = None) -> list[str]:
    """Chance labels of one die: ``["d6=1", ..., "d6=6"]`` (``prefix`` defaults to
    ``d<sides>``)."""
    p = f"d{sides}" if prefix is None else prefix
    return [f"{p}={i}" for i in range(1, sides + 1)]


def uniform_die(sides: int, first_outcome: int = 0) -> ChanceNode:
    """The chance node of one fair die (cached: the same object each time)."""
    node = _UNIFORM.get((sides, first_outcome))
    if node is None:
        node = _UNIFORM[(sides, first_outcome)] = ChanceNode(
            tuple((first_outcome + i, 1.0 / sides) for i in range(sides)))
    return node


@register
@dataclass(slots=True)
class RollDice(Frame[State]):
    """Roll ``count`` d``sides``, one chance node per die.

    Each die logs a ``die`` event citing ``rules`` with data ``value``, ``index``, ``of`` and
    ``what`` (text ``"<what>: d<sides> = <v> (<i>/<count>)"``). The pushing frame reads
    ``values`` in :meth:`Frame.on_child_done`.

    Raises:
        InvalidStateError: when ``count`` < 0 or ``sides`` < 2.
    """

    kind = "roll_dice"
    count: int
    what: str
    rules: tuple[str, ...] = ()
    side: int | None = None
    sides: int = 6
    first_outcome: int = 0
    values: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.count < 0 or self.sides < 2:
            raise InvalidStateError(f"roll_dice: need count >= 0 and sides >= 2, got "
                                    f"{self.count}d{self.sides}")

    def run(self, state: State) -> Step:
        if len(self.values) >= self.count:
            return Done()
        return uniform_die(self.sides, self.first_outcome)

    def legal_actions(self, state: State) -> list[int]:
        return list(range(self.first_outcome, self.first_outcome + self.sides))

    def apply(self, state: State, action: int) -> Done | None:
        v = action - self.first_outcome + 1
        values = self.values
        values.append(v)
        n = len(values)
        state.log("die", self.rules, f"{self.what}: d{self.sides} = {v} ({n}/{self.count})",
                  self.side, value=v, index=n - 1, of=self.count, what=self.what)
        return Done() if n >= self.count else None


def rolled(child: Frame[Any]) -> list[int]:
    """The face values of a finished :class:`RollDice` ``child``, as the frame that pushed it
    reads them in :meth:`~envs.core.procedure.Frame.on_child_done`.

    Raises:
        InvalidStateError: when ``child`` is not a :class:`RollDice`.
    """
    if not isinstance(child, RollDice):
        raise InvalidStateError(f"expected a finished dice roll, got the frame {child.kind!r}")
    return child.values


@register
@dataclass(slots=True)
class DrawCard(Frame[ZonedStateT]):
    """Draw one card from zone ``deck`` of ``state.zones`` into zone ``dest``.

    The chance outcomes are the distinct card ids left in the deck with probability
    copies / cards left (:meth:`envs.core.zones.Zones.distribution`). Logs a ``draw`` event
    citing ``rules``; its data names the card only when ``dest`` is public (a card drawn into
    a hand is not announced). The drawn card is left in ``card``.

    Raises:
        InvalidStateError: when the deck is empty when the draw is run.
    """

    kind = "draw_card"
    deck: str
    dest: str
    side: int | None = None
    rules: tuple[str, ...] = ()
    card: int | None = None

    def run(self, state: ZonedStateT) -> Step:
        if self.card is not None:
            return Done()
        return ChanceNode(tuple(state.zones.distribution(self.deck)))

    def legal_actions(self, state: ZonedStateT) -> list[int]:
        return [c for c, _ in state.zones.distribution(self.deck)]

    def apply(self, state: ZonedStateT, action: int) -> Done:
        zones = state.zones
        zones.move(action, self.deck, self.dest)
        self.card = action
        shown = zones[self.dest].visibility == "public"
        data: dict[str, Any] = {"deck": self.deck, "dest": self.dest,
                                "left": zones.size(self.deck)}
        if shown:
            data["card"] = action
        state.log("draw", self.rules, f"a card is drawn from {self.deck} to {self.dest}"
                  + (f": {state.game.chance.labels[action]}" if shown else ""), self.side, **data)
        return Done()


@dataclass(frozen=True, slots=True)
class CommitContext(DecisionContext):
    """A hidden commitment as ``viewer`` sees it: which sides have committed, and the
    viewer's own choice (``None`` until it has committed). Never another side's choice."""

    committed: tuple[bool, ...] = ()
    own_choice: int | None = None


@register
@dataclass(slots=True)
class HiddenCommit(Frame[CommitStateT]):
    """A simultaneous hidden choice of ``sides``, asked one after the other in that order.

    Every side chooses among ``options`` (decision ids) with decision type ``decision``. A
    commitment logs a ``commit`` event naming the side only; when the last side has committed
    a ``reveal`` event (data ``choices``) is logged and the frame is done, leaving ``choices``
    (one id per side of ``sides``) for the pushing frame.
    """

    kind = "hidden_commit"
    sides: tuple[int, ...]
    options: tuple[int, ...]
    decision: str
    rules: tuple[str, ...] = ()
    choices: list[int | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.choices:
            self.choices = [None] * len(self.sides)

    def _next(self) -> int | None:
        for i, c in enumerate(self.choices):
            if c is None:
                return i
        return None

    def run(self, state: CommitStateT) -> Step:
        i = self._next()
        if i is None:
            return Done()
        return Wait(self.sides[i], self.decision)

    def legal_actions(self, state: CommitStateT) -> list[int]:
        return sorted(self.options)

    def apply(self, state: CommitStateT, action: int) -> Done | None:
        i = self._next()
        if i is None:
            raise InvalidStateError(f"{self.kind}: every side has already committed")
        self.choices[i] = action
        state.log("commit", self.rules, f"side {self.sides[i]} has committed", self.sides[i])
        if self._next() is None:
            labels = state.game.actions.labels
            chosen = [c for c in self.choices if c is not None]  # (every side's, now)
            state.log("reveal", self.rules, "revealed: " + ", ".join(
                f"side {s} {labels[c]}" for s, c in zip(self.sides, chosen)), None,
                choices=list(self.choices))
            return Done()
        return None

    def context(self, state: CommitStateT, viewer: int) -> CommitContext:
        i = self._next()
        own = None
        if viewer in self.sides:
            own = self.choices[self.sides.index(viewer)]
        return CommitContext(self.kind, self.sides[i] if i is not None else -1, self.decision,
                             tuple(c is not None for c in self.choices), own)
