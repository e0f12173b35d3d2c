"""An append-only sequence whose copies share their past: what a state's ``events`` and
``history`` are, so that ``State.clone()`` costs the same early and late in a game.

A :class:`AppendLog` is a tuple of frozen chunks (tuples, shared by every copy) and a private
tail (a list, the entries appended since the last :meth:`~AppendLog.fork`). ``fork()`` freezes
the tail into the chunks and hands the copy the same chunks with an empty tail of its own, so
neither side ever sees the other's later entries. A frozen tail is merged into
the last chunk when that one is shorter than :data:`CHUNK` entries, so a game of ``n``
entries holds at most about ``n / CHUNK + 1`` chunks however often it was cloned: ``fork()``
costs ``O(CHUNK + n / CHUNK)`` element copies, which for the games here (a few hundred to a
few thousand entries) is a few microseconds, against ``O(n)`` for ``list(log)``.

It reads like a list of its entries (``len``, indexing and slicing — a slice is a ``list`` —,
iteration, ``in``, ``index``, ``count``, ``reversed``) and compares equal to a list or another
log with the same entries; it is not a ``list`` (``isinstance(log, list)`` is false).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, TypeVar, overload

T = TypeVar("T")

#: a frozen chunk shorter than this takes in the next frozen tail (see the module docstring)
CHUNK = 64


class AppendLog(Sequence[T]):
    """Append-only sequence with copy-on-fork sharing (see the module docstring).

    Args:
        items: the first entries (copied).
    """

    __slots__ = ("_chunks", "_frozen", "_tail")

    def __init__(self, items: Iterable[T] = ()):
        self._chunks: tuple[tuple[T, ...], ...] = ()
        self._frozen = 0  # number of entries in the chunks
        self._tail: list[T] = list(items)

    def append(self, item: T) -> None:
        """Add ``item`` at the end (seen by this log only, never by its forks)."""
        self._tail.append(item)

    def extend(self, items: Iterable[T]) -> None:
        """Add ``items`` at the end, in order."""
        self._tail.extend(items)

    def _freeze(self) -> None:
        """Move the tail into the shared chunks (merging short chunks)."""
        tail = self._tail
        if not tail:
            return
        chunks = self._chunks
        if chunks and len(chunks[-1]) < CHUNK:
            # a new tuple: the old chunk may be shared with other forks
            self._chunks = chunks[:-1] + (chunks[-1] + tuple(tail),)
        else:
            self._chunks = chunks + (tuple(tail),)
        self._frozen += len(tail)
        self._tail = []

    def fork(self) -> "AppendLog[T]":
        """An independent log with the same entries, sharing the frozen past with this one."""
        self._freeze()
        other = AppendLog.__new__(AppendLog)
        other._chunks = self._chunks
        other._frozen = self._frozen
        other._tail = []
        return other

    # -- reading ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._frozen + len(self._tail)

    def __iter__(self) -> Iterator[T]:
        return chain(*self._chunks, self._tail) if self._chunks else iter(self._tail)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: Any) -> Any:
        frozen = self._frozen
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1 and start >= frozen:
                return self._tail[start - frozen:stop - frozen]
            return list(self)[index]
        n = frozen + len(self._tail)
        i = index.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("AppendLog index out of range")
        if i >= frozen:
            return self._tail[i - frozen]
        for chunk in self._chunks:
            if i < len(chunk):
                return chunk[i]
            i -= len(chunk)
        raise IndexError("AppendLog index out of range")  # (unreachable: i < frozen)

    def __reversed__(self) -> Iterator[T]:
        yield from reversed(self._tail)
        for chunk in reversed(self._chunks):
            yield from reversed(chunk)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AppendLog):
            return len(self) == len(other) and list(self) == list(other)
        if isinstance(other, list):
            return len(self) == len(other) and list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"AppendLog({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy.deepcopy as the list of entries (a copy shares nothing)
        return (AppendLog, (list(self),))
