"""The vectorised self-play env of ``train.py`` and a VecEnv wrapper that times ``env.step``.

Imports gymnasium and stable-baselines3 (not needed by the rest of :mod:`agents` at import
time).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecEnvWrapper

from .league.pfsp import OpponentTag


VEC_ENVS = ("dummy", "subproc")


def make_vec_env(ruleset: str, scenario: str | None, opponent: Any, n_envs: int = 1,
                 max_decisions: int | None = None, shaped_reward: bool = False,
                 params: Mapping[str, Any] | None = None, vec_env: str = "dummy") -> VecEnv:
    """``n_envs`` ``RiposteGymEnv`` (seat drawn every episode, ``opponent`` a policy or an
    :class:`~agents.training.league.selfplay.OpponentPool`, no label lists in ``info``), each in an
    :class:`~agents.training.league.pfsp.OpponentTag` (``info["opponent"]``) and a ``Monitor``.

    ``vec_env="dummy"``: all in this process, in one :class:`RolloutVecEnv` (what training
    uses). ``"subproc"``: one process each (``SubprocVecEnv``, forkserver); every process gets
    its own copy of ``opponent`` at construction, so an opponent pool's later changes (latest
    weights, snapshots) do not reach them — only for measuring env throughput.

    Raises:
        ValueError: for a ``vec_env`` that is not one of :data:`VEC_ENVS`.
    """
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env {vec_env!r} is not one of {VEC_ENVS}")
    from envs.adapters.single_agent import RiposteGymEnv

    def make():
        return Monitor(OpponentTag(RiposteGymEnv(
            ruleset=ruleset, scenario=scenario, params=params, seat="random", opponent=opponent,
            max_decisions=max_decisions, shaped_reward=shaped_reward, info_labels=False)))

    if vec_env == "subproc":
        return SubprocVecEnv([make for _ in range(n_envs)])
    return RolloutVecEnv([make for _ in range(n_envs)])


class RolloutVecEnv(DummyVecEnv):
    """``DummyVecEnv`` for training: the same steps, observations, rewards and dones, with two
    per-step costs removed.

    * ``step_wait`` hands out the list of the envs' own ``info`` dicts (a shallow copy) instead
      of a ``deepcopy`` of them: every ``RiposteGymEnv.step``/``reset`` builds fresh dicts, so
      nothing is shared between steps.
    * ``env_method("action_masks")`` (what MaskablePPO calls before every step) asks the
      unwrapped envs directly instead of walking the wrapper chain by attribute lookup.
    """

    def step_wait(self):
        for i, env in enumerate(self.envs):
            obs, self.buf_rews[i], terminated, truncated, info = env.step(self.actions[i])
            self.buf_dones[i] = done = terminated or truncated
            info["TimeLimit.truncated"] = truncated and not terminated
            if done:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = env.reset()
            self.buf_infos[i] = info
            self._save_obs(i, obs)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                list(self.buf_infos))

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return [env.unwrapped.action_masks() for env in self._get_target_envs(indices)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)


class TimedVecEnv(VecEnvWrapper):
    """Pass-through VecEnv wrapper that adds up the time spent inside the wrapped env:
    ``step`` (which includes the opponents' decisions and chance), ``reset`` and the
    ``action_masks`` calls. ``env_seconds`` is the total wall time (``time.perf_counter``),
    ``env_cpu_seconds`` the CPU time of this process in those calls (``time.process_time``;
    with envs in other processes that is only the pipes' side of it, see
    :meth:`worker_cpu_seconds`)."""

    def __init__(self, venv: VecEnv):
        super().__init__(venv)
        self.env_seconds = 0.0
        self.env_cpu_seconds = 0.0
        self.env_steps = 0

    def _add(self, t: float, c: float) -> None:
        self.env_seconds += time.perf_counter() - t
        self.env_cpu_seconds += time.process_time() - c

    def reset(self):
        t, c = time.perf_counter(), time.process_time()
        obs = self.venv.reset()
        self._add(t, c)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        t, c = time.perf_counter(), time.process_time()
        self.venv.step_async(actions)
        self._add(t, c)

    def step_wait(self):
        t, c = time.perf_counter(), time.process_time()
        out = self.venv.step_wait()
        self._add(t, c)
        self.env_steps += self.num_envs
        return out

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        t, c = time.perf_counter(), time.process_time()
        out = self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        self._add(t, c)
        return out

    def worker_cpu_seconds(self) -> float:
        """CPU seconds (user + system) used so far by the env worker processes of a wrapped
        ``SubprocVecEnv`` (read from ``/proc/PID/stat``; call before ``close``); 0.0 for
        in-process envs, NaN where ``/proc`` cannot be read."""
        procs = getattr(self.venv, "processes", None) or []
        total = 0.0
        for proc in procs:
            try:
                with open(f"/proc/{proc.pid}/stat", encoding="ascii") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, ValueError, IndexError):
                return float("nan")
        return total


def in_process_envs(venv: VecEnv) -> bool:
    """True when the envs of ``venv`` (through VecEnv wrappers) live in this process (a
    ``DummyVecEnv`` such as :class:`RolloutVecEnv`), which exact resume needs."""
    return envs_in_process(venv) is not None


def envs_in_process(venv: VecEnv) -> list[Any] | None:
    """The envs of ``venv`` (through VecEnv wrappers) when they live in this process (a
    ``DummyVecEnv``), else None."""
    v = venv
    while not hasattr(v, "envs"):
        v = getattr(v, "venv", None)
        if v is None:
            return None
    return list(v.envs)
