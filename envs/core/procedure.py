"""The procedure stack: typed, JSON-serialisable frames behind one interface.

A game's flow is a stack of :class:`Frame` objects (Bot Bowl's procedure stack, with explicit
chance and typed return values). The frame on top is *run* until it names what happens next,
by returning one :data:`Step`:

* :class:`Wait` ``(player, decision)`` — a decision of ``player``; the frame then answers
  :meth:`Frame.legal_actions`, :meth:`Frame.why_illegal` and :meth:`Frame.apply`;
* :class:`ChanceNode` ``(outcomes)`` — a chance node with ``(outcome_id, probability)`` pairs;
  the outcome is given to :meth:`Frame.apply` like a decision;
* :class:`Push` ``(frames)`` — run these frames first (the last one is on top);
* :class:`Done` ``(then)`` — this frame is finished: it is popped, the frame below is told
  (:meth:`Frame.on_child_done`, how a child hands its result back) and the frames in ``then``
  are pushed in its place;
* ``None`` — nothing to report, run the top frame again (the frame changed its own step).

:meth:`Frame.apply` returns ``None`` (run again), a :class:`Push` or a :class:`Done`. No frame
touches the stack itself, and no return value is a flag whose meaning lives in a side effect.

Frames are ``@dataclass(slots=True)`` classes whose fields hold JSON values, enums (stored by
value), lists, dicts and other registered records. Each class is listed in the explicit
:data:`RECORD_KINDS` registry under its ``kind`` by :func:`register`; :func:`record_from_dict`
rebuilds any of them from :meth:`Record.to_dict`. Nothing is found by method-name prefix.

The observer reads :meth:`Frame.context` — a typed :class:`DecisionContext` for one viewing
side — never the frame's fields.

:class:`FrameStack` is the driver (``advance``), and :class:`ProcedureState` implements the
protocol hooks of :class:`~envs.core.protocol.State` on top of it for a ruleset whose whole
flow is frames.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar, Union

from .errors import InvalidStateError
from .protocol import CHANCE, TERMINAL, Illegality, State

__all__ = [
    "ChanceNode", "DecisionContext", "Done", "Frame", "FrameStack", "ProcedureState", "Push",
    "RECORD_KINDS", "Record", "StateT", "Step", "Wait", "filled", "frame_from_dict",
    "record_from_dict", "register",
]


# ---------------------------------------------------------------------------------------------
# steps
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Wait:
    """The top frame waits for a decision of ``player`` (a side index) of type ``decision``
    (a ``str`` enum member of the ruleset's decision types)."""

    player: int
    decision: str


@dataclass(frozen=True, slots=True)
class ChanceNode:
    """The top frame waits for a chance outcome: ``(outcome_id, probability)`` pairs in id
    order, probabilities summing to 1."""

    outcomes: tuple[tuple[int, float], ...]


@dataclass(frozen=True, slots=True)
class Push:
    """Run ``frames`` before the current frame continues (pushed in order: the last is on
    top)."""

    frames: tuple[Frame[Any], ...]

    def __init__(self, *frames: Frame[Any]):
        object.__setattr__(self, "frames", tuple(frames))


@dataclass(frozen=True, slots=True)
class Done:
    """The frame is finished: pop it, tell the frame below (``on_child_done``) and push
    ``then`` in its place (the last on top)."""

    then: tuple[Frame[Any], ...] = ()

    def __init__(self, *then: Frame[Any]):
        object.__setattr__(self, "then", tuple(then))


#: what :meth:`Frame.run` returns (``None``: run the top frame again)
Step = Union[Wait, ChanceNode, Push, Done, None]


@dataclass(frozen=True, slots=True)
class DecisionContext:
    """What the observer of ``viewer`` may know about the decision being taken: the frame's
    kind, who decides and the decision type. Frames return subclasses that add typed fields
    (a reaction window adds the trigger and the subject); a field is only filled with what the
    viewing side may see."""

    frame: str
    player: int
    decision: str


# ---------------------------------------------------------------------------------------------
# records: typed, registered, JSON-serialisable dataclasses
# ---------------------------------------------------------------------------------------------
#: every registered record class (frames included) by its ``kind``
RECORD_KINDS: dict[str, type["Record"]] = {}


RecordClass = TypeVar("RecordClass", bound="type[Record]")


def register(cls: RecordClass) -> RecordClass:
    """Class decorator: list ``cls`` in :data:`RECORD_KINDS` under ``cls.kind``.

    Raises:
        ValueError: when ``cls`` has no ``kind`` or the kind is already registered by another
            class (two frames cannot share a kind).
    """
    kind = cls.__dict__.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"register: {cls.__qualname__} must set a non-empty class attribute "
                         f"'kind'")
    other = RECORD_KINDS.get(kind)
    if other is not None and other.__qualname__ != cls.__qualname__:
        raise ValueError(f"register: kind {kind!r} of {cls.__name__} is already taken by "
                         f"{other.__module__}.{other.__qualname__}")
    if not dataclasses.is_dataclass(cls):
        raise ValueError(f"register: {cls.__qualname__} must be a dataclass")
    RECORD_KINDS[kind] = cls
    cls._codec = None  # field codecs, built on first use (type hints need the whole module)
    return cls


