"""Command line: ``python -m envs replay FILE [--json]``, ``python -m envs fuzz ...``,
``python -m envs view FILE --out game.html`` and ``python -m envs play --ruleset acw_regimental
--opponent AGENT`` and ``python -m envs playthrough --ruleset R --seed N``.

``replay`` plays a replay script and prints the event log, one line per event with its rule ids;
``--json`` prints the final state as JSON instead. ``fuzz`` plays random games checking every
protocol invariant at every step (see :mod:`envs.cli.fuzz`). ``view`` writes one self-contained
HTML page of a replay script or game record (:mod:`envs.cli.view`). ``play`` serves a page on
127.0.0.1 where a person plays one side against an agent (:mod:`envs.cli.play`). ``playthrough``
prints one seeded random game node by node, or rewrites the golden playthroughs with
``--regenerate`` (:mod:`envs.cli.playthrough`). Errors print
one line and exit with status 2; Ctrl-C prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import os
import sys

from envs.core.errors import RiposteError
from envs.core.replay import ReplayScript


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="play a replay script (TOML) and print its event log")
    rp.add_argument("file", help="replay script (TOML)")
    rp.add_argument("--json", action="store_true", help="print the final state as JSON")
    vw = sub.add_parser("view", help="write a replay script or game record as one HTML page")
    vw.add_argument("file", help="replay script (TOML) or game record (JSON of State.to_json)")
    vw.add_argument("--out", required=True,
                    help="HTML file to write, a name ending in .html or .htm (e.g. game.html)")
    pl = sub.add_parser("play", help="play one side against an agent in the browser "
                                     "(serves on 127.0.0.1)")
    pl.add_argument("--ruleset", default="acw_regimental", help="ruleset id")
    pl.add_argument("--opponent", required=True,
                    help="agent: random, never-react, always-react, heuristic or a checkpoint")
    pl.add_argument("--side", type=int, choices=(0, 1), default=0,
                    help="the side you play (0 = first side, e.g. Union)")
    pl.add_argument("--scenario", default=None, help="scenario name or TOML path")
    pl.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0 = any free)")
    pl.add_argument("--seed", type=int, default=0, help="seed of the dice and the agent")
    pl.add_argument("--save", default=None,
                    help="replay script (.toml) written at the end (default replays/play-<time>.toml)")
    pl.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="game parameter (repeatable), e.g. pips_fixed=true")
    pl.add_argument("--hint", default=None, metavar="SPEC",
                    help="the search the page's 'What would the AI do?' button asks at your "
                         "decision: search:MODEL[:sims=N...] or a checkpoint (default: the "
                         "opponent's, when it is a search:MODEL agent; else no button)")
    pl.add_argument("--trust-checkpoint", action="store_true",
                    help="load an --opponent or --hint checkpoint without Riposte's config by "
                         "unpickling "
                         "(can run code: only for files you trust)")
    from envs.cli import fuzz, playthrough

    fuzz.add_parser(sub)
    playthrough.add_parser(sub)
    args = parser.parse_args(argv)
    from envs.core.files import blank_arguments

    if blank := blank_arguments(args, positional=("file",)):
        print(f"error: {', '.join(blank)} must not be empty or whitespace", file=sys.stderr)
        return 2

    guarded = {"fuzz": (fuzz.run, "aborted, nothing was written"),
               "playthrough": (playthrough.run,
                               "aborted (each file is written whole or not at all)")}
    if args.command in guarded:  # Ctrl-C / SIGTERM: one line (agents.interrupts)
        from agents.interrupts import run_guarded

        run, what = guarded[args.command]
        return run_guarded(run, args, what=what)
    if args.command == "view":
        from envs.cli import view  # scripts layer: imported only for this command

        return view.main(args.file, args.out)
    if args.command == "play":
        from envs.cli import play

        return play.main(args)
    if args.command == "replay":
        try:
            state = ReplayScript.load(args.file).play()
        except RiposteError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        try:
            if args.json:
                print(state.to_json(indent=2))
            else:
                for i, ev in enumerate(state.events):
                    print(f"{i:4d} {ev.format()}")
                print(f"# final: {state}")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader (``| head``) has closed the pipe: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError as e:  # a full disk under ``> file``: one line, no partial promise
            from envs.core.files import quiet_unwritable_stdout

            quiet_unwritable_stdout()
            print(f"error: cannot write the standard output: {e.strerror or e}",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
