"""Decisions a team owes the campaign, and their defaults (D-NAP-4, N-VICTORY-4 with D-NAP-3, N-SIEGE-8 with
D-NAP-9). No decision may stall the campaign (issue 12): each is settled by its documented default when the team
it waits for ends its turn, or when its clock runs out (`end_turn(..., flagged=True)`, also outside its turn):

- a defender choosing whether to fight (N-START-3): battle is accepted (D-NAP-4);
- a beaten army's team choosing where it retreats (N-VICTORY-4): the engine's choice, toward its base (D-NAP-3);
- the capitulation terms of a stormed fortress (N-SIEGE-8): the garrison accepts the besieger's standing proposal;
  the besieger's silence leaves the default terms, prisoners and the general captured (D-NAP-9).

The first two run the team's clock while they wait (`deciding`, part of `active_teams`); the terms wait for the
team's own turn. Offers of a quick resolution (D-L-2) stall nothing — the battle goes on in its room — and stay open
until answered or the battle ends; a siege's other decisions end in the storm by themselves (N-SIEGE-5).
"""

from __future__ import annotations

from server.napoleonic.siege import sequence

from . import battles, retreats, sieges
from .events import Ctx
from .state import CONTACT, NapoleonicState


def deciding(state: NapoleonicState) -> set[str]:
    """The teams with a decision due under their clock: defenders of a contact, teams of a beaten army."""
    return ({str(b.defender) for b in state.battles.values() if b.status == CONTACT}
            | {str(a.team) for a in retreats.due(state)})


def by_default(ctx: Ctx, team: str, *, flagged: bool) -> None:
    """Settle every decision still waiting for `team` by its default."""
    s = ctx.state
    for b in sorted(s.battles.values(), key=lambda b: int(b.id)):
        if b.status == CONTACT and b.defender == team:
            ctx.public("battle_accepted", battle=b.id, by=team, flagged=flagged, rule="N-START-3, D-NAP-4")
            battles.start(ctx, b)
    for army in sorted(retreats.due(s, team), key=lambda a: str(a.id)):
        retreats.by_default(ctx, army)
    for city in sorted(s.sieges):
        if sequence.terms_due(s.sieges[city].siege) == team:
            sieges.terms_default(ctx, city, team)
