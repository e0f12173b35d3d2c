"""``python -m envs play --ruleset acw_regimental --opponent AGENT [--side 0|1] [--scenario NAME]
[--port P] [--seed S] [--save FILE] [--param KEY=VALUE] [--hint SPEC] [--trust-checkpoint]``: a
person plays one side against an agent in the browser (two-sided battles).

The server (Flask on werkzeug's threaded server, bound to 127.0.0.1 only) keeps one game. The
page (inline HTML/CSS/JS, nothing fetched from outside the machine) shows the table as SVG (the
ruleset's :meth:`~envs.core.protocol.Game.drawing`), the current decision with every action of
the catalogue that matters here as a button in words — the legal ones enabled, the masked ones
greyed with ``why_illegal``'s rule ids on hover — the agent's moves and every die one at a time
as they happen (the page asks the server to advance one node at a time), reaction prompts in the
middle of the agent's move (the engine simply asks the person's side), the event log with rule
ids, and the result. At the end the game is saved as a replay script (TOML, ``[meta]`` naming
the players and the seed) that ``python -m envs view`` opens.

"What would the AI do?": with a search agent to ask (``--hint search:MODEL[:key=value...]`` or a
checkpoint path, else the opponent when it is a ``search:`` agent), the page offers a button at
the person's decision that runs that search (:meth:`agents.search.SearchAgent.analyse`) from the
person's side — on a sample of what that side cannot see, never on the opponent's hidden cards —
and shows each legal action's completed Q value, prior, improved policy and visits, and the
action the search would choose.

JSON API (used by the page and the tests): ``GET /api/state``; ``POST /api/start``;
``POST /api/advance`` (one chance outcome or agent decision); ``POST /api/act`` with
``{"action": id, "seq": n}`` — an illegal action (HTTP 400) or a stale one (``seq`` not the
current step, HTTP 409) is refused with an ``error`` the page shows, and the game goes on;
``POST /api/hint`` (the search's analysis of the person's decision, :meth:`PlaySession.hint`;
HTTP 404 without a search to ask, 409 when it is not the person's decision).

Bad input (unknown ruleset/scenario/agent, a checkpoint for another ruleset, a port in use, an
unwritable ``--save`` or one not ending in ``.toml``, a ``--hint`` that is not a search agent of
this ruleset) prints one ``error: ...`` line and exits with status 2.
"""

from __future__ import annotations

import errno
import html
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.chance import sample_chance_outcome
from envs.core.drawing import to_svg
from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, check_output_suffix
from envs.core.protocol import CHANCE, TERMINAL, Game, require_two_sides
from envs.core.registry import scenario_files
from envs.core.replay import ReplayScript, transcript

from .page import CSS, embed_json

#: how many of the latest steps (agent moves, dice) the page lists
RECENT = 12


