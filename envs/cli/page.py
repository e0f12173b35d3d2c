"""Pieces shared by the viewer's HTML file and the play page: the style sheet and safe JSON
embedding. Everything is inline: the pages fetch nothing from outside the machine."""

from __future__ import annotations

import json
from typing import Any

CSS = """
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; padding: 12px; background: #f4f2ea;
       color: #222; }
h1 { font-size: 18px; margin: 0 0 6px 0; }
.sub { color: #555; font-size: 13px; margin-bottom: 8px; }
.wrap { display: flex; gap: 12px; align-items: flex-start; flex-wrap: wrap; }
.board { background: #fff; border: 3px solid #bbb; padding: 4px; border-radius: 4px; }
.board.reaction { border-color: #ffb000; box-shadow: 0 0 0 3px #ffe3a0; }
.board svg { display: block; width: 768px; height: auto; max-width: 100%; }
.side { width: 430px; max-width: 100%; }
.panel { background: #fff; border: 1px solid #ccc; border-radius: 4px; padding: 8px;
         margin-bottom: 8px; font-size: 13px; }
.caption { font-size: 13px; margin: 4px 0; }
.badge { display: inline-block; background: #ffb000; color: #000; font-weight: bold;
         padding: 2px 8px; border-radius: 10px; font-size: 12px; }
.badge.hidden { display: none; }
.controls { display: flex; gap: 6px; align-items: center; margin: 6px 0; }
.controls input[type=range] { flex: 1; }
button { font-size: 13px; padding: 4px 8px; cursor: pointer; }
button.action { display: block; width: 100%; text-align: left; margin: 3px 0; }
button.action:disabled { color: #999; cursor: not-allowed; background: #eee; }
.legal li.chosen { font-weight: bold; color: #0a5; }
.log { height: 300px; overflow-y: auto; font-family: ui-monospace, monospace; font-size: 12px;
       background: #fff; border: 1px solid #ccc; padding: 4px; }
.log div { padding: 1px 2px; border-bottom: 1px solid #f0f0f0; }
.log div.new { background: #fff3c4; }
.log div.window { border-left: 4px solid #ffb000; }
.rules { color: #8a2be2; }
.error { background: #fde2e1; border: 1px solid #d62728; color: #8b0000; padding: 6px;
         border-radius: 4px; margin-bottom: 8px; }
.error.hidden { display: none; }
.result { font-weight: bold; font-size: 15px; }
"""


def embed_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script type="application/json">`` element."""
    return (json.dumps(data, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
