"""What the board of a skirmish alert game says now (AL-PD-15 to AL-PD-19, AL-PD-30): the
squares on the board, who and what stands where, line of sight, the squares a fighter can
reach, engagement, the elements next to a fighter; and the board memo that keeps what depends
only on where the fighters stand and on the elements' states (:func:`board_memo`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from .actions import DISENGAGE_MAX
from .board import bresenham, chebyshev
from .params import VECTORS

if TYPE_CHECKING:
    from .state import AlertState, Fighter


def on_board(state: AlertState, x: int, y: int) -> bool:
    """Square ``(x, y)`` lies on the scenario's board."""
    return 0 <= x < state.game.width and 0 <= y < state.game.height


def board_memo(state: AlertState) -> dict[str, Any]:
    """The memo of what depends only on where the fighters in play stand and on the
    elements' states (reach and disengage squares per fighter and grapnel, blocked squares,
    engagement): kept while that key stays the same, so that a move declared from a legal
    list resolves with the reach that list computed, and shared with clones (its entries
    are a function of the key, never changed once made)."""
    key = (tuple([None if f is None or not f.in_play else (f.x, f.y) for f in state.fighters]),
           tuple([e["state"] for e in state.elements]))
    if key != state._board_key or state._board_memo is None:
        state._board_key = key
        state._board_memo = {"reach": {}, "eng": {}, "disengage": {}, "move_ids": {}}
    return state._board_memo


def legal_scope(state: AlertState) -> BoardScope:
    """Context manager: read the board memo (:func:`board_memo`) and the fighters by
    square without checking the key while a list of legal actions (or an observation) is
    computed (nothing changes meanwhile)."""
    return BoardScope(state)


def occupant(state: AlertState, x: int, y: int) -> Fighter | None:
    """The fighter in play on square ``(x, y)``, or ``None``."""
    occupants = state._occupants
    if occupants is not None:
        return occupants.get((x, y))
    for fighter in state.fighters:
        if fighter is not None and fighter.in_play and fighter.x == x and fighter.y == y:
            return fighter
    return None


def element_at(state: AlertState, x: int, y: int) -> dict[str, Any] | None:
    """The element on square ``(x, y)``, or ``None``."""
    if (x, y) not in state.game.element_squares:
        return None
    for element in state.elements:
        if element["x"] == x and element["y"] == y:
            return element
    return None


