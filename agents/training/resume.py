"""Exact resume: every generator and env state a training run needs to continue as if it had
never stopped, saved inside each checkpoint and restored by ``train.py --resume``.

What is captured (:func:`capture_training_state`), at a *rollout boundary* — after a PPO update
and before the next rollout is collected, where SB3's rollout buffer is empty, so nothing of
it needs saving:

* the global generators: python ``random``, numpy's legacy global state (SB3 shuffles the
  minibatches with it) and torch's CPU generator (the learner's action sampling);
* SB3's own loop state: ``_last_obs`` and ``_last_episode_starts`` (what the next rollout
  starts from; the loader would otherwise reset the envs);
* every env of the training VecEnv mid-episode: the game state (pickled; states pickle, see
  ``State.__getstate__``), the env's generators (chance, seat, random opponent, pool draws,
  opponent seeds), its counters, the opponent it is playing, and the ``Monitor``'s running
  episode;
* the opponent pool: its state dict (snapshot list, pick counts, the league's PFSP results),
  the seed sequence its snapshot policies are seeded from and the generator of every opponent
  policy (the live ``latest``, the bots, the cached snapshots, and any snapshot an env still
  plays after the cache dropped it);
* with pipelined updates (:mod:`agents.training.pipelined`), the update in flight: its request (the
  rollout it updates on, the weights and optimizer state it starts from, its shuffle seed),
  submitted again on resume;
* the training callback's kept-best record (``best_model.zip`` selection) and the background
  evaluations still pending (their candidates stay in ``run_dir/.evaluations/``).

The state is one pickle (:data:`RESUME_MEMBER`) inside the checkpoint zip, written with it in
one atomic ``os.replace``, so the model and its generators can never come from different
moments. It is read only when resuming one's own run (like SB3's full loader, which that
needs anyway); loading a checkpoint *for play* never reads it (see
:mod:`agents.policies.checkpoint`).
The game objects are not pickled: they are referenced and rebound to the resuming run's own.

Imports torch lazily.
"""

from __future__ import annotations

import io
import pickle
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..policies.base import AgentLoadError

__all__ = ["RESUME_MEMBER", "FORMAT", "capture_training_state", "load_training_state",
           "read_training_state", "restore_training_state"]

#: name of the pickled training state inside a checkpoint zip
RESUME_MEMBER = "riposte_resume.pkl"
#: value of its ``format`` key
FORMAT = "riposte-resume/1"
#: ``RiposteGymEnv`` attributes that are configuration or live objects, not episode state
_ENV_EXCLUDE = frozenset({"game", "observation_space", "action_space", "_opponent_spec",
                          "_policy", "_opponent_obj", "_mask", "render_mode", "_extra_opps",
                          "_seat_policy"})
#: ``Monitor`` attributes of the running episode
_MONITOR_KEYS = ("rewards", "needs_reset", "total_steps")


def _envs(venv: Any) -> list[Any]:
    """The in-process envs of ``venv`` (through VecEnv wrappers such as ``TimedVecEnv``)."""
    v = venv
    while not hasattr(v, "envs"):
        inner = getattr(v, "venv", None)
        if inner is None:
            raise AgentLoadError(f"cannot checkpoint the envs of {type(venv).__name__}: "
                                 f"exact resume needs in-process envs (DummyVecEnv)")
        v = inner
    return list(v.envs)


def _monitor(env: Any) -> Any:
    e = env
    while e is not None and not all(hasattr(e, k) for k in _MONITOR_KEYS):
        e = getattr(e, "env", None)
    return e


def _opponents(pool: Any, envs: list[Any]) -> list[tuple[str, str | None, Any]]:
    """``(kind, key, policy)`` of every opponent object the pool and the envs hold, each
    once: ``("latest", None, p)``, ``("bot", name, p)``, ``("cached", path, p)`` (in the LRU
    order of the pool's snapshot cache) and ``("held", path, p)`` (a snapshot an env plays
    that is no longer cached)."""
    out: list[tuple[str, str | None, Any]] = []
    if getattr(pool, "_latest", None) is not None:
        out.append(("latest", None, pool._latest))
    out += [("bot", n, b) for n, b in getattr(pool, "_bots", {}).items()]
    out += [("cached", p, pol) for p, pol in getattr(pool, "_cache", {}).items()]
    known = {id(o) for _, _, o in out}
    for env in envs:
        for opp in _env_opponents(env.unwrapped):
            if opp is None or id(opp) in known:
                continue
            path = getattr(getattr(opp, "model", None), "path", None)
            if path is None:
                raise AgentLoadError(f"cannot checkpoint opponent {opp!r}: it is not a member "
                                     f"of the training pool")
            out.append(("held", str(path), opp))
            known.add(id(opp))
    return out


