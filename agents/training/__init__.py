"""Training: everything ``train.py`` runs.

* :mod:`~agents.training.train_cli` — the flags (``Args``), each ruleset's defaults, the flag
  checks and the resume configuration.
* :mod:`~agents.training.run_dir` — the run directory: its files, the checks made before any
  work, and taking it over for a run.
* :mod:`~agents.training.build` — the opponent pool, the warm start's agents and a fresh model,
  from the run's flags.
* :mod:`~agents.training.report` — the run's summary (``metrics.json``) and its closing lines.
* :mod:`~agents.training.vec_env` — the vectorised self-play env and its timing wrapper.
* :mod:`~agents.training.callbacks` — the callback that stops at a rollout boundary on Ctrl-C,
  and :class:`~agents.training.callbacks.SelfPlayCallback`, built from its three duties:
  :mod:`~agents.training.snapshots` (the opponent pool's snapshots and self-play win rates),
  :mod:`~agents.training.checkpoints` (checkpoints with their resume state) and
  :mod:`~agents.training.evaluations` (periodic evaluations, checkpoint selection,
  ``metrics.csv``).
* :mod:`~agents.training.selection` — the evaluation games of checkpoint selection and the
  background evaluator.
* :mod:`~agents.training.resume` — exact resume of every generator and env state.
* :mod:`~agents.training.run_lock` — one run per run directory.
* The PPO variants: :mod:`~agents.training.bc` (behaviour-cloning warm start),
  :mod:`~agents.training.finetune` (critic warm-up), :mod:`~agents.training.teacher_kl` (the
  learner with a KL leash and value epochs) and :mod:`~agents.training.pipelined` (the update
  in a worker process).
* :mod:`agents.training.league` — the opponents: pool, PFSP league, in-run exploiters and
  best responses.
"""
