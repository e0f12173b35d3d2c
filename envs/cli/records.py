"""Reading a finished or scripted game for the viewer: a replay script (TOML,
:mod:`envs.core.replay`) or a game record (the JSON of ``State.to_json()``, e.g. ``python -m envs
replay FILE --json``), and the step-by-step frames of it that the pages show."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs.core.drawing import to_svg
from envs.core.errors import ReplayError, RiposteError
from envs.core.files import input_file_problem
from envs.core.protocol import CHANCE, TERMINAL, Game, State
from envs.core.replay import ReplayScript, first_difference, transcript
from envs.core.scenario import key_path


@dataclass
class GameFile:
    """A game to show: the replay script (ruleset, scenario, params, labels, meta) and where it
    came from (``kind`` is ``"replay"`` or ``"record"``)."""

    script: ReplayScript
    kind: str
    path: str
    meta: dict[str, Any] = field(default_factory=dict)


def load_game_file(path: str | Path) -> GameFile:
    """Read ``path`` as a replay script or a game record.

    Raises:
        ReplayError: for a missing or unreadable file, one that is neither, or a game record
            whose stored state disagrees with its history (:func:`check_record`); one line
            naming the file and what is wrong.
    """
    p = Path(path)
    if (problem := input_file_problem(p)) is not None:
        raise ReplayError(f"{p}: {problem}")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ReplayError(f"{p}: cannot be read as text ({e})") from None
    if text.lstrip().startswith("{"):
        try:
            state = State.from_json(text)
        except RiposteError as e:
            raise ReplayError(f"{p}: not a game record (State.to_json): {e}") from None
        check_record(state, str(p))
        g = state.game.config()
        script = ReplayScript(g["ruleset"], g["scenario"], dict(g["params"]), transcript(state),
                              str(p))
        return GameFile(script, "record", str(p))
    try:
        script = ReplayScript.load(p)
    except ReplayError as e:
        why = str(e).removeprefix(f"{p}: ")
        raise ReplayError(f"{p}: not a replay script (TOML with ruleset and actions) or a game "
                          f"record (JSON): {why}") from None
    if "actions" not in _toml_keys(p):
        raise ReplayError(f"{p}: not a replay script: no 'actions' list")
    return GameFile(script, "replay", str(p), dict(script.meta))


def check_record(recorded: State, source: str) -> None:
    """Check a game record against its own history: the record holds the state (and event log)
    at its end *and* the history that led there, and the viewer shows the history, so the two
    must agree. The history is played from the game's initial state (checked, without drawing:
    a few milliseconds per hundred actions) and the resulting state and events are compared
    with the stored ones.

    Raises:
        ReplayError: naming ``source`` and either the first history entry that does not apply
            (its index, the side it was recorded for, why) or the first field where the stored
            state or event log differs from the replayed one (``state.units[2].stands``,
            ``events[40].text``) with both values.
    """
    g = recorded.game
    st = g.new_initial_state()
    n = len(recorded.history)
    for i, (p, a) in enumerate(recorded.history):
        cur = st.current_player()
        if cur != p:
            raise ReplayError(f"{source}: history[{i}] is recorded for {_mover(g, p)} but "
                              f"replaying the history, {_mover(g, cur)} is to move there: the "
                              f"history does not replay")
        try:
            st.apply_action(a)
        except RiposteError as e:
            raise ReplayError(f"{source}: history[{i}] does not replay: {e}") from None
    stored, replayed = json.loads(recorded.to_json()), json.loads(st.to_json())
    d = first_difference({k: stored[k] for k in ("state", "events")},
                         {k: replayed[k] for k in ("state", "events")})
    if d is not None:
        where, a, b = key_path(d[0]), d[1], d[2]
        raise ReplayError(f"{source}: the stored state disagrees with its history ({n} "
                          f"entries replayed from the start): first at {where}: stored "
                          f"{_short(a)}, replayed {_short(b)}")


def _mover(game: Game, p: int) -> str:
    if p == CHANCE:
        return "chance"
    if p == TERMINAL:
        return "nobody (the game has ended)"
    return f"side {p} ({game.side_names[p]})"


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _toml_keys(p: Path) -> set[str]:
    import tomllib

    try:
        return set(tomllib.loads(p.read_text(encoding="utf-8")))
    except (tomllib.TOMLDecodeError, OSError):
        return set()


def who(game: Game, state: State) -> str:
    p = state.current_player()
    if p == CHANCE:
        return "chance"
    if p == TERMINAL:
        return "game over"
    return game.side_names[p]


def frame_of(state: State, caption: str | None = None) -> dict[str, Any]:
    """What a page shows of ``state``: caption (the drawing's unless given), who decides, the
    decision type, the legal labels and their words, whether a reaction window is open."""
    g = state.game
    p = state.current_player()
    if caption is None:
        caption = g.drawing(state).caption
    f: dict[str, Any] = {"caption": caption, "who": who(g, state),
                         "player": p, "decision": state.decision_name(),
                         "window": state.decision_name() == "reaction"}
    if p >= 0:
        legal = state.legal_actions()
        f["legal"] = [g.actions.labels[a] for a in legal]
        f["legal_words"] = [g.action_words(state, a) for a in legal]
    elif p == CHANCE:
        f["legal"] = [g.chance.labels[a] for a, _ in state.chance_outcomes()]
        f["legal_words"] = list(f["legal"])
    else:
        f["legal"], f["legal_words"] = [], []
        f["returns"] = [float(r) for r in state.returns()]
    return f


def build_frames(gf: GameFile) -> dict[str, Any]:
    """Play ``gf`` step by step: one frame per node (before each label, and the end), SVGs
    de-duplicated, and the event log with the step each event appeared at.

    Raises:
        ReplayError: at the first unknown or illegal label (position, label, legal labels).
    """
    script = gf.script
    state = script.new_state()
    g = state.game
    svgs: list[str] = []
    svg_index: dict[str, int] = {}
    frames: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []

    def snap(chosen: str | None) -> None:
        drawing = g.drawing(state)
        svg = to_svg(drawing, element_id="table")
        k = svg_index.setdefault(svg, len(svgs))
        if k == len(svgs):
            svgs.append(svg)
        f = frame_of(state, drawing.caption)
        f["svg"] = k
        f["events_end"] = len(events)
        f["chosen"] = chosen
        if chosen is not None and state.current_player() >= 0:
            f["chosen_words"] = g.action_words(state, state.string_to_action(chosen))
        frames.append(f)

    def take_events(start: int, step: int) -> None:
        for e in state.events[start:]:
            events.append({"step": step, "rules": list(e.rules), "text": e.text,
                           "kind": e.kind})
    take_events(0, 0)
    for i, lab in enumerate(script.actions):
        if state.current_player() == TERMINAL:
            raise ReplayError(f"{script.source}: action {i} {lab!r}: the game has already ended")
        try:
            a = state.string_to_action(lab)
        except RiposteError:
            raise ReplayError(f"{script.source}: action {i} {lab!r} is not a label at this "
                              f"{state.decision_name()} node; legal: {state.legal_labels()}") \
                from None
        if state.current_player() >= 0 and a not in state.legal_actions():
            raise ReplayError(f"{script.source}: action {i} {lab!r} is not legal at this "
                              f"{state.decision_name()} node ({state.why_illegal(a)}); legal: "
                              f"{state.legal_labels()}")
        snap(lab)
        n0 = len(state.events)
        try:
            state.apply_action(a)
        except RiposteError as e:
            raise ReplayError(f"{script.source}: action {i} {lab!r}: {e}") from None
        take_events(n0, i + 1)
    snap(None)
    return {"title": f"{g.ruleset_id} / {g.scenario_name}", "config": g.config(),
            "side_names": list(g.side_names), "meta": gf.meta, "source": gf.path,
            "kind": gf.kind, "frames": frames, "svgs": svgs, "events": events}


def replay_from_decisions(game: Game, decisions: list[tuple[int, str, str]], chance: list[int],
                          meta: dict[str, Any], description: str = "",
                          scenario: str | None = None) -> ReplayScript:
    """A replay script of a game played elsewhere (e.g.
    :func:`agents.evaluation.tournament.play_game`), from its decision labels and chance outcome
    ids: the two are interleaved by playing them back (a chance node takes the next outcome, a
    decision node the next label), which is exact because the game is deterministic given both.
    Stops where either runs out (a truncated game). ``scenario`` overrides the game's scenario name
    (e.g. the TOML path the game was built from).

    Raises:
        ReplayError: when a label or outcome does not apply (a record of another game).
    """
    state = game.new_initial_state()
    labels: list[str] = []
    di = ci = 0
    while state.current_player() != TERMINAL:
        if state.current_player() == CHANCE:
            if ci >= len(chance):
                break
            o = chance[ci]
            ci += 1
            labels.append(game.chance.labels[o])
        else:
            if di >= len(decisions):
                break
            lab = decisions[di][2]
            di += 1
            labels.append(lab)
            o = state.string_to_action(lab)
        try:
            state.apply_action(o)
        except RiposteError as e:
            raise ReplayError(f"record does not replay at step {len(labels) - 1}: {e}") from None
    if di != len(decisions) or ci != len(chance):
        raise ReplayError(f"record does not replay: {len(decisions) - di} decision(s) and "
                          f"{len(chance) - ci} chance outcome(s) left over")
    cfg = game.config()
    return ReplayScript(cfg["ruleset"], scenario or cfg["scenario"], dict(cfg["params"]), labels,
                        description=description, meta=dict(meta))


def safe_name(name: str) -> str:
    """``name`` (an agent name or checkpoint path) as a file-name piece."""
    import re

    stem = Path(name).stem if ("/" in name or name.endswith(".zip")) else name
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)[:40] or "agent"


def record_tournament_game(directory: str | Path, game: Game, args: Any, a: str, b: str, i: int,
                           rec: Any) -> Path:
    """Write game ``i`` of the pairing ``a`` vs ``b`` of an ``evaluate.py`` tournament as a
    replay script ``DIR/<a>-vs-<b>-<i>.toml`` (atomically): labels incl. chance outcomes, and
    ``[meta]`` with the agent names by side, the tournament seed, the spawn keys of the chance
    and agent seeds (:func:`agents.evaluation.tournament.chance_seed` / ``agent_seed``), the returns
    and whether the game was truncated.

    Raises:
        ReplayError: when the record does not replay; OSError when the file cannot be written.
    """
    from envs.core.files import atomic_write_text

    names = list(args.agents)
    pair = _pair_index(names, a, b)
    seats = [a, b] if i % 2 == 0 else [b, a]
    meta = {"agents": seats, "pairing": [a, b], "game": i, "seed": int(args.seed),
            "chance_spawn_key": [0, i // 2], "agent_spawn_keys": [[1, pair, i, 0], [1, pair, i, 1]],
            "returns": [float(r) for r in rec.returns], "truncated": bool(rec.truncated)}
    script = replay_from_decisions(
        game, rec.decisions, rec.chance, meta, scenario=args.scenario,
        description=f"evaluate.py game {i} of {a} vs {b} (seed {args.seed}): "
                    f"{seats[0]} as {game.side_names[0]}, {seats[1]} as {game.side_names[1]}")
    path = Path(directory) / f"{safe_name(a)}-vs-{safe_name(b)}-{i:03d}.toml"
    atomic_write_text(path, script.to_toml())
    return path


def _pair_index(names: list[str], a: str, b: str) -> int:
    import itertools

    for k, (x, y) in enumerate(itertools.combinations(names, 2)):
        if (x, y) == (a, b):
            return k
    return -1
