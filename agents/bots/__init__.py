"""The scripted bots: one module per ruleset, plus the baselines every ruleset shares. They read
only the observation, the mask and the action labels, never the State.

* :mod:`~agents.bots.baselines` — never react / always react.
* :mod:`~agents.bots.acw_regimental` — the ACW heuristic and the bot panel
  (``stand-and-fire``, ``rush``).
* :mod:`~agents.bots.atomic_africa` — the Atomic Africa heuristic and its Reserve baselines.
* :mod:`~agents.bots.skirmish_alert` — the skirmish heuristic and its alert baselines.

Each ruleset's ``heuristic`` is found by :func:`agents.builtin.heuristic_for`.
"""