def record_from_dict(data: Mapping[str, Any]) -> "Record":
    """Rebuild a registered record (a frame, an activation order, ...) from its
    :meth:`Record.to_dict`.

    Raises:
        InvalidStateError: for a missing or unknown ``kind``, or a field that is missing or
            of the wrong shape (the message names the kind and the field).
    """
    if not isinstance(data, Mapping) or "kind" not in data:
        raise InvalidStateError(f"frame: expected an object with a 'kind' key, got {data!r:.80}")
    cls = RECORD_KINDS.get(data["kind"])
    if cls is None:
        raise InvalidStateError(f"frame: unknown kind {data['kind']!r} (registered: "
                                f"{sorted(RECORD_KINDS)})")
    return cls.from_dict(data)


FieldT = TypeVar("FieldT")


def filled(value: FieldT | None, what: str) -> FieldT:
    """``value``, a frame field that a later step fills (``None`` until then), where the frame
    is at a step that reads it.

    Raises:
        InvalidStateError: when it is still ``None`` (names ``what``).
    """
    if value is None:
        raise InvalidStateError(f"{what} is read before it is set")
    return value


def frame_from_dict(data: Mapping[str, Any]) -> Frame[Any]:
    """A frame from its :meth:`Record.to_dict` output.

    Raises:
        InvalidStateError: as :func:`record_from_dict`, and for a record that is not a frame.
    """
    frame = record_from_dict(data)
    if not isinstance(frame, Frame):
        raise InvalidStateError(f"stack: {data.get('kind')!r} is not a frame")
    return frame


