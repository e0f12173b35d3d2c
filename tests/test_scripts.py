"""Smoke tests of train.py and evaluate.py run as subprocesses with tiny budgets (CleanRL
style), bad command lines, and resuming a training run killed with SIGKILL.

The scripts run on the test-only ``toy`` ruleset through a tiny launcher that registers it
(``tests.conftest``) and then runs the script file as ``__main__``; ACW runs are used where the
ruleset matters (scenario errors, the default battle).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = ("import runpy, sys, tests.conftest; script = sys.argv.pop(1); sys.argv[0] = script; "
          "runpy.run_path(script, run_name='__main__')")
TINY = ["--n-envs", "1", "--n-steps", "64", "--batch-size", "32", "--n-epochs", "2",
        "--net-arch", "32", "--eval-games", "2", "--eval-extra-games", "2", "--no-progress-bar",
        "--no-tensorboard"]
TOY_POOL = ["--pool-bots", "random", "never-react", "always-react",
            "--eval-agents", "random", "always-react", "--bc-games", "0"]
#: what train.py says of a run directory whose .lock a live run (pid 4242) holds
IN_USE = ("error: --run-dir {!r}: another train.py (pid 4242) is running there; wait for it "
          "to end, or use another --run-dir")


@contextmanager
def live_run_lock(run_dir: Path) -> Iterator[None]:
    """Hold ``run_dir/.lock`` as a live run (pid 4242) does, for the ``with`` block."""
    import fcntl

    with open(run_dir / ".lock", "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        fh.seek(0)
        fh.truncate()
        fh.write("4242")
        fh.flush()
        yield


def run(script: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.run([sys.executable, "-c", LAUNCH, script, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def check_json(doc: dict, agents: list[str], games: int) -> None:
    assert list(doc)[:8] == ["ruleset", "scenario", "games_per_pair", "seed", "agents", "pairs",
                             "ratings", "decision_stats"]
    assert set(list(doc)[8:]) >= {"reaction_analytics", "params", "commit"}
    assert set(doc["reaction_analytics"]) == set(agents)
    assert doc["agents"] == agents and doc["games_per_pair"] == games
    n = len(agents)
    assert len(doc["pairs"]) == n * (n - 1) // 2
    for p in doc["pairs"]:
        assert set(p) == {"a", "b", "games", "a_wins", "b_wins", "draws", "a_score",
                          "a_score_ci95"}
        assert p["games"] == games == p["a_wins"] + p["b_wins"] + p["draws"]
        assert p["a_score"] == pytest.approx((p["a_wins"] + p["draws"] / 2) / games)
        lo, hi = p["a_score_ci95"]
        assert 0 <= lo <= p["a_score"] <= hi <= 1
    assert set(doc["ratings"]) == set(agents)
    for r in doc["ratings"].values():
        assert set(r) == {"rating", "ci95"} and r["ci95"][0] < r["rating"] < r["ci95"][1]
    assert set(doc["decision_stats"]) == set(agents)
    for by_type in doc["decision_stats"].values():
        for counts in by_type.values():
            assert all(isinstance(c, int) and c > 0 for c in counts.values())


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("train") / "run"
    r = run("train.py", "--ruleset", "toy", "--total-timesteps", "256", "--seed", "1",
            "--run-dir", str(run_dir), "--checkpoint-freq", "128", "--snapshot-freq", "64",
            "--eval-freq", "128", "--critic-warmup", "64", *TINY, *TOY_POOL, "--bc-games", "4",
            "--keep-candidates", "--bc-teacher",
            "always-react", "--bc-opponents", "random", "never-react", "--bc-epochs", "2")
    assert r.returncode == 0, r.stderr
    assert "timesteps/s" in r.stdout and "env.step share" in r.stdout
    assert "warm start: " in r.stdout
    return run_dir


@pytest.mark.slow
def test_train_writes_model_config_metrics(trained):
    from sb3_contrib import MaskablePPO

    assert zipfile.is_zipfile(trained / "final_model.zip")
    assert MaskablePPO.load(trained / "last_model.zip").num_timesteps == 256
    cfg = json.loads((trained / "config.json").read_text())
    assert cfg["args"]["total_timesteps"] == 256 and cfg["game"]["ruleset"] == "toy"
    metrics = json.loads((trained / "metrics.json").read_text())
    assert metrics["timesteps"] == 256 and metrics["timesteps_per_second"] > 0
    assert 0 < metrics["env_time_share"] < 1
    assert 0 < metrics["env_cpu_seconds"] < metrics["cpu_seconds"]  # process_time, in-process
    assert metrics["env_worker_cpu_seconds"] == 0.0 and metrics["timesteps_per_cpu_second"] > 0
    assert 0 < metrics["eval_seconds"] and 0 < metrics["eval_cpu_seconds"]
    assert set(metrics["final_scores"]) == {"random", "always-react"}
    assert metrics["warm_start"]["games"] == 4 and metrics["warm_start"]["samples"] > 0
    rows = (trained / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,wall_seconds,timesteps_per_second,env_time_share")
    # the warm start, the periodic evaluation, the end (not twice at 256)
    assert [r.split(",")[0] for r in rows[1:]] == ["0", "128", "256"]
    # final_model.zip is the evaluated policy with the best worst-case score (ties: later)
    sel = metrics["selected"]
    vals = [[float(x) for x in r.split(",")[5:]] for r in rows[1:]]
    cands = [(min(v), sum(v) / len(v), int(r.split(",")[0])) for v, r in zip(vals, rows[1:])]
    assert (sel["worst"], sel["timesteps"]) == (max(cands)[0], max(cands)[2])
    assert sel["worst"] == min(sel["scores"].values())
    assert MaskablePPO.load(trained / "final_model.zip").num_timesteps == sel["timesteps"]
    # every evaluated policy is kept (--keep-candidates); final_model.zip is the selected one
    assert sorted(p.name for p in (trained / "candidates").iterdir()) == [
        "model_0000000000.zip", "model_0000000128.zip", "model_0000000256.zip"]
    kept = trained / "candidates" / f"model_{sel['timesteps']:010d}.zip"
    with zipfile.ZipFile(trained / "final_model.zip") as a, zipfile.ZipFile(kept) as b:
        assert a.read("policy.pth") == b.read("policy.pth")
    assert (trained / "learning_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert set(metrics["league_win_rates"]) >= {"random", "never-react", "always-react"}
    assert sorted(p.name for p in (trained / "checkpoints").iterdir()) == [
        "ckpt_0000000128.zip", "ckpt_0000000256.zip"]
    assert len(json.loads((trained / "pool.json").read_text())["snapshots"]) == 4
    assert not [p for p in trained.rglob(".*tmp*")], "temporary files left behind"


@pytest.mark.slow
def test_evaluate_with_checkpoint_writes_json(trained, tmp_path):
    out = tmp_path / "eval.json"
    ckpt = str(trained / "final_model.zip")
    r = run("evaluate.py", "--ruleset", "toy", "--agents", ckpt, "random", "never-react",
            "--games", "4", "--seed", "3", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "Plackett-Luce" in r.stdout
    doc = json.loads(out.read_text())
    check_json(doc, [ckpt, "random", "never-react"], 4)
    assert doc["ruleset"] == "toy" and doc["scenario"] == "duel" and doc["seed"] == 3


@pytest.mark.slow
def test_evaluate_jobs_do_not_change_the_results(trained, tmp_path):
    """One process or two forked workers: the same JSON document, byte for byte."""
    ckpt = str(trained / "final_model.zip")
    docs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"eval{jobs}.json"
        r = run("evaluate.py", "--ruleset", "toy", "--agents", ckpt, "random", "never-react",
                "--games", "6", "--seed", "4", "--jobs", jobs, "--json", str(out), "--quiet")
        assert r.returncode == 0, r.stderr
        docs.append(out.read_text())
    assert docs[0] == docs[1]
    assert json.loads(docs[0])["pairs"][0]["games"] == 6


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--agents", "random", "deep-blue"], "unknown agent 'deep-blue': expected one of random, "
                                           "heuristic, never-react, always-react, "
                                           "stand-and-fire, rush"),
    (["--agents", "random", "missing/model.zip"], "checkpoint not found: 'missing/model.zip'"),
    (["--agents", "random", "CORRUPT"], "corrupt.zip"),
    (["--agents", "random", "DIR"], "is a directory, not a checkpoint file (.zip)"),
    (["--agents", "random", "SLASHED"], "corrupt.zip/' goes on after a file name as if it "
                                        "were a directory (drop what follows 'corrupt.zip')"),
    (["--agents", "random", "SLASHDOT"], "corrupt.zip/.' goes on after a file name as if it "
                                         "were a directory (drop what follows 'corrupt.zip')"),
    (["--agents", "DANGLING", "MISSING"], "checkpoint not found: 'TMP/dangling.zip'"),
    (["--games", "many"], "argument --games: invalid int value"),
    (["--bogus-flag"], "unrecognized arguments: --bogus-flag"),
    (["--ruleset", "chess"], "unknown ruleset 'chess'"),
    (["--jobs", "0"], "--jobs must be >= 1, got 0"),
    (["--agents", "random", "rush", "random", "random"],
     "--agents names must be distinct: 'random' is given 3 times"),
    (["--agents", "CORRUPT", "random", "CORRUPT_AGAIN"],  # one file, two spellings
     "--agents names must be distinct: 'TMP/corrupt.zip' and 'TMP/./corrupt.zip' are the same "
     "checkpoint"),
])
def test_evaluate_bad_input_is_one_line_error(tmp_path, args, message):
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 truncated")
    spelled = {"CORRUPT": str(corrupt), "CORRUPT_AGAIN": f"{tmp_path}/./corrupt.zip",
               "DIR": str(tmp_path), "SLASHED": f"{corrupt}/", "SLASHDOT": f"{corrupt}/.",
               "DANGLING": str(tmp_path / "dangling.zip"), "MISSING": str(tmp_path / "gone.zip")}
    (tmp_path / "dangling.zip").symlink_to(tmp_path / "gone.zip")  # a link to a missing file
    args = [spelled.get(a, a) for a in args]
    message = message.replace("TMP", str(tmp_path))
    r = run("evaluate.py", "--ruleset", "toy", *args, "--json", str(tmp_path / "x.json"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.slow
def test_evaluate_notes_an_odd_number_of_games(tmp_path):
    r = run("evaluate.py", "--ruleset", "toy", "--agents", "random", "never-react", "--games",
            "3", "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines() == [
        "note: --games 3 is odd: in each pair the first agent has one more game in the first "
        "seat than the second agent"]


@pytest.mark.slow
def test_evaluate_damaged_weights_is_one_line_error_without_unsafe_advice(trained, tmp_path):
    """A checkpoint whose weights file is damaged: the message says so, and does not relay
    torch's advice to load it with ``weights_only=False`` (running the file's pickled code);
    with --trust-checkpoint (SB3's full loader) the same."""
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(trained / "final_model.zip") as src, \
            zipfile.ZipFile(damaged, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            dst.writestr(item, b"not a torch file" if item.filename == "policy.pth" else data)
    r = run("evaluate.py", "--ruleset", "toy", "--agents", str(damaged), "random", "--games",
            "2")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines == [f"error: checkpoint {str(damaged)!r}: cannot read policy.pth: "
                     "it is not a torch weights file (damaged, or not saved by MaskablePPO)"], r.stderr
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(damaged) as src, zipfile.ZipFile(plain, "w") as dst:
        for item in src.infolist():
            if item.filename != "riposte_policy.json":
                dst.writestr(item, src.read(item))
    r = run("evaluate.py", "--ruleset", "toy", "--agents", str(plain), "random", "--games",
            "2", "--trust-checkpoint")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: cannot load MaskablePPO checkpoint {str(plain)!r}: its weights cannot be "
        "read (a damaged file, or not saved by MaskablePPO)"], r.stderr


@pytest.mark.slow
def test_evaluate_unknown_acw_scenario_is_one_line_error(tmp_path):
    r = run("evaluate.py", "--ruleset", "acw_regimental", "--scenario", "no_such_battle",
            "--agents", "random", "never-react", "--games", "2")
    if "not importable" in r.stderr or "No module named" in r.stderr:  # pragma: no cover
        pytest.skip("acw_regimental not importable yet")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no_such_battle" in lines[0]


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--total-timesteps", "0"], "--total-timesteps must be >= 1"),
    (["--net-arch", "big"], "argument --net-arch: invalid int value"),
    (["--pool-bots", "random", "skynet"], "error: --pool-bots: unknown agent 'skynet'"),
    (["--pool-bots", "random", "--eval-agents", "skynet", "random"],
     "error: --eval-agents: unknown agent 'skynet'"),
    (["--pool-bots", "random", "--eval-agents", "random", "--bc-games", "2", "--bc-teacher",
      "skynet"], "error: --bc-teacher: unknown agent"),
    (["--resume"], "--resume: no checkpoint"),
    (["--learning-rate", "-1"], "--learning-rate must be finite and > 0"),
    (["--learning-rate", "nan"], "--learning-rate must be finite and > 0"),
    (["--gamma", "2"], "--gamma must be in (0, 1]"),
    (["--batch-size", "1000", "--n-steps", "64"], "--batch-size must be <= --n-steps x --n-envs"),
    (["--bc-games", "-3"], "--bc-games must be >= 0"),
    (["--net-arch", "0"], "--net-arch needs one or more layer sizes >= 1"),
    (["--max-decisions", "0"], "--max-decisions must be >= 1"),
    (["--seed", "-1"], "--seed must be >= 0"),
    (["--seed", "4294967296"], "--seed must be >= 0 and < 2**32 (numpy's and torch's seed range)"),
    (["--address", "10.0.0.5:6379"], "error: --address '10.0.0.5:6379' is the Ray cluster of "
                                     "--backend rllib; the sb3 backend trains in this process"),
    (["--vec-env", "threads"], "--vec-env 'threads' is not one of dummy, subproc"),
    (["--eval-jobs", "0"], "--eval-jobs must be >= 1"),
    (["--league-snapshots-weight", "-1"], "--league-snapshots-weight must be a finite number"),
    (["--shaped-reward"], "--shaped-reward: the toy ruleset has no shaped reward"),
    (["--pool-bots", "random:-1"],
     "error: --pool-bots: opponent pool bot 'random:-1': weight must be finite and >= 0"),
    (["--pool-bots", "random", "random"], "error: --pool-bots names must be distinct: "
                                          "'random' is given twice"),
    (["--pool-bots", "never-react", "random", "random:2", "random:0"],
     "error: --pool-bots names must be distinct: 'random' is given 3 times"),
    (["--eval-agents", "random", "always-react", "random"],  # (a dict kept one 'random')
     "error: --eval-agents names must be distinct: 'random' is given twice"),
    (["--no-pfsp", "--pool-bot-weight", "inf"], "--pool-bot-weight must be finite and >= 0"),
    (["--pool-snapshot-weight", "nan"], "--pool-bot-weight must be finite and >= 0"),
    (["--pool-latest-weight", "2"], "--pool-latest-weight is the probability of self-play "
                                    "with --pfsp: at most 1, got 2.0"),
    (["--bc-games", "2", "--bc-opponents"], "--bc-opponents needs at least one opponent"),
    (["--league-exploiters", "-1"], "--league-exploiters must be >= 0"),
    (["--value-epochs", "-1"], "--value-epochs must be >= 0"),
    (["--value-epochs", "2", "--backend", "rllib"],
     "--value-epochs is an option of the sb3 backend's update"),
    (["--pipelined-updates", "--backend", "rllib"],
     "--pipelined-updates is an option of the sb3 backend"),
    (["--exploiter-timesteps", "0"], "--exploiter-timesteps must be >= 1"),
    (["--league-exploiters-weight", "inf"], "--league-exploiters-weight must be a finite"),
    (["--league-exploiters", "1", "--no-pfsp"], "--league-exploiters needs the league"),
    (["--league-exploiters", "99999999999999999999"], "--league-exploiters must be at most 145: "
     "one per rollout boundary inside the run (300000 timesteps in rollouts of --n-steps x "
     "--n-envs = 2048)"),
    (["--league-exploiters", "1", "--league-exploiters-weight", "0"],
     "--league-exploiters-weight 0 would never play the exploiters"),
    (["--league-exploiters", "1", "--vec-env", "subproc"],
     "--league-exploiters needs --vec-env dummy"),
    (["--no-pfsp", "--pool-bots", "--pool-snapshot-weight", "1"],
     "with --no-pfsp the opponent pool would be empty when training starts"),
])
def test_train_bad_input_is_one_line_error(tmp_path, args, message):
    r = run("train.py", "--ruleset", "toy", "--run-dir", str(tmp_path / "r"), *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert not (tmp_path / "r").exists()  # refused before anything is written


@pytest.mark.slow
def test_train_run_dir_that_cannot_be_a_directory_is_one_line_error(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a directory")
    for run_dir in (blocker, blocker / "sub"):
        r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--total-timesteps",
                "64", *TINY, *TOY_POOL)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: --run-dir {str(run_dir)!r}: "
                                                       "cannot create the directory"), r.stderr
        if run_dir == blocker:
            assert lines[0].endswith("(a file of that name is in the way)"), r.stderr
    assert blocker.read_text() == "a file, not a directory"


