"""Expert iteration: PPO that also learns from the search (``train.py --expert-iteration-sims``).

Expert Iteration (Anthony et al., NeurIPS 2017) trains a network toward the moves of a search
that uses that network; Gumbel AlphaZero (Danihelka et al., ICLR 2022) gives the target, the
search's ``improved_policy``, with its improvement guaranteed even at a few simulations.
:class:`ExpertIterationMaskablePPO` adds that to the PPO learner of ``train.py``
(:class:`~agents.training.teacher_kl.TeacherKLMaskablePPO`), which stays the trainer:

* Rollouts: each learner decision with more than one legal action is searched with probability
  ``search_fraction`` (playout-cap randomisation, as in KataGo: Wu 2019; a searched decision at
  8 simulations costs the CPU time of about 3 unsearched timesteps, docs/search.md), by :class:`~agents.search.GumbelSearch`
  with :class:`~agents.search.NetworkEvaluator` over the current policy, ``search_simulations``
  simulations and the Gumbel noise of the paper (``gumbel_scale=1``: the action is a sample, the
  improved policy the target), leaf values from the value head at the node and Q weighted by
  ``c_scale=0.1`` (the cheap search it was measured with; the search agent's default reads
  leaf values 30 decisions later, about five times the cost). The search's action is played; its improved policy is kept in the
  rollout buffer (:class:`SearchRolloutBuffer`) as the row's target; the row's stored
  log-probability is ``log improved_policy[a]`` (the behaviour policy that played), so PPO's
  ratio for it is ``pi(a) / improved_policy(a)``, not a ratio to a move ``pi`` did not sample.
  The search reads only the searching side's information state (:mod:`agents.search.determinize`).
* Loss: PPO's, plus ``search_coef`` times the mean over the searched rows of a minibatch of the
  cross-entropy ``-sum_legal target * log pi`` (``pi`` the masked policy), logged as
  ``train/search_ce``. With ``search_coef == 0`` or no searched row the update is PPO's.
* Values: PPO's returns of the observed outcomes, as before.

The search's generator (:attr:`ExpertIterationMaskablePPO.search_rng`, seeded from the model's
seed) draws which decisions are searched and the search's own chances; it is saved in the model
zip, so a checkpoint written at a rollout boundary resumes the same run. The envs must run in
this process (the search reads each env's game state): ``--vec-env subproc`` and
``--backend rllib`` are refused by ``train.py``. Pipelined updates carry the two extra buffer
arrays and ``search_coef`` to the update worker (:mod:`agents.training.pipelined`).

Imports torch and sb3-contrib.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import torch as th
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from .pipelined import BUFFER_FIELDS
from .teacher_kl import TeacherKLMaskablePPO, _logits
from .vec_env import envs_in_process

__all__ = ["ExpertIterationMaskablePPO", "SearchRolloutBuffer", "SearchSamples", "search_ce"]


def search_ce(targets: th.Tensor, logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """Cross-entropy of the masked policy to the search's targets, per row.

    Args:
        targets: ``(batch, num_actions)`` float, each row a distribution over its legal actions
            (zero on the illegal ones).
        logits: ``(batch, num_actions)`` float, the policy's unmasked logits.
        masks: ``(batch, num_actions)`` boolean (or 0/1) legal-action masks.

    Returns:
        ``(batch,)`` float tensor ``-sum_legal targets * log_softmax(masked logits)``, ``>= 0``.
    """
    legal = masks.bool()
    log_q = th.log_softmax(logits.masked_fill(~legal, th.finfo(logits.dtype).min), dim=-1)
    return -th.where(legal, targets * log_q, th.zeros_like(log_q)).sum(dim=-1)


class SearchSamples(NamedTuple):
    """A minibatch of :class:`SearchRolloutBuffer`: sb3-contrib's
    ``MaskableRolloutBufferSamples`` fields, then ``search_targets`` float ``(batch,
    num_actions)`` and ``searched`` float ``(batch,)`` (1.0 on searched rows)."""

    observations: th.Tensor
    actions: th.Tensor
    old_values: th.Tensor
    old_log_prob: th.Tensor
    advantages: th.Tensor
    returns: th.Tensor
    action_masks: th.Tensor
    search_targets: th.Tensor
    searched: th.Tensor


class SearchRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` that also keeps, per step and env, the search's improved policy
    (``search_targets`` float32 ``(n_steps, n_envs, num_actions)``, zero on rows not searched)
    and whether the row was searched (``searched`` float32 ``(n_steps, n_envs)``). The rollout
    loop hands the step's values to :meth:`stage` before ``add``."""

    #: the arrays a pipelined update request carries (:mod:`agents.training.pipelined`)
    fields = (*BUFFER_FIELDS, "search_targets", "searched")

    def reset(self) -> None:
        super().reset()
        self.search_targets = np.zeros((self.buffer_size, self.n_envs, self.mask_dims),
                                       dtype=np.float32)
        self.searched = np.zeros((self.buffer_size, self.n_envs), dtype=np.float32)
        self._staged: tuple[np.ndarray, np.ndarray] | None = None

    def stage(self, targets: np.ndarray, searched: np.ndarray) -> None:
        """The next ``add``'s targets (``(n_envs, num_actions)``) and searched flags
        (``(n_envs,)``)."""
        self._staged = (targets, searched)

    def add(self, *args: Any, **kwargs: Any) -> None:
        if self._staged is not None:
            self.search_targets[self.pos], self.searched[self.pos] = self._staged
            self._staged = None
        super().add(*args, **kwargs)

    def get(self, batch_size: int | None = None):  # type: ignore[override]
        if not self.generator_ready:  # (the parent flattens its own arrays the same way)
            self.search_targets = self.swap_and_flatten(self.search_targets)
            self.searched = self.swap_and_flatten(self.searched)
        yield from super().get(batch_size)

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> SearchSamples:  # type: ignore[override]
        base = super()._get_samples(batch_inds, env)
        return SearchSamples(*base, self.to_torch(self.search_targets[batch_inds]),
                             self.to_torch(self.searched[batch_inds].flatten()))


