"""Playthroughs (golden text of one seeded random game per scenario) and perft counts
(:mod:`envs.core.playthrough`, ``python -m envs playthrough``)."""

from __future__ import annotations

import difflib

import pytest

from envs import load_game
from envs.__main__ import main
from envs.cli import playthrough as cli
from envs.core.errors import ParameterError
from envs.core.playthrough import perft, playthrough

REGENERATE = "python -m envs playthrough --regenerate"


# -- golden playthroughs -------------------------------------------------------------------------
@pytest.mark.parametrize("spec", cli.PLAYTHROUGHS, ids=lambda s: s.file.removesuffix(".txt"))
def test_golden_playthrough_is_unchanged(spec: cli.PlaythroughSpec) -> None:
    path = cli.GOLDEN_DIR / spec.file
    assert path.is_file(), f"{path} is missing: run `{REGENERATE}`"
    want = path.read_text(encoding="utf-8")
    got = cli.render(spec)
    if got != want:
        diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(),
                                         f"{spec.file} (golden)", f"{spec.file} (now)",
                                         lineterm=""))
        pytest.fail(f"the playthrough of {spec.ruleset}/{spec.scenario or 'default'} seed "
                    f"{spec.seed} changed ({len(diff)} diff lines"
                    f"{', the first 40 below' if len(diff) > 40 else ''}); if the change"
                    f" is intended run `{REGENERATE}` and commit the files\n"
                    + "\n".join(diff[:40]), pytrace=False)


def test_golden_mismatch_shows_a_short_diff_and_the_command(tmp_path, monkeypatch) -> None:
    spec = cli.PLAYTHROUGHS[0]
    lines = (cli.GOLDEN_DIR / spec.file).read_text(encoding="utf-8").splitlines(keepends=True)
    lines[30:40] = [f"edited line {i}\n" for i in range(60)]  # a 70-line diff
    (tmp_path / spec.file).write_text("".join(lines), encoding="utf-8")
    monkeypatch.setattr(cli, "GOLDEN_DIR", tmp_path)
    with pytest.raises(pytest.fail.Exception) as info:
        test_golden_playthrough_is_unchanged(spec)
    message = str(info.value)
    assert REGENERATE in message
    assert f"--- {spec.file} (golden)" in message and f"+++ {spec.file} (now)" in message
    assert len(message.splitlines()) == 41  # the sentence and 40 diff lines
    assert "-edited line 0" in message


def test_golden_files_are_the_table_and_stay_short() -> None:
    files = sorted(p.name for p in cli.GOLDEN_DIR.glob("*.txt"))
    assert files == sorted(s.file for s in cli.PLAYTHROUGHS)
    for spec in cli.PLAYTHROUGHS:
        lines = (cli.GOLDEN_DIR / spec.file).read_text(encoding="utf-8").splitlines()
        assert 1000 < len(lines) < 2000, (spec.file, len(lines))
        assert lines[1:3] == [f"ruleset: {spec.ruleset}",
                              f"scenario: {spec.scenario or 'default'}"]
        assert f"seed: {spec.seed}" in lines and f"max_nodes: {spec.max_nodes}" in lines


def test_playthrough_blocks_of_example_a() -> None:
    text = playthrough(load_game("acw_regimental", "example_a_closing_volley"), 0)
    lines = text.splitlines()
    assert lines[:5] == ["# Riposte playthrough: one seeded random game, node by node",
                         "ruleset: acw_regimental", "scenario: example_a_closing_volley",
                         "version: 6", "params:"]
    first = lines.index("node 0")
    assert lines[first:first + 7] == [
        "node 0", "  current_player: 0 (Union)", "  decision: maneuver",
        "  legal_actions: [5, 13]", "  string_legal_actions:", "    activate:u0",
        "    end_phase"]
    chance = lines.index("  chance_outcomes:")
    assert lines[chance + 1:chance + 7] == [f"    d6={k}: 0.166667" for k in range(1, 7)]
    assert lines[-3:] == ["  terminal: True", "  returns: [-1, 1]", "  nodes: 62"]
    assert text.count("\nnode ") == 62 and text.endswith("\n")
    assert all(line == line.rstrip() for line in lines)


def test_playthrough_is_deterministic_and_follows_the_seed() -> None:
    game = load_game("skirmish_alert")
    a = playthrough(game, 3, max_nodes=20)
    assert a == playthrough(game, 3, max_nodes=20)
    assert a != playthrough(game, 4, max_nodes=20)
    assert a.count("\nnode ") == 20 and "  nodes: 20" in a and "  terminal: False" in a