def _files(run_dir: Path) -> dict[str, int]:
    return {str(p.relative_to(run_dir)): p.stat().st_mtime_ns for p in run_dir.rglob("*")
            if p.is_file()}


@pytest.mark.slow
def test_overwrite_refused_for_a_bad_flag_deletes_nothing(trained, tmp_path):
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    before = _files(run_dir)
    for bad in (["--pool-bots", "random", "skynet"], ["--scenario", "nowhere"],
                ["--eval-agents", "skynet"]):
        r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--overwrite",
                "--total-timesteps", "64", *TINY, *bad)
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert _files(run_dir) == before, bad  # the run that was there is all still there


@pytest.mark.slow
@pytest.mark.parametrize("name, kind", [("final_model.zip", "dir"), ("learning_curves.png", "dir"),
                                        ("checkpoints", "file"), (".kept", "file")])
def test_a_run_dir_entry_in_the_way_is_refused_before_training(tmp_path, name, kind):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    if kind == "dir":
        (run_dir / name).mkdir()
    else:
        (run_dir / name).write_text("in the way")
    r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--total-timesteps",
            "64", *TINY, *TOY_POOL)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --run-dir {str(run_dir)!r}: ")
    assert name in lines[0], r.stderr
    assert sorted(p.name for p in run_dir.iterdir()) == [name]  # nothing trained or written


