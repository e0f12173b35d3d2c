"""Atomic output files of the command-line tools (envs/core/files.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, check_output_path, check_output_suffix


def test_atomic_write_creates_parents_and_replaces(tmp_path):
    out = tmp_path / "a" / "b" / "r.json"
    atomic_write_text(out, "one")
    atomic_write_text(out, "two")
    assert out.read_text(encoding="utf-8") == "two"
    assert sorted(os.listdir(out.parent)) == ["r.json"]  # no temporary file left


def test_failed_replace_leaves_no_temporary_file_and_the_old_content(tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    out.write_text("old", encoding="utf-8")

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(out, "new")
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(os.listdir(tmp_path)) == ["r.json"]


def test_a_directory_is_refused_before_any_work(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory"):
        check_output_path(tmp_path)
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "x")
    assert check_output_path(tmp_path / "new" / "r.json") == tmp_path / "new" / "r.json"


def test_a_name_ending_in_a_slash_is_a_directory_even_where_a_file_is(tmp_path):
    """pathlib drops a trailing slash: ``model.zip/`` would have replaced the file model.zip."""
    model = tmp_path / "model.zip"
    model.write_bytes(b"weights")
    for name in (f"{model}/", f"{tmp_path / 'new'}/"):
        with pytest.raises(IsADirectoryError, match="names a directory .it ends with '/'."):
            check_output_path(name)
        with pytest.raises(IsADirectoryError):
            atomic_write_text(name, "x")
    assert model.read_bytes() == b"weights" and not (tmp_path / "new").exists()


def test_a_name_too_long_for_the_file_system_is_refused_naming_it(tmp_path):
    """A 300-byte name used to reach the first stat and print a bare [Errno 36]."""
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    with pytest.raises(OSError, match=f"its file name is {limit - 19} bytes long; this file "
                                      f"system allows {limit - 20} at most"):
        check_output_path(tmp_path / ("a" * (limit - 19)))
    assert check_output_path(tmp_path / ("a" * (limit - 20))) == tmp_path / ("a" * (limit - 20))
    folder = "b" * (limit + 1)
    with pytest.raises(OSError, match=f"the folder name 'bbbbbbbbbbbbbbbbbbbbbbbb'... is "
                                      f"{limit + 1} bytes long; this file system allows "
                                      f"{limit} at most"):
        atomic_write_text(tmp_path / folder / "r.json", "x")
    assert os.listdir(tmp_path) == []
    # each name short enough, the whole path too long (the system's PATH_MAX)
    limit = os.pathconf(tmp_path, "PC_PATH_MAX")
    deep = tmp_path.joinpath(*["d" * 200] * (limit // 200 + 1), "r.json")
    with pytest.raises(OSError, match=f"the path is {len(str(deep))} bytes long; this system "
                                      f"allows {limit - 21} at most") as ei:
        check_output_path(deep)
    assert ei.value.strerror.startswith("the path is ")  # (the reason alone, for messages
    assert os.listdir(tmp_path) == []                  # that name the path already)


@pytest.mark.slow
def test_train_and_evaluate_refuse_a_name_too_long_in_one_line(tmp_path):
    from tests.test_scripts import ROOT, run

    long = "c" * 300
    for script, args in (("train.py", ["--ruleset", "toy", "--run-dir", str(tmp_path / long)]),
                         ("evaluate.py", ["--agents", "random", "never-react", "--games", "2",
                                          "--json", str(tmp_path / f"{long}.json")])):
        r = run(script, *args)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "bytes long; this file system allows" in lines[0], \
            r.stderr
        assert lines[0].startswith("error: --run-dir: cannot write " if script == "train.py"
                                   else "error: cannot write ")
    assert os.listdir(tmp_path) == []
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "envs", "view",
                        str(ROOT / "examples" / "acw_default_first_reaction.toml"), "--out",
                        str(tmp_path / f"{long}.html")], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.count("cannot write") == 1, r.stderr


@pytest.mark.slow
def test_evaluate_json_ending_in_a_slash_is_one_line_error(tmp_path):
    from tests.test_scripts import run

    model = tmp_path / "final_model.zip"
    model.write_bytes(b"weights")
    r = run("evaluate.py", "--agents", "random", "never-react", "--games", "2", "--quiet",
            "--json", f"{model}/")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "ends with '/'" in lines[0]
    assert model.read_bytes() == b"weights"


def test_bench_refuses_a_directory_for_json_before_running(tmp_path, capsys):
    from envs.bench import main
    assert main(["--ruleset", "acw_regimental", "--seconds", "30", "--json",
                 str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_an_existing_file_that_is_not_a_regular_file_is_refused(tmp_path):
    """A device or /proc entry is never replaced by the atomic rename (``--json /dev/null``
    would otherwise swap the device for a regular file)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/null"):
        with pytest.raises(PermissionError, match="exists and is not a regular file"):
            check_output_path(path)
    with pytest.raises(PermissionError):
        atomic_write_text(fifo, "x")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_a_directory_that_refuses_new_files_is_found_before_any_work(tmp_path, monkeypatch):
    """Permission bits are not the whole story (/sys, read-only mounts, immutable
    directories): the check asks the directory to take a file, and removes it again."""
    import tempfile

    check_output_path(tmp_path / "r.json")
    assert os.listdir(tmp_path) == []  # the probe is gone

    def refuse(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError, match=r"does not accept new files \(Read-only file "
                                              r"system\)"):
        check_output_path(tmp_path / "sub" / "r.json")
    assert os.listdir(tmp_path) == []  # no directory was created for it


