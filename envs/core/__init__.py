"""Ruleset-agnostic engine core: the decision-point protocol, errors, action catalogues,
observation layouts, chance helpers, geometry, scenario loading, replays and the shared
conformance checks. Imports only the standard library, numpy and small libraries (pydantic);
never gymnasium, pettingzoo or torch."""

from .actions import ActionCatalogue
from .chance import random_decision, resolve_chance, sample_chance_outcome
from .errors import (IllegalActionError, InvalidStateError, ParameterError, ReplayError,
                     RiposteError, ScenarioError, UnknownRulesetError)
from .events import Event
from .observer import ObservationLayout, Piece
from .protocol import CHANCE, TERMINAL, DecisionType, Game, Illegality, State

__all__ = [
    "ActionCatalogue", "CHANCE", "TERMINAL", "DecisionType", "Event", "Game", "Illegality",
    "IllegalActionError", "InvalidStateError", "ObservationLayout", "ParameterError", "Piece",
    "ReplayError", "RiposteError", "ScenarioError", "State", "UnknownRulesetError",
    "random_decision", "resolve_chance", "sample_chance_outcome",
]
