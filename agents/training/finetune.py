"""Fine-tuning a warm-started MaskablePPO policy without wrecking it: a critic warm-up.

After the behaviour-cloning warm start (:mod:`agents.training.bc`) the actor plays like its teacher,
but the critic only knows the teacher's Monte-Carlo returns against the warm start's opponents, not
the values of the league's games. PPO's first updates then follow advantages that are mostly
the critic's error, and with a fresh Adam optimiser those noisy steps move a sharply peaked
imitation policy a long way from where it started (measured in ``train.py``'s default run: the
score against ``rush`` fell from 0.65 to 0.03 within 50k timesteps). The usual remedy in
fine-tuning an imitation policy with an actor-critic method is to let the critic learn the new
returns first, with the actor frozen, and only then update both (as in the value pre-training
of RL fine-tuning pipelines).

:class:`CriticWarmupCallback` freezes the actor's parameters (``mlp_extractor.policy_net`` and
``action_net``: ``requires_grad = False``, so PPO's policy and entropy terms move nothing and
Adam skips them) for every PPO update that starts before ``warmup_timesteps``; the critic
(``mlp_extractor.value_net``, ``value_net``) trains as usual. It reads only
``model.num_timesteps``, so a resumed run continues the same schedule.
"""

from __future__ import annotations

from typing import Any

from stable_baselines3.common.callbacks import BaseCallback


def actor_parameters(policy: Any) -> list[Any]:
    """The parameters of a MaskablePPO ``MlpPolicy``'s actor alone (its MLP and action head;
    with separate actor and critic networks the features extractor has no parameters).

    Raises:
        ValueError: for a policy whose actor and critic share a features extractor with
            parameters (the warm-up would freeze part of the critic too).
    """
    ext = policy.mlp_extractor
    if any(True for _ in policy.features_extractor.parameters()) \
            and getattr(policy, "share_features_extractor", True):
        raise ValueError("critic warm-up needs a features extractor without parameters "
                         "(or separate ones for the actor and the critic)")
    return list(ext.policy_net.parameters()) + list(policy.action_net.parameters())


class CriticWarmupCallback(BaseCallback):
    """Freeze the actor for the PPO updates that begin before ``warmup_timesteps`` timesteps
    (counted by ``model.num_timesteps``, so also across ``--resume``); ``warmup_timesteps <= 0``
    does nothing. :attr:`frozen_updates` counts the updates done with the actor frozen."""

    def __init__(self, warmup_timesteps: int):
        super().__init__(verbose=0)
        self.warmup_timesteps = int(warmup_timesteps)
        self.frozen_updates = 0
        self._frozen: bool | None = None

    def _set_frozen(self, frozen: bool) -> None:
        if frozen == self._frozen:
            return
        for p in actor_parameters(self.model.policy):
            p.requires_grad_(not frozen)
        self._frozen = frozen

    def _on_training_start(self) -> None:
        if self.warmup_timesteps > 0:
            actor_parameters(self.model.policy)  # refuse a shared network before any update

    def _on_rollout_end(self) -> None:  # the update that follows uses this setting
        frozen = self.num_timesteps < self.warmup_timesteps
        if frozen or self._frozen:
            self._set_frozen(frozen)
        if frozen:
            self.frozen_updates += 1
        self.logger.record("train/actor_frozen", float(frozen))

    def _on_training_end(self) -> None:
        if self._frozen:
            self._set_frozen(False)

    def _on_step(self) -> bool:
        return True
