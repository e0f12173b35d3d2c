"""Replay scripts: a TOML file naming a ruleset, a scenario, optional parameters and a list of
action labels (decisions and chance outcomes interleaved).

Example::

    ruleset  = "acw_regimental"
    scenario = "example_a_closing_volley"      # built-in name, or a path relative to this file
    actions  = ["charge:e0", "d6=3", ...]

    [params]
    pips_fixed = true

    [meta]                                     # optional, free-form: who played, seeds, result
    agents = ["heuristic", "random"]           # by side
    seed = 17

Golden tests, bug reports and held-out checks all use this one format.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import IllegalActionError, ReplayError, RiposteError
from .protocol import TERMINAL, Game, State
from .registry import load_game
from .scenario import read_toml


@dataclass(slots=True)
class ReplayScript:
    ruleset: str
    scenario: str | None
    params: dict[str, Any] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    source: str = "<script>"
    description: str = ""
    #: free-form facts about the game (agent names by side, seeds, result); not used to play
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> "ReplayScript":
        """Read and check a replay TOML file.

        Raises:
            ReplayError: naming the file and the bad key.
        """
        p = Path(path)
        try:
            data = read_toml(p)
        except RiposteError as e:
            raise ReplayError(str(e)) from None
        return cls.from_mapping(data, source=str(p), base_dir=p.parent)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "<script>",
                     base_dir: Path | None = None) -> "ReplayScript":
        unknown = set(data) - {"ruleset", "scenario", "params", "actions", "description", "meta"}
        if unknown:
            raise ReplayError(f"{source}: unknown key(s) {sorted(unknown)}")
        ruleset = data.get("ruleset")
        if not isinstance(ruleset, str):
            raise ReplayError(f"{source}: ruleset: required string")
        scenario = data.get("scenario")
        if scenario is not None and not isinstance(scenario, str):
            raise ReplayError(f"{source}: scenario: must be a string (name or path)")
        if scenario and scenario.endswith(".toml") and base_dir is not None:
            cand = base_dir / scenario
            if cand.is_file():
                scenario = str(cand)
        params = data.get("params", {})
        if not isinstance(params, Mapping):
            raise ReplayError(f"{source}: params: must be a table")
        actions = data.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ReplayError(f"{source}: actions: must be a list of label strings")
        meta = data.get("meta", {})
        if not isinstance(meta, Mapping):
            raise ReplayError(f"{source}: meta: must be a table")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise ReplayError(f"{source}: description: must be a string")
        return cls(ruleset, scenario, dict(params), list(actions), source, description,
                   dict(meta))

    def to_toml(self) -> str:
        """The script as TOML text that :meth:`load` reads back to an equal script (strings,
        numbers, booleans, lists of them and one level of tables in ``params``/``meta``).

        A parameter set to ``None`` is left out: ``None`` is the default of every optional
        parameter of every ruleset (``ACWParams``, ``AAParams``, ``AlertParams``), so the
        script loads back to the same game (TOML has no null).

        Raises:
            ReplayError: for a value TOML cannot hold here (e.g. None in ``meta``, nested
                tables).
        """
        lines = []
        if self.description:
            lines.append(f"description = {_toml_value(self.description, 'description')}")
        lines.append(f"ruleset = {_toml_value(self.ruleset, 'ruleset')}")
        if self.scenario is not None:
            lines.append(f"scenario = {_toml_value(self.scenario, 'scenario')}")
        lines.append("actions = [")
        lines.extend(f"  {_toml_value(a, 'actions')}," for a in self.actions)
        lines.append("]")
        for name in ("params", "meta"):
            table = getattr(self, name)
            if table:
                lines.append("")
                lines.append(f"[{name}]")
                for k, v in table.items():
                    if v is None and name == "params":
                        continue
                    lines.append(f"{_toml_key(k)} = {_toml_value(v, f'{name}.{k}')}")
        return "\n".join(lines) + "\n"

    def new_state(self) -> State:
        try:
            game: Game[Any] = load_game(self.ruleset, self.scenario, self.params)
        except RiposteError as e:
            raise ReplayError(f"{self.source}: {e}") from None
        state: State = game.new_initial_state()
        return state

    def play(self, upto: int | None = None) -> State:
        """Play the labels (the first ``upto`` of them) from the initial state.

        Raises:
            ReplayError: at the first unknown or illegal label, naming its position (0-based)
                and the legal labels there, or when labels remain after the end of the game.
        """
        state = self.new_state()
        play_labels(state, self.actions[:upto] if upto is not None else self.actions, self.source)
        return state


def _toml_key(k: str) -> str:
    import re

    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _toml_value(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if isinstance(v, float) and not math.isfinite(v):
            raise ReplayError(f"replay {where}: {v!r} cannot be written")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x, where) for x in v) + "]"
    raise ReplayError(f"replay {where}: a {type(v).__name__} cannot be written to a replay")


def play_labels(state: State, labels: Sequence[str], source: str = "<labels>") -> State:
    """Apply ``labels`` in order to ``state`` (in place), checked.

    Raises:
        ReplayError: naming the position, the label and the legal labels there.
    """
    for i, lab in enumerate(labels):
        if state.current_player() == TERMINAL:
            raise ReplayError(f"{source}: action {i} {lab!r}: the game has already ended")
        try:
            a = state.string_to_action(lab)
            state.apply_action(a)
        except IllegalActionError:
            why = ""
            try:
                a = state.string_to_action(lab)
                w = state.why_illegal(a)
                if w is not None:
                    why = f" ({w})"
            except IllegalActionError:
                why = f" ({_label_kind(state, lab)})"
            raise ReplayError(
                f"{source}: action {i} {lab!r} is not legal at this {state.decision_name()} "
                f"node{why}; legal labels: {state.legal_labels()}") from None
    return state


def _label_kind(state: State, label: str) -> str:
    """Why ``label`` is not in the catalogue of the current node: a chance outcome label at a
    decision node, a decision label at a chance node, or a label no catalogue knows."""
    from .protocol import CHANCE

    g = state.game
    if state.current_player() == CHANCE:
        if label in g.actions:
            return "a decision label, but this is a chance node: give a chance outcome label"
    elif label in g.chance:
        return "a chance outcome label, but this is a decision node: give a decision label"
    return "unknown label"


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "(absent)"


#: stands for a key or list item that one of two values compared by :func:`first_difference`
#: does not have
ABSENT: Any = _Absent()


def first_difference(x: Any, y: Any) -> tuple[tuple[str | int, ...], Any, Any] | None:
    """Where two JSON-like values (dicts, lists, scalars) first differ, or ``None`` when they
    are equal: ``(path, a, b)`` with ``path`` the keys and list indexes leading there
    (``("state", "units", 2, "x")``; :func:`envs.core.scenario.key_path` writes it as
    ``state.units[2].x``) and ``a``, ``b`` the two values there, or :data:`ABSENT` for a key or
    list item only the other one has. Keys are visited in sorted order and list items by
    index; values of different types differ (``1`` is not ``1.0``)."""

    def walk(a: Any, b: Any, path: tuple[str | int, ...]
             ) -> tuple[tuple[str | int, ...], Any, Any] | None:
        if type(a) is not type(b):
            return path, a, b
        if isinstance(a, dict):
            for key in sorted(set(a) | set(b), key=str):
                if key not in a or key not in b:
                    return (*path, key), a.get(key, ABSENT), b.get(key, ABSENT)
                d = walk(a[key], b[key], (*path, key))
                if d:
                    return d
            return None
        if isinstance(a, list):
            for i in range(max(len(a), len(b))):
                if i >= len(a) or i >= len(b):
                    return ((*path, i), a[i] if i < len(a) else ABSENT,
                            b[i] if i < len(b) else ABSENT)
                d = walk(a[i], b[i], (*path, i))
                if d:
                    return d
            return None
        return None if a == b else (path, a, b)

    return walk(x, y, ())


def transcript(state: State) -> list[str]:
    """The labels of a state's history (decisions and chance outcomes), replayable."""
    from .protocol import CHANCE

    g = state.game
    return [(g.chance if p == CHANCE else g.actions).labels[a] for p, a in state.history]
