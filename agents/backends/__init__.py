"""Other training backends: RLlib (``train.py --backend rllib``).

* :mod:`~agents.backends.rllib` — the RLlib run (config, checkpoints, export to a Riposte
  checkpoint).
* :mod:`~agents.backends.rllib_modules` — its RLModules: the masked actor-critic and the bots
  as modules.
"""
