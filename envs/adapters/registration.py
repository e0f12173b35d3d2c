"""Registration of the Riposte environments with Gymnasium (and PettingZoo's registry).

* Gymnasium: ``riposte/ACWRegimental-v0`` → :class:`envs.adapters.single_agent.RiposteGymEnv`
  with ``ruleset="acw_regimental"`` (``gymnasium.make("riposte/ACWRegimental-v0", seat=0, ...)``)
  and ``illegal_action="loss"``: following PettingZoo's convention (its
  ``TerminateIllegalWrapper``, on by default in ``env()``), an illegal learner action ends the
  episode as a loss, with ``info["illegal_action"]`` saying what it was and a ``UserWarning``
  the first time, so ``gymnasium.utils.env_checker.check_env(gymnasium.make(ID).unwrapped)``
  and stable-baselines3's ``check_env`` pass as written. Pass ``illegal_action="raise"`` to debug
  (engine tests do); the class itself defaults to ``"raise"``.
* Gymnasium: ``riposte/AtomicAfrica-v0`` → the same class with ``ruleset="atomic_africa"``
  (PettingZoo: ``riposte/atomic_africa-v0`` → :func:`envs.atomic_africa_v0.env`).
* PettingZoo ≥ 1.27 (``pettingzoo.register``): ``riposte/acw_regimental-v0`` (AEC) →
  :func:`envs.acw_regimental_v0.env` (``pettingzoo.make("aec", "riposte/acw_regimental-v0")``).
* ``riposte/SkirmishAlert-v0`` and ``riposte/skirmish_alert-v0`` likewise for ruleset
  ``skirmish_alert`` (:mod:`envs.skirmish_alert_v0`); the Gymnasium env seats one learner and
  n − 1 opponents (each drawn from a pool when one is given).

:func:`register_envs` is idempotent; importing :mod:`envs.adapters` calls it. Gymnasium ≥ 1.0
no longer loads ``gymnasium.envs`` entry points, so without a prior import use Gymnasium's
``module:id`` form, which imports the module first:
``gymnasium.make("envs.adapters:riposte/ACWRegimental-v0")``.
"""

from __future__ import annotations

#: Gymnasium id of the single-agent ACW env
GYM_ACW_ID = "riposte/ACWRegimental-v0"
#: PettingZoo AEC id of the ACW env
PZ_ACW_ID = "riposte/acw_regimental-v0"
#: Gymnasium id of the single-agent skirmish alert env (one learner, n - 1 opponents)
GYM_SKIRMISH_ID = "riposte/SkirmishAlert-v0"
#: PettingZoo AEC id of the skirmish alert env
PZ_SKIRMISH_ID = "riposte/skirmish_alert-v0"
#: Gymnasium id of the single-agent Atomic Africa env
GYM_AA_ID = "riposte/AtomicAfrica-v0"
#: PettingZoo AEC id of the Atomic Africa env
PZ_AA_ID = "riposte/atomic_africa-v0"


def register_envs() -> None:
    """Register the Gymnasium (and, when available, PettingZoo) ids; safe to call repeatedly."""
    import gymnasium

    if GYM_ACW_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ACW_ID, entry_point="envs.adapters.single_agent:RiposteGymEnv",
                           kwargs={"ruleset": "acw_regimental", "illegal_action": "loss"})
    if GYM_SKIRMISH_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_SKIRMISH_ID,
                           entry_point="envs.adapters.single_agent:RiposteGymEnv",
                           kwargs={"ruleset": "skirmish_alert", "illegal_action": "loss"})
    if GYM_AA_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_AA_ID, entry_point="envs.adapters.single_agent:RiposteGymEnv",
                           kwargs={"ruleset": "atomic_africa", "illegal_action": "loss"})
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is part of the rl extra
        return
    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    if register is not None and registry is not None and PZ_ACW_ID not in registry:
        register("aec", PZ_ACW_ID, entry_point="envs.acw_regimental_v0:env")
    if register is not None and registry is not None and PZ_SKIRMISH_ID not in registry:
        register("aec", PZ_SKIRMISH_ID, entry_point="envs.skirmish_alert_v0:env")
    if register is not None and registry is not None and PZ_AA_ID not in registry:
        register("aec", PZ_AA_ID, entry_point="envs.atomic_africa_v0:env")