def _env_opponents(core: Any) -> list[Any]:
    """The opponent objects an env plays: the main one, then (3+ sides) each further seat's."""
    return [core.opponent] + [o for o, _ in getattr(core, "_extra_opps", None) or ()]


class _Pickler(pickle.Pickler):
    def __init__(self, fh: Any, games: dict[int, int]):
        super().__init__(fh, protocol=pickle.HIGHEST_PROTOCOL)
        self._games = games

    def persistent_id(self, obj: Any) -> Any:
        i = self._games.get(id(obj))
        return None if i is None else ("game", i)


class _Unpickler(pickle.Unpickler):
    def __init__(self, fh: Any, games: list[Any]):
        super().__init__(fh)
        self._games = games

    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "game" \
                and 0 <= pid[1] < len(self._games):
            return self._games[pid[1]]
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")


def capture_training_state(model: Any, venv: Any, pool: Any, callback: Any = None) -> bytes:
    """The pickled training state of the module docstring (call it at a rollout boundary).

    Raises:
        AgentLoadError: when the VecEnv does not run its envs in this process, or an env plays
            an opponent that is not a pool member.
    """
    import torch

    envs = _envs(venv)
    games = {id(e.unwrapped.game): i for i, e in enumerate(envs)}
    opponents = _opponents(pool, envs)
    index = {id(o): i for i, (_, _, o) in enumerate(opponents)}
    env_states = []
    for e in envs:
        core, mon = e.unwrapped, _monitor(e)
        opp = core.opponent
        env_states.append({
            "env": {k: v for k, v in vars(core).items() if k not in _ENV_EXCLUDE},
            "opponent": None if opp is None else index[id(opp)],
            # games of 3+ sides: the further opponent seats' objects (None: built-in random)
            "extra": None if getattr(core, "_extra_opps", None) is None else
            [None if o is None else index[id(o)] for o, _ in core._extra_opps],
            "monitor": None if mon is None else {k: getattr(mon, k) for k in _MONITOR_KEYS},
        })
    state = {
        "format": FORMAT,
        "num_timesteps": int(model.num_timesteps),
        "rng": {"python": random.getstate(), "numpy": np.random.get_state(),
                "torch": torch.get_rng_state().numpy().copy()},
        "sb3": {"_last_obs": model._last_obs, "_last_episode_starts":
                model._last_episode_starts},
        "envs": env_states,
        "opponents": [(kind, key, getattr(o, "rng", None)) for kind, key, o in opponents],
        "pool": {"state_dict": pool.state_dict(),
                 "snap_seed": getattr(pool, "_snap_seed", None)},
        # pipelined updates: the update in flight (its request: rollout, weights, seed)
        "pipeline": getattr(getattr(model, "update_worker", None), "pending", None),
        "callback": {"best": getattr(callback, "best", None),
                     "pending": (callback.pending_evaluations()
                                 if hasattr(callback, "pending_evaluations") else [])},
    }
    buf = io.BytesIO()
    _Pickler(buf, games).dump(state)
    return buf.getvalue()


def _restore_pending_update(model: Any, request: dict[str, Any] | None) -> None:
    """The update a pipelined run had in flight at the checkpoint: submitted again to the
    model's update worker (the resumed run then continues exactly), or, when this run does not
    pipeline its updates, run here at once (the model then holds its result; the global
    generators are left as they were)."""
    if request is None:
        return
    worker = getattr(model, "update_worker", None)
    if worker is not None:
        worker.submit(request)
        return
    from ..policies.ppo import quiet_logger

    from .selection import global_generators_kept
    from .pipelined import run_request

    had_logger = "_logger" in vars(model)  # (learn() sets up the run's own logger later)
    saved_logger = vars(model).get("_logger")
    model._logger = quiet_logger()
    try:
        with global_generators_kept():
            run_request(model, request)  # trains this model in place
    finally:
        if had_logger:
            model._logger = saved_logger
        else:
            del model._logger


