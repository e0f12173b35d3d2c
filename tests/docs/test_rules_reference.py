"""The rules reference (``docs/rules/<ruleset>.md``) against the code and the tests.

* every rule id cited in code (``envs/``, ``agents/``, ``train.py``, ``evaluate.py``) and in
  tests has an entry, and every entry's id is still cited somewhere;
* every entry is named by at least one test module (a ``@pytest.mark.rule`` mark or the id in
  its text; this file does not count);
* every module an entry names exists and cites the entry's id, so an entry follows the code
  when code moves;
* every game parameter an entry names (``name = default``) is a field of the ruleset's
  parameters with that default;
* no entry shares a run of 12 or more words with the rules texts or the research notes (when
  they are present: the repository does not hold them; ``RIPOSTE_RULES_SOURCES`` names the
  folder that holds ``seeds/`` and ``research/``);
* every cited id exists in the sources (when present).

Ids are read with :mod:`tests.docs.rule_ids` (lists, ranges and tuples included).
"""

from __future__ import annotations

import ast
import importlib
import os
import re
from pathlib import Path

import pydantic
import pytest

from tests.docs.rule_ids import (PAGES, ROOT, citations_in_code, citations_in_tests,
                                 cited_ids, entries, main, ruleset_of)

RULESETS = list(PAGES)
#: shared words that make an entry a copy of its source
COPY_RUN = 12


@pytest.fixture(scope="module")
def code():
    return citations_in_code()


@pytest.fixture(scope="module")
def tests_all():
    return citations_in_tests()


@pytest.fixture(scope="module")
def tests_py():
    return citations_in_tests((".py",))


def _where(by_file) -> str:
    return ", ".join(f"{path} ({count})" for path, count in sorted(by_file.items())[:4]) + \
        (" ..." if len(by_file) > 4 else "")


# -- the id extraction -----------------------------------------------------------------------

@pytest.mark.parametrize("text, path, expected", [
    ("cites RULE-04-2.1, RULE-04-2.2 here", "envs/x.py", ["RULE-04-2.1", "RULE-04-2.2"]),
    ("RULE-04-5.2, 5.3 and RULE-04-2.3/2.4/2.5", "envs/x.py",
     ["RULE-04-5.2", "RULE-04-5.3", "RULE-04-2.3", "RULE-04-2.4", "RULE-04-2.5"]),
    ('rules=("I-10", "RULE-04-1.4")', "agents/x.py", ["I-10", "RULE-04-1.4"]),
    ("(ACW-PD-19, PD-31) and ACW-PD-2/PD-6/PD-16", "agents/x.py",
     ["ACW-PD-19", "ACW-PD-31", "ACW-PD-2", "ACW-PD-6", "ACW-PD-16"]),
    ("ACW-PD-13..15", "agents/x.py", ["ACW-PD-13", "ACW-PD-14", "ACW-PD-15"]),
    ("AA-R1 … AA-R3; AA-R3/R4", "agents/x.py", ["AA-R1", "AA-R2", "AA-R3", "AA-R3", "AA-R4"]),
    ("AL-PD-21, PD-24 and AL-PD-16 to AL-PD-18", "agents/x.py",
     ["AL-PD-21", "AL-PD-24", "AL-PD-16", "AL-PD-17", "AL-PD-18"]),
    ("flush contact (PD-23 step 7)", "envs/rulesets/acw_regimental/x.py", ["ACW-PD-23"]),
    ("start of its own turn (PD-11)", "tests/skirmish_alert/x.py", ["AL-PD-11"]),
    ("PD-5", "agents/x.py", []),  # a bare PD-n outside a ruleset and after no prefixed id
    ("ACW-PD-25b and ACW-PD-21.7, RULE-04-3.x", "envs/x.py", ["ACW-PD-25b", "ACW-PD-21"]),
    ('("C1", "C3") and C4', "envs/rulesets/atomic_africa/x.py", ["C1", "C3", "C4"]),
    ("(C1-C3) and C5-", "envs/rulesets/atomic_africa/x.py", ["C1", "C2", "C3"]),
    ('"Reb (C0)" and C1 and R3 and D2 and Q6', "tests/acw/x.py", []),
    ("timing (Q6); Q10", "envs/rulesets/skirmish_alert/x.py", ["Q6", "Q10"]),
    ("SHA-256, UTF-8, CRC-32, (A-5), TOY-S-1, R-9, I-beam", "envs/x.py", []),
    ("AL-15..AL-19", "envs/x.py", ["AL-15", "AL-16", "AL-17", "AL-18", "AL-19"]),
    ('rules += ("RULINGS-10",) and RULINGS items 1-10', "envs/x.py", ["RULINGS-10"]),
])
def test_cited_ids_reads_lists_ranges_and_tuples(text, path, expected):
    assert [rule_id for rule_id, _ in cited_ids(text, path)] == expected


