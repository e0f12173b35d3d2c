"""The built-in agents by name, and :func:`make_agent` (re-exported by :mod:`agents`): the table
that joins the policies (:mod:`agents.policies`) and each ruleset's scripted bots
(:mod:`agents.bots`), among them :func:`heuristic_for`, the heuristic of each ruleset.

Kept apart from ``agents/__init__.py`` so that :mod:`agents.training.league.selfplay` can build
its opponents without importing the package that imports it (no import cycle,
tests/core/test_layering.py), and outside :mod:`agents.policies` because it imports the bots,
which import the policy protocol.
"""

from __future__ import annotations

import os

from envs.core.protocol import Game
from envs.rulesets.skirmish_alert.state import AlertGameData

from .bots.acw_regimental import ACWHeuristic, Rush, StandAndFire
from .bots.atomic_africa import AAHeuristic, AlwaysReserve, NeverReserve
from .bots.baselines import AlwaysReact, NeverReact
from .bots.skirmish_alert import AlwaysAlert, NeverAlert, SkirmishHeuristic
from .policies.base import (BasePolicy, RandomPolicy, SeedLike, UnknownAgentError,
                            looks_like_path)
from .policies.ppo import MaskablePPOPolicy
from .search.agent import SearchAgent, is_search_spec, parse_search_spec
from .search.config import SearchSpecError, describe

#: built-in agent names accepted by :func:`make_agent`
BUILTIN_AGENTS: tuple[str, ...] = ("random", "heuristic", "never-react", "always-react",
                                   "stand-and-fire", "rush")
#: the alert-policy baselines of the skirmish alert ruleset (see
#: :mod:`agents.bots.skirmish_alert`)
ALERT_BOTS = {"never-alert": NeverAlert, "always-alert": AlwaysAlert}
#: the Atomic Africa bots accepted by :func:`make_agent` besides the shared names
AA_AGENTS: tuple[str, ...] = ("never-reserve", "always-reserve")
#: the scripted ACW bots of the panel (see :mod:`agents.bots.acw_regimental`), by name
PANEL_BOTS = {"stand-and-fire": StandAndFire, "rush": Rush}
#: the Reserve-policy baselines of Atomic Africa (see :mod:`agents.bots.atomic_africa`), by name
RESERVE_BOTS = {"never-reserve": NeverReserve, "always-reserve": AlwaysReserve}
#: every name :func:`make_agent` reads as a built-in agent rather than a path
ALL_BUILTIN_NAMES: tuple[str, ...] = BUILTIN_AGENTS + tuple(ALERT_BOTS) + tuple(RESERVE_BOTS)

#: the scripted heuristic of each ruleset (``heuristic``), by ruleset id
HEURISTICS: dict[str, type] = {"acw_regimental": ACWHeuristic,
                              "skirmish_alert": SkirmishHeuristic,
                              "atomic_africa": AAHeuristic}


def heuristic_for(game: Game, seed: SeedLike = None) -> BasePolicy:
    """The scripted heuristic of ``game``'s ruleset.

    Raises:
        UnknownAgentError: when the ruleset has none (names the rulesets that do).
    """
    cls = HEURISTICS.get(game.ruleset_id)
    if cls is None:
        raise UnknownAgentError(
            f"no scripted heuristic for ruleset {game.ruleset_id!r} "
            f"(available for: {', '.join(sorted(HEURISTICS))})")
    return cls(game, seed)


def agent_identity(name: str) -> str:
    """What an agent name refers to, read as :func:`make_agent` reads it: a built-in name is
    itself (even where a file of that name lies in the current folder); a checkpoint path
    that names a file is that file, ``"file DEVICE:INODE"`` (``a.zip``, ``./a.zip``, a
    symlink and a hard link to it are one agent); a path that names no file is its absolute
    path, links not followed (so that a dangling link and its missing target are two agents,
    and loading each says the file is missing)."""
    if is_search_spec(name):  # the search agent of a checkpoint, by its settings
        try:
            path, config = parse_search_spec(name)
        except SearchSpecError:
            return name
        return f"search {agent_identity(path)} {describe(config)}"
    if name in ALL_BUILTIN_NAMES or not looks_like_path(name):
        return name
    try:
        st = os.stat(name)
    except OSError:
        return os.path.abspath(name)
    return f"file {st.st_dev}:{st.st_ino}"


