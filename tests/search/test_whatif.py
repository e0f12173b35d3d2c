"""evaluate.py whatif with a search agent as a rollout policy (``--agents search:MODEL:sims=N
...``), and a bad search spec there as one error line before any rollout."""

from __future__ import annotations

import json

import pytest

import evaluate
from tests.research.test_cli import TOY_REPLAY

from .test_league import toy_model  # noqa: F401  (a fixture: a small toy checkpoint)


@pytest.fixture()
def replay(tmp_path):
    p = tmp_path / "toy.toml"
    p.write_text(TOY_REPLAY)
    return p


def test_whatif_rolls_out_with_a_search_agent(toy_model, replay, tmp_path):
    out = tmp_path / "w.json"
    spec = f"search:{toy_model}:sims=2"
    args = ["whatif", str(replay), "--at", "1", "--agents", "random", spec, "--rollouts", "4",
            "--seed", "3", "--quiet", "--json", str(out)]
    assert evaluate.main(args) == 0
    doc = json.loads(out.read_text())
    assert doc["params"]["agents"] == ["random", spec] and doc["side"] == 1
    assert [o["label"] for o in doc["options"]] == ["react:dodge", "react:decline"]
    for option in doc["options"]:
        assert option["rollouts"] == 4 and -1.0 <= option["mean_return"] <= 1.0
        assert option["win_rate"] in (0.0, 0.25, 0.5, 0.75, 1.0)
    # the same seed gives the same rollouts: the search agent is re-seeded for each one
    assert evaluate.main(args) == 0
    assert json.loads(out.read_text())["options"] == doc["options"]


@pytest.mark.parametrize("spec, needle", [
    ("search:{m}:sims=0", "positive"),
    ("search:{m}:bogus=1", "unknown option 'bogus'"),
    ("search:/no/such/model.zip", "not found"),
])
def test_whatif_refuses_a_bad_search_spec(toy_model, replay, tmp_path, capsys, spec, needle):
    spec = spec.format(m=toy_model)
    out = tmp_path / "w.json"
    rc = evaluate.main(["whatif", str(replay), "--at", "1", "--agents", "random", spec,
                        "--json", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("error: ")
    assert needle in err and spec in err and not out.exists()
