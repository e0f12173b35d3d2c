"""Reliability guarantees of the scripts and their files (docs/reliability.md): no temporary
file left at a checkpoint boundary, a full disk or an unwritable file reported in one line,
inputs that are not regular files refused, budgets bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if ".tmp" in p.name)


def test_link_or_copy_twice_at_one_checkpoint_leaves_no_temporary_link(tmp_path):
    """A second checkpoint at the same timesteps (an interrupt right after a scheduled one)
    links the kept policy again: ``os.replace`` between two links of one file does nothing, so
    the temporary link used to stay for good."""
    from agents.training.checkpoints import _link_or_copy

    src, dst = tmp_path / "best_model.zip", tmp_path / ".kept" / "ckpt_0000000256.zip"
    src.write_bytes(b"policy")
    _link_or_copy(src, dst)
    _link_or_copy(src, dst)
    assert dst.read_bytes() == b"policy" and os.path.samefile(src, dst)
    assert _leftovers(tmp_path) == []


def test_link_or_copy_interrupted_between_link_and_rename_leaves_nothing(tmp_path, monkeypatch):
    from agents.interrupts import Interrupted
    from agents.training import checkpoints

    src, dst = tmp_path / "best_model.zip", tmp_path / ".kept" / "ckpt_0000000256.zip"
    src.write_bytes(b"new")
    dst.parent.mkdir()
    dst.write_bytes(b"old")

    def interrupted(a, b):
        raise Interrupted(2)

    monkeypatch.setattr(checkpoints.os, "replace", interrupted)
    with pytest.raises(Interrupted):
        checkpoints._link_or_copy(src, dst)
    assert dst.read_bytes() == b"old" and _leftovers(tmp_path) == []


# -- inputs that are not regular files --------------------------------------------------------
def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
@pytest.mark.parametrize("command", [
    ["replay", "{}"],
    ["replay", "{}", "--json"],
    ["view", "{}", "--out", "{tmp}/game.html"],
    ["fuzz", "--ruleset", "acw_regimental", "--scenario", "{}", "--games", "1"],
])
def test_envs_cli_refuses_an_input_that_is_not_a_regular_file(tmp_path, capsys, special,
                                                             command):
    """Reading /dev/zero never ends (it fills memory), a FIFO blocks: refused before opening."""
    from envs.__main__ import main

    path = "/dev/zero" if special == "/dev/zero" else _fifo(tmp_path)
    argv = [a.format(path, tmp=tmp_path) for a in command]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"error: {path}: not a regular file\n"
    assert not (tmp_path / "game.html").exists()


def test_whatif_refuses_a_replay_that_is_not_a_regular_file(capsys):
    import evaluate

    argv = ["whatif", "/dev/zero", "--at", "3", "--agents", "random", "random", "--rollouts", "2"]
    assert evaluate.main(argv) == 2
    assert capsys.readouterr().err == "error: /dev/zero: not a regular file\n"


def test_a_checkpoint_that_is_not_a_regular_file_is_refused():
    from agents.policies.base import AgentLoadError
    from agents.policies.checkpoint import read_policy_config

    with pytest.raises(AgentLoadError, match=r"^checkpoint '/dev/zero': not a regular file$"):
        read_policy_config("/dev/zero")


def test_a_scenario_that_is_not_a_regular_file_is_named_so():
    from envs.core.errors import ScenarioError
    from envs.core.scenario import read_toml, resolve_scenario_path

    with pytest.raises(ScenarioError, match=r"^/dev/zero: not a regular file$"):
        resolve_scenario_path("/dev/zero", Path("."))
    with pytest.raises(ScenarioError, match=r"^/dev/zero: not a regular file$"):
        read_toml("/dev/zero")


def test_a_toml_file_with_a_byte_order_mark_gets_a_hint(tmp_path):
    from envs.core.errors import ScenarioError
    from envs.core.scenario import read_toml

    path = tmp_path / "bom.toml"
    path.write_bytes(b'\xef\xbb\xbfruleset = "acw_regimental"\n')
    with pytest.raises(ScenarioError, match="starts with a UTF-8 byte order mark; save it as UTF-8 without one"):
        read_toml(path)
    path.write_bytes(b'ruleset = "acw_regimental"\n')
    assert read_toml(path) == {"ruleset": "acw_regimental"}


# -- a full disk: one line naming the file, a non-zero exit, no partial file -----------------
ENOSPC_LINE = "No space left on device"


def _full_disk_for(monkeypatch, part: str = "") -> None:
    """``os.fsync`` of a file whose path holds ``part`` fails as on a full disk (where a
    file system with delayed allocation reports it)."""
    import errno

    real = os.fsync

    def fsync(fd):
        if part in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_write_failure_line_names_the_file_or_the_output():
    import errno

    from envs.core.files import write_failure_line

    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/runs/a/metrics.json")
    assert write_failure_line(full) == f"cannot write '/runs/a/metrics.json': {ENOSPC_LINE}"
    try:
        try:
            raise full
        except OSError:
            raise RuntimeError("a library's clean-up failed too")
    except RuntimeError as hidden:
        assert write_failure_line(hidden) == write_failure_line(full)
    assert write_failure_line(OSError(errno.ENOSPC, "x")) == f"cannot write the output: {ENOSPC_LINE}"
    assert write_failure_line(FileNotFoundError(errno.ENOENT, "x", "a")) is None
    assert write_failure_line(ValueError("no")) is None


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_fuzz_json_on_a_full_disk_is_one_line_and_leaves_no_file(tmp_path, capsys, monkeypatch):
    from envs.__main__ import main

    out = tmp_path / "fuzz.json"
    _full_disk_for(monkeypatch)
    status = main(["fuzz", "--ruleset", "acw_regimental", "--games", "2", "--json", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1
    assert err[-1] == f"error: cannot write {str(out)!r}: {ENOSPC_LINE}"
    assert "Traceback" not in "\n".join(err) and os.listdir(tmp_path) == []


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_whatif_json_on_a_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    import evaluate

    out = tmp_path / "whatif.json"
    _full_disk_for(monkeypatch)
    status = evaluate.run(["whatif", "examples/acw_default_first_reaction.toml", "--at", "1",
                           "--agents", "random", "random", "--rollouts", "2", "--json", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and err[-1] == f"error: cannot write {str(out)!r}: {ENOSPC_LINE}", err
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_replay_to_a_full_standard_output_is_one_line(json_flag):
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "envs", "replay",
                            "examples/acw_default_first_reaction.toml", *json_flag],
                           stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert r.returncode == 1
    assert r.stderr == f"error: cannot write the standard output: {ENOSPC_LINE}\n"


ROOT = Path(__file__).resolve().parents[1]
#: train.py, tiny: a checkpoint at 128 timesteps (about 37 kB) and no other large file first
TRAIN_TINY = ["--ruleset", "toy", "--seed", "3", "--total-timesteps", "512",
              "--checkpoint-freq", "128", "--snapshot-freq", "100000", "--eval-freq", "0",
              "--n-envs", "1", "--n-steps", "64", "--batch-size", "32", "--n-epochs", "2",
              "--net-arch", "32", "--no-progress-bar", "--no-tensorboard", "--pool-bots",
              "random", "never-react", "always-react", "--eval-agents", "random",
              "always-react", "--bc-games", "0"]
#: runs a script as tests.test_scripts.LAUNCH does, with os.fsync failing as on a full disk
#: for files whose path holds sys.argv[1]
FULL_DISK_LAUNCH = (
    "import errno, os, runpy, sys, tests.conftest\n"
    "part = sys.argv.pop(1); real = os.fsync\n"
    "def fsync(fd):\n"
    "    if part in os.readlink(f'/proc/self/fd/{fd}'):\n"
    "        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))\n"
    "    return real(fd)\n"
    "os.fsync = fsync\n"
    "script = sys.argv.pop(1); sys.argv[0] = script; runpy.run_path(script, run_name='__main__')")


def _temporary_files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if ".tmp" in p.name or ".probe" in p.name)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_train_checkpoint_on_a_full_disk_is_one_line_and_leaves_no_partial_file(tmp_path):
    import subprocess
    import sys

    run_dir = tmp_path / "run"
    r = subprocess.run([sys.executable, "-c", FULL_DISK_LAUNCH, "ckpt_0000000256", "train.py",
                        *TRAIN_TINY, "--run-dir", str(run_dir)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, PYTHONHASHSEED="0"))
    ckdir = run_dir / "checkpoints"
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: cannot write {str(ckdir / 'ckpt_0000000256.zip')!r}: {ENOSPC_LINE}; complete "
        f"checkpoints (if any) are in {str(ckdir)!r}"]
    assert sorted(p.name for p in ckdir.iterdir()) == ["ckpt_0000000128.zip"]
    assert _temporary_files(run_dir) == []


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_FSIZE"), reason="needs RLIMIT_FSIZE")
def test_train_with_a_file_size_limit_is_one_line_and_leaves_no_partial_file(tmp_path):
    """A real failing write (no patch): RLIMIT_FSIZE below a checkpoint's size makes its write
    fail with EFBIG."""
    import resource
    import signal
    import subprocess
    import sys

    from tests.test_scripts import LAUNCH

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))

    run_dir = tmp_path / "run"
    r = subprocess.run([sys.executable, "-c", LAUNCH, "train.py", *TRAIN_TINY, "--run-dir",
                        str(run_dir)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       preexec_fn=limit, env=dict(os.environ, PYTHONHASHSEED="0"))
    ckdir = run_dir / "checkpoints"
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: cannot write {str(ckdir / 'ckpt_0000000128.zip')!r}: File too large; "
        f"complete checkpoints (if any) are in {str(ckdir)!r}"]
    assert list(ckdir.iterdir()) == [] and _temporary_files(run_dir) == []


# -- bounds: budgets above int64 and worker counts above the machine, refused before any work --
BIG = str(2**63)  # one above int64


def _workers_line(flag: str, what: str = "worker processes") -> str:
    from envs.core.limits import max_workers, usable_cpus

    n = max_workers() + 1
    return (f"error: {flag} {n} is above {n - 1}, 8 {what} per processor of this machine "
            f"({usable_cpus()})")


def _int64_line(flag: str) -> str:
    return (f"error: {flag} {BIG} is above the largest 64-bit integer ({2**63 - 1}), the most "
            f"a run can count")


def _too_many() -> str:
    from envs.core.limits import max_workers

    return str(max_workers() + 1)


@pytest.mark.parametrize("flags, line", [
    (["--total-timesteps", BIG], lambda: _int64_line("--total-timesteps")),
    (["--eval-jobs", "{workers}"], lambda: _workers_line("--eval-jobs")),
    (["--n-envs", "{workers}", "--vec-env", "subproc"],
     lambda: _workers_line("--n-envs", "environment processes")),
    (["--n-envs", "4097"], lambda: "error: --n-envs 4097 is above 4096, the most environments "
                                   "stepped in one process"),
])
def test_train_refuses_budgets_above_the_bounds_before_anything_starts(tmp_path, capsys, flags,
                                                                      line):
    import train

    run_dir = tmp_path / "run"
    argv = [f.format(workers=_too_many()) for f in flags]
    assert train.main(["--run-dir", str(run_dir), *argv]) == 2
    assert capsys.readouterr().err == line() + "\n"
    assert not run_dir.exists()


@pytest.mark.parametrize("argv, line", [
    (["--agents", "random", "rush", "--games", BIG], lambda: _int64_line("--games")),
    (["--agents", "random", "rush", "--jobs", "{workers}"], lambda: _workers_line("--jobs")),
    (["exploit", "m.zip", "--timesteps", BIG], lambda: _int64_line("--timesteps")),
    (["exploit", "m.zip", "--games", BIG], lambda: _int64_line("--games")),
    (["exploit", "m.zip", "--jobs", "{workers}"], lambda: _workers_line("--jobs")),
])
def test_evaluate_refuses_budgets_above_the_bounds(capsys, argv, line):
    import evaluate

    assert evaluate.main([a.format(workers=_too_many()) for a in argv]) == 2
    assert capsys.readouterr().err == line() + "\n"


@pytest.mark.parametrize("argv, line", [
    (["--games", BIG], lambda: _int64_line("--games")),
    (["--games", "2", "--jobs", "{workers}"], lambda: _workers_line("--jobs")),
])
def test_fuzz_refuses_budgets_above_the_bounds(capsys, argv, line):
    from envs.__main__ import main

    assert main(["fuzz", "--ruleset", "acw_regimental",
                 *[a.format(workers=_too_many()) for a in argv]]) == 2
    assert capsys.readouterr().err == line() + "\n"


# -- reset(options=...): what an env does not read is refused, never ignored -------------------
def test_aec_reset_refuses_a_scenario_option():
    from envs import acw_regimental_v0
    from envs.core.errors import ParameterError

    env = acw_regimental_v0.env()
    with pytest.raises(ParameterError, match=r"unknown option\(s\) 'scenario'; known: none "
                                             r"\(the ruleset, scenario and parameters are fixed"):
        env.reset(seed=0, options={"scenario": "crossroads"})
    env.reset(seed=0, options={"options": 1})  # (other keys pass: PettingZoo's api_test)
    assert env.agent_selection in env.possible_agents


def test_gym_reset_refuses_a_scenario_option_and_keeps_seat():
    import gymnasium as gym

    import envs  # noqa: F401  (registers the Gymnasium ids)
    from envs.adapters.single_agent import RiposteGymEnv
    from envs.core.errors import ParameterError

    env = RiposteGymEnv("acw_regimental")
    with pytest.raises(ParameterError, match=r"unknown option\(s\) 'scenario'; known: 'seat'"):
        env.reset(seed=0, options={"scenario": "crossroads"})
    with pytest.raises(TypeError, match="takes a dict, not str"):
        env.reset(seed=0, options="crossroads")
    env.reset(seed=0, options={"seat": 1})
    assert env.learner == 1
    assert isinstance(env, gym.Env)


# -- an interrupt during start-up leaves no empty run directory --------------------------------
TOY_FLAGS = ["--pool-bots", "random", "never-react", "--eval-agents", "random",
             "--bc-games", "0"]

def test_train_interrupted_during_start_up_leaves_no_empty_run_directory(tmp_path, monkeypatch,
                                                                        capsys):
    """The run directory is created and locked before the model is built; an interrupt
    there (nothing written yet) used to leave it behind holding only ``.lock``, with the
    folders created for it."""
    import train as train_script
    from agents.interrupts import Interrupted

    def build_model(run):
        assert (run.run_dir / ".lock").is_file()
        raise Interrupted(2)

    monkeypatch.setattr(train_script, "build_model", build_model)
    run_dir = tmp_path / "runs" / "new"
    assert train_script.main(["--ruleset", "toy", "--run-dir", str(run_dir),
                              *TOY_FLAGS]) == 130
    assert capsys.readouterr().err.startswith("interrupted (SIGINT): aborted")
    assert os.listdir(tmp_path) == []


def test_a_run_directory_that_holds_files_is_kept(tmp_path, monkeypatch):
    import train as train_script
    from agents.interrupts import Interrupted

    run_dir = tmp_path / "run"

    def build_model(run):
        (run.run_dir / "notes.txt").write_text("mine")
        raise Interrupted(15)

    monkeypatch.setattr(train_script, "build_model", build_model)
    assert train_script.main(["--ruleset", "toy", "--run-dir", str(run_dir),
                              *TOY_FLAGS]) == 143
    assert (run_dir / "notes.txt").read_text() == "mine"


# -- RLlib's metrics.json: the training scores of the games it counted --------------------------
def test_rllib_training_scores_come_from_every_counted_game():
    """``training_score_vs`` was read from the last iteration's window mean, which is absent
    when that iteration finished no game against an opponent: empty while
    ``training_games_vs`` counted games. It is now the mean over every game counted."""
    from agents.backends.rllib import tally_training_games, training_scores

    games: dict[str, int] = {}
    sums: dict[str, float] = {}
    iterations = [
        {"env_runners": {"games_vs": {"main": 2, "random": 1},
                         "score_sum_vs": {"main": 1.0, "random": 1.0}}},
        {"env_runners": {"games_vs": {"random": 3}, "score_sum_vs": {"random": 1.5}}},
        {"env_runners": {}},  # an iteration that finished no game
        {"env_runners": {"games_vs": {"main": float("nan")}}},
    ]
    for result in iterations:
        tally_training_games(result, games, sums)
    assert games == {"main": 2, "random": 4}
    assert training_scores(games, sums) == {"main": 0.5, "random": 0.625}


# -- resume: TensorBoard keeps the checkpoint step's own scalars ------------------------------
@pytest.mark.slow
def test_resume_keeps_the_checkpoint_steps_tensorboard_scalars(tmp_path):
    """The purge marker of a resumed run used to start at the checkpoint's step and drop
    what was logged there, which the resumed run never logs again: a hole at every resume."""
    import subprocess
    import sys

    from tests.test_resume import TINY_TB, _tb_steps
    from tests.test_scripts import LAUNCH, TOY_POOL

    run_dir = tmp_path / "run"
    common = ["--ruleset", "toy", "--seed", "5", "--run-dir", str(run_dir),
              "--checkpoint-freq", "128", "--snapshot-freq", "128", "--eval-freq", "0",
              *TINY_TB, *TOY_POOL]

    def train(*args):
        r = subprocess.run([sys.executable, "-c", LAUNCH, "train.py", *args, *common], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr

    train("--total-timesteps", "256")
    (run_dir / "checkpoints" / "ckpt_0000000256.zip").unlink()  # resume from 128
    train("--total-timesteps", "384", "--resume")
    steps = _tb_steps(run_dir / "tb")
    assert steps["time/fps"] == [64, 128, 192, 256, 320, 384]
