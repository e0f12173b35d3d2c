"""Behaviour-cloning warm start for MaskablePPO: pre-train the policy on a teacher's decisions.

Self-play PPO from a random initial policy spends most of a small CPU budget rediscovering basic
play (advance, fire, use the free reactions). ``train.py`` therefore can first play a few games
of a teacher (the scripted heuristic) against a mix of opponents, record every decision the
teacher made — egocentric observation, mask, action — and fit the actor to them by maximum
likelihood under the mask (cross-entropy on the masked logits), together with the critic on the
discounted final result (Monte-Carlo value targets ``gamma**(K-1-j) * z`` for the teacher's
``j``-th of ``K`` decisions in a game it finished with return ``z``). PPO then starts from a
policy that already plays like the teacher, and self-play improves on it. This is the usual
imitation warm start of game-playing agents (e.g. AlphaStar's supervised stage), here at toy
scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.chance import sample_chance_outcome
from envs.core.errors import IllegalActionError
from envs.core.protocol import CHANCE, TERMINAL, Game

from ..policies.base import as_callable, reads_state, reset_policy


@dataclass
class Demonstrations:
    """Teacher decisions: ``obs`` float32 ``(N, observation_size)``, ``masks`` bool
    ``(N, num_distinct_actions)``, ``actions`` int64 ``(N,)``, ``returns`` float32 ``(N,)``
    (discounted final result from the deciding side's point of view); ``games`` played."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    games: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def collect_demonstrations(game: Game, teacher: Any, opponents: Sequence[Any], n_games: int,
                           seed: int = 0, gamma: float = 0.995,
                           max_decisions: int | None = None) -> Demonstrations:
    """Play ``n_games`` games of ``teacher`` against ``opponents`` (cycled; seats alternate) and
    record the teacher's decisions. If an opponent *is* the teacher object, both sides are
    recorded. With three or more sides the teacher's seat rotates and the opponents, cycled,
    fill the other seats. Agents that read the state (``step(state)``, a search agent
    ``search:MODEL``) are asked on the game's state, the others on the observation.

    Raises:
        IllegalActionError: when an agent returns an action its mask does not allow.
    """
    cap = game.max_game_length if max_decisions is None else max_decisions
    root = np.random.SeedSequence(seed)
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    for i in range(n_games):
        opp = opponents[i % len(opponents)]
        n = game.num_players
        if n == 2:
            seats = [teacher, opp] if i % 2 == 0 else [opp, teacher]
            g_chance, g0, g1 = root.spawn(3)
            reset_policy(seats[0], g0)
            if seats[1] is not seats[0]:
                reset_policy(seats[1], g1)
        else:  # three or more sides: the teacher's seat rotates, opponents fill the others
            seats = [opponents[(i + k) % len(opponents)] for k in range(n)]
            seats[i % n] = teacher
            g_chance, *gs = root.spawn(1 + n)
            done: list[Any] = []
            for a, g in zip(seats, gs):
                if not any(a is d for d in done):
                    reset_policy(a, g)
                    done.append(a)
        # an agent that reads the state (a search agent) is asked step(state); the others act on
        # the observation the demonstrations record
        acts = [(lambda ob, mask, st, agent=a: agent.step(st)) if reads_state(a)
                else (lambda ob, mask, st, act=as_callable(a): act(ob, mask)) for a in seats]
        rng = np.random.default_rng(g_chance)
        st = game.new_initial_state()
        per_side: dict[int, list[int]] = {s: [] for s in range(n)}  # indices into the buffers
        decisions = 0
        while st.current_player() != TERMINAL and decisions < cap:
            p = st.current_player()
            if p == CHANCE:
                st.apply_action_unchecked(sample_chance_outcome(st, rng))
                continue
            mask = st.legal_action_mask()
            ob = game.observation(st, p)
            a = acts[p](ob, mask, st)
            if not mask[int(a)]:
                raise IllegalActionError(f"agent on side {p} chose illegal action {a!r}; "
                                         f"legal: {st.legal_labels()}")
            if seats[p] is teacher:
                per_side[p].append(len(act_l))
                obs_l.append(ob)
                mask_l.append(mask)
                act_l.append(int(a))
                ret_l.append(0.0)
            st.apply_action_unchecked(int(a))
            decisions += 1
        final = st.returns() if st.current_player() == TERMINAL else [0.0] * game.num_players
        for side, idx in per_side.items():
            k = len(idx)
            for j, n in enumerate(idx):
                ret_l[n] = float(final[side]) * gamma ** (k - 1 - j)
    n_act = game.num_distinct_actions
    return Demonstrations(
        obs=np.asarray(obs_l, dtype=np.float32).reshape(-1, game.observation_size),
        masks=np.asarray(mask_l, dtype=bool).reshape(-1, n_act),
        actions=np.asarray(act_l, dtype=np.int64), returns=np.asarray(ret_l, dtype=np.float32),
        games=n_games)


def pretrain(model: Any, data: Demonstrations, epochs: int = 10, batch_size: int = 256,
             lr: float = 1e-3, vf_coef: float = 0.5, seed: int = 0) -> dict[str, float]:
    """Fit ``model.policy`` (a MaskablePPO policy) to ``data``: masked cross-entropy of the
    teacher's actions plus ``vf_coef`` times the value MSE, Adam with learning rate ``lr``.

    Returns:
        ``{"samples", "epochs", "loss", "accuracy"}``: the last epoch's mean loss and the
        share of samples where the arg-max of the masked policy equals the teacher's action.
    """
    import torch

    if len(data) == 0:
        return {"samples": 0, "epochs": 0, "loss": float("nan"), "accuracy": float("nan")}
    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    obs = torch.as_tensor(data.obs)
    masks = torch.as_tensor(data.masks)
    acts = torch.as_tensor(data.actions)
    rets = torch.as_tensor(data.returns)
    rng = np.random.default_rng(seed)
    n = len(data)
    last = float("nan")
    for _ in range(epochs):
        perm = rng.permutation(n)
        total, count = 0.0, 0
        for start in range(0, n, batch_size):
            b = torch.as_tensor(perm[start:start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs[b], acts[b], action_masks=masks[b])
            loss = -log_prob.mean() + vf_coef * torch.nn.functional.mse_loss(
                values.flatten(), rets[b])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            total += float(loss.detach()) * len(b)
            count += len(b)
        last = total / count
    policy.set_training_mode(False)
    correct = 0
    with torch.no_grad():
        for start in range(0, n, 4096):
            sl = slice(start, start + 4096)
            dist = policy.get_distribution(obs[sl], action_masks=data.masks[sl])
            pred = dist.get_actions(deterministic=True)
            correct += int((pred == acts[sl]).sum())
    return {"samples": n, "epochs": epochs, "loss": last, "accuracy": correct / n}
