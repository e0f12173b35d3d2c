"""Self-play opponent pool: the latest policy, past snapshots and scripted bots.

``RiposteGymEnv(opponent=pool)`` calls ``pool.sample_opponent(rng)`` at every reset (with the
env's own generator). The pool first draws a *category* with the configured weights (categories
that are empty are dropped and the rest renormalised), then a member uniformly:

* ``latest``   — the model being trained, sampling from its masked policy (not arg-max);
* ``snapshot`` — a frozen past copy, one of the last ``max_snapshots`` saved (Bot Bowl's window
  of past snapshots), loaded lazily and cached;
* ``bot``      — one of the scripted bots (``random``, ``heuristic``, ``never-react``,
  ``always-react``; or checkpoint paths), drawn with per-bot weights given as ``name:weight``
  (``heuristic:3``; default 1).

Snapshots are written atomically (temporary file + ``os.replace``) to ``snapshot_dir`` and the
pool's state (snapshot list, weights, pick counts) round-trips through JSON so a resumed run
gets the same pool back.
"""

from __future__ import annotations

import json
import math
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.files import atomic_write_text
from envs.core.protocol import Game

from ...builtin import BUILTIN_AGENTS, make_agent
from ...policies.checkpoint import save_model
from ...policies.base import AgentError, SeedLike
from ...policies.ppo import MaskablePPOPolicy

CATEGORIES = ("latest", "snapshot", "bot")


def atomic_save_model(model: Any, path: str | Path, game: Game | None = None) -> Path:
    """``model.save`` to ``path`` (a ``.zip``) with Riposte's policy config inside, through a
    temporary file and ``os.replace`` (see :func:`agents.policies.checkpoint.save_model`), so a
    crash never leaves a half-written checkpoint under the final name."""
    return save_model(model, path, game)


def relocated(path: str, folder: str | Path | None) -> str:
    """The file a path recorded by a run names now: the file of ``path``'s name in ``folder``
    (the run's own snapshot or exploiter folder, where the run saved it) when ``folder`` is
    given, else ``path``.

    A run directory that was moved or copied keeps the old paths in its pool state and
    checkpoints. Only its own folder counts, whether or not the file is there: a copy never
    reads (or comes to depend on) the original's files, a moved run finds its files where
    they are now, and a file missing from the run is reported where it belongs."""
    return path if folder is None else str(Path(folder) / Path(path).name)


def parse_bot_spec(spec: str) -> tuple[str, float]:
    """``"heuristic:2"`` -> ``("heuristic", 2.0)``; a spec without a numeric ``:weight``
    suffix has weight 1.

    Raises:
        AgentError: for a weight that is negative or not finite, or a built-in bot name
            followed by a ``:weight`` that is not a number.
    """
    name, sep, tail = str(spec).rpartition(":")
    if sep:
        try:
            w = float(tail)
        except ValueError:
            if name in BUILTIN_AGENTS:
                raise AgentError(f"opponent pool bot {spec!r}: weight {tail!r} is not a "
                                 f"number (NAME:WEIGHT, e.g. {name}:2)") from None
            return str(spec), 1.0
        if not 0.0 <= w < math.inf:
            raise AgentError(f"opponent pool bot {spec!r}: weight must be finite and >= 0")
        return name, w
    return str(spec), 1.0


@dataclass(slots=True)
class PoolWeights:
    """Sampling weights of the three categories (need not sum to 1)."""

    latest: float = 0.5
    snapshot: float = 0.3
    bot: float = 0.2

    def as_dict(self) -> dict[str, float]:
        return {"latest": self.latest, "snapshot": self.snapshot, "bot": self.bot}


