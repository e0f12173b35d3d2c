"""Checkpoints that cannot run code.

A stable-baselines3 ``.zip`` keeps its spaces, schedules and policy class as *cloudpickled*
objects inside its ``data`` member: ``MaskablePPO.load`` unpickles them, which runs whatever
code the file's author put there. Riposte shares checkpoints to benchmark bots against each
other, so a checkpoint loaded for play — evaluation, ``exploit``, a training opponent, a pool
snapshot — is read without unpickling anything:

* the policy weights come from the zip's ``policy.pth`` with ``torch.load(weights_only=True)``
  (tensors only; torch refuses any other pickled object);
* the architecture, the observation / action spaces and the ruleset come from a JSON member of
  our own, :data:`CONFIG_MEMBER` (``riposte_policy.json``), written into the zip beside them by
  :func:`save_model` (``train.py`` saves every checkpoint, snapshot and final model with it);
* the network is rebuilt from that JSON with sb3-contrib's ``MaskableActorCriticPolicy`` (code
  installed on this machine, not code from the file) and the weights are loaded into it.

A zip without :data:`CONFIG_MEMBER` (saved by plain ``MaskablePPO.save``, another tool or an
older Riposte) could only be read by unpickling: :func:`load_policy_model` refuses it with
:class:`UnsafeCheckpointError` unless ``trust=True`` (the scripts' ``--trust-checkpoint``).
Resuming one's own training run (``train.py --resume``) still uses SB3's full loader, which is
needed for the optimizer and schedules.

Imports torch and sb3-contrib lazily (inside the functions).
"""

from __future__ import annotations

import io
import json
import math
import os
import warnings
import zipfile
from pathlib import Path
from typing import Any

from envs.core.files import input_file_problem

from .base import AgentLoadError

__all__ = ["CONFIG_MEMBER", "FORMAT", "LoadedPolicyModel", "UnsafeCheckpointError",
           "load_policy_model", "policy_config", "read_policy_config", "save_model"]

#: name of our JSON member inside a checkpoint zip
CONFIG_MEMBER = "riposte_policy.json"
#: value of its ``format`` key
FORMAT = "riposte-policy/1"
#: activation functions a config may name (``torch.nn`` class names)
ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU")
#: hint printed with a refusal
TRUST_HINT = "pass --trust-checkpoint only if you trust whoever made the file"


class UnsafeCheckpointError(AgentLoadError):
    """A checkpoint that could only be loaded by unpickling objects stored in it (which can run
    code): refused unless the caller trusts it. The message names the path."""


def _num(x: float) -> float | str:
    x = float(x)
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _space_config(space: Any) -> dict[str, Any]:
    import numpy as np
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.Box):
        low, high = np.asarray(space.low).ravel(), np.asarray(space.high).ravel()
        lo = _num(low[0]) if low.size and (low == low[0]).all() else [_num(v) for v in low]
        hi = _num(high[0]) if high.size and (high == high[0]).all() else [_num(v) for v in high]
        return {"type": "Box", "shape": [int(d) for d in space.shape],
                "dtype": str(space.dtype), "low": lo, "high": hi}
    raise AgentLoadError(f"cannot describe a {type(space).__name__} space in a checkpoint "
                         f"config (Box and Discrete only)")


def _space_from_config(cfg: Any, where: str) -> Any:
    import numpy as np
    from gymnasium import spaces

    try:
        if cfg["type"] == "Discrete":
            return spaces.Discrete(int(cfg["n"]), start=int(cfg.get("start", 0)))
        if cfg["type"] == "Box":
            shape = tuple(int(d) for d in cfg["shape"])
            dtype = np.dtype(str(cfg["dtype"]))
            if dtype.kind != "f":
                raise ValueError(f"dtype {dtype} is not a float type")

            def arr(v):
                return np.asarray([float(x) for x in v], dtype=dtype).reshape(shape) \
                    if isinstance(v, list) else np.full(shape, float(v), dtype=dtype)
            return spaces.Box(low=arr(cfg["low"]), high=arr(cfg["high"]), shape=shape,
                              dtype=dtype)
        raise ValueError(f"space type {cfg['type']!r} is not Box or Discrete")
    except (KeyError, TypeError, ValueError) as exc:
        what = f"no key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise AgentLoadError(f"{where}: bad space in {CONFIG_MEMBER}: {what}") from None


