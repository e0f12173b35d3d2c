"""The value of every legal option at one decision point, by rollouts on common random numbers.

The decision point is the state just before the ``K``-th label (0-based) of a replay script
(:class:`envs.core.replay.ReplayScript`); it must be a decision node. For every legal action
``a`` there: clone the state, apply ``a``, play to the end with one policy per side, ``N`` times.
The return of the *deciding* side (``state.returns()[side]``: +1 win, 0 draw, −1 loss, or the
shaped return) is averaged, with a 95% interval, and compared with a baseline action
(``react:decline`` when legal, else the first legal action) by the paired difference
``R(a, k) − R(baseline, k)`` over rollouts ``k``, with its 95% interval.

Common random numbers (default): rollout ``k`` of *every* action uses the same chance seeds and
resets the policies with the same seeds (``SeedSequence(seed, spawn_key=(1, k, side))``), so luck
cancels in the paired difference. How the dice are lined up (``align``):

* ``"stream"`` (default): one generator per rollout (``SeedSequence(seed, spawn_key=(0, k))``):
  the ``i``-th chance node of every option gets the ``i``-th uniform number, so options that
  roll the same number of dice see the same dice; a different number shifts every later die.
* ``"decision"``: the chance nodes after the ``d``-th decision of the rollout draw from their
  own generator ``SeedSequence(seed, spawn_key=(0, k, d))``. An option that rolls dice of its
  own (a volley: five dice; a decline: none) shifts only the dice until the next decision; after
  it the games see the same dice again while they take the same number of decisions.
* ``"event"``: every die is keyed by what it is for, not by when it comes: the game turn, the
  roll's description (``RollDice.what``: the unit and the test, e.g. ``"U2 (Indiana) fire"``),
  how many such rolls came before it in that turn of this rollout, and the die's index in the
  roll (:class:`EventChance`). Unit X's second volley of turn 5 sees the same dice under every
  option, however many dice or decisions came before it. States without a frame stack fall
  back to a counter per turn and node kind.

Measured (README, "Research tools"): on the toy duel the variance ratio of the difference is
14.4 with ``"stream"`` and 10.1 with ``"decision"``; at an Opportunity Fire decision of the ACW
Crossroads battle ``"stream"`` gives about 1 (the volley's extra dice shift every later die) and
``"event"`` about 1.5 (the games still decide differently once a stand differs).

With ``crn=False`` every (action ``j``, rollout) gets its own seeds (``j + 1`` appended to each
spawn key), the independent-seeds reference the variance ratio compares with.

Intervals are normal approximations (mean ± 1.96 · sd / sqrt(N)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.errors import RiposteError
from envs.core.protocol import CHANCE, TERMINAL, State
from envs.core.replay import ReplayScript, play_labels

from ..evaluation.analytics import is_decline
from ..evaluation.ratings import mean_ci95
from ..policies.base import decider, reset_policy
from .common import progress


class WhatIfError(RiposteError):
    """A decision point that cannot be evaluated: an index past the end of the replay, a chance
    node or the end of the game there, or a baseline label that is not legal there."""


def decision_point(script: ReplayScript, at: int) -> State:
    """The state just before label ``at`` (0-based) of ``script``'s action list.

    Raises:
        WhatIfError: ``at`` negative or past the last label, or the state there is a chance
            node or the end of the game (the message names the label and the node).
        ReplayError: a label before ``at`` that is unknown or illegal.
    """
    n = len(script.actions)
    if not n:
        raise WhatIfError(f"{script.source}: the replay has no labels: nothing to decide")
    if not 0 <= at < n:
        raise WhatIfError(f"{script.source}: --at {at} is outside the replay's {n} labels "
                          f"(valid: 0..{n - 1})")
    state = script.new_state()
    play_labels(state, script.actions[:at], script.source)
    p = state.current_player()
    lab = script.actions[at]
    if p == CHANCE:
        raise WhatIfError(f"{script.source}: label {at} ({lab!r}) is a chance outcome, not a "
                          f"decision: pick the index of a decision label")
    if p == TERMINAL:
        raise WhatIfError(f"{script.source}: the game has ended before label {at} ({lab!r})")
    return state


def rollout(state: State, agents: Sequence[Any],
            chance_rng: np.random.Generator | Callable[[int], np.random.Generator]
            | EventChance,
            max_decisions: int) -> tuple[list[float], int, bool]:
    """Play ``state`` (in place) to the end: ``agents[side]`` decides for each side, chance is
    drawn from ``chance_rng`` (one uniform per chance node): a generator, a function of the
    number of decisions played so far that returns the generator for the chance nodes after
    that decision (called once per decision index that has chance nodes), or an
    :class:`EventChance` (a generator per die, keyed by the event).

    Returns:
        ``(returns per side, decisions played, truncated)``; a rollout that reaches
        ``max_decisions`` decisions is cut off with zero returns (a draw).

    Raises:
        IllegalActionError: an agent chose an action the mask does not allow.
    """
    from envs.core.chance import sample_chance_outcome
    from envs.core.errors import IllegalActionError

    acts = [decider(a) for a in agents]
    game = state.game
    n = 0
    per_event = isinstance(chance_rng, EventChance)
    per_decision = (not per_event and callable(chance_rng)
                    and not isinstance(chance_rng, np.random.Generator))
    rng, rng_at = (None, -1) if per_decision or per_event else (chance_rng, 0)
    while True:
        p = state.current_player()
        if p == TERMINAL:
            return [float(r) for r in state.returns()], n, False
        if p == CHANCE:
            if per_event:
                rng = chance_rng.generator(state)  # type: ignore[union-attr]
            elif per_decision and rng_at != n:
                rng, rng_at = chance_rng(n), n
            state.apply_action_unchecked(sample_chance_outcome(state, rng))
            continue
        if n >= max_decisions:
            return [0.0] * game.num_players, n, True
        mask = state.legal_action_mask()
        a = acts[p](state, p, mask)
        if not (isinstance(a, (int, np.integer)) and 0 <= int(a) < mask.size and mask[int(a)]):
            raise IllegalActionError(f"agent {getattr(agents[p], 'name', agents[p])!r} (side "
                                     f"{p}) chose illegal action {a!r}; legal: "
                                     f"{state.legal_labels()}")
        state.apply_action_unchecked(int(a))
        n += 1


@dataclass
class OptionValue:
    """One legal option's estimate. ``returns[k]`` is rollout ``k``'s return of the deciding
    side; ``diff`` = paired ``returns - baseline returns``."""

    label: str
    action: int
    returns: np.ndarray
    diff: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        m, lo, hi = mean_ci95(self.returns)
        d, dlo, dhi = mean_ci95(self.diff)
        base = self.returns - self.diff
        corr = None
        if self.returns.size > 1 and np.std(self.returns) > 0 and np.std(base) > 0:
            corr = float(np.corrcoef(self.returns, base)[0, 1])
        return {"label": self.label, "action": self.action, "rollouts": int(self.returns.size),
                "mean_return": m, "ci95": [lo, hi],
                "win_rate": float(np.mean(self.returns > 0)),
                "diff_to_baseline": d, "diff_ci95": [dlo, dhi],
                "diff_sd": float(np.std(self.diff, ddof=1)) if self.diff.size > 1 else 0.0,
                # rollout k of this option against rollout k of the baseline: the correlation
                # of the returns (variance ratio ~ 1 / (1 - corr) with equal variances) and
                # the share of rollouts that end the same way
                "corr_with_baseline": corr,
                "same_result_share": float(np.mean(np.sign(self.returns) == np.sign(base)))}


@dataclass
class WhatIfResult:
    """All options at one decision point (``side`` decides, ``decision`` is its type)."""

    side: int
    decision: str
    baseline: str
    options: list[OptionValue]
    crn: bool
    truncated: int
    align: str = "stream"

    def option(self, label: str) -> OptionValue:
        for o in self.options:
            if o.label == label:
                return o
        raise KeyError(label)


ALIGNS = ("stream", "decision", "event")


def _key_int(text: str) -> int:
    """A stable 32-bit integer for ``text`` (CRC-32; for ``SeedSequence`` spawn keys)."""
    import zlib

    return zlib.crc32(text.encode("utf-8"))


class EventChance:
    """Chance of one rollout keyed by event (``align="event"``): the uniform for a die is the
    first draw of ``SeedSequence(seed, spawn_key=(0, k, crc32(key), occurrence, die))`` (plus
    the independent-seeds tail), where ``key`` is ``"<turn>|<what>"`` of the rolling frame
    (the top of ``state.stack``, a ``RollDice``), ``occurrence`` counts earlier rolls with that key in
    this rollout and ``die`` is the die's index in the roll. Create one per rollout."""

    __slots__ = ("seed", "prefix", "tail", "seen", "_last")

    def __init__(self, seed: int, k: int, tail: tuple[int, ...] = ()):
        self.seed = seed
        self.prefix = (0, k)
        self.tail = tail
        self.seen: dict[str, int] = {}
        self._last: tuple | None = None

    def generator(self, state: State) -> np.random.Generator:
        """The generator for the chance node ``state`` is at (one draw is taken from it)."""
        frames = getattr(state, "stack", None)  # a FrameStack or a plain list of frames
        frames = getattr(frames, "frames", frames)
        top = frames[-1] if frames else None
        what = getattr(top, "what", None)
        if what is None:
            key, die = f"{getattr(state, 'turn', '')}|{state.decision_name()}", 0
            n = self.seen.get(key, 0)
            self.seen[key] = n + 1
        else:
            key = f"{getattr(state, 'turn', '')}|{what}"
            die = len(getattr(top, "values", ()))
            if die == 0 or self._last is None or self._last[0] is not top:
                n = self.seen.get(key, 0)
                self.seen[key] = n + 1
                self._last = (top, n)
            n = self._last[1]
        ss = np.random.SeedSequence(self.seed, spawn_key=self.prefix + (_key_int(key), n, die)
                                    + self.tail)
        return np.random.default_rng(ss)


