"""How the skirmish alert heuristic uses its reaction windows, against the rule it replaced.

Plays GAMES games (default 60; seats alternated, game i on chance seed i) of the heuristic
against ``never-alert`` twice: once with the old attempt rule (test when REF + 7 >= the
difficulty) and once with the current one. Prints, per rule, the windows in which the declared
charge/blow/shot aimed at one of the heuristic's fighters ("threat") and the others, attempted
or declined; the tests it rolled; and its score against ``never-alert``.

    python examples/skirmish_alert_windows.py [GAMES]
"""

from __future__ import annotations

import collections

import numpy as np

from agents import make_agent
from agents.bots.skirmish_alert import THREATS, SkirmishHeuristic
from agents.evaluation.tournament import play_game
from envs import load_game
from envs.rulesets.skirmish_alert.params import ACTION_KINDS


class OldRule(SkirmishHeuristic):
    """The heuristic with its earlier attempt rule (REF + 7 >= difficulty)."""

    def _attempt(self, p, legal, lab) -> int:
        attempts = self._pick(legal, "alert:attempt:")
        if not attempts:
            return lab["alert:decline"]
        fv, ref = p["fighters"], self.fi["ref"]
        best = max(attempts, key=lambda a: fv[int(self.labels[a].rsplit("f", 1)[1]), ref])
        r = fv[int(self.labels[best].rsplit("f", 1)[1]), ref] * 4
        return best if r + 7 >= p["window"][0] * 12 - 1e-6 else lab["alert:decline"]


def main(games: int) -> None:
    g = load_game("skirmish_alert", "default")
    for name, cls in (("old rule", OldRule), ("heuristic", SkirmishHeuristic)):
        count: collections.Counter = collections.Counter()
        score = 0.0
        for i in range(games):
            side = i % 2

            def on(state, s, mask, a, side=side):
                if s != side or state.decision_name() != "reaction":
                    return
                obs = g.layout.split(g.observation(state, s))
                tk, tt = obs["trigger_kind"], obs["trigger_target"]
                kind = ACTION_KINDS[int(np.argmax(tk))] if tk.any() else ""
                threat = kind in THREATS and tt.any() and int(np.argmax(tt)) < g.fighters_per_team
                took = g.actions.labels[a].startswith("alert:attempt")
                count["threat" if threat else "other", "attempt" if took else "decline"] += 1

            agents = [cls(g, i), make_agent("never-alert", g, 1000 + i)]
            rec = play_game(g, agents if side == 0 else agents[::-1],
                            np.random.default_rng(i), on_decision=on)
            score += (rec.returns[side] + 1) / 2
            for e in rec.final_state.events:
                if e.kind == "aptitude_test" and e.data["fighter"] // g.fighters_per_team == side:
                    count["test", "success" if e.data["success"] else "failure"] += 1
        print(f"{name}: " + ", ".join(f"{a} {b} {n}" for (a, b), n in sorted(count.items()))
              + f"; score vs never-alert {score / games:.3f}")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("games", nargs="?", type=int, default=60, help="games per rule (>= 1)")
    ns = ap.parse_args()
    if ns.games < 1:
        ap.error(f"GAMES must be >= 1, got {ns.games}")
    main(ns.games)
