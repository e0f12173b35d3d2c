"""Shared fixtures. Registers the test-only ``toy`` ruleset (tests/toy_ruleset.py)."""

from envs.rulesets import REGISTRY

REGISTRY.setdefault("toy", "tests.toy_ruleset:ToyGame")
