"""Training presets: the values ``train.py`` starts from, as TOML files.

Each ruleset's own training defaults are the preset file beside this module named after the
ruleset (``acw_regimental.toml``, ``atomic_africa.toml``, ``skirmish_alert.toml``); ``train.py
--preset NAME`` reads another shipped preset and ``--config FILE`` any file of the same form.
A preset's top-level keys are ``train.py`` flags, spelled as :class:`agents.training.train_cli.Args`
fields (``n_epochs`` for ``--n-epochs``); the table ``[sb3]`` holds values that apply only
when training on the sb3 backend. ``"none"`` is the value None of an optional flag, as on the
command line. ``resume`` and ``overwrite`` are command-line flags only.

A file is read as strict UTF-8 TOML and validated with pydantic (strict types, unknown keys
refused); a problem is a :class:`PresetError` whose message is one line naming the file and
the key (``train.py`` prints it as ``error: ...`` and exits with status 2).
"""

from __future__ import annotations

import dataclasses
import difflib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

#: the directory of the shipped presets (package data)
PRESET_DIR = Path(__file__).resolve().parent
#: keys a preset file cannot hold: what to do with the run directory is the command line's
COMMAND_LINE_ONLY = ("resume", "overwrite")
#: the table of values for the sb3 backend only
SB3_TABLE = "sb3"


class PresetError(Exception):
    """A preset or ``--config`` file that cannot be used (one line naming the file and key)."""


@dataclass(frozen=True)
class Preset:
    """A validated preset file.

    Attributes:
        path: the file it was read from.
        values: the top-level keys (every backend), by :class:`Args` field name.
        sb3: the keys of its ``[sb3]`` table (the sb3 backend only).
    """

    path: Path
    values: dict[str, Any]
    sb3: dict[str, Any]

    def for_backend(self, backend: str) -> dict[str, Any]:
        """The values this preset sets when training on ``backend`` (``"sb3"`` or
        ``"rllib"``): the top-level keys, and for sb3 its table's over them."""
        return {**self.values, **(self.sb3 if backend == "sb3" else {})}


def preset_names() -> list[str]:
    """The names of the shipped presets (``--preset NAME``), sorted."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def preset_path(name: str) -> Path:
    """The file of the shipped preset ``name``.

    Raises:
        PresetError: no shipped preset has that name (the message lists them).
    """
    path = PRESET_DIR / f"{name}.toml"
    if "/" in name or "\\" in name or not path.is_file():
        raise PresetError(f"--preset {name!r}: no such preset; shipped presets: "
                          f"{', '.join(preset_names())} (a file of your own: --config FILE)")
    return path


def ruleset_preset(ruleset: str, schema: type) -> Preset | None:
    """The preset of ``ruleset`` (its training defaults), or None for a ruleset without one;
    ``schema`` as for :func:`read_preset`.

    Raises:
        PresetError: the shipped file is not valid.
    """
    path = PRESET_DIR / f"{ruleset}.toml"
    return read_preset(path, schema) if path.is_file() else None


def read_preset(path: str | Path, schema: type) -> Preset:
    """Read and validate a preset file whose keys are the fields of the dataclass ``schema``
    (:class:`agents.training.train_cli.Args`).

    Raises:
        PresetError: the file is missing, unreadable, not UTF-8 TOML (also a UTF-8 byte order
            mark), holds an unknown key or a value of the wrong type: one line naming the file
            and the key.
    """
    import pydantic

    from envs.core.errors import ScenarioError
    from envs.core.scenario import format_validation_error, read_toml

    path = Path(path)
    try:
        data = read_toml(path)
    except ScenarioError as exc:
        raise PresetError(str(exc).splitlines()[0]) from None
    for key in COMMAND_LINE_ONLY:
        if key in data or key in (data.get(SB3_TABLE) or {}):
            raise PresetError(f"{path}: {key}: --{key} is a command-line flag only, not a "
                              f"setting of a preset")
    try:
        model = _model(schema).model_validate(data)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        if err["type"] == "extra_forbidden":
            key = ".".join(str(p) for p in err["loc"])
            name = str(err["loc"][-1])
            near = difflib.get_close_matches(name, _field_types(schema), n=1)
            raise PresetError(f"{path}: {key}: unknown key (keys are train.py flags with "
                              f"underscores" + (f"; did you mean {near[0]!r}?" if near else "")
                              + ")") from None
        raise PresetError(format_validation_error(exc, str(path)).splitlines()[0]) from None
    values = model.model_dump(exclude_unset=True)
    sb3 = values.pop(SB3_TABLE, None) or {}
    return Preset(path, values, sb3)


def to_toml(values: dict[str, Any]) -> str:
    """``values`` (:class:`Args` fields) as the lines of a preset file, in their order; None is
    written ``"none"``. Raises ValueError for a value TOML cannot hold (not one of bool, int,
    finite float, str and lists of them)."""
    import json
    import math

    def fmt(v: Any) -> str:
        if v is None:
            return '"none"'
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float) and math.isfinite(v):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(fmt(x) for x in v) + "]"
        raise ValueError(f"{v!r} cannot be written as TOML")

    return "".join(f"{k} = {fmt(v)}\n" for k, v in values.items())


def _field_types(schema: type) -> dict[str, Any]:
    """Each field of the dataclass ``schema`` a preset may set, with its type."""
    hints = typing.get_type_hints(schema)
    return {f.name: hints[f.name] for f in dataclasses.fields(schema)
            if f.name not in COMMAND_LINE_ONLY}


def _none_word(value: Any) -> Any:
    """``"none"`` (any case) is None, as on the command line."""
    return None if isinstance(value, str) and value.strip().lower() == "none" else value


_MODELS: dict[type, Any] = {}


def _model(schema: type) -> Any:
    """The pydantic model of a preset file: every field of ``schema`` optional (unset: not in
    the file), strict types, unknown keys refused, and the ``[sb3]`` table of the same
    fields."""
    if schema not in _MODELS:
        import pydantic

        config = pydantic.ConfigDict(extra="forbid", strict=True)
        fields: dict[str, Any] = {}
        for name, tp in _field_types(schema).items():
            if type(None) in typing.get_args(tp):
                tp = Annotated[tp, pydantic.BeforeValidator(_none_word)]
            fields[name] = (tp, None)
        table = pydantic.create_model("Sb3Table", __config__=config, **fields)
        _MODELS[schema] = pydantic.create_model("Preset", __config__=config,
                                                **{**fields, SB3_TABLE: (table, None)})
    return _MODELS[schema]