def panel_for(ruleset: str) -> list[str]:
    """The built-in bot panel of ``ruleset``: every built-in name for ACW; for Atomic Africa
    the bots that play it (``random``, ``heuristic`` and the Reserve baselines); for the
    skirmish alert game ``random``, ``heuristic`` and the alert baselines."""
    if ruleset == "atomic_africa":
        return ["random", "heuristic", *AA_AGENTS]
    if ruleset == "skirmish_alert":
        return ["random", "heuristic", *ALERT_BOTS]
    return list(BUILTIN_AGENTS)


def make_agent(name_or_path: str, game: Game, seed: SeedLike = None,
               trust_checkpoint: bool = False) -> BasePolicy:
    """Build an agent from a built-in name or a MaskablePPO checkpoint path.

    Args:
        name_or_path: ``random``, ``heuristic``, ``never-react``, ``always-react``,
            ``stand-and-fire``, ``rush`` (:mod:`agents.bots.acw_regimental`), ``never-alert``,
            ``always-alert`` (:mod:`agents.bots.skirmish_alert`), ``never-reserve``,
            ``always-reserve`` (Atomic Africa, :mod:`agents.bots.atomic_africa`), a path to a
            ``.zip`` saved by ``MaskablePPO.save`` / ``train.py``, or
            ``search:MODEL[:key=value...]``, the search agent over that checkpoint
            (:mod:`agents.search`; options ``sims``, ``ms``, ``k``, ``chance``, ...).
        game: the game the agent will play (labels, observation layout, sizes).
        seed: seed of the agent's own generator.
        trust_checkpoint: also load a checkpoint that would need unpickling (no Riposte
            config inside; see :mod:`agents.policies.checkpoint`).

    Raises:
        UnknownAgentError: for a name that is neither built in nor a path (lists the names), or
            ``heuristic``, ``stand-and-fire`` or ``rush`` on a ruleset other than
            ``acw_regimental``.
        AgentLoadError: for a missing, corrupt or mismatched checkpoint (names the path).
        SearchSpecError: for a ``search:`` spec that cannot be parsed, an unknown option or a
            budget that is not positive (names the spec).
    """
    name = str(name_or_path)
    if is_search_spec(name):
        return SearchAgent.from_spec(name, game, seed, trust=trust_checkpoint)
    if name == "random":
        return RandomPolicy(seed)
    if name == "never-react":
        return NeverReact(game, seed)
    if name == "always-react":
        return AlwaysReact(game, seed)
    if name == "heuristic":
        return heuristic_for(game, seed)
    if name in PANEL_BOTS:
        return PANEL_BOTS[name](game, seed)
    if name in ALERT_BOTS:
        if game.ruleset_id != "skirmish_alert" or not isinstance(game, AlertGameData):
            raise UnknownAgentError(f"agent {name!r} plays ruleset 'skirmish_alert' only, not "
                                    f"{game.ruleset_id!r}")
        return ALERT_BOTS[name](game, seed)
    if name in RESERVE_BOTS:
        from envs.rulesets.atomic_africa.state import AAGameData  # (imported when asked for)

        if game.ruleset_id != "atomic_africa" or not isinstance(game, AAGameData):
            raise UnknownAgentError(f"agent {name!r} plays only ruleset 'atomic_africa', not "
                                    f"{game.ruleset_id!r}")
        return RESERVE_BOTS[name](game, seed)
    if looks_like_path(name):
        return MaskablePPOPolicy.load(name, game, deterministic=True, seed=seed, name=name,
                                      trust=trust_checkpoint)
    raise UnknownAgentError(
        f"unknown agent {name!r}: expected one of "
        f"{', '.join(ALL_BUILTIN_NAMES)}, "
        f"a path to a MaskablePPO checkpoint (.zip) or search:MODEL[:key=value...]")
