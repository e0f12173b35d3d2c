"""Sphinx configuration of the Riposte documentation (MyST Markdown pages, API from docstrings).

Build: ``make docs`` (``sphinx-build -W --keep-going -b html docs docs/_build/html``); warnings
are errors, so a broken link, a page missing from the toctree or a docstring that does not
parse fails the build (``tests/docs/test_sphinx_build.py`` runs the same build).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "Riposte"
author = "Riposte contributors"
copyright = "Riposte contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "riposte_tables",
    "markdown_docstrings",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: docstrings are Google style (Args / Returns / Raises)
autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"
# the rllib backend imports ray, the OpenSpiel adapter pyspiel (extras the docs do not need)
autodoc_mock_imports = ["ray", "pyspiel", "open_spiel"]
# `envs.core` re-exports the errors and the protocol of its submodules, so a docstring's
# ``ScenarioError`` names two equal targets; Sphinx links the first and would warn each time
suppress_warnings = ["ref.python"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = "Riposte"
html_static_path: list[str] = []
