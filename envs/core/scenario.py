"""Scenario and parameter loading: TOML files validated on load.

Errors name the file, the key and the problem, and never leak a traceback from deep inside the
engine: every failure becomes a :class:`envs.core.errors.ScenarioError` (bad files) or
:class:`envs.core.errors.ParameterError` (bad parameters).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import pydantic

from .errors import ParameterError, ScenarioError
from .files import input_file_problem

M = TypeVar("M", bound=pydantic.BaseModel)


def key_path(loc: tuple[Any, ...]) -> str:
    """A key's path in a file as the error messages write it: ``("units", 2, "x")`` ->
    ``units[2].x``; ``()`` -> ``<top level>``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "<top level>"


#: a union member's tag in a pydantic error location (``constrained-int``,
#: ``literal['roll_off']``, ``function-after[...]``, a bare type name): not a key of the file
_UNION_TAG = re.compile(r"^(?:int|float|str|bool|bytes|none|[a-z]+(?:-[a-z]+)+(?:\[.*\])?|"
                        r"[a-z]+\[.*\])$", re.S)


def format_validation_error(err: pydantic.ValidationError, source: str) -> str:
    """One line per problem: ``source: key.path: message``. A value that fits none of a
    union's alternatives is one problem: the alternatives' messages joined by ``, or``
    (pydantic reports one error per alternative, under a tag that is not a key)."""
    problems: dict[tuple[str, int], list[str]] = {}
    for i, e in enumerate(err.errors()):
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and _UNION_TAG.match(p)))
        # alternatives of one union share a line; other problems keep their own
        msgs = problems.setdefault((key_path(loc), -1 if loc != tuple(e["loc"]) else i), [])
        if e["msg"] not in msgs:
            msgs.append(e["msg"])
    return "\n".join(f"{source}: {where}: {', or '.join(msgs)}"
                     for (where, _), msgs in problems.items())


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file.

    Raises:
        ScenarioError: when the file is missing, unreadable, not UTF-8 text (also: starts with
            a UTF-8 byte order mark) or not valid TOML (names the file).
    """
    p = Path(path)
    if input_file_problem(p) == "not a regular file":  # (/dev/zero: reading it never ends)
        raise ScenarioError(f"{p}: not a regular file")
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ScenarioError(f"{p}: file not found") from None
    except tomllib.TOMLDecodeError as e:
        if p.read_bytes().startswith(b"\xef\xbb\xbf"):  # (tomllib: "Invalid statement")
            raise ScenarioError(f"{p}: not valid TOML: the file starts with a UTF-8 byte "
                                f"order mark; save it as UTF-8 without one") from None
        raise ScenarioError(f"{p}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:  # tomllib decodes the bytes as UTF-8 before parsing
        raise ScenarioError(f"{p}: not valid TOML (not UTF-8 text: {e})") from None
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read: {e.strerror}") from None


def validate_scenario(model: type[M], data: Mapping[str, Any], source: str) -> M:
    """Validate ``data`` against a pydantic ``model``.

    Raises:
        ScenarioError: naming ``source`` (the file), the key and the problem.
    """
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        raise ScenarioError(format_validation_error(e, source)) from None


def validate_params(model: type[M], params: Mapping[str, Any] | None, source: str = "params") -> M:
    """Validate game parameters against a pydantic ``model`` (strict types, unknown keys refused).

    Raises:
        ParameterError: naming the parameter and the problem.
    """
    try:
        return model.model_validate(dict(params or {}))
    except pydantic.ValidationError as e:
        raise ParameterError(format_validation_error(e, source)) from None


def resolve_scenario_path(name_or_path: str | Path, builtin_dir: Path) -> Path:
    """A built-in scenario name (``builtin_dir/NAME.toml``) or a path to a TOML file.

    Raises:
        ScenarioError: when neither exists (lists the built-in names), or the path is a
            directory or not a regular file (a device such as ``/dev/zero``, a FIFO).
    """
    s = str(name_or_path)
    p = Path(s)
    if p.suffix == ".toml" or p.exists():
        if p.is_dir():
            raise ScenarioError(f"{p}: is a directory, not a scenario file")
        if input_file_problem(p) == "not a regular file":  # (/dev/zero: no scenario file)
            raise ScenarioError(f"{p}: not a regular file")
        if not p.is_file():
            raise ScenarioError(f"{p}: scenario file not found")
        return p
    cand = builtin_dir / f"{s}.toml"
    if cand.is_file():
        return cand
    names = sorted(q.stem for q in builtin_dir.glob("*.toml"))
    raise ScenarioError(f"unknown scenario {s!r}: not a file and not a built-in scenario "
                        f"(built-in: {', '.join(names)})")


def parse_param_value(text: str) -> Any:
    """A game parameter's value written on a command line (``--param NAME=VALUE``): a TOML
    value (``true``, ``3``, ``2.5``, ``"x"``, ``[10, 20, 40]``); ``True``/``False`` in any
    case; a list of bare words (``[pass, rest]``) as a list of strings; else the text itself
    as a string."""
    import tomllib

    t = text.strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        return tomllib.loads(f"v = {t}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if t.startswith("[") and t.endswith("]"):
        inner = t[1:-1].strip()
        return [parse_param_value(x) for x in split_top_level(inner)] if inner else []
    return t


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """``text`` split at the ``sep`` characters outside brackets and quotes
    (``"a=1,b=[1,2]"`` -> ``["a=1", "b=[1,2]"]``)."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts
