"""``train.py --backend rllib`` end to end on real Ray instances (tiny budgets; Ray's start-up
dominates: about a minute per run on a loaded 2-core machine).

* a local Ray instance started by train.py with two env runners: checkpoint, TensorBoard,
  metrics, the exported policy played by ``evaluate.py --agents``; then ``--resume`` continues
  the run. ACW activations are runs of tens of decisions by one side (see
  ``test_wrapper_follows_irregular_turn_order``), which every episode sampled here goes through.
* a two-node cluster on this machine (``ray start --head`` and ``ray start --address`` on local
  ports, stopped at the end by killing their process groups): the env runners are placed on
  both nodes.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

if os.environ.get("CI"):  # CI installs the rllib extra (make test): never skip there
    import ray  # noqa: F401
else:
    pytest.importorskip("ray.rllib")

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
RAY = str(Path(sys.executable).with_name("ray"))
TINY = ["--backend", "rllib", "--n-steps", "64", "--n-envs", "2", "--batch-size", "64",
        "--n-epochs", "1", "--net-arch", "32", "--max-snapshots", "2", "--snapshot-freq", "100",
        "--checkpoint-freq", "100", "--pool-bots", "random", "heuristic", "--eval-agents",
        "random", "--eval-games", "2"]


def train(*args: str, env: dict | None = None, timeout: float = 420):
    return subprocess.run([PY, "train.py", *TINY, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_local_run_checkpoints_resumes_and_exports(tmp_path):
    run = tmp_path / "run"
    r = train("--run-dir", str(run), "--total-timesteps", "200", "--num-env-runners", "2")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "rllib: 2 env runner(s) on 1 Ray node(s)" in r.stdout
    assert ("note: RLlib trains in whole iterations of 128 decisions of both sides (n_steps x "
            "n_envs): it stops at the end of the first one that brings the learner to 200 "
            "timesteps or more") in r.stdout  # (it rounded up silently)
    assert (run / ".lock").read_text().isdigit()  # the pid of the run that held it
    m = json.loads((run / "metrics.json").read_text())
    assert m["backend"] == "rllib" and m["num_env_runners"] == 2
    assert len(m["env_runner_nodes"]) == 2
    assert m["timesteps"] >= 200 and m["session_env_steps"] >= m["timesteps"] / 2
    assert set(m["final_scores"]) == {"random"}
    assert json.loads((run / "config.json").read_text())["backend"] == "rllib"
    ckpts = sorted((run / "rllib_checkpoints").iterdir())
    assert ckpts and all((c / "riposte_state.json").is_file() for c in ckpts)
    first = max(int(c.name.split("_")[1]) for c in ckpts)
    assert first == m["timesteps"]
    assert list((run / "tb" / "rllib").glob("events.out.tfevents.*"))

    r = train("--run-dir", str(run), "--resume", "--total-timesteps", "400",
              "--num-env-runners", "1")
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"resuming from {run / 'rllib_checkpoints' / f'ckpt_{first}'} at {first} " \
           f"timesteps" in r.stdout
    assert "brings the learner to 400 timesteps or more" in r.stdout
    m2 = json.loads((run / "metrics.json").read_text())
    assert m2["timesteps"] >= 400 and m2["session_timesteps"] == m2["timesteps"] - first
    assert (run / "rllib_checkpoints" / f"ckpt_{m2['timesteps']}").is_dir()
    assert len(list((run / "rllib_checkpoints").iterdir())) <= 3

    # the exported policy through evaluate.py like any other agent (no unpickling)
    out = tmp_path / "eval.json"
    e = subprocess.run([PY, "evaluate.py", "--agents", str(run / "final_model.zip"), "random",
                        "--games", "2", "--json", str(out)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert e.returncode == 0, e.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["agents"] == [str(run / "final_model.zip"), "random"]
    assert doc["games_per_pair"] == 2 and len(doc["pairs"]) == 1


def _kill_group(proc_pgids: list[int]) -> None:
    for pgid in proc_pgids:
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 20
    for pgid in proc_pgids:
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.5)
        else:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.slow
def test_two_node_cluster_places_env_runners_on_both_nodes(tmp_path):
    port = free_port()
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus", "1", "--object-store-memory", str(80 * 1024 * 1024),
              "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    pgids: list[int] = []
    try:
        for extra in (["--head", "--port", str(port), "--include-dashboard", "false",
                       "--ray-client-server-port", str(free_port()),
                       "--dashboard-agent-listen-port", str(free_port())],
                      ["--address", f"127.0.0.1:{port}",
                       "--dashboard-agent-listen-port", str(free_port())]):
            p = subprocess.Popen([RAY, "start", *extra, *common], env=env,
                                 start_new_session=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            pgids.append(p.pid)  # the session leader: every Ray process it starts is in it
            out, _ = p.communicate(timeout=180)
            assert p.returncode == 0, out[-3000:]
        run = tmp_path / "run"
        r = train("--run-dir", str(run), "--total-timesteps", "100", "--num-env-runners", "2",
                  "--address", f"127.0.0.1:{port}", "--eval-games", "0", env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        assert "rllib: 2 env runner(s) on 2 Ray node(s)" in r.stdout
        nodes = json.loads((run / "metrics.json").read_text())["env_runner_nodes"]
        assert len(nodes) == 2 and len(set(nodes)) == 2
        assert (run / "final_model.zip").is_file()
    finally:
        _kill_group(pgids)
        marker = Path("/tmp/ray/ray_current_cluster")  # left by a head not stopped by `ray stop`
        if marker.is_file() and marker.read_text().strip().endswith(f":{port}"):
            marker.unlink(missing_ok=True)
