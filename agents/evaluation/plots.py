"""Pictures of training and evaluation (matplotlib, Agg backend, written atomically).

* :func:`plot_learning_curves` — ``train.py``'s ``DIR/learning_curves.png``: the score against
  each evaluation opponent over timesteps, from the rows of ``DIR/metrics.csv``.
* :func:`plot_score_matrix` — ``evaluate.py --plot``: the pairwise score matrix of a round robin
  as a heatmap (row agent's score against the column agent), with the Plackett–Luce ratings
  and their 95% intervals in a panel beside it.

Both write the PNG through a temporary file in the target's directory and ``os.replace``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path, dpi: int = 100) -> Path:
    """``fig.savefig`` as PNG to ``path`` atomically (rendered in memory, then
    :func:`envs.core.files.atomic_write_bytes`).

    Raises:
        OSError: when the file cannot be written (naming it; no partial file is left).
    """
    from envs.core.files import atomic_write_bytes

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return atomic_write_bytes(path, buf.getvalue())


def read_metrics(csv_path: str | Path) -> tuple[list[int], dict[str, list[float]]]:
    """``(timesteps, {opponent: scores})`` from a ``metrics.csv`` (the ``score_vs_<name>``
    columns; empty cells become NaN). Rows with the same timesteps keep the last."""
    rows: dict[int, dict[str, str]] = {}
    with open(csv_path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            rows[int(row["timesteps"])] = row
    steps = sorted(rows)
    names = [k[len("score_vs_"):] for k in (next(iter(rows.values())) if rows else {})
             if k.startswith("score_vs_")]
    curves = {n: [float(rows[s].get(f"score_vs_{n}") or "nan") for s in steps] for n in names}
    return steps, curves


def plot_learning_curves(csv_path: str | Path, out: str | Path, title: str = "",
                         selected: int | None = None) -> Path | None:
    """Draw the evaluation scores of ``csv_path`` (see :func:`read_metrics`) against timesteps
    into the PNG ``out`` (atomically); ``selected`` marks the kept checkpoint's timesteps.
    Returns ``None`` (and writes nothing) when there is no evaluation row."""
    steps, curves = read_metrics(csv_path)
    if not steps or not curves:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8.5, 4))
    for name, ys in curves.items():
        ax.plot(steps, ys, marker="o", ms=3, label=name)
    worst = [min((c[i] for c in curves.values() if not math.isnan(c[i])), default=math.nan)
             for i in range(len(steps))]
    ax.plot(steps, worst, color="black", lw=2, ls="--", label="worst case")
    if selected is not None:
        ax.axvline(selected, color="grey", ls=":", label="kept checkpoint")
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("timesteps")
    ax.set_ylabel("score (wins + draws/2)")
    ax.set_title(title or "score against each evaluation opponent")
    ax.grid(alpha=0.3)
    # beside the axes, not over the curves (scores fill the whole 0..1 range)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    try:
        return save_figure(fig, out)
    finally:
        plt.close(fig)


def score_matrix(agents: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> list[list[float]]:
    """``m[i][j]`` = score of ``agents[i]`` against ``agents[j]`` (NaN on the diagonal) from
    evaluation ``pairs`` (``a``, ``b``, ``a_score``)."""
    idx = {a: i for i, a in enumerate(agents)}
    m = [[math.nan] * len(agents) for _ in agents]
    for p in pairs:
        i, j = idx[p["a"]], idx[p["b"]]
        m[i][j] = float(p["a_score"])
        m[j][i] = 1.0 - float(p["a_score"])
    return m


def short_labels(agents: Sequence[str]) -> list[str]:
    """Display names of ``agents``: a checkpoint path as its file stem, with as many parent
    directories as it takes to tell it from the others (``t1/final_model``,
    ``t2/final_model``); other names as they are."""
    parts = [Path(a).with_suffix("").parts if a.endswith(".zip") else (a,) for a in agents]
    depth = [1] * len(agents)
    while True:
        labels = ["/".join(p[-d:]) for p, d in zip(parts, depth)]
        clash = {lab for lab in labels if labels.count(lab) > 1}
        grow = [i for i, lab in enumerate(labels) if lab in clash and depth[i] < len(parts[i])]
        if not grow:
            return labels
        for i in grow:
            depth[i] += 1


def plot_score_matrix(doc: Mapping[str, Any], out: str | Path) -> Path:
    """Heatmap of the pairwise scores of an ``evaluate.py`` JSON document ``doc`` (``agents``,
    ``pairs``, ``ratings``) with the ratings beside it, into the PNG ``out`` (atomically)."""
    import numpy as np

    plt = _pyplot()
    agents = list(doc["agents"])
    short = short_labels(agents)
    m = np.array(score_matrix(agents, doc["pairs"]), dtype=float)
    n = len(agents)
    fig, (ax, axr) = plt.subplots(1, 2, figsize=(4 + 1.1 * n, 1.2 + 0.6 * n),
                                  gridspec_kw={"width_ratios": [max(n, 2), 2.5], "wspace": 0.7})
    im = ax.imshow(np.ma.masked_invalid(m), cmap="RdYlGn", vmin=0.0, vmax=1.0)
    for i in range(n):
        for j in range(n):
            if not math.isnan(m[i, j]):
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(n), short, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(n), short, fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_title(f"score of row vs column ({doc.get('games_per_pair', '?')} games per pair)",
                 fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    ratings = doc["ratings"]
    order = sorted(range(n), key=lambda k: ratings[agents[k]]["rating"])
    mu = [ratings[agents[k]]["rating"] for k in order]
    lo = [mu[i] - ratings[agents[k]]["ci95"][0] for i, k in enumerate(order)]
    hi = [ratings[agents[k]]["ci95"][1] - mu[i] for i, k in enumerate(order)]
    axr.errorbar(mu, range(n), xerr=[lo, hi], fmt="o", color="black", capsize=3)
    axr.set_yticks(range(n), [short[k] for k in order], fontsize=8)
    axr.set_xlabel("Plackett-Luce rating (95%)")
    axr.grid(alpha=0.3)
    try:
        return save_figure(fig, out)
    finally:
        plt.close(fig)
