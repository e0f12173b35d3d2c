"""Training throughput of ``train.py`` options, measured back to back (issue 10, item 6).

Usage::

    python bench_train.py                          # every option, 8,192 timesteps each
    python bench_train.py --options default batch-512 --repeat 2 --timesteps 8192
    python bench_train.py --list                   # the options and their flags

Each option is one ``python train.py`` run in a fresh interpreter with the same short budget
(``--total-timesteps N --bc-games 0 --critic-warmup 0 --eval-freq 0 --eval-games 0``, no
progress bar, no TensorBoard, a temporary run directory) plus the option's own flags; the
options run one after another (with ``--repeat``, round-robin: A B C A B C), so they share the
machine's load. One markdown row per run from the run's ``metrics.json``:

* ``timesteps/s`` and ``env share``: wall clock (what ``train.py`` prints; on a shared machine
  they depend on the other jobs);
* ``timesteps/CPU-s``: timesteps per CPU-second of the training process plus its env worker
  processes (``time.process_time``, ``/proc``), which the other jobs change much less;
* ``learner waits``: with ``--pipelined-updates``, the share of ``model.learn``'s wall time
  in which the update worker had no update to run (``learner_wait_share``);
* ``env CPU share``: the share of the training process's CPU spent in the VecEnv calls;
* ``load``: the 1-minute load average before and after the run.

Nothing here is a test: the script prints numbers. Exit status 2 and one ``error:`` line for
an unknown option name or a non-positive budget; a failed run prints its last stderr lines
and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent

#: sb3-contrib's own loop (collect, then update, in the training process) with 5 epochs: ACW's
#: earlier defaults, which the options below vary one at a time
SEQUENTIAL = ["--no-pipelined-updates", "--n-epochs", "5"]
#: option name -> extra train.py flags (on top of the common short-run flags)
OPTIONS: dict[str, list[str]] = {
    "default": [],  # ACW's preset: each update in a worker beside the envs, 10 epochs
    "sequential": SEQUENTIAL,
    "pipelined": ["--pipelined-updates", "--n-epochs", "5"],
    "subproc-8": [*SEQUENTIAL, "--vec-env", "subproc"],
    "subproc-2x1024": [*SEQUENTIAL, "--vec-env", "subproc", "--n-envs", "2", "--n-steps", "1024"],
    "dummy-2x1024": [*SEQUENTIAL, "--n-envs", "2", "--n-steps", "1024"],
    "batch-512": [*SEQUENTIAL, "--batch-size", "512"],
    "batch-1024": [*SEQUENTIAL, "--batch-size", "1024"],
    "epochs-3": ["--no-pipelined-updates", "--n-epochs", "3"],
    "epochs-10": ["--no-pipelined-updates", "--n-epochs", "10"],
    "net-128": [*SEQUENTIAL, "--net-arch", "128", "128"],
    "net-64": [*SEQUENTIAL, "--net-arch", "64", "64"],
    "threads-2": [*SEQUENTIAL, "--torch-threads", "2"],
    # the default with a short warm start: a teacher, so the update has its KL term, as in
    # `make train` (the other options start without one)
    "warm-start": ["--bc-games", "30"],
}


def common_flags(timesteps: int, run_dir: Path) -> list[str]:
    return ["--total-timesteps", str(timesteps), "--bc-games", "0", "--critic-warmup", "0",
            "--eval-freq", "0", "--eval-games", "0", "--no-progress-bar", "--no-tensorboard",
            "--overwrite", "--run-dir", str(run_dir)]


def run_option(name: str, timesteps: int, seed: int, tmp: Path) -> dict:
    """One ``train.py`` run of option ``name``; its ``metrics.json`` plus the load averages."""
    run_dir = tmp / name
    cmd = [sys.executable, str(ROOT / "train.py"), *common_flags(timesteps, run_dir),
           "--seed", str(seed), *OPTIONS[name]]
    load0 = os.getloadavg()[0]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    load1 = os.getloadavg()[0]
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"option {name!r} failed (exit {proc.returncode}):\n{tail}")
    m = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    m.update(option=name, load=(load0, load1),
             command="python train.py " + " ".join(common_flags(timesteps, Path("DIR"))[:-1]
                                                   + ["DIR"] + OPTIONS[name]))
    return m


def row(m: dict) -> str:
    return (f"| {m['option']} | `{' '.join(OPTIONS[m['option']]) or '(defaults)'}` | "
            f"{m['timesteps_per_second']:.0f} | {m['env_time_share']:.1%} | "
            + (f"{w:.1%}" if (w := m.get("learner_wait_share")) is not None else "—")
            + f" | {m['timesteps_per_cpu_second']:.0f} | {m['env_cpu_share']:.1%} | "
            f"{m['cpu_seconds']:.1f} + {m['env_worker_cpu_seconds']:.1f} | "
            f"{m['load'][0]:.1f} → {m['load'][1]:.1f} |")


HEADER = ("| option | flags | timesteps/s (wall) | env share (wall) | learner waits (pipelined) "
          "| timesteps/CPU-s | env CPU share | CPU s (main + env workers) | load |\n"
          "|---|---|---|---|---|---|---|---|---|")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--options", nargs="+", default=list(OPTIONS),
                   help="option names to run (default: all; --list shows them)")
    p.add_argument("--timesteps", type=int, default=8192, help="timesteps per run")
    p.add_argument("--repeat", type=int, default=1, help="rounds over the options")
    p.add_argument("--seed", type=int, default=0, help="train.py --seed")
    p.add_argument("--json", default=None, help="also write every run's metrics here")
    p.add_argument("--list", action="store_true", help="print the options and exit")
    args = p.parse_args(argv)
    if args.list:
        for n, flags in OPTIONS.items():
            print(f"{n:16s} {' '.join(flags) or '(train.py defaults)'}")
        return 0
    bad = [n for n in args.options if n not in OPTIONS]
    if bad or args.timesteps < 1 or args.repeat < 1:
        msg = (f"unknown option(s) {bad}; known: {', '.join(OPTIONS)}" if bad
               else "--timesteps and --repeat must be >= 1")
        print(f"error: {msg}", file=sys.stderr)
        return 2
    if args.json:  # before the runs, not after them
        from envs.core.files import check_output_path

        try:
            check_output_path(args.json)
        except OSError as exc:
            print(f"error: --json: {exc}", file=sys.stderr)
            return 2
    print(f"common flags: {' '.join(common_flags(args.timesteps, Path('DIR')))} "
          f"--seed {args.seed}")
    print(HEADER, flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench_train_") as tmp:
        for _ in range(args.repeat):
            for name in args.options:
                try:
                    m = run_option(name, args.timesteps, args.seed, Path(tmp))
                except RuntimeError as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    return 1
                results.append(m)
                print(row(m), flush=True)
    if args.json:
        from envs.core.files import atomic_write_text

        try:
            atomic_write_text(args.json, json.dumps(results, indent=2, sort_keys=True))
        except OSError as exc:  # a full disk: one line, no partial file
            print(f"error: cannot write {args.json!r}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
