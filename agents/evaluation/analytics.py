"""Reaction analytics over a tournament: per agent and reaction label, how often the reaction was
offered and taken and what it achieved.

At every ``reaction`` decision the tournament calls :meth:`GameTracker.on_decision` with the
state before the choice; at the end :meth:`ReactionAnalytics.add_game` reads the final state's
event log. For each reaction decision:

* *offered*: the labels that were legal there (every choice of a ``reaction`` decision:
  ACW's ``react:*``, Atomic Africa's ``react:unit<k>`` / ``react:none``, skirmish's
  ``alert:attempt:f<k>`` / ``alert:decline``); *taken*: the one chosen.
* *trigger*: the enemy unit the reaction answers — the unit of the latest ``charge`` event of
  the other side since its latest ``activate`` event, else the activated unit (every reaction
  window of the ACW ruleset opens on the active side's moving or charging unit).
* *window*: the events from the decision to the next ``activate`` or ``phase`` event (the rest
  of the trigger's activation: fire, saves, charge resolution).
* outcomes in the window: ``stands_lost`` by the trigger unit (``stand_lost`` events),
  ``disorder_caused`` (``disorder`` events on the trigger's side), and for a charging trigger
  ``charge_stopped`` (no ``contact`` by the charger in the window).

Per label, outcomes are averaged over the decisions where it was *taken* and, as the comparable
situations, over those where it was *offered* and the agent *declined* (the choice not to
react: a label ending in ``:decline`` or ``:none``, :func:`is_decline`) instead. Game scores (win 1, draw ½, loss 0) are compared between games in which the agent took
the reaction at least once and games in which it was offered but never taken. Means carry
Student's t 95% intervals (:func:`~agents.evaluation.ratings.mean_ci95`; none for one value).

The event kinds are those of the ACW regimental ruleset; on a ruleset without them the counts
of offered/taken are still exact and the outcomes are zero.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.protocol import State

from .ratings import mean_ci95, proportion_ci95

WINDOW_END = frozenset({"activate", "phase", "game_end"})


def is_decline(label: str) -> bool:
    """Whether ``label`` is the choice not to react at a ``reaction`` decision
    (``react:decline``, ``react:none``, ``alert:decline``)."""
    return label.rsplit(":", 1)[-1] in ("decline", "none")


@dataclass(slots=True)
class _Offer:
    side: int
    taken: str
    offered: tuple[str, ...]
    event_index: int
    trigger: tuple[int, int] | None   # (side, unit slot)
    charge: bool


def find_trigger(events: Sequence[Any], reacting_side: int) -> tuple[tuple[int, int] | None,
                                                                      bool]:
    """``((side, slot), is_charge)`` of the unit a reaction of ``reacting_side`` answers:
    scanning back, the latest ``charge`` event of the other side before its latest
    ``activate``, else the activated unit; ``(None, False)`` when there is none."""
    other = 1 - reacting_side
    for e in reversed(events):
        if e.side != other:
            continue
        if e.kind == "charge" and "unit" in e.data:
            return (other, int(e.data["unit"])), True
        if e.kind == "activate" and "unit" in e.data:
            return (other, int(e.data["unit"])), False
    return None, False


@dataclass
class GameTracker:
    """Records the reaction decisions of one game (``seats[side]`` = agent name)."""

    seats: Sequence[str]
    offers: list[_Offer] = field(default_factory=list)
    #: each offer's outcome measures once :meth:`resolve` has read the game's events (``None``:
    #: not yet; :meth:`ReactionAnalytics.add_game` reads them from the final state then)
    outcomes: list[dict[str, float]] | None = None

    def on_decision(self, state: State, side: int, mask: np.ndarray, action: int) -> None:
        """Called before ``action`` is applied at a decision of ``side``."""
        if state.decision_name() != "reaction":
            return
        labels = state.game.actions.labels
        offered = tuple(labels[a] for a in np.flatnonzero(mask))
        trig, charge = find_trigger(state.events, side)
        self.offers.append(_Offer(side, labels[action], offered, len(state.events), trig,
                                  charge))

    def resolve(self, events: Sequence[Any]) -> list[dict[str, float]]:
        """Measure every offer's outcome from the finished game's ``events`` now, so that the
        tracker alone (without the final state) is enough for :meth:`ReactionAnalytics.add_game`
        (tournament worker processes send back the tracker, not the state). Returns them (also
        kept in ``outcomes``)."""
        self.outcomes = [_outcomes(events, o) for o in self.offers]
        return self.outcomes


def _outcomes(events: Sequence[Any], o: _Offer) -> dict[str, float]:
    lost = disorder = 0
    contact = False
    for e in events[o.event_index:]:
        if e.kind in WINDOW_END:
            break
        if o.trigger is None:
            continue
        ts, tu = o.trigger
        if e.kind == "stand_lost" and e.side == ts and e.data.get("unit") == tu:
            lost += int(e.data.get("n", 1))
        elif e.kind == "disorder" and e.side == ts:
            disorder += 1
        elif e.kind == "contact" and e.side == ts and e.data.get("unit") == tu:
            contact = True
    out = {"stands_lost": float(lost), "disorder_caused": float(disorder)}
    if o.charge:
        out["charge_stopped"] = 0.0 if contact else 1.0
    return out


def _summary(xs: list[float]) -> dict[str, Any]:
    if not xs:
        return {"n": 0, "mean": None, "ci95": None}
    m, lo, hi = mean_ci95(xs)
    return {"n": len(xs), "mean": m, "ci95": [lo, hi] if len(xs) > 1 else None}


def _score_summary(xs: list[float]) -> dict[str, Any]:
    """Mean game score with a Wilson 95% interval (draws count half, as in the tournament)."""
    if not xs:
        return {"n": 0, "mean": None, "ci95": None}
    m, lo, hi = proportion_ci95(sum(xs), len(xs))
    return {"n": len(xs), "mean": m, "ci95": [lo, hi]}


class ReactionAnalytics:
    """Accumulates :class:`GameTracker` records over a tournament (see the module docstring)."""

    METRICS = ("stands_lost", "disorder_caused", "charge_stopped")

    def __init__(self) -> None:
        # agent -> label -> counters / lists
        self._offered: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._taken: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._out: dict[str, dict[str, dict[str, dict[str, list[float]]]]] = defaultdict(
            lambda: defaultdict(lambda: {"taken": defaultdict(list),
                                         "declined": defaultdict(list)}))
        self._scores: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: {"taken": [], "declined": []}))

    def new_game(self, seats: Sequence[str]) -> GameTracker:
        return GameTracker(list(seats))

    def add_game(self, tracker: GameTracker, final_state: Any,
                 side_scores: Sequence[float]) -> None:
        """Add one finished game (``side_scores[side]`` in {0, ½, 1}); the outcomes are the
        tracker's own when :meth:`GameTracker.resolve` has measured them, else measured on
        ``final_state``'s events."""
        outcomes = tracker.outcomes
        if outcomes is None:
            outcomes = tracker.resolve(final_state.events if final_state is not None else [])
        offered_in_game: dict[int, set[str]] = {0: set(), 1: set()}
        taken_in_game: dict[int, set[str]] = {0: set(), 1: set()}
        for o, res in zip(tracker.offers, outcomes):
            name = tracker.seats[o.side]
            for lab in o.offered:
                self._offered[name][lab] += 1
                offered_in_game[o.side].add(lab)
                if lab == o.taken:
                    bucket = "taken"
                elif is_decline(o.taken):
                    bucket = "declined"
                else:
                    continue
                for k, v in res.items():
                    self._out[name][lab][bucket][k].append(v)
            self._taken[name][o.taken] += 1
            taken_in_game[o.side].add(o.taken)
        for side in (0, 1):
            name = tracker.seats[side]
            for lab in offered_in_game[side]:
                key = "taken" if lab in taken_in_game[side] else "declined"
                self._scores[name][lab][key].append(float(side_scores[side]))

    def to_dict(self, agents: Sequence[str]) -> dict[str, Any]:
        """``{agent: {label: {"offered", "taken", "taken_rate", "taken_outcomes",
        "declined_outcomes", "score_when_taken", "score_when_declined"}}}``; each outcome is
        ``{metric: {"n", "mean", "ci95"}}``, each score ``{"n" (games), "mean", "ci95"}`` (Wilson); ``mean`` and ``ci95`` are None
        when ``n`` is 0."""
        out: dict[str, Any] = {}
        for name in agents:
            per: dict[str, Any] = {}
            for lab in sorted(self._offered.get(name, {})):
                n_off = self._offered[name][lab]
                n_tk = self._taken[name].get(lab, 0)
                o = self._out[name][lab]
                sc = self._scores[name][lab]
                per[lab] = {
                    "offered": n_off, "taken": n_tk, "taken_rate": n_tk / n_off,
                    "taken_outcomes": {k: _summary(v) for k, v in sorted(o["taken"].items())},
                    "declined_outcomes": {k: _summary(v)
                                          for k, v in sorted(o["declined"].items())},
                    "score_when_taken": _score_summary(sc["taken"]),
                    "score_when_declined": _score_summary(sc["declined"]),
                }
            out[name] = per
        return out


