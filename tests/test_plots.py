"""The pictures: ``evaluate.py --plot`` (score matrix heatmap with ratings) and
``agents.evaluation.plots.plot_learning_curves`` (train.py's learning_curves.png) write valid PNGs
atomically."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests.test_scripts import run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (after checking the signature)."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR" and data.endswith(b"IEND\xaeB`\x82")
    return struct.unpack(">II", data[16:24])


@pytest.mark.slow
def test_evaluate_plot_writes_a_png_heatmap(tmp_path):
    out, js = tmp_path / "matrix.png", tmp_path / "eval.json"
    r = run("evaluate.py", "--ruleset", "toy", "--agents", "random", "never-react",
            "always-react", "--games", "4", "--quiet", "--plot", str(out), "--json", str(js))
    assert r.returncode == 0, r.stderr
    w, h = png_size(out)
    assert w > 200 and h > 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.json", "matrix.png"]


@pytest.mark.slow
def test_evaluate_plot_to_a_bad_path_fails_before_the_tournament(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run("evaluate.py", "--ruleset", "toy", "--agents", "random", "never-react",
            "--games", "2", "--plot", str(blocker / "m.png"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "m.png" in lines[0]
    assert "Plackett" not in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("cmd", [
    ["evaluate.py", "--ruleset", "toy", "--agents", "random", "never-react", "--games", "2"],
    ["evaluate.py", "ablate", "--ruleset", "toy", "--agents", "random", "never-react",
     "--param", "hp=2", "--games", "2"],
])
def test_a_plot_name_that_is_not_png_is_refused_before_any_work(tmp_path, cmd):
    """The plots are PNG whatever the name says: ``--plot m.txt`` would write a PNG there."""
    out = tmp_path / "m.txt"
    r = run(*cmd, "--plot", str(out))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: --plot {str(out)!r}: plots are written as PNG; give a file name ending in "
        f".png"], r.stderr
    assert not out.exists() and "Plackett" not in r.stdout


def test_score_matrix_is_antisymmetric_around_one_half():
    from agents.evaluation.plots import score_matrix

    pairs = [{"a": "x", "b": "y", "a_score": 0.75}, {"a": "x", "b": "z", "a_score": 0.4},
             {"a": "y", "b": "z", "a_score": 0.5}]
    m = score_matrix(["x", "y", "z"], pairs)
    assert m[0][1] == 0.75 and m[1][0] == 0.25 and m[2][0] == pytest.approx(0.6)
    assert m[1][2] == m[2][1] == 0.5
    assert all(m[i][i] != m[i][i] for i in range(3))  # NaN diagonal


def test_learning_curves_png_from_metrics_csv(tmp_path):
    from agents.evaluation.plots import plot_learning_curves, read_metrics

    csv = tmp_path / "metrics.csv"
    csv.write_text("timesteps,wall_seconds,score_vs_random,score_vs_heuristic\n"
                   "100,1.0,0.6,0.2\n200,2.0,0.9,0.45\n200,2.5,0.95,0.5\n")
    steps, curves = read_metrics(csv)
    assert steps == [100, 200] and curves == {"random": [0.6, 0.95], "heuristic": [0.2, 0.5]}
    out = tmp_path / "lc.png"
    assert plot_learning_curves(csv, out, selected=200) == out
    assert png_size(out)[0] > 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lc.png", "metrics.csv"]
    empty = tmp_path / "empty.csv"
    empty.write_text("timesteps,wall_seconds\n")
    assert plot_learning_curves(empty, tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()


def test_short_labels_tell_checkpoints_of_the_same_name_apart():
    from agents.evaluation.plots import short_labels

    assert short_labels(["runs/t1/final_model.zip", "runs/t2/final_model.zip", "heuristic",
                         "runs/t2/checkpoints/ckpt_0000006144.zip", "a/x.zip", "x.zip"]) == [
        "t1/final_model", "t2/final_model", "heuristic", "ckpt_0000006144", "a/x", "x"]