def test_playthrough_with_zero_nodes_is_header_and_final_block() -> None:
    text = playthrough(load_game("atomic_africa"), 0, max_nodes=0)
    lines = text.splitlines()
    assert "node 0" not in lines and "max_nodes: 0" in lines
    assert lines[1:3] == ["ruleset: atomic_africa", "scenario: default"]
    assert lines[-3:] == ["  terminal: False", "  returns: [0, 0]", "  nodes: 0"]


@pytest.mark.parametrize("seed, max_nodes", [(-1, None), (0, -1), (1.5, None), (True, None),
                                             (0, "3")])
def test_playthrough_rejects_bad_seed_or_cap(seed, max_nodes) -> None:
    with pytest.raises(ParameterError):
        playthrough(load_game("acw_regimental", "example_a_closing_volley"), seed, max_nodes)


# -- perft ---------------------------------------------------------------------------------------
#: (ruleset, scenario) -> perft counts at depth 1, 2, 3 from the initial state
PERFT = {
    ("acw_regimental", "example_a_closing_volley"): (2, 20, 75),
    ("acw_regimental", "example_b_refuse_flank"): (2, 20, 124),
    ("acw_regimental", "example_c_opportunity_fire"): (2, 17, 121),
    ("atomic_africa", None): (14, 196, 2743),
    ("skirmish_alert", None): (6, 36, 216),
}


def _branching(state) -> int:
    if state.is_terminal():
        return 1
    return len(state.chance_outcomes()) if state.is_chance_node() else len(state.legal_actions())


@pytest.mark.parametrize("ruleset, scenario", list(PERFT), ids=lambda x: str(x))
def test_perft_counts(ruleset: str, scenario: str | None) -> None:
    state = load_game(ruleset, scenario).new_initial_state()
    counts = PERFT[ruleset, scenario]
    assert perft(state, 0) == 1
    assert tuple(perft(state, d) for d in (1, 2, 3)) == counts
    # plausibility: depth 1 is the root's branching, depth 2 the sum of its children's
    assert counts[0] == _branching(state)
    moves = ([o for o, _ in state.chance_outcomes()] if state.is_chance_node()
             else state.legal_actions())
    children = []
    for a in moves:
        child = state.clone()
        child.apply_action(a)
        children.append(child)
    assert counts[1] == sum(_branching(c) for c in children)
    assert counts[2] == sum(perft(c, 2) for c in children)


def test_perft_root_kinds() -> None:
    # skirmish_alert opens with d6 rolls: 6, then 6 x 6, then 6 x 6 x 6 leaves
    state = load_game("skirmish_alert").new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 6
    # ACW example A opens with Union's maneuver decision: activate the regiment or end phase
    acw = load_game("acw_regimental", "example_a_closing_volley").new_initial_state()
    assert acw.current_player() == 0 and acw.legal_labels() == ["activate:u0", "end_phase"]


def test_perft_counts_a_terminal_node_as_one_leaf() -> None:
    game = load_game("acw_regimental", "example_a_closing_volley")
    state = game.new_initial_state()
    text = playthrough(game, 0)
    assert "  terminal: True" in text
    import numpy as np

    from envs.core.chance import random_decision, sample_chance_outcome

    rng = np.random.default_rng(0)  # the same game as the playthrough: it ends
    while not state.is_terminal():
        state.apply_action(sample_chance_outcome(state, rng) if state.is_chance_node()
                           else random_decision(state, rng))
    assert [perft(state, d) for d in (0, 1, 3)] == [1, 1, 1]


def test_perft_leaves_the_state_alone_and_rejects_a_bad_depth() -> None:
    state = load_game("acw_regimental", "example_b_refuse_flank").new_initial_state()
    before = state.to_json()
    assert perft(state, 3) == 124
    assert state.to_json() == before and state.history == []
    for bad in (-1, -5, 1.0, True, None):
        with pytest.raises(ParameterError, match="depth"):
            perft(state, bad)


