"""Command line: ``python -m envs replay FILE [--json]`` and ``python -m envs fuzz ...``.

``replay`` plays a replay script and prints the event log, one line per event with its rule ids;
``--json`` prints the final state as JSON instead. ``fuzz`` plays random games checking every
protocol invariant at every step (see :mod:`envs.cli.fuzz`). Errors print one line and exit with
status 2; Ctrl-C prints one line and exits 130.
"""

from __future__ import annotations

import argparse
import sys

from envs.core.errors import RiposteError
from envs.core.replay import ReplayScript


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="play a replay script (TOML) and print its event log")
    rp.add_argument("file", help="replay script (TOML)")
    rp.add_argument("--json", action="store_true", help="print the final state as JSON")
    from envs.cli import fuzz

    fuzz.add_parser(sub)
    args = parser.parse_args(argv)

    if args.command == "fuzz":
        try:
            return fuzz.run(args)
        except KeyboardInterrupt as exc:  # a second Ctrl-C / SIGTERM (agents.interrupts)
            print(f"interrupted ({getattr(exc, 'name', 'SIGINT')}): aborted, nothing was "
                  f"written", file=sys.stderr)
            return int(getattr(exc, "exit_status", 130))

    if args.command == "replay":
        try:
            state = ReplayScript.load(args.file).play()
        except RiposteError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        if args.json:
            print(state.to_json(indent=2))
        else:
            for i, ev in enumerate(state.events):
                print(f"{i:4d} {ev.format()}")
            print(f"# final: {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
