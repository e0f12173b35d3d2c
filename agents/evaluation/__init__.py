"""Evaluation: tournaments, ratings and what ``evaluate.py`` reports.

* :mod:`~agents.evaluation.tournament` — round robins on common random numbers, played in
  worker processes.
* :mod:`~agents.evaluation.free_for_all` — games of more than two sides.
* :mod:`~agents.evaluation.ratings` — scores, intervals and Plackett–Luce ratings.
* :mod:`~agents.evaluation.analytics` — per agent and reaction label: offered, taken, what it
  achieved (the ``reaction_analytics`` key of ``evaluate.py``'s JSON).
* :mod:`~agents.evaluation.plots` — learning curves and score matrices (matplotlib).

Best-response exploitability (``evaluate.py exploit``) trains a policy, so it lives with the
training code: :mod:`agents.training.league.exploit`.
"""
