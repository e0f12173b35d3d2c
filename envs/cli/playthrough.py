"""``python -m envs playthrough``: the text of one seeded random game
(:func:`envs.core.playthrough.playthrough`), and the golden playthrough files of the tests.

Usage::

    python -m envs playthrough --ruleset R [--scenario S] --seed N [--max-nodes K] [--out FILE]
    python -m envs playthrough --regenerate

The first prints the playthrough (or writes it atomically to ``FILE``). The second rewrites
every golden file of :data:`PLAYTHROUGHS` under :data:`GOLDEN_DIR` (what
``tests/core/test_playthrough.py`` compares with a fresh playthrough) and prints each file with
its line count; run it when a change of rules, labels or observations is intended, and read
the ``git diff`` of the files. Bad input (an unknown ruleset or scenario, a negative seed or
``--max-nodes``, ``--regenerate`` with other flags, an unwritable ``--out``) prints one
``error:`` line and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, check_output_path
from envs.core.registry import scenario_files

#: where the golden playthroughs live (``tests/golden/playthroughs`` of the repository)
GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "golden" / "playthroughs"


@dataclass(frozen=True)
class PlaythroughSpec:
    """One golden playthrough: ``GOLDEN_DIR / file`` holds
    ``playthrough(load_game(ruleset, scenario), seed, max_nodes)``."""

    file: str
    ruleset: str
    scenario: str | None
    seed: int
    max_nodes: int | None


#: every golden playthrough (``--regenerate`` and the test share this table); ``max_nodes``
#: keeps each file under about 2,000 lines (``None``: the whole game)
PLAYTHROUGHS: tuple[PlaythroughSpec, ...] = (
    PlaythroughSpec("acw_regimental_example_a_closing_volley.txt", "acw_regimental",
                    "example_a_closing_volley", 0, None),
    PlaythroughSpec("acw_regimental_example_b_refuse_flank.txt", "acw_regimental",
                    "example_b_refuse_flank", 0, None),
    PlaythroughSpec("acw_regimental_example_c_opportunity_fire.txt", "acw_regimental",
                    "example_c_opportunity_fire", 0, 72),
    PlaythroughSpec("acw_regimental_default.txt", "acw_regimental", "default", 0, 40),
    PlaythroughSpec("atomic_africa_default.txt", "atomic_africa", None, 0, 40),
    PlaythroughSpec("skirmish_alert_default.txt", "skirmish_alert", None, 0, 40),
)


def render(spec: PlaythroughSpec) -> str:
    """The playthrough text of ``spec`` (what its golden file must hold)."""
    from envs import load_game
    from envs.core.playthrough import playthrough

    return playthrough(load_game(spec.ruleset, spec.scenario), spec.seed, spec.max_nodes)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("playthrough", help="print one seeded random game node by node, or "
                                           "rewrite the golden playthroughs (--regenerate)")
    p.add_argument("--ruleset", default=None, help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path")
    p.add_argument("--seed", type=int, default=None, help="seed of chance and decisions (>= 0)")
    p.add_argument("--max-nodes", type=int, default=None,
                   help="stop after this many nodes (default: play to the end)")
    p.add_argument("--out", default=None, help="write the text here (atomically) instead of "
                                               "printing it")
    p.add_argument("--regenerate", action="store_true",
                   help="rewrite every golden file under tests/golden/playthroughs")
    return p


def run(args: argparse.Namespace) -> int:
    if args.regenerate:
        given = [flag for flag, value in (("--ruleset", args.ruleset),
                                          ("--scenario", args.scenario), ("--seed", args.seed),
                                          ("--max-nodes", args.max_nodes), ("--out", args.out))
                 if value is not None]
        if given:
            return _fail(f"--regenerate takes no other flags (got {', '.join(given)})")
    elif args.ruleset is None:
        return _fail("--ruleset is required (or --regenerate)")
    elif args.seed is None:
        return _fail("--seed is required (or --regenerate)")
    elif args.seed < 0:
        return _fail(f"--seed must be >= 0, got {args.seed}")
    elif args.max_nodes is not None and args.max_nodes < 0:
        return _fail(f"--max-nodes must be >= 0, got {args.max_nodes}")
    try:
        if args.regenerate:
            _regenerate()
            return 0
        if args.out is not None:
            check_output_path(args.out,
                              inputs=scenario_files(args.ruleset, args.scenario))
        text = render(PlaythroughSpec(args.out or "", args.ruleset, args.scenario, args.seed,
                                      args.max_nodes))
        if args.out is not None:
            atomic_write_text(args.out, text)
    except (RiposteError, OSError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    if args.out is None:
        sys.stdout.write(text)
    else:
        print(f"wrote {args.out} ({text.count(chr(10))} lines)")
    return 0


def _regenerate() -> None:
    """Rewrite every golden file of :data:`PLAYTHROUGHS` (raises what writing raises)."""
    for spec in PLAYTHROUGHS:
        text = render(spec)
        path = atomic_write_text(GOLDEN_DIR / spec.file, text)
        print(f"wrote {path} ({text.count(chr(10))} lines)")


def _fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code
