"""Hand-to-hand (S-4 phase 3, D-S-11).

Figures in action next to an enemy figure in action fight. They are paired off (the most pairs the contacts allow,
found the same way every time); every figure left over joins the pair of an enemy next to it, +1 to its side
there. Each pair rolls a d6 a side: +1 with a submachine gun or pistol, +1 for a commander, +1 for the figure that
moved into contact this turn, +1 for each extra; the lower goes down; a tie rolls again. All pairs are settled from
the table as the phase begins, then the losers go down.

A vehicle next to enemy infantry is knocked out on a 6 by each enemy figure next to it that is not fighting a pair
(grenades); infantry never harms it otherwise.
"""

from __future__ import annotations

from .hits import hit, put_out
from .log import Log
from .state import IN_ACTION, Figure, SkirmishState
from .table import footprints_touch


def _pairs(fighters: list[Figure], enemies_of: dict[str, list[str]]) -> dict[str, str]:
    """A maximum matching of the contact graph (Kuhn's augmenting paths, in a fixed order)."""
    match: dict[str, str] = {}

    def augment(a: str, seen: set[str]) -> bool:
        for b in enemies_of[a]:
            if b in seen:
                continue
            seen.add(b)
            if b not in match or augment(match[b], seen):
                match[b] = a
                match[a] = b
                return True
        return False

    first = fighters[0].side if fighters else ""
    for f in fighters:
        if f.side == first and f.id not in match:
            augment(f.id, set())
    return match


def hand_to_hand(s: SkirmishState, log: Log) -> None:
    infantry = sorted((f for f in s.figures.values() if f.status == IN_ACTION and not f.vehicle),
                      key=lambda f: f.index)
    enemies_of = {f.id: [g.id for g in infantry if g.side != f.side and footprints_touch(f.cells(), g.cells())]
                  for f in infantry}
    fighters = [f for f in infantry if enemies_of[f.id]]
    tanks = [f for f in s.figures.values() if f.vehicle and f.status == IN_ACTION]
    if not fighters and not any(_grenadiers(s, t, set()) for t in tanks):
        return
    log.emit("hand_to_hand", None, turn=s.turn, fighters=len(fighters), rule="D-S-11")
    match = _pairs(fighters, enemies_of)
    pairs = sorted({(a, b) if s.figures[a].index < s.figures[b].index else (b, a) for a, b in match.items()},
                   key=lambda p: s.figures[p[0]].index)
    extras: dict[str, int] = {}
    for f in fighters:
        if f.id in match:
            continue
        partner = next((e for e in enemies_of[f.id] if e in match), None)
        if partner is not None:
            extras[partner] = extras.get(partner, 0) + 1  # counted against `partner`, for f's side
            log.emit("joins_fight", log.audience([f.id, partner]), figure=f.id, against=partner, rule="D-S-11")
    losers: list[Figure] = []
    for a, b in pairs:
        fa, fb = s.figures[a], s.figures[b]
        ma, mb = _mods(s, fa) + extras.get(b, 0), _mods(s, fb) + extras.get(a, 0)
        aud = log.audience([a, b])
        for _ in range(s.settings.melee_max_rolls):
            ra = log.die("hand_to_hand", side=fa.side, figure=a, unit=fa.unit, audience=aud, against=b, bonus=ma)
            rb = log.die("hand_to_hand", side=fb.side, figure=b, unit=fb.unit, audience=aud, against=a, bonus=mb)
            if ra + ma != rb + mb:
                losers.append(fb if ra + ma > rb + mb else fa)
                break
    grenades = {t.id: _grenadiers(s, t, set(match)) for t in tanks}
    for loser in losers:
        hit(s, log, loser, "hand-to-hand", "D-S-11")
    for t in tanks:
        for g in grenades[t.id]:
            face = log.die("grenade", side=g.side, figure=g.id, unit=g.unit, audience=log.audience([g.id, t.id]),
                           target=t.id, need=s.settings.grenade_need)
            if face >= s.settings.grenade_need and t.status == IN_ACTION:
                put_out(s, log, t, "grenades", "D-S-11")


def _mods(s: SkirmishState, f: Figure) -> int:
    st = s.settings
    weapon = st.weapons.get(f.weapon) if f.weapon else None
    return ((st.melee_close_weapon if weapon is not None and weapon.close_combat else 0)
            + (st.melee_commander if f.role == "commander" else 0) + (st.melee_contact if f.contact else 0))


def _grenadiers(s: SkirmishState, tank: Figure, fighting: set[str]) -> list[Figure]:
    return sorted((f for f in s.figures.values() if f.status == IN_ACTION and not f.vehicle and f.side != tank.side
                   and f.id not in fighting and footprints_touch(f.cells(), tank.cells())), key=lambda f: f.index)