def _seeds(seed: int, k: int, j: int, crn: bool, sides: int, align: str):
    tail = () if crn else (j + 1,)
    if align == "stream":
        chance: Any = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, k) + tail))
    elif align == "event":
        chance = EventChance(seed, k, tail)
    else:
        def chance(d: int) -> np.random.Generator:
            return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, k, d) + tail))
    agents = [np.random.SeedSequence(seed, spawn_key=(1, k, s) + tail) for s in range(sides)]
    return chance, agents


def resolve_baseline(state: State, baseline: str | None) -> str:
    """The baseline label: ``baseline`` when given (must be legal here), else the choice not
    to react when it is legal (``react:decline``, ``react:none``, ``alert:decline``:
    :func:`~agents.evaluation.analytics.is_decline`), else the first legal label.

    Raises:
        WhatIfError: a given baseline that is not a legal label here.
    """
    legal = state.legal_labels()
    if baseline is not None:
        if baseline not in legal:
            raise WhatIfError(f"baseline {baseline!r} is not legal at this {state.decision_name()}"
                              f" decision; legal: {legal}")
        return baseline
    return next((lab for lab in legal if is_decline(lab)), legal[0])


def evaluate_options(state: State, agents: Sequence[Any], rollouts: int, seed: int = 0,
                     crn: bool = True, baseline: str | None = None,
                     max_decisions: int | None = None, show_progress: bool = False,
                     align: str = "stream") -> WhatIfResult:
    """Estimate every legal option at the decision node ``state`` (left unchanged).

    Args:
        state: a decision node.
        agents: one policy per side (``agents[0]`` plays side 0), used after the option.
        rollouts: ``N`` rollouts per option (>= 2 for an interval).
        seed: the seed of every rollout's chance and policy streams (see the module docstring).
        crn: common random numbers across options (False: independent seeds per option).
        baseline: label of the baseline option (default: ``react:decline`` or the first legal).
        max_decisions: per-rollout decision cap (default ``game.max_game_length``).
        show_progress: a tqdm bar over the ``N * options`` rollouts.
        align: how the dice are lined up across options, ``"decision"`` or ``"stream"`` (see
            the module docstring).

    Raises:
        WhatIfError: ``state`` is not a decision node, or a bad baseline.
        ValueError: ``rollouts < 1`` or the wrong number of agents.
    """
    p = state.current_player()
    if p < 0:
        raise WhatIfError(f"evaluate_options needs a decision node, got a "
                          f"{state.decision_name()} node")
    game = state.game
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} sides")
    if rollouts < 1:
        raise ValueError(f"rollouts must be >= 1, got {rollouts}")
    if align not in ALIGNS:
        raise ValueError(f"align must be one of {ALIGNS}, got {align!r}")
    base = resolve_baseline(state, baseline)
    cap = game.max_game_length if max_decisions is None else max_decisions
    legal = list(state.legal_actions())
    labels = [game.actions.labels[a] for a in legal]
    rets = np.zeros((len(legal), rollouts))
    truncated = 0
    bar = progress(len(legal) * rollouts, "what-if rollouts", show_progress)
    for k in range(rollouts):
        for j, a in enumerate(legal):
            chance, agent_seeds = _seeds(seed, k, j, crn, game.num_players, align)
            for ag, s in zip(agents, agent_seeds):
                reset_policy(ag, s)
            s = state.clone()
            s.apply_action(a)
            r, _, cut = rollout(s, agents, chance, cap)
            rets[j, k] = r[p]
            truncated += cut
            bar.update(1)
    bar.close()
    b = labels.index(base)
    options = [OptionValue(lab, int(a), rets[j], rets[j] - rets[b])
               for j, (lab, a) in enumerate(zip(labels, legal))]
    return WhatIfResult(side=p, decision=state.decision_name(), baseline=base, options=options,
                        crn=crn, truncated=truncated, align=align)