# -- command line --------------------------------------------------------------------------------
def test_cli_writes_the_playthrough(tmp_path, capsys) -> None:
    out = tmp_path / "sub" / "a.txt"
    assert main(["playthrough", "--ruleset", "acw_regimental", "--scenario",
                 "example_a_closing_volley", "--seed", "0", "--max-nodes", "5",
                 "--out", str(out)]) == 0
    want = playthrough(load_game("acw_regimental", "example_a_closing_volley"), 0, 5)
    assert out.read_text(encoding="utf-8") == want
    assert capsys.readouterr().out == f"wrote {out} ({want.count(chr(10))} lines)\n"
    assert [p.name for p in out.parent.iterdir()] == ["a.txt"]  # no temporary file left


def test_cli_prints_the_playthrough(capsys) -> None:
    assert main(["playthrough", "--ruleset", "skirmish_alert", "--seed", "2",
                 "--max-nodes", "3"]) == 0
    assert capsys.readouterr().out == playthrough(load_game("skirmish_alert"), 2, 3)


def test_cli_regenerate_writes_every_table_file(tmp_path, monkeypatch, capsys) -> None:
    spec = cli.PlaythroughSpec("x.txt", "acw_regimental", "example_a_closing_volley", 1, 4)
    monkeypatch.setattr(cli, "PLAYTHROUGHS", (spec,))
    monkeypatch.setattr(cli, "GOLDEN_DIR", tmp_path)
    assert main(["playthrough", "--regenerate"]) == 0
    assert (tmp_path / "x.txt").read_text(encoding="utf-8") == cli.render(spec)
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'x.txt'} (")


@pytest.mark.parametrize("flags, message", [
    (["--ruleset", "chess", "--seed", "0"], "unknown ruleset 'chess'"),
    (["--ruleset", "acw_regimental", "--scenario", "no_such_battle", "--seed", "0"],
     "no_such_battle"),
    (["--ruleset", "acw_regimental", "--seed", "-1"], "--seed must be >= 0, got -1"),
    (["--ruleset", "acw_regimental", "--seed", "0", "--max-nodes", "-2"],
     "--max-nodes must be >= 0, got -2"),
    (["--ruleset", "acw_regimental"], "--seed is required"),
    (["--seed", "0"], "--ruleset is required"),
    (["--regenerate", "--seed", "0"], "--regenerate takes no other flags (got --seed)"),
    (["--ruleset", "acw_regimental", "--seed", "0", "--out", "/"], "'/'"),
])
def test_cli_refuses_bad_flags(flags, message, tmp_path, capsys) -> None:
    assert main(["playthrough", *flags]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


@pytest.mark.parametrize("ruleset, scenario, file", [
    ("acw_regimental", "example_a_closing_volley", "example_a_closing_volley.toml"),
    ("acw_regimental", None, "default.toml"),
    ("skirmish_alert", "ffa3", "ffa3.toml"),
])
def test_cli_never_writes_over_the_scenario_it_reads_given_by_name(ruleset, scenario, file,
                                                                   capsys) -> None:
    """--out naming the built-in scenario file that --scenario (a name, or none: the
    default) reads is refused like the same file given by path; the file is untouched."""
    from envs.core.registry import game_class, scenario_files

    target = game_class(ruleset).scenario_dir / file
    assert scenario_files(ruleset, scenario) == [target]
    before = target.read_bytes()
    flags = ["--ruleset", ruleset, *(["--scenario", scenario] if scenario else []),
             "--seed", "0", "--max-nodes", "1", "--out", str(target)]
    assert main(["playthrough", *flags]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is also an input" in err[0] and "would replace it" in err[0], err
    assert target.read_bytes() == before


def test_scenario_files_of_an_unknown_ruleset_or_scenario_is_empty() -> None:
    from envs.core.registry import scenario_files

    assert scenario_files("chess", None) == []
    assert scenario_files("acw_regimental", "no_such_battle") == []


def test_cli_ctrl_c_is_one_line_and_130_and_writes_nothing(monkeypatch, tmp_path, capsys):
    """Ctrl-C (SIGINT) during a playthrough: one line and status 130, no traceback, and no
    partial --out file (agents.interrupts.run_guarded, as for the fuzz)."""
    import signal

    from agents.interrupts import Interrupted
    from envs.core import playthrough as core

    def interrupted(*args, **kwargs):
        raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(core, "playthrough", interrupted)
    out = tmp_path / "pt.txt"
    assert main(["playthrough", "--ruleset", "acw_regimental", "--seed", "0",
                 "--out", str(out)]) == 130
    assert capsys.readouterr().err == ("interrupted (SIGINT): aborted (each file is written "
                                       "whole or not at all)\n")
    assert list(tmp_path.iterdir()) == []
