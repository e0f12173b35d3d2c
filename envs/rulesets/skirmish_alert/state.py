"""The state of a skirmish alert game: fighters, elements, the round, and the rules helpers the
frames (:mod:`.procedures`) call. Rule ids are cited in each helper's docstring and in the
events it logs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from envs.core.errors import InvalidStateError
from envs.core.observer import ObservationLayout
from envs.core.procedure import FrameStack, ProcedureState
from envs.core.protocol import Game
from envs.core.reactions import Cost

from .actions import DISENGAGE_MAX, Act, Decision
from .board import bresenham, chebyshev
from .params import VECTORS, MeleeWeapon, RangedWeapon, Scoring, ScenarioSpec



@dataclass(slots=True)
class Fighter:
    """One fighter: its profile (AL-PD-4) and what changes. ``gid = team * F + slot``."""

    gid: int
    team: int
    slot: int
    name: str
    ap_max: int
    mov: int
    ini: int
    ref: int
    mel: int
    sho: int
    tec: int
    defence: int
    arm: int
    w_max: int
    melee_weapon: str
    ranged_weapon: str | None
    x: int
    y: int
    facing: int
    wounds: int
    items: dict[str, int] = field(default_factory=dict)  #: item -> uses left (-1: passive)
    ap: int = 0
    on_alert: bool = False
    knocked_down: bool = False
    knockdowns: int = 0  #: how many times knocked down (AL-26 compares counts)
    in_play: bool = True
    track_pos: int = 0  #: initiative position this round (1 = fastest), 0 off the track
    activated: bool = False  #: has had its game turn this round
    attempted_turn: int = -1  #: the game turn (``AlertState.turn_id``) of its last attempt
    grapnel: bool = False  #: moves ignore difficult terrain for the rest of this turn
    kept: bool = False  #: kept its alert at the round's start (``maintain_timing="round_start"``)

    @property
    def pos(self) -> tuple[int, int]:
        return (self.x, self.y)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def copy(self) -> "Fighter":
        f = Fighter(**{k: getattr(self, k) for k in self.__slots__})
        f.items = dict(self.items)
        return f


Square = tuple[int, int]


class AlertGameData(Game["AlertState"]):
    """The skirmish game as its state and rules read it: the parameters, board, catalogue ids
    and fighters that :class:`~.game.AlertGame` (its one subclass) sets up. Declared here,
    beside the state, because the game module imports the state."""

    params: dict[str, Any]
    spec: ScenarioSpec
    F: int
    X: int
    max_board: int
    width: int
    height: int
    blocking: frozenset[Square]
    difficult: frozenset[Square]
    scoring: Scoring
    rounds: int
    track_size: int
    difficulty_mode: Literal["absolute", "relative"]
    reaction_timing: Literal["after_declaration", "before_effect"]
    non_triggering_actions: tuple[str, ...]
    reaction_action_costs_ap: bool
    rearm_after_failure: bool
    maintain_ends_turn: bool
    maintain_timing: Literal["own_activation", "round_start"]
    reaction_requires_los: bool
    natural_extremes: bool
    modifier_cap: int
    knockdown_margin: int
    attack_base: int
    allow_shoot_into_melee: bool
    equipment_blocked_when_engaged: bool
    acts: tuple[Act, ...]
    turn_ids: tuple[int, ...]
    keep_id: int
    drop_id: int
    face_ids: tuple[int, ...]
    n_enemy_slots: int
    move_ids: dict[tuple[int, int], int]
    react_move_ids: dict[tuple[int, int], int]
    disengage_ids: dict[tuple[int, int], int]
    react_disengage_ids: dict[tuple[int, int], int]
    charge_ids: dict[tuple[int, int], int]
    react_ids: tuple[int, ...]
    turn_ids_by_kind: tuple[tuple[str, tuple[int, ...]], ...]
    react_ids_by_kind: tuple[tuple[str, tuple[int, ...]], ...]
    melee_weapons: dict[str, MeleeWeapon]
    ranged_weapons: dict[str, RangedWeapon]
    initial_fighters: tuple[Fighter, ...]
    initial_elements: tuple[dict[str, Any], ...]
    element_squares: frozenset[Square]
    static_blocked: frozenset[Square]
    neighbours: dict[Square, frozenset[Square]]
    max_decisions: int | None
    layout: ObservationLayout
    feature_index: dict[str, int]
    static_terrain: np.ndarray


class AlertState(ProcedureState):
    """State of a skirmish alert game (see the package docstring for the rules model). The
    game pushes the first frame (:class:`.procedures.Match`) and starts the flow."""

    _transient_attrs = ("_scope", "_occupants", "_board_key", "_board_memo")
    #: while a legal list is computed: the board memo (:meth:`board_memo`), read without
    #: checking its key again, and the fighters by square
    _scope: dict[str, Any] | None = None
    _occupants: dict[tuple[int, int], Fighter] | None = None
    #: the board memo and the key it was computed for (:meth:`board_memo`)
    _board_key: tuple[Any, ...] | None = None
    _board_memo: dict[str, Any] | None = None
    #: ``(entries of history counted, decisions among them)``, for the decision cap
    _decision_count: tuple[int, int] = (0, 0)
    decision_enum = Decision
    terminal_decision = Decision.TERMINAL
    chance_decision = Decision.CHANCE

    game: AlertGameData

    def __init__(self, game: AlertGameData, init: bool = True):
        super().__init__(game)
        if not init:
            return
        self.fighters: list[Fighter | None] = [None] * (game.num_players * game.F)
        for f in game.initial_fighters:
            self.fighters[f.gid] = f.copy()
        self.elements: list[dict[str, Any]] = [dict(e) for e in game.initial_elements]
        self.smoke: list[tuple[int, int]] = []
        self.round = 1
        self.turn_id = 0
        self.active = -1

    # -- lookup ----------------------------------------------------------------------------
    def fighter(self, gid: int) -> Fighter:
        """The fighter ``gid``, one that a frame or a decision names.

        Raises:
            InvalidStateError: when there is no fighter ``gid``.
        """
        fighter = self.fighters[gid]
        if fighter is None:
            raise InvalidStateError(f"there is no fighter {gid}")
        return fighter

    def live(self) -> list[Fighter]:
        return [f for f in self.fighters if f is not None and f.in_play]

    def enemy_gid(self, team: int, j: int) -> int:
        """Global id of enemy slot ``j`` as team ``team`` sees it (egocentric: the teams after
        ``team`` in seat order, ``F`` slots each)."""
        F, n = self.game.F, self.game.num_players
        k, i = divmod(j, F)
        return ((team + 1 + k) % n) * F + i

    def enemy_slot(self, team: int, gid: int) -> int:
        F, n = self.game.F, self.game.num_players
        t, i = divmod(gid, F)
        return ((t - team - 1) % n) * F + i

    def teams_alive(self) -> list[int]:
        return sorted({f.team for f in self.live()})

    def decided(self) -> bool:
        return len(self.teams_alive()) <= 1

    # -- board -----------------------------------------------------------------------------
    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.game.width and 0 <= y < self.game.height

    def board_memo(self) -> dict[str, Any]:
        """The memo of what depends only on where the fighters in play stand and on the
        elements' states (reach and disengage squares per fighter and grapnel, blocked squares,
        engagement): kept while that key stays the same, so that a move declared from a legal
        list resolves with the reach that list computed, and shared with clones (its entries
        are a function of the key, never changed once made)."""
        key = (tuple(None if f is None or not f.in_play else f.pos for f in self.fighters),
               tuple(e["state"] for e in self.elements))
        if key != self._board_key or self._board_memo is None:
            self._board_key = key
            self._board_memo = {"reach": {}, "eng": {}, "disengage": {}, "move_ids": {}}
        return self._board_memo

    def legal_scope(self) -> "_BoardScope":
        """Context manager: read the board memo (:meth:`board_memo`) and the fighters by
        square without checking the key while a list of legal actions (or an observation) is
        computed (nothing changes meanwhile)."""
        return _BoardScope(self)

    def occupant(self, x: int, y: int) -> Fighter | None:
        occupants = self._occupants
        if occupants is not None:
            return occupants.get((x, y))
        for f in self.fighters:
            if f is not None and f.in_play and f.x == x and f.y == y:
                return f
        return None

    def element_at(self, x: int, y: int) -> dict[str, Any] | None:
        if (x, y) not in self.game.element_squares:
            return None
        for e in self.elements:
            if e["x"] == x and e["y"] == y:
                return e
        return None

    def passable(self, x: int, y: int) -> bool:
        """AL-PD-16, AL-PD-30: on the board, not blocking terrain, not a closed door, lever
        or machine, and no fighter there."""
        if not self.on_board(x, y) or (x, y) in self.game.blocking:
            return False
        e = self.element_at(x, y)
        if e is not None and (e["kind"] in ("lever", "machine")
                              or (e["kind"] == "door" and e["state"] == "closed")):
            return False
        return self.occupant(x, y) is None

    def blocks_los(self, x: int, y: int) -> bool:
        if (x, y) in self.game.blocking or (x, y) in self.smoke:
            return True
        e = self.element_at(x, y)
        return e is not None and e["kind"] == "door" and e["state"] == "closed"

    def los(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        """AL-PD-16: Bresenham line, blocked by blocking terrain, closed doors and smoke
        (AL-PD-31), never by fighters."""
        return not any(self.blocks_los(x, y) for x, y in bresenham(a, b))

    def step_cost(self, f: Fighter, x: int, y: int) -> int:
        return 2 if (x, y) in self.game.difficult and not f.grapnel else 1

    def reach(self, f: Fighter) -> dict[tuple[int, int], int]:
        """AL-PD-15, AL-PD-16: every square ``f`` can reach by any path of 8-neighbour steps
        within its MOV (difficult squares cost 2; fighters, blocking terrain, closed doors,
        levers and machines block), with the path's cost (its own square costs 0). Memoised
        (:meth:`board_memo`); the caller must not change the dictionary."""
        memo = self._scope if self._scope is not None else self.board_memo()
        key = (f.gid, f.grapnel)
        found = memo["reach"].get(key)
        if found is None:
            found = memo["reach"][key] = self._reach(f, f.mov)
        return found

    def reach_through_doors(self, f: Fighter) -> dict[tuple[int, int], int]:
        """:meth:`reach` as it would be with every closed door open (to tell an attack lost to
        a closed door from one lost to distance, AL-18, AL-PD-30)."""
        return self._reach(f, f.mov, through_doors=True)

    def disengage_squares(self, f: Fighter) -> set[tuple[int, int]]:
        """AL-PD-15: the squares ``f`` can reach by a path of at most ``DISENGAGE_MAX`` steps
        whose cost stays within its MOV (a disengage moves up to 2 squares, by any path).
        Memoised (:meth:`board_memo`); the caller must not change the set."""
        memo = self._scope if self._scope is not None else self.board_memo()
        key = (f.gid, f.grapnel)
        if key in memo["disengage"]:
            return memo["disengage"][key]
        blocked = self._blocked(False)
        width, height = self.game.width, self.game.height
        difficult = () if f.grapnel else self.game.difficult
        found: set[tuple[int, int]] = set()
        frontier = [(f.pos, 0)]
        for _ in range(DISENGAGE_MAX):
            nxt = []
            for (x, y), cost in frontier:
                for dx, dy in VECTORS:
                    sq = (x + dx, y + dy)
                    if not (0 <= sq[0] < width and 0 <= sq[1] < height) or sq in blocked:
                        continue
                    total = cost + (2 if sq in difficult else 1)
                    if total <= f.mov:
                        found.add(sq)
                        nxt.append((sq, total))
            frontier = nxt
        found.discard(f.pos)
        memo["disengage"][key] = found
        return found

    def charge_square(self, target: Fighter, side: int) -> tuple[int, int]:
        """The square next to ``target`` on its side ``side`` (a facing index): where a
        ``charge:e{j}:D`` ends (Q1, AL-PD-20)."""
        dx, dy = VECTORS[side]
        return (target.x + dx, target.y + dy)

    def _blocked(self, through_doors: bool) -> set[tuple[int, int]]:
        """The squares no move may enter (AL-PD-16, AL-PD-30): blocking terrain, levers and
        machines, fighters in play and, unless ``through_doors``, closed doors (the board's
        edge is checked apart). Memoised (:meth:`board_memo`)."""
        memo = self._scope if self._scope is not None else self.board_memo()
        key = "through_doors" if through_doors else "blocked"
        if key in memo:
            return memo[key]
        blocked = set(self.game.static_blocked)
        blocked.update(f.pos for f in self.fighters if f is not None and f.in_play)
        if not through_doors:
            blocked.update((e["x"], e["y"]) for e in self.elements
                           if e["kind"] == "door" and e["state"] == "closed")
        memo[key] = blocked
        return blocked

    def _reach(self, f: Fighter, budget: int,
               through_doors: bool = False) -> dict[tuple[int, int], int]:
        """Least path costs within ``budget`` over 8-neighbour steps (difficult squares cost 2
        to enter): a breadth-first search by cost, one layer of set operations per cost (a
        square entered at a cost is never entered more cheaply later, as entering a square
        costs the same from every neighbour)."""
        neighbours = self.game.neighbours
        difficult = frozenset() if f.grapnel else self.game.difficult
        start = f.pos
        best: dict[tuple[int, int], int] = {start: 0}
        seen = set(self._blocked(through_doors))
        seen.add(start)
        frontier: list[tuple[int, int]] = [start]
        later: list[tuple[int, int]] = []  # difficult squares entered at the next cost
        for cost in range(1, budget + 1):
            entered: set[tuple[int, int]] = set().union(*[neighbours[sq] for sq in frontier])
            entered -= seen
            seen |= entered
            hard = entered & difficult if difficult else set()
            if hard:
                entered -= hard
            best.update(dict.fromkeys(entered, cost))
            frontier = list(entered) + later
            later = []
            if hard and cost < budget:
                best.update(dict.fromkeys(hard, cost + 1))
                later = list(hard)
            if not frontier and not later:
                break
        return best

    def closed_door_on_line(self, a: tuple[int, int], b: tuple[int, int]) -> int | None:
        """The element index of a closed door on the line of sight from ``a`` to ``b`` when
        only closed doors block it (AL-PD-16, AL-PD-30), else ``None``."""
        door = None
        for x, y in bresenham(a, b):
            if (x, y) in self.game.blocking or (x, y) in self.smoke:
                return None
            e = self.element_at(x, y)
            if e is not None and e["kind"] == "door" and e["state"] == "closed" and door is None:
                door = self.elements.index(e)
        return door

    def enemies_adjacent(self, f: Fighter) -> list[Fighter]:
        return [o for o in self.live() if o.team != f.team and chebyshev(o.pos, f.pos) == 1]

    def engaged(self, f: Fighter) -> bool:
        """AL-PD-19: adjacent to an enemy fighter (facing and knockdown do not matter)."""
        sc = self._scope
        if sc is not None:
            e = sc["eng"].get(f.gid)
            if e is None:
                e = sc["eng"][f.gid] = any(
                    o.team != f.team and max(abs(o.x - f.x), abs(o.y - f.y)) == 1
                    for o in self.fighters if o is not None and o.in_play)
            return e
        return any(o.team != f.team and max(abs(o.x - f.x), abs(o.y - f.y)) == 1
                   for o in self.fighters if o is not None and o.in_play)

    def adjacent_element(self, f: Fighter, x: int) -> dict[str, Any] | None:
        if x >= len(self.elements):
            return None
        e = self.elements[x]
        return e if chebyshev(f.pos, (e["x"], e["y"])) <= 1 else None

    # -- costs (envs.core.reactions) -------------------------------------------------------
    def can_pay(self, side: int, cost: Cost) -> bool:
        gid = int(cost.resource.split(":")[1])
        f = self.fighters[gid]
        return f is not None and f.team == side and f.ap >= cost.amount

    def pay(self, side: int, cost: Cost) -> None:
        self.fighter(int(cost.resource.split(":")[1])).ap -= cost.amount

    # -- effects ------------------------------------------------------------------------------
    def move_to(self, f: Fighter, x: int, y: int, facing: int | None = None) -> None:
        f.x, f.y = x, y
        if facing is not None:
            f.facing = facing

    def move_to_square(self, f: Fighter, dest: tuple[int, int], rules: tuple[str, ...]) -> None:
        """Move ``f`` to ``dest`` by any free path (AL-PD-15, AL-PD-16; the caller checked it
        is reachable); its facing is set afterwards by a ``facing`` decision."""
        start = f.pos
        self.move_to(f, dest[0], dest[1])
        self.log("move", rules, f"{f.name} moves from {start} to {dest}", f.team,
                 fighter=f.gid, to=[f.x, f.y], start=list(start))

    def knock_down(self, f: Fighter, rules: tuple[str, ...]) -> None:
        """AL-PD-23, AL-PD-29: knocked down; alert is lost."""
        f.knocked_down = True
        f.knockdowns += 1
        f.on_alert = False
        self.log("knocked_down", rules + ("AL-PD-29",), f"{f.name} is knocked down", f.team,
                 fighter=f.gid)

    def wound(self, f: Fighter, n: int, rules: tuple[str, ...]) -> None:
        """AL-PD-22: lose ``n`` wounds; at 0 the fighter is out of action (off the board and
        the track, alert removed)."""
        f.wounds -= n
        self.log("wounded", rules, f"{f.name} loses {n} wound(s), {max(f.wounds, 0)} left",
                 f.team, fighter=f.gid, wounds=n, left=max(f.wounds, 0))
        if f.wounds <= 0:
            f.wounds = 0
            f.in_play = False
            f.on_alert = False
            f.knocked_down = False
            self.log("out_of_action", ("AL-PD-22",), f"{f.name} is out of action", f.team,
                     fighter=f.gid)

    def _apply_action(self, action: int) -> None:
        """The frames' flow, then the decision cap of ``params.max_decisions`` (when set):
        the decision that reaches it ends the game, scored as it stands (an engine cap, not a
        rule of the seed; the ACW ruleset's ends its games the same way)."""
        super()._apply_action(action)
        cap = self.game.max_decisions
        if cap is not None and self.stack.node is not None and self.decisions_made() >= cap:
            self.log("decision_cap", (), f"decision cap {cap} reached: the game ends, scored "
                     f"as it stands (VP {self.scores()})", None, scores=self.scores())
            self.stack = FrameStack()

    def decisions_made(self) -> int:
        """How many decisions (not chance outcomes) the history holds; counted on from the
        last call, so each call costs what the history grew by since."""
        seen, count = self._decision_count
        history = self.history
        count += sum(1 for player, _ in history[seen:] if player >= 0)
        self._decision_count = (len(history), count)
        return count

    # -- scoring --------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """Victory points per team (scenario ``[scoring]``): fighters still in play, objectives
        held, machines owned and working or broken by the team."""
        sc = self.game.scoring
        out = [0] * self.game.num_players
        for f in self.live():
            out[f.team] += sc.fighter_vp
        for e in self.elements:
            if e["kind"] == "objective" and e["held_by"] is not None:
                out[e["held_by"]] += sc.objective_vp
            elif e["kind"] == "machine":
                if e["state"] == "working":
                    out[e["owner"]] += sc.machine_vp
                elif e["broken_by"] is not None and e["broken_by"] != e["owner"]:
                    out[e["broken_by"]] += sc.machine_vp
        return out

    def placements(self) -> list[int]:
        """Per team: 1 + the number of teams with more victory points (ties share a place).
        A team with no fighter left places after every team that still has one."""
        alive = set(self.teams_alive())
        key = [(t in alive, s) for t, s in enumerate(self.scores())]
        return [1 + sum(1 for o in key if o > k) for k in key]

    def returns(self) -> list[float]:
        """Zero-sum in [-1, 1] for any number of teams: (teams placed below - teams placed
        above) / (teams - 1); two teams give +1 / -1 / 0."""
        n = self.game.num_players
        if not self.is_terminal():
            return [0.0] * n
        pl = self.placements()
        return [(sum(1 for o in pl if o > p) - sum(1 for o in pl if o < p)) / (n - 1)
                for p in pl]

    # -- serialisation --------------------------------------------------------------------------
    def _to_dict(self) -> dict[str, Any]:
        return {"fighters": [None if f is None else f.to_dict() for f in self.fighters],
                "elements": [dict(e) for e in self.elements],
                "smoke": [list(s) for s in self.smoke], "round": self.round,
                "turn_id": self.turn_id, "active": self.active, "stack": self.stack.to_dict()}

    @classmethod
    def from_dict(cls, game: Any, data: dict[str, Any]) -> "AlertState":
        s = cls(game, init=False)
        s.fighters = [None if d is None else Fighter(**d) for d in data["fighters"]]
        s.elements = [dict(e) for e in data["elements"]]
        s.smoke = [tuple(p) for p in data["smoke"]]
        s.round = int(data["round"])
        s.turn_id = int(data["turn_id"])
        s.active = int(data["active"])
        s.stack = FrameStack.from_dict(data["stack"], Decision)
        return s

    def clone(self) -> "AlertState":
        s = AlertState(self.game, init=False)
        self._copy_base_into(s)
        s.fighters = [None if f is None else f.copy() for f in self.fighters]
        s.elements = [dict(e) for e in self.elements]
        s.smoke = list(self.smoke)
        s.round, s.turn_id, s.active = self.round, self.turn_id, self.active
        s.stack = self.stack.copy()
        s._decision_count = self._decision_count
        s._board_key, s._board_memo = self._board_key, self._board_memo
        return s


class _BoardScope:
    """:meth:`AlertState.legal_scope`'s context manager."""

    __slots__ = ("state",)

    def __init__(self, state: AlertState):
        self.state = state

    def __enter__(self) -> None:
        state = self.state
        state._scope = state.board_memo()
        state._occupants = {f.pos: f for f in state.live()}

    def __exit__(self, *exc: object) -> None:
        self.state._scope = None
        self.state._occupants = None


__all__ = ["AlertState", "Fighter"]
