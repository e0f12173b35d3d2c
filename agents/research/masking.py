"""Masking versus penalty (Huang & Ontañón, "A Closer Look at Invalid Action Masking in Policy
Gradient Algorithms", 2022) reproduced on a Riposte env.

Two learners with the same budget, network and PPO hyper-parameters, each trained from scratch
on the single-agent Gymnasium env (:class:`~envs.adapters.single_agent.RiposteGymEnv`, seat drawn
every episode) against one opponent:

* ``mask``: sb3-contrib ``MaskablePPO``, which renormalises the policy over the legal actions
  (``env.action_masks()``) when sampling and in the gradient;
* ``penalty``: stable-baselines3 ``PPO`` without the mask; an illegal action ends the episode as
  a loss (reward −1, ``RiposteGymEnv(illegal_action="loss")``).

Every ``eval_every`` timesteps both are scored against the evaluation opponent (default: the
heuristic) over ``eval_games`` games, seats alternating, chance seeds shared between methods
and checkpoints (game pair ``k`` uses the same reset seed everywhere), arg-max actions, an
illegal action a loss (the mask learner never makes one). Score = (wins + draws / 2) / games.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..evaluation.ratings import mean_ci95, proportion_ci95
from .common import git_commit, progress, pyplot, save_figure

METHODS = ("mask", "penalty")


@dataclass
class MaskingConfig:
    """Parameters of one masking-versus-penalty experiment (all in the result JSON).

    Attributes:
        ruleset, scenario, params: the game (``scenario`` None = the default battle).
        timesteps: learner timesteps per run (per method and seed).
        seeds: one run per method and seed.
        eval_every: timesteps between evaluations (also at 0).
        eval_games: games per evaluation (even: both seats equally often).
        opponent: the training opponent (built-in agent name).
        eval_opponent: the opponent of the learning curves.
        also_eval: further evaluation opponents (built-in names), scored at the same
            checkpoints on the same chance seeds; a point keeps them under ``"others"``.
        eval_seed: seed of the evaluation games' chance (same for every run and checkpoint).
        n_steps, batch_size, n_epochs, learning_rate, gamma, ent_coef, net_arch: PPO settings,
            identical for both methods.
        max_decisions: decision cap of an episode (default: the game's own).
    """

    ruleset: str = "acw_regimental"
    scenario: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    timesteps: int = 20_000
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    eval_every: int = 4_000
    eval_games: int = 20
    opponent: str = "heuristic"
    eval_opponent: str = "heuristic"
    also_eval: list[str] = field(default_factory=list)
    eval_seed: int = 12345
    n_steps: int = 512
    batch_size: int = 128
    n_epochs: int = 5
    learning_rate: float = 3e-4
    gamma: float = 0.995
    ent_coef: float = 0.005
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    max_decisions: int | None = None


def _env(cfg: MaskingConfig, opponent: Any, seat: int | str = "random"):
    from envs.adapters.single_agent import RiposteGymEnv

    return RiposteGymEnv(ruleset=cfg.ruleset, scenario=cfg.scenario, params=cfg.params,
                         seat=seat, opponent=opponent, max_decisions=cfg.max_decisions,
                         illegal_action="loss")


def make_model(cfg: MaskingConfig, method: str, seed: int) -> Any:
    """A fresh learner for ``method`` (``"mask"``: MaskablePPO, ``"penalty"``: PPO) on a
    ``DummyVecEnv`` of one ``Monitor``-wrapped env against ``cfg.opponent``.

    Raises:
        ValueError: for an unknown method.
    """
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.builtin import make_agent
    from agents.policies.ppo import quiet_logger
    from envs import load_game

    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (expected one of {METHODS})")
    game = load_game(cfg.ruleset, cfg.scenario, cfg.params)
    opp = make_agent(cfg.opponent, game, seed=np.random.SeedSequence(seed, spawn_key=(7,)))
    venv = DummyVecEnv([lambda: Monitor(_env(cfg, opp))])
    venv.seed(seed)
    kw = dict(n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
              learning_rate=cfg.learning_rate, gamma=cfg.gamma, ent_coef=cfg.ent_coef,
              policy_kwargs={"net_arch": list(cfg.net_arch)}, seed=seed, device="cpu",
              verbose=0)
    if method == "mask":
        from sb3_contrib import MaskablePPO

        model = MaskablePPO("MlpPolicy", venv, **kw)
    else:
        model = PPO("MlpPolicy", venv, **kw)
    model.set_logger(quiet_logger())  # (no $TMPDIR/SB3-<date> folder per model)
    return model


def evaluate(model: Any, masked: bool, cfg: MaskingConfig, envs: Sequence[Any],
             games: int) -> dict[str, Any]:
    """Score of ``model`` (arg-max) against the evaluation opponent.

    ``envs`` are two envs with the learner fixed in seat 0 and seat 1 (game ``i`` uses seat
    ``i % 2`` and reset seed ``eval_seed + i // 2``). Illegal actions end a game as a loss.

    Returns:
        ``{"games", "wins", "draws", "losses", "illegal", "score", "score_ci95"}``.
    """
    wins = draws = losses = illegal = 0
    for i in range(games):
        env = envs[i % 2]
        obs, info = env.reset(seed=cfg.eval_seed + i // 2)
        done = False
        ret = 0.0
        while not done:
            if masked:
                a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            else:
                a, _ = model.predict(obs, deterministic=True)
            obs, r, term, trunc, info = env.step(int(a))
            ret += float(r)
            done = term or trunc
        illegal += bool(info.get("illegal_action"))
        if ret > 1e-9:
            wins += 1
        elif ret < -1e-9:
            losses += 1
        else:
            draws += 1
    s, lo, hi = proportion_ci95(wins + 0.5 * draws, games)
    return {"games": games, "wins": wins, "draws": draws, "losses": losses, "illegal": illegal,
            "score": s, "score_ci95": [lo, hi]}


def run(cfg: MaskingConfig, show_progress: bool = True,
        on_run: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Train and evaluate every (method, seed); returns the result document (JSON-ready):
    ``commit``, ``params`` (the config), ``seeds``, ``curves`` ({method: {seed: [point]}},
    point = evaluation dict + ``timesteps`` + ``seconds``), ``summary`` (per method and
    checkpoint: mean score over seeds with a 95% interval), ``seconds``, ``complete``.
    ``on_run`` gets the document after every finished (method, seed) run (``complete`` False
    until the last; e.g. to save partial results). The penalty env's warning on its first
    illegal action is not shown: illegal actions are what this study counts."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="illegal action ends the episode")
        return _run(cfg, show_progress, on_run)


def _run(cfg: MaskingConfig, show_progress: bool,
         on_run: Callable[[dict[str, Any]], None] | None) -> dict[str, Any]:
    import torch

    from agents.builtin import make_agent
    from envs import load_game

    torch.set_num_threads(1)
    game = load_game(cfg.ruleset, cfg.scenario, cfg.params)
    checkpoints = list(range(0, cfg.timesteps + 1, cfg.eval_every))
    if checkpoints[-1] != cfg.timesteps:
        checkpoints.append(cfg.timesteps)
    curves: dict[str, dict[str, list[dict[str, Any]]]] = {m: {} for m in METHODS}
    t0 = time.perf_counter()
    bar = progress(len(METHODS) * len(cfg.seeds) * cfg.timesteps, "masking vs penalty",
                   show_progress)
    for seed in cfg.seeds:
        for method in METHODS:
            model = make_model(cfg, method, seed)
            eval_opp = make_agent(cfg.eval_opponent, game, seed=seed)
            envs = [_env(cfg, eval_opp, seat=s) for s in (0, 1)]
            other_envs = {name: [_env(cfg, make_agent(name, game, seed=seed), seat=s)
                                 for s in (0, 1)] for name in cfg.also_eval}
            points = []
            done = 0
            t_run = time.perf_counter()
            for c in checkpoints:
                if c > done:
                    model.learn(total_timesteps=c - done, reset_num_timesteps=(done == 0))
                    bar.update(c - done)
                    done = c
                pt = evaluate(model, method == "mask", cfg, envs, cfg.eval_games)
                if other_envs:
                    pt["others"] = {name: evaluate(model, method == "mask", cfg, oenvs,
                                                   cfg.eval_games)
                                    for name, oenvs in other_envs.items()}
                pt.update(timesteps=c, seconds=round(time.perf_counter() - t_run, 2))
                points.append(pt)
                bar.set_postfix_str(f"{method} seed {seed} @ {c}: {pt['score']:.2f}")
            curves[method][str(seed)] = points
            if on_run is not None:
                on_run(_document(cfg, curves, checkpoints, t0, complete=False))
    bar.close()
    return _document(cfg, curves, checkpoints, t0, complete=True)


def _summary(cfg: MaskingConfig, curves: dict[str, dict[str, list[dict[str, Any]]]],
             checkpoints: list[int], opponent: str | None) -> dict[str, list[dict[str, Any]]]:
    """Per method and checkpoint: the mean score over the finished seeds with a 95% interval
    and the mean share of games lost to an illegal action, against ``cfg.eval_opponent``
    (``opponent`` None) or the ``also_eval`` opponent ``opponent``."""
    def point(method: str, seed: int, index: int) -> dict[str, Any]:
        pt = curves[method][str(seed)][index]
        return pt if opponent is None else pt["others"][opponent]

    summary: dict[str, list[dict[str, Any]]] = {}
    for method in METHODS:
        done = [s for s in cfg.seeds if str(s) in curves[method]]
        rows = []
        for index, timesteps in enumerate(checkpoints if done else []):
            scores = [point(method, s, index)["score"] for s in done]
            ill = [point(method, s, index)["illegal"] / cfg.eval_games for s in done]
            m, lo, hi = mean_ci95(scores)
            rows.append({"timesteps": timesteps, "seeds": len(done), "mean_score": m,
                         "ci95": [lo, hi], "mean_illegal_rate": float(np.mean(ill))})
        summary[method] = rows
    return summary


def _document(cfg: MaskingConfig, curves: dict[str, dict[str, list[dict[str, Any]]]],
              checkpoints: list[int], t0: float, complete: bool) -> dict[str, Any]:
    return {"kind": "masking_vs_penalty", "commit": git_commit(), "params": asdict(cfg),
            "seeds": list(cfg.seeds), "curves": curves,
            "summary": _summary(cfg, curves, checkpoints, None),
            "summary_others": {name: _summary(cfg, curves, checkpoints, name)
                               for name in cfg.also_eval},
            "seconds": round(time.perf_counter() - t0, 1), "complete": complete}


def plot(doc: dict[str, Any], path: str) -> None:
    """Learning curves (score against the evaluation opponent; one thin line per seed, the mean
    over seeds thick; the ``also_eval`` opponents' means dashed or dotted) and the share of
    evaluation games ended by an illegal action."""
    plt = pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    colors = {"mask": "tab:blue", "penalty": "tab:red"}
    names = {"mask": "MaskablePPO (mask)", "penalty": "PPO + illegal-action loss"}
    for method, by_seed in doc["curves"].items():
        for pts in by_seed.values():
            ax.plot([p["timesteps"] for p in pts], [p["score"] for p in pts],
                    color=colors[method], alpha=0.3, lw=1)
            ax2.plot([p["timesteps"] for p in pts], [p["illegal"] / p["games"] for p in pts],
                     color=colors[method], alpha=0.3, lw=1)
        rows = doc["summary"][method]
        xs = [r["timesteps"] for r in rows]
        ax.plot(xs, [r["mean_score"] for r in rows], color=colors[method], lw=2.5,
                label=names[method])
        ax2.plot(xs, [r["mean_illegal_rate"] for r in rows], color=colors[method], lw=2.5,
                 label=names[method])
        for style, (other, by_method) in zip(("--", ":", "-."),
                                             doc.get("summary_others", {}).items()):
            rows = by_method[method]
            ax.plot([r["timesteps"] for r in rows], [r["mean_score"] for r in rows],
                    color=colors[method], lw=2, ls=style, label=f"{names[method]} vs {other}")
    p = doc["params"]
    ax.axhline(0.5, color="grey", ls=":", lw=1)
    ax.set(xlabel="timesteps", ylabel=f"score vs {p['eval_opponent']} (solid)", ylim=(-0.02, 1.02),
           title=f"{p['ruleset']} / {p['scenario'] or 'default'}: {len(doc['seeds'])} seeds")
    ax2.set(xlabel="timesteps", ylabel="evaluation games lost to an illegal action",
            ylim=(-0.02, 1.02))
    ax.legend(loc="best")
    save_figure(fig, path)
    plt.close(fig)
