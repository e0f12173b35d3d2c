"""envs.core.appendlog: the shared, append-only log behind ``State.events`` / ``history``."""

from __future__ import annotations

import copy
import pickle

import pytest

from envs.core.appendlog import CHUNK, AppendLog


def test_reads_like_a_list() -> None:
    log = AppendLog([1, 2])
    log.append(3)
    log.extend([4, 5])
    ref = [1, 2, 3, 4, 5]
    assert log == ref and list(log) == ref and len(log) == 5
    assert [log[i] for i in range(-5, 5)] == ref + ref
    assert log[1:3] == [2, 3] and log[::2] == [1, 3, 5] and log[-2:] == [4, 5]
    assert list(reversed(log)) == ref[::-1] and log.index(4) == 3 and 5 in log
    assert log != [1, 2, 3] and log != (1, 2, 3, 4, 5) and not isinstance(log, list)
    with pytest.raises(IndexError):
        log[5]
    with pytest.raises(IndexError):
        log[-6]


def test_forks_never_see_each_others_entries() -> None:
    log = AppendLog(["a", "b"])
    other = log.fork()
    log.append("c")
    other.append("x")
    third = other.fork()
    third.append("y")
    assert log == ["a", "b", "c"] and other == ["a", "b", "x"] and third == ["a", "b", "x", "y"]
    assert log[2] == "c" and other[2] == "x" and third[-1] == "y" and third[1] == "b"
    assert other[1:] == ["b", "x"] and list(reversed(third)) == ["y", "x", "b", "a"]


def test_a_fork_shares_the_past_and_keeps_chunks_few() -> None:
    log: AppendLog[int] = AppendLog()
    for i in range(50 * CHUNK):
        log.append(i)
        if i % 3 == 0:
            log = log.fork()
    copy_ = log.fork()
    assert copy_._chunks is log._chunks  # shared, not copied
    assert list(log) == list(range(50 * CHUNK)) and log[CHUNK * 7 + 5] == CHUNK * 7 + 5
    # every chunk but the last holds at least CHUNK entries
    assert len(log._chunks) <= 50 + 1
    assert all(len(c) >= CHUNK for c in log._chunks[:-1])


def test_pickle_and_deepcopy_give_an_equal_unshared_log() -> None:
    log = AppendLog([{"a": 1}])
    log.fork()
    for other in (pickle.loads(pickle.dumps(log)), copy.deepcopy(log)):
        assert other == log and other[0] is not log[0]
        other.append(2)
        assert len(log) == 1


def test_a_clone_shares_the_past_of_events_and_history() -> None:
    from tests.toy_ruleset import ToyGame

    state = ToyGame().new_initial_state()
    while len(state.history) < 6:
        state.apply_action(state.legal_actions()[0])
    events, history = list(state.events), list(state.history)
    clone = state.clone()
    assert clone.events._chunks is state.events._chunks  # shared, not copied
    assert clone.history._chunks is state.history._chunks
    clone.apply_action(clone.legal_actions()[0])
    assert state.events == events and state.history == history  # the original is untouched
    assert clone.history[:-1] == history and clone.events[:len(events)] == events
