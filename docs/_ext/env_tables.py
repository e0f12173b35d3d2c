"""The environment tables of the documentation, computed from the code.

Each function returns a Markdown table; ``docs/_ext/riposte_tables.py`` puts them into the pages
(``docs/environments.md``) and ``tests/docs/test_readme.py`` checks the README's rulesets table
against :func:`rulesets`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: ruleset id -> (PettingZoo module, PettingZoo registry id, Gymnasium id)
ENV_IDS = {
    "acw_regimental": ("envs.acw_regimental_v0", "riposte/acw_regimental-v0",
                       "riposte/ACWRegimental-v0"),
    "atomic_africa": ("envs.atomic_africa_v0", "riposte/atomic_africa-v0",
                      "riposte/AtomicAfrica-v0"),
    "skirmish_alert": ("envs.skirmish_alert_v0", "riposte/skirmish_alert-v0",
                       "riposte/SkirmishAlert-v0"),
}


@dataclass(frozen=True)
class RulesetFacts:
    """What the docs say about one ruleset, read from its Game class and scenarios."""

    ruleset: str
    version: int
    scenarios: tuple[str, ...]
    #: (number of sides, actions, observation size, scenarios with these sizes)
    sizes: tuple[tuple[int, int, int, tuple[str, ...]], ...]
    decision_types: tuple[str, ...]


def rulesets() -> list[RulesetFacts]:
    """Facts of every registered built-in ruleset (those in :data:`ENV_IDS`), sorted by id."""
    from envs import list_rulesets, load_game
    from envs.core.registry import game_class

    facts = []
    for ruleset in list_rulesets():
        if ruleset not in ENV_IDS:
            continue
        cls = game_class(ruleset)
        scenarios = tuple(sorted(p.stem for p in cls.scenario_dir.glob("*.toml")))
        by_size: dict[tuple[int, int, int], list[str]] = {}
        decisions: tuple[str, ...] = ()
        for name in scenarios:
            game = load_game(ruleset, name)
            key = (game.num_players, len(game.actions), game.layout.size)
            by_size.setdefault(key, []).append(name)
            if name == "default":
                decisions = tuple(d for d in game.decision_types
                                  if d not in ("chance", "terminal"))
        sizes = tuple((n, a, o, tuple(names)) for (n, a, o), names in sorted(by_size.items()))
        facts.append(RulesetFacts(ruleset, cls.version, scenarios, sizes, decisions))
    return facts


def environments_table() -> str:
    """One row per ruleset: env ids, game version, spaces, decision types."""
    rows = ["| ruleset (game version) | PettingZoo AEC | Gymnasium | sides | action space "
            "| observation | scenarios with these sizes |",
            "|---|---|---|---|---|---|---|"]
    for f in rulesets():
        module, pz_id, gym_id = ENV_IDS[f.ruleset]
        for i, (n, actions, obs, names) in enumerate(f.sizes):
            first = i == 0
            rows.append(
                f"| {f'`{f.ruleset}` (v{f.version})' if first else ''} "
                f"| {f'`{module}.env()`, `{pz_id}`' if first else ''} "
                f"| {f'`{gym_id}`' if first else ''} | {n} | `Discrete({actions})` "
                f"| `Box(float32, ({obs},))` | {', '.join(f'`{s}`' for s in names)} |")
    return "\n".join(rows)


def decision_types_table() -> str:
    """The decision types of each ruleset (``State.decision_type()`` at a decision)."""
    rows = ["| ruleset | decision types |", "|---|---|"]
    for f in rulesets():
        rows.append(f"| `{f.ruleset}` | {', '.join(f'`{d}`' for d in f.decision_types)} |")
    return "\n".join(rows)


def observation_table(ruleset: str) -> str:
    """The observation pieces of ``ruleset``'s default game."""
    from envs import load_game

    return load_game(ruleset).layout.table()


def actions_table(ruleset: str) -> str:
    """The action catalogue of ``ruleset``'s default game."""
    from envs import load_game

    return load_game(ruleset).actions.table()
