"""Test helpers that say what went wrong: event assertions that compare ``Event.data`` and, when
they fail, print the events' text (and a sketch of the table for an ACW state).

    from tests.events import assert_event
    fire = assert_event(s, "fire", dice=5, needed=3, band="short", rules=["RULE-04-2.3"])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from envs.core.events import Event


def events_of(state: Any, kind: str) -> list[Event]:
    """The events of ``kind`` in ``state``'s log, in order."""
    return [e for e in state.events if e.kind == kind]


def sketch_of(state: Any) -> str:
    """The table sketch of ``state`` when its ruleset has one (ACW), else ``""``."""
    if getattr(getattr(state, "game", None), "ruleset_id", None) == "acw_regimental":
        from envs.rulesets.acw_regimental.sketch import render_sketch
        return render_sketch(state)
    return ""


def _matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) and not isinstance(actual, bool):
        return actual == pytest.approx(expected, abs=0.01)
    return actual == expected


def _describe(events: Iterable[Event]) -> str:
    return "\n".join(f"  #{i}: {e.format()}\n      data={e.data!r} side={e.side!r}"
                     for i, e in enumerate(events)) or "  (none)"


def assert_event(state: Any, kind: str, index: int = 0, *, count: int | None = None,
                 side: Any = ..., rules: Iterable[str] = (), **data: Any) -> Event:
    """Assert that the ``index``-th event of ``kind`` (negative counts from the end) exists, has
    every ``data`` item (a float to 0.01, or give ``pytest.approx(...)``), cites every id in
    ``rules`` and, when given, concerns ``side``; with ``count``, that there are exactly that
    many events of ``kind``.

    Returns:
        The event.

    Raises:
        AssertionError: naming each mismatch, with the text and data of every event of ``kind``,
            the last events of the log and, for an ACW state, the table sketch.
    """
    __tracebackhide__ = True  # pytest: show the caller's line, not this helper's source
    found = events_of(state, kind)
    problems = []
    if count is not None and len(found) != count:
        problems.append(f"expected {count} {kind!r} event(s), found {len(found)}")
    event = None
    if -len(found) <= index < len(found):
        event = found[index]
        for key, want in data.items():
            if key not in event.data:
                problems.append(f"data[{key!r}] missing (expected {want!r})")
            elif not _matches(event.data[key], want):
                problems.append(f"data[{key!r}] = {event.data[key]!r}, expected {want!r}")
        missing = [r for r in rules if r not in event.rules]
        if missing:
            problems.append(f"rules {list(event.rules)} lack {missing}")
        if side is not ... and event.side != side:
            problems.append(f"side = {event.side!r}, expected {side!r}")
    else:
        problems.append(f"no {kind!r} event #{index} (found {len(found)})")
    if problems:
        recent = state.events[-12:]
        message = (f"event {kind!r} #{index}: " + "; ".join(problems)
                   + f"\n{kind!r} events:\n{_describe(found)}"
                   + "\nlast events of the log:\n"
                   + "\n".join("  " + e.format() for e in recent))
        sketch = sketch_of(state)
        if sketch:
            message += "\ntable:\n" + sketch
        raise AssertionError(message)
    return event