@pytest.mark.slow
def test_resume_given_the_default_scenario_by_name_is_the_same_run(trained, tmp_path):
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--scenario", "default",
            "--total-timesteps", "384", "--no-progress-bar")
    assert r.returncode == 0, r.stderr
    assert "resuming from" in r.stdout


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="fcntl locks")
def test_a_second_run_in_a_run_directory_in_use_is_refused(trained, tmp_path):
    """Two runs in one directory wrote into each other's checkpoints (and an --overwrite
    would delete a live run's files): the run directory's .lock is held while training."""
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    before = _files(run_dir)
    with live_run_lock(run_dir):
        r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--overwrite",
                "--total-timesteps", "64", *TINY, *TOY_POOL)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == IN_USE.format(str(run_dir))
    after = _files(run_dir)
    after.pop(".lock")
    before.pop(".lock", None)
    assert after == before  # nothing deleted


@pytest.mark.slow
def test_resume_without_config_json_is_refused(trained, tmp_path):
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    (run_dir / "config.json").unlink()
    before = _files(run_dir)
    r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--resume",
            "--total-timesteps", "512", "--no-progress-bar")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (f"error: --resume: {str(run_dir / 'config.json')!r} (the run's "
                                f"configuration) is missing, so the run's flags are unknown: "
                                f"put it back, or start afresh with --overwrite")
    assert _files(run_dir) == before