def test_a_failed_write_names_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    out = tmp_path / "r.json"

    def fail(src, dst):
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(PermissionError) as ei:
        atomic_write_text(out, "new")
    assert ei.value.filename == str(out) and ".tmp" not in str(ei.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_evaluate_prints_its_report_before_a_failed_write(tmp_path, monkeypatch, capsys):
    """A result file that cannot be written at the end loses nothing already computed: the
    report is printed first, then the one-line error."""
    import evaluate

    def fail(src, dst):
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(os, "replace", fail)
    out = tmp_path / "e.json"
    assert evaluate.main(["--agents", "random", "never-react", "--games", "2", "--json",
                          str(out)]) == 2
    captured = capsys.readouterr()
    assert "never-react" in captured.out and "a score" in captured.out
    assert captured.err.strip().splitlines() == [
        f"error: cannot write {str(out)!r}: Permission denied"]
    assert os.listdir(tmp_path) == []


def test_an_output_that_is_also_an_input_is_refused(tmp_path):
    from envs.core.files import check_not_an_input

    model = tmp_path / "m.zip"
    model.write_bytes(b"weights")
    with pytest.raises(FileExistsError, match="is also an input"):
        check_not_an_input(str(tmp_path / "." / "m.zip"), ["heuristic", str(model)])
    check_not_an_input(tmp_path / "other.json", [str(model)])  # a new file: fine
    check_not_an_input(model, ["heuristic", None, ""])  # names that are no files: fine


@pytest.mark.slow
@pytest.mark.parametrize("argv, name", [
    (["evaluate.py", "--agents", "MODEL", "random", "--games", "2", "--json", "MODEL"], "m.zip"),
    (["evaluate.py", "exploit", "MODEL", "--save", "MODEL"], "m.zip"),
    # view writes only .html/.htm names (a .zip would be refused for its name first)
    (["-m", "envs", "view", "MODEL", "--out", "MODEL"], "m.html"),
])
def test_commands_refuse_to_write_over_their_input(tmp_path, argv, name):
    from tests.test_scripts import run

    model = tmp_path / name
    model.write_bytes(b"weights")
    args = [str(model) if a == "MODEL" else a for a in argv]
    if args[0] == "-m":  # a module, not a script
        import subprocess
        import sys

        r = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                           cwd=Path(__file__).parents[2], timeout=300)
    else:
        r = run(*args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "is also an input" in lines[0]
    assert model.read_bytes() == b"weights"


@pytest.mark.parametrize("name", [".toml", ".TOML"])
def test_a_name_that_is_only_the_suffix_is_told_to_add_a_name(tmp_path, name):
    with pytest.raises(RiposteError) as e:
        check_output_suffix(tmp_path / name, (".toml",), "--save", "the game record is TOML")
    assert str(e.value) == (f"--save '{tmp_path / name}': the file name is only the suffix "
                            f"'{name}'; give a name before it, e.g. 'game.toml'")
    assert check_output_suffix(tmp_path / "a.TOML", (".toml",), "--save", "") == tmp_path / "a.TOML"
