"""Every docstring of ``envs`` and ``agents`` parses as the API reference reads it.

The fast twin of ``make docs``'s autodoc: each module, class, function, method and property
docstring goes through napoleon's Google-style conversion and ``docs/_ext/markdown_docstrings``
as in the Sphinx build, then docutils; any warning (a bare ``|x|`` read as a substitution, an
unclosed ``*``, a list without its blank line, a malformed table) fails here, in the fast
tier, instead of only in the slow full build.
"""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil

import pytest

from tests.docs.test_sphinx_build import _load

docutils_core = pytest.importorskip("docutils.core")
napoleon = pytest.importorskip("sphinx.ext.napoleon")
from docutils import nodes  # noqa: E402
from docutils.parsers.rst import Directive, directives, roles  # noqa: E402
from sphinx.ext.napoleon.docstring import GoogleDocstring  # noqa: E402

#: Sphinx's Python roles and the directive napoleon writes, as plain docutils knows neither
ROLES = ("class", "func", "meth", "mod", "attr", "data", "exc", "obj", "doc", "ref")


def _literal_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.literal(rawtext, text)], []


class _Attribute(Directive):
    has_content = True
    required_arguments = 1
    final_argument_whitespace = True
    option_spec = {"type": directives.unchanged, "value": directives.unchanged,
                   "no-index": directives.flag, "noindex": directives.flag}

    def run(self):
        return []


def _problems(docstring: str) -> str:
    config = napoleon.Config(napoleon_google_docstring=True, napoleon_numpy_docstring=False)
    lines = GoogleDocstring(inspect.cleandoc(docstring), config).lines()
    text = "\n".join(_load("markdown_docstrings").convert(lines))
    stream = io.StringIO()
    docutils_core.publish_doctree(text, settings_overrides={
        "warning_stream": stream, "report_level": 2, "halt_level": 5})
    return stream.getvalue().strip()


def _docstrings():
    import agents
    import envs

    for package in (envs, agents):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # an optional extra (ray, pyspiel): the docs build mocks it
                continue
            if module.__doc__:
                yield info.name, module.__doc__
            for name, obj in vars(module).items():
                if getattr(obj, "__module__", None) != module.__name__:
                    continue
                if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                    continue
                if obj.__doc__:
                    yield f"{info.name}.{name}", obj.__doc__
                if inspect.isclass(obj):
                    for member_name, member in vars(obj).items():
                        doc = getattr(member, "__doc__", None)
                        if doc and (inspect.isfunction(member) or isinstance(member, property)):
                            yield f"{info.name}.{name}.{member_name}", doc


@pytest.fixture(scope="module", autouse=True)
def _sphinx_names():
    for role in ROLES:
        roles.register_local_role(role, _literal_role)
    directives.register_directive("attribute", _Attribute)


def test_every_docstring_parses():
    bad = []
    for where, docstring in _docstrings():
        problems = _problems(docstring)
        if problems:
            bad.append(f"{where}: {problems.splitlines()[0]}")
    assert bad == [], "docstrings `make docs` cannot parse:\n" + "\n".join(bad)


@pytest.mark.parametrize("docstring", [
    "Margin: |a - b| in inches.",
    "Args:\n    *args, **kwargs: as MaskablePPO.",
    "Off: the fixed --pool-*-weight ones.",
    "Table:\n\n=====  =====\nname   value\n=====  =====\n``long_name`` 1\n=====  =====\n",
])
def test_the_check_finds_what_broke_the_build(docstring):
    assert _problems(docstring)


def test_the_check_passes_markdown_tables_and_roles():
    assert _problems("See :class:`envs.core.State`.\n\n| a | b |\n|---|---|\n| `x|y` | 1 |\n") == ""
