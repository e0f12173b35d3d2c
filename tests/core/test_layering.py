"""Layering, read from the source with ``ast`` (function-local and ``TYPE_CHECKING`` imports
included): every project module has a layer, and imports point down only.

Layers, lowest first (a module may import its own layer and the ones below):

0. ``core`` — ``envs.core`` and everything under it;
1. ``rulesets`` — ``envs.rulesets`` (the registrations of the built-in rulesets), each ruleset
   package ``envs.rulesets.<id>``, and the facade ``envs`` (``envs/__init__.py``: ``load_game``);
2. ``adapters`` — ``envs.adapters`` and the PettingZoo env modules ``envs.<id>_v0``;
3. ``agents`` — ``agents``;
4. ``scripts`` — ``train.py``, ``evaluate.py`` and the ``script_start.py`` they import first,
   and the command-line entry modules ``envs.__main__``, ``envs.bench`` (it builds adapters for
   ``--reference``) and ``envs.cli``.

Also forbidden: an import from one ruleset package into another, and any import cycle between
project modules. Only explicit imports are edges (the implicit import of a parent package's
``__init__`` is not); ``tests/`` is not layered.

Inside ``agents`` the subpackages are layered too, lowest first (a module may import its own
subpackage and the ones below): ``agents.interrupts`` (the scripts' signal handling), ``policies``,
``bots``, ``search``, ``builtin`` (the agents by name), ``evaluation``, ``training`` (with its
league), ``research``, ``backends``, and last the package ``agents`` itself (its re-exports). So
evaluation never imports training or research, and no policy imports a bot.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LAYERS = ("core", "rulesets", "adapters", "agents", "scripts")
#: the layers inside ``agents``, lowest first: ``agents.<name>`` (a subpackage or a module) and
#: its submodules; ``"agents"`` is the package's ``__init__``
AGENT_LAYERS = ("interrupts", "policies", "bots", "search", "builtin", "evaluation", "training",
                "research", "backends", "agents")
#: modules of the scripts layer outside ``envs.cli``
ENTRY_MODULES = {"train", "evaluate", "script_start", "envs.__main__", "envs.bench"}


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted name -> file of every layered module: ``envs/**``, ``agents/**``, ``train.py``,
    ``evaluate.py``, ``script_start.py``."""
    mods: dict[str, Path] = {}
    files = [p for d in ("envs", "agents") for p in sorted((root / d).rglob("*.py"))]
    files += [root / f for f in ("train.py", "evaluate.py", "script_start.py")
              if (root / f).is_file()]
    for path in files:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def layer_of(module: str) -> str:
    """The layer of a project module (see the module docstring).

    Raises:
        ValueError: for a module no rule places.
    """
    top = module.split(".")
    if module in ENTRY_MODULES or top[:2] == ["envs", "cli"]:
        return "scripts"
    if top[0] == "agents":
        return "agents"
    if top[:2] == ["envs", "core"]:
        return "core"
    if top[:2] == ["envs", "rulesets"] or module == "envs":
        return "rulesets"
    if top[:2] == ["envs", "adapters"] or (len(top) == 2 and top[0] == "envs"
                                           and top[1].endswith("_v0")):
        return "adapters"
    raise ValueError(f"module {module} has no layer: place it in tests/core/test_layering.py")


def agent_layer_of(module: str) -> str:
    """The layer inside ``agents`` of a module of the ``agents`` layer (see the module
    docstring).

    Raises:
        ValueError: for a module no rule places.
    """
    parts = module.split(".")
    if parts == ["agents"]:
        return "agents"
    if parts[0] == "agents" and parts[1] in AGENT_LAYERS[:-1]:
        return parts[1]
    raise ValueError(f"module {module} has no layer inside agents: place it in "
                     f"tests/core/test_layering.py")


def _agents_name(layer: str) -> str:
    return "agents" if layer == "agents" else f"agents.{layer}"


