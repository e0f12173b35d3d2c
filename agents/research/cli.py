"""Command lines of the research tools, dispatched by ``evaluate.py`` (``SUBCOMMANDS``):

* ``python evaluate.py whatif REPLAY --at K ...`` (:func:`whatif_main`)
* ``python evaluate.py ablate --param NAME=VALUE ...`` (:func:`ablate_main`)
* ``python evaluate.py masking --timesteps N ...`` (:func:`masking_main`)

Each takes ``argv`` (the arguments after the subcommand name) and returns an exit status. Bad
input — a flag, a file, a parameter, an agent — is one ``error: ...`` line on stderr and exit
status 2, reported before any rollout, game or training starts; output files are probed
before the run and written atomically after it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any
from collections.abc import Callable

import numpy as np


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise SystemExit(fail(f"{self.prog}: {message}"))


def two_sided(game: Any, command: str) -> None:
    """Raise ``RiposteError`` for a game of three or more sides (``command`` compares two
    sides' agents)."""
    from envs.core.protocol import require_two_sides

    require_two_sides(game, f"{command} works on two-sided battles")


def fail(message: str) -> int:
    """Print ``error: message`` (first line only) on stderr; returns 2."""
    print(f"error: {str(message).splitlines()[0] if str(message) else message}", file=sys.stderr)
    return 2


def _run(parse: Callable[[list[str]], argparse.Namespace], body: Callable[[argparse.Namespace],
         int], argv: list[str]) -> int:
    try:
        ns = parse(argv)
    except SystemExit as exc:  # --help exits 0; bad flags were reported
        return int(exc.code or 0)
    return body(ns)


def _check_outputs(json_path: str | None, plot_path: str | None, inputs: Any = ()) -> None:
    """Both outputs writable, and neither the same file as one of ``inputs``."""
    from envs.core.files import check_output_path, check_png_path

    if json_path is not None:
        check_output_path(json_path, inputs)
    if plot_path is not None:
        check_png_path(plot_path, inputs=inputs)


# -- masking -----------------------------------------------------------------------------------
def _write_outputs(ns: argparse.Namespace, doc: dict, draw: Callable[[str], None]) -> int:
    """Write ``doc`` to ``ns.json`` and ``draw(ns.plot)`` when those flags are set; 0, or the
    exit status of one ``error:`` line when a file cannot be written (both writers are atomic)."""
    from envs.core.files import write_failure_line

    from .common import write_json

    try:
        if ns.json:
            write_json(ns.json, doc)
        if ns.plot:
            draw(ns.plot)
    except OSError as exc:  # (a full disk: "cannot write 'FILE': No space left on device")
        return fail(write_failure_line(exc) or f"cannot write output: {exc}")
    return 0


#: timesteps per second of ``masking`` with its default evaluations, for the notice of how long
#: a run takes: the default run (6 runs of 20,000) took 306 CPU-seconds (580 s of wall time on
#: the 2-core machine shared with other jobs)
MASKING_RATE = 400


def _masking_parser() -> _Parser:
    from .masking import MaskingConfig

    d = MaskingConfig()
    p = _Parser(prog="evaluate.py masking",
                description="MaskablePPO with the action mask against PPO with an "
                            "illegal-action loss: same budget, several seeds, learning curves "
                            "against the heuristic.")
    p.add_argument("--ruleset", default=d.ruleset, help="ruleset id")
    p.add_argument("--scenario", default=None,
                   help="scenario name or TOML path (default: the ruleset's default battle)")
    p.add_argument("--timesteps", type=int, default=d.timesteps,
                   help="learner timesteps per run (one run per method and seed)")
    p.add_argument("--seeds", type=int, nargs="+", default=d.seeds,
                   help="training seeds: one run per method and seed")
    p.add_argument("--eval-every", type=int, default=d.eval_every,
                   help="timesteps between the learning curves' evaluations (also at 0)")
    p.add_argument("--eval-games", type=int, default=d.eval_games,
                   help="games per evaluation (even: both seats equally often)")
    p.add_argument("--opponent", default=d.opponent, help="training opponent")
    p.add_argument("--eval-opponent", default=d.eval_opponent,
                   help="opponent of the learning curves (built-in agent name)")
    p.add_argument("--also-eval", nargs="+", default=[], metavar="AGENT",
                   help="further evaluation opponents, scored at the same checkpoints")
    p.add_argument("--eval-seed", type=int, default=d.eval_seed,
                   help="seed of the evaluation games' chance (the same for every checkpoint)")
    p.add_argument("--n-steps", type=int, default=d.n_steps,
                   help="PPO rollout length in timesteps (both methods)")
    p.add_argument("--batch-size", type=int, default=d.batch_size,
                   help="PPO minibatch size in timesteps (both methods)")
    p.add_argument("--n-epochs", type=int, default=d.n_epochs,
                   help="PPO epochs per update (both methods)")
    p.add_argument("--json", default=None, help="write the results as JSON to this path")
    p.add_argument("--plot", default=None, help="draw the learning curves into this PNG")
    p.add_argument("--quiet", action="store_true", help="do not print the tables")
    return p


def masking_main(argv: list[str]) -> int:
    """``evaluate.py masking``: see :mod:`agents.research.masking`."""
    p = _masking_parser()

    def parse(a: list[str]) -> argparse.Namespace:
        ns = p.parse_args(a)
        for flag, v, lo in (("--timesteps", ns.timesteps, 1), ("--eval-every", ns.eval_every, 1),
                            ("--eval-games", ns.eval_games, 1), ("--n-steps", ns.n_steps, 2),
                            ("--batch-size", ns.batch_size, 2), ("--n-epochs", ns.n_epochs, 1)):
            if v < lo:
                p.error(f"{flag} must be >= {lo}, got {v}")
        if min(ns.seeds) < 0 or len(set(ns.seeds)) != len(ns.seeds):
            p.error(f"--seeds must be distinct and >= 0, got {ns.seeds}")
        if ns.batch_size > ns.n_steps:
            p.error("--batch-size must be <= --n-steps")
        if ns.eval_seed < 0:
            p.error(f"--eval-seed must be >= 0, got {ns.eval_seed}")
        return ns

    def body(ns: argparse.Namespace) -> int:
        from agents.builtin import make_agent
        from agents.policies.base import AgentError
        from envs import load_game
        from envs.core.errors import RiposteError

        from .common import write_json
        from .masking import MaskingConfig, plot, run

        cfg = MaskingConfig(ruleset=ns.ruleset, scenario=ns.scenario, timesteps=ns.timesteps,
                            seeds=ns.seeds, eval_every=ns.eval_every, eval_games=ns.eval_games,
                            opponent=ns.opponent, eval_opponent=ns.eval_opponent,
                            also_eval=list(ns.also_eval), eval_seed=ns.eval_seed, n_steps=ns.n_steps,
                            batch_size=ns.batch_size, n_epochs=ns.n_epochs)
        try:
            _check_outputs(ns.json, ns.plot, [ns.scenario])
            game = load_game(cfg.ruleset, cfg.scenario, cfg.params)
            two_sided(game, "masking")
            for a in (cfg.opponent, cfg.eval_opponent, *cfg.also_eval):
                make_agent(a, game, 0)
        except (RiposteError, AgentError, OSError) as exc:
            return fail(str(exc) or type(exc).__name__)

        if not ns.json:  # minutes of training whose results would only be printed
            runs, seconds = 2 * len(cfg.seeds), 2 * len(cfg.seeds) * cfg.timesteps / MASKING_RATE
            print(f"note: {runs} training runs of {cfg.timesteps} timesteps, "
                  + (f"about {seconds / 60:.0f} min" if seconds >= 90 else "under 2 min")
                  + " on an idle 2-core machine; the results are only printed (--json OUT "
                    "saves them)", flush=True)
        from agents.interrupts import STOP_NOTE, signals_held

        def save_partial(d: dict) -> None:  # a long run keeps what it has finished
            if ns.json:
                with signals_held():  # the file and the note that names it, together
                    write_json(ns.json, d)
                    STOP_NOTE["what"] = (f"stopped; the finished runs are in {ns.json} "
                                         f"(\"complete\": false)")

        doc = run(cfg, show_progress=not ns.quiet, on_run=save_partial)
        if not ns.quiet:
            print(f"masking vs penalty on {cfg.ruleset}/{game.scenario_name}: "
                  f"{cfg.timesteps} timesteps x seeds {cfg.seeds}, {doc['seconds']} s")
            print(f"{'timesteps':>9}  {'mask score [95% CI]':>24}  {'penalty score [95% CI]':>24}"
                  f"  {'penalty illegal':>15}")
            for rm, rp in zip(doc["summary"]["mask"], doc["summary"]["penalty"]):
                print(f"{rm['timesteps']:>9}  {rm['mean_score']:.3f} "
                      f"[{rm['ci95'][0]:.3f}, {rm['ci95'][1]:.3f}]".rjust(35)
                      + f"  {rp['mean_score']:.3f} [{rp['ci95'][0]:.3f}, {rp['ci95'][1]:.3f}]"
                      .rjust(26) + f"  {rp['mean_illegal_rate']:>15.2f}")
            for other, by_method in doc["summary_others"].items():
                print(f"against {other}:")
                for rm, rp in zip(by_method["mask"], by_method["penalty"]):
                    print(f"{rm['timesteps']:>9}  mask {rm['mean_score']:.3f} "
                          f"[{rm['ci95'][0]:.3f}, {rm['ci95'][1]:.3f}]  penalty "
                          f"{rp['mean_score']:.3f} [{rp['ci95'][0]:.3f}, {rp['ci95'][1]:.3f}]")
        return _write_outputs(ns, doc, lambda out: plot(doc, out))

    return _run(parse, body, argv)


# -- whatif ------------------------------------------------------------------------------------
def whatif_main(argv: list[str]) -> int:
    """``evaluate.py whatif REPLAY --at K``: see :mod:`agents.research.whatif`."""
    p = _Parser(prog="evaluate.py whatif",
                description="Value of every legal option at the decision just before label K "
                            "of a replay, by rollouts on common random numbers.")
    p.add_argument("replay", help="replay script (TOML)")
    p.add_argument("--at", type=int, required=True, help="index (0-based) of a decision label")
    p.add_argument("--agents", nargs=2, default=["heuristic", "heuristic"],
                   metavar=("SIDE0", "SIDE1"),
                   help="policies of sides 0 and 1 in the rollouts (agent names, checkpoints "
                        "or search agents search:MODEL[:sims=N...])")
    p.add_argument("--rollouts", type=int, default=100, help="rollouts per option")
    p.add_argument("--seed", type=int, default=0, help="seed of the rollouts' chance")
    p.add_argument("--baseline", default=None,
                   help="baseline label (default: react:decline if legal, else the first)")
    p.add_argument("--align", choices=("stream", "decision", "event"), default="stream",
                   help="how dice are lined up across options (agents.research.whatif)")
    p.add_argument("--compare-independent", action="store_true",
                   help="also run with independent seeds and report the variance ratio")
    p.add_argument("--max-decisions", type=int, default=None, help="per-rollout cap")
    p.add_argument("--json", default=None, help="write the results as JSON to this path")
    p.add_argument("--plot", default=None, help="bar chart PNG")
    p.add_argument("--quiet", action="store_true", help="do not print the tables")

    def parse(a: list[str]) -> argparse.Namespace:
        ns = p.parse_args(a)
        if ns.rollouts < 2:
            p.error(f"--rollouts must be >= 2 (for an interval), got {ns.rollouts}")
        if ns.seed < 0:
            p.error(f"--seed must be >= 0, got {ns.seed}")
        if ns.max_decisions is not None and ns.max_decisions < 1:
            p.error(f"--max-decisions must be >= 1, got {ns.max_decisions}")
        return ns

    def body(ns: argparse.Namespace) -> int:
        from agents.builtin import make_agent
        from agents.policies.base import AgentError
        from envs.core.errors import RiposteError
        from envs.core.replay import ReplayScript

        from .common import git_commit
        from .whatif import (decision_point, evaluate_options, format_table, plot,
                             resolve_baseline, variance_ratio)

        try:
            _check_outputs(ns.json, ns.plot, [ns.replay, *ns.agents])
            script = ReplayScript.load(ns.replay)
            state = decision_point(script, ns.at)
            two_sided(state.game, "whatif")
            resolve_baseline(state, ns.baseline)
            seeds = np.random.SeedSequence(ns.seed).spawn(2)
            agents = [make_agent(a, state.game, s) for a, s in zip(ns.agents, seeds)]
        except (RiposteError, AgentError, OSError) as exc:
            return fail(str(exc) or type(exc).__name__)
        res = evaluate_options(state, agents, ns.rollouts, seed=ns.seed, baseline=ns.baseline,
                               max_decisions=ns.max_decisions, show_progress=not ns.quiet,
                               align=ns.align)
        ratio = None
        if ns.compare_independent:
            ind = evaluate_options(state, agents, ns.rollouts, seed=ns.seed, crn=False,
                                   baseline=ns.baseline, max_decisions=ns.max_decisions,
                                   show_progress=not ns.quiet)
            ratio = variance_ratio(ind, res)
        g = state.game
        doc = {"kind": "whatif", "commit": git_commit(), "replay": ns.replay, "at": ns.at,
               "label_in_replay": script.actions[ns.at], "game": g.config(),
               "params": {"agents": ns.agents, "rollouts": ns.rollouts, "seed": ns.seed,
                          "baseline": res.baseline, "max_decisions": ns.max_decisions,
                          "crn": True, "align": ns.align},
               "seeds": {"seed": ns.seed,
                         "chance": {"stream": "SeedSequence(seed, spawn_key=(0, k))",
                                    "decision": "SeedSequence(seed, spawn_key=(0, k, decision "
                                                "index))",
                                    "event": "SeedSequence(seed, spawn_key=(0, k, crc32(turn|"
                                             "what), occurrence, die))"}[ns.align],
                         "agents": "SeedSequence(seed, spawn_key=(1, k, side))"},
               "side": res.side, "side_name": g.side_names[res.side],
               "decision": res.decision, "truncated_rollouts": res.truncated,
               "options": [o.to_dict() for o in res.options]}
        if ratio is not None:
            doc["independent_options"] = [o.to_dict() for o in ind.options]
            doc["variance_ratio"] = ratio
        title = (f"{script.source} @ {ns.at}: side {res.side} ({g.side_names[res.side]}) "
                 f"{res.decision}; {ns.agents[0]} vs {ns.agents[1]}, N={ns.rollouts}")
        if not ns.quiet:
            print(title)
            print(format_table(res))
            if ratio is not None:
                print("variance ratio of the difference (independent seeds / common random "
                      "numbers): " + ", ".join(f"{k} {v:.2f}" for k, v in ratio.items()))
            if res.truncated:
                print(f"note: {res.truncated} rollouts hit the decision cap (scored 0)")
        return _write_outputs(ns, doc, lambda out: plot(res, out, title))

    return _run(parse, body, argv)


# -- ablate ------------------------------------------------------------------------------------
def ablate_main(argv: list[str]) -> int:
    """``evaluate.py ablate --param NAME=VALUE ...``: see :mod:`agents.research.ablate`."""
    p = _Parser(prog="evaluate.py ablate",
                description="Rule-variant ablation: the same agents on the same chance seeds "
                            "under the default rules and under each --param variant.")
    p.add_argument("--ruleset", default="acw_regimental", help="ruleset id")
    p.add_argument("--scenario", default=None,
                   help="scenario name or TOML path (default: the ruleset's default battle)")
    p.add_argument("--agents", nargs="+", default=["heuristic", "always-react"],
                   help="two or more agents (built-in names or checkpoint paths)")
    p.add_argument("--param", action="append", required=True, metavar="NAME=VALUE[,NAME=VALUE]",
                   help="one variant (repeat for more); comma-join to change several "
                        "parameters in one variant")
    p.add_argument("--games", type=int, default=40, help="games per pair and variant")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (the same chance for "
                   "every variant)")
    p.add_argument("--max-decisions", type=int, default=None,
                   help="per-game decision cap (default: the game's own); capped games are draws")
    p.add_argument("--train", type=int, default=None, metavar="TIMESTEPS",
                   help="also train one MaskablePPO model per rule set and compare the learned "
                        "reaction frequencies")
    p.add_argument("--train-opponent", default="heuristic",
                   help="with --train: the opponent the models train against")
    p.add_argument("--json", default=None, help="write the results as JSON to this path")
    p.add_argument("--plot", default=None,
                   help="draw each variant's score and reaction-frequency shifts into this PNG")
    p.add_argument("--quiet", action="store_true", help="do not print the tables")

    def parse(a: list[str]) -> argparse.Namespace:
        ns = p.parse_args(a)
        if ns.games < 2:
            p.error(f"--games must be >= 2, got {ns.games}")
        if len(ns.agents) < 2 or len(set(ns.agents)) != len(ns.agents):
            p.error(f"--agents needs at least two distinct agents, got {ns.agents}")
        if ns.seed < 0:
            p.error(f"--seed must be >= 0, got {ns.seed}")
        if ns.train is not None and ns.train < 1:
            p.error(f"--train must be >= 1 timesteps, got {ns.train}")
        if ns.max_decisions is not None and ns.max_decisions < 1:
            p.error(f"--max-decisions must be >= 1, got {ns.max_decisions}")
        return ns

    def body(ns: argparse.Namespace) -> int:
        from agents.builtin import make_agent
        from agents.policies.base import AgentError
        from envs.core.errors import RiposteError

        from .ablate import (AblationConfig, build_agents, format_table, load_variant_games,
                             parse_variant, plot, run)

        try:
            _check_outputs(ns.json, ns.plot, [*ns.agents, ns.scenario])
            variants = [parse_variant(v) for v in ns.param]
            cfg = AblationConfig(ruleset=ns.ruleset, scenario=ns.scenario, agents=ns.agents,
                                 variants=variants, games=ns.games, seed=ns.seed,
                                 max_decisions=ns.max_decisions, train_timesteps=ns.train,
                                 train_opponent=ns.train_opponent)
            games = load_variant_games(cfg)
            for g in games:
                two_sided(g, "ablate")
                build_agents(cfg, g)
                if ns.train:
                    make_agent(ns.train_opponent, g, 0)
        except (RiposteError, AgentError, OSError) as exc:
            return fail(str(exc) or type(exc).__name__)
        doc = run(cfg, games, show_progress=not ns.quiet)
        if not ns.quiet:
            print(format_table(doc))
        return _write_outputs(ns, doc, lambda out: plot(doc, out))

    return _run(parse, body, argv)


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "whatif": whatif_main,
    "ablate": ablate_main,
    "masking": masking_main,
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in SUBCOMMANDS:
        return fail(f"expected a subcommand: {', '.join(SUBCOMMANDS)}")
    return SUBCOMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