@pytest.mark.slow
@pytest.mark.parametrize("name, text, message", [
    ("config.json", "{bad json", "--resume: cannot read"),
    ("config.json", '{"game": {}}', "(the run's configuration): no key 'args'"),
])
def test_resume_with_a_corrupt_run_file_is_one_line_error(trained, tmp_path, name, text,
                                                          message):
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    (run_dir / name).write_text(text)
    before = {p.name: p.stat().st_mtime_ns for p in run_dir.iterdir() if p.is_file()}
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--total-timesteps", "512",
            "--no-progress-bar")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert (run_dir / name).read_text() == text  # nothing rewritten
    assert {p.name: p.stat().st_mtime_ns for p in run_dir.iterdir() if p.is_file()} == before


@pytest.mark.slow
@pytest.mark.parametrize("edit, message", [
    ({"n_envs": 0}, "has \"n_envs\": 0: --n-envs must be >= 1"),
    ({"n_envs": "eight"}, ": \"n_envs\": \"eight\" is not an integer"),
    ({"seed": None}, ": \"seed\": null is not an integer"),
    ({"n_steps": 8}, "has \"batch_size\": 32, \"n_steps\": 8, \"n_envs\": 1: --batch-size must "
                     "be <= --n-steps x --n-envs"),
    ({"pool_bots": ["random", "random"]},
     "has \"pool_bots\": [\"random\", \"random\"]: --pool-bots names must be distinct"),
    ({"gamma": 1.5}, "has \"gamma\": 1.5: --gamma must be in (0, 1]"),
    ({"scenario": " "}, ": \"scenario\": \" \" must not be empty or whitespace"),
    ({"eval_agents": ["random", ""]},
     ": \"eval_agents\": [\"random\", \"\"] must not be empty or whitespace"),
])
def test_resume_checks_the_run_config_like_fresh_flags(trained, tmp_path, edit, message):
    """A hand-edited config.json is checked as the flags of a fresh run are (n_envs 0 was a
    traceback), in one line naming config.json and the key; nothing is written."""
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    cfg = json.loads((run_dir / "config.json").read_text())
    cfg["args"].update(edit)
    (run_dir / "config.json").write_text(json.dumps(cfg))
    before = _files(run_dir)
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--total-timesteps", "512",
            "--no-progress-bar")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    where = f"error: --resume: {str(run_dir / 'config.json')!r} (the run's configuration)"
    assert len(lines) == 1 and lines[0].startswith(where) and message in lines[0], r.stderr
    assert _files(run_dir) == before


