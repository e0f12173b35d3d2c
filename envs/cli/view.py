"""``python -m envs view FILE --out game.html``: one self-contained HTML file of a game.

FILE is a replay script (TOML: ruleset, scenario, params, action labels, optional ``[meta]``
— what ``evaluate.py --record DIR`` writes) or a game record (the JSON of ``State.to_json()``,
e.g. from ``python -m envs replay FILE --json``). The page shows the table as SVG (the ruleset's
:meth:`~envs.core.protocol.Game.drawing`), a slider and step buttons through every node of the
game, the decision and its legal labels at each step (the one taken in bold), the event log with
rule ids, and reaction windows highlighted (an orange frame and badge; "next reaction" jumps to
the next one). It needs no network access to open.

Errors (an ``--out`` name not ending in ``.html`` or ``.htm``, a file that is not a replay, an
illegal label in it, a game record whose stored state disagrees with its history, an unwritable
output) print one line ``error: ...`` and exit with status 2; the output is written atomically.
"""

from __future__ import annotations

import html
from pathlib import Path

from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, check_output_suffix

from .page import CSS, embed_json
from .records import build_frames, load_game_file

TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Riposte replay: __TITLE__</title>
<style>__CSS__</style></head>
<body>
<h1>Riposte replay: __TITLE__</h1>
<div class="sub" id="meta">__META__</div>
<div class="wrap">
 <div>
  <div class="board" id="board"></div>
  <div class="caption" id="caption"></div>
  <div class="controls">
   <button id="first" title="first step (Home)">&laquo;</button>
   <button id="prev" title="previous step (&#x2190;)">&#x25C0;</button>
   <input type="range" id="slider" min="0" max="0" value="0">
   <button id="next" title="next step (&#x2192;)">&#x25B6;</button>
   <button id="last" title="last step (End)">&raquo;</button>
   <button id="next-reaction" title="next reaction window">next reaction</button>
  </div>
  <div class="caption"><span id="step-label"></span></div>
 </div>
 <div class="side">
  <div class="panel">
   <span class="badge hidden" id="window-badge">Reaction window</span>
   <div id="decision"></div>
   <ul class="legal" id="legal"></ul>
   <div id="result" class="result"></div>
  </div>
  <div class="panel"><b>Event log</b> (rule ids in purple)
   <div class="log" id="log"></div></div>
 </div>
</div>
<script type="application/json" id="data">__DATA__</script>
<script>
const D = JSON.parse(document.getElementById("data").textContent);
const N = D.frames.length;
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
$("slider").max = N - 1;
const logEl = $("log");
D.events.forEach((e, i) => {
  const div = document.createElement("div");
  div.dataset.step = e.step;
  if (e.kind.startsWith("window")) div.classList.add("window");
  div.innerHTML = '<span class="rules">[' + esc(e.rules.join(", ")) + ']</span> ' + esc(e.text);
  logEl.appendChild(div);
});
let cur = 0;
function show(k) {
  cur = Math.max(0, Math.min(N - 1, k));
  const f = D.frames[cur];
  $("slider").value = cur;
  $("board").innerHTML = D.svgs[f.svg];
  $("board").classList.toggle("reaction", f.window);
  $("window-badge").classList.toggle("hidden", !f.window);
  $("caption").textContent = f.caption;
  $("step-label").textContent = "step " + cur + " / " + (N - 1);
  let dec = "<b>" + esc(f.who) + "</b>";
  if (f.player >= 0) dec += " decides (" + esc(f.decision) + ")";
  else if (f.player === -1) dec += ": dice";
  if (f.chosen !== null) dec += " &rarr; <b>" + esc(f.chosen_words || f.chosen) + "</b>";
  $("decision").innerHTML = dec;
  $("legal").innerHTML = f.legal.map((l, i) =>
    '<li class="' + (l === f.chosen ? "chosen" : "") + '" title="' + esc(f.legal_words[i]) +
    '">' + esc(l) + (f.legal_words[i] !== l ? " &mdash; " + esc(f.legal_words[i]) : "") +
    "</li>").join("");
  $("result").textContent = f.returns ? "Game over: returns " + f.returns.map(
    (r, i) => D.side_names[i] + " " + r).join(", ") : "";
  let lastShown = null;
  for (const div of logEl.children) {
    const s = Number(div.dataset.step);
    div.style.display = s <= cur ? "" : "none";
    div.classList.toggle("new", s === cur && cur > 0);
    if (s <= cur) lastShown = div;
  }
  if (lastShown) logEl.scrollTop = lastShown.offsetTop - logEl.offsetTop - 200;
}
$("slider").addEventListener("input", e => show(Number(e.target.value)));
$("first").onclick = () => show(0);
$("prev").onclick = () => show(cur - 1);
$("next").onclick = () => show(cur + 1);
$("last").onclick = () => show(N - 1);
$("next-reaction").onclick = () => {
  for (let k = cur + 1; k < N; k++) if (D.frames[k].window) return show(k);
};
document.addEventListener("keydown", e => {
  if (e.key === "ArrowRight") show(cur + 1);
  else if (e.key === "ArrowLeft") show(cur - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(N - 1);
});
show(0);
</script>
</body></html>
"""


def render_html(data: dict) -> str:
    """The viewer page for ``build_frames`` output (a str, self-contained)."""
    meta = data.get("meta") or {}
    bits = [f"{data['kind']} {html.escape(Path(data['source']).name)}"]
    agents = meta.get("agents")
    if isinstance(agents, list):
        bits.append(" vs ".join(f"{html.escape(str(a))} ({html.escape(s)})"
                                for a, s in zip(agents, data["side_names"])))
    for k in ("seed", "result", "game"):
        if k in meta:
            bits.append(f"{k} {html.escape(str(meta[k]))}")
    params = data["config"].get("params") or {}
    if params.get("pips_fixed"):
        bits.append("pips fixed")
    return (TEMPLATE.replace("__TITLE__", html.escape(data["title"]))
            .replace("__CSS__", CSS).replace("__META__", " · ".join(bits))
            .replace("__DATA__", embed_json(data)))


def main(file: str, out: str) -> int:
    """Write the viewer page of ``file`` to ``out`` (a name ending in ``.html`` or ``.htm``,
    checked before any work); 0 on success, 2 with one ``error:`` line on stderr otherwise."""
    import sys

    try:
        check_output_suffix(out, (".html", ".htm"), "--out", "the viewer writes an HTML page",
                            inputs=[file])
        data = build_frames(load_game_file(file))
        atomic_write_text(out, render_html(data))
    except RiposteError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {out}: {len(data['frames'])} steps, {len(data['events'])} events")
    return 0