class PlayError(RiposteError):
    """An action from the browser that cannot be taken (illegal, stale, game over)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class PlaySession:
    """One game between a person (``human_side``) and ``agent`` (a policy with ``act`` or a
    callable ``(observation, mask) -> id``). Thread-safe: every method takes the lock.

    Args:
        game: the game.
        agent: the opponent policy.
        agent_name: how the agent is named on the page and in the replay.
        human_side: the side the person plays.
        seed: seeds the dice (and the agent's ``reset(seed)`` when it has one).
        save_path: where the replay script is written when the game ends.
        scenario: the scenario as given (name or path), written into the replay.
        advisor: the search agent :meth:`hint` asks (an object with ``analyse(state,
            always)`` returning a :class:`~agents.search.SearchResult`; ``always=True``: every
            decision is searched, a confident prior too), or None for no hints. It is re-seeded
            from ``seed`` (spawn key 2) with the game, so the same game gives the same hints.
    """

    def __init__(self, game: Game, agent: Any, agent_name: str, human_side: int, seed: int,
                 save_path: str | Path, scenario: str | None = None, advisor: Any = None):
        self.game = game
        self.agent = agent
        self.agent_name = agent_name
        self.human_side = int(human_side)
        self.seed = int(seed)
        self.save_path = Path(save_path)
        self.scenario = scenario
        self.advisor = advisor
        self.lock = threading.Lock()
        from agents.policies.base import reads_state

        if reads_state(agent):  # an agent that decides from the state (a search agent)
            self._act = lambda observation, action_mask: agent.step(self.state)
        else:
            self._act = agent.act if callable(getattr(agent, "act", None)) else agent
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.state = self.game.new_initial_state()
            self.rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(0,)))
            for who, key in ((self.agent, 1), (self.advisor, 2)):
                reset = getattr(who, "reset", None)
                if callable(reset):
                    try:
                        reset(seed=np.random.SeedSequence(self.seed, spawn_key=(key,)))
                    except TypeError:
                        reset()
            self.started = False
            self.seq = 0
            self.recent: list[dict[str, Any]] = []
            self.saved: str | None = None
            self.save_error: str | None = None

    # -- what the page shows --------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        with self.lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        g, st = self.game, self.state
        p = st.current_player()
        d = g.drawing(st)
        out: dict[str, Any] = {
            "seq": self.seq, "started": self.started, "svg": to_svg(d, element_id="table"),
            "caption": d.caption, "human_side": self.human_side,
            "human_name": g.side_names[self.human_side],
            "agent_side": 1 - self.human_side, "agent_name": self.agent_name,
            "decision": st.decision_name(), "over": p == TERMINAL,
            "your_turn": self.started and p == self.human_side,
            "window": p >= 0 and st.decision_name() == "reaction",
            "who": ("dice" if p == CHANCE else "game over" if p == TERMINAL
                    else g.side_names[p]),
            "events": [{"rules": list(e.rules), "text": e.text, "kind": e.kind}
                       for e in st.events],
            "recent": list(self.recent), "saved": self.saved, "save_error": self.save_error,
            "actions": [], "hints": self.advisor is not None,
        }
        if out["your_turn"]:
            out["actions"] = self._action_buttons()
        if p == TERMINAL:
            r = [float(x) for x in st.returns()]
            mine = r[self.human_side]
            out["returns"] = r
            out["result"] = ("You win" if mine > max(r[s] for s in range(len(r))
                                                     if s != self.human_side)
                             else "You lose" if mine < max(r) else "Draw")
        return out

    def _action_buttons(self) -> list[dict[str, Any]]:
        """Every action of the catalogue that belongs to the current kind of decision: the
        legal ones, plus the masked ones of the same family (same label prefix) greyed with
        the rule ids that mask them."""
        g, st = self.game, self.state
        legal = set(st.legal_actions())
        families = {g.actions.labels[a].partition(":")[0] for a in legal}
        buttons = []
        for a, label in enumerate(g.actions.labels):
            fam = label.partition(":")[0]
            if a in legal:
                buttons.append({"id": a, "label": label, "words": g.action_words(st, a),
                                "legal": True, "why": ""})
            elif fam in families and ":" in label:
                why = st.why_illegal(a)
                if why is None:
                    continue
                if why.reason.startswith("no ") and "slot" in why.reason:
                    continue  # empty unit slots are noise on the page
                buttons.append({"id": a, "label": label, "words": g.action_words(st, a),
                                "legal": False, "why": str(why)})
        return buttons

    def hint(self) -> dict[str, Any]:
        """What the advisor's search makes of the person's decision ("What would the AI do?").
        The game is not changed (the search runs on copies, sampled from the person's
        information state).

        Returns:
            a dict with the keys ``seq``, ``decision``, ``advisor``, ``chosen`` (a dict of
            ``id``, ``label``, ``words``), ``root_value``, ``simulations``, ``seconds``,
            ``searched`` and ``actions``, a list with one entry per legal action, best
            completed Q first, each a dict of ``id``, ``label``, ``words``, ``q``, ``prior``,
            ``policy``, ``visits`` and ``chosen`` — ``q`` the completed Q value from the
            person's side in [-1, 1] (None when the decision has one legal action and is not
            searched), ``prior`` the network's probability, ``policy`` the search's improved
            policy.

        Raises:
            PlayError: 404 when the session has no advisor; 409 before Start, when it is not
                the person's decision, or when the game is over.
        """
        with self.lock:
            if self.advisor is None:
                raise PlayError("no search to ask: start play with --hint search:MODEL (or a "
                                "search:MODEL opponent)", 404)
            st, g = self.state, self.game
            if not self.started or st.current_player() != self.human_side:
                raise PlayError("the AI is asked at your decision only", 409)
            r = self.advisor.analyse(st, always=True)
            rows = []
            for a in r.legal_actions:
                q = r.q_values.get(a)
                rows.append({"id": int(a), "label": g.actions.labels[a],
                             "words": g.action_words(st, a),
                             "q": None if q is None else round(float(q), 4),
                             "prior": round(float(r.prior[a]), 4),
                             "policy": round(float(r.improved_policy[a]), 4),
                             "visits": int(r.visit_counts[a]), "chosen": a == r.action})
            rows.sort(key=lambda row: (row["q"] is None, -(row["q"] or 0.0), -row["policy"]))
            value = float(r.root_value)
            return {"seq": self.seq, "decision": st.decision_name(),
                    "advisor": str(getattr(self.advisor, "name", "search")),
                    "chosen": {"id": int(r.action), "label": g.actions.labels[r.action],
                               "words": g.action_words(st, r.action)},
                    "root_value": None if value != value else round(value, 4),
                    "simulations": int(r.simulations), "seconds": round(float(r.seconds), 3),
                    "searched": bool(r.searched), "actions": rows}

    # -- moves ----------------------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        with self.lock:
            self.started = True
            return self._view()

    def act(self, action: Any, seq: Any) -> dict[str, Any]:
        """The person's decision.

        Raises:
            PlayError: 409 for a stale ``seq`` (the page showed an older step) or when it is not
                the person's turn; 400 for an id that is not legal (naming why).
        """
        with self.lock:
            st, g = self.state, self.game
            if not self.started:
                raise PlayError("the game has not started: press Start", 409)
            if st.current_player() != self.human_side:
                raise PlayError(f"it is not your turn (waiting for "
                                f"{'the dice' if st.current_player() == CHANCE else 'the game'})",
                                409)
            if not isinstance(seq, int) or seq != self.seq:
                raise PlayError(f"stale action: it was chosen at step {seq}, the game is at step "
                                f"{self.seq}; the page has been refreshed", 409)
            if isinstance(action, bool) or not isinstance(action, int) \
                    or not 0 <= action < g.num_distinct_actions:
                raise PlayError(f"action {action!r} is not an action id 0.."
                                f"{g.num_distinct_actions - 1}")
            if action not in st.legal_actions():
                why = st.why_illegal(action)
                raise PlayError(f"illegal action {g.actions.labels[action]!r}"
                                + (f": {why}" if why is not None else "")
                                + f"; legal: {st.legal_labels()}")
            words = g.action_words(st, action)
            self._apply(action, f"You ({g.side_names[self.human_side]}): {words}", "human")
            return self._view()

    def advance(self) -> dict[str, Any]:
        """One chance outcome or one agent decision; nothing when the person is on move or the
        game is over."""
        with self.lock:
            st, g = self.state, self.game
            p = st.current_player()
            if not self.started or p == TERMINAL or p == self.human_side:
                return self._view()
            if p == CHANCE:
                o = sample_chance_outcome(st, self.rng)
                self._apply(o, f"die: {g.chance.labels[o]}", "chance")
                return self._view()
            mask = st.legal_action_mask()
            a = self._act(g.observation(st, p), mask.copy())
            a = int(a)
            if not (0 <= a < mask.size and mask[a]):
                raise PlayError(f"agent {self.agent_name} chose illegal action {a} "
                                f"({st.why_illegal(a) if 0 <= a < mask.size else 'not an id'})",
                                500)
            kind = "reaction" if st.decision_name() == "reaction" else "agent"
            self._apply(a, f"{self.agent_name} ({g.side_names[p]}): {g.action_words(st, a)}",
                        kind)
            return self._view()

    def _apply(self, a: int, text: str, kind: str) -> None:
        st = self.state
        st.apply_action(a)
        self.seq += 1
        self.recent.insert(0, {"seq": self.seq, "text": text, "kind": kind})
        del self.recent[RECENT:]
        if st.current_player() == TERMINAL and self.saved is None:
            self._save()

    def _save(self) -> None:
        g = self.game
        names = ["", ""]
        names[self.human_side] = "human"
        names[1 - self.human_side] = self.agent_name
        cfg = g.config()
        script = ReplayScript(cfg["ruleset"], self.scenario or cfg["scenario"],
                              dict(cfg["params"]), transcript(self.state),
                              description=f"python -m envs play: human as "
                                          f"{g.side_names[self.human_side]} against "
                                          f"{self.agent_name}",
                              meta={"agents": names, "seed": self.seed,
                                    "returns": [float(r) for r in self.state.returns()],
                                    "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                              time.gmtime())})
        try:
            atomic_write_text(self.save_path, script.to_toml())
            self.saved = str(self.save_path)
        except (OSError, RiposteError) as e:
            self.save_error = f"could not save the replay to {self.save_path}: {e}"


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Riposte: play __TITLE__</title>
<style>__CSS__
.panel.hidden { display: none; }
table.hint { border-collapse: collapse; width: 100%; margin-top: 4px; }
table.hint td, table.hint th { padding: 1px 4px; text-align: right; }
table.hint td:first-child, table.hint th:first-child { text-align: left; }
table.hint tr.chosen { font-weight: bold; background: #eef6ee; }
</style></head>
<body>
<h1>Riposte: __TITLE__</h1>
<div class="sub" id="meta">__META__</div>
<div class="error hidden" id="error"></div>
<div class="wrap">
 <div>
  <div class="board" id="board"></div>
  <div class="caption" id="caption"></div>
 </div>
 <div class="side">
  <div class="panel">
   <button id="start">Start the game</button>
   <span class="badge hidden" id="window-badge">Reaction window: your unit may react</span>
   <div id="status"></div>
   <div id="actions"></div>
   <div id="result" class="result"></div>
   <div id="saved"></div>
  </div>
  <div class="panel hidden" id="hint-panel">
   <button id="hint">What would the AI do?</button>
   <div id="hint-out"></div>
  </div>
  <div class="panel"><b>As it happens</b><div id="recent"></div></div>
  <div class="panel"><b>Event log</b> (rule ids in purple)<div class="log" id="log"></div></div>
 </div>
</div>
<script type="application/json" id="boot">__BOOT__</script>
<script>
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
const STEP_MS = __STEP_MS__;
let S = JSON.parse($("boot").textContent);
let timer = null;
function showError(msg) {
  $("error").textContent = msg;
  $("error").classList.toggle("hidden", !msg);
}
async function call(method, path, body) {
  const r = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                               body: body === undefined ? undefined : JSON.stringify(body)});
  const j = await r.json();
  if (!r.ok) { showError(j.error || ("HTTP " + r.status)); if (j.state) render(j.state); return null; }
  return j;
}
function render(s) {
  S = s;
  $("board").innerHTML = s.svg;
  $("board").classList.toggle("reaction", s.window && s.your_turn);
  $("caption").textContent = s.caption;
  $("start").style.display = s.started ? "none" : "";
  $("window-badge").classList.toggle("hidden", !(s.window && s.your_turn));
  let st;
  if (!s.started) st = "Press Start: you play the " + esc(s.human_name) + ".";
  else if (s.over) st = "Game over.";
  else if (s.your_turn) st = "<b>Your decision</b> (" + esc(s.decision) + ")";
  else st = "Waiting: " + esc(s.who) + (s.who === "dice" ? " rolling" : " (" + esc(s.agent_name) + ") deciding") + "&hellip;";
  $("status").innerHTML = st;
  $("actions").innerHTML = "";
  for (const a of s.actions) {
    const b = document.createElement("button");
    b.className = "action";
    b.textContent = a.words;
    b.dataset.label = a.label;
    b.dataset.id = a.id;
    b.dataset.seq = s.seq;
    b.title = a.legal ? a.label : (a.label + " is masked: " + a.why);
    if (!a.legal) b.setAttribute("aria-disabled", "true");
    b.classList.toggle("masked", !a.legal);
    b.disabled = !a.legal;
    b.onclick = () => act(a.id, Number(b.dataset.seq));
    $("actions").appendChild(b);
  }
  $("result").textContent = s.over ? s.result + " (returns " + s.returns.join(", ") + ")" : "";
  $("saved").textContent = s.saved ? "Replay saved to " + s.saved : (s.save_error || "");
  $("recent").innerHTML = s.recent.map(r => '<div class="' + r.kind + '">' + r.seq + ". " +
                                       esc(r.text) + "</div>").join("");
  $("log").innerHTML = s.events.map(e => '<div class="' + (e.kind.startsWith("window") ? "window" : "") +
    '"><span class="rules">[' + esc(e.rules.join(", ")) + "]</span> " + esc(e.text) + "</div>").join("");
  $("log").scrollTop = $("log").scrollHeight;
  $("hint-panel").classList.toggle("hidden", !(s.hints && s.your_turn));
  if (hintSeq !== s.seq) $("hint-out").innerHTML = "";
  schedule();
}
let hintSeq = null;
const num = (x, d) => x === null ? "&ndash;" : Number(x).toFixed(d);
async function hint() {
  $("hint").disabled = true;
  $("hint-out").textContent = "Searching\u2026";
  const h = await call("POST", "/api/hint");
  $("hint").disabled = false;
  if (!h) { $("hint-out").textContent = ""; return; }
  hintSeq = h.seq;
  if (h.seq !== S.seq) { $("hint-out").textContent = ""; return; }
  let t = "<div>" + esc(h.advisor) + " would choose <b>" + esc(h.chosen.words) + "</b>" +
    (h.searched ? " (" + h.simulations + " simulations, " + h.seconds + " s; value " +
     num(h.root_value, 2) + ")" : " (the only legal action)") + "</div>";
  t += '<table class="hint"><tr><th>action</th><th title="completed Q from your side, -1..1">value</th>' +
       '<th title="probability under the network">prior</th><th title="improved policy of the search">search</th>' +
       "<th>visits</th></tr>";
  for (const a of h.actions)
    t += '<tr class="' + (a.chosen ? "chosen" : "") + '" data-label="' + esc(a.label) + '"><td>' +
         esc(a.words) + "</td><td>" + num(a.q, 2) + "</td><td>" + num(a.prior, 2) + "</td><td>" +
         num(a.policy, 2) + "</td><td>" + a.visits + "</td></tr>";
  $("hint-out").innerHTML = t + "</table>";
}
$("hint").onclick = hint;
function schedule() {
  if (timer) { clearTimeout(timer); timer = null; }
  if (S.started && !S.over && !S.your_turn) timer = setTimeout(advance, STEP_MS);
}
async function advance() {
  timer = null;
  const s = await call("POST", "/api/advance");
  if (s) render(s);
}
async function act(id, seq) {
  const s = await call("POST", "/api/act", {action: id, seq: seq});
  if (s) { showError(""); render(s); }
}
$("start").onclick = async () => { const s = await call("POST", "/api/start"); if (s) render(s); };
render(S);
</script>
</body></html>
"""