def is_closed_door(element: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    """``element`` is a closed door (AL-PD-16, AL-PD-30: it blocks moves and sight)."""
    return element is not None and element["kind"] == "door" and element["state"] == "closed"


def passable(state: AlertState, x: int, y: int) -> bool:
    """AL-PD-16, AL-PD-30: on the board and not one of :func:`blocked_squares` (blocking
    terrain, a closed door, lever or machine, a fighter in play)."""
    return on_board(state, x, y) and (x, y) not in blocked_squares(state, False)


def blocks_los(state: AlertState, x: int, y: int) -> bool:
    """Square ``(x, y)`` blocks line of sight: blocking terrain, smoke (AL-PD-31) or a closed
    door (AL-PD-16, AL-PD-30)."""
    if (x, y) in state.game.blocking or (x, y) in state.smoke:
        return True
    return is_closed_door(element_at(state, x, y))


def los(state: AlertState, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Line of sight from ``start`` to ``end`` (AL-PD-16): Bresenham's line, blocked by
    blocking terrain, closed doors and smoke (AL-PD-31), never by fighters."""
    return not any(blocks_los(state, x, y) for x, y in bresenham(start, end))


def reach(state: AlertState, fighter: Fighter) -> dict[tuple[int, int], int]:
    """AL-PD-15, AL-PD-16: every square ``fighter`` can reach by any path of 8-neighbour steps
    within its MOV (difficult squares cost 2; fighters, blocking terrain, closed doors,
    levers and machines block), with the path's cost (its own square costs 0). Memoised
    (:func:`board_memo`); the caller must not change the dictionary."""
    memo = state._scope if state._scope is not None else board_memo(state)
    key = (fighter.gid, fighter.grapnel)
    found = memo["reach"].get(key)
    if found is None:
        found = memo["reach"][key] = search_reach(state, fighter, fighter.mov)
    return found


def reach_through_doors(state: AlertState, fighter: Fighter) -> dict[tuple[int, int], int]:
    """:func:`reach` as it would be with every closed door open (to tell an attack lost to
    a closed door from one lost to distance, AL-18, AL-PD-30)."""
    return search_reach(state, fighter, fighter.mov, through_doors=True)


def disengage_squares(state: AlertState, fighter: Fighter) -> set[tuple[int, int]]:
    """AL-PD-15: the squares ``fighter`` can reach by a path of at most ``DISENGAGE_MAX`` steps
    whose cost stays within its MOV (a disengage moves up to 2 squares, by any path).
    Memoised (:func:`board_memo`); the caller must not change the set."""
    memo = state._scope if state._scope is not None else board_memo(state)
    key = (fighter.gid, fighter.grapnel)
    if key in memo["disengage"]:
        return memo["disengage"][key]
    blocked = blocked_squares(state, False)
    width, height = state.game.width, state.game.height
    difficult = () if fighter.grapnel else state.game.difficult
    found: set[tuple[int, int]] = set()
    frontier = [(fighter.pos, 0)]
    for _ in range(DISENGAGE_MAX):
        next_frontier = []
        for (x, y), cost in frontier:
            for dx, dy in VECTORS:
                square = (x + dx, y + dy)
                if not (0 <= square[0] < width and 0 <= square[1] < height) or square in blocked:
                    continue
                total = cost + (2 if square in difficult else 1)
                if total <= fighter.mov:
                    found.add(square)
                    next_frontier.append((square, total))
        frontier = next_frontier
    found.discard(fighter.pos)
    memo["disengage"][key] = found
    return found


def charge_square(state: AlertState, target: Fighter, side: int) -> tuple[int, int]:
    """The square next to ``target`` on its side ``side`` (a facing index): where a
    ``charge:e{j}:D`` ends (Q1, AL-PD-20)."""
    dx, dy = VECTORS[side]
    return (target.x + dx, target.y + dy)


def blocked_squares(state: AlertState, through_doors: bool) -> set[tuple[int, int]]:
    """The squares no move may enter (AL-PD-16, AL-PD-30): blocking terrain, levers and
    machines, fighters in play and, unless ``through_doors``, closed doors (the board's
    edge is checked apart). Memoised (:func:`board_memo`)."""
    memo = state._scope if state._scope is not None else board_memo(state)
    key = "through_doors" if through_doors else "blocked"
    if key in memo:
        return memo[key]
    blocked = set(state.game.static_blocked)
    blocked.update(f.pos for f in state.fighters if f is not None and f.in_play)
    if not through_doors:
        blocked.update((e["x"], e["y"]) for e in state.elements
                       if is_closed_door(e))
    memo[key] = blocked
    return blocked


def search_reach(state: AlertState, fighter: Fighter, budget: int,
                 through_doors: bool = False) -> dict[tuple[int, int], int]:
    """Least path costs within ``budget`` over 8-neighbour steps (difficult squares cost 2
    to enter): a breadth-first search by cost, one layer of set operations per cost (a
    square entered at a cost is never entered more cheaply later, as entering a square
    costs the same from every neighbour)."""
    neighbours = state.game.neighbours
    difficult = frozenset() if fighter.grapnel else state.game.difficult
    start = fighter.pos
    best: dict[tuple[int, int], int] = {start: 0}
    seen = set(blocked_squares(state, through_doors))
    seen.add(start)
    frontier: list[tuple[int, int]] = [start]
    later: list[tuple[int, int]] = []  # difficult squares entered at the next cost
    for cost in range(1, budget + 1):
        entered: set[tuple[int, int]] = set().union(*[neighbours[square] for square in frontier])
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


def closed_door_on_line(state: AlertState, start: tuple[int, int],
                        end: tuple[int, int]) -> int | None:
    """The element index of a closed door on the line of sight from ``start`` to ``end`` when
    only closed doors block it (AL-PD-16, AL-PD-30), else ``None``."""
    door = None
    for x, y in bresenham(start, end):
        if (x, y) in state.game.blocking or (x, y) in state.smoke:
            return None
        element = element_at(state, x, y)
        if door is None and is_closed_door(element):
            door = state.elements.index(element)
    return door


def enemies_adjacent(state: AlertState, fighter: Fighter) -> list[Fighter]:
    """The enemy fighters in play next to ``fighter`` (AL-PD-19)."""
    return [o for o in state.live()
            if o.team != fighter.team and chebyshev(o.pos, fighter.pos) == 1]


def engaged(state: AlertState, fighter: Fighter) -> bool:
    """AL-PD-19: adjacent to an enemy fighter (facing and knockdown do not matter); memoised
    while a :func:`legal_scope` is open."""
    memo = state._scope
    if memo is None:
        return _touches_enemy(state, fighter)
    found = memo["eng"].get(fighter.gid)
    if found is None:
        found = memo["eng"][fighter.gid] = _touches_enemy(state, fighter)
    return found


def _touches_enemy(state: AlertState, fighter: Fighter) -> bool:
    """An enemy fighter in play at Chebyshev distance exactly 1 (squares are integers: both
    offsets within -1..1, not both 0)."""
    team, x, y = fighter.team, fighter.x, fighter.y
    for other in state.fighters:
        if other is not None and other.team != team and other.in_play:
            dx = other.x - x
            if -1 <= dx <= 1:
                dy = other.y - y
                if -1 <= dy <= 1 and (dx or dy):
                    return True
    return False


def adjacent_element(state: AlertState, fighter: Fighter, index: int) -> dict[str, Any] | None:
    """Element ``index`` when it stands on or next to ``fighter``'s square (AL-PD-30), else
    ``None`` (also for an index past the scenario's elements)."""
    if index >= len(state.elements):
        return None
    element = state.elements[index]
    return element if chebyshev(fighter.pos, (element["x"], element["y"])) <= 1 else None


class BoardScope:
    """:func:`legal_scope`'s context manager: the board memo as ``state._scope`` and the
    fighters by square as ``state._occupants`` while it is open."""

    __slots__ = ("state",)

    def __init__(self, state: AlertState):
        self.state = state

    def __enter__(self) -> None:
        state = self.state
        state._scope = board_memo(state)
        state._occupants = {(f.x, f.y): f for f in state.fighters if f is not None and f.in_play}

    def __exit__(self, *exc: object) -> None:
        self.state._scope = None
        self.state._occupants = None