class ExpertIterationMaskablePPO(TeacherKLMaskablePPO):
    """:class:`~agents.training.teacher_kl.TeacherKLMaskablePPO` whose rollouts search a fraction
    of the learner's decisions and whose loss adds the cross-entropy to the search's improved
    policy (see the module docstring).

    Args:
        search_simulations: simulations per searched decision (``>= 0``; 0 searches nothing).
        search_fraction: probability that a learner decision with more than one legal action
            is searched (``0..1``).
        search_coef: weight of the cross-entropy term (``>= 0``).
        *args: as ``TeacherKLMaskablePPO``.
        **kwargs: as ``TeacherKLMaskablePPO`` (``rollout_buffer_class`` is
            :class:`SearchRolloutBuffer`).

    Attributes:
        search_rng: ``numpy.random.Generator`` of the searches (saved with the model).
        searched_decisions: decisions searched so far; search_seconds: their wall time
            (both saved with the model).

    Raises:
        ValueError: for a setting out of its range.
    """

    #: what a pipelined update worker's model is built with besides PPO's settings
    update_settings = ("search_coef",)

    def __init__(self, *args: Any, search_simulations: int = 0, search_fraction: float = 0.0,
                 search_coef: float = 1.0, **kwargs: Any):
        if type(search_simulations) is not int or search_simulations < 0:
            raise ValueError(f"search_simulations must be an integer >= 0, got "
                             f"{search_simulations!r}")
        if not 0.0 <= search_fraction <= 1.0:
            raise ValueError(f"search_fraction must be in [0, 1], got {search_fraction}")
        if not (math.isfinite(search_coef) and search_coef >= 0):
            raise ValueError(f"search_coef must be a finite number >= 0, got {search_coef}")
        self.search_simulations = search_simulations
        self.search_fraction = float(search_fraction)
        self.search_coef = float(search_coef)
        self.searched_decisions = 0
        self.search_seconds = 0.0
        self._search_ces: list[float] = []
        self._searches: dict[int, Any] = {}  # GumbelSearch per game object
        kwargs.setdefault("rollout_buffer_class", SearchRolloutBuffer)
        super().__init__(*args, **kwargs)
        self.search_rng = np.random.default_rng([0 if self.seed is None else self.seed, 37])

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_search_ces", "_searches"]

    # -- rollouts ------------------------------------------------------------------------------
    def collect_rollouts(self, env: Any, callback: Any, rollout_buffer: Any,
                         n_rollout_steps: int, use_masking: bool = True) -> bool:
        """``MaskablePPO.collect_rollouts`` with the searches of the module docstring: the
        policy's forward pass of each step is followed by the searches of that step, which
        replace the searched envs' actions and log-probabilities and stage their targets in
        the buffer.

        Raises:
            ValueError: when searching and the envs do not run in this process.
        """
        if self.search_simulations == 0 or self.search_fraction == 0.0:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps,
                                            use_masking)
        envs = envs_in_process(env)
        if envs is None:
            raise ValueError("expert iteration searches the envs' game states: the envs must "
                             "run in this process (a DummyVecEnv)")
        policy = self.policy
        inner = policy.forward
        own = "forward" in vars(policy)  # (the fast rollout forward pass is an instance one)

        def forward(obs: th.Tensor, deterministic: bool = False,
                    action_masks: np.ndarray | None = None):
            actions, values, log_probs = inner(obs, deterministic=deterministic,
                                               action_masks=action_masks)
            targets, searched = self._search_step(envs, actions, log_probs, action_masks)
            rollout_buffer.stage(targets, searched)
            return actions, values, log_probs

        policy.forward = forward
        try:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps,
                                            use_masking)
        finally:
            if own:
                policy.forward = inner
            else:
                del policy.forward

    def _search_step(self, envs: list[Any], actions: th.Tensor, log_probs: th.Tensor,
                     masks: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Search the drawn envs' decisions; their actions and log-probabilities are replaced
        in place. Returns the step's targets ``(n_envs, A)`` and searched flags ``(n_envs,)``."""
        from agents.search import GumbelSearch, NetworkEvaluator, SearchConfig

        n = len(envs)
        A = int(self.action_space.n)
        targets = np.zeros((n, A), dtype=np.float32)
        searched = np.zeros(n, dtype=np.float32)
        draws = self.search_rng.random(n)
        for i, e in enumerate(envs):
            if draws[i] >= self.search_fraction or (masks is not None and masks[i].sum() < 2):
                continue
            core = e.unwrapped
            search = self._searches.get(id(core.game))
            if search is None or search.evaluator.policy is not self.policy:
                search = self._searches[id(core.game)] = GumbelSearch(
                    core.game, NetworkEvaluator(core.game, self.policy),
                    SearchConfig(simulations=self.search_simulations, gumbel_scale=1.0,
                                 c_scale=0.1, rollout=0, confident=1.0))
            result = search.run(core.state, self.search_rng)
            targets[i] = result.improved_policy
            searched[i] = 1.0
            actions[i] = result.action
            log_probs[i] = math.log(max(float(result.improved_policy[result.action]), 1e-8))
            self.searched_decisions += 1
            self.search_seconds += result.seconds
        return targets, searched

    # -- update --------------------------------------------------------------------------------
    def _auxiliary_loss(self, rollout_data: Any) -> th.Tensor | None:
        """``search_coef`` times the mean cross-entropy over the minibatch's searched rows
        (None when there are none or the weight is 0)."""
        if self.search_coef == 0.0 or not isinstance(rollout_data, SearchSamples):
            return None
        rows = rollout_data.searched > 0.5
        if not bool(rows.any()):
            return None
        ce = search_ce(rollout_data.search_targets[rows],
                       _logits(self.policy, rollout_data.observations[rows]),
                       rollout_data.action_masks[rows]).mean()
        self._search_ces.append(ce.item())
        return self.search_coef * ce

    def train_in_process(self) -> None:
        """The PPO update with the cross-entropy term (logged as ``train/search_ce`` when a
        minibatch had searched rows)."""
        self._search_ces = []
        super().train_in_process()
        if self._search_ces:
            self.logger.record("train/search_ce", float(np.mean(self._search_ces)))

