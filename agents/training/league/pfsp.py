"""League self-play: the learner's past snapshots plus the whole bot panel, sampled by
prioritized fictitious self-play (PFSP), as in AlphaStar's league (Vinyals et al. 2019).

:class:`League` is an :class:`~agents.training.league.selfplay.OpponentPool` whose
``sample_opponent`` draws

* the live learner (``latest``, plain self-play) with probability ``self_play``, else
* one *member* — a snapshot in the window or a panel bot — with probability proportional to
  ``base_weight * f(p)``, where ``p`` is the learner's recent score against that member
  (wins + draws/2 over the last ``window_games`` games, with a prior of one draw) and
  ``f(p) = (1 - p) ** exponent + floor`` (AlphaStar's "hard" weighting ``(1 - p)^2``; the
  small ``floor`` keeps beaten members in the rotation so they are not forgotten).

The results come from the training episodes themselves: :class:`OpponentTag` writes the name
of the opponent of the episode into the env's ``info``, and :meth:`League.record_episode` (called
by the training callback for every finished episode) adds the learner's score to that
opponent's record. A bot's base weight is its ``NAME:WEIGHT`` (default 1); the snapshots of the
window share one base weight, ``snapshots_weight`` (default 1: all of them together count as one
bot), split evenly between them. (Giving every snapshot a weight of 1 let ten snapshots take
most of the league's games once the window filled: the learner trained against its own past
and forgot how to beat ``rush``.) ``train.py`` passes ``--league-snapshots-weight``, 4 for
ACW: the window then takes about 60% of the games, and a best response found
less to exploit than with 1 (docs/exploitability.md).
The records round-trip through :meth:`state_dict` / :meth:`load_state` (``pool.json``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ...policies.base import AgentError, policy_name
from ...policies.ppo import MaskablePPOPolicy
from ...evaluation.ratings import game_scores
from .selfplay import OpponentPool, parse_bot_spec, relocated

#: the ACW bot panel (every built-in bot) the league and the checkpoint selection use
PANEL_BOTS: tuple[str, ...] = ("random", "heuristic", "never-react", "always-react")


def pfsp_weight(p: float, exponent: float = 2.0, floor: float = 0.02) -> float:
    """AlphaStar's PFSP weighting of an opponent the learner scores ``p`` against:
    ``(1 - p) ** exponent + floor`` (``p`` in ``[0, 1]``)."""
    return (1.0 - min(max(p, 0.0), 1.0)) ** exponent + floor


@dataclass
class League(OpponentPool):
    """Opponent pool sampled by PFSP (see the module docstring).

    Takes :class:`~agents.training.league.selfplay.OpponentPool`'s arguments and these:

    Args:
        self_play: probability of playing the live learner.
        exponent, floor: of :func:`pfsp_weight`.
        window_games: results kept per opponent for its win rate.
        snapshots_weight: base weight of the whole snapshot window (split evenly).
        exploiters_weight: base weight of each exploiter (:meth:`add_exploiter`).
        exploiters: checkpoint paths of the exploiters trained against the learner during the
            run (:class:`agents.training.league.exploiters.ExploiterCallback`), each a member that
            plays arg-max.

    Raises:
        AgentError: as :class:`~agents.training.league.selfplay.OpponentPool`, or for
            ``self_play`` outside ``[0, 1]``, ``exponent < 0``, ``floor <= 0``, ``window_games < 1``
            or ``snapshots_weight < 0``.
    """

    self_play: float = 0.2
    exponent: float = 2.0
    floor: float = 0.02
    window_games: int = 100
    snapshots_weight: float = 1.0
    exploiters_weight: float = 1.0
    exploiters: list[str] = field(default_factory=list)
    results: dict[str, deque] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.self_play <= 1.0:
            raise AgentError(f"league self_play probability must be in [0, 1], "
                             f"got {self.self_play}")
        if self.exponent < 0 or not self.floor > 0 or self.window_games < 1 \
                or not self.snapshots_weight >= 0 or not self.exploiters_weight >= 0:
            raise AgentError("league needs exponent >= 0, floor > 0, window_games >= 1, "
                             "snapshots_weight >= 0 and exploiters_weight >= 0")
        self.exploiters = [str(p) for p in self.exploiters]
        self._bot_base = {n: w for n, w in (parse_bot_spec(b) for b in self.bots)}

    # -- win rates ----------------------------------------------------------------------------
    def record(self, opponent: str, score: float) -> None:
        """Add one result (the learner's score 1, 0.5 or 0) against ``opponent``."""
        q = self.results.get(opponent)
        if q is None:
            q = self.results[opponent] = deque(maxlen=self.window_games)
        q.append(float(score))

    def record_episode(self, info: Mapping[str, Any]) -> bool:
        """Record a finished episode from its final ``info`` (``returns``, ``side`` and the
        ``opponent`` added by :class:`OpponentTag`); False when ``info`` is not a finished,
        tagged episode (truncated games count as draws)."""
        name = info.get("opponent")
        if name is None or name == "latest":
            return False
        if "returns" in info:
            score = game_scores(float(info["returns"][int(info["side"])]))[0]
        elif info.get("TimeLimit.truncated") or info.get("truncated"):
            score = 0.5
        else:
            return False
        self.record(str(name), score)
        return True

    def win_rate(self, opponent: str) -> float:
        """The learner's recent score against ``opponent`` (prior: one draw)."""
        q = self.results.get(opponent, ())
        return (sum(q) + 0.5) / (len(q) + 1)

    def members(self) -> dict[str, float]:
        """``{name: base weight}`` of the members PFSP samples from (window snapshots, bots)."""
        win = self.window() if self.snapshots_weight > 0 else []
        out = {f"snapshot:{Path(s).stem}": self.snapshots_weight / len(win) for s in win}
        out.update({n: w for n, w in self._bot_base.items() if w > 0})
        if self.exploiters_weight > 0:
            out.update({f"exploiter:{Path(p).stem}": self.exploiters_weight
                        for p in self.exploiters})
        return out

    def add_exploiter(self, path: str | Path) -> str:
        """Add the exploiter checkpoint ``path`` as a member (arg-max play, base weight
        ``exploiters_weight``); returns its member name ``exploiter:<file stem>``."""
        if str(path) not in self.exploiters:
            self.exploiters.append(str(path))
        return f"exploiter:{Path(path).stem}"

    def load_exploiter(self, path: str) -> MaskablePPOPolicy:
        """The exploiter of ``path`` as the league plays it: arg-max (no draws, so no seed of
        its own), named ``exploiter:<file stem>``.

        Raises:
            AgentLoadError: for a missing, corrupt or foreign checkpoint.
        """
        return MaskablePPOPolicy.load(path, self.game, deterministic=True, seed=0,
                                      name=f"exploiter:{Path(path).stem}")

    def relocate(self, path: str) -> str:
        """The file a recorded snapshot or exploiter path names now: an exploiter's is the
        league's own entry of that file name (already relocated by :meth:`load_state_dict`),
        anything else a snapshot's (:meth:`OpponentPool.relocate`)."""
        name = Path(path).name
        return next((p for p in self.exploiters if Path(p).name == name),
                    super().relocate(path))

    def _exploiter_policy(self, stem: str) -> MaskablePPOPolicy:
        path = next(p for p in self.exploiters if Path(p).stem == stem)
        # (the cache holds the window's snapshots too; room for every exploiter besides)
        return self._cached_policy(path, lambda: self.load_exploiter(path),
                                   capacity=max(self.max_snapshots, 1) + len(self.exploiters))

    def member_probabilities(self) -> dict[str, float]:
        """PFSP probability of each member when a member (not self-play) is drawn."""
        raw = {n: w * pfsp_weight(self.win_rate(n), self.exponent, self.floor)
               for n, w in self.members().items()}
        total = sum(raw.values())
        if total <= 0:
            raise AgentError("league is empty: no snapshot or bot to sample")
        return {n: v / total for n, v in raw.items()}

    # -- sampling -----------------------------------------------------------------------------
    def sample_opponent(self, rng: np.random.Generator):
        """Self-play with probability ``self_play`` (when a live model is set), else a member
        drawn by PFSP.

        Raises:
            AgentError: when there is nothing to sample.
        """
        if self._latest is not None and (rng.random() < self.self_play or not self.members()):
            opp = self._latest
        else:
            probs = self.member_probabilities()
            names = list(probs)
            name = names[int(rng.choice(len(names), p=[probs[n] for n in names]))]
            if name.startswith("snapshot:"):
                stem = name.split(":", 1)[1]
                path = next(s for s in self.window() if Path(s).stem == stem)
                opp = self._snapshot_policy(path)
            elif name.startswith("exploiter:"):
                opp = self._exploiter_policy(name.split(":", 1)[1])
            else:
                opp = self._bots[name]
        self.picks[opp.name] += 1
        return opp

    # -- persistence --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        d = super().state_dict()
        d["pfsp"] = {"self_play": self.self_play, "exponent": self.exponent,
                     "floor": self.floor, "window_games": self.window_games,
                     "snapshots_weight": self.snapshots_weight,
                     "exploiters_weight": self.exploiters_weight,
                     "exploiters": list(self.exploiters),
                     "results": {n: list(q) for n, q in self.results.items()}}
        return d

    def load_state_dict(self, data: Any, where: str = "pool state") -> None:
        super().load_state_dict(data, where)
        try:
            pfsp = dict(data.get("pfsp", {}))
            results = {str(n): [float(x) for x in v]
                       for n, v in dict(pfsp.get("results", {})).items()}
            exploiters = [str(p) for p in pfsp.get("exploiters", [])]
        except (ValueError, TypeError, AttributeError) as exc:
            raise AgentError(f"cannot read league results in {where!r}: {exc}") from None
        self.results = {n: deque(v, maxlen=self.window_games) for n, v in results.items()}
        folder = (None if self.snapshot_dir is None
                  else Path(self.snapshot_dir).parent / "exploiters")
        self.exploiters = [relocated(p, folder) for p in exploiters]  # (a moved/copied run)
        for p in self.exploiters:  # (unlike a snapshot, an exploiter cannot be dropped: the
            if not Path(p).is_file():  # schedule would train the next one at once)
                raise AgentError(f"{where}: the league's exploiter {p!r} is gone (put it back, "
                                 f"or start afresh with --overwrite)")
        self.check_exploiters()

    def check_exploiters(self) -> None:
        """Load every exploiter once (Python's, numpy's and torch's generators kept), so that a
        corrupt file is found when the league is restored, not when PFSP first draws it.

        Raises:
            AgentLoadError: naming the file.
        """
        from ..selection import global_generators_kept

        with global_generators_kept():
            for p in self.exploiters:
                self.load_exploiter(p)


class OpponentTag(gym.Wrapper):
    """Adds ``info["opponent"]`` — the name of the opponent playing this episode — to every
    ``step`` info, so the league can credit results to the right member (a VecEnv resets the
    env, and so draws the next opponent, before its callback sees the final info)."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["opponent"] = policy_name(self.env.unwrapped.opponent, "random")
        return obs, reward, terminated, truncated, info
