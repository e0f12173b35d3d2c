"""The league: who the learner plays, and who is trained to beat it.

* :mod:`~agents.training.league.selfplay` — the opponent pool (latest policy, snapshots,
  scripted bots).
* :mod:`~agents.training.league.pfsp` — the PFSP league (prioritized fictitious self-play) and
  the env wrapper that tags each episode with its opponent.
* :mod:`~agents.training.league.exploiters` — best responses trained during a run and added to
  its pool.
* :mod:`~agents.training.league.exploit` — best-response exploitability of a fixed policy
  (``evaluate.py exploit``).
"""
