"""Riposte environments: the rules engine (``envs.core`` + ``envs.rulesets``) and the
PettingZoo / Gymnasium adapters.

Public surface::

    from envs import load_game                 # Game from ruleset id + scenario + params
    from envs.core import CHANCE, TERMINAL     # protocol constants
"""

from envs.rulesets import list_rulesets, load_game

__all__ = ["list_rulesets", "load_game"]