@dataclass
class OpponentPool:
    """Opponents for self-play training.

    Args:
        game: the game (bots read its action labels and observation layout).
        bots: built-in bot names (see :func:`agents.make_agent`).
        weights: category sampling weights.
        max_snapshots: size of the window of recent snapshots that is sampled.
        snapshot_dir: where :meth:`add_snapshot` writes ``snapshot_<steps>.zip``.
        seed: seed of the bots' own generators.
        trust_checkpoints: bots given as checkpoint paths may be loaded by unpickling (see
            :mod:`agents.policies.checkpoint`); the pool's own snapshots never need it.

    Raises:
        AgentError: for a negative weight, all-zero weights, or an unknown bot name.
    """

    game: Game
    bots: tuple[str, ...] = ("random", "heuristic", "never-react", "always-react")
    weights: PoolWeights = field(default_factory=PoolWeights)
    max_snapshots: int = 10
    snapshot_dir: str | Path | None = None
    seed: SeedLike = 0
    snapshots: list[str] = field(default_factory=list)
    picks: Counter = field(default_factory=Counter)
    trust_checkpoints: bool = False

    def __post_init__(self) -> None:
        w = self.weights.as_dict()
        if any(v < 0 for v in w.values()) or sum(w.values()) <= 0:
            raise AgentError(f"opponent pool weights must be >= 0 and not all zero, got {w}")
        self.bots = tuple(self.bots)
        parsed = [parse_bot_spec(b) for b in self.bots]
        names = [n for n, _ in parsed]
        if len(set(names)) != len(names):
            raise AgentError(f"opponent pool bots must be distinct, got {names}")
        self._bot_names = names
        total = sum(w for _, w in parsed)
        self._bot_p = [w / total for _, w in parsed] if total > 0 else []
        root = (self.seed if isinstance(self.seed, np.random.SeedSequence)
                else np.random.SeedSequence(self.seed))
        *seeds, self._snap_seed = root.spawn(len(self.bots) + 1)
        self._bots = {n: make_agent(n, self.game, s, trust_checkpoint=self.trust_checkpoints)
                      for n, s in zip(names, seeds)}
        self._latest: Any = None
        self._cache: OrderedDict[str, MaskablePPOPolicy] = OrderedDict()

    # -- members ----------------------------------------------------------------------------
    def set_latest(self, model: Any) -> None:
        """The live model (sampled as the ``latest`` category; ``None`` disables it)."""
        self._latest = None if model is None else MaskablePPOPolicy(
            model, deterministic=False, seed=self._snap_seed.spawn(1)[0], name="latest")

    def add_snapshot(self, model: Any, steps: int) -> Path:
        """Save a frozen copy of ``model`` as ``snapshot_dir/snapshot_<steps>.zip`` (atomic)
        and add it to the pool.

        Raises:
            AgentError: when the pool has no ``snapshot_dir``.
        """
        if self.snapshot_dir is None:
            raise AgentError("OpponentPool.add_snapshot needs a snapshot_dir")
        path = atomic_save_model(model, Path(self.snapshot_dir) / f"snapshot_{steps:010d}.zip",
                                 self.game)
        if str(path) not in self.snapshots:
            self.snapshots.append(str(path))
        return path

    def window(self) -> list[str]:
        """The snapshot paths that are sampled (the last ``max_snapshots``)."""
        return self.snapshots[-self.max_snapshots:] if self.max_snapshots > 0 else []

    def _snapshot_policy(self, path: str) -> MaskablePPOPolicy:
        return self._cached_policy(
            path, lambda: MaskablePPOPolicy.load(path, self.game, deterministic=False,
                                                 seed=self._snap_seed.spawn(1)[0],
                                                 name=f"snapshot:{Path(path).stem}"),
            capacity=max(self.max_snapshots, 1))

    def _cached_policy(self, path: str, load: Any, capacity: int) -> MaskablePPOPolicy:
        """The policy of ``path`` from the LRU cache, or ``load()`` put there (the least
        recently used ones dropped beyond ``capacity``)."""
        pol = self._cache.get(path)
        if pol is None:
            pol = self._cache[path] = load()
            while len(self._cache) > capacity:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(path)
        return pol

    # -- sampling ---------------------------------------------------------------------------
    def category_probabilities(self) -> dict[str, float]:
        """Probability of each category now (empty categories get 0)."""
        w = self.weights.as_dict()
        avail = {"latest": self._latest is not None, "snapshot": bool(self.window()),
                 "bot": bool(self._bot_p)}
        raw = {c: (w[c] if avail[c] else 0.0) for c in CATEGORIES}
        total = sum(raw.values())
        if total <= 0:
            raise AgentError("opponent pool is empty: no latest model, snapshot or bot to sample")
        return {c: v / total for c, v in raw.items()}

    def sample_opponent(self, rng: np.random.Generator):
        """An opponent policy (callable ``(obs, mask) -> int``) drawn with ``rng``.

        Raises:
            AgentError: when the pool is empty.
        """
        probs = self.category_probabilities()
        cat = CATEGORIES[int(rng.choice(len(CATEGORIES), p=[probs[c] for c in CATEGORIES]))]
        if cat == "latest":
            opp = self._latest
        elif cat == "snapshot":
            win = self.window()
            opp = self._snapshot_policy(win[int(rng.integers(len(win)))])
        else:
            opp = self._bots[self._bot_names[int(rng.choice(len(self._bot_names),
                                                            p=self._bot_p))]]
        self.picks[opp.name] += 1
        return opp

    # -- persistence ------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-serialisable state: bots, weights, window size, snapshot paths, pick counts."""
        return {"bots": list(self.bots), "weights": self.weights.as_dict(),
                "max_snapshots": self.max_snapshots, "snapshots": list(self.snapshots),
                "picks": dict(self.picks)}

    def save(self, path: str | Path) -> Path:
        """Write :meth:`state_dict` as JSON, atomically."""
        return atomic_write_text(path, json.dumps(self.state_dict(), indent=2, sort_keys=True))

    def load_state(self, path: str | Path) -> None:
        """Restore the snapshot list and pick counts saved by :meth:`save` (snapshot files that
        no longer exist are dropped).

        Raises:
            AgentError: when the file is not a pool state.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise AgentError(f"cannot read opponent pool state {str(path)!r}: {exc}") from None
        self.load_state_dict(data, where=str(path))

    def load_state_dict(self, data: Any, where: str = "pool state") -> None:
        """Restore a :meth:`state_dict` (``where`` names its source in errors).

        Raises:
            AgentError: when ``data`` is not a pool state.
        """
        try:
            snaps = [str(s) for s in data["snapshots"]]
            picks = Counter({str(k): int(v) for k, v in data.get("picks", {}).items()})
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise AgentError(f"cannot read opponent pool state {where!r}: {exc}") from None
        found = [f for f in map(self.relocate, snaps) if Path(f).is_file()]
        self.snapshots = found
        self.picks = picks

    def relocate(self, path: str) -> str:
        """The file a snapshot path recorded by this run (in its pool state or a checkpoint's
        opponents) names now: :func:`relocated` into ``snapshot_dir``."""
        return relocated(path, self.snapshot_dir)
