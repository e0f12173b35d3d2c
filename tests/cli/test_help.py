"""Every flag of every entry point (train.py, evaluate.py and its subcommands, python -m envs
and its subcommands, python -m envs.bench, envs.cli.side_balance, bench_train.py, riposte) has
help that says what it does,
and no help text tells the story of how a value was found."""

from __future__ import annotations

import argparse
import re

import pytest

#: what a help text must not hold: development sessions, dates, issue numbers, the README's
#: measurement sections, timings of one machine
NARRATIVE = re.compile(r"\bsessions?\b|\b20\d\d-\d\d-\d\d\b|\bissue \d|\bREADME\b|"
                       r"[Mm]easured numbers|\d(\.\d+)?x (faster|the)|this machine|"
                       r"\d-core|\bround \d", re.I)


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser):
        self.parser = parser


def _parser_of(main, argv: list[str], monkeypatch) -> argparse.ArgumentParser:
    """The parser ``main(argv)`` builds, taken when it starts parsing (nothing runs)."""
    def capture(self, args=None, namespace=None):
        raise _Captured(self)

    with monkeypatch.context() as m:
        m.setattr(argparse.ArgumentParser, "parse_known_args", capture)
        with pytest.raises(_Captured) as exc:
            main(argv)
    return exc.value.parser


def _entry_points():
    import bench_train
    import evaluate
    import train
    from envs import __main__ as envs_main
    from envs import bench
    from envs.cli import riposte, side_balance

    yield "train.py", train.main, []
    yield "evaluate.py", evaluate.main, []
    for name in evaluate.SUBCOMMANDS:
        yield f"evaluate.py {name}", evaluate.main, [name]
    yield "python -m envs", envs_main.main, []
    yield "python -m envs.bench", bench.main, []
    yield "bench_train.py", bench_train.main, []
    yield "python -m envs.cli.side_balance", side_balance.main, []
    yield "riposte", riposte.main, []


def _walk(prog: str, parser: argparse.ArgumentParser):
    """``(where, action)`` for every action of ``parser`` and of its subcommands' parsers."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:  # each subcommand's one-line help
                yield f"{prog} {choice.dest}", choice
            for name, sub in action.choices.items():
                yield from _walk(f"{prog} {name}", sub)
        else:
            yield prog, action


def all_actions(monkeypatch) -> list[tuple[str, argparse.Action]]:
    out = []
    for prog, main, argv in _entry_points():
        out.extend(_walk(prog, _parser_of(main, argv, monkeypatch)))
    return out


def test_every_flag_of_every_entry_point_has_help(monkeypatch):
    actions = all_actions(monkeypatch)
    progs = {p.split()[0] for p, _ in actions}
    assert progs == {"train.py", "evaluate.py", "python", "bench_train.py", "riposte"}
    names = {f"{p} {'/'.join(a.option_strings) or a.dest}" for p, a in actions}
    # the subcommands are walked too
    for sub in ("evaluate.py exploit --timesteps", "evaluate.py masking --json",
                "python -m envs fuzz --ruleset", "python -m envs play --opponent",
                "python -m envs.bench --fingerprint", "train.py --print-config"):
        assert any(n.startswith(sub) for n in names), sub
    missing = sorted(f"{p}: {'/'.join(a.option_strings) or a.dest}" for p, a in actions
                     if not a.help or a.help == argparse.SUPPRESS or not a.help.strip())
    assert missing == []
    assert len(actions) > 150


def test_every_help_text_is_at_most_two_lines(monkeypatch):
    """At most 200 characters before train.py's ``(default: ...)`` suffix: about two lines."""
    long = sorted(f"{p}: {'/'.join(a.option_strings) or a.dest}: {len(text)}"
                  for p, a in all_actions(monkeypatch) if a.help
                  and len(text := re.sub(r" \(default: .*\)$", "", a.help, flags=re.S)) > 200)
    assert long == []


def test_no_help_text_tells_a_story(monkeypatch):
    told = sorted(f"{p}: {'/'.join(a.option_strings) or a.dest}: {m.group(0)!r}"
                  for p, a in all_actions(monkeypatch)
                  if a.help and (m := NARRATIVE.search(a.help)))
    assert told == []


def test_the_narrative_pattern_catches_stories():
    # the session number and the date are split so that no tracked file holds one
    for text in ("4 since session " "14", "README, Measured " "numbers", "ran 1.9x faster than 1",
                 "the CI failure of 2026-" "12-03", "on this 2-core machine", "issue 10's target"):
        assert NARRATIVE.search(text), text
    for text in ("learner decisions (timesteps) to train for", "games per pair",
                 "PPO epochs (passes over the rollout) per update"):
        assert not NARRATIVE.search(text), text
