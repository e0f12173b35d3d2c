"""Average the policy weights of several checkpoints of one run into one checkpoint.

The weight-averaging experiment of docs/exploitability.md: one checkpoint whose policy weights are the mean of
several checkpoints' (stochastic weight averaging, Izmailov et al. 2018; in reinforcement
learning, Nikishin et al. 2018).

The inputs are MaskablePPO checkpoints of one run (its ``snapshots/*.zip``, ``checkpoints/``
or ``final_model.zip``: the same network, fine-tuned from the same warm start). Every floating
point tensor of their ``policy.pth`` is averaged element by element (in float64, stored back in
the tensor's own dtype); everything else in the output zip (the optimizer state, the
algorithm's data, Riposte's ``riposte_policy.json``) is the LAST input's, so the result loads
and plays like any checkpoint::

    python examples/average_snapshots.py avg.zip runs/default/snapshots/snapshot_0000220000.zip \\
        runs/default/snapshots/snapshot_0000240000.zip ... runs/default/snapshots/snapshot_0000300000.zip
    python evaluate.py exploit avg.zip --seed 0,1

Averaging the last five snapshots did not lower exploitability over three training seeds
(docs/exploitability.md). The weights are read with ``torch.load(...,
weights_only=True)``: no input can run code. The output is written atomically.

Exit status 2 with one ``error:`` line, before anything is written, for a missing, unreadable,
corrupt or mismatched input, an empty name, a directory, fewer than two different inputs, or an
output that is not a ``.zip`` name, cannot be written or is one of the inputs (also through a
link). Experiment code: not part of the API.
"""

from __future__ import annotations

import argparse
import io
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from envs.core.errors import RiposteError  # noqa: E402
from envs.core.files import atomic_write_bytes, check_output_suffix, same_file  # noqa: E402

POLICY = "policy.pth"


class InputError(ValueError):
    """A checkpoint that cannot be averaged (the message names the file and what is wrong)."""


def read_policy(path: Path) -> dict[str, torch.Tensor]:
    """The ``policy.pth`` state dict of checkpoint ``path`` (weights only).

    Raises:
        InputError: for a missing or unreadable file, a directory, a file that is not a zip,
            or a zip without a loadable ``policy.pth``.
    """
    if path.is_dir():
        raise InputError(f"checkpoint {str(path)!r} is a directory, not a checkpoint")
    if not path.is_file():
        raise InputError(f"checkpoint {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as z:
            data = z.read(POLICY)
    except OSError as e:
        raise InputError(f"checkpoint {str(path)!r} cannot be read ({e.strerror or e})")
    except zipfile.BadZipFile:
        raise InputError(f"checkpoint {str(path)!r} is not a zip file (corrupt or wrong file)")
    except KeyError:
        raise InputError(f"checkpoint {str(path)!r} has no {POLICY} (not a MaskablePPO model)")
    try:
        weights = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many kinds for a damaged file
        raise InputError(f"checkpoint {str(path)!r}: its {POLICY} cannot be read ({e})")
    if not isinstance(weights, dict):
        raise InputError(f"checkpoint {str(path)!r}: its {POLICY} is not a state dict")
    return weights


def average(state_dicts: list[dict[str, torch.Tensor]], names: list[str]
            ) -> dict[str, torch.Tensor]:
    """Element-wise mean of the floating point tensors (float64 sums, each tensor's own dtype
    back); other tensors (integer counters) are the last state dict's.

    Raises:
        InputError: when a state dict's keys or a tensor's shape differ from the first's.
    """
    first = state_dicts[0]
    for sd, name in zip(state_dicts[1:], names[1:]):
        if sd.keys() != first.keys():
            raise InputError(f"checkpoint {name!r} has other layers than {names[0]!r} "
                             f"(not the same network)")
        for k, t in sd.items():
            if t.shape != first[k].shape:
                raise InputError(f"checkpoint {name!r}: {k} has shape {tuple(t.shape)}, "
                                 f"{names[0]!r} has {tuple(first[k].shape)}")
    out = {}
    for k, t in first.items():
        if t.is_floating_point():
            out[k] = (sum(sd[k].double() for sd in state_dicts) / len(state_dicts)).to(t.dtype)
        else:
            out[k] = state_dicts[-1][k]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="the averaged checkpoint to write (.zip)")
    p.add_argument("inputs", nargs="+", help="two or more checkpoints of one run")
    args = p.parse_args(argv)
    out = Path(args.out)
    inputs = [Path(a) for a in args.inputs]
    try:
        if not args.out.strip() or not all(a.strip() for a in args.inputs):
            raise InputError("a file name must not be empty or whitespace")
        if len(inputs) < 2:
            raise InputError("give two or more checkpoints to average")
        for i, a in enumerate(args.inputs):
            if same_file(a, args.out):
                raise InputError(f"the output {args.out!r} is one of the inputs ({a!r})")
            for b in args.inputs[:i]:
                if Path(a).exists() and same_file(a, b):
                    raise InputError(f"{b!r} and {a!r} are the same checkpoint: give two or "
                                     f"more different ones")
        check_output_suffix(args.out, (".zip",), "the output", "a checkpoint is a zip file",
                            inputs=args.inputs)
        state_dicts = [read_policy(i) for i in inputs]
        averaged = average(state_dicts, [str(i) for i in inputs])
    except (InputError, RiposteError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the output cannot be written (check_output_suffix)
        print(f"error: the output {args.out!r}: {e}", file=sys.stderr)
        return 2
    buf = io.BytesIO()
    torch.save(averaged, buf)
    packed = io.BytesIO()
    with zipfile.ZipFile(inputs[-1]) as zin, zipfile.ZipFile(packed, "w",
                                                              zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item, buf.getvalue() if item.filename == POLICY
                          else zin.read(item.filename))
    atomic_write_bytes(out, packed.getvalue())
    print(f"wrote {args.out}: the policy weights averaged over {len(inputs)} checkpoints")
    return 0


if __name__ == "__main__":
    sys.exit(main())