def ruleset_of(module: str) -> str | None:
    """``"acw_regimental"`` for ``envs.rulesets.acw_regimental.state``; ``None`` outside a
    ruleset package (``envs.rulesets`` itself is the registry, not a ruleset)."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["envs", "rulesets"] and len(parts) > 2 else None


def imports_of(module: str, source: str, is_package: bool,
               known: Iterable[str]) -> list[tuple[int, str]]:
    """``(line, imported project module)`` of every import statement in ``source``, at any depth
    (module level, functions, ``if TYPE_CHECKING``), relative imports resolved; ``from X import
    name`` points to ``X.name`` when that is a project module, else to ``X``."""
    known = set(known)
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []

    def project(name: str) -> str | None:
        # the longest known prefix (``import envs.core.protocol`` -> envs.core.protocol)
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            cand = ".".join(parts[:n])
            if cand in known:
                return cand
        return None

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = project(alias.name)
                if target:
                    found.append((node.lineno, target))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            for alias in node.names:
                target = project(f"{stem}.{alias.name}") if f"{stem}.{alias.name}" in known \
                    else project(stem)
                if target:
                    found.append((node.lineno, target))
    return sorted(set(found))


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, list[tuple[int, str]]]:
    """Module -> its ``(line, imported module)`` edges, from ``{module: (source,
    is_package)}``."""
    return {m: [(ln, t) for ln, t in imports_of(m, src, pkg, sources) if t != m]
            for m, (src, pkg) in sources.items()}


def find_cycles(graph: Mapping[str, Iterable[tuple[int, str]]]) -> list[list[str]]:
    """The import cycles of ``graph``: each strongly connected component of more than one
    module (Tarjan's algorithm), as a sorted list of module names; sorted."""
    succ = {m: sorted({t for _, t in edges if t in graph}) for m, edges in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        components.append(sorted(comp))
    return sorted(components)


def layering_violations(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """One line per upward import, import between two rulesets, and import cycle in
    ``{module: (source, is_package)}``."""
    graph = import_graph(sources)
    out = []
    for mod in sorted(graph):
        rank = LAYERS.index(layer_of(mod))
        for line, target in graph[mod]:
            target_rank = LAYERS.index(layer_of(target))
            if target_rank > rank:
                out.append(f"{mod}:{line} imports {target}: up from {LAYERS[rank]} to "
                           f"{LAYERS[target_rank]}")
            elif ruleset_of(mod) and ruleset_of(target) and ruleset_of(mod) != ruleset_of(target):
                out.append(f"{mod}:{line} imports {target}: between two rulesets")
            elif LAYERS[rank] == "agents" == LAYERS[target_rank]:
                here, there = agent_layer_of(mod), agent_layer_of(target)
                if AGENT_LAYERS.index(there) > AGENT_LAYERS.index(here):
                    out.append(f"{mod}:{line} imports {target}: up from {_agents_name(here)} "
                               f"to {_agents_name(there)}")
    for cycle in find_cycles(graph):
        out.append("import cycle: " + " <-> ".join(cycle) + " (" + "; ".join(
            f"{m}:{ln} -> {t}" for m in cycle for ln, t in graph[m] if t in cycle) + ")")
    return out


def _tree_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    return {m: (p.read_text(), p.name == "__init__.py") for m, p in project_modules(root).items()}


# -- the tree -------------------------------------------------------------------------------------
def test_every_module_has_a_layer() -> None:
    mods = project_modules()
    assert {"envs.core.protocol", "envs.rulesets", "envs.adapters.aec", "agents", "train",
            "envs.bench"} <= set(mods)
    unplaced = []
    for m in mods:
        try:
            if layer_of(m) == "agents":
                agent_layer_of(m)
        except ValueError as e:
            unplaced.append(str(e))
    assert unplaced == []


@pytest.mark.slow
def test_imports_point_down_with_no_cycle() -> None:
    violations = layering_violations(_tree_sources())
    assert violations == [], "layering violations:\n" + "\n".join(violations)


# -- the checker can fail -------------------------------------------------------------------------
def _src(**modules: str) -> dict[str, tuple[str, bool]]:
    """Synthetic tree: keyword ``envs__core__x="..."`` is module ``envs.core.x``; a trailing
    ``__init`` marks a package."""
    out = {}
    for key, text in modules.items():
        name = key.replace("__", ".")
        pkg = name.endswith(".init")
        out[name.removesuffix(".init")] = (text, pkg)
    return out


def test_checker_flags_a_function_local_upward_import() -> None:
    tree = _src(envs__core__init="", envs__core__protocol="def f():\n    from envs.rulesets import g\n",
                envs__rulesets__init="from envs.core.protocol import f\n")
    assert layering_violations(tree) == [
        "envs.core.protocol:2 imports envs.rulesets: up from core to rulesets",
        "import cycle: envs.core.protocol <-> envs.rulesets (envs.core.protocol:2 -> "
        "envs.rulesets; envs.rulesets:1 -> envs.core.protocol)"]


def test_checker_flags_sideways_rulesets_and_resolves_relative_imports() -> None:
    tree = _src(envs__rulesets__init="", envs__rulesets__a__init="", envs__rulesets__b__init="",
                envs__rulesets__a__x="from ..b import y\nfrom . import z\n",
                envs__rulesets__a__z="", envs__rulesets__b__y="",
                envs__adapters__init="", envs__adapters__p="import agents.q\n",
                agents__init="", agents__q="import envs.adapters.p as p\n")
    assert layering_violations(tree) == [
        "envs.adapters.p:1 imports agents.q: up from adapters to agents",
        "envs.rulesets.a.x:1 imports envs.rulesets.b.y: between two rulesets",
        "import cycle: agents.q <-> envs.adapters.p (agents.q:1 -> envs.adapters.p; "
        "envs.adapters.p:1 -> agents.q)"]


def test_checker_sees_type_checking_imports_and_allows_downward_ones() -> None:
    tree = _src(envs__core__init="", envs__core__a="",
                envs__rulesets__init="import envs.core.a\n",
                envs__bench="from envs.rulesets import x\nimport agents\n", agents__init="",
                envs__rulesets__r__init="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                        "    from envs.adapters import aec\n",
                envs__adapters__init="", envs__adapters__aec="")
    assert layering_violations(tree) == [
        "envs.rulesets.r:3 imports envs.adapters.aec: up from rulesets to adapters"]


def test_checker_flags_an_upward_import_inside_agents() -> None:
    tree = _src(agents__init="from agents.evaluation.tournament import round_robin\n",
                agents__evaluation__init="", agents__research__init="",
                agents__evaluation__tournament="from agents.research.analytics import Tracker\n",
                agents__research__analytics="", agents__research__whatif=(
                    "from agents.evaluation import tournament\n"),
                agents__policies__init="", agents__policies__base="",
                agents__bots__init="", agents__bots__heuristic="from ..policies import base\n"
                                                               "from ..builtin import make\n",
                agents__builtin="from .bots import heuristic\n")
    assert layering_violations(tree) == [
        "agents.bots.heuristic:2 imports agents.builtin: up from agents.bots to agents.builtin",
        "agents.evaluation.tournament:1 imports agents.research.analytics: up from "
        "agents.evaluation to agents.research",
        "import cycle: agents.bots.heuristic <-> agents.builtin (agents.bots.heuristic:2 -> "
        "agents.builtin; agents.builtin:1 -> agents.bots.heuristic)"]


def test_cycles_are_strongly_connected_components() -> None:
    graph = {"a": [(1, "b")], "b": [(1, "c")], "c": [(1, "a"), (2, "d")], "d": [(1, "e")],
             "e": [(1, "d")], "f": [(1, "a")]}
    assert find_cycles(graph) == [["a", "b", "c"], ["d", "e"]]


@pytest.mark.parametrize("module,layer", [
    ("envs.core.replay", "core"), ("envs.rulesets", "rulesets"), ("envs", "rulesets"),
    ("envs.rulesets.acw_regimental.state", "rulesets"), ("envs.acw_regimental_v0", "adapters"),
    ("envs.adapters._common", "adapters"), ("agents.training.league.selfplay", "agents"),
    ("envs.__main__", "scripts"), ("envs.bench", "scripts"), ("envs.cli.replay", "scripts"),
    ("train", "scripts"), ("evaluate", "scripts")])
def test_layer_of(module: str, layer: str) -> None:
    assert layer_of(module) == layer


@pytest.mark.parametrize("module,layer", [
    ("agents", "agents"), ("agents.interrupts", "interrupts"), ("agents.builtin", "builtin"),
    ("agents.policies.base", "policies"), ("agents.bots.acw_regimental", "bots"),
    ("agents.evaluation.analytics", "evaluation"), ("agents.training.league.pfsp", "training"),
    ("agents.research.whatif", "research"), ("agents.backends.rllib", "backends")])
def test_agent_layer_of(module: str, layer: str) -> None:
    assert agent_layer_of(module) == layer


def test_a_module_outside_the_agent_layers_is_refused() -> None:
    with pytest.raises(ValueError, match="agents.helpers has no layer inside agents"):
        agent_layer_of("agents.helpers")


#: modules of one layer that must not import each other: the two env front-ends share their
#: helpers through ``envs.adapters._common`` instead
INDEPENDENT = [("envs.adapters.aec", "envs.adapters.single_agent"),
               ("envs.adapters.wrappers", "envs.adapters.single_agent")]


@pytest.mark.slow
def test_env_front_ends_share_helpers_not_imports() -> None:
    graph = import_graph(_tree_sources())
    sideways = [f"{a}:{line} imports {b}" for x, y in INDEPENDENT for a, b in ((x, y), (y, x))
                for line, t in graph.get(a, []) if t == b]
    assert sideways == []
    assert any(t == "envs.adapters._common" for _, t in graph["envs.adapters.aec"])
