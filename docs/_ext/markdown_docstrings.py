"""Let autodoc read the Markdown parts of Riposte's docstrings.

The environment and ruleset module docstrings follow Gymnasium's env docstring template, which
is written in Markdown (``## Action Space`` headings, pipe tables), as PettingZoo's and
Gymnasium's own sites render them. Before autodoc parses a docstring as reStructuredText, this
hook turns

* a ``## Heading`` / ``### Heading`` line into a ``.. rubric::``;
* a pipe table (header row, ``|---|`` row, body rows) into a ``.. list-table::``, with
  Markdown ``code`` spans made reStructuredText literals.

Everything else is left as it is.
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{2,4})\s+(.+?)\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_CODE = re.compile(r"(?<![`:\w])`([^`]+)`(?![`_])")


def split_row(line: str) -> list[str]:
    """The cells of one pipe-table row; a ``|`` inside a code span does not split."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    cells, cell, in_code = [], [], False
    for ch in text:
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(ch)
    cells.append("".join(cell).strip())
    return cells


def _cell(text: str) -> str:
    return _CODE.sub(r"``\1``", text) or " "


def _list_table(rows: list[list[str]], indent: str) -> list[str]:
    out = [f"{indent}.. list-table::", f"{indent}   :header-rows: 1", ""]
    for row in rows:
        for j, cell in enumerate(row):
            out.append(f"{indent}   {'* -' if j == 0 else '  -'} {_cell(cell)}")
    out.append("")
    return out


def convert(lines: list[str]) -> list[str]:
    """The docstring ``lines`` with Markdown headings and pipe tables made reStructuredText."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.match(line)
        if heading:
            out += [f".. rubric:: {heading.group(2)}", ""]
            i += 1
            continue
        stripped = line.lstrip()
        if (stripped.startswith("|") and i + 1 < len(lines)
                and _SEPARATOR.match(lines[i + 1]) and "-" in lines[i + 1]):
            indent = line[: len(line) - len(stripped)]
            header = split_row(line)
            rows = [header]
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                row = split_row(lines[i])
                rows.append((row + [""] * len(header))[: len(header)])
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += _list_table(rows, indent)
            continue
        out.append(line)
        i += 1
    return out


def _process(app, what, name, obj, options, lines: list[str]) -> None:
    lines[:] = convert(lines)


def setup(app):
    app.connect("autodoc-process-docstring", _process)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