def format_summary(doc: dict[str, Any]) -> str:
    """A short plain-text summary: one line per agent and reaction label (decline omitted)."""
    head = (f"{'agent':<22} {'reaction':<24} {'offered':>7} {'taken':>6} {'stands lost':>13} "
            f"{'disorder':>13} {'charge stopped':>15} {'score taken/declined':>21}")
    lines = ["Reaction analytics (taken vs declined when offered; per decision)", head]

    def pair(d: dict[str, Any], k: str) -> str:
        a = d["taken_outcomes"].get(k)
        b = d["declined_outcomes"].get(k)
        f = lambda s: "-" if not s or not s["n"] else f"{s['mean']:.2f}"  # noqa: E731
        return f"{f(a)}/{f(b)}"

    from .plots import short_labels

    for name, shown in zip(doc, short_labels(list(doc))):
        for lab, d in doc[name].items():
            if is_decline(lab):
                continue
            st, sd = d["score_when_taken"], d["score_when_declined"]
            fs = lambda s: "-" if not s["n"] else f"{s['mean']:.2f}"  # noqa: E731
            lines.append(f"{shown[-22:]:<22} {lab:<24} {d['offered']:>7} {d['taken']:>6} "
                         f"{pair(d, 'stands_lost'):>13} {pair(d, 'disorder_caused'):>13} "
                         f"{pair(d, 'charge_stopped'):>15} "
                         f"{fs(st) + ' (' + str(st['n']) + ')/' + fs(sd) + ' (' + str(sd['n']) + ')':>21}")
    return "\n".join(lines)
