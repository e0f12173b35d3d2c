"""Shared fixtures. Registers the test-only ``toy`` ruleset (tests/toy_ruleset.py).

The tests' own in-process models (``model.learn(64)``) log nowhere, but stable-baselines3
still makes ``$SB3_LOGDIR`` for them — by default a new ``$TMPDIR/SB3-<date>`` folder each
time: they share one folder instead (also in the scripts the tests start, which import this
module)."""

import os
import tempfile

from envs.rulesets import REGISTRY

REGISTRY.setdefault("toy", "tests.toy_ruleset:ToyGame")
os.environ.setdefault("SB3_LOGDIR", os.path.join(tempfile.gettempdir(), "riposte-tests-sb3"))
