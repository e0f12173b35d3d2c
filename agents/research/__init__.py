"""Research tools on top of the engine's explicit chance and ``clone()``.

Modules:

* :mod:`~agents.research.whatif` — the value of every legal option at one decision point of a
  replay, estimated by rollouts on common random numbers (``evaluate.py whatif``).
* :mod:`~agents.evaluation.analytics` — per agent and reaction label: offered, taken, what it
  achieved (the ``reaction_analytics`` key of ``evaluate.py``'s JSON).
* :mod:`~agents.research.ablate` — rule-variant ablations on paired chance seeds
  (``evaluate.py ablate``).
* :mod:`~agents.research.masking` — MaskablePPO with the action mask against PPO with an
  illegal-action penalty (``evaluate.py masking``).
* :mod:`~agents.research.common` — intervals, the commit id, progress bars, atomic JSON/PNG.
"""
