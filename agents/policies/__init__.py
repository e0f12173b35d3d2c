"""Policies: the protocol every agent follows and the trained ones.

* :mod:`~agents.policies.base` — the policy protocol, :class:`~agents.policies.base.BasePolicy`,
  :class:`~agents.policies.base.RandomPolicy`, the agent errors and the helpers the players of
  games use (``legal_ids``, ``reset_policy``, ``as_callable``).
* :mod:`~agents.policies.ppo` — a trained MaskablePPO model as a policy.
* :mod:`~agents.policies.checkpoint` — checkpoints saved and loaded without unpickling.
* :mod:`~agents.policies.fast_policy` — a faster rollout forward pass with the same numbers.
"""
