"""The frames of the skirmish alert game (on :mod:`envs.core.procedure`), one module per
part of the flow: :mod:`.context`, :mod:`.resolution`, :mod:`.facing`, :mod:`.charge`,
:mod:`.redirect`, :mod:`.action`, :mod:`.turn`; the alert window and its reactions are in
:mod:`..reactions`, one module each. The package imports none of them (the reactions use
:mod:`.context` and :mod:`.resolution`, and :mod:`.action` opens the reactions' window):
import a frame from its module.

Stack, bottom to top, in the middle of a reaction::

    Match                 rounds (AL-PD-10)
      Activations         the initiative track's order (envs.core.activation.InitiativeTrack)
        Turn              one fighter's game turn: AP refilled, keep/drop alert, actions
          ActionFrame     one declared action: (movement first,) alert window, then effect
            Facing        after a Move or Disengage, the mover's free facing (AL-PD-15)
            ChargeSquare  the charge's target moved but is in reach: the charger re-picks
            AlertWindow   AL-4: the window of this declaration, slot by slot (AL-22, AL-23)
              AttemptWindow   a team's slot: which alert fighter attempts, or decline
              AptitudeTest    2d6 + REF vs the difficulty (AL-5, AL-8, AL-13)
                ReactWindow   the reactor's one action from the menu (AL-15..AL-17)
                RearmWindow   pay 1 AP to stay on alert (AL-19)
          RedirectWindow  after the window, the declared destination of a Move (or of a
                          Charge whose attack was lost) can no longer be reached: the actor
                          may pick another (AL-25, AL-PD-20)
"""