def variance_ratio(indep: WhatIfResult, crn: WhatIfResult) -> dict[str, float]:
    """Per non-baseline option: ``var(diff, independent seeds) / var(diff, CRN)`` (> 1 when
    common random numbers narrow the interval of the difference; the interval's width shrinks
    by the square root)."""
    out = {}
    for o in crn.options:
        if o.label == crn.baseline:
            continue
        vc = float(np.var(o.diff, ddof=1))
        vi = float(np.var(indep.option(o.label).diff, ddof=1))
        # no variance with common numbers: infinitely narrower, or undefined when neither has
        out[o.label] = vi / vc if vc > 0 else float("inf") if vi > 0 else float("nan")
    return out


def format_table(result: WhatIfResult) -> str:
    """A plain-text table, best option first."""
    rows = sorted((o.to_dict() for o in result.options), key=lambda d: -d["mean_return"])
    head = (f"{'option':<26} {'N':>5} {'mean return':>11} {'95% CI':>17} {'win':>6} "
            f"{'diff to ' + result.baseline:>28} {'95% CI':>17}")
    lines = [head, "-" * len(head)]
    for d in rows:
        lines.append(f"{d['label']:<26} {d['rollouts']:>5} {d['mean_return']:>+11.3f} "
                     f"[{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}] {d['win_rate']:>6.1%} "
                     f"{d['diff_to_baseline']:>+28.3f} "
                     f"[{d['diff_ci95'][0]:+.3f}, {d['diff_ci95'][1]:+.3f}]")
    return "\n".join(lines)


def plot(result: WhatIfResult, path: str, title: str) -> None:
    """Bar chart: mean return of each option with its 95% interval (left) and the paired
    difference to the baseline with its interval (right)."""
    from .common import pyplot, save_figure

    plt = pyplot()
    ds = sorted((o.to_dict() for o in result.options), key=lambda d: -d["mean_return"])
    names = [d["label"] for d in ds]
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 1.2 * len(ds) + 4), 4.2))
    for ax, key, ci, ylab in ((axes[0], "mean_return", "ci95", "mean return of the deciding side"),
                              (axes[1], "diff_to_baseline", "diff_ci95",
                               f"difference to {result.baseline}")):
        ys = [d[key] for d in ds]
        err = [[d[key] - d[ci][0] for d in ds], [d[ci][1] - d[key] for d in ds]]
        ax.bar(range(len(ds)), ys, yerr=err, capsize=4,
               color=["tab:grey" if n == result.baseline else "tab:blue" for n in names])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(range(len(ds)), names, rotation=35, ha="right")
        ax.set_ylabel(ylab)
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