@pytest.mark.slow
def test_resume_of_a_run_from_before_the_snapshots_weight_default_keeps_1(trained, tmp_path):
    """A config.json without "league_snapshots_weight" (older runs trained with 1)
    resumes with 1, not with today's default 4."""
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    cfg = json.loads((run_dir / "config.json").read_text())
    assert cfg["args"]["league_snapshots_weight"] == 4.0  # today's default (toy: no own)
    del cfg["args"]["league_snapshots_weight"]
    (run_dir / "config.json").write_text(json.dumps(cfg))
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--total-timesteps", "384",
            "--no-progress-bar", "--eval-games", "0")
    assert r.returncode == 0, r.stderr
    resumed = json.loads((run_dir / "config.json").read_text())["args"]
    assert resumed["league_snapshots_weight"] == 1.0
    assert json.loads((run_dir / "pool.json").read_text())["pfsp"]["snapshots_weight"] == 1.0


@pytest.mark.parametrize("saved, expected", [("rllib", "rllib"), ("sb3", "sb3"),
                                              ("bogus", "sb3"), (None, "sb3")])
def test_bare_resume_continues_on_the_runs_backend(tmp_path, monkeypatch, saved, expected):
    """`--resume` without --backend continues on the backend config.json records (an RLlib
    run used to be looked for in SB3's checkpoints); an unreadable value leaves the flag's."""
    import train as train_script

    run_dir = tmp_path / "r"
    run_dir.mkdir()
    (run_dir / "config.json").write_text(json.dumps({"args": {"backend": saved}}))
    seen = []
    monkeypatch.setattr(train_script, "_train_rllib", lambda a, g, guard: seen.append(a) or 0)
    monkeypatch.setattr(train_script, "train", lambda a, g, guard=None: seen.append(a) or 0)
    assert train_script.main(["--run-dir", str(run_dir), "--resume"]) == 0
    assert [a.backend for a in seen] == [expected]
    seen.clear()
    assert train_script.main(["--run-dir", str(run_dir), "--resume", "--backend", "sb3"]) == 0
    assert [a.backend for a in seen] == ["sb3"]  # a flag given wins (resume_config judges it)


@pytest.mark.slow
def test_train_help_prints_every_flag():
    """--help formats every flag's docstring (a literal % in one crashed argparse)."""
    r = run("train.py", "--help")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "the window counts as one bot of weight 1" in " ".join(r.stdout.split())
    assert r.stdout.count("\n  --") >= 50


@pytest.mark.slow
@pytest.mark.parametrize("edit, message", [
    ({"ruleset": "nope"}, "unknown ruleset 'nope'"),
    ({"pool_bots": ["nope"]}, "--pool-bots: unknown agent 'nope'"),
])
def test_resume_names_config_json_for_a_value_it_cannot_load(trained, tmp_path, edit, message):
    """A config.json value that passes the flag checks but names no ruleset or agent is
    reported as the run's configuration, not as a flag the user typed."""
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    cfg = json.loads((run_dir / "config.json").read_text())
    cfg["args"].update(edit)
    (run_dir / "config.json").write_text(json.dumps(cfg))
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--total-timesteps", "512",
            "--no-progress-bar")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    where = f"error: --resume (flags from {str(run_dir / 'config.json')!r}): "
    assert len(lines) == 1 and lines[0].startswith(where) and message in lines[0], r.stderr


@pytest.mark.slow
def test_resume_reads_the_pool_from_the_checkpoint_and_skips_a_damaged_state(trained,
                                                                              tmp_path):
    """The checkpoint carries its own pool state (agents/training/resume.py): a damaged pool.json is
    not read; a checkpoint whose resume state is damaged is skipped for the previous one."""
    import shutil

    from agents.training.resume import RESUME_MEMBER

    run_dir = tmp_path / "copy"
    shutil.copytree(trained, run_dir)
    (run_dir / "pool.json").write_text("{bad json")
    newest = run_dir / "checkpoints" / "ckpt_0000000256.zip"
    with zipfile.ZipFile(newest) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members[RESUME_MEMBER] = b"not a pickle"
    with zipfile.ZipFile(newest, "w") as zf:
        for n, data in members.items():
            zf.writestr(n, data)
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--total-timesteps", "320",
            "--no-progress-bar")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"skipped checkpoint {str(newest)!r}: AgentLoadError: "
                               f"{newest}: cannot read {RESUME_MEMBER}: "), r.stdout
    older = run_dir / "checkpoints" / "ckpt_0000000128.zip"
    assert lines[1] == (f"resuming from {older} at 128 timesteps (2 snapshots in the pool; "
                        f"every generator and env state restored)"), r.stdout
    pool = json.loads((run_dir / "pool.json").read_text())  # rewritten at the next checkpoint
    assert len(pool["snapshots"]) == 5 and pool["pfsp"]["results"]


