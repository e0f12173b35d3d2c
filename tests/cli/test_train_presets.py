"""Training presets (agents/training/presets): each ruleset's defaults as a TOML file that
``train.py`` resolves under the flags given, ``--preset`` / ``--config`` files validated with
one ``error:`` line, ``--print-config``, and ``--resume`` taking the run's config.json."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agents.builtin import BUILTIN_AGENTS, panel_for
from agents.training.presets import PresetError, preset_names, preset_path, read_preset
from agents.training.train_cli import (Args, build_parser, check_args, parse_args,
                                       resume_config)

RULESETS = ("acw_regimental", "atomic_africa", "skirmish_alert")

#: each ruleset's own values of the flags not given, as train.py applied them from code before
#: the presets (the sb3 backend only, never on --resume): the presets must resolve to exactly
#: these, so that the same command trains the same weights
FROZEN_SB3_DEFAULTS = {
    "acw_regimental": {"pipelined_updates": True, "n_epochs": 10},
    "atomic_africa": {"total_timesteps": 100_000, "pool_latest_weight": 0.2, "teacher_kl": 0.0,
                      "league_snapshots_weight": 1.0,
                      "bc_opponents": ["heuristic", "random", "never-reserve",
                                       "always-reserve"]},
    "skirmish_alert": {"total_timesteps": 300_000, "learning_rate": 2e-4, "teacher_kl": 0.0,
                       "league_snapshots_weight": 1.0,
                       "bc_opponents": ["heuristic", "never-alert", "always-alert", "random"]},
}


def frozen_resolution(argv: list[str]) -> Args:
    """The configuration the code before the presets resolved for ``argv``: the flags given
    over the Args defaults, then (both backends) a ruleset other than ACW's bot panel in place
    of the default pool and evaluation panels, then (sb3, not on --resume) the ruleset's own
    values of the flags not given."""
    given = vars(build_parser(suppress_defaults=True).parse_args(argv))
    args = Args(**given)
    if args.ruleset != "acw_regimental":
        panel, default = panel_for(args.ruleset), list(BUILTIN_AGENTS)
        args = dataclasses.replace(
            args, pool_bots=panel if list(args.pool_bots) == default else args.pool_bots,
            eval_agents=panel if list(args.eval_agents) == default else args.eval_agents)
    if args.backend == "sb3" and not args.resume:
        own = FROZEN_SB3_DEFAULTS.get(args.ruleset, {})
        args = dataclasses.replace(args, **{k: v for k, v in own.items() if k not in given})
    return args


ARGVS = [[], ["--n-epochs", "3"], ["--no-pipelined-updates"],
         ["--no-pipelined-updates", "--n-epochs", "5"], ["--total-timesteps", "5000"],
         ["--learning-rate", "1e-4", "--teacher-kl", "0.5"], ["--pool-bots", "random"],
         ["--eval-agents", "heuristic", "random"], ["--bc-opponents", "random"],
         ["--pool-latest-weight", "0.3", "--seed", "7"], ["--backend", "rllib"],
         ["--backend", "rllib", "--total-timesteps", "4096", "--pool-bots", "heuristic"]]


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("argv", [pytest.param(a, id=" ".join(a) or "no flags",
                                               marks=pytest.mark.slow if a else ())
                                  for a in ARGVS])
def test_presets_resolve_to_the_configuration_of_the_code_before_them(ruleset, argv):
    args, _ = parse_args(["--ruleset", ruleset, *argv])
    assert args == frozen_resolution(["--ruleset", ruleset, *argv])


def test_the_rulesets_resolve_to_their_own_values():
    acw, _ = parse_args([])
    assert acw.ruleset == "acw_regimental"
    assert (acw.pipelined_updates, acw.n_epochs, acw.total_timesteps) == (True, 10, 300_000)
    aa, _ = parse_args(["--ruleset", "atomic_africa"])
    assert (aa.total_timesteps, aa.pool_latest_weight, aa.n_epochs) == (100_000, 0.2, 5)
    assert aa.pool_bots == ["random", "heuristic", "never-reserve", "always-reserve"]
    sk, _ = parse_args(["--ruleset", "skirmish_alert", "--backend", "rllib"])
    assert (sk.learning_rate, sk.teacher_kl) == (5e-5, 0.1)  # [sb3] only
    assert sk.eval_agents == ["random", "heuristic", "never-alert", "always-alert"]
    toy, _ = parse_args(["--ruleset", "toy"])  # no preset: the Args defaults
    assert toy == Args(ruleset="toy")


@pytest.mark.parametrize("name", preset_names())
def test_each_shipped_preset_is_valid_and_names_its_ruleset(name):
    assert name in RULESETS
    preset = read_preset(preset_path(name), Args)
    assert preset.values["ruleset"] == name
    assert preset.values["pool_bots"] == preset.values["eval_agents"] == panel_for(name)
    assert check_args(dataclasses.replace(Args(), **preset.for_backend("sb3"))) is None


def test_preset_names_the_shipped_ones():
    assert preset_names() == sorted(RULESETS)
    args, given = parse_args(["--preset", "atomic_africa"])
    assert args == parse_args(["--ruleset", "atomic_africa"])[0]
    assert "ruleset" in given and "total_timesteps" in given  # a chosen file's keys are given


def test_precedence_flag_over_config_over_ruleset_preset_over_default(tmp_path):
    cfg = tmp_path / "mine.toml"
    cfg.write_text('n_epochs = 7\nseed = 3\n[sb3]\nbatch_size = 128\n', encoding="utf-8")
    args, given = parse_args(["--config", str(cfg), "--seed", "9"])
    assert (args.n_epochs, args.seed, args.batch_size) == (7, 9, 128)  # file, flag, file [sb3]
    assert args.pipelined_updates is True  # the ruleset's preset under the file
    assert args.gamma == Args().gamma  # the default under everything
    assert given == {"n_epochs", "seed", "batch_size"}
    rl, _ = parse_args(["--config", str(cfg), "--backend", "rllib"])
    assert (rl.batch_size, rl.n_epochs, rl.pipelined_updates) == (256, 7, False)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_print_config_round_trips_through_config(ruleset, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--ruleset", ruleset, "--print-config", "--target-kl", "none"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert f'ruleset = "{ruleset}"\n' in text and 'target_kl = "none"\n' in text
    assert "resume" not in text and "overwrite" not in text
    cfg = tmp_path / "printed.toml"
    cfg.write_text(text, encoding="utf-8")
    args, _ = parse_args(["--config", str(cfg)])
    assert args == parse_args(["--ruleset", ruleset, "--target-kl", "none"])[0]
    assert args.target_kl is None


@pytest.mark.parametrize("content, message", [
    (b"n_epoch = 3\n", "n_epoch: unknown key (keys are train.py flags with underscores; did "
                       "you mean 'n_epochs'?)"),
    (b"[sb3]\nwarp = 1\n", "sb3.warp: unknown key (keys are train.py flags with underscores)"),
    (b'n_epochs = "3"\n', "n_epochs: Input should be a valid integer"),
    (b"pfsp = 1\n", "pfsp: Input should be a valid boolean"),
    (b"net_arch = [64, 6.5]\n", "net_arch[1]: Input should be a valid integer"),
    (b"n_epochs = 3\n[sb3\n", "not valid TOML: Expected ']' at the end of a table declaration "
                              "(at line 2, column 5)"),
    (b"\xef\xbb\xbfn_epochs = 3\n", "not valid TOML: the file starts with a UTF-8 byte order "
                                    "mark; save it as UTF-8 without one"),
    (b"seed = 1\xff\n", "not valid TOML (not UTF-8 text"),
    (b"resume = true\n", "resume: --resume is a command-line flag only, not a setting of a "
                         "preset"),
    (b"n_epochs = 0\n", "n_epochs: --n-epochs must be >= 1"),
])
def test_a_bad_config_file_is_one_error_line_naming_file_and_key(tmp_path, capsys, content,
                                                                   message):
    cfg = tmp_path / "bad.toml"
    cfg.write_bytes(content)
    with pytest.raises(SystemExit) as exc:
        parse_args(["--config", str(cfg)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {cfg}: {message}"), err


@pytest.mark.parametrize("argv, message", [
    (["--preset", "nope"], "--preset 'nope': no such preset; shipped presets: acw_regimental, "
                           "atomic_africa, skirmish_alert"),
    (["--preset", "../acw_regimental"], "--preset '../acw_regimental': no such preset"),
    (["--config", "missing.toml"], "missing.toml: file not found"),
    (["--preset", "acw_regimental", "--config", "x.toml"],
     "argument --config: not allowed with argument --preset"),
])
def test_a_bad_preset_choice_is_one_error_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {message}"), err


def test_help_shows_each_presets_value_beside_the_default():
    text = " ".join(build_parser().format_help().split())
    assert "(default: 5; acw_regimental: 10)" in text
    assert "(default: False; acw_regimental: True)" in text
    assert "(default: 300000; atomic_africa: 100000)" in text
    assert "agents/training/presets/<ruleset>.toml" in text


def _saved_run(tmp_path, argv: list[str]) -> tuple[Args, str]:
    """A run directory whose config.json holds what ``argv`` resolves to (as train.py writes
    it)."""
    args, _ = parse_args(["--run-dir", str(tmp_path / "run"), *argv])
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text(
        json.dumps({"args": dataclasses.asdict(args)}), encoding="utf-8")
    return args, str(tmp_path / "run")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_resume_takes_the_runs_configuration_not_the_preset(ruleset, tmp_path):
    fresh, run_dir = _saved_run(tmp_path, ["--ruleset", ruleset, "--n-epochs", "2"])
    args, given = parse_args(["--run-dir", run_dir, "--resume", "--total-timesteps", "999"])
    assert given == {"run_dir", "resume", "total_timesteps"}  # no preset applied on --resume
    assert args == Args(run_dir=run_dir, resume=True, total_timesteps=999)
    resumed = resume_config(args, given)
    assert resumed == dataclasses.replace(fresh, resume=True, total_timesteps=999)


def test_resume_refuses_a_config_file_that_changes_the_run(tmp_path):
    from agents.training.train_cli import UsageError

    _, run_dir = _saved_run(tmp_path, [])  # ACW: 10 epochs
    cfg = tmp_path / "five.toml"
    cfg.write_text("n_epochs = 5\neval_games = 4\n", encoding="utf-8")
    args, given = parse_args(["--run-dir", run_dir, "--resume", "--config", str(cfg)])
    with pytest.raises(UsageError, match=r"these flags differ: --n-epochs \(run: 10, given: 5\)"):
        resume_config(args, given)
    cfg.write_text("eval_games = 4\n", encoding="utf-8")  # a resumable flag may change
    args, given = parse_args(["--run-dir", run_dir, "--resume", "--config", str(cfg)])
    assert resume_config(args, given).eval_games == 4


def test_print_config_on_resume_prints_the_runs_configuration(tmp_path, capsys):
    fresh, run_dir = _saved_run(tmp_path, ["--ruleset", "atomic_africa", "--seed", "5"])
    with pytest.raises(SystemExit) as exc:
        parse_args(["--run-dir", run_dir, "--resume", "--print-config"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert 'ruleset = "atomic_africa"\n' in out and "seed = 5\n" in out
    assert "total_timesteps = 100000\n" in out


def test_preset_error_is_a_named_exception():
    with pytest.raises(PresetError, match="no such preset"):
        preset_path("nope")
