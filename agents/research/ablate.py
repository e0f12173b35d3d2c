"""Rule-variant ablation: the same agents on the same chance seeds under the default rules and
under each variant (one or more game parameters changed), compared game by game.

For every variant (and for the default) the agents play a round robin
(:func:`agents.evaluation.tournament.round_robin`) with the same ``seed``: game ``i`` of every pair
uses the chance seed ``SeedSequence(seed, spawn_key=(0, i // 2))`` and the same agent seeds, so game
``i`` under the variant is the paired twin of game ``i`` under the default (common random
numbers: the same dice stream, the same seats). Reported per variant:

* per pair: the shift of ``a``'s score, mean of ``score_variant(i) − score_default(i)`` over the
  games, with a 95% interval;
* per agent and reaction label: the shift of the number of times it was taken per game (paired
  by game, with a 95% interval) and the shares of the agent's reaction decisions before/after.

With ``train_timesteps`` one MaskablePPO model per rule set (default and each variant) is trained
from scratch against ``train_opponent`` (same seed and budget for every rule set; the PPO
settings of :class:`agents.research.masking.MaskingConfig`) and then plays ``games`` games against
that opponent under its own rules: the learned reaction shares are compared.

Intervals are normal approximations (mean ± 1.96 · sd / sqrt(n)).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.errors import ParameterError
from envs.core.scenario import parse_param_value, split_top_level

from ..evaluation.ratings import mean_ci95
from .common import progress

REACT = "react:"


def parse_value(text: str) -> Any:
    """A parameter value from the command line (:func:`envs.core.scenario.parse_param_value`:
    ``true``/``false`` → bool, numbers, ``[10, 20, 40]`` or ``[pass, rest]`` → lists, anything
    else the string itself)."""
    return parse_param_value(text)


def parse_variant(spec: str) -> dict[str, Any]:
    """``"NAME=VALUE[,NAME=VALUE...]"`` → ``{NAME: value}`` (one variant; commas inside
    ``[...]`` belong to a list value).

    Raises:
        ParameterError: a part without ``=`` or with an empty name, or a name given twice.
    """
    out: dict[str, Any] = {}
    for part in split_top_level(spec):
        name, eq, value = part.partition("=")
        if not eq or not name.strip():
            raise ParameterError(f"--param {spec!r}: expected NAME=VALUE (e.g. pips_fixed=true)")
        if name.strip() in out:
            raise ParameterError(f"--param {spec!r}: {name.strip()!r} is given twice")
        out[name.strip()] = parse_value(value)
    return out


def variant_name(params: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in params.items())


@dataclass
class AblationConfig:
    """Parameters of one ablation (all in the result JSON)."""

    ruleset: str = "acw_regimental"
    scenario: str | None = None
    agents: list[str] = field(default_factory=lambda: ["heuristic", "always-react"])
    variants: list[dict[str, Any]] = field(default_factory=list)
    games: int = 40
    seed: int = 0
    max_decisions: int | None = None
    train_timesteps: int | None = None
    train_opponent: str = "heuristic"


def load_variant_games(cfg: AblationConfig) -> list[Any]:
    """The default game and one game per variant, built before anything is played.

    Raises:
        ParameterError: an unknown parameter name or a value of the wrong type (the message
            names the variant and the parameter); also ScenarioError, UnknownRulesetError.
    """
    from envs import load_game

    games = [load_game(cfg.ruleset, cfg.scenario)]
    for v in cfg.variants:
        try:
            games.append(load_game(cfg.ruleset, cfg.scenario, v))
        except ParameterError as e:
            known = ", ".join(sorted(games[0].params))
            raise ParameterError(f"variant {variant_name(v)!r}: {e} (parameters of "
                                 f"{cfg.ruleset}: {known})") from None
    return games


def build_agents(cfg: AblationConfig, game: Any) -> dict[str, Any]:
    """The agents of ``cfg`` for ``game`` (same seeds under every variant).

    Raises:
        UnknownAgentError, AgentLoadError: an agent that cannot play this game.
    """
    from agents.builtin import make_agent

    seeds = np.random.SeedSequence(cfg.seed).spawn(len(cfg.agents))
    return {a: make_agent(a, game, s) for a, s in zip(cfg.agents, seeds)}


def _per_game(game: Any, agents: Mapping[str, Any], cfg: AblationConfig, bar: Any
              ) -> tuple[Any, dict[tuple[str, str], list[float]],
                         dict[str, dict[str, list[int]]], dict[str, Counter]]:
    from agents.evaluation.tournament import round_robin

    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    shares: dict[str, Counter] = defaultdict(Counter)
    games_of: dict[str, int] = defaultdict(int)

    def on_game(a: str, b: str, i: int, rec: Any) -> None:
        seats = [a, b] if i % 2 == 0 else [b, a]
        c = {a: Counter(), b: Counter()}
        for side, dtype, label in rec.decisions:
            if dtype == "reaction":
                c[seats[side]][label] += 1
                shares[seats[side]][label] += 1
        for n in (a, b):
            counts[n][f"{a}|{b}|{i}"] = c[n]  # type: ignore[assignment]
            games_of[n] += 1
        bar.update(1)

    res = round_robin(game, agents, cfg.games, seed=cfg.seed, max_decisions=cfg.max_decisions,
                      on_game=on_game)
    for a, b, s in res.games:
        scores[(a, b)].append(s)
    return res, scores, counts, shares


def run(cfg: AblationConfig, games: Sequence[Any] | None = None,
        show_progress: bool = True) -> dict[str, Any]:
    """Play the default and every variant; returns the result document (JSON-ready).

    ``games``: the output of :func:`load_variant_games` (built here when None).
    """
    from .common import git_commit

    games = list(games) if games is not None else load_variant_games(cfg)
    n_pairs = len(cfg.agents) * (len(cfg.agents) - 1) // 2
    bar = progress(len(games) * n_pairs * cfg.games, "ablation games", show_progress)
    all_agents = [build_agents(cfg, g) for g in games]  # bad agents fail before any game
    played = [_per_game(g, agents, cfg, bar) for g, agents in zip(games, all_agents)]
    bar.close()
    base_res, base_scores, base_counts, base_shares = played[0]
    variants_doc = []
    for v, (res, scores, counts, shares) in zip(cfg.variants, played[1:]):
        pairs = []
        for pr, pb in zip(res.pairs, base_res.pairs):
            d = np.array(scores[(pr.a, pr.b)]) - np.array(base_scores[(pr.a, pr.b)])
            m, lo, hi = mean_ci95(d)
            pairs.append({"a": pr.a, "b": pr.b, "games": pr.games,
                          "a_score_default": pb.a_score, "a_score_variant": pr.a_score,
                          "shift": m, "shift_ci95": [lo, hi],
                          "games_changed": int(np.count_nonzero(d))})
        reactions: dict[str, dict[str, Any]] = {}
        for name in cfg.agents:
            keys = sorted(base_counts[name])
            labels = sorted({lab for k in keys for lab in base_counts[name][k]}
                            | {lab for k in keys for lab in counts[name].get(k, {})})
            tot_b = sum(base_shares[name].values())
            tot_v = sum(shares[name].values())
            per = {}
            for lab in labels:
                xb = np.array([base_counts[name][k].get(lab, 0) for k in keys], dtype=float)
                xv = np.array([counts[name][k].get(lab, 0) for k in keys], dtype=float)
                m, lo, hi = mean_ci95(xv - xb)
                per[lab] = {"per_game_default": float(xb.mean()),
                            "per_game_variant": float(xv.mean()),
                            "shift_per_game": m, "shift_ci95": [lo, hi],
                            "share_default": base_shares[name][lab] / tot_b if tot_b else None,
                            "share_variant": shares[name][lab] / tot_v if tot_v else None}
            reactions[name] = per
        variants_doc.append({"variant": variant_name(v), "params": dict(v), "pairs": pairs,
                             "reactions": reactions, "truncated": res.truncated})
    doc: dict[str, Any] = {
        "kind": "ablation", "commit": git_commit(),
        "params": {"ruleset": cfg.ruleset, "scenario": games[0].scenario_name,
                   "agents": list(cfg.agents), "variants": [dict(v) for v in cfg.variants],
                   "games": cfg.games, "max_decisions": cfg.max_decisions,
                   "train_timesteps": cfg.train_timesteps, "train_opponent": cfg.train_opponent,
                   "default_params": dict(games[0].params)},
        "seeds": {"seed": cfg.seed,
                  "chance": "game i of every pair: SeedSequence(seed, spawn_key=(0, i // 2)), "
                            "the same under every variant"},
        "default": {"pairs": [p.to_dict() for p in base_res.pairs],
                    "truncated": base_res.truncated},
        "variants": variants_doc,
    }
    if cfg.train_timesteps:
        doc["trained"] = train_and_compare(cfg, games, show_progress)
    return doc


def train_and_compare(cfg: AblationConfig, games: Sequence[Any],
                      show_progress: bool = True) -> list[dict[str, Any]]:
    """One MaskablePPO model per rule set (default first), same seed and budget, then
    ``cfg.games`` games against ``cfg.train_opponent`` under its rules: score and the learned
    shares of each reaction label among the model's reaction decisions."""
    import torch

    from agents.builtin import make_agent
    from agents.policies.ppo import MaskablePPOPolicy
    from agents.evaluation.tournament import round_robin

    from .masking import MaskingConfig, make_model

    torch.set_num_threads(1)
    out = []
    sets = [{}] + [dict(v) for v in cfg.variants]
    bar = progress(len(sets) * int(cfg.train_timesteps or 0), "ablation training",
                   show_progress)
    for params, g in zip(sets, games):
        mcfg = MaskingConfig(ruleset=cfg.ruleset, scenario=cfg.scenario, params=params,
                             opponent=cfg.train_opponent, max_decisions=cfg.max_decisions)
        model = make_model(mcfg, "mask", cfg.seed)
        model.learn(total_timesteps=int(cfg.train_timesteps))
        bar.update(int(cfg.train_timesteps))
        me = MaskablePPOPolicy(model, deterministic=True, name="model")
        opp = make_agent(cfg.train_opponent, g, cfg.seed)
        res = round_robin(g, {"model": me, cfg.train_opponent: opp}, cfg.games, seed=cfg.seed,
                          max_decisions=cfg.max_decisions)
        react = res.decision_stats["model"].get("reaction", {})
        tot = sum(react.values())
        out.append({"variant": variant_name(params) or "default", "params": params,
                    "score": res.pairs[0].a_score, "score_ci95": list(res.pairs[0].a_score_ci95),
                    "reaction_decisions": tot,
                    "reaction_shares": {k: v / tot for k, v in sorted(react.items())}
                    if tot else {}})
    bar.close()
    return out


