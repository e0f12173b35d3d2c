"""Pinned behaviour digests: what a player or a replay sees of seeded random games on every
built-in scenario (``envs.bench.observable_fingerprint``: legal labels, chance outcomes with
their probabilities, events with rule ids, data and text, every side's observation, returns).

A change of form or speed must leave every digest as it is. A rules change that moves one is
regenerated on purpose, and its commit says which legal sets or events moved and why::

    python -m tests.golden.pinned_behaviour            # check, print the digests that moved
    python -m tests.golden.pinned_behaviour --write    # rewrite pinned_behaviour.toml
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

PINS = Path(__file__).with_name("pinned_behaviour.toml")
#: seeded random games per scenario (the same seed 0 for every scenario)
GAMES = 24


def scenarios() -> list[tuple[str, str]]:
    """``(ruleset, scenario)`` for every built-in scenario of every registered ruleset (the
    test-only ``toy`` ruleset excluded)."""
    from envs.core.registry import game_class
    from envs.rulesets import REGISTRY

    found = []
    for ruleset in sorted(REGISTRY):
        if ruleset == "toy":
            continue
        folder = game_class(ruleset).scenario_dir
        found += [(ruleset, p.stem) for p in sorted(folder.glob("*.toml"))] if folder else []
    return found


def digest(ruleset: str, scenario: str) -> str:
    """The behaviour digest of :data:`GAMES` games of ``ruleset``/``scenario`` (seed 0)."""
    from envs.bench import observable_fingerprint
    from envs.rulesets import load_game

    return observable_fingerprint(load_game(ruleset, scenario), GAMES, seed=0)["fingerprint"]


def pinned() -> dict[str, dict[str, str]]:
    """``{ruleset: {scenario: digest}}`` as pinned in ``pinned_behaviour.toml``."""
    with PINS.open("rb") as f:
        return tomllib.load(f)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden.pinned_behaviour",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite pinned_behaviour.toml with the digests of the code as it is")
    args = parser.parse_args(argv)
    old = pinned() if PINS.exists() else {}
    new: dict[str, dict[str, str]] = {}
    moved = 0
    for ruleset, scenario in scenarios():
        d = digest(ruleset, scenario)
        new.setdefault(ruleset, {})[scenario] = d
        before = old.get(ruleset, {}).get(scenario)
        if before != d:
            moved += 1
            print(f"{ruleset}/{scenario}: {before or '(not pinned)'} -> {d}")
    if args.write:
        lines = [f"# {GAMES} seeded random games per scenario; written by "
                 f"python -m tests.golden.pinned_behaviour --write"]
        for ruleset, table in new.items():
            lines += ["", f"[{ruleset}]"] + [f'{s} = "{d}"' for s, d in table.items()]
        PINS.write_text("\n".join(lines) + "\n")
        print(f"wrote {PINS}")
    else:
        print(f"{moved} digest(s) moved")
    return 0 if (moved == 0 or args.write) else 1


if __name__ == "__main__":
    sys.exit(main())