@pytest.mark.slow
def test_train_notes_whole_rollouts(tmp_path):
    r = run("train.py", "--ruleset", "toy", "--run-dir", str(tmp_path / "r"),
            "--total-timesteps", "100", "--seed", "3", *TINY, *TOY_POOL, "--eval-games", "0")
    assert r.returncode == 0, r.stderr
    assert ("note: PPO trains in whole rollouts of 64 timesteps (n_steps x n_envs): 128 "
            "timesteps in all, not 100") in r.stdout
    assert "trained 128 timesteps" in r.stdout


@pytest.mark.slow
def test_killed_run_resumes_from_last_checkpoint(tmp_path):
    from sb3_contrib import MaskablePPO

    run_dir = tmp_path / "run"
    args = ["--ruleset", "toy", "--seed", "2", "--run-dir", str(run_dir), "--checkpoint-freq",
            "128", "--snapshot-freq", "128", "--eval-freq", "0", *TINY, *TOY_POOL]
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "train.py", "--total-timesteps",
                             "1000000", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    ckdir = run_dir / "checkpoints"
    deadline = time.monotonic() + 240
    try:
        while not (ckdir.is_dir() and any(p.name.startswith("ckpt_") for p in ckdir.iterdir())):
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "no checkpoint within the deadline"
            time.sleep(0.2)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    done = sorted(int(p.stem.split("_")[1]) for p in ckdir.glob("ckpt_*.zip"))
    last = done[-1]
    assert last >= 128 and last % 64 == 0
    # a fresh start in the same directory is refused
    r = run("train.py", "--total-timesteps", str(last + 192), *args)
    assert r.returncode == 2 and "--resume" in r.stderr
    r = run("train.py", "--total-timesteps", str(last + 192), "--resume", *args)
    assert r.returncode == 0, r.stderr
    assert f"at {last} timesteps" in r.stdout
    assert "trained 192 timesteps" in r.stdout
    assert MaskablePPO.load(run_dir / "final_model.zip").num_timesteps == last + 192
    assert json.loads((run_dir / "metrics.json").read_text())["timesteps"] == last + 192
    # resuming a finished run trains nothing and rewrites nothing
    cfg, pool = (run_dir / "config.json").read_text(), (run_dir / "pool.json").read_text()
    r = run("train.py", "--total-timesteps", str(last + 192), "--resume", *args)
    assert r.returncode == 0 and "nothing to train" in r.stdout, r.stderr
    assert (run_dir / "config.json").read_text() == cfg
    assert (run_dir / "pool.json").read_text() == pool
    # the run's hyperparameters cannot change on --resume (they would be ignored)
    r = run("train.py", "--total-timesteps", str(last + 256), "--resume", "--learning-rate",
            "0.5", *args)
    assert r.returncode == 2 and "--learning-rate (run: " in r.stderr, r.stderr
    assert (run_dir / "config.json").read_text() == cfg


