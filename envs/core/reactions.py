"""Reaction windows: one side is asked about one trigger, and may always decline.

A ruleset writes each reaction once, as a :class:`Reaction` (its label, the rule ids it cites,
why it is not allowed now, what it costs, and how it resolves), and one
:class:`ReactionWindow` subclass per kind of window listing the reactions that window can
offer. The window frame asks ``side`` about ``trigger``: the legal actions are the offered
reactions that are allowed and affordable, plus the decline action, which is always legal.

Costs are paid through the state: a state that has reactions with costs implements
``can_pay(side, cost) -> bool`` and ``pay(side, cost) -> None`` once (Staff Pips, a card from a
Reserve, action points); a reaction the side cannot pay for is masked with the cost's rule ids.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol

from typing_extensions import TypeVar  # a TypeVar with a default (PEP 696)

from .procedure import DecisionContext, Done, Frame, Step, Wait
from .protocol import Game, Illegality

__all__ = ["Cost", "FREE", "Reaction", "ReactingState", "ReactionContext", "ReactionWindow"]


@dataclass(frozen=True, slots=True)
class Cost:
    """What choosing a reaction spends: ``amount`` of ``resource`` (a name the state's
    ``can_pay`` / ``pay`` understand), citing ``rules``."""

    resource: str
    amount: int
    rules: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.amount} {self.resource}"


#: the cost of a free reaction
FREE = Cost("", 0)


class ReactingState(Protocol):
    """What :class:`ReactionWindow` uses of a state: its game, its event log and the payment of
    a reaction's :class:`Cost`."""

    @property
    def game(self) -> Game[Any]: ...

    def log(self, kind: str, rules: tuple[str, ...] | list[str], text: str,
            side: int | None = None, **data: Any) -> None: ...

    def can_pay(self, side: int, cost: Cost) -> bool: ...

    def pay(self, side: int, cost: Cost) -> None: ...


#: the state class of a ruleset's reactions and windows
ReactingStateT = TypeVar("ReactingStateT", bound=ReactingState)

#: the window class a reaction is offered in (default: any :class:`ReactionWindow`)
WindowT = TypeVar("WindowT", default="ReactionWindow[Any]")


class Reaction(abc.ABC, Generic[ReactingStateT, WindowT]):
    """One reaction of a ruleset, written once; ``Reaction[S, W]`` is offered in windows of class
    ``W`` (default: any :class:`ReactionWindow`) over states of class ``S``.

    Attributes:
        label: the decision label that chooses it (``"react:closing_volley"``).
        rules: the rule ids it applies (cited by its events and refusals).
    """

    label: str
    rules: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def why_not(self, state: ReactingStateT, window: WindowT) -> Illegality | None:
        """Why the asked side may not take this reaction now (``None``: allowed). The cost is
        checked separately (:meth:`cost`)."""

    def cost(self, state: ReactingStateT, window: WindowT) -> Cost:
        """What taking it would spend (default: free)."""
        return FREE

    @abc.abstractmethod
    def resolve(self, state: ReactingStateT, window: WindowT) -> tuple[Frame[Any], ...]:
        """Apply the reaction (its cost is already paid); return the frames to run in the
        window's place (dice, a move), or ``()``."""


@dataclass(frozen=True, slots=True)
class ReactionContext(DecisionContext):
    """A reaction window as any side sees it (triggers are public)."""

    trigger: str = ""
    subject: int = -1
    offered: tuple[str, ...] = ()


@dataclass(slots=True)
class ReactionWindow(Frame[ReactingStateT]):
    """Ask ``side`` whether to react to ``trigger`` (about ``subject``, e.g. the unit asked).

    Subclasses set ``kind`` (and are registered), ``reactions`` (label -> :class:`Reaction`),
    ``decline_label``, and optionally ``decision`` (the decision type, default
    ``"reaction"``), ``skip_when_only_decline`` (close without asking when nothing but decline
    is legal; :meth:`on_skip` runs then) and override :meth:`on_open` / :meth:`on_decline` /
    :meth:`on_skip` to log their own events.

    Fields: ``offered`` — labels of the reactions this trigger can offer, in order; ``opened``
    — whether the window has been opened; ``allowed`` — the offered reactions that were
    allowed and affordable when it opened (nothing changes while a window waits, so the legal
    list is computed once); ``chosen`` — the label chosen (``None`` while open).
    """

    reactions: ClassVar[Mapping[str, Reaction[Any, Any]]] = {}
    decline_label: ClassVar[str] = "react:decline"
    decision: ClassVar[str] = "reaction"
    skip_when_only_decline: ClassVar[bool] = False

    side: int
    trigger: str
    subject: int
    offered: tuple[str, ...]
    opened: bool = False
    allowed: tuple[str, ...] = ()
    chosen: str | None = None

    # -- hooks ----------------------------------------------------------------------------
    def on_open(self, state: ReactingStateT) -> None:
        """Log the window's opening (default: a ``window_opened`` event)."""
        state.log("window_opened", (), f"side {self.side} may react to {self.trigger}",
                  self.side, trigger=self.trigger, subject=self.subject)

    def on_skip(self, state: ReactingStateT) -> None:
        """The window closes unasked (``skip_when_only_decline``; default: nothing)."""

    def on_decline(self, state: ReactingStateT) -> None:
        """Log a decline (default: a ``declined`` event)."""
        state.log("declined", (), f"side {self.side} does not react to {self.trigger}",
                  self.side, trigger=self.trigger, subject=self.subject)

    # -- the frame ------------------------------------------------------------------------
    def why_not(self, state: ReactingStateT, reaction: Reaction[ReactingStateT, Any]) -> Illegality | None:
        """The reaction's own refusal, else a refusal for a cost the side cannot pay."""
        why = reaction.why_not(state, self)
        if why is not None:
            return why
        cost = reaction.cost(state, self)
        if cost.amount and not state.can_pay(self.side, cost):
            return Illegality(cost.rules or reaction.rules, f"cannot pay {cost}")
        return None

    def _allowed(self, state: ReactingStateT) -> list[str]:
        return [lab for lab in self.offered
                if self.why_not(state, self.reactions[lab]) is None]

    def run(self, state: ReactingStateT) -> Step:
        if self.chosen is not None:
            return Done()
        if not self.opened:
            allowed = self._allowed(state)
            if self.skip_when_only_decline and not allowed:
                self.on_skip(state)
                return Done()
            self.opened = True
            self.allowed = tuple(allowed)
            self.on_open(state)
        return Wait(self.side, self.decision)

    def legal_actions(self, state: ReactingStateT) -> list[int]:
        ids = state.game.actions
        return sorted([ids.id(lab) for lab in self.allowed] + [ids.id(self.decline_label)])

    def why_illegal(self, state: ReactingStateT, action: int) -> Illegality | None:
        label = state.game.actions.labels[action]
        if label in self.offered:
            return self.why_not(state, self.reactions[label])
        if label in self.reactions:
            return Illegality(self.reactions[label].rules,
                              f"{label} is not offered against {self.trigger}")
        return None

    def apply(self, state: ReactingStateT, action: int) -> Done:
        label = state.game.actions.labels[action]
        self.chosen = label
        if label == self.decline_label:
            self.on_decline(state)
            return Done()
        reaction = self.reactions[label]
        cost = reaction.cost(state, self)
        if cost.amount:
            state.pay(self.side, cost)
        return Done(*reaction.resolve(state, self))

    def context(self, state: ReactingStateT, viewer: int) -> DecisionContext:
        return ReactionContext(self.kind, self.side, self.decision, self.trigger,
                               self.subject, tuple(self.offered))
