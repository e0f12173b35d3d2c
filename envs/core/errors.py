"""Named exceptions of the Riposte engine.

Every rule is enforced by raising one of these (never ``assert``). All derive from
:class:`RiposteError`, itself a :class:`ValueError`, so callers can catch broadly or precisely.
"""

from __future__ import annotations


class RiposteError(ValueError):
    """Base class of every error the engine raises on bad input."""


class IllegalActionError(RiposteError):
    """An action id or label that is not legal at the current node.

    The message names the action, the side to move, the decision type and the legal labels.
    """


class InvalidStateError(RiposteError):
    """A protocol call that makes no sense at this node (e.g. ``chance_outcomes()`` at a decision)."""


class ResetNeededError(InvalidStateError, RuntimeError):
    """An environment used before its ``reset()`` (or after ``close()``, or a Gymnasium env
    stepped after its episode ended): the message names the call and says to call ``reset()``
    first. Also a :class:`RuntimeError` (what Python raises for a call in the wrong order)."""


class ScenarioError(RiposteError):
    """A malformed scenario file: the message names the file, the key and the problem."""


class ParameterError(RiposteError):
    """A game parameter of the wrong name, type or range."""


class ReplayError(RiposteError):
    """A replay script that cannot be played (bad file, unknown or illegal label at a position)."""


class UnknownRulesetError(RiposteError):
    """A ruleset id that is not registered."""