@pytest.mark.slow
def test_acw_train_and_evaluate_smoke(tmp_path):
    """The real path on the default battle: heuristic warm start, heuristic in the pool."""
    run_dir = tmp_path / "acw"
    r = run("train.py", "--total-timesteps", "128", "--run-dir", str(run_dir), "--n-envs", "2",
            "--n-steps", "64", "--batch-size", "32", "--n-epochs", "1", "--net-arch", "32",
            "--bc-games", "2", "--bc-epochs", "1", "--eval-games", "0", "--no-progress-bar",
            "--no-tensorboard")
    if "not importable" in r.stderr or "No module named" in r.stderr:  # pragma: no cover
        pytest.skip("acw_regimental not importable yet")
    assert r.returncode == 0, r.stderr
    cfg = json.loads((run_dir / "config.json").read_text())
    assert cfg["game"]["ruleset"] == "acw_regimental" and cfg["game"]["scenario"] == "default"
    # ACW's preset (agents/training/presets/acw_regimental.toml): the updates beside the envs;
    # the epochs given win
    assert (cfg["args"]["pipelined_updates"], cfg["args"]["n_epochs"]) == (True, 1)
    assert "pipelined PPO updates: the update worker ran" in r.stdout
    assert json.loads((run_dir / "metrics.json").read_text())["pipelined_updates"] is True
    out = tmp_path / "acw.json"
    r = run("evaluate.py", "--agents", str(run_dir / "final_model.zip"), "heuristic",
            "--games", "2", "--json", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    check_json(doc, [str(run_dir / "final_model.zip"), "heuristic"], 2)
    assert doc["ruleset"] == "acw_regimental" and doc["scenario"] == "default"


@pytest.mark.slow
def test_resume_given_the_default_battle_by_its_file_is_the_same_run(tmp_path):
    """--scenario PATH of the built-in file the run was started with (by name, or with none)
    is the same scenario: it was refused as a changed flag. Another battle's file still is."""
    from envs.rulesets.acw_regimental.params import SCENARIO_DIR

    run_dir = tmp_path / "acw"
    r = run("train.py", "--total-timesteps", "64", "--run-dir", str(run_dir), "--n-envs", "1",
            "--n-steps", "64", "--batch-size", "32", "--n-epochs", "1", "--net-arch", "32",
            "--bc-games", "0", "--eval-games", "0", "--no-progress-bar", "--no-tensorboard")
    assert r.returncode == 0, r.stderr
    assert json.loads((run_dir / "config.json").read_text())["args"]["scenario"] is None
    default = SCENARIO_DIR / "default.toml"
    for given in (str(default), os.path.relpath(default, ROOT), "default"):
        r = run("train.py", "--run-dir", str(run_dir), "--resume", "--scenario", given,
                "--total-timesteps", "64")
        assert r.returncode == 0, (given, r.stderr)
        assert f"{str(run_dir)!r} is already at 64 timesteps" in r.stdout, r.stdout
    other = SCENARIO_DIR / "crossroads.toml"
    r = run("train.py", "--run-dir", str(run_dir), "--resume", "--scenario", str(other),
            "--total-timesteps", "64")
    assert r.returncode == 2, r.stderr
    assert f"these flags differ: --scenario (run: None, given: {str(other)!r})" in r.stderr


@pytest.mark.slow
def test_train_teacher_kl_saves_the_teacher_and_resumes_with_it(tmp_path):
    """--teacher-kl: the warm start is frozen as teacher_policy.pth (tensors only) and read
    back on --resume; the checkpoints do not carry it."""
    import torch

    run_dir = tmp_path / "kl"
    common = ["--ruleset", "toy", "--run-dir", str(run_dir), "--seed", "2", "--teacher-kl", "0.5",
              "--critic-warmup", "0", "--eval-freq", "0", "--checkpoint-freq", "64", *TINY,
              *TOY_POOL, "--bc-games", "3", "--bc-teacher", "always-react", "--bc-opponents",
              "random", "--bc-epochs", "1"]
    r = run("train.py", *common, "--total-timesteps", "128")
    assert r.returncode == 0, r.stderr
    teacher = torch.load(run_dir / "teacher_policy.pth", weights_only=True)
    assert teacher and all(isinstance(v, torch.Tensor) for v in teacher.values())
    assert json.loads((run_dir / "config.json").read_text())["args"]["teacher_kl"] == 0.5
    before = (run_dir / "teacher_policy.pth").read_bytes()
    r = run("train.py", *common, "--total-timesteps", "256", "--resume")
    assert r.returncode == 0, r.stderr
    assert "resuming from" in r.stdout
    assert (run_dir / "teacher_policy.pth").read_bytes() == before  # the same teacher
    (run_dir / "teacher_policy.pth").write_text("not tensors")
    r = run("train.py", *common, "--total-timesteps", "384", "--resume")
    assert r.returncode == 2 and "cannot read" in r.stderr and "teacher_policy.pth" in r.stderr


@pytest.mark.slow
def test_train_teacher_kl_bad_values_are_refused(tmp_path):
    for value, message in (("-1", "--teacher-kl must be a finite number >= 0"),
                           ("nan", "--teacher-kl must be a finite number >= 0")):
        r = run("train.py", "--ruleset", "toy", "--run-dir", str(tmp_path / "x"),
                "--teacher-kl", value)
        assert r.returncode == 2 and message in r.stderr, r.stderr
        assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_train_without_a_warm_start_has_no_teacher(tmp_path):
    run_dir = tmp_path / "plain"
    r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--total-timesteps", "64",
            "--eval-freq", "0", "--teacher-kl", "1.0", *TINY, *TOY_POOL)
    assert r.returncode == 0, r.stderr
    assert json.loads((run_dir / "config.json").read_text())["args"]["teacher_kl"] == 1.0
    assert not (run_dir / "teacher_policy.pth").exists()


