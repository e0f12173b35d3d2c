"""The ``riposte`` console command (envs/cli/riposte.py): its subcommands hand the rest of the
command line to the existing entry points, which keep working on their own."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from envs.cli import riposte

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "examples" / "acw_default_first_reaction.toml"


def installed_script() -> str:
    """The ``riposte`` script pip installed beside this interpreter (``[project.scripts]``)."""
    beside = Path(sys.executable).parent / "riposte"
    found = str(beside) if beside.is_file() else shutil.which("riposte")
    if found is None:
        pytest.fail("the riposte script is not installed: run `make install` (pip install -e .)")
    return found


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_installed_script_lists_every_command_on_one_line():
    r = _run(installed_script(), "--help")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = r.stdout.split("commands:\n", 1)[1].split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in lines] == list(riposte.COMMANDS)
    assert all(len(line.split()) > 2 for line in lines)  # each with its help on the same line
    for name in ("train", "evaluate", "play", "view", "replay", "fuzz", "bench", "playthrough",
                 "side-balance"):
        assert name in riposte.COMMANDS


@pytest.mark.slow
def test_the_installed_script_runs_the_same_entry_points():
    replay = _run(installed_script(), "replay", str(REPLAY))
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout == _run(sys.executable, "-m", "envs", "replay", str(REPLAY)).stdout
    assert replay.stdout.count("\n") > 3
    bench = _run(installed_script(), "bench", "--ruleset", "acw_regimental", "--fingerprint", "1")
    assert bench.returncode == 0, bench.stderr
    assert bench.stdout == _run(sys.executable, "-m", "envs.bench", "--ruleset",
                                "acw_regimental", "--fingerprint", "1").stdout
    cfg = _run(installed_script(), "train", "--ruleset", "atomic_africa", "--print-config")
    assert cfg.returncode == 0, cfg.stderr
    assert cfg.stdout == _run(sys.executable, "train.py", "--ruleset", "atomic_africa",
                              "--print-config").stdout
    assert "total_timesteps = 100000\n" in cfg.stdout


@pytest.mark.slow
def test_bad_input_is_one_error_line_and_status_2():
    r = _run(installed_script(), "trian")
    assert r.returncode == 2
    assert r.stderr.splitlines()[0].startswith("error: argument COMMAND: invalid choice: "
                                               "'trian'")
    assert len(r.stderr.splitlines()) == 1
    r = _run(installed_script(), "train", "--n-epochs", "0")
    assert (r.returncode, r.stderr) == (2, "error: --n-epochs must be >= 1\n")


@pytest.mark.parametrize("argv, target, passed", [
    (["train", "--seed", "3"], ("train", "main"), ["--seed", "3"]),
    (["evaluate", "exploit", "m.zip"], ("evaluate", "main"), ["exploit", "m.zip"]),
    (["replay", "f.toml", "--json"], ("envs.__main__", "main"), ["replay", "f.toml", "--json"]),
    (["play", "--opponent", "random"], ("envs.__main__", "main"),
     ["play", "--opponent", "random"]),
    (["fuzz", "--games", "1"], ("envs.__main__", "main"), ["fuzz", "--games", "1"]),
    (["view", "f.toml", "--out", "g.html"], ("envs.__main__", "main"),
     ["view", "f.toml", "--out", "g.html"]),
    (["playthrough"], ("envs.__main__", "main"), ["playthrough"]),
    (["bench", "--ruleset", "toy"], ("envs.bench", "main"), ["--ruleset", "toy"]),
    (["side-balance", "--agents", "random"], ("envs.cli.side_balance", "main"),
     ["--agents", "random"]),
])
def test_each_command_hands_the_rest_to_its_entry_point(argv, target, passed, monkeypatch):
    import importlib

    seen = []
    module = importlib.import_module(target[0])
    monkeypatch.setattr(module, target[1], lambda a: seen.append((list(a), sys.argv[0])) or 7)
    before = sys.argv[0]
    assert riposte.main(argv) == 7
    assert seen == [(passed, f"riposte {argv[0]}")]  # usage lines name the riposte command
    assert sys.argv[0] == before


def test_help_and_no_command_in_process(capsys):
    assert riposte.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "riposte COMMAND --help" in out and "  side-balance  " in out
    assert riposte.main([]) == 2  # no command: the help on stderr
    assert "commands:" in capsys.readouterr().err


def test_evaluate_runs_guarded_like_the_script(capsys):
    """``riposte evaluate`` is ``python evaluate.py``: bad input one line, status 2."""
    assert riposte.main(["evaluate", "--games", "2", "--agents", "nope", "random"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "nope" in err[0], err
