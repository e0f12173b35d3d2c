"""Command line: ``python -m envs replay FILE [--json]``.

``replay`` plays a replay script and prints the event log, one line per event with its rule ids;
``--json`` prints the final state as JSON instead. Errors print one line and exit with status 2.
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
    args = parser.parse_args(argv)

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
