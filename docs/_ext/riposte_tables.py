"""A Sphinx extension that writes the environment tables from the code, so they cannot drift.

Directives (in MyST pages, as ``{riposte-envs}`` fences):

* ``riposte-envs``: one row per built-in ruleset: env ids, game version, action and
  observation sizes, decision types, scenarios.
* ``riposte-observation RULESET``: the observation pieces of a ruleset's default game
  (name, indices, shape, meaning), from :meth:`envs.core.observer.ObservationLayout.table`.
* ``riposte-actions RULESET``: the action catalogue (id, label), from
  :meth:`envs.core.actions.ActionCatalogue.table`.

The Markdown comes from ``docs/_ext/env_tables.py`` (also read by the tests) and is parsed in
place.
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective


class _TableDirective(SphinxDirective):
    has_content = False
    optional_arguments = 1

    def markdown_from(self, module) -> str:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        import env_tables

        text = self.markdown_from(env_tables)
        container = nodes.container()
        self.state.nested_parse(StringList(text.splitlines(), source="riposte-tables"),
                                self.content_offset, container)
        return container.children


class EnvsDirective(_TableDirective):
    optional_arguments = 0

    def markdown_from(self, module) -> str:
        return module.environments_table()


class DecisionTypesDirective(_TableDirective):
    optional_arguments = 0

    def markdown_from(self, module) -> str:
        return module.decision_types_table()


class ObservationDirective(_TableDirective):
    required_arguments = 1
    optional_arguments = 0

    def markdown_from(self, module) -> str:
        return module.observation_table(self.arguments[0])


class ActionsDirective(_TableDirective):
    required_arguments = 1
    optional_arguments = 0

    def markdown_from(self, module) -> str:
        return module.actions_table(self.arguments[0])


def setup(app):
    app.add_directive("riposte-envs", EnvsDirective)
    app.add_directive("riposte-decision-types", DecisionTypesDirective)
    app.add_directive("riposte-observation", ObservationDirective)
    app.add_directive("riposte-actions", ActionsDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
