"""The search agent's settings (:class:`SearchConfig`) and the options of an agent spec
(``search:MODEL:sims=32:chance=expand``, :func:`parse_options`)."""

from __future__ import annotations

import dataclasses
import math
import textwrap
from dataclasses import dataclass

from ..policies.base import AgentError

__all__ = ["OPTIONS", "SearchConfig", "SearchSpecError", "parse_options"]


class SearchSpecError(AgentError):
    """A search agent spec or option that cannot be used (unknown option, a value of the wrong
    kind or range). The message names the option and what is wrong."""


#: the choices of the enumerated settings
BELOW_ROOT = ("gumbel", "puct")
CHANCE = ("open", "sample", "expand")


@dataclass(frozen=True)
class SearchConfig:
    """How the search spends its budget (see :mod:`agents.search`).

    Attributes:
        simulations: simulations per searched decision; 0 plays the network's arg-max without
            searching. Ignored when ``milliseconds`` is set.
        milliseconds: a time budget per searched decision instead (wall-clock ms; the number
            of simulations is set from the measured time of the previous ones, so choices then
            depend on the machine's speed and are not reproducible).
        max_considered: ``k`` of the Gumbel top-k at the root: how many actions sequential
            halving starts with.
        gumbel_scale: scale of the Gumbel noise added to the root logits (0, the default: the
            top-k by logits and a deterministic choice, which played better against the raw
            network than 1; 1 is the paper's setting, whose sampled choices make the improved
            policy a training target with guaranteed improvement).
        c_visit, c_scale: the monotone transform ``sigma(q) = (c_visit + max N) * c_scale * q``
            of the completed Q values that weighs Q against the prior's logits (``c_scale``
            1 by default: with a few simulations it lets a Q difference of about 0.1 overrule
            a prior ratio of up to ``e^5``).
        rescale: rescale the completed Q values to [0, 1] by their minimum and maximum at each
            node before ``sigma`` (the paper's choice; it turns any difference, however small,
            into the full range). Off by default: Q stays in [-1, 1] as the returns are.
        below_root: ``"gumbel"`` (the deterministic selection that matches the improved
            policy's visit distribution) or ``"puct"`` (AlphaZero's rule with ``c_puct``).
        c_puct: exploration constant of ``"puct"``.
        chance: ``"sample"`` (each visit of a chance node draws an outcome by its probability
            and each outcome has its own subtree), ``"expand"`` (a chance node of at most
            ``expand_max_outcomes`` outcomes visits them in proportion to their probabilities:
            the outcome whose visit share lags its probability most; larger ones are sampled)
            or ``"open"`` (drawn by probability; the outcomes after which the same side
            decides share one subtree, open-loop search: the statistics of a few simulations
            are not spread over dice results).
        expand_max_outcomes: the largest chance node ``"expand"`` visits in proportion.
        rollout: ``N`` (30 by default): a new node's value is the value head's after ``N``
            more decisions played by the network's arg-max (chance drawn by its
            probabilities), which tells actions apart where the value head at the node
            cannot (docs/search.md), at the cost of ``N`` batched forward passes per halving
            round. 0: the value head's at the node.
        confident: ``X`` in (0, 1] (0.99 by default): a decision at which the prior gives its
            arg-max a probability above ``X`` is played as the network plays it, with no
            simulation (the prior is still read), so the budget goes where the network is
            unsure. 1: every decision with two or more legal actions is searched.
    """

    simulations: int = 8
    milliseconds: float | None = None
    max_considered: int = 4
    gumbel_scale: float = 0.0
    c_visit: float = 50.0
    c_scale: float = 1.0
    rescale: bool = False
    below_root: str = "gumbel"
    c_puct: float = 1.25
    chance: str = "open"
    expand_max_outcomes: int = 12
    rollout: int = 30
    confident: float = 0.99

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raises:
            SearchSpecError: naming the first setting out of range."""
        if type(self.simulations) is not int or self.simulations < 0:
            raise SearchSpecError(f"simulations must be an integer >= 0, got "
                                  f"{self.simulations!r}")
        if self.milliseconds is not None and not (
                math.isfinite(self.milliseconds) and self.milliseconds > 0):
            raise SearchSpecError(f"milliseconds must be a positive number, got "
                                  f"{self.milliseconds!r}")
        if type(self.max_considered) is not int or self.max_considered < 1:
            raise SearchSpecError(f"max_considered must be an integer >= 1, got "
                                  f"{self.max_considered!r}")
        for name in ("gumbel_scale", "c_visit", "c_scale", "c_puct"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise SearchSpecError(f"{name} must be a finite number >= 0, got {v!r}")
        if self.below_root not in BELOW_ROOT:
            raise SearchSpecError(f"below_root must be one of {', '.join(BELOW_ROOT)}, got "
                                  f"{self.below_root!r}")
        if self.chance not in CHANCE:
            raise SearchSpecError(f"chance must be one of {', '.join(CHANCE)}, got "
                                  f"{self.chance!r}")
        if type(self.rollout) is not int or self.rollout < 0:
            raise SearchSpecError(f"rollout must be an integer >= 0, got {self.rollout!r}")
        if not 0 < self.confident <= 1:
            raise SearchSpecError(f"confident must be a probability in (0, 1], got "
                                  f"{self.confident!r}")
        if type(self.expand_max_outcomes) is not int or self.expand_max_outcomes < 1:
            raise SearchSpecError(f"expand_max_outcomes must be an integer >= 1, got "
                                  f"{self.expand_max_outcomes!r}")


#: spec option -> (SearchConfig field, kind, metavar, help); kinds: "pos_int" (> 0),
#: "pos_float" (> 0), "float" (>= 0), "int" (>= 1), "count" (an integer >= 0), or a tuple of
#: choices. The help's "(default ...)" is read from :class:`SearchConfig`.
OPTIONS: dict[str, tuple[str, object, str, str]] = {
    "sims": ("simulations", "pos_int", "N", "simulations per searched decision"),
    "ms": ("milliseconds", "pos_float", "T", "a time budget per searched decision in "
           "milliseconds instead of sims (not reproducible)"),
    "k": ("max_considered", "int", "N", "actions sequential halving starts with at the root"),
    "gumbel": ("gumbel_scale", "float", "X", "scale of the root's Gumbel noise (0: "
               "deterministic; 1: the paper's)"),
    "c_visit": ("c_visit", "float", "X", "sigma(q) = (c_visit + max N) * c_scale * q"),
    "c_scale": ("c_scale", "float", "X", "the weight of Q against the prior's logits"),
    "rescale": ("rescale", ("0", "1"), "0|1", "rescale Q to [0, 1] at each node before sigma"),
    "select": ("below_root", BELOW_ROOT, "S", "selection below the root: gumbel or puct "
               "(with c_puct)"),
    "c_puct": ("c_puct", "float", "X", "PUCT exploration constant"),
    "chance": ("chance", CHANCE, "C", "chance nodes: open (outcomes after which the same side "
               "decides share a subtree), sample (a subtree per outcome) or expand (small ones "
               "visited in proportion, up to expand_max outcomes)"),
    "expand_max": ("expand_max_outcomes", "int", "N", "largest chance node chance=expand "
                   "visits in proportion"),
    "rollout": ("rollout", "count", "N", "read a new node's value after N arg-max decisions "
                "(0: the value head's at the node)"),
    "confident": ("confident", "pos_float", "X", "play the network's arg-max unsearched where "
                  "the prior gives it more than X (1: search every decision)"),
}


def _default_text(field: str) -> str:
    v = getattr(SearchConfig(), field)
    return str(int(v)) if isinstance(v, bool) else f"{v:g}" if isinstance(v, float) else str(v)


def options_help() -> str:
    """The spec options for ``--help`` texts, one per line (wrapped at 88 columns), each
    with its default from :class:`SearchConfig`, e.g. ``sims=N  simulations per searched
    decision (default 8)``."""
    lines = []
    for key, (field, _, metavar, text) in OPTIONS.items():
        default = "" if field == "milliseconds" else f" (default {_default_text(field)})"
        lines.append(textwrap.fill(f"{key + '=' + metavar:<15} {text}{default}", width=88,
                                   initial_indent="  ", subsequent_indent=" " * 18))
    return "\n".join(lines)


def parse_options(items: list[str], spec: str) -> SearchConfig:
    """The :class:`SearchConfig` of a spec's ``key=value`` options (later keys win).

    Args:
        items: the options, e.g. ``["sims=32", "chance=expand"]``.
        spec: the whole agent spec, named in messages.

    Raises:
        SearchSpecError: for an item without ``=``, an unknown key (lists the known ones), a
            value that is not a number of the right kind, a budget (``sims``, ``ms``) that is
            not positive, or a choice not offered; the message names ``spec``.
    """
    values: dict[str, object] = {}
    for item in items:
        key, eq, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not eq or not key:
            raise SearchSpecError(f"agent spec {spec!r}: option {item!r} is not key=value "
                                  f"(options: {', '.join(OPTIONS)})")
        if key not in OPTIONS:
            raise SearchSpecError(f"agent spec {spec!r}: unknown option {key!r} (options: "
                                  f"{', '.join(OPTIONS)})")
        field, kind, _, _ = OPTIONS[key]
        values[field] = _value(spec, key, text, kind)
    if "milliseconds" in values and "simulations" in values:
        raise SearchSpecError(f"agent spec {spec!r}: give one budget, sims or ms, not both")
    try:
        return SearchConfig(**values)  # type: ignore[arg-type]
    except SearchSpecError as exc:
        raise SearchSpecError(f"agent spec {spec!r}: {exc}") from None


def _value(spec: str, key: str, text: str, kind: object) -> object:
    where = f"agent spec {spec!r}: option {key}={text!r}"
    if isinstance(kind, tuple):
        if text not in kind:
            raise SearchSpecError(f"{where}: expected one of {', '.join(kind)}")
        return bool(int(text)) if kind == ("0", "1") else text
    try:
        num = float(text)
    except ValueError:
        raise SearchSpecError(f"{where}: not a number") from None
    if not math.isfinite(num):
        raise SearchSpecError(f"{where}: not a finite number")
    if kind in ("pos_int", "int", "count"):
        if num != int(num):
            raise SearchSpecError(f"{where}: expected a whole number")
        if kind == "count":
            if num < 0:
                raise SearchSpecError(f"{where}: must be >= 0")
            return int(num)
        if num < 1:
            raise SearchSpecError(f"{where}: must be a positive number"
                                  + (" (a budget of at least 1)" if kind == "pos_int" else ""))
        return int(num)
    if kind == "pos_float":
        if num <= 0:
            raise SearchSpecError(f"{where}: must be a positive number (a budget)")
        return num
    if num < 0:
        raise SearchSpecError(f"{where}: must be >= 0")
    return num


def describe(config: SearchConfig) -> str:
    """The settings that differ from the defaults, as spec options (``"sims=32:chance=expand"``;
    ``""`` for the defaults)."""
    default = SearchConfig()
    back = {f: k for k, (f, _, _, _) in OPTIONS.items()}
    out = []
    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        if v != getattr(default, f.name):
            out.append(f"{back[f.name]}={int(v)}" if isinstance(v, bool) else
                       f"{back[f.name]}={v:g}" if isinstance(v, float) else
                       f"{back[f.name]}={v}")
    return ":".join(out)