def _encode(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _decoder(tp: Any) -> Callable[[Any], Any]:
    """A function JSON value -> field value for the annotation ``tp``."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            dec = _decoder(inner[0])
            return lambda v: None if v is None else dec(v)
        return lambda v: v
    if origin in (list, Sequence):
        dec = _decoder(args[0]) if args else (lambda v: v)
        return lambda v: [dec(x) for x in v]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            dec = _decoder(args[0])
            return lambda v: tuple(dec(x) for x in v)
        decs = [_decoder(a) for a in args]
        return lambda v: tuple(d(x) for d, x in zip(decs, v, strict=True))
    if origin in (dict, Mapping):
        dec = _decoder(args[1]) if len(args) == 2 else (lambda v: v)
        kdec = int if args and args[0] is int else (lambda k: k)
        return lambda v: {kdec(k): dec(x) for k, x in v.items()}
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            return tp
        if issubclass(tp, Record):
            return record_from_dict
        if tp is float:
            return float
    return lambda v: v


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        for v in value:
            if isinstance(v, (list, dict, Record)):
                return [_copy(x) for x in value]
        return list(value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, Record):
        return value.copy()
    return value  # immutable: numbers, strings, enums, tuples of those


class Record:
    """Base of the typed records kept in a state (frames, activation orders): a registered
    ``@dataclass(slots=True)`` whose ``kind`` names it in JSON.

    ``to_dict()`` gives ``{"kind": kind, <field>: <JSON value>, ...}`` (enums by value, nested
    records as their own dicts); ``from_dict`` reads it back using the field annotations;
    ``copy()`` is an independent deep copy."""

    __slots__ = ()
    kind: ClassVar[str] = ""
    _codec: ClassVar[tuple[tuple[str, Any], ...] | None] = None
    if TYPE_CHECKING:  # every registered record is a dataclass (register checks it)
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    @classmethod
    def _fields(cls) -> tuple[tuple[str, Any], ...]:
        codec = cls.__dict__.get("_codec")
        if codec is None:
            hints = typing.get_type_hints(cls)
            codec = tuple((f.name, _decoder(hints[f.name])) for f in dataclasses.fields(cls))
            cls._codec = codec
        return codec

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name, _ in self._fields():
            out[name] = _encode(getattr(self, name))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        if data.get("kind") != cls.kind:
            raise InvalidStateError(f"frame: expected kind {cls.kind!r}, got "
                                    f"{data.get('kind')!r}")
        obj = object.__new__(cls)
        for name, dec in cls._fields():
            if name not in data:
                raise InvalidStateError(f"frame {cls.kind!r}: missing field {name!r}")
            try:
                object.__setattr__(obj, name, dec(data[name]))
            except (TypeError, ValueError, AttributeError, KeyError) as e:
                raise InvalidStateError(f"frame {cls.kind!r}: field {name!r}: malformed "
                                        f"({type(e).__name__}: {e})") from None
        return obj

    def copy(self) -> Self:
        cls = type(self)
        obj = object.__new__(cls)
        for name, _ in cls._fields():
            object.__setattr__(obj, name, _copy(getattr(self, name)))
        return obj


#: the state class a frame runs on (a ruleset's :class:`ProcedureState` subclass, or a protocol
#: of what a core frame uses of it)
StateT = TypeVar("StateT")


class Frame(Record, Generic[StateT]):
    """One procedure on the stack (see the module docstring). Subclasses are registered
    ``@dataclass(slots=True)`` classes and override :meth:`run`, and, when they can wait,
    :meth:`legal_actions`, :meth:`apply`, :meth:`why_illegal` and :meth:`context`. A ruleset's
    frames name its state class, ``Frame[ACWState]``, so that their ``state`` parameters are
    typed by it.

    ``auto_apply_forced``: when the frame waits for a decision with exactly one legal action,
    the driver applies it without asking (it does not enter the history), as for a
    "choose the next unit" frame with one unit left.
    """

    __slots__ = ()
    auto_apply_forced: ClassVar[bool] = False

    def run(self, state: StateT) -> Step:
        """Run until a decision, a chance node, a child frame or the end of this frame."""
        raise NotImplementedError(f"{type(self).__name__}.run")

    def legal_actions(self, state: StateT) -> list[int]:
        """Sorted legal ids (decision ids, or chance outcome ids at a chance node) while this
        frame waits."""
        raise InvalidStateError(f"frame {self.kind!r} does not wait for actions")

    def apply(self, state: StateT, action: int) -> Step:
        """Apply a legal decision or chance outcome; ``None`` runs this frame again. The core
        driver (:class:`FrameStack`) takes ``Push``, ``Done`` or ``None`` here; a ruleset's own
        driver may also take a ``Wait`` or a ``ChanceNode``."""
        raise InvalidStateError(f"frame {self.kind!r} does not wait for actions")

    def why_illegal(self, state: StateT, action: int) -> Illegality | None:
        """Why ``action`` is masked here (rule ids and a reason), or ``None`` when the frame
        has nothing specific to say (the caller then gives a generic reason)."""
        return None

    def on_child_done(self, state: StateT, child: Frame[Any]) -> None:
        """A frame this one pushed has finished; read its result from ``child``."""

    def context(self, state: StateT, viewer: int) -> DecisionContext | None:
        """The decision context ``viewer``'s observer may read while this frame waits."""
        return None


# ---------------------------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------------------------
class FrameStack:
    """The procedure stack and its driver.

    ``frames[-1]`` is the top. :meth:`advance` runs the top frame until it waits (returns the
    :class:`Wait` or :class:`ChanceNode`) or the stack is empty (returns ``None``: the flow has
    ended). Frames never push or pop themselves: the driver acts on the :data:`Step` they
    return.
    """

    __slots__ = ("frames", "node")

    def __init__(self, frames: Sequence[Frame[Any]] = (), node: Wait | ChanceNode | None = None):
        self.frames: list[Frame[Any]] = list(frames)
        #: what the top frame waits for (``None`` before ``advance`` and at the end)
        self.node: Wait | ChanceNode | None = node

    @property
    def top(self) -> Frame[Any]:
        return self.frames[-1]

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[Frame[Any]]:
        return iter(self.frames)

    def push(self, *frames: Frame[Any]) -> None:
        self.frames.extend(frames)

    def _finish(self, state: State, done: Done) -> None:
        child = self.frames.pop()
        if self.frames:
            self.frames[-1].on_child_done(state, child)
        if done.then:
            self.frames.extend(done.then)

    def handle(self, state: State, step: Step) -> None:
        """Act on what :meth:`Frame.apply` returned."""
        if step is None:
            return
        if type(step) is Push:
            self.frames.extend(step.frames)
        elif type(step) is Done:
            self._finish(state, step)
        else:
            raise InvalidStateError(f"frame {self.frames[-1].kind!r}: apply returned "
                                    f"{step!r} (expected None, Push or Done)")

    def advance(self, state: State) -> Wait | ChanceNode | None:
        """Run frames until one waits; ``None`` when the stack has emptied."""
        frames = self.frames
        while frames:
            frame = frames[-1]
            step = frame.run(state)
            if step is None:
                continue
            if type(step) is Wait:
                if frame.auto_apply_forced:
                    legal = frame.legal_actions(state)
                    if len(legal) == 1:
                        self.handle(state, frame.apply(state, legal[0]))
                        continue
                self.node = step
                return step
            if type(step) is ChanceNode:
                self.node = step
                return step
            if type(step) is Push:
                frames.extend(step.frames)
            elif type(step) is Done:
                self._finish(state, step)
            else:
                raise InvalidStateError(f"frame {frame.kind!r}: run returned {step!r} "
                                        f"(expected Wait, ChanceNode, Push, Done or None)")
        self.node = None
        return None

    def copy(self) -> "FrameStack":
        return FrameStack([f.copy() for f in self.frames], self.node)

    def to_dict(self) -> dict[str, Any]:
        """``{"frames": [frame dicts, bottom first], "node": waiting node}``; the node is
        ``{"player": p, "decision": value}``, ``{"chance": [[id, p], ...]}`` or ``None``."""
        node = self.node
        if type(node) is Wait:
            nd: Any = {"player": node.player, "decision": _encode(node.decision)}
        elif type(node) is ChanceNode:
            nd = {"chance": [list(o) for o in node.outcomes]}
        else:
            nd = None
        return {"frames": [f.to_dict() for f in self.frames], "node": nd}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], decision: Any = str) -> "FrameStack":
        """Rebuild a stack from :meth:`to_dict`; ``decision`` turns a stored decision value
        back into the ruleset's decision enum.

        Raises:
            InvalidStateError: for a malformed frame or node (names the frame kind / field).
        """
        frames: list[Frame[Any]] = []
        for d in data["frames"]:
            frames.append(frame_from_dict(d))
        nd = data["node"]
        if nd is None:
            node: Wait | ChanceNode | None = None
        elif "chance" in nd:
            node = ChanceNode(tuple((int(o), float(p)) for o, p in nd["chance"]))
        else:
            node = Wait(int(nd["player"]), decision(nd["decision"]))
        return cls(frames, node)


