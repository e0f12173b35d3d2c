"""Aliased decisions: a side that decides twice in a row must be able to tell the two
decisions apart.

When a side takes a decision and the very next node (no chance outcome between) asks the same
side again with a bit-identical observation and the same legal set, an agent that reads only
its observation cannot know that anything happened: if the rules make the two decisions differ
(the second is the last of a series, a slot was used, ...), it cannot learn the right answer
to either. :func:`check_no_aliased_repeats` plays random games and fails at the first such
repeat after any action but a pass (``exempt``: by default the label ``pass``; a ruleset may
name more actions that the rules make change nothing a policy needs).
"""

from __future__ import annotations

from collections.abc import Iterable

from .common import _as_game, _Ctx, GameOrFactory, game_rng
from ..chance import sample_chance_outcome
from ..protocol import State


def check_no_aliased_repeats(game: GameOrFactory, seed: int, *, n_games: int = 20,
                             exempt: Iterable[str] = ("pass",)) -> int:
    """Play ``n_games`` random games; after every decision whose next node is a decision of the
    same side, require that the side's observation or the legal set differs.

    Args:
        game: the game, or a zero-argument factory.
        seed: suite seed; game ``i`` uses :func:`~.common.game_rng` ``(seed, i)``.
        n_games: number of games.
        exempt: action labels after which an identical next decision is allowed (passes, and
            actions the rules make change nothing a policy should see).

    Returns:
        The number of same-side consecutive decisions compared.

    Raises:
        ConformanceError: naming the seed, game, step, both decisions and the label taken.
    """
    g = _as_game(game)
    exempt = frozenset(exempt)
    compared = 0
    for i in range(n_games):
        ctx = _Ctx("check_no_aliased_repeats", seed, i)
        rng = game_rng(seed, i)
        s: State = g.new_initial_state()
        before = None  # (side, observation bytes, legal ids, label taken, decision name)
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(sample_chance_outcome(s, rng))
                before = None
                continue
            side = s.current_player()
            legal = tuple(s.legal_actions())
            seen = g.observation(s, side).tobytes()
            if before is not None and before[0] == side:
                compared += 1
                if before[1] == seen and before[2] == legal and before[3] not in exempt:
                    raise ctx.fail(s, f"side {side} is asked again at a {s.decision_name()} "
                                      f"decision with the same observation and legal set "
                                      f"{[g.actions.labels[a] for a in legal][:8]} after "
                                      f"taking {before[3]!r} at a {before[4]} decision: the "
                                      f"two decisions cannot be told apart")
            action = legal[int(rng.integers(len(legal)))]
            before = (side, seen, legal, g.actions.labels[action], s.decision_name())
            s.apply_action(action)
    return compared