def policy_config(model: Any, game: Any | None = None) -> dict[str, Any]:
    """The JSON description of ``model``'s policy network that :func:`load_policy_model` needs:
    format, policy class, spaces, ``net_arch``, activation, feature-extractor options and (when
    ``game`` is given) the ruleset, scenario and sizes.

    Raises:
        AgentLoadError: for a policy this format cannot describe (not a plain
            ``MaskableActorCriticPolicy`` with a ``FlattenExtractor``).
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor

    pol = model.policy
    if type(pol).__name__ != "MaskableActorCriticPolicy":
        raise AgentLoadError(f"cannot describe policy class {type(pol).__name__} "
                             f"(MaskableActorCriticPolicy only)")
    if pol.features_extractor_class is not FlattenExtractor:
        raise AgentLoadError("cannot describe a custom features extractor (FlattenExtractor "
                             "only)")
    act = pol.activation_fn.__name__
    if act not in ACTIVATIONS:
        raise AgentLoadError(f"cannot describe activation {act} (one of {ACTIVATIONS})")
    arch = pol.net_arch
    arch = ({k: [int(v) for v in arch[k]] for k in ("pi", "vf")} if isinstance(arch, dict)
            else [int(v) for v in arch])
    cfg: dict[str, Any] = {
        "format": FORMAT,
        "policy_class": "MaskableActorCriticPolicy",
        "observation_space": _space_config(pol.observation_space),
        "action_space": _space_config(pol.action_space),
        "net_arch": arch,
        "activation_fn": act,
        "share_features_extractor": bool(pol.share_features_extractor),
        "normalize_images": bool(pol.normalize_images),
        "num_timesteps": int(getattr(model, "num_timesteps", 0)),
    }
    if game is not None:
        cfg.update(ruleset=game.ruleset_id, scenario=game.scenario_name,
                   observation_size=int(game.observation_size),
                   num_distinct_actions=int(game.num_distinct_actions))
    return cfg


def save_model(model: Any, path: str | Path, game: Any | None = None,
               extra: dict[str, bytes] | None = None) -> Path:
    """``model.save`` to ``path`` (a ``.zip``) plus our :data:`CONFIG_MEMBER` (and the
    ``extra`` members, ``{name: bytes}``: a checkpoint's resume state), through a
    temporary file and ``os.replace``: a crash or an interrupt never leaves a half-written
    checkpoint under the final name (the temporary file is removed).

    Raises:
        AgentLoadError: when the policy cannot be described (see :func:`policy_config`).
        OSError: when the file cannot be written.
    """
    path = Path(path)
    cfg = policy_config(model, game)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}.zip")
    try:
        model.save(str(tmp))
        with zipfile.ZipFile(tmp, "a") as zf:
            zf.writestr(CONFIG_MEMBER, json.dumps(cfg, indent=2, sort_keys=True))
            for name, data in (extra or {}).items():
                zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:  # named after the checkpoint, not its temporary file
        tmp.unlink(missing_ok=True)
        raise type(e)(e.errno, e.strerror or str(e), str(path)) from e
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def read_policy_config(path: str | Path) -> dict[str, Any] | None:
    """Our JSON member of the checkpoint at ``path``, or ``None`` when it has none.

    Raises:
        AgentLoadError: for a missing file, a directory, a file that is not a zip, a zip that
            holds neither our config nor SB3's members, or a config member that is not a JSON
            object of format :data:`FORMAT`.
    """
    p = Path(path)
    if p.is_dir():
        raise AgentLoadError(f"checkpoint {str(path)!r} is a directory, not a checkpoint file "
                             f"(.zip)")
    if input_file_problem(p) == "not a regular file":  # (/dev/zero: reading never ends)
        raise AgentLoadError(f"checkpoint {str(path)!r}: not a regular file")
    if not p.is_file():
        raise AgentLoadError(f"checkpoint not found: {str(path)!r}")
    if not os.path.isfile(path):  # 'a.zip/' or 'a.zip/.': Path() drops the tail, open() not
        raise AgentLoadError(f"checkpoint {str(path)!r} goes on after a file name as if it "
                             f"were a directory (drop what follows {p.name!r})")
    if not zipfile.is_zipfile(p):
        raise AgentLoadError(f"checkpoint {str(path)!r} is not a zip file (corrupt or wrong "
                             f"file)")
    try:
        with zipfile.ZipFile(p) as zf:
            names = zf.namelist()
            cfg = (json.loads(zf.read(CONFIG_MEMBER).decode("utf-8"))
                   if CONFIG_MEMBER in names else None)
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, ValueError) as exc:
        raise AgentLoadError(f"checkpoint {str(path)!r}: cannot read {CONFIG_MEMBER}: "
                             f"{exc}") from None
    if cfg is None:
        if "policy.pth" not in names and "data" not in names:
            raise AgentLoadError(f"checkpoint {str(path)!r} is not a MaskablePPO checkpoint: "
                                 f"no policy.pth in the zip (a damaged or cut-short file, or "
                                 f"another kind of zip)")
        return None
    if not isinstance(cfg, dict) or cfg.get("format") != FORMAT:
        raise AgentLoadError(f"checkpoint {str(path)!r}: {CONFIG_MEMBER} is not a "
                             f"{FORMAT!r} config")
    return cfg


class LoadedPolicyModel:
    """What :func:`load_policy_model` returns: enough of a ``MaskablePPO`` to play — the
    ``policy`` network (eval mode, CPU), its ``observation_space`` / ``action_space``, the
    ``config`` read from the file, ``num_timesteps`` and ``predict`` (as
    ``MaskablePPO.predict``)."""

    def __init__(self, policy: Any, config: dict[str, Any], path: str):
        self.policy = policy
        self.config = config
        self.path = path
        self.observation_space = policy.observation_space
        self.action_space = policy.action_space
        self.num_timesteps = int(config.get("num_timesteps", 0))

    def predict(self, observation: Any, state: Any = None, episode_start: Any = None,
                deterministic: bool = False, action_masks: Any = None):
        return self.policy.predict(observation, state, episode_start, deterministic,
                                   action_masks=action_masks)

    def __repr__(self) -> str:
        return f"LoadedPolicyModel({self.path!r})"


def load_policy_model(path: str | Path, trust: bool = False) -> Any:
    """The policy of the checkpoint at ``path``, read without unpickling (see the module
    docstring): a :class:`LoadedPolicyModel`; with ``trust=True`` a checkpoint without our
    config is loaded with ``MaskablePPO.load`` (which unpickles) and returned as is.

    Raises:
        UnsafeCheckpointError: for a checkpoint without :data:`CONFIG_MEMBER` and
            ``trust=False`` (names the path and ``--trust-checkpoint``).
        AgentLoadError: for a missing, corrupt or inconsistent file (names the path), including
            a ``policy.pth`` that holds anything but tensors.
    """
    cfg = read_policy_config(path)
    where = f"checkpoint {str(path)!r}"
    if cfg is None:
        if not trust:
            raise UnsafeCheckpointError(
                f"refusing {where}: it has no {CONFIG_MEMBER} (not saved by Riposte's "
                f"train.py), so loading it would unpickle objects stored in the file, which "
                f"can run code; {TRUST_HINT}")
        try:
            from sb3_contrib import MaskablePPO

            return MaskablePPO.load(str(path), device="cpu")
        except Exception as exc:  # noqa: BLE001 - any failure of the loader is a load error
            text = str(exc)
            why = ("its weights cannot be read (a damaged file, or not saved by MaskablePPO)"
                   if "Weights only load failed" in text
                   else f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}")
            raise AgentLoadError(f"cannot load MaskablePPO {where}: {why}") from None

    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if cfg.get("policy_class") != "MaskableActorCriticPolicy":
        raise AgentLoadError(f"{where}: policy_class {cfg.get('policy_class')!r} is not "
                             f"MaskableActorCriticPolicy")
    act = cfg.get("activation_fn")
    if act not in ACTIVATIONS:
        raise AgentLoadError(f"{where}: activation_fn {act!r} is not one of {ACTIVATIONS}")
    obs_space = _space_from_config(cfg.get("observation_space"), where)
    act_space = _space_from_config(cfg.get("action_space"), where)
    arch = cfg.get("net_arch")
    ok_list = isinstance(arch, list) and all(isinstance(v, int) and v > 0 for v in arch)
    ok_dict = isinstance(arch, dict) and set(arch) == {"pi", "vf"} and all(
        isinstance(arch[k], list) and all(isinstance(v, int) and v > 0 for v in arch[k])
        for k in arch)
    if not (ok_list or ok_dict):
        raise AgentLoadError(f"{where}: net_arch {arch!r} is not a list of layer sizes or "
                             f"{{'pi': [...], 'vf': [...]}}")
    try:
        with zipfile.ZipFile(path) as zf:
            raw = zf.read("policy.pth")
    except KeyError:
        raise AgentLoadError(f"{where} has no policy.pth (not a MaskablePPO checkpoint)") \
            from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise AgentLoadError(f"{where}: cannot read policy.pth: {exc}") from None
    try:
        with warnings.catch_warnings():  # torch warns about foreign pickle protocols: the
            warnings.simplefilter("ignore")  # refusal below is the one line the user gets
            weights = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises UnpicklingError, RuntimeError, ...
        text = str(exc)
        why = ("it holds objects other than tensors (refused: reading them would run code)"
               if "Unsupported global" in text else
               "it is not a torch weights file (damaged, or not saved by MaskablePPO)")
        raise AgentLoadError(f"{where}: cannot read policy.pth: {why}") from None
    if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor)
                                                for v in weights.values()):
        raise AgentLoadError(f"{where}: policy.pth is not a dict of tensors")
    policy = MaskableActorCriticPolicy(
        obs_space, act_space, lambda _: 0.0, net_arch=arch,
        activation_fn=getattr(torch.nn, act), ortho_init=False,
        share_features_extractor=bool(cfg.get("share_features_extractor", True)),
        normalize_images=bool(cfg.get("normalize_images", True)))
    try:
        policy.load_state_dict(weights, strict=True)
    except RuntimeError as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise AgentLoadError(f"{where}: policy.pth does not fit the architecture in "
                             f"{CONFIG_MEMBER}: {first}") from None
    policy.set_training_mode(False)
    return LoadedPolicyModel(policy, cfg, str(path))


# -- resuming one's own run (SB3's full loader is allowed here) -------------------------------
def load_newest_checkpoint(ckpts: list[tuple[int, Path]], load: Any) -> tuple[Any, Path,
                                                                             list[str]]:
    """``(model, path, skipped)``: ``load(path)`` of the newest of ``ckpts`` (``(timesteps,
    path)`` sorted oldest first) that loads; ``skipped`` says, one line each, which newer ones
    failed and why (a file cut short by a crash, a damaged zip).

    Raises:
        AgentLoadError: when none loads (names each file and why).
    """
    skipped: list[str] = []
    for _, path in reversed(ckpts):
        try:
            return load(path), path, skipped
        except Exception as exc:  # noqa: BLE001 - any failure of the loader: try the previous
            text = str(exc).splitlines()[0] if str(exc) else ""
            if "Weights only load failed" in str(exc):
                text = "its weights cannot be read"
            skipped.append(f"skipped checkpoint {str(path)!r}: {type(exc).__name__}: {text}")
    raise AgentLoadError("no checkpoint loads: " + "; ".join(s.removeprefix("skipped ")
                                                             for s in skipped))


def purge_tensorboard_after(tb_dir: str | Path, run_name: str, steps: int) -> Path | None:
    """Before a resumed run logs again after ``steps`` (the checkpoint's timesteps): write a
    TensorBoard purge marker (``SummaryWriter(purge_step=steps + 1)``) into the run's newest
    ``<run_name>_<n>`` directory (the one SB3 continues with ``reset_num_timesteps=False``),
    so TensorBoard drops what the interrupted run logged *after* the checkpoint and no step
    appears twice. The checkpoint step's own scalars stay: the resumed run never logs that
    step again (its first rollout ends one rollout later). Returns that directory (``None``
    when there is none yet)."""
    root = Path(tb_dir)
    runs = sorted((int(p.name.rsplit("_", 1)[1]), p) for p in root.glob(f"{run_name}_*")
                  if p.is_dir() and p.name.rsplit("_", 1)[1].isdigit()) if root.is_dir() else []
    if not runs:
        return None
    from torch.utils.tensorboard import SummaryWriter

    SummaryWriter(log_dir=str(runs[-1][1]), purge_step=int(steps) + 1).close()
    return runs[-1][1]