def read_training_state(path: str | Path) -> bytes | None:
    """The :data:`RESUME_MEMBER` of the checkpoint at ``path``, or ``None`` when it has none
    (a checkpoint of an older Riposte: resumed with fresh generators).

    Raises:
        AgentLoadError: when the file is not a readable zip.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            if RESUME_MEMBER not in zf.namelist():
                return None
            return zf.read(RESUME_MEMBER)
    except (OSError, zipfile.BadZipFile) as exc:
        raise AgentLoadError(f"checkpoint {str(path)!r}: cannot read {RESUME_MEMBER}: "
                             f"{exc}") from None


def load_training_state(blob: bytes, venv: Any, where: str = "checkpoint") -> dict[str, Any]:
    """Unpickle and check a :data:`RESUME_MEMBER` for the envs of ``venv`` (their games are
    rebound, not copied).

    Raises:
        AgentLoadError: for a damaged member, a state of another format or of another number
            of envs (names ``where``).
    """
    envs = _envs(venv)
    try:
        state = _Unpickler(io.BytesIO(blob), [e.unwrapped.game for e in envs]).load()
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a damaged member
        raise AgentLoadError(f"{where}: cannot read {RESUME_MEMBER}: {type(exc).__name__}: "
                             f"{exc}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise AgentLoadError(f"{where}: {RESUME_MEMBER} is not a {FORMAT!r} state")
    if len(state["envs"]) != len(envs):
        raise AgentLoadError(f"{where}: saved with {len(state['envs'])} envs, resuming with "
                             f"{len(envs)}")
    return state


def restore_training_state(state: dict[str, Any], model: Any, venv: Any, pool: Any,
                           callback: Any = None, where: str = "checkpoint") -> None:
    """Put a state of :func:`load_training_state` back: call it after the model is loaded,
    the pool built and its live model set (``pool.set_latest``), and right before
    ``model.learn`` (nothing may draw from the global generators in between).

    Raises:
        AgentLoadError: for a pool state that does not load, or a snapshot file it needs that
            is gone (names ``where``).
        AgentError: a background evaluation the state left pending needs a candidate file
            that is gone
            (:meth:`agents.training.callbacks.SelfPlayCallback.check_restored_pending`).
    """
    import torch

    from ..policies.ppo import MaskablePPOPolicy

    envs = _envs(venv)
    # the pool first (snapshot list, league results), then its policies' generators
    pool.load_state_dict(state["pool"]["state_dict"], where=where)
    if state["pool"]["snap_seed"] is not None:
        pool._snap_seed = state["pool"]["snap_seed"]
    objs: list[Any] = []
    pool._cache.clear()
    for kind, key, rng in state["opponents"]:
        if kind == "latest":
            obj = pool._latest
        elif kind == "bot":
            obj = pool._bots[key]
        else:
            key = pool.relocate(key)  # (a moved or copied run directory)
            exploiter = key in getattr(pool, "exploiters", ())
            if not Path(key).is_file():
                raise AgentLoadError(f"{where}: {'exploiter' if exploiter else 'snapshot'} "
                                     f"{key!r} the run was playing is gone")
            obj = (pool.load_exploiter(key) if exploiter else MaskablePPOPolicy.load(
                key, pool.game, deterministic=False, name=f"snapshot:{Path(key).stem}"))
            if kind == "cached":
                pool._cache[key] = obj
        if rng is not None and obj is not None:
            obj.rng = rng
        objs.append(obj)
    for e, saved in zip(envs, state["envs"]):
        core = e.unwrapped
        core.__dict__.update(saved["env"])
        core._use_opponent(None if saved["opponent"] is None else objs[saved["opponent"]])
        extra = saved.get("extra")
        core._extra_opps = None if extra is None else [
            core._policy_of(None if i is None else objs[i]) for i in extra]
        core._seat_policy = {}
        if core._extra_opps is not None and getattr(core, "learner", None) is not None:
            n = core.game.num_players  # as reset() seats them
            others = [(core.learner + k) % n for k in range(1, n)]
            core._seat_policy = dict(zip(others, [core._policy] +
                                         [p for _, p in core._extra_opps]))
        core._mask = None
        mon = _monitor(e)
        if mon is not None and saved["monitor"] is not None:
            for k, v in saved["monitor"].items():
                setattr(mon, k, v)
    model._last_obs = state["sb3"]["_last_obs"]
    model._last_episode_starts = state["sb3"]["_last_episode_starts"]
    _restore_pending_update(model, state.get("pipeline"))
    if callback is not None:
        callback.best = state["callback"]["best"]
        # background evaluations the checkpoint left pending: played again at the start
        callback.restored_pending = list(state["callback"].get("pending", []))
        check = getattr(callback, "check_restored_pending", None)
        if check is not None:
            check()
    rng = state["rng"]
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])
    torch.set_rng_state(torch.from_numpy(np.asarray(rng["torch"], dtype=np.uint8)))