def format_table(doc: dict[str, Any]) -> str:
    """Plain-text tables: pair score shifts, then reaction-frequency shifts with intervals."""
    lines = []
    for v in doc["variants"]:
        lines.append(f"variant {v['variant']} vs default ({doc['params']['games']} paired games "
                     f"per pair, seed {doc['seeds']['seed']})")
        lines.append(f"  {'a':<20} {'b':<20} {'default':>8} {'variant':>8} {'shift':>8} "
                     f"{'95% CI':>18} {'changed':>8}")
        for p in v["pairs"]:
            lines.append(f"  {p['a'][:20]:<20} {p['b'][:20]:<20} {p['a_score_default']:>8.3f} "
                         f"{p['a_score_variant']:>8.3f} {p['shift']:>+8.3f} "
                         f"[{p['shift_ci95'][0]:+.3f}, {p['shift_ci95'][1]:+.3f}] "
                         f"{p['games_changed']:>8}")
        lines.append(f"  {'agent':<20} {'reaction':<24} {'per game':>13} {'shift':>8} "
                     f"{'95% CI':>18} {'share':>13}")
        for name, per in v["reactions"].items():
            for lab, r in per.items():
                sh = lambda x: "-" if x is None else f"{x:.0%}"  # noqa: E731
                lines.append(f"  {name[:20]:<20} {lab:<24} "
                             f"{r['per_game_default']:>5.2f}->{r['per_game_variant']:<6.2f} "
                             f"{r['shift_per_game']:>+8.2f} "
                             f"[{r['shift_ci95'][0]:+.2f}, {r['shift_ci95'][1]:+.2f}]".ljust(0)
                             + f" {sh(r['share_default']) + '->' + sh(r['share_variant']):>13}")
        lines.append("")
    for t in doc.get("trained", []):
        shares = ", ".join(f"{k.removeprefix(REACT)} {v:.0%}"
                           for k, v in t["reaction_shares"].items())
        lines.append(f"trained on {t['variant']}: score vs {doc['params']['train_opponent']} "
                     f"{t['score']:.3f} [{t['score_ci95'][0]:.3f}, {t['score_ci95'][1]:.3f}]; "
                     f"reactions ({t['reaction_decisions']}): {shares}")
    return "\n".join(lines)


