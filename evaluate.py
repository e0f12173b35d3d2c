"""Round-robin tournament of Riposte agents: win/draw/loss with 95% intervals, ratings and
per-decision statistics (CleanRL-style script; the work is done in
:mod:`agents.evaluation.tournament`).

Usage::

    python evaluate.py --ruleset acw_regimental --agents runs/default/final_model.zip heuristic \
        random --games 200 --seed 0 --json runs/default/evaluation.json

Subcommands (research tools, :mod:`agents.research`)::

    python evaluate.py whatif REPLAY --at K --agents A B --rollouts N --seed S --json OUT
    python evaluate.py ablate --agents A B --param NAME=VALUE --games N --seed S --json OUT
    python evaluate.py masking --timesteps N --seeds 0 1 2 --json OUT --plot OUT.png

and ``exploit MODEL`` (a best response trained against a frozen model,
:mod:`agents.training.league.exploit`).

Each pair plays ``--games`` games, alternating seats, with common random numbers: games ``2k``
and ``2k+1`` of every pair share one chance seed. ``a_score = (a_wins + draws/2) / games`` with a
Wilson 95% interval (draws count half); ratings are openskill Plackett–Luce (``rating`` = mu,
``ci95`` = mu ± 1.96 sigma). The JSON (written atomically) has exactly the keys ``ruleset``,
``scenario``, ``games_per_pair``, ``seed``, ``agents``, ``pairs``, ``ratings`` and
``decision_stats``, then ``reaction_analytics`` (per agent and reaction label: offered, taken,
stands lost by the trigger's unit, Disorder caused, charges stopped, scores when taken vs
declined; :mod:`agents.evaluation.analytics`), ``params`` and ``commit``. A game of more than
two sides (e.g. ``skirmish_alert --scenario ffa4``) is a free-for-all
(:mod:`agents.evaluation.free_for_all`): the agents are seated in rotation (the list padded with its
last agent), placements feed the Plackett–Luce ratings, ``pairs`` compare the places of two agents
in the same game, ``placements`` lists every game's seats, placements and returns, and
``places`` gives each agent's wins (first alone) with a Wilson interval, firsts and games per
place (:func:`agents.evaluation.free_for_all.place_summary`). ``--jobs N`` (default 2) plays the
games in N forked worker processes: every game is decided by its own seeds, so the JSON is the same
whatever N (:func:`agents.evaluation.tournament.play_schedule`). Bad input exits with status 2 and a
one-line ``error: ...`` on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


if __name__ == "__main__":  # Ctrl-C while the libraries load: one line (script_start.py)
    import script_start

    script_start.install()


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that reports bad flags as one ``error: ...`` line and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        raise SystemExit(_fail(message))


def _fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


@dataclass
class Args:
    ruleset: str = "acw_regimental"
    """ruleset id (see ``envs.list_rulesets()``)"""
    scenario: str | None = None
    """scenario name or TOML path (default: the ruleset's default battle)"""
    agents: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    """agents: built-in names (random, heuristic, never-react, always-react, stand-and-fire,
    rush), checkpoint paths or ``search:MODEL[:key=value...]`` search agents"""
    games: int = 20
    """games per pair (even: both seatings equally often)"""
    seed: int = 0
    """tournament seed (chance and agents' streams are spawned from it)"""
    max_decisions: int | None = None
    """per-game decision cap (default: the game's own); capped games are draws"""
    json: str | None = None
    """write the results as JSON to this path (atomically)"""
    quiet: bool = False
    """do not print the tables"""
    plot: str | None = None
    """draw the pairwise score matrix with the ratings beside it into this PNG (atomically)"""
    trust_checkpoint: bool = False
    """load checkpoints that would need unpickling (not saved by train.py; can run code)"""
    record: str | None = None
    """save every game as a replay script (TOML) in this directory (``envs.cli.records``)"""
    jobs: int = 2
    """worker processes playing the games (forked; the same results whatever the number)"""


def parse_args(argv: list[str] | None = None) -> Args:
    p = _ArgumentParser(description=__doc__.split("\n\n")[0],
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        epilog=_epilog())
    d = Args()
    p.add_argument("--ruleset", default=d.ruleset, help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path (default: the "
                   "ruleset's default battle)")
    p.add_argument("--agents", nargs="+", default=d.agents, metavar="AGENT",
                   help="built-in names (random, heuristic, never-react, always-react, "
                        "stand-and-fire, rush; never-alert, always-alert; never-reserve, "
                        "always-reserve), checkpoints, or search:MODEL[:k=v...] (see below)")
    p.add_argument("--games", type=int, default=d.games, help="games per pair")
    p.add_argument("--seed", type=int, default=d.seed, help="tournament seed")
    p.add_argument("--max-decisions", type=int, default=None, help="per-game decision cap")
    p.add_argument("--json", default=None, help="write results JSON here (atomically)")
    p.add_argument("--quiet", action="store_true", help="do not print tables")
    p.add_argument("--plot", default=None, metavar="OUT.png",
                   help="draw the score matrix heatmap and ratings into this PNG")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="also load checkpoints without Riposte's config by unpickling them "
                        "(this can run code from the file: only for files you trust)")
    p.add_argument("--record", default=None, metavar="DIR",
                   help="save every game as a replay script in DIR (python -m envs view opens it)")
    p.add_argument("--jobs", type=int, default=d.jobs,
                   help="worker processes playing the games (the same results whatever the "
                        "number)")
    ns = p.parse_args(argv)
    from envs.core.files import blank_arguments

    if blank := blank_arguments(ns):
        p.error(f"{', '.join(blank)} must not be empty or whitespace")
    args = Args(**vars(ns))
    from envs.core.limits import budget_problem, workers_problem

    if problem := (budget_problem("--games", args.games) or workers_problem("--jobs", args.jobs)):
        p.error(problem)
    if args.jobs < 1:
        p.error(f"--jobs must be >= 1, got {args.jobs}")
    if args.games < 1:
        p.error(f"--games must be >= 1, got {args.games}")
    if len(args.agents) < 2:
        p.error("--agents needs at least two agents")
    from agents.builtin import agent_identity
    from agents.policies.base import first_repeated

    if (twice := first_repeated(args.agents, key=agent_identity)) is not None:
        p.error(f"--agents names must be distinct: {twice}")
    if args.seed < 0:
        p.error(f"--seed must be >= 0, got {args.seed}")
    if args.max_decisions is not None and args.max_decisions < 1:
        p.error(f"--max-decisions must be >= 1, got {args.max_decisions}")
    return args


def results_json(args: Args, scenario: str, result: Any) -> dict[str, Any]:
    """The evaluation JSON document (see the module docstring for its keys)."""
    return {
        "ruleset": args.ruleset,
        "scenario": scenario,
        "games_per_pair": args.games,
        "seed": args.seed,
        "agents": list(result.agents),
        "pairs": [p.to_dict() for p in result.pairs],
        "ratings": {n: {"rating": r["rating"], "ci95": list(r["ci95"])}
                    for n, r in result.ratings.items()},
        "decision_stats": result.decision_stats,
        "reaction_analytics": result.reaction_analytics,
        "params": {"max_decisions": args.max_decisions},
        "commit": _commit(),
    } | ({"placements": result.placements, "places": result.places}
         if hasattr(result, "placements") else {})


def _commit() -> str:
    from agents.research.common import git_commit

    return git_commit()


def print_report(doc: dict[str, Any], result: Any, seconds: float) -> None:
    """Tables of pairs, ratings and reaction choices (rich when installed, else plain)."""
    pair_rows = [[p["a"], p["b"], str(p["games"]), str(p["a_wins"]), str(p["draws"]),
                  str(p["b_wins"]), f"{p['a_score']:.3f}",
                  f"[{p['a_score_ci95'][0]:.3f}, {p['a_score_ci95'][1]:.3f}]"]
                 for p in doc["pairs"]]
    rating_rows = [[n, f"{r['rating']:.2f}", f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"]
                   for n, r in sorted(doc["ratings"].items(), key=lambda kv: -kv[1]["rating"])]
    react_rows = []
    for n, by_type in doc["decision_stats"].items():
        for dtype, counts in by_type.items():
            total = sum(counts.values())
            for label, c in sorted(counts.items(), key=lambda kv: -kv[1]):
                if not label.startswith(("react:", "reserve:")):  # reserve: Atomic Africa
                    continue
                out = result.reaction_outcomes.get(n, {}).get(label)
                won = f"{out['score']:.3f} ({out['games']})" if out else "-"
                react_rows.append([n, dtype, label, str(c), f"{c / total:.1%}", won])
    place_rows = [[n, str(p["games"]), str(p["wins"]), f"{p['wins_share']:.3f}",
                   f"[{p['wins_ci95'][0]:.3f}, {p['wins_ci95'][1]:.3f}]", str(p["first"]),
                   " / ".join(f"{k}:{v}" for k, v in p["place_counts"].items()),
                   f"{p['mean_place']:.2f}"]
                  for n, p in doc.get("places", {}).items()]
    tables = [
        (f"{doc['ruleset']} / {doc['scenario']}: {doc['games_per_pair']} games per pair, "
         f"seed {doc['seed']} ({seconds:.1f} s)",
         ["a", "b", "games", "a wins", "draws", "b wins", "a score", "95% CI (Wilson)"],
         pair_rows),
        ("Plackett-Luce ratings (mu, mu ± 1.96 sigma)", ["agent", "rating", "95% CI"],
         rating_rows),
        ("Reactions and Reserve plays taken (share of that decision type; score of games "
         "where taken)",
         ["agent", "decision", "reaction", "count", "share", "score (games)"], react_rows),
    ] + ([("Places (free-for-all; an agent seated twice counts its best seat; wins: first "
           "alone)", ["agent", "games", "wins", "win share", "95% CI (Wilson)", "first incl. "
                      "ties", "games per place", "mean place"], place_rows)]
         if place_rows else [])
    try:
        from rich.console import Console
        from rich.table import Table

        console = Console(width=max(Console().width, 120))
        for title, header, rows in tables:
            t = Table(title=title)
            for h in header:
                t.add_column(h)
            for r in rows:
                t.add_row(*r)
            console.print(t)
    except ImportError:
        for title, header, rows in tables:
            print(title)
            print("  ".join(header))
            for r in rows:
                print("  ".join(r))
            print()
    from agents.evaluation.analytics import format_summary

    print(format_summary(doc["reaction_analytics"]))
    if result.truncated:
        print(f"note: {result.truncated} games hit the decision cap and were scored as draws")


def exploit_command(argv: list[str]) -> int:
    """``evaluate.py exploit MODEL [--timesteps N] [--seed S[,S...]] [--games G]
    [--init target|scratch] [--json OUT]``: train a fresh MaskablePPO best response (by
    default starting from a copy of MODEL's network) against the frozen MODEL (both seats, the
    same env and reward as train.py), then play ``--games`` games best response vs MODEL (seats swapped,
    common chance seeds) and report the best response's score with its Wilson 95% interval and
    decision statistics (see :mod:`agents.training.league.exploit`). Several seeds train one best
    response each and add their mean and highest score (:func:`exploit_summary`, the ``--json``
    document then). Exit 2 with one ``error:`` line for a
    missing or foreign checkpoint or a bad flag, before any training."""
    p = _ArgumentParser(prog="evaluate.py exploit", description=exploit_command.__doc__)
    p.add_argument("model", help="MaskablePPO checkpoint (.zip) to exploit, or "
                   "search:MODEL[:key=value...], the search agent over it (options as in "
                   "evaluate.py --help)")
    p.add_argument("--timesteps", type=int, default=200_000,
                   help="best-response training timesteps (default: 200000)")
    p.add_argument("--seed", type=_seed_list, default=[0], metavar="S[,S...]",
                   help="seed of training and games; several, comma-separated (0,1,2,3), "
                        "train one best response each and report their mean and highest score")
    p.add_argument("--games", type=int, default=200, help="games best response vs MODEL")
    p.add_argument("--ruleset", default="acw_regimental", help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path")
    p.add_argument("--max-decisions", type=int, default=None, help="per-game decision cap")
    p.add_argument("--json", default=None, help="write the result JSON here (atomically)")
    p.add_argument("--progress-bar", action="store_true", help="show a training progress bar")
    p.add_argument("--init", choices=("target", "scratch"), default="target",
                   help="the best response starts as a copy of MODEL's network (target, the "
                        "default) or from random weights (scratch)")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="load MODEL by unpickling when it has no Riposte config (can run code)")
    p.add_argument("--select-every", type=int, default=40_960,
                   help="score the best response against MODEL every N timesteps (and before "
                        "training) and measure the best of them (0: the last; default 40960)")
    p.add_argument("--select-games", type=int, default=60,
                   help="games of each selection score (default 60; another tournament seed "
                        "than the measurement's)")
    p.add_argument("--jobs", type=int, default=2,
                   help="worker processes playing the selection and measurement games (the "
                        "same result whatever the number; default 2)")
    p.add_argument("--save", default=None, metavar="BR.zip",
                   help="also write the measured best response here (a checkpoint usable as "
                        "an agent or a --pool-bots league member; atomically)")
    try:
        ns = p.parse_args(argv)
        from envs.core.files import blank_arguments, same_file

        if blank := blank_arguments(ns, positional=("model",)):
            p.error(f"{', '.join(blank)} must not be empty or whitespace")
        from envs.core.limits import budget_problem, workers_problem

        if problem := (budget_problem("--timesteps", ns.timesteps)
                       or budget_problem("--games", ns.games)
                       or budget_problem("--select-games", ns.select_games)
                       or workers_problem("--jobs", ns.jobs)):
            p.error(problem)
        if ns.timesteps < 1:
            p.error(f"--timesteps must be >= 1, got {ns.timesteps}")
        if ns.games < 1:
            p.error(f"--games must be >= 1, got {ns.games}")
        if ns.select_every < 0:
            p.error(f"--select-every must be >= 0, got {ns.select_every}")
        if ns.select_games < 1:
            p.error(f"--select-games must be >= 1, got {ns.select_games}")
        if ns.jobs < 1:
            p.error(f"--jobs must be >= 1, got {ns.jobs}")
        if bad := [s for s in ns.seed if not 0 <= s < 2**32]:
            p.error(f"--seed must be >= 0 and < 2**32 (numpy's and torch's seed range), got "
                    f"{bad[0]}")
        if len(set(ns.seed)) < len(ns.seed):
            p.error(f"--seed values must differ, got {','.join(map(str, ns.seed))}")
        if ns.save and len(ns.seed) > 1:
            p.error("--save writes one best response: give one --seed")
        if ns.save and ns.json and same_file(ns.save, ns.json):
            p.error(f"--json {ns.json!r} and --save {ns.save!r} are the same file: the JSON "
                    f"would replace the best response's checkpoint")
        if ns.max_decisions is not None and ns.max_decisions < 1:
            p.error(f"--max-decisions must be >= 1, got {ns.max_decisions}")
        if ns.save and not ns.save.lower().endswith(".zip"):
            p.error(f"--save {ns.save!r}: a checkpoint is a zip; give a file name ending in "
                    f".zip")
    except SystemExit as exc:
        return int(exc.code or 0)

    from agents.policies.base import AgentError
    from agents.policies.ppo import MaskablePPOPolicy
    from envs import load_game
    from envs.core.errors import RiposteError
    from envs.core.files import atomic_write_text, check_output_path
    from envs.core.protocol import require_two_sides
    from envs.core.registry import scenario_files

    from agents.search import SearchAgent, is_search_spec, parse_search_spec

    try:
        model_file = parse_search_spec(ns.model)[0] if is_search_spec(ns.model) else ns.model
        for out in (ns.json, ns.save):
            if out:
                check_output_path(out, inputs=[model_file, *scenario_files(ns.ruleset,
                                                                           ns.scenario)])
        game = load_game(ns.ruleset, ns.scenario)
        require_two_sides(game, "exploit trains a best response in a two-sided battle")
        # a bad checkpoint or search spec fails here, before training
        if is_search_spec(ns.model):
            SearchAgent.from_spec(ns.model, game, trust=ns.trust_checkpoint)
        else:
            MaskablePPOPolicy.load(ns.model, game, trust=ns.trust_checkpoint)
    except (RiposteError, AgentError, OSError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    import torch

    from agents.training.league.exploit import exploit

    torch.set_num_threads(1)
    docs = []
    for seed in ns.seed:
        print(f"training a best response to {ns.model} for {ns.timesteps} timesteps (seed "
              f"{seed}, starting from {'its weights' if ns.init == 'target' else 'scratch'})",
              flush=True)
        res = exploit(game, ns.ruleset, ns.scenario, ns.model, ns.timesteps, seed=seed,
                      games=ns.games, max_decisions=ns.max_decisions,
                      progress_bar=ns.progress_bar, trust_checkpoint=ns.trust_checkpoint,
                      init=ns.init, select_every=ns.select_every,
                      select_games=ns.select_games, jobs=ns.jobs, save=ns.save)
        _print_exploit(ns, res)
        docs.append(res.to_dict())
    doc = docs[0]
    if len(docs) > 1:
        doc = exploit_summary(ns.model, ns.seed, docs)
        print(f"exploitability of {ns.model} over {len(docs)} best-response seeds: "
              + ", ".join(f"seed {s} {d['score']:.3f}" for s, d in zip(ns.seed, docs))
              + f"; mean {doc['mean_score']:.3f}, highest {doc['max_score']:.3f} (seed "
              f"{doc['max_seed']})")
    if ns.json:
        try:
            atomic_write_text(Path(ns.json), json.dumps(doc, indent=2))
        except OSError as exc:
            return _fail(f"cannot write {ns.json!r}: {exc.strerror or exc}")
        print(f"wrote {ns.json}")
    if ns.save:
        print(f"wrote {ns.save}")
    return 0


def _seed_list(text: str) -> list[int]:
    """``--seed`` of ``exploit``: ``"3"`` -> ``[3]``, ``"0,1,2"`` -> ``[0, 1, 2]`` (one
    argument, so that ``--seed 3 MODEL`` still reads MODEL as the model).

    Raises:
        argparse.ArgumentTypeError: for an empty item or one that is not an integer.
    """
    try:
        return [int(item) for item in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer or comma-separated integers (0,1,2), got {text!r}") from None


def exploit_summary(model: str, seeds: list[int], docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``--json`` document of ``exploit`` with several ``--seed`` values: ``model``,
    ``seeds``, ``runs`` (each seed's own document, as one seed writes it, in seed order),
    ``mean_score``, ``max_score`` and ``max_seed`` (the best-response seed that scored
    highest; the first of equal ones)."""
    scores = [float(d["score"]) for d in docs]
    top = max(range(len(scores)), key=scores.__getitem__)
    return {"model": model, "seeds": list(seeds), "runs": docs,
            "mean_score": sum(scores) / len(scores), "max_score": scores[top],
            "max_seed": seeds[top]}


def _print_exploit(ns: argparse.Namespace, res: Any) -> None:
    """One best response's result, as ``exploit`` prints it."""
    print(f"best response vs {ns.model}: {res.wins}-{res.draws}-{res.losses} "
          f"(wins-draws-losses) over {res.games} games: score {res.score:.3f} "
          f"[{res.ci95[0]:.3f}, {res.ci95[1]:.3f}] (Wilson 95%); trained "
          f"{res.timesteps} timesteps in {res.train_seconds:.0f} s")
    if res.selection:
        scored = ", ".join(f"{int(steps)}: {score:.3f}" for steps, score in res.selection)
        print(f"selection ({ns.select_games} games each, timesteps: score): {scored}; "
              f"measured the policy of {res.selected_timesteps} timesteps")
    print("best response's decisions (share of that decision type):")
    for dtype, counts in res.decision_stats.items():
        total = sum(counts.values())
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:6]
        print(f"  {dtype}: " + ", ".join(f"{lab} {c / total:.1%}" for lab, c in top))
    print("reactions (times offered -> times taken):")
    for side, per in res.reactions.items():
        print(f"  {side}: " + (", ".join(f"{lab} {d['offered']} -> {d['taken']}"
                                         for lab, d in per.items()) or "none offered"))


#: ``evaluate.py NAME ...`` runs ``SUBCOMMANDS[NAME](argv_after_NAME)``; anything else is the
#: tournament
SUBCOMMANDS: dict[str, Any] = {"exploit": exploit_command}


def _whatif(argv: list[str]) -> int:
    from agents.research.cli import whatif_main

    return whatif_main(argv)


def _ablate(argv: list[str]) -> int:
    from agents.research.cli import ablate_main

    return ablate_main(argv)


def _masking(argv: list[str]) -> int:
    from agents.research.cli import masking_main

    return masking_main(argv)


# research tools (agents.research)
SUBCOMMANDS.update(whatif=_whatif, ablate=_ablate, masking=_masking)
#: the subcommands, for ``--help``
SUBCOMMANDS_HELP = """subcommands (python evaluate.py NAME --help):
  exploit MODEL   train a best response against a frozen model (exploitability)
  whatif REPLAY   value of every option at one decision of a replay, by rollouts
  ablate          the same agents under rule variants (--param NAME=VALUE)
  masking         action masking against an illegal-action penalty, learning curves"""


def _epilog() -> str:
    """``--help``'s epilog: the options of a ``search:MODEL`` agent spec with their defaults
    (agents.search.config.OPTIONS), then the subcommands."""
    from agents.search.config import options_help

    return ("search agents (--agents search:MODEL[:key=value...], docs/search.md):\n"
            + options_help() + "\n  e.g. --agents search:runs/default/final_model.zip:sims=32 "
            "runs/default/final_model.zip\n\n" + SUBCOMMANDS_HELP)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    if argv and not argv[0].startswith("-"):  # a tournament takes no positional argument
        import difflib

        near = difflib.get_close_matches(argv[0], list(SUBCOMMANDS), n=1)
        return _fail(f"unknown subcommand {argv[0]!r}"
                     + (f" (did you mean {near[0]!r}?)" if near else "")
                     + f"; subcommands: {', '.join(SUBCOMMANDS)}; without one, evaluate.py "
                       f"plays a tournament (--agents ...)")
    try:
        args = parse_args(argv)
    except SystemExit as exc:  # --help exits 0; bad flags were reported by _ArgumentParser
        return int(exc.code or 0)

    import numpy as np

    from agents import make_agent
    from agents.policies.base import AgentError
    from envs.core.files import atomic_write_text, check_output_path, check_png_path
    from envs.core.registry import scenario_files
    from agents.evaluation.tournament import round_robin
    from envs import load_game
    from envs.core.errors import RiposteError

    try:  # before the tournament, not after it
        inputs = [*args.agents, *scenario_files(args.ruleset, args.scenario)]
        if args.json:
            check_output_path(args.json, inputs)
        if args.plot:
            check_png_path(args.plot, inputs=inputs)
        if args.record:
            check_output_path(Path(args.record) / "probe.toml")
        game = load_game(args.ruleset, args.scenario)
        if args.record and game.num_players > 2:
            return _fail(f"--record: {game.ruleset_id}/{game.scenario_name} has "
                         f"{game.num_players} sides; only two-sided tournaments are recorded")
        seeds = np.random.SeedSequence(args.seed).spawn(len(args.agents))
        agents = {a: make_agent(a, game, s, args.trust_checkpoint)
                  for a, s in zip(args.agents, seeds)}
    except (RiposteError, AgentError, OSError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    if args.games % 2:
        print(f"note: --games {args.games} is odd: in each pair the first agent has one more "
              f"game in the first seat than the second agent", file=sys.stderr)
    t0 = time.perf_counter()
    on_game = None
    if args.record:
        from envs.cli.records import record_tournament_game

        from agents.interrupts import STOP_NOTE, signals_held

        recorded = {"games": 0, "failed": 0}

        def on_game(a, b, i, rec):
            try:  # a record that cannot be written costs that record, not the tournament
                with signals_held():  # a Ctrl-C now says the count the folder holds
                    record_tournament_game(args.record, game, args, a, b, i, rec)
                    recorded["games"] += 1
                    STOP_NOTE["what"] = (f"stopped; {recorded['games']} finished game(s) "
                                         f"recorded in {args.record}, no --json or --plot "
                                         f"written")
            except (OSError, RiposteError) as exc:
                recorded["failed"] += 1
                print(f"warning: game {i} of {a} vs {b} not recorded: "
                      f"{str(exc).splitlines()[0]}", file=sys.stderr)
    if game.num_players > 2:  # free-for-all: every game seats one agent per side
        from agents.evaluation.free_for_all import free_for_all

        result = free_for_all(game, agents, args.games, seed=args.seed,
                              max_decisions=args.max_decisions, jobs=args.jobs)
    else:
        result = round_robin(game, agents, args.games, seed=args.seed,
                             max_decisions=args.max_decisions, on_game=on_game, jobs=args.jobs)
    seconds = time.perf_counter() - t0
    doc = results_json(args, game.scenario_name, result)
    if not args.quiet:  # the report first: a file that cannot be written loses nothing shown
        print_report(doc, result, seconds)
    if args.json:
        try:
            atomic_write_text(Path(args.json), json.dumps(doc, indent=2))
        except OSError as exc:
            return _fail(f"cannot write {args.json!r}: {exc.strerror or exc}")
        if not args.quiet:
            print(f"wrote {args.json}")
    if args.plot:
        from agents.evaluation.plots import plot_score_matrix

        try:
            plot_score_matrix(doc, args.plot)
        except OSError as exc:
            return _fail(f"cannot write {args.plot!r}: {exc.strerror or exc}")
        if not args.quiet:
            print(f"wrote {args.plot}")
    if on_game is not None and recorded["failed"]:
        return _fail(f"--record: {recorded['failed']} game(s) not recorded (the warnings "
                     f"above say why); the results were written", code=1)
    return 0


def run(argv: list[str] | None = None) -> int:
    """:func:`main` as the command runs it: SIGINT / SIGTERM print one line and give ``128 +
    signal`` (:func:`agents.interrupts.run_guarded`)."""
    from agents.interrupts import STOP_NOTE, run_guarded

    STOP_NOTE["what"] = "stopped, nothing was written"  # unless the command says otherwise
    return run_guarded(main, argv)


if __name__ == "__main__":
    sys.exit(run())