def test_cited_ids_gives_line_numbers():
    assert cited_ids("a\nb RULE-04-1.1\nc ACW-PD-2", "x.py") == [("RULE-04-1.1", 2),
                                                                  ("ACW-PD-2", 3)]


def test_rule_ids_prints_the_counts(capsys):
    assert main() == 0
    out = capsys.readouterr().out
    for ruleset in PAGES:
        assert re.search(rf"^{ruleset}: \d+ ids cited, \d+ citations in code", out, re.M)
    assert re.search(r"^  RULE-04-2\.3 +code +\d+ +tests +\d+", out, re.M)


# -- the pages --------------------------------------------------------------------------------

def test_every_ruleset_has_a_page_in_the_index():
    packages = sorted(path.parent.name for path in (ROOT / "envs" / "rulesets").glob(
        "*/__init__.py"))
    assert packages == sorted(PAGES)
    index = (ROOT / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    for ruleset, page in PAGES.items():
        assert page.is_file(), f"{page.relative_to(ROOT)} is missing"
        assert f"({page.name})" in index and f"\n{page.stem}\n" in index


@pytest.mark.parametrize("ruleset", RULESETS)
def test_entries_are_well_formed(ruleset):
    page = PAGES[ruleset]
    found = entries(page)
    text = page.read_text(encoding="utf-8")
    assert len(found) == text.count("\n(rule-"), "an entry does not follow the fixed format"
    problems = []
    seen: set[str] = set()
    for entry in found:
        if entry.label != f"rule-{entry.rule_id}":
            problems.append(f"{entry.rule_id}: label (rule-{entry.label}) differs from the id")
        if entry.rule_id in seen:
            problems.append(f"{entry.rule_id}: two entries")
        seen.add(entry.rule_id)
        try:
            if ruleset_of(entry.rule_id) != ruleset:
                problems.append(f"{entry.rule_id}: an id of {ruleset_of(entry.rule_id)}")
        except ValueError as e:
            problems.append(str(e))
        if len(entry.paraphrase.split()) < 8:
            problems.append(f"{entry.rule_id}: the paraphrase is missing or too short")
        for field in ("Ruling", "Parameter", "Implemented in"):
            if not entry.fields.get(field):
                problems.append(f"{entry.rule_id}: no '{field}'")
    assert not problems, "\n".join(problems)


def _family_and_number(rule_id: str) -> tuple[str, tuple[int, ...]]:
    head = re.match(r"(.*?)(\d+(?:\.\d+)?)b?$", rule_id)
    assert head, rule_id
    return head.group(1), tuple(int(n) for n in head.group(2).split("."))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_entries_follow_the_rulesets_order(ruleset):
    """Within each id family the entries come in the ruleset's own order (by number)."""
    by_family: dict[str, list[tuple[int, ...]]] = {}
    for entry in entries(PAGES[ruleset]):
        family, number = _family_and_number(entry.rule_id)
        by_family.setdefault(family, []).append(number)
    for family, numbers in by_family.items():
        assert numbers == sorted(numbers), f"{family} entries out of order"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_cited_id_has_an_entry(ruleset, code, tests_all):
    documented = {entry.rule_id for entry in entries(PAGES[ruleset])}
    missing = []
    for rule_id in sorted(code.ids(ruleset) | tests_all.ids(ruleset)):
        if rule_id not in documented:
            where = {**code.by_id.get(rule_id, {}), **tests_all.by_id.get(rule_id, {})}
            missing.append(f"{rule_id} (cited in {_where(where)})")
    assert not missing, (f"rule ids with no entry in {PAGES[ruleset].relative_to(ROOT)} (add "
                         "one: paraphrase, ruling, parameter, modules):\n" + "\n".join(missing))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_entry_is_still_cited(ruleset, code, tests_all):
    stale = [entry.rule_id for entry in entries(PAGES[ruleset])
             if not code.count(entry.rule_id) and not tests_all.count(entry.rule_id)]
    assert not stale, "entries of ids that no code and no test cites any more: " + ", ".join(stale)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_entry_is_named_by_a_test(ruleset, tests_py):
    unnamed = [entry.rule_id for entry in entries(PAGES[ruleset])
               if not tests_py.count(entry.rule_id)]
    assert not unnamed, ("rules that no test names (write a test marked @pytest.mark.rule(ID)): "
                         + ", ".join(unnamed))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_entry_modules_exist_and_cite_the_id(ruleset, code):
    problems = []
    for entry in entries(PAGES[ruleset]):
        if not entry.modules:
            problems.append(f"{entry.rule_id}: names no module")
        for module in entry.modules:
            path = ROOT / module
            now = _where(code.by_id.get(entry.rule_id, {}))
            if not path.is_file():
                problems.append(f"{entry.rule_id}: {module} does not exist (cited now in: {now})")
            elif entry.rule_id not in {rule_id for rule_id, _ in cited_ids(
                    path.read_text(encoding="utf-8"), module)}:
                problems.append(f"{entry.rule_id}: {module} does not cite it (cited now in: "
                                f"{now})")
    assert not problems, f"update {PAGES[ruleset].relative_to(ROOT)}:\n" + "\n".join(problems)


def _params_model(ruleset: str) -> type[pydantic.BaseModel]:
    module = importlib.import_module(f"envs.rulesets.{ruleset}.params")
    models = [value for name, value in vars(module).items()
              if name.endswith("Params") and isinstance(value, type)
              and issubclass(value, pydantic.BaseModel)]
    assert len(models) == 1, f"{ruleset}: expected one *Params model, found {models}"
    return models[0]


PARAMETER = re.compile(r"`(\w+) = ([^`]+)`")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_entry_parameters_are_the_rulesets(ruleset):
    fields = _params_model(ruleset).model_fields
    problems = []
    named = 0
    for entry in entries(PAGES[ruleset]):
        for name, value in PARAMETER.findall(entry.fields.get("Parameter", "")):
            named += 1
            if name not in fields:
                problems.append(f"{entry.rule_id}: {name} is not a parameter")
                continue
            field = fields[name]
            default = field.default_factory() if field.default_factory else field.default
            if ast.literal_eval(value) != default:
                problems.append(f"{entry.rule_id}: {name} defaults to {default!r}, not {value}")
    assert not problems, "\n".join(problems)
    assert named > 0


# -- against the sources (outside the repository) ----------------------------------------------

def _sources_folder() -> Path | None:
    candidates = [os.environ.get("RIPOSTE_RULES_SOURCES", ""), str(ROOT.parent / "shared"),
                  str(ROOT.parent.parent / "shared")]
    for candidate in candidates:
        if candidate and (Path(candidate) / "seeds").is_dir():
            return Path(candidate)
    return None


SOURCES = _sources_folder()
needs_sources = pytest.mark.skipif(SOURCES is None, reason="the rules texts are not here "
                                   "(set RIPOSTE_RULES_SOURCES to the folder with seeds/)")


def _words(text: str) -> list[str]:
    text = text.lower().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.findall(r"[a-z0-9à-ÿ]+(?:['.][a-z0-9à-ÿ]+)*", text)


def _runs(words: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + size]) for i in range(len(words) - size + 1)}


