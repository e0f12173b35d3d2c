"""A failing ACW test shows the table: every ACW state held by a local variable of the failing
test (or of a helper it called from tests/) is drawn with ``render_sketch`` and appended to
the failure report, under "table sketch: <variable>"."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from tests.events import sketch_of

TESTS = Path(__file__).resolve().parents[1]
#: at most this many sketches per failure (the first states found)
MAX_SKETCHES = 3


def states_in_traceback(tb: TracebackType | None,
                        test_file: Path | None = None) -> list[tuple[str, Any]]:
    """``(variable name, state)`` of each distinct ACW state held by a local variable of a
    frame of ``tb`` whose file is under ``tests/`` (or is ``test_file``), innermost frame
    first."""
    frames = []
    while tb is not None:
        path = Path(tb.tb_frame.f_code.co_filename).resolve()
        if path.is_relative_to(TESTS) or path == test_file:
            frames.append(tb.tb_frame)
        tb = tb.tb_next
    found: list[tuple[str, Any]] = []
    seen: set[int] = set()
    for frame in reversed(frames):
        for name, value in frame.f_locals.items():
            if id(value) not in seen and getattr(getattr(value, "game", None), "ruleset_id",
                                                 None) == "acw_regimental" \
                    and hasattr(value, "units"):
                seen.add(id(value))
                found.append((name, value))
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or call.excinfo is None:
        return
    if "\ntable:\n" in str(call.excinfo.value):  # tests.events.assert_event drew it already
        return
    test_file = Path(str(item.path)).resolve() if getattr(item, "path", None) else None
    for name, state in states_in_traceback(call.excinfo.tb, test_file)[:MAX_SKETCHES]:
        try:
            text = sketch_of(state)
        except Exception as e:  # a sketch must never hide the real failure
            text = f"(no sketch: {type(e).__name__}: {e})"
        title = f"table sketch: {name}"
        if hasattr(report.longrepr, "addsection"):
            report.longrepr.addsection(title, text)
        else:
            report.sections.append((title, text))