def plot(doc: dict[str, Any], path: str) -> None:
    """Per variant: the pairs' score shifts (left) and the reaction-frequency shifts per game
    (right), each with its 95% interval."""
    from .common import pyplot, save_figure

    plt = pyplot()
    nv = max(1, len(doc["variants"]))
    fig, axes = plt.subplots(nv, 2, figsize=(13, 3.6 * nv), squeeze=False)
    for row, v in zip(axes, doc["variants"]):
        ax = row[0]
        names = [f"{p['a']} vs {p['b']}" for p in v["pairs"]]
        ys = [p["shift"] for p in v["pairs"]]
        err = [[p["shift"] - p["shift_ci95"][0] for p in v["pairs"]],
               [p["shift_ci95"][1] - p["shift"] for p in v["pairs"]]]
        ax.barh(range(len(ys)), ys, xerr=err, capsize=4, color="tab:blue")
        ax.set_yticks(range(len(ys)), names)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("shift of a's score (variant - default)")
        ax.set_title(v["variant"])
        ax = row[1]
        items = [(f"{n}: {lab.removeprefix(REACT)}", r) for n, per in v["reactions"].items()
                 for lab, r in per.items()]
        ys = [r["shift_per_game"] for _, r in items]
        err = [[r["shift_per_game"] - r["shift_ci95"][0] for _, r in items],
               [r["shift_ci95"][1] - r["shift_per_game"] for _, r in items]]
        ax.barh(range(len(ys)), ys, xerr=err, capsize=3, color="tab:orange")
        ax.set_yticks(range(len(ys)), [k for k, _ in items], fontsize=8)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("shift of times taken per game")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