def _source_texts() -> dict[str, str]:
    assert SOURCES is not None
    files = sorted((SOURCES / "seeds").glob("*.txt"))
    files += sorted((SOURCES / "research").glob("*.md")) if (SOURCES / "research").is_dir() else []
    rulings = SOURCES / "design" / "RULINGS.md"
    files += [rulings] if rulings.is_file() else []
    return {path.name: path.read_text(encoding="utf-8") for path in files}


@needs_sources
@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_entry_copies_the_sources(ruleset):
    sources = {name: _runs(_words(text), COPY_RUN) for name, text in _source_texts().items()}
    copies = []
    for entry in entries(PAGES[ruleset]):
        runs = _runs(_words(entry.text), COPY_RUN)
        for name, source_runs in sources.items():
            shared = runs & source_runs
            if shared:
                copies.append(f"{entry.rule_id}: {len(shared)} run(s) of {COPY_RUN} words from "
                              f"{name}, e.g. {' '.join(sorted(shared)[0])!r}")
    assert not copies, ("paraphrase these entries in the project's own words:\n"
                        + "\n".join(copies))


def _known_ids() -> set[str]:
    """The ids the sources define."""
    texts = _source_texts()
    acw = texts.get("acw_fillins.md", "") + "".join(
        text for name, text in texts.items() if name.startswith("003_"))
    known = {f"RULE-04-{n}" for n in re.findall(r"RULE-04-(\d+\.\d+)", acw)}
    known |= {f"I-{n}" for n in re.findall(r"^\| I-(\d+) \|", acw, re.M)}
    known |= {f"ACW-PD-{n}" for n in re.findall(r"\*\*PD-(\d+b?)\b", acw)}
    rulings = texts.get("RULINGS.md", "")
    section = re.search(r"^## ACW regimental.*?(?=^## )", rulings, re.M | re.S)
    known |= {f"RULINGS-{n}" for n in re.findall(r"^(\d+)\. ", section.group(0) if section
                                                 else "", re.M)}
    africa = texts.get("atomic_africa.md", "")
    known |= {f"AA-{kind}{n}" for kind, n in re.findall(r"^- \*\*([RD])(\d+)\b", africa, re.M)}
    known |= {f"AA-G{n}" for n in re.findall(r"^\| G(\d+) \|", africa, re.M)}
    known |= {f"C{n}" for n in re.findall(r"^- \*\*C(\d+)\b", africa, re.M)}
    alert = texts.get("alert_skirmish.md", "")
    known |= {f"AL-{n}" for n in re.findall(r"^\| AL-(\d+) \|", alert, re.M)}
    known |= {f"AL-PD-{n}" for n in re.findall(r"\bPD-(\d+)\b", alert)}
    known |= {f"Q{n}" for n in re.findall(r"^\| Q(\d+) \|", alert, re.M)}
    return known


@needs_sources
@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_cited_id_exists_in_the_sources(ruleset, code, tests_all):
    known = {rule_id for rule_id in _known_ids() if ruleset_of(rule_id) == ruleset}
    assert len(known) > 20
    unknown = []
    for rule_id in sorted(code.ids(ruleset) | tests_all.ids(ruleset)):
        if rule_id not in known:
            where = {**code.by_id.get(rule_id, {}), **tests_all.by_id.get(rule_id, {})}
            unknown.append(f"{rule_id} (cited in {_where(where)})")
    assert not unknown, ("cited ids that no rules text or research note defines:\n"
                         + "\n".join(unknown))

