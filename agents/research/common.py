"""Shared helpers of the research tools: the commit a result came from, progress bars and
atomic output (JSON, PNG). Their intervals are :func:`agents.evaluation.ratings.mean_ci95` and
:func:`~agents.evaluation.ratings.proportion_ci95`.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
from pathlib import Path
from typing import Any

from envs.core.files import atomic_write_bytes, atomic_write_text, check_output_path

REPO_DIR = Path(__file__).resolve().parents[2]


def git_commit(repo: Path = REPO_DIR) -> str:
    """The commit id of the checkout (``<sha>`` or ``<sha>+dirty`` with uncommitted changes to
    tracked files), or ``"unknown"`` outside a git checkout."""
    try:
        sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


def progress(total: int, desc: str, enabled: bool = True):
    """A tqdm progress bar on stderr (a no-op bar when ``enabled`` is False)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False, dynamic_ncols=True)


def write_json(path: str | Path, doc: dict[str, Any]) -> Path:
    """Write ``doc`` as indented JSON, atomically (NaN written as ``null``)."""
    return atomic_write_text(path, json.dumps(_nan_to_none(doc), indent=2))


def _nan_to_none(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _nan_to_none(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_nan_to_none(v) for v in x]
    return x


def save_figure(fig: Any, path: str | Path) -> Path:
    """Save a matplotlib figure as PNG atomically (rendered in memory, then
    :func:`envs.core.files.atomic_write_bytes`).

    Raises:
        OSError: when the file cannot be written (naming it; no partial file is left).
    """
    path = check_output_path(path)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return atomic_write_bytes(path, buf.getvalue())


def pyplot():
    """``matplotlib.pyplot`` with the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
