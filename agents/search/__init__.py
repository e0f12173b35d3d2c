"""Decision-time search over the rules engine, with a trained network as prior and value.

At each decision with more than one legal action the agent runs Gumbel search (Danihelka et
al., ICLR 2022) through the public decision-point protocol only (``clone`` via
``resample_from_infostate``, ``legal_actions``, ``apply_action_unchecked``,
``chance_outcomes``, ``returns``, and the game's per-side observation): no ruleset's own code.

* :mod:`.config` — :class:`SearchConfig` and the options of an agent spec.
* :mod:`.evaluator` — the prior (masked logits of the side to move) and the per-player leaf
  values from a MaskablePPO checkpoint's policy and value heads, batched.
* :mod:`.tree` — nodes with one value per player (max^n backup), chance outcomes drawn by
  their probabilities or visited in proportion (``chance=expand``), forced decisions applied
  without a node.
* :mod:`.gumbel` — completed Q, ``sigma``, the improved policy, sequential halving's plan,
  Gumbel's deterministic selection below the root or PUCT.
* :mod:`.determinize` — each simulation searches a sample of the hidden information drawn from
  the searching side's information state.
* :mod:`.search` — one search (:class:`GumbelSearch`) and its :class:`SearchResult`.
* :mod:`.agent` — :class:`SearchAgent` (``analyse(state)``, ``step(state)``) and the agent spec
  ``search:MODEL[:key=value...]``.
* :mod:`.bench` — milliseconds per searched decision, where they go, and how often the search
  overrules its network (``python -m agents.search.bench``).
* :mod:`.diagnose` — how well the value head predicts results and tells actions apart
  (``python -m agents.search.diagnose``).

Example::

    from agents.search import SearchAgent, SearchConfig
    agent = SearchAgent.load("runs/default/final_model.zip", game, SearchConfig(simulations=16),
                             seed=0)
    result = agent.analyse(state)   # result.action, result.improved_policy, result.q_values
"""

from .agent import SPEC_PREFIX, SearchAgent, is_search_spec, parse_search_spec
from .config import SearchConfig, SearchSpecError
from .evaluator import Evaluator, NetworkEvaluator
from .search import GumbelSearch, SearchResult

__all__ = ["Evaluator", "GumbelSearch", "NetworkEvaluator", "SPEC_PREFIX", "SearchAgent",
           "SearchConfig", "SearchResult", "SearchSpecError", "is_search_spec",
           "parse_search_spec"]
