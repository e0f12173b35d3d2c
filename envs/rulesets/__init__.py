"""The built-in rulesets, registered with the core's registry (:mod:`envs.core.registry`).

Each ruleset is one package ``envs.rulesets.<id>``, registered here with a lazy entry point
(its modules are imported on the first ``load_game(<id>)``). Rulesets never import each other;
what two share lives in :mod:`envs.core`. ``REGISTRY``, ``list_rulesets``, ``game_class``,
``load_game`` and ``register_ruleset`` are the core's, re-exported.
"""

from __future__ import annotations

from envs.core.registry import REGISTRY, game_class, list_rulesets, load_game, register_ruleset

register_ruleset("acw_regimental", "envs.rulesets.acw_regimental.game:ACWGame")
register_ruleset("skirmish_alert", "envs.rulesets.skirmish_alert.game:AlertGame")
register_ruleset("atomic_africa", "envs.rulesets.atomic_africa.game:AAGame")

__all__ = ["REGISTRY", "game_class", "list_rulesets", "load_game", "register_ruleset"]
