"""Every legal action applies, and every illegal one is refused with a named exception.

Part of :mod:`envs.core.testing` (see its docstring).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import IllegalActionError, InvalidStateError, RiposteError
from ..protocol import CHANCE, TERMINAL, Game, State
from .common import _as_game, _Ctx, game_rng, GameOrFactory, _random_step, _value
from .round_trips import _fingerprint, _first_diff


# -- every legal action applies ------------------------------------------------------------------
def check_every_legal_action_applies(game: GameOrFactory, seed: int, n_games: int = 1,
                                     node_every: int = 1) -> int:
    """Every id the mask offers can be applied: at every ``node_every``-th node of ``n_games``
    random games, each legal decision (or chance outcome) is applied to its own clone without
    an exception, and leaves a state whose ``current_player()`` is a side, CHANCE or TERMINAL.
    (Random play applies one legal id per node; a mask that offers an action the engine cannot
    carry out shows up here.)

    Returns:
        The number of (node, action) pairs applied.

    Raises:
        ConformanceError: naming the node and the action whose application failed.
    """
    g = _as_game(game)
    applied = 0
    for gi in range(n_games):
        ctx = _Ctx("check_every_legal_action_applies", seed, gi)
        rng = game_rng(seed, gi)
        s: State = g.new_initial_state()
        k = 0
        while not s.is_terminal():
            if k % node_every == 0:
                for a in list(s.legal_actions()):
                    c = s.clone()
                    try:
                        c.apply_action(a)
                        p = c.current_player()
                    except Exception as e:
                        raise ctx.fail(s, f"applying the legal {s.action_to_string(a)!r} raised "
                                          f"{type(e).__name__}: {e}") from e
                    if p not in (CHANCE, TERMINAL) and not 0 <= p < g.num_players:
                        raise ctx.fail(s, f"after {s.action_to_string(a)!r} current_player() is "
                                          f"{p!r}")
                    applied += 1
            _random_step(s, rng)
            k += 1
    return applied


# -- illegal actions ----------------------------------------------------------------------------
_WRONG_TYPES: tuple[Any, ...] = ("0", 0.0, 1.5, None, True, [0], np.float32(0.0))


def _expect_refused(ctx: _Ctx, g: Game[Any], s: State, action: Any, exc: type[Exception],
                    must_name: Sequence[str]) -> None:
    before = _fingerprint(s)
    legal = list(s.legal_actions())
    p = s.current_player()
    try:
        s.apply_action(action)
    except exc as e:
        msg = str(e)
        missing = [m for m in must_name if m not in msg]
        if missing:
            raise ctx.fail(s, f"{exc.__name__} for action {action!r} does not name {missing}: "
                              f"{msg!r}") from None
    except Exception as e:
        raise ctx.fail(s, f"apply_action({action!r}) raised {type(e).__name__} ({e}), expected "
                          f"{exc.__name__}") from None
    else:
        raise ctx.fail(s, f"apply_action({action!r}) was accepted (expected {exc.__name__})")
    after = _fingerprint(s)
    if after != before or s.legal_actions() != legal or s.current_player() != p:
        what = [name for name, x, y in zip(("state", "history length", "history", "event count",
                                            "events"), before, after) if x != y]
        detail = _first_diff(before[0], after[0]) if "state" in what else ""
        raise ctx.fail(s, f"refused apply_action({action!r}) changed the state "
                          f"({', '.join(what) or 'player or legal actions'}) {detail}".rstrip())


def check_illegal_action_raises(game: GameOrFactory, seed: int, n_games: int = 2,
                                masked_per_node: int = 3) -> int:
    """Refused actions raise the right error, say why, and leave the state untouched.

    At every node of ``n_games`` random games: out-of-range ids (``-1``, ``N``, ``N + 7``),
    up to ``masked_per_node`` masked ids, and wrong types (``"0"``, floats, ``None``, ``True``,
    a list, a numpy float) raise :class:`IllegalActionError`; for in-range masked ids the
    message names the action label, for all it names the side, the decision type and every
    legal label. A legal id given as a numpy integer is accepted (on a clone). At the end
    ``apply_action`` raises :class:`InvalidStateError`. After every refusal the state is
    unchanged: its serialised fields, history, event log (count and tail), legal list and
    player.

    Returns:
        The number of refusals checked.

    Raises:
        ConformanceError: naming the action and the problem.
    """
    g = _as_game(game)
    n = g.num_distinct_actions
    refused = 0
    for gi in range(n_games):
        ctx = _Ctx("check_illegal_action_raises", seed, gi)
        rng = game_rng(seed, gi)
        crng = np.random.default_rng((seed, gi, 3))
        s: State = g.new_initial_state()
        while not s.is_terminal():
            p = s.current_player()
            dt = _value(s.decision_type())
            legal_labels = s.legal_labels()
            if p == CHANCE:
                who, size = ["chance"], g.max_chance_outcomes
                cat = g.chance
            else:
                who, size = [g.side_names[p]], n
                cat = g.actions
            common = [*who, dt, *legal_labels]
            for a in (-1, size, size + 7):
                _expect_refused(ctx, g, s, a, IllegalActionError, [repr(a), *common])
                refused += 1
            legal = set(s.legal_actions())
            masked = [a for a in range(size) if a not in legal]
            if len(masked) > masked_per_node:
                masked = crng.choice(masked, masked_per_node, replace=False).tolist()
            for a in masked:
                _expect_refused(ctx, g, s, a, IllegalActionError, [repr(cat.labels[a]), *common])
                _expect_refused(ctx, g, s, np.int64(a), IllegalActionError,
                                [repr(cat.labels[a]), *common])
                refused += 2
            for a in _WRONG_TYPES:
                _expect_refused(ctx, g, s, a, IllegalActionError, common)
                refused += 1
            c = s.clone()
            a0 = s.legal_actions()[0]
            try:
                c.apply_action(np.int64(a0))
            except RiposteError as e:
                raise ctx.fail(s, f"a legal id given as numpy.int64 ({a0}) was refused: {e}") from e
            if c.history[-1] != (p, a0) or type(c.history[-1][1]) is not int:
                raise ctx.fail(s, f"history entry {c.history[-1]!r} after apply_action(np.int64"
                                  f"({a0})) is not the plain-int pair {(p, a0)}")
            _random_step(s, rng)
        for after_end in (0, -1, "x"):
            _expect_refused(ctx, g, s, after_end, InvalidStateError, [])
            refused += 1
    return refused