def create_app(session: PlaySession, step_ms: int = 350):
    """The Flask app serving ``session`` (see the module docstring for the routes)."""
    from flask import Flask, jsonify, request

    app = Flask("riposte-play")
    g = session.game
    title = html.escape(f"{g.ruleset_id} / {g.scenario_name}")
    meta = html.escape(f"you: {g.side_names[session.human_side]} · opponent: "
                       f"{session.agent_name} ({g.side_names[1 - session.human_side]}) · "
                       f"seed {session.seed}")

    @app.get("/")
    def index():
        page = (PAGE.replace("__TITLE__", title).replace("__CSS__", CSS)
                .replace("__META__", meta).replace("__STEP_MS__", str(int(step_ms)))
                .replace("__BOOT__", embed_json(session.view())))
        return page, 200, {"Content-Type": "text/html; charset=utf-8"}

    @app.get("/api/state")
    def state():
        return jsonify(session.view())

    @app.post("/api/start")
    def start():
        return jsonify(session.start())

    @app.errorhandler(PlayError)
    def play_error(e: PlayError):
        """A refused request: its reason and the unchanged state, with the error's status."""
        return jsonify({"error": str(e), "state": session.view()}), e.status

    @app.post("/api/advance")
    def advance():
        return jsonify(session.advance())

    @app.post("/api/hint")
    def hint():
        return jsonify(session.hint())

    @app.post("/api/act")
    def act():
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return jsonify({"error": "expected a JSON object {\"action\": id, \"seq\": n}",
                            "state": session.view()}), 400
        return jsonify(session.act(body.get("action"), body.get("seq")))

    return app