class ProcedureState(State):
    """A :class:`~envs.core.protocol.State` whose flow is a :class:`FrameStack` (``self.stack``):
    the protocol hooks ``current_player``, ``decision_type``, ``_legal_actions``,
    ``_chance_outcomes``, ``_apply_action`` and ``_why_illegal`` are answered by the top
    frame. Subclasses keep their data, call :meth:`start` once the initial frames are pushed,
    and implement ``returns``, ``_to_dict`` (include ``self.stack.to_dict()``, read back with
    ``FrameStack.from_dict(data, self.decision_enum)``) and ``clone`` (``self.stack.copy()``).

    The flow ends when the stack empties (``current_player()`` is then ``TERMINAL``).
    """

    decision_enum: ClassVar[Any] = str
    terminal_decision: ClassVar[str] = "terminal"
    chance_decision: ClassVar[str] = "chance"

    def __init__(self, game: Any):
        super().__init__(game)
        self.stack = FrameStack()

    def start(self) -> None:
        """Run the pushed frames to the first decision or chance node."""
        self.stack.advance(self)

    def current_player(self) -> int:
        node = self.stack.node
        if node is None:
            return TERMINAL
        return node.player if type(node) is Wait else CHANCE

    def decision_type(self) -> str:
        node = self.stack.node
        if node is None:
            return self.terminal_decision
        return node.decision if type(node) is Wait else self.chance_decision

    def _legal_actions(self) -> list[int]:
        return self.stack.top.legal_actions(self)

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        node = self.stack.node
        if type(node) is not ChanceNode:
            raise InvalidStateError("chance_outcomes() away from a chance node")
        return list(node.outcomes)

    def _apply_action(self, action: int) -> None:
        stack = self.stack
        stack.handle(self, stack.top.apply(self, action))
        stack.advance(self)

    def _why_illegal(self, action: int) -> Illegality:
        frame = self.stack.top
        why = frame.why_illegal(self, action)
        if why is not None:
            return why
        return Illegality((), f"{self.game.actions.labels[action]!r} is not a choice of this "
                              f"{self.decision_name()} decision ({frame.kind})")

    def decision_context(self, viewer: int) -> DecisionContext | None:
        """The typed context of the waiting decision as ``viewer`` may see it (``None`` at a
        chance node, at the end, or when the frame has none)."""
        if not self.stack.frames or self.stack.node is None:
            return None
        return self.stack.top.context(self, viewer)