@pytest.mark.slow
def test_league_snapshots_weight_reaches_the_league(tmp_path):
    """--league-snapshots-weight is the PFSP league's base weight of the snapshot window (the
    --pool-*-weight flags only apply with --no-pfsp)."""
    run_dir = tmp_path / "r"
    r = run("train.py", "--ruleset", "toy", "--run-dir", str(run_dir), "--total-timesteps",
            "64", "--seed", "1", *TINY, *TOY_POOL, "--eval-games", "0",
            "--league-snapshots-weight", "3.5")
    assert r.returncode == 0, r.stderr
    pool = json.loads((run_dir / "pool.json").read_text())
    assert pool["pfsp"]["snapshots_weight"] == 3.5
    assert json.loads((run_dir / "config.json").read_text())["args"][
        "league_snapshots_weight"] == 3.5


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_evaluate_a_killed_worker_is_one_line_and_exit_1(tmp_path):
    """A tournament worker killed from outside (as the OOM killer would) ends the run with one
    error line naming the games and exit 1, instead of waiting forever; nothing is written."""
    out = tmp_path / "t.json"
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "evaluate.py", "--ruleset", "toy",
                             "--agents", "random", "always-react", "--games", "200000",
                             "--jobs", "2", "--json", str(out), "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = _children(proc.pid)
    assert len(workers) >= 2, proc.communicate(timeout=60)
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    assert stderr.startswith("error: a worker process died while playing one of games "), stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--panel", "rush,nope"], "--panel: unknown bot 'nope'; expected one of random, heuristic, "
                               "never-react, always-react, stand-and-fire, rush"),
    (["--timesteps", "0"], "--timesteps must be >= 1, got 0"),
    (["--seed", "-3"], "--seed must be >= 0 and < 2**32, got -3"),
    (["--panel", ""], "--panel: give one or more bot names (BOT[,BOT...])"),
    (["--panel", "rush"], "checkpoint 'TMP/m.zip' is not a zip file (corrupt or wrong file)"),
    (["MIXTURE", "M", "TMP/./m.zip"], "mixture takes two or more different models: 'TMP/m.zip' "
                                      "and 'TMP/./m.zip' are the same checkpoint"),
])
def test_exploit_other_targets_refuses_bad_input_before_any_work(tmp_path, args, message):
    """examples/exploit_other_targets.py: a usage error (status 2, one error line), not a
    traceback after the model was loaded (an unknown --panel bot used to fail in make_agent,
    a corrupt model in the first game)."""
    model = tmp_path / "m.zip"
    model.write_bytes(b"PK")  # a corrupt checkpoint: refused after the arguments
    args = [str(model) if a == "M" else a.replace("TMP", str(tmp_path)) for a in args]
    message = message.replace("TMP", str(tmp_path))
    head = (["mixture"] if args[:1] == ["MIXTURE"] else ["sampled", str(model)])
    args = args[1:] if args[:1] == ["MIXTURE"] else args
    r = run("examples/exploit_other_targets.py", *head, *args, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines()[-1].endswith(f"error: {message}"), r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_average_snapshots_writes_the_mean_weights_and_the_last_inputs_rest(trained, tmp_path):
    """examples/average_snapshots.py: every float tensor of policy.pth is the mean of the
    inputs'; every other member of the zip is the last input's; the result plays."""
    import io

    import torch

    snaps = sorted((trained / "snapshots").glob("*.zip"))[:2]
    assert len(snaps) == 2
    out = tmp_path / "avg.zip"
    r = run("examples/average_snapshots.py", str(out), *map(str, snaps), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("averaged over 2 checkpoints")

    def weights(path):
        with zipfile.ZipFile(path) as z:
            return torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    a, b, avg = weights(snaps[0]), weights(snaps[1]), weights(out)
    assert avg.keys() == a.keys()
    assert any(not torch.equal(a[k], b[k]) for k in a)  # two different policies
    for k in a:
        assert torch.allclose(avg[k], (a[k] + b[k]) / 2, atol=1e-7), k
    with zipfile.ZipFile(out) as zo, zipfile.ZipFile(snaps[1]) as zl:
        assert sorted(zo.namelist()) == sorted(zl.namelist())
        for name in zl.namelist():
            if name != "policy.pth":
                assert zo.read(name) == zl.read(name), name
    r = run("evaluate.py", "--ruleset", "toy", "--agents", str(out), "random", "--games", "2",
            "--seed", "0", timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("make, message", [
    (lambda t, s: [str(t / "a.zip"), s[0]], "give two or more checkpoints to average"),
    (lambda t, s: [str(t / "a.txt"), s[0], s[1]],
     "the output 'TMP/a.txt': a checkpoint is a zip file; give a file name ending in .zip"),
    (lambda t, s: [s[1], s[0], s[1]], "the output 'S1' is one of the inputs ('S1')"),
    (lambda t, s: [str(t / "link.zip"), s[0], s[1]],
     "the output 'TMP/link.zip' is one of the inputs ('S1')"),
    (lambda t, s: [str(t / "a.zip"), s[0], str(t / "link.zip")],
     "'S0' and 'TMP/link.zip' are the same checkpoint: give two or more different ones"),
    (lambda t, s: [str(t / "a.zip"), s[0], str(t)],
     "checkpoint 'TMP' is a directory, not a checkpoint"),
    (lambda t, s: [str(t / "a.zip"), s[0], " "], "a file name must not be empty or whitespace"),
    (lambda t, s: [str(t / "d" / "a.zip"), s[0], s[1]],
     "the output 'TMP/d/a.zip': 'TMP/d/a.zip' is a directory, not a file"),
    (lambda t, s: [str(t / "a.zip"), s[0], str(t / "nope.zip")],
     "checkpoint 'TMP/nope.zip' does not exist"),
    (lambda t, s: [str(t / "a.zip"), s[0], str(t / "bad.zip")],
     "checkpoint 'TMP/bad.zip' is not a zip file (corrupt or wrong file)"),
    (lambda t, s: [str(t / "a.zip"), s[0], str(t / "empty.zip")],
     "checkpoint 'TMP/empty.zip' has no policy.pth (not a MaskablePPO model)"),
])
def test_average_snapshots_refuses_bad_input_and_writes_nothing(trained, tmp_path, make,
                                                                message):
    (tmp_path / "bad.zip").write_bytes(b"PK")
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("data", "{}")
    snaps = [str(p) for p in sorted((trained / "snapshots").glob("*.zip"))[:2]]
    argv = make(tmp_path, snaps)
    if "link.zip" in " ".join(argv):  # a hard link to the first (as an input) or second
        os.link(snaps[0] if argv[0] != str(tmp_path / "link.zip") else snaps[1],
                tmp_path / "link.zip")
    (tmp_path / "d" / "a.zip").mkdir(parents=True)
    before = {p: open(p, "rb").read() for p in snaps}
    r = run("examples/average_snapshots.py", *argv, timeout=120)
    assert r.returncode == 2, r.stderr
    expected = (message.replace("TMP", str(tmp_path)).replace("S1", snaps[1])
                .replace("S0", snaps[0]))
    assert r.stderr.strip().splitlines() == [f"error: {expected}"]
    assert not (tmp_path / "a.zip").exists()
    assert {p: open(p, "rb").read() for p in snaps} == before
