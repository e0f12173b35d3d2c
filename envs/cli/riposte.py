"""The ``riposte`` console command: one command whose subcommands are Riposte's entry points.

Usage::

    riposte train [--ruleset R] [--preset NAME] ...     # train.py
    riposte evaluate --agents A B ...                   # evaluate.py (and its subcommands)
    riposte replay FILE                                 # python -m envs replay (and the others)
    riposte bench --ruleset R                           # python -m envs.bench
    riposte COMMAND --help

Each subcommand hands the rest of the command line to the existing entry point's ``main``
(its own argparse parser, its own exit status: 0 done, 2 bad input with one ``error:`` line,
``128 + signal`` when interrupted); ``train.py``, ``evaluate.py`` and ``python -m envs ...``
work as before. Installed by ``[project.scripts]`` in pyproject.toml; ``python -m
envs.cli.riposte`` is the same command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

#: the subcommands of the ``python -m envs`` entry point (envs/__main__.py)
ENVS_COMMANDS = {
    "replay": "print a replay script's event log (or final state)",
    "view": "write a replay or game record as one HTML page",
    "play": "play one side against an agent in the browser",
    "fuzz": "random games checking every protocol invariant",
    "playthrough": "print one seeded random game node by node",
}


def _train(argv: list[str]) -> int:
    import train

    return train.main(argv)


def _evaluate(argv: list[str]) -> int:
    import evaluate

    return evaluate.run(argv)


def _envs(command: str) -> Callable[[list[str]], int]:
    def run(argv: list[str]) -> int:
        from envs.__main__ import main

        return main([command, *argv])
    return run


def _bench(argv: list[str]) -> int:
    from envs.bench import main

    return main(argv)


def _side_balance(argv: list[str]) -> int:
    from envs.cli.side_balance import main

    return main(argv)


#: subcommand -> (one line of help, the entry point it runs with the rest of the arguments)
COMMANDS: dict[str, tuple[str, Callable[[list[str]], int]]] = {
    "train": ("MaskablePPO self-play training (train.py)", _train),
    "evaluate": ("tournaments, ratings, research tools (evaluate.py)", _evaluate),
    **{name: (text, _envs(name)) for name, text in ENVS_COMMANDS.items()},
    "bench": ("engine speed in decisions per second", _bench),
    "side-balance": ("side 0's score when one policy plays both seats", _side_balance),
}


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: ``--help``, ``--version`` and the list of subcommands (each
    subcommand's own flags belong to its entry point's parser)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("riposte")
    except PackageNotFoundError:  # running from a source tree that is not installed
        ver = "unknown"
    width = max(map(len, COMMANDS)) + 2
    listing = "\n".join(f"  {name:<{width}}{text}" for name, (text, _) in COMMANDS.items())
    p = _ArgumentParser(prog="riposte", formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Reinforcement learning on the reaction rules of "
                                    "tabletop wargames.",
                        epilog=f"commands:\n{listing}\n\n"
                               f"riposte COMMAND --help shows a command's flags.")
    p.add_argument("--version", action="version", version=f"riposte {ver}",
                   help="print the installed version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND",
                           help="one of the commands below, then its own flags")
    for name in COMMANDS:
        sub.add_parser(name, add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``riposte COMMAND ARGS...``; returns the command's exit status (2 with one
    ``error:`` line for an unknown command, 0 for ``--help``)."""
    own_process = argv is None  # the process's command line (not a call from Python)
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in COMMANDS:
        name, rest = argv[0], argv[1:]
        if own_process:  # Ctrl-C while the libraries load: one line
            import script_start

            script_start.install()
        prog, sys.argv[0] = sys.argv[0], f"riposte {name}"  # the usage lines say so
        try:
            return COMMANDS[name][1](rest)
        finally:
            sys.argv[0] = prog
    parser = build_parser()
    try:
        parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) or a bad command (2, reported)
        return int(exc.code or 0)
    parser.print_help(sys.stderr)
    return 2  # no command given


if __name__ == "__main__":
    sys.exit(main())
