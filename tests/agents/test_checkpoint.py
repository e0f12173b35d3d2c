"""Checkpoints that cannot run code (agents/policies/checkpoint.py): a checkpoint loaded for play is
read as tensors + our JSON config, never unpickled; one that would need unpickling is refused unless
trusted. The hostile zips carry a pickle whose loading creates a file: it must never appear."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import AgentLoadError, MaskablePPOPolicy, UnsafeCheckpointError, make_agent
from agents.policies.checkpoint import CONFIG_MEMBER, FORMAT, load_policy_model, save_model
from tests.agents.test_policies import random_decisions

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = ("import runpy, sys, tests.conftest; script = sys.argv.pop(1); sys.argv[0] = script; "
          "runpy.run_path(script, run_name='__main__')")


class _CreatesFile:
    """Unpickling this calls ``open(path, "w")``: the file's appearance proves code ran."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture(scope="module")
def model_and_zip(tmp_path_factory):
    from sb3_contrib import MaskablePPO

    from envs import load_game
    from envs.adapters.single_agent import RiposteGymEnv

    env = RiposteGymEnv("toy", seat="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16, 8]})
    path = save_model(model, tmp_path_factory.mktemp("safe") / "model.zip", load_game("toy"))
    return model, path


@pytest.fixture(scope="module")
def toy_game():
    from envs import load_game

    return load_game("toy")


def _rewrite(src: Path, dst: Path, replace: dict[str, bytes], drop: tuple[str, ...] = ()):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            if item.filename in drop:
                continue
            zout.writestr(item.filename, replace.get(item.filename, zin.read(item)))


def _hostile_data(src: Path, marker: Path) -> bytes:
    """The zip's ``data`` JSON with every cloudpickled object replaced by the payload."""
    with zipfile.ZipFile(src) as z:
        data = json.loads(z.read("data"))
    payload = base64.b64encode(pickle.dumps(_CreatesFile(marker))).decode()
    n = 0
    for v in data.values():
        if isinstance(v, dict) and ":serialized:" in v:
            v[":serialized:"] = payload
            n += 1
    assert n >= 3  # policy_class, spaces, schedules...
    return json.dumps(data).encode()


def evaluate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LAUNCH, "evaluate.py", "--ruleset", "toy",
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_safe_load_plays_like_the_model(model_and_zip, toy_game):
    model, path = model_and_zip
    with zipfile.ZipFile(path) as z:
        cfg = json.loads(z.read(CONFIG_MEMBER))
    assert cfg["format"] == FORMAT and cfg["ruleset"] == "toy"
    assert cfg["net_arch"] == [16, 8] and cfg["activation_fn"] == "Tanh"
    assert cfg["observation_space"]["shape"] == [toy_game.observation_size]
    loaded = load_policy_model(path)
    assert type(loaded).__name__ == "LoadedPolicyModel"
    pol = MaskablePPOPolicy.load(path, toy_game)
    live = MaskablePPOPolicy(model)
    n = 0
    for _, _, obs, mask in random_decisions(toy_game, 5, seed=3):
        np.testing.assert_allclose(pol.logits(obs), live.logits(obs), rtol=1e-6, atol=1e-6)
        a, _ = loaded.predict(obs, action_masks=mask, deterministic=True)
        assert int(a) == pol.act(obs, mask) == live.act(obs, mask)
        n += 1
    assert n > 20


def test_plain_sb3_zip_is_refused_unless_trusted(model_and_zip, toy_game, tmp_path):
    _, path = model_and_zip
    plain = tmp_path / "plain.zip"
    _rewrite(path, plain, {}, drop=(CONFIG_MEMBER,))
    with pytest.raises(UnsafeCheckpointError, match="refusing checkpoint .*plain.zip.*"
                                                    "--trust-checkpoint"):
        make_agent(str(plain), toy_game, 0)
    pol = make_agent(str(plain), toy_game, 0, trust_checkpoint=True)
    assert type(pol.model).__name__ == "MaskablePPO"


@pytest.mark.slow
def test_hostile_zip_without_config_is_refused_and_runs_nothing(model_and_zip, tmp_path):
    _, path = model_and_zip
    marker = tmp_path / "pwned.txt"
    evil = tmp_path / "evil.zip"
    _rewrite(path, evil, {"data": _hostile_data(path, marker)}, drop=(CONFIG_MEMBER,))
    out = tmp_path / "eval.json"
    r = evaluate("--agents", str(evil), "random", "--games", "2", "--json", str(out))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: refusing checkpoint {str(evil)!r}: it has no {CONFIG_MEMBER} (not saved by "
        "Riposte's train.py), so loading it would unpickle objects stored in the file, which "
        "can run code; pass --trust-checkpoint only if you trust whoever made the file"]
    assert not marker.exists() and not out.exists()
    # the payload is live: trusting the file runs it (this is what the refusal prevents)
    r = evaluate("--agents", str(evil), "random", "--games", "2", "--trust-checkpoint")
    assert marker.exists()


def test_exploit_refuses_a_hostile_zip_before_any_training(model_and_zip, tmp_path):
    _, path = model_and_zip
    marker = tmp_path / "pwned.txt"
    evil = tmp_path / "evil.zip"
    _rewrite(path, evil, {"data": _hostile_data(path, marker)}, drop=(CONFIG_MEMBER,))
    r = subprocess.run([sys.executable, "-c", LAUNCH, "evaluate.py", "exploit", str(evil),
                        "--ruleset", "toy", "--timesteps", "64", "--games", "2"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines()[0].startswith(f"error: refusing checkpoint {str(evil)!r}")
    assert not marker.exists() and "training" not in r.stdout


@pytest.mark.slow
def test_hostile_data_beside_our_config_is_never_read(model_and_zip, tmp_path):
    _, path = model_and_zip
    marker = tmp_path / "pwned.txt"
    evil = tmp_path / "evil_with_config.zip"
    _rewrite(path, evil, {"data": _hostile_data(path, marker)})
    r = evaluate("--agents", str(evil), "random", "--games", "2")
    assert r.returncode == 0, r.stderr
    assert not marker.exists()


def test_hostile_weights_are_refused(model_and_zip, toy_game, tmp_path):
    _, path = model_and_zip
    marker = tmp_path / "pwned.txt"
    buf = io.BytesIO()
    import torch

    torch.save({"x": _CreatesFile(marker)}, buf)
    evil = tmp_path / "evil_weights.zip"
    _rewrite(path, evil, {"policy.pth": buf.getvalue()})
    with pytest.raises(AgentLoadError, match="policy.pth: it holds objects other than tensors"):
        make_agent(str(evil), toy_game, 0, trust_checkpoint=True)
    assert not marker.exists()


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.update(activation_fn="os.system"), "activation_fn 'os.system'"),
    (lambda c: c.update(net_arch=[16]), "does not fit the architecture"),
    (lambda c: c.update(net_arch="big"), "net_arch 'big'"),
    (lambda c: c.update(policy_class="Evil"), "policy_class 'Evil'"),
    (lambda c: c["observation_space"].update(dtype="object"), "bad space"),
    (lambda c: c.update(ruleset="acw_regimental"), "trained on ruleset 'acw_regimental'"),
    (lambda c: c.update(format="v0"), "is not a 'riposte-policy/1' config"),
])
def test_bad_config_is_one_clear_error(model_and_zip, toy_game, tmp_path, edit, message):
    _, path = model_and_zip
    with zipfile.ZipFile(path) as z:
        cfg = json.loads(z.read(CONFIG_MEMBER))
    edit(cfg)
    bad = tmp_path / "bad.zip"
    _rewrite(path, bad, {CONFIG_MEMBER: json.dumps(cfg).encode()})
    with pytest.raises(AgentLoadError, match=message) as info:
        MaskablePPOPolicy.load(bad, toy_game)
    assert "bad.zip" in str(info.value) and "\n" not in str(info.value)


def test_save_model_leaves_no_temporary_file(model_and_zip, tmp_path):
    model, _ = model_and_zip
    out = save_model(model, tmp_path / "sub" / "m.zip")
    assert sorted(os.listdir(out.parent)) == ["m.zip"]
    with zipfile.ZipFile(out) as z:
        assert CONFIG_MEMBER in z.namelist() and "ruleset" not in json.loads(
            z.read(CONFIG_MEMBER))


@pytest.mark.slow
def test_raw_pickle_weights_beside_our_config_are_one_line_and_run_nothing(model_and_zip,
                                                                           tmp_path):
    """A policy.pth that is a bare pickle (not torch's zip format), as someone hand-crafting
    a hostile file would write it: refused in one line (no torch warning), nothing runs."""
    _, path = model_and_zip
    marker = tmp_path / "pwned.txt"
    evil = tmp_path / "evil_raw.zip"
    _rewrite(path, evil, {"policy.pth": pickle.dumps(_CreatesFile(marker), protocol=4)})
    r = evaluate("--agents", str(evil), "random", "--games", "2")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: checkpoint {str(evil)!r}: cannot read policy.pth: it is not a torch weights "
        "file (damaged, or not saved by MaskablePPO)"]
    assert not marker.exists()
