"""The checkpoint duty of the training callback
(:class:`~agents.training.callbacks.SelfPlayCallback`): at the first rollout boundary after every
``checkpoint_freq`` timesteps, ``run_dir/checkpoints/ckpt_<timesteps>.zip`` with the resume state
inside (every generator and env state, :mod:`agents.training.resume`; only at a boundary is the
rollout buffer empty, so only there is resuming exact) and ``run_dir/pool.json``, keeping the last
``keep_checkpoints``. Beside each checkpoint, the policy checkpoint selection kept at that
moment (``run_dir/.kept/``), so that a resumed run can undo what an interrupted one wrote after
its checkpoint (:meth:`CheckpointDuty.discard_after`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from envs.core.files import atomic_write_bytes, same_file, signals_held

from .evaluations import metrics_before, sha256_of, write_metrics
from .selection import PENDING_MEMBER
from .vec_env import in_process_envs


class CheckpointDuty:
    """Checkpoints and the policies they keep, a part of
    :class:`~agents.training.callbacks.SelfPlayCallback` (which holds ``run_dir``, ``pool``,
    ``kept_dir`` and the kept-best record ``best``)."""

    run_dir: Path
    kept_dir: Path
    best: dict[str, Any] | None

    def kept_path(self, steps: int) -> Path:
        """``run_dir/.kept/ckpt_<steps, 10 digits>.zip``: the kept policy (``best_model.zip``)
        as it was when the checkpoint ``checkpoints/ckpt_<steps>.zip`` was written (a hard
        link where the file system allows it; deleted with that checkpoint)."""
        return self.kept_dir / f"ckpt_{int(steps):010d}.zip"


    def discard_after(self, steps: int) -> None:
        """Undo what an interrupted run wrote after the checkpoint of ``steps`` timesteps that
        this run resumes from: ``best_model.zip`` is put back to the policy the checkpoint's
        kept-best record names (from :meth:`kept_path`; removed when the record names none)
        and the ``metrics.csv`` rows of later timesteps are dropped. A record without a
        digest (a checkpoint of an older Riposte) leaves ``best_model.zip`` as it is.

        Raises:
            AgentError: when ``best_model.zip`` holds another policy and the checkpoint's copy
                of the kept one is gone or differs.
        """
        from ..policies.base import AgentError

        best = self.run_dir / "best_model.zip"
        if self.best is None:
            best.unlink(missing_ok=True)
        elif self.best.get("sha256") and (not best.is_file() or
                                          sha256_of(best) != self.best["sha256"]):
            kept = self.kept_path(steps)
            if not kept.is_file() or sha256_of(kept) != self.best["sha256"]:
                raise AgentError(f"the checkpoint kept the policy of "
                                 f"{int(self.best['timesteps'])} timesteps, but "
                                 f"{str(best)!r} holds another one and the checkpoint's copy "
                                 f"{str(kept)!r} is {'changed' if kept.is_file() else 'gone'}")
            atomic_write_bytes(best, kept.read_bytes())
        path = self.run_dir / "metrics.csv"
        if path.is_file():
            fields, rows = metrics_before(path, steps + 1)
            write_metrics(path, fields, rows)


    def save_checkpoint(self, steps: int) -> Path:
        """Write the model with its resume state
        (:func:`agents.training.resume.capture_training_state`; call it at a rollout boundary) and
        the pool state; prune old checkpoints."""
        from ..policies.checkpoint import save_model
        from .resume import RESUME_MEMBER, capture_training_state

        ckdir = self.run_dir / "checkpoints"
        self.pool.save(self.run_dir / "pool.json")
        if self.best is not None:  # before the checkpoint that needs it (discard_after)
            _link_or_copy(self.run_dir / "best_model.zip", self.kept_path(steps))
        extra = {}
        if in_process_envs(self.training_env):  # (--vec-env subproc: no exact resume)
            extra[RESUME_MEMBER] = capture_training_state(self.model, self.training_env,
                                                          self.pool, self)
        pending = [int(r["timesteps"]) for r in self.pending_evaluations()]
        extra[PENDING_MEMBER] = json.dumps(pending).encode()
        path = save_model(self.model, ckdir / f"ckpt_{steps:010d}.zip", self.game,
                          extra=extra)
        old = sorted(p for p in ckdir.glob("ckpt_*.zip") if not p.name.startswith("."))
        for p in old[:-self.keep_checkpoints]:
            p.unlink(missing_ok=True)
        for p in self.kept_dir.glob("ckpt_*.zip"):  # the kept policies of checkpoints deleted
            if not (ckdir / p.name).is_file():
                p.unlink(missing_ok=True)
        self._prune_candidates()
        return path



def _link_or_copy(src: Path, dst: Path) -> None:
    """Make ``dst`` hold ``src``'s bytes, replacing it atomically: a hard link (no copy; the
    kept file is replaced, never modified in place, so the link keeps the old bytes), or a
    copy where the file system has no hard links.

    No temporary file survives: when ``dst`` is already a link to ``src`` (a second checkpoint
    at the same timesteps, e.g. an interrupt right after a scheduled one) nothing is done —
    ``os.replace`` between two links of one file does nothing and would leave the temporary
    link behind — and the link and its rename happen with SIGINT / SIGTERM held
    (:func:`envs.core.files.signals_held`), the temporary link removed on any failure.

    Raises:
        OSError: when neither a link nor a copy can be written (``dst`` is left as it was).
    """
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists() and same_file(src, dst):
        return
    tmp = dst.with_name(f".{dst.name}.tmp{os.getpid()}")
    with signals_held():
        tmp.unlink(missing_ok=True)
        try:
            os.link(src, tmp)
        except OSError:
            linked = False
        else:
            linked = True
            try:
                os.replace(tmp, dst)
            finally:
                tmp.unlink(missing_ok=True)  # (a no-op rename left it; a failed one too)
    if not linked:
        atomic_write_bytes(dst, src.read_bytes())
