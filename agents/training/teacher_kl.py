"""Fine-tuning a warm-started policy on a leash: MaskablePPO with a KL term to its teacher.

After the behaviour-cloning warm start (:mod:`agents.training.bc`) the actor plays like the
heuristic it imitated. PPO's advantages over a few hundred games of sparse ±1 results are mostly
noise, and even after the critic warm-up (:mod:`agents.training.finetune`) a default run's policy
drifted far from the warm start: on the Two Farms battle its score against the heuristic fell from
0.60 to 0.27 and against ``rush`` from 0.65 to 0.23 within 40,960 timesteps (``train.py`` seed 0,
docs/finetuning.md). AlphaStar's answer, for the same situation at a larger scale, is a KL penalty that
keeps the reinforcement-learning policy near the supervised one (Vinyals et al., Nature 2019,
"Methods: ... KL divergence between the supervised and the current policy"), so that only
advantages that are consistent across many games move the policy away from its teacher.

:class:`TeacherKLMaskablePPO` is sb3-contrib's ``MaskablePPO`` whose loss adds
``teacher_kl_coef * KL(teacher || policy)``, the mean over the minibatch of the KL divergence
between the frozen teacher's and the current policy's action distributions over the legal
actions of each observation. Everything else — rollouts, the clipped surrogate, the value loss,
the entropy bonus, the early stop on the approximate KL to the old policy, the gradient
clipping — is :meth:`sb3_contrib.MaskablePPO.train` as of sb3-contrib 2.9 (MIT licence),
copied with that one term added (and its value logged as ``train/teacher_kl``). The teacher is
the warm-started policy itself, frozen when PPO begins (:meth:`set_teacher`); it is not saved
in the model zip (``train.py`` writes it beside the checkpoints as ``teacher_policy.pth``, read
back with ``torch.load(weights_only=True)`` on ``--resume``).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

__all__ = ["TeacherKLMaskablePPO", "masked_kl"]


def masked_kl(teacher_logits: th.Tensor, logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """KL(teacher || policy) per row over the legal actions.

    Args:
        teacher_logits, logits: ``(batch, num_actions)`` float tensors (unnormalised).
        masks: ``(batch, num_actions)`` boolean (or 0/1) legal-action masks; every row has at
            least one legal action.

    Returns:
        ``(batch,)`` float tensor, ``>= 0`` (0 where the two agree on the legal actions).
    """
    legal = masks.bool()
    very_negative = th.finfo(logits.dtype).min
    log_p = th.log_softmax(teacher_logits.masked_fill(~legal, very_negative), dim=-1)
    log_q = th.log_softmax(logits.masked_fill(~legal, very_negative), dim=-1)
    terms = th.where(legal, log_p.exp() * (log_p - log_q), th.zeros_like(log_p))
    return terms.sum(dim=-1)


def _logits(policy: Any, observations: th.Tensor) -> th.Tensor:
    """The action logits of a MaskablePPO ``MlpPolicy`` (before masking)."""
    features = policy.extract_features(observations, policy.pi_features_extractor)
    latent_pi = policy.mlp_extractor.forward_actor(features)
    return policy.action_net(latent_pi)


class TeacherKLMaskablePPO(MaskablePPO):
    """``MaskablePPO`` plus ``teacher_kl_coef * KL(teacher || policy)`` in its loss (see the
    module docstring). With ``teacher_kl_coef == 0`` or no teacher set it trains exactly as
    ``MaskablePPO``.

    With ``value_epochs > 0`` each update ends with that many more passes over the rollout
    buffer that train the critic alone (the value loss, minibatches of ``batch_size`` freshly
    shuffled, the same optimizer; the actor's weights get no gradient), as in the auxiliary
    phase of Phasic Policy Gradient (Cobbe et al., ICML 2021): the critic sees each sample more
    often than the actor, whose sample reuse stays ``n_epochs``.

    Args:
        teacher_kl_coef: weight of the KL term (``>= 0``).
        value_epochs: critic-only epochs after the PPO epochs of each update (``>= 0``).
        *args: as ``MaskablePPO``.
        **kwargs: as ``MaskablePPO``.

    Raises:
        ValueError: for a negative ``teacher_kl_coef`` or ``value_epochs``.
    """

    #: (a class default: checkpoints written before this attribute existed lack it)
    value_epochs: int = 0

    def __init__(self, *args: Any, teacher_kl_coef: float = 0.0, value_epochs: int = 0,
                 **kwargs: Any):
        if teacher_kl_coef < 0:
            raise ValueError(f"teacher_kl_coef must be >= 0, got {teacher_kl_coef}")
        if value_epochs < 0:
            raise ValueError(f"value_epochs must be >= 0, got {value_epochs}")
        self.teacher_kl_coef = float(teacher_kl_coef)
        self.value_epochs = int(value_epochs)
        self.teacher: Any = None
        #: an :class:`agents.training.pipelined.UpdateWorker` while updates are pipelined, else None
        self.update_worker: Any = None
        super().__init__(*args, **kwargs)

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "teacher", "update_worker"]

    # -- pipelined updates (agents/training/pipelined.py) ------------------------------------------
    def start_pipelined_updates(self) -> Any:
        """From now on :meth:`train` runs each update in a worker process while the next
        rollout is collected (one update of policy lag; :mod:`agents.training.pipelined`).
        Returns the :class:`~agents.training.pipelined.UpdateWorker`;
        :meth:`stop_pipelined_updates` ends it."""
        from .pipelined import UpdateWorker

        if self.update_worker is None:
            self.update_worker = UpdateWorker(self)
        return self.update_worker

    def stop_pipelined_updates(self) -> None:
        """Kill the update worker (an update in flight is dropped: call
        :meth:`finish_updates` first to keep it); safe to call twice."""
        if self.update_worker is not None:
            self.update_worker.close()
            self.update_worker = None

    def finish_updates(self) -> None:
        """Wait for the update in flight, if any, and put its result into this model."""
        if self.update_worker is not None:
            self.update_worker.finish(self)

    def learn(self, *args: Any, **kwargs: Any) -> "TeacherKLMaskablePPO":
        """``MaskablePPO.learn``; with pipelined updates, the last update is waited for when
        the budget is reached (not when a callback stopped the run early: a checkpoint keeps
        the update in flight, see :mod:`agents.training.resume`)."""
        super().learn(*args, **kwargs)
        if self.num_timesteps >= self._total_timesteps:
            self.finish_updates()
        return self

    def train(self) -> None:
        """One PPO update on the rollout buffer: :meth:`train_in_process`, or with pipelined
        updates, the update in flight is put into this model and this rollout's is started
        in the worker (:meth:`agents.training.pipelined.UpdateWorker.exchange`)."""
        if self.update_worker is not None:
            self.update_worker.exchange(self)
        else:
            self.train_in_process()

    def set_teacher(self) -> None:
        """Freeze a copy of this model's current policy as the teacher."""
        self._freeze_teacher(copy.deepcopy(self.policy))

    def _freeze_teacher(self, teacher: Any) -> None:
        teacher.set_training_mode(False)
        for p in teacher.parameters():
            p.requires_grad_(False)
        self.teacher = teacher

    def teacher_state_dict(self) -> dict[str, th.Tensor]:
        """The teacher's weights (tensors only), to save beside a checkpoint.

        Raises:
            ValueError: when no teacher is set.
        """
        if self.teacher is None:
            raise ValueError("no teacher set")
        return {k: v.detach().clone() for k, v in self.teacher.state_dict().items()}

    def load_teacher_state_dict(self, weights: dict[str, th.Tensor]) -> None:
        """Set the teacher to this model's architecture with ``weights`` (strict)."""
        if self.teacher is not None:  # (no deepcopy of a policy that has trained: it may
            teacher = self.teacher   # hold tensors of its last forward pass)
        else:
            teacher = type(self.policy)(**self.policy._get_constructor_parameters())
            teacher.to(self.device)
        teacher.load_state_dict(weights, strict=True)
        self._freeze_teacher(teacher)

    def train_in_process(self) -> None:  # noqa: C901 - sb3-contrib's train() + one term
        """One PPO update on the rollout buffer (sb3-contrib 2.9's ``MaskablePPO.train``) with
        ``teacher_kl_coef * KL(teacher || policy)`` added to the loss."""
        use_teacher = self.teacher is not None and self.teacher_kl_coef > 0
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]  # a schedule once set up
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]  # a schedule once set up

        entropy_losses = []
        pg_losses, value_losses = [], []
        clip_fractions = []
        teacher_kls = []
        continue_training = True
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                actions = rollout_data.actions
                if isinstance(self.action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                values, log_prob, entropy = self.policy.evaluate_actions(
                    rollout_data.observations, actions, action_masks=rollout_data.action_masks)
                values = values.flatten()
                advantages = rollout_data.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = th.exp(log_prob - rollout_data.old_log_prob)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(
                    th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                if self.clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = rollout_data.old_values + th.clamp(
                        values - rollout_data.old_values, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(rollout_data.returns, values_pred)
                value_losses.append(value_loss.item())
                if entropy is None:
                    entropy_loss = -th.mean(-log_prob)
                else:
                    entropy_loss = -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss

                # the one addition: stay near the teacher where the advantages do not agree
                if use_teacher:
                    obs = rollout_data.observations
                    with th.no_grad():
                        teacher_logits = _logits(self.teacher, obs)
                    teacher_kl = masked_kl(teacher_logits, _logits(self.policy, obs),
                                           rollout_data.action_masks).mean()
                    teacher_kls.append(teacher_kl.item())
                    loss = loss + self.teacher_kl_coef * teacher_kl
                if (extra := self._auxiliary_loss(rollout_data)) is not None:
                    loss = loss + extra  # (a subclass's term: agents/training/expert_iteration.py)

                with th.no_grad():
                    log_ratio = log_prob - rollout_data.old_log_prob
                    approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        value_phase_losses = self._value_phase()
        explained_var = explained_variance(self.rollout_buffer.values.flatten(),
                                           self.rollout_buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if teacher_kls:
            self.logger.record("train/teacher_kl", float(np.mean(teacher_kls)))
        if value_phase_losses:
            self.logger.record("train/value_phase_loss", float(np.mean(value_phase_losses)))
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)

    def _auxiliary_loss(self, rollout_data: Any) -> th.Tensor | None:
        """A further term of a subclass's loss on a minibatch (None here: no term)."""
        return None

    def _value_phase(self) -> list[float]:
        """The :attr:`value_epochs` critic-only passes over the rollout buffer (see the class
        docstring): ``vf_coef`` times the value loss of PPO's update (clipped around the
        rollout's values by ``clip_range_vf``, when set) on minibatches of ``batch_size``
        (a fresh shuffle each pass), with the same gradient clipping and optimizer. Returns the
        minibatches' value losses."""
        clip_range_vf = (None if self.clip_range_vf is None
                         else self.clip_range_vf(self._current_progress_remaining))  # type: ignore[operator]  # a schedule once set up
        losses: list[float] = []
        for _ in range(self.value_epochs):
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                values = self.policy.predict_values(rollout_data.observations).flatten()
                if clip_range_vf is not None:
                    values = rollout_data.old_values + th.clamp(
                        values - rollout_data.old_values, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(rollout_data.returns, values)
                losses.append(value_loss.item())
                self.policy.optimizer.zero_grad()
                (self.vf_coef * value_loss).backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
        return losses
