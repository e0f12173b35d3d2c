"""Rule ids cited in the repository, by ruleset, and the entries of the rules reference.

The three rulesets name their rules with these id schemes (``docs/rules/index.md`` explains
them):

* ``acw_regimental``: ``RULE-04-x.y`` (the seed's statements, section 6 renumbered 6.x),
  ``ACW-PD-n`` (house rules, ``ACW-PD-25b`` included), ``I-n`` (resolutions of the seed's
  inconsistencies) and ``RULINGS-n`` (the numbered items of the rulings' ACW section);
* ``atomic_africa``: ``AA-Rn`` (Reaction Sub-phase), ``AA-Dn`` (Declaration Sub-phase),
  ``AA-Gn`` (gap defaults) and ``C1`` … ``C6`` (the Clean-Up Phase);
* ``skirmish_alert``: ``AL-n`` (the seed's statements), ``AL-PD-n`` (defaults) and ``Qn`` (the
  resolved ambiguities).

Citations are read the way a reader reads them:

* a list or range continues the family of the id before it: ``RULE-04-2.1, 2.2``,
  ``ACW-PD-19, PD-31``, ``ACW-PD-2/PD-6/PD-16``, ``AA-R3/R4``, ``AL-PD-21, PD-24``;
* a range (``..``, ``...``, ``…``, ``to``, ``–``, or a bare ``-`` as in ``C1-C3``) cites every id in it: ``ACW-PD-13..15``,
  ``AA-R1 … AA-R9``, ``AL-PD-16 to AL-PD-18``;
* a bare ``PD-n`` is the house rule of the ruleset the file belongs to (``ACW-PD-n`` under
  ``acw``, ``AL-PD-n`` under ``skirmish_alert``), elsewhere the family of the last prefixed
  ``PD`` id before it in the file;
* the short ids ``Cn`` (Atomic Africa) and ``Qn`` (skirmish alert) count only in that
  ruleset's own files, where they cannot be mistaken for other tokens (``C0`` is a unit name
  in ACW tests, ``R3`` a weapon there).

``python -m tests.docs.rule_ids`` prints, per ruleset, every id cited in code and tests with
its number of citations, and the ids that the reference lacks or that no test names.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: ruleset -> its reference page under docs/
PAGES = {
    "acw_regimental": ROOT / "docs" / "rules" / "acw_regimental.md",
    "atomic_africa": ROOT / "docs" / "rules" / "atomic_africa.md",
    "skirmish_alert": ROOT / "docs" / "rules" / "skirmish_alert.md",
}

#: where code cites rules (relative to the repository root)
CODE_ROOTS = ("envs", "agents", "train.py", "evaluate.py")
#: files whose citations do not count as tests naming a rule (this reference's own checks)
NOT_TESTS = ("tests/docs",)

_RULE = r"RULE-04-(?P<rule>\d+\.\d+)"
_PREFIXED = (
    _RULE
    + r"|ACW-PD-(?P<acwpd>\d+b?)"
    + r"|AL-PD-(?P<alpd>\d+)"
    + r"|AL-(?P<al>\d+)"
    + r"|AA-(?P<aa>[RDG]\d+)"
    + r"|(?<![\w-])I-(?P<res>\d+)"
    + r"|RULINGS-(?P<rulings>\d+)"
)
# a continuation written without its prefix, after a list or range separator
_BARE = (
    r"(?<![\w-])PD-(?P<pd>\d+b?)"
    + r"|(?<![\w-])(?P<short>[RDG]\d+)"
    + r"|(?<![\w-])(?<!\d\.)(?P<num>\d+\.\d+|\d+)(?!\w)(?!\.\d)"
    + r"|(?:(?<![\w-])|(?<=C\d-))(?P<clean>C[1-6])(?!\w)(?!-(?!C\d))"
    + r"|(?<![\w-])(?P<question>Q\d+)(?![\w-])"
)
TOKEN = re.compile(rf"(?:{_PREFIXED}|{_BARE})")
LIST_SEP = re.compile(r"\s*(?:,|/|;|\band\b|\bor\b)\s*")
RANGE_SEP = re.compile(r"\s*(?:\.\.\.?|…|\bto\b|–)\s*|-")

# the id families and the ruleset each belongs to
FAMILY_RULESET = {
    "RULE-04": "acw_regimental", "ACW-PD": "acw_regimental", "I": "acw_regimental",
    "RULINGS": "acw_regimental",
    "AA-R": "atomic_africa", "AA-D": "atomic_africa", "AA-G": "atomic_africa",
    "C": "atomic_africa",
    "AL": "skirmish_alert", "AL-PD": "skirmish_alert", "Q": "skirmish_alert",
}


def _ruleset_of_path(path: str) -> str | None:
    for name, marker in (("acw_regimental", "acw"), ("atomic_africa", "atomic_africa"),
                         ("skirmish_alert", "skirmish_alert")):
        if marker in Path(path).parts or any(part.startswith(marker) for part in
                                             Path(path).parts):
            return name
    return None


def _make_id(family: str, number: str) -> str:
    if family in ("C", "Q"):
        return f"{family}{number}"
    if family.startswith("AA-"):
        return f"{family}{number}"
    return f"{family}-{number}"


def _number_key(number: str) -> tuple[int, ...] | None:
    """``"2.3"`` -> (2, 3); ``"25b"`` -> None (never part of a range); ``"7"`` -> (7,)."""
    if not re.fullmatch(r"\d+(\.\d+)?", number):
        return None
    return tuple(int(part) for part in number.split("."))


def cited_ids(text: str, path: str = "") -> list[tuple[str, int]]:
    """Every rule id cited in ``text`` (the contents of the file at ``path``, relative to the
    repository root) with its line number, in order of appearance; a range counts once for
    each id in it."""
    home = _ruleset_of_path(path)
    found: list[tuple[str, int]] = []
    previous: tuple[str, str, int] | None = None  # (family, number, end offset)
    last_pd_family: str | None = None
    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        value = match.group(kind)
        between = text[previous[2]:match.start()] if previous else None
        continues = between is not None and LIST_SEP.fullmatch(between) is not None
        ranged = between is not None and RANGE_SEP.fullmatch(between) is not None
        family: str | None
        if kind == "rule":
            family = "RULE-04"
        elif kind == "acwpd":
            family = "ACW-PD"
        elif kind == "alpd":
            family = "AL-PD"
        elif kind == "al":
            family = "AL"
        elif kind == "aa":
            family, value = "AA-" + value[0], value[1:]
        elif kind == "res":
            family = "I"
        elif kind == "rulings":
            family = "RULINGS"
        elif kind == "pd":
            if (continues or ranged) and previous and previous[0] in ("ACW-PD", "AL-PD"):
                family = previous[0]
            elif home == "acw_regimental":
                family = "ACW-PD"
            elif home == "skirmish_alert":
                family = "AL-PD"
            else:
                family = last_pd_family
        elif kind == "short":
            family = None
            if (continues or ranged) and previous and previous[0].startswith("AA-"):
                family, value = "AA-" + value[0], value[1:]
        elif kind == "num":
            family = None
            if ranged and previous and previous[0] in ("ACW-PD", "AL-PD", "AL", "I"):
                family = previous[0]
            elif (continues or ranged) and previous and previous[0] == "RULE-04" and "." in value:
                family = "RULE-04"
        elif kind == "clean":
            family, value = ("C", value[1:]) if home == "atomic_africa" else (None, value)
        else:  # question
            family, value = ("Q", value[1:]) if home == "skirmish_alert" else (None, value)
        if family is None:
            continue
        line = text.count("\n", 0, match.start()) + 1
        if ranged and previous and previous[0] == family:
            low, high = _number_key(previous[1]), _number_key(value)
            if low and high and len(low) == len(high) and low[:-1] == high[:-1]:
                for step in range(low[-1] + 1, high[-1]):
                    number = ".".join(str(part) for part in (*low[:-1], step))
                    found.append((_make_id(family, number), line))
        found.append((_make_id(family, value), line))
        if family in ("ACW-PD", "AL-PD"):
            last_pd_family = family
        previous = (family, value, match.end())
    return found


def ruleset_of(rule_id: str) -> str:
    """The ruleset an id belongs to."""
    for family in sorted(FAMILY_RULESET, key=len, reverse=True):
        if rule_id.startswith(family + "-") or (family in ("C", "Q") and re.fullmatch(
                rf"{family}\d+", rule_id)) or (family.startswith("AA-") and re.fullmatch(
                    rf"{family}\d+", rule_id)):
            return FAMILY_RULESET[family]
    raise ValueError(f"{rule_id!r} is not a rule id of any ruleset")


def _files(roots: tuple[str, ...], suffixes=(".py", ".toml")) -> list[Path]:
    files: list[Path] = []
    for root in roots:
        path = ROOT / root
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in suffixes
                                and "__pycache__" not in p.parts))
    return files


@dataclass
class Citations:
    """Where each rule id is cited: ``{id: {relative path: count}}``."""

    by_id: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, path: Path) -> None:
        relative = path.relative_to(ROOT).as_posix()
        for rule_id, _line in cited_ids(path.read_text(encoding="utf-8"), relative):
            self.by_id[rule_id][relative] += 1

    def ids(self, ruleset: str | None = None) -> set[str]:
        return {rule_id for rule_id in self.by_id
                if ruleset is None or ruleset_of(rule_id) == ruleset}

    def count(self, rule_id: str) -> int:
        return sum(self.by_id[rule_id].values())


def citations_in_code() -> Citations:
    """Citations in ``envs/``, ``agents/``, ``train.py`` and ``evaluate.py``."""
    citations = Citations()
    for path in _files(CODE_ROOTS):
        citations.add(path)
    return citations


def citations_in_tests(suffixes: tuple[str, ...] = (".py", ".toml")) -> Citations:
    """Citations in ``tests/`` (``@pytest.mark.rule`` marks, the tests' text and, by default,
    their TOML fixtures), except this reference's own checks. ``suffixes=(".py",)``: only the
    test modules, i.e. the tests that name a rule."""
    citations = Citations()
    for path in _files(("tests",), suffixes):
        if not any(path.relative_to(ROOT).as_posix().startswith(skip) for skip in NOT_TESTS):
            citations.add(path)
    return citations


# ---------------------------------------------------------------------------------------------
# the reference pages

ENTRY = re.compile(
    r"^\((?P<label>rule-[^)]+)\)=\n"
    r"### (?P<id>\S+) (?P<title>[^\n]+)\n"
    r"\n(?P<body>.*?)(?=^\(rule-|^## |\Z)",
    re.MULTILINE | re.DOTALL,
)
FIELD = re.compile(r"^- \*\*(?P<name>[A-Za-z ]+):\*\* (?P<value>.*?)(?=^- \*\*|\Z)",
                   re.MULTILINE | re.DOTALL)
MODULE = re.compile(r"`([\w./-]+\.(?:py|toml))`")


@dataclass
class Entry:
    """One entry of a rules reference page."""

    rule_id: str
    label: str
    title: str
    paraphrase: str
    fields: dict[str, str]

    @property
    def modules(self) -> list[str]:
        return MODULE.findall(self.fields.get("Implemented in", ""))

    @property
    def text(self) -> str:
        return " ".join([self.title, self.paraphrase, *self.fields.values()])


def entries(page: Path) -> list[Entry]:
    """The entries of one reference page, in page order."""
    found = []
    for match in ENTRY.finditer(page.read_text(encoding="utf-8")):
        body = match.group("body")
        first_field = re.search(r"^- \*\*", body, re.MULTILINE)
        paraphrase = body[:first_field.start()] if first_field else body
        fields = {field.group("name"): " ".join(field.group("value").split())
                  for field in FIELD.finditer(body[first_field.start():] if first_field else "")}
        found.append(Entry(match.group("id"), match.group("label"), match.group("title"),
                           " ".join(paraphrase.split()), fields))
    return found


def _order_key(rule_id: str) -> tuple:
    family = re.match(r"[A-Z]+(?:-[A-Z]+)*-?(?=\d)|[A-Z]+(?=\d)", rule_id)
    head = family.group(0) if family else rule_id
    rest = rule_id[len(head):]
    numbers = tuple(int(part) for part in re.findall(r"\d+", rest))
    return (head, numbers, rest)


def main() -> int:
    code, tests, named = citations_in_code(), citations_in_tests(), citations_in_tests((".py",))
    for ruleset, page in PAGES.items():
        documented = {entry.rule_id for entry in entries(page)} if page.exists() else set()
        ids = sorted(code.ids(ruleset) | tests.ids(ruleset), key=_order_key)
        state = f"{len(documented)} entries" if page.exists() else "missing"
        print(f"{ruleset}: {len(ids)} ids cited, {sum(code.count(i) for i in ids)} citations "
              f"in code, {sum(tests.count(i) for i in ids)} in tests "
              f"({page.relative_to(ROOT)}: {state})")
        for rule_id in ids:
            flags = []
            if rule_id not in documented:
                flags.append("no entry")
            if named.count(rule_id) == 0:
                flags.append("no test")
            print(f"  {rule_id:<14} code {code.count(rule_id):>4}  tests {tests.count(rule_id):>4}"
                  + (f"  <- {', '.join(flags)}" if flags else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