def make_server(session: PlaySession, port: int, step_ms: int = 350):
    """A werkzeug threaded server for ``session`` on 127.0.0.1:``port`` (0 = a free port).

    The socket is bound here (werkzeug would print and ``sys.exit`` on a port in use), then
    handed to werkzeug.

    Raises:
        OSError: when the port cannot be bound (``errno.EADDRINUSE`` when in use).
    """
    import socket

    from werkzeug.serving import make_server as _make

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    server = _make("127.0.0.1", sock.getsockname()[1], create_app(session, step_ms),
                   threaded=True, fd=sock.fileno())
    # keep the original open for as long as the server (an attribute werkzeug does not declare)
    server._riposte_socket = sock  # type: ignore[attr-defined]
    return server


def parse_param(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with VALUE read by :func:`envs.core.scenario.parse_param_value` (true, 3,
    2.5, "x", [10, 20], else a plain string).

    Raises:
        ValueError: without ``=``.
    """
    from envs.core.scenario import parse_param_value

    key, eq, value = text.partition("=")
    if not eq or not key:
        raise ValueError(f"--param {text!r}: expected KEY=VALUE")
    return key, parse_param_value(value)


def make_advisor(spec: str | None, opponent: Any, game: Game, seed: int,
                 trust: bool = False) -> Any:
    """The search agent the page's "What would the AI do?" asks, or None.

    Args:
        spec: ``--hint``: a search agent spec ``search:MODEL[:key=value...]`` or a checkpoint
            path (searched with the default settings); None to ask the opponent's network and
            settings when the opponent is a search agent (a separate agent with its own
            generator, so asking does not change the opponent's choices), else no hints.
        opponent: the opponent agent.
        game: the game.
        seed: the session's seed (the advisor is re-seeded from it with spawn key 2).
        trust: load a checkpoint without Riposte's config by unpickling.

    Raises:
        SearchSpecError, AgentLoadError: for a spec that cannot be parsed, a bad option, or a
            missing or foreign checkpoint (the message names the spec).
    """
    from agents.search import SPEC_PREFIX, SearchAgent, is_search_spec

    key = np.random.SeedSequence(seed, spawn_key=(2,))
    if spec is None:
        if not isinstance(opponent, SearchAgent):
            return None
        return SearchAgent(game, opponent.evaluator, opponent.config, key,
                           name=opponent.name, model=opponent.model)
    if not is_search_spec(spec):
        spec = SPEC_PREFIX + spec
    return SearchAgent.from_spec(spec, game, key, trust=trust)


def main(args) -> int:
    """Entry of ``python -m envs play`` (``args`` from :mod:`envs.__main__`)."""
    from agents import make_agent
    from envs import load_game

    def fail(msg: str) -> int:
        print(f"error: {msg}", file=sys.stderr)
        return 2
    try:
        params = dict(parse_param(p) for p in args.param)
    except ValueError as e:
        return fail(str(e))
    save = args.save or f"replays/play-{time.strftime('%Y%m%d-%H%M%S')}.toml"
    try:
        check_output_suffix(save, (".toml",), "--save", "the game record is written as TOML",
                            inputs=[args.opponent,
                                    *scenario_files(args.ruleset, args.scenario)])
    except RiposteError as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"--save {save}: {e}")
    if not 0 <= args.port <= 65535:
        return fail(f"--port {args.port}: must be 0..65535")
    if args.seed < 0:
        return fail(f"--seed must be >= 0, got {args.seed}")
    try:
        game = load_game(args.ruleset, args.scenario, params)
        require_two_sides(game, "play is one person against one agent in a two-sided battle")
        agent = make_agent(args.opponent, game, seed=np.random.SeedSequence(args.seed,
                                                                             spawn_key=(1,)),
                           trust_checkpoint=getattr(args, "trust_checkpoint", False))
        advisor = make_advisor(getattr(args, "hint", None), agent, game, args.seed,
                               trust=getattr(args, "trust_checkpoint", False))
    except RiposteError as e:
        return fail(str(e).splitlines()[0])
    session = PlaySession(game, agent, args.opponent, args.side, args.seed, save, args.scenario,
                          advisor=advisor)
    try:
        server = make_server(session, args.port)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            return fail(f"--port {args.port}: 127.0.0.1:{args.port} is already in use "
                        f"(choose another with --port, or 0 for any free port)")
        return fail(f"--port {args.port}: cannot listen on 127.0.0.1: {e.strerror or e}")
    print(f"Riposte play: open http://127.0.0.1:{server.port}/ (you play "
          f"{game.side_names[args.side]} against {args.opponent}; Ctrl-C stops; the replay is "
          f"saved to {save} at the end)", flush=True)
    from agents.interrupts import SignalGuard

    try:
        # werkzeug ends it quietly on Ctrl-C (the normal way to stop); the guard's Interrupted
        # is a KeyboardInterrupt, and one that lands in a finalizer is sent again, not lost
        with SignalGuard():
            server.serve_forever()
    finally:
        server.server_close()
        server._riposte_socket.close()
    print("stopped" + ("" if session.saved else f" ({session.save_error})" if session.save_error
                       else " (the game was not finished: no replay saved)"), file=sys.stderr)
    return 0
