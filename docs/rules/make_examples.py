"""Regenerate the rulebook's worked examples and its ID index from the engines.

    python docs/rules/make_examples.py           # rewrite the examples and docs/rules/ids.json
    python docs/rules/make_examples.py --check   # exit 1 (and say where) if anything would change

Each example plays a small fixed scenario with a fixed seed through the real engine (its public `setup` / `apply` /
`end_turn`, driven by the tests' own builders) and writes what happened — every number taken from the engine's
events — between the markers `<!-- example:NAME -->` and `<!-- /example:NAME -->` of the chapters in docs/rules/en
and docs/rules/ru. Nothing here decides a rule: when an engine changes, regenerate and read the diff.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
LANGS = ("en", "ru")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MARKER = re.compile(r"(<!-- example:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /example:(?P=name) -->)", re.S)
HEADING = re.compile(r"^#{1,6} (?P<id>(?:CLK|[CNSD])-\S+) — \S")


@dataclass(frozen=True)
class Example:
    en: str
    ru: str


# --- formatting ----------------------------------------------------------------------------------------------------

FRACTIONS = {0.25: "¼", 0.5: "½", 0.75: "¾"}


def num(x: float, lang: str) -> str:
    """A number as the rulebook writes it: 0.35 in English, 0,35 in Russian; whole numbers without a point."""
    x = round(float(x), 4)
    text = f"{x:.4f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang == "ru" else text


def frac(x: float, lang: str) -> str:
    """Losses of musket fire: ¼, ½, ¾ as the rules write them, else as `num`."""
    return FRACTIONS.get(round(float(x), 4)) or num(x, lang)


def plural_ru(n: float, one: str, few: str, many: str) -> str:
    """Russian noun after a number: 1 очко, 2 очка, 5 очков (fractions take `few`)."""
    if n != int(n):
        return few
    k = int(n)
    if k % 10 == 1 and k % 100 != 11:
        return one
    return few if k % 10 in (2, 3, 4) and k % 100 not in (12, 13, 14) else many


def units_ru(n: int) -> str:
    """"n единиц(а/ы)" — loss units and points of loss tolerance."""
    return f"{n} {plural_ru(n, 'единица', 'единицы', 'единиц')}"


def signed(n: int) -> str:
    return f"{n:+d}".replace("-", "−")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def lead(lang: str, seed: int) -> str:
    if lang == "en":
        return f"**Worked example, computed by the engine** (seed {seed}; `python docs/rules/make_examples.py`)."
    return f"**Пример, рассчитанный сервером** (начальное число {seed}; `python docs/rules/make_examples.py`)."


def wrap(part: str) -> str:
    """A paragraph or a list wrapped at 120 columns as the hand-written text is (never inside an ID such as
    D-N-13); tables stay as they are."""
    def fill(text: str, indent: str = "") -> str:
        return textwrap.fill(text, 120, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)

    if part.startswith("|"):
        return part
    if part.startswith("- "):
        return "\n".join(fill(item, "  ") for item in part.split("\n"))
    return fill(part)


def block(lang: str, seed: int, *parts: str) -> str:
    return "\n\n".join(wrap(p) for p in [lead(lang, seed), *parts]) + "\n"


def data(events: Iterable[Any], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


# --- the field battle ----------------------------------------------------------------------------------------------

def _battle() -> Any:
    from tests.napoleonic.battle import helpers

    return helpers


def musketry() -> Example:
    """N-FIRE-2, N-FIRE-3, D-N-8: a line against an attack column at 5 cells, two turns."""
    h = _battle()
    seed = 3
    s = h.battle([h.unit("r1", "infantry", 30, 50, formation="line")],
                 [h.unit("b1", "infantry", 31, 45, facing="S", formation="attack_column")], seed=seed)
    rows: dict[str, list[list[str]]] = {"en": [], "ru": []}
    carried: dict[tuple[str, str], float] = {}
    for _ in range(2):
        turn = s.turn
        s, ev = h.run_turn(s)
        for f in data(ev, "fire"):
            if f["weapon"] != "musket":
                continue
            share = 0.5 if f["distance"] <= 3 else 0.25
            before = carried.get((f["unit"], f["target"]), 0.0)
            carried[(f["unit"], f["target"])] = f["carried"]
            for lang in LANGS:
                sums = f"{frac(share, lang)} × {f['firepower']} = {frac(share * f['firepower'], lang)}"
                if before:
                    sums += (f" + {frac(before, lang)} " + ("carried" if lang == "en" else "перенесено")
                             + f" = {frac(share * f['firepower'] + before, lang)}")
                rows[lang].append([str(turn), f["unit"], f["target"], str(f["distance"]), sums, str(f["losses"]),
                                   frac(f["carried"], lang), str(s.units[f["target"]].loss_tolerance)])
    en = block("en", seed,
               "A red regiment in line (r1: firepower 2 + 2 = 4) and a blue regiment in attack column (b1: firepower "
               "2) stand 5 cells apart, facing each other on open ground; neither moves. At 4 cells or more a "
               "regiment inflicts a quarter of its firepower (N-FIRE-2); the column's half a loss is carried to the "
               "next turn (D-N-8).",
               table(["turn", "shooter", "target", "distance", "¼ or ½ of firepower", "losses", "carried",
                      "target's loss tolerance left"], rows["en"]))
    ru = block("ru", seed,
               "Красный полк в линии (r1: огневая мощь 2 + 2 = 4) и синий полк в колонне к атаке (b1: огневая мощь 2) "
               "стоят в 5 клетках друг против друга на открытом месте и не двигаются. На 4 клетках и дальше полк "
               "наносит четверть своей огневой мощи (N-FIRE-2); половина единицы потерь от колонны переносится на "
               "следующий ход (D-N-8).",
               table(["ход", "стреляет", "цель", "дистанция", "¼ или ½ огневой мощи", "потери", "перенесено",
                      "осталось устойчивости у цели"], rows["ru"]))
    return Example(en, ru)


def canister() -> Example:
    """N-ART-6, D-N-7: canister hits every enemy in the zone in full, by the guns in action."""
    h = _battle()
    seed = 3
    s = h.battle([h.unit("a1", "foot_artillery", 30, 50)],
                 [h.unit("b1", "infantry", 30, 46, facing="S", formation="march_column"),
                  h.unit("b2", "infantry", 34, 45, facing="S", formation="march_column")], seed=seed)
    guns = s.units["a1"].guns
    s, ev = h.run_turn(s)
    left = {d["unit"]: d["left"] for d in data(ev, "losses")}
    shots = [f for f in data(ev, "fire") if f["weapon"] == "canister"]
    rows = [[f["target"], str(f["distance"]), str(f["losses"]), str(left[f["target"]])] for f in shots]
    en = block("en", seed,
               f"A red foot battery (a1, deployed, {guns} guns in action) faces two blue regiments in march column "
               "(b1, b2), both within 5 cells and in its zone. No order and no die: canister hits each of them in "
               "full, as many losses as the company has guns in action (N-ART-6, D-N-7).",
               table(["target", "distance", "losses", "loss tolerance left"], rows))
    ru = block("ru", seed,
               f"Красная рота пешей артиллерии (a1, в боевом положении, {guns} орудия в строю) против двух синих "
               "полков в походной колонне (b1, b2): оба в пределах 5 клеток и в её зоне огня. Ни приказа, ни "
               "кубика: картечь поражает каждого в полную силу — столько единиц потерь, сколько у роты орудий в "
               "строю (N-ART-6, D-N-7).",
               table(["цель", "дистанция", "потери", "осталось устойчивости"], rows))
    return Example(en, ru)


def round_shot() -> Example:
    """N-ART-7, N-HIT-1, N-HIT-2, D-N-7: one named target, a roll on the foot artillery's table."""
    h = _battle()
    seed = 3
    s = h.battle([h.unit("a1", "foot_artillery", 30, 50)],
                 [h.unit("b1", "infantry", 31, 38, facing="S", formation="attack_column")], seed=seed)
    guns = s.units["a1"].guns
    s, _ = h.order(s, {"type": "targets", "unit": "a1", "targets": [{"unit": "b1", "guns": guns}]})
    s, ev = h.run_turn(s)
    (roll,) = [r for r in data(ev, "roll") if r["purpose"] == "round_shot"]
    (shot,) = [f for f in data(ev, "fire") if f["weapon"] == "round_shot"]
    left = {d["unit"]: d["left"] for d in data(ev, "losses")}.get("b1", s.units["b1"].loss_tolerance)
    hit_en = f"a hit, {shot['losses']} losses" if shot["hit"] else "a miss, no loss"
    hit_ru = f"попадание, {units_ru(shot['losses'])} потерь" if shot["hit"] else "промах, потерь нет"
    en = block("en", seed,
               f"A red foot battery (a1, accuracy {roll['accuracy']}, {guns} guns in action) names a blue regiment in "
               f"attack column (b1) as its round-shot target; b1 stands {roll['distance']} cells away, in the zone "
               "and in sight.",
               f"- Hit chance (N-HIT-2): accuracy {roll['accuracy']}, {roll['distance']} cells → {roll['need']}/6: "
               f"a hit on a roll of {roll['need']} or less (D-GEN-1).\n"
               f"- The die shows {roll['face']}: {hit_en} — a company with 3–4 guns in action does 2 (N-ART-7, "
               f"D-N-7).\n"
               f"- b1 has {left} loss tolerance left.")
    ru = block("ru", seed,
               f"Красная рота пешей артиллерии (a1, точность {roll['accuracy']}, {guns} орудия в строю) указывает "
               f"целью для ядер синий полк в колонне к атаке (b1); b1 в {roll['distance']} клетках, в зоне огня "
               "и в прямой видимости.",
               f"- Вероятность попадания (N-HIT-2): точность {roll['accuracy']}, {roll['distance']} клеток → "
               f"{roll['need']}/6: попадание, если выпало {roll['need']} или меньше (D-GEN-1).\n"
               f"- Выпало {roll['face']}: {hit_ru} — рота с 3–4 орудиями в строю наносит 2 (N-ART-7, D-N-7).\n"
               f"- У b1 осталось {units_ru(left)} устойчивости.")
    return Example(en, ru)


REASONS = {
    "half its loss tolerance left": "осталась половина устойчивости",
    "one point of loss tolerance left": "осталась 1 единица устойчивости",
    "two more turns in melee": "ещё два хода в ближнем бою",
    "attacked in the flank": "атакован с фланга",
    "attacked in the rear": "атакован с тыла",
    "attacks the enemy's flank": "атакует врага во фланг",
    "attacks the enemy's rear": "атакует врага с тыла",
    "infantry attacked by cavalry": "пехота атакована кавалерией",
    "losses three turns in a row": "потери три хода подряд",
    "inflicted losses three turns in a row": "наносит потери три хода подряд",
}


def morale_lines(events: Iterable[Any], lang: str) -> list[str]:
    out = []
    for m in data(events, "morale"):
        reason = m["reason"] if lang == "en" else REASONS.get(m["reason"], m["reason"])
        word = "morale" if lang == "en" else "боевой дух"
        out.append(f"{m['unit']}: {reason}, {signed(m['delta'])} → {word} {m['morale']} ({m['rule']})")
    return out


def melee() -> Example:
    """N-MELEE-1, N-MELEE-2, N-MORALE-2, D-N-6: an attack column into the front of a line, two rounds."""
    h = _battle()
    seed = 3
    s = h.battle([h.unit("r1", "infantry", 30, 50, formation="attack_column")],
                 [h.unit("b1", "infantry", 35, 46, facing="S", formation="line")], seed=seed)
    s, ev = h.order(s, {"type": "move", "unit": "r1", "path": [[30, 49], [30, 48], [30, 47]]})
    (contact,) = data(ev, "contact")
    rows: dict[str, list[list[str]]] = {"en": [], "ru": []}
    notes: dict[str, list[str]] = {"en": [], "ru": []}
    for _ in range(2):
        s, ev = h.run_turn(s)
        left = {d["unit"]: d["left"] for d in data(ev, "losses")}
        for m in data(ev, "melee"):
            for lang in LANGS:
                diff = abs(m["values"][0] - m["values"][1])
                rows[lang].append([str(m["round"]), f"{m['a']} {m['values'][0]} : {m['b']} {m['values'][1]}",
                                   str(diff), f"{m['a']} −{m['losses'][0]}, {m['b']} −{m['losses'][1]}",
                                   f"{m['a']} {left.get(m['a'], '—')}, {m['b']} {left.get(m['b'], '—')}"])
        for lang in LANGS:
            notes[lang] += morale_lines(ev, lang)
    en = block("en", seed,
               f"A red regiment in attack column (r1: melee 2 + 2 = 4) marches 3 cells into the front of a blue "
               f"regiment in line (b1: melee 2). The move stops at the first touch: contact, sector "
               f"“{contact['sector']}” (D-N-6, D-N-5). Units in melee do not fire at each other; each turn's "
               "resolution fights one round (N-MELEE-1).",
               table(["round", "melee values", "difference", "losses", "loss tolerance left"], rows["en"]),
               "Morale: " + "; ".join(notes["en"]) + ".")
    ru = block("ru", seed,
               f"Красный полк в колонне к атаке (r1: ближний бой 2 + 2 = 4) проходит 3 клетки и упирается во фронт "
               f"синего полка в линии (b1: ближний бой 2). Передвижение останавливается на первом касании: "
               f"соприкосновение, сектор «{'фронт' if contact['sector'] == 'front' else contact['sector']}» "
               "(D-N-6, D-N-5). Отряды в ближнем бою друг по другу не стреляют; каждое разрешение хода — один круг "
               "ближнего боя (N-MELEE-1).",
               table(["круг", "показатели", "разница", "потери", "осталось устойчивости"], rows["ru"]),
               "Боевой дух: " + "; ".join(notes["ru"]) + ".")
    return Example(en, ru)


def morale() -> Example:
    """N-MORALE-2, N-MORALE-5, D-N-9: a shaken regiment reaches morale 2 and rolls for dispersal."""
    h = _battle()
    seed = 13
    s = h.battle([h.unit("a1", "foot_artillery", 30, 50)],
                 [h.unit("b1", "infantry", 30, 46, facing="S", formation="march_column", morale=3,
                         loss_tolerance=6)], seed=seed)
    full = s.units["b1"].type.loss_tolerance
    s, ev = h.run_turn(s)
    (loss,) = data(ev, "losses")
    (roll,) = [r for r in data(ev, "roll") if r["purpose"] == "dispersal"]
    fallen = data(ev, "fallen")
    outcome_en = ("it is dispersed and, not being in contact (N-MORALE-8), leaves the field" if fallen
                  else "it holds; the next roll comes if its morale comes down to 1")
    outcome_ru = ("он рассеян и, не будучи в контакте (N-MORALE-8), уходит с поля" if fallen
                  else "он держится; следующий бросок — если боевой дух опустится до 1")
    en = block("en", seed,
               f"A blue regiment in march column comes out of the campaign shaken: morale 3, loss tolerance 6 of "
               f"{full} (N-MORALE-1). It stands 4 cells in front of a red foot battery.",
               f"- Canister: {loss['amount']} losses → loss tolerance {loss['left']}.\n"
               f"- {morale_lines(ev, 'en')[0]}: half of {full} is {full // 2}, and {loss['left']} is no more.\n"
               f"- Morale has come down to {roll['morale']}: a dispersal roll at {roll['need']}/6 (N-MORALE-5, "
               f"D-N-9). The die shows {roll['face']}: {outcome_en}.")
    ru = block("ru", seed,
               f"Синий полк в походной колонне вышел из кампании потрёпанным: боевой дух 3, устойчивость 6 из {full} "
               f"(N-MORALE-1). Он стоит в 4 клетках перед красной ротой пешей артиллерии.",
               f"- Картечь: {units_ru(loss['amount'])} потерь → устойчивость {loss['left']}.\n"
               f"- {morale_lines(ev, 'ru')[0]}: половина от {full} — {full // 2}, а {loss['left']} не больше.\n"
               f"- Боевой дух опустился до {roll['morale']}: бросок на рассеивание с вероятностью {roll['need']}/6 "
               f"(N-MORALE-5, D-N-9). Выпало {roll['face']}: {outcome_ru}.")
    return Example(en, ru)


def charge() -> Example:
    """N-CHARGE-1, N-CHARGE-2, D-N-17, N-MORALE-2/3: heavy cavalry charges a line from the front."""
    h = _battle()
    seed = 3
    s = h.battle([h.unit("r1", "infantry", 30, 50, formation="line")],
                 [h.unit("c1", "heavy_cavalry", 34, 40, facing="S")], seed=seed)
    path = [[34, 40 + i] for i in range(1, 10)]
    s, ev_move = h.order(s, {"type": "charge", "unit": "c1", "path": path})
    s, ev_turn = h.run_turn(s)
    moved = data(ev_move, "moved")[0]
    bonus = data(ev_move, "charge")[0]
    crossing = [f for f in data(ev_move, "fire") if f["weapon"] in ("crossing", "musket")]
    contact = data(ev_move, "contact")
    lines: dict[str, list[str]] = {"en": [], "ru": []}
    lines["en"].append(f"- c1 rides {moved['steps']} cells straight ahead: charge bonus +{bonus['bonus']} "
                       f"(N-CHARGE-1).")
    lines["ru"].append(f"- c1 проходит {moved['steps']} клеток прямо вперёд: натиск +{bonus['bonus']} (N-CHARGE-1).")
    if crossing:
        for f in crossing:
            lines["en"].append(f"- On entering r1's musket zone it takes {f['losses']} losses at once, as from "
                               f"close-range fire ({f['rule']}, D-N-17).")
            lines["ru"].append(f"- Войдя в зону ружейного огня r1, она сразу получает {units_ru(f['losses'])} потерь, "
                               f"как от огня с близкой дистанции ({f['rule']}, D-N-17).")
    else:
        lines["en"].append("- r1 does not fire into the charge.")
        lines["ru"].append("- r1 не стреляет по атакующим.")
    if contact:
        lines["en"].append(f"- Contact with r1, sector “{contact[0]['sector']}”.")
        sector = {"front": "фронт", "flank": "фланг", "rear": "тыл"}.get(contact[0]["sector"], contact[0]["sector"])
        lines["ru"].append(f"- Соприкосновение с r1, сектор «{sector}».")
    for lang in LANGS:
        lines[lang] += [f"- {m}." for m in morale_lines(ev_move, lang)]
    for m in data(ev_turn, "melee"):
        left = {d["unit"]: d["left"] for d in data(ev_turn, "losses")}
        lines["en"].append(f"- Melee, round {m['round']}: {m['a']} {m['values'][0]} against {m['b']} "
                           f"{m['values'][1]} → {m['a']} loses {m['losses'][0]}, {m['b']} {m['losses'][1]} "
                           f"(N-MELEE-1); loss tolerance left: {m['a']} {left.get(m['a'])}, {m['b']} "
                           f"{left.get(m['b'])}.")
        lines["ru"].append(f"- Ближний бой, круг {m['round']}: {m['a']} {m['values'][0]} против {m['b']} "
                           f"{m['values'][1]} → {m['a']} теряет {m['losses'][0]}, {m['b']} — {m['losses'][1]} "
                           f"(N-MELEE-1); осталось устойчивости: {m['a']} {left.get(m['a'])}, {m['b']} "
                           f"{left.get(m['b'])}.")
    for lang in LANGS:
        lines[lang] += [f"- {m}." for m in morale_lines(ev_turn, lang)]
    en = block("en", seed,
               "A blue heavy cavalry regiment in attack column (c1: melee 3 + 1, charge 4) charges a red regiment in "
               "line (r1: firepower 4, melee 2) straight at the middle of its front, from 9 cells away.",
               "\n".join(lines["en"]))
    ru = block("ru", seed,
               "Синий полк тяжёлой кавалерии в колонне к атаке (c1: ближний бой 3 + 1, натиск 4) атакует красный полк "
               "в линии (r1: огневая мощь 4, ближний бой 2) прямо в середину фронта, с 9 клеток.",
               "\n".join(lines["ru"]))
    return Example(en, ru)


# --- the Continental War -------------------------------------------------------------------------------------------

def _campaign() -> Any:
    from tests.continental import helpers

    return helpers


def continental_crt() -> Example:
    """C-9.8, C-9.8b, C-CRT.S1–S8, D-C-3: a tank division strikes a rifle division in hills, level 2."""
    h = _campaign()
    seed = 7
    s = h.start(2, seed=seed)
    td = h.place(s, "red", "TD", (53, 26), facing="E", uid="td")
    rd = h.place(s, "blue", "RD", (54, 26), facing="W", uid="rd")
    label = {"en": {td: "TD", rd: "RD"}, "ru": {td: "т.д.", rd: "с.д."}}
    before = {u: Counter((k, float(v)) for k, v in s.units[u].regiments) for u in (td, rd)}
    s, ev = h.order(s, h.RED, type="attack", target=[54, 26], echelons=[[td]])
    (battle,) = data(ev, "battle")
    (r,) = battle["rounds"]
    mult = r["k2"] / r["initial"]["defender"]
    weak = "defender" if r["defender_loss"] > r["attacker_loss"] else "attacker"
    lost = {u: sorted((before[u] - Counter((k, float(v)) for k, v in s.units[u].regiments)).elements(),
                      key=lambda reg: -reg[1]) for u in (td, rd)}

    def regs(u: str, lang: str) -> str:
        names = {"rifle": ("rifle", "стрелковый"), "artillery": ("artillery", "артиллерийский"),
                 "artillery_motor": ("motorized artillery", "артиллерийский (мот.)"), "tank": ("tank", "танковый"),
                 "motor": ("motorized", "мотострелковый")}
        i = 0 if lang == "en" else 1
        parts = " + ".join(f"{names.get(k, (k, k))[i]} {num(v, lang)}" for k, v in lost[u]) or "—"
        rating = num(s.units[u].rating, lang)
        return f"{parts}; rating {rating}" if lang == "en" else f"{parts}; рейтинг {rating}"

    def steps(lang: str) -> str:
        en = lang == "en"
        k1, k2, p1, p2 = ("K1", "K2", "P1", "P2") if en else ("К1", "К2", "Р1", "Р2")
        ratio = r["k1"] / r["k2"]
        losses = (r["attacker_loss"], r["defender_loss"])
        weak_loss, strong_loss = max(losses), min(losses)
        who = label[lang]
        rows = [
            ["S1", ("initial ratings" if en else "исходные рейтинги"),
             f"{num(r['initial']['attacker'], lang)} : {num(r['initial']['defender'], lang)}"],
            ["S2", ("effective: hills × " if en else "эффективные: холмы × ") + num(mult, lang),
             f"{k1} = {num(r['k1'], lang)}, {k2} = {num(r['initial']['defender'], lang)} × {num(mult, lang)} = "
             f"{num(r['k2'], lang)}"],
            ["S3", ("ratio, rounded half up to 0.1" if en else "соотношение, до 0,1"),
             f"{num(r['k1'], lang)} : {num(r['k2'], lang)} = {num(round(ratio, 3), lang)} → {num(r['ratio'], lang)}"],
            ["S4", ("weaker side: the " + weak if en else "слабейшая сторона: " +
                    ("обороняющийся" if weak == "defender" else "наступающий")),
             f"{p1} = {num(r['p1'], lang)}: {num(min(r['k1'], r['k2']), lang)} × {num(r['p1'], lang)} = "
             f"{num(weak_loss, lang)}"],
            ["S5", ("stronger side" if en else "сильнейшая сторона"),
             f"{p2} = {num(r['p2'], lang)}: {num(weak_loss, lang)} × {num(r['p2'], lang)} = {num(strong_loss, lang)}"],
            ["S6–S7", ("simple ratings, to tenths" if en else "простые рейтинги, до десятых"),
             f"{who[rd]}: {num(r['defender_loss'], lang)} / {num(mult, lang)} → {num(r['losses'][rd], lang)}; "
             f"{who[td]}: {num(r['attacker_loss'], lang)} → {num(r['losses'][td], lang)}"],
            ["D-C-3", ("whole regiments go (level 2)" if en else "снимаются целые полки (2 уровень)"),
             f"{who[rd]}: {regs(rd, lang)}. {who[td]}: {regs(td, lang)}"],
        ]
        return table(["step" if en else "шаг", "what" if en else "что", "numbers" if en else "числа"], rows)

    forms = {"regular": "правильный бой", "flank": "фланговый удар", "reversed_front": "бой с перевёрнутым фронтом",
             "combined": "комбинированный удар", "encirclement": "бой в окружении", "fortress": "бой в крепости",
             "settlement": "бой в населённом пункте", "river": "форсирование реки", "pass": "форсирование перевала"}
    en = block("en", seed,
               "Level 2. A red tank division (rating 2) in 53-26, facing east, strikes a blue rifle division (rating "
               "1) in 54-26, in hills, facing west — a frontal strike (C-9.8). The blue division accepts battle.",
               steps("en"),
               f"The battle report calls it “{', '.join(f.replace('_', ' ') for f in battle['form'])}”. No echelon "
               "is left to enter, and the attacker has used its turn.")
    ru = block("ru", seed,
               "Второй уровень. Красная танковая дивизия (рейтинг 2) в 53-26, фронтом на восток, наносит удар по синей "
               "стрелковой дивизии (рейтинг 1) в 54-26, в холмах, фронтом на запад, — удар фронтом по фронту "
               "(C-9.8). Синяя дивизия принимает бой.",
               steps("ru"),
               f"В отчёте о бое его вид — «{', '.join(forms.get(f, f) for f in battle['form'])}». Вступать "
               "больше некому, и наступающий израсходовал свой ход.")
    return Example(en, ru)


def continental_strike() -> Example:
    """C-9.7a, C-T11, D-C-5: an artillery division's strike at level 2, hills, offsets 10 and 20 km."""
    h = _campaign()
    seed = 7
    s = h.start(2, seed=seed)
    ad = h.place(s, "red", "AD", (53, 27), facing="E", uid="red AD")
    rd = h.place(s, "blue", "RD", (54, 25), facing="W", uid="blue RD")
    s, ev = h.order(s, h.RED, type="strike", unit=ad, target=[54, 25], mode="destroy")
    (strike,) = data(ev, "artillery_strike")
    (loss,) = data(ev, "losses")
    art = s.tables["artillery"]
    terrain = float(art["terrain_loss"]["hills"])
    effect = strike["fraction"] / terrain
    unit = s.units[rd]
    regiments = len(unit.regiments)
    en = block("en", seed,
               "Level 2. A red artillery division in 53-27 strikes 54-25, where a blue rifle division stands in hills: "
               "offsets 10 km east and 20 km north, 22 km in a straight line (within 30).",
               f"- Terrain (C-9.7a): hills lose {num(terrain, 'en')}.\n"
               f"- Range (Table 11, +10 km and +20 km): {num(effect * 100, 'en')}%.\n"
               f"- Loss fraction (D-C-5): {num(terrain, 'en')} × {num(effect, 'en')} = "
               f"{num(strike['fraction'], 'en')}; the division loses {num(loss['loss'], 'en')} of its rating 1.\n"
               f"- At level 2 whole regiments go: one rifle regiment (0.2), {num(unit.carry, 'en')} carried; "
               f"{regiments} regiments and a rating of {num(loss['rating'], 'en')} remain.")
    ru = block("ru", seed,
               "Второй уровень. Красная артиллерийская дивизия в 53-27 наносит удар по 54-25, где в холмах стоит синяя "
               "стрелковая дивизия: смещения 10 км на восток и 20 км на север, 22 км по прямой (в пределах 30).",
               f"- Местность (C-9.7a): в холмах потери {num(terrain, 'ru')}.\n"
               f"- Дальность (таблица 11, +10 км и +20 км): {num(effect * 100, 'ru')}%.\n"
               f"- Доля потерь (D-C-5): {num(terrain, 'ru')} × {num(effect, 'ru')} = {num(strike['fraction'], 'ru')}; "
               f"дивизия теряет {num(loss['loss'], 'ru')} своего рейтинга 1.\n"
               f"- На втором уровне снимаются целые полки: один стрелковый полк (0,2), {num(unit.carry, 'ru')} "
               f"переносится; остаются {regiments} полка и рейтинг {num(loss['rating'], 'ru')}.")
    return Example(en, ru)


# --- sieges --------------------------------------------------------------------------------------------------------

def siege_ladders() -> Example:
    """N-SIEGE-12, N-SIEGE-13, N-SIEGE-10, D-N-15: a storming column from the trenches onto the wall."""
    from tests.napoleonic.siege import helpers as h

    seed = 5
    s, _ = h.storm([h.u("bc", "infantry", 35, 44, formation="attack_column", facing="N")],
                   [h.u("rg", "infantry", 64, 14)], seed=seed)
    orders: list[Any] = [lambda st: h.north(st, "bc", 5), lambda st: h.north(st, "bc", 5),
                         lambda st: h.north(st, "bc", 3), {"type": "climb", "unit": "bc"},
                         lambda st: h.north(st, "bc", 3)]
    asked = ["5", "5", "3", "climb", "3"]
    rows: dict[str, list[list[str]]] = {"en": [], "ru": []}
    for n, o in zip(asked, orders, strict=True):
        turn = s.battle.turn
        s, ev = h.play_turn(s, {"blue": [o]})
        bc = s.battle.units["bc"]
        notes_en, notes_ru = [], []
        for m in data(ev, "moved"):
            points = "point" if m["spent"] == 1 else "points"
            notes_en.append(f"moves {m['steps']} {'cell' if m['steps'] == 1 else 'cells'} "
                            f"({num(m['spent'], 'en')} {points})")
            cells = plural_ru(m["steps"], "клетку", "клетки", "клеток")
            points_ru = plural_ru(m["spent"], "очко", "очка", "очков")
            notes_ru.append(f"проходит {m['steps']} {cells} ({num(m['spent'], 'ru')} {points_ru})")
        for c in data(ev, "climbed"):
            notes_en.append(f"climbs onto the wall for {c['cost']} points; {num(c['points'], 'en')} left")
            notes_ru.append(f"поднимается на стену за {c['cost']} очка; осталось {num(c['points'], 'ru')}")
        for e in data(ev, "move_ended"):
            if e.get("terrain") == "ditch":
                notes_en.append("enters the ditch: its move ends (N-SIEGE-12)")
                notes_ru.append("входит в ров: движение закончено (N-SIEGE-12)")
            else:
                notes_en.append("reaches the wall: ladders up, its move ends (N-SIEGE-13)")
                notes_ru.append("подходит к стене: лестницы поставлены, движение закончено (N-SIEGE-13)")
        order_en = "climb" if n == "climb" else f"move {n} north"
        order_ru = "подняться" if n == "climb" else f"на {n} к северу"
        rows["en"].append([str(turn), order_en, "; ".join(notes_en), f"row {bc.y}"])
        rows["ru"].append([str(turn), order_ru, "; ".join(notes_ru), f"ряд {bc.y}"])
    en = block("en", seed,
               "A storm of Dresden (map seed 7): a besieging regiment in attack column (speed 4 + 1 = 5) starts at "
               "row 44, between the parallels, and marches north on the main wall at columns 35–38, away from the "
               "fortress guns. The ditch is rows 33–34, the wall rows 30–32.",
               table(["turn", "order", "what happens", "front rank at"], rows["en"]))
    ru = block("ru", seed,
               "Штурм Дрездена (карта с числом 7): полк осаждающего в колонне к атаке (скорость 4 + 1 = 5) начинает в "
               "44-м ряду, между параллелями, и идёт на север, на стену в столбцах 35–38, в стороне от крепостных "
               "орудий. Ров — ряды 33–34, стена — ряды 30–32.",
               table(["ход", "приказ", "что происходит", "передняя шеренга"], rows["ru"]))
    return Example(en, ru)


EXAMPLES: dict[str, Callable[[], Example]] = {
    "continental-crt": continental_crt,
    "continental-strike": continental_strike,
    "battle-musketry": musketry,
    "battle-canister": canister,
    "battle-round-shot": round_shot,
    "battle-charge": charge,
    "battle-melee": melee,
    "battle-morale": morale,
    "siege-ladders": siege_ladders,
}


# --- the files -----------------------------------------------------------------------------------------------------

def chapter_ids(text: str) -> list[str]:
    return [m.group("id") for m in map(HEADING.match, text.splitlines()) if m]


def render() -> dict[Path, str]:
    """The new text of every file this script owns or fills in."""
    built = {name: make() for name, make in EXAMPLES.items()}
    out: dict[Path, str] = {}
    used: set[str] = set()
    index: dict[str, str] = {}
    for lang in LANGS:
        for path in sorted((RULES / lang).glob("*.md")):
            text = path.read_text(encoding="utf-8")

            def fill(m: re.Match[str], lang: str = lang) -> str:
                name = m.group("name")
                if name not in built:
                    raise SystemExit(f"{m.group(0)[:40]}…: no example called {name!r} in make_examples.py")
                used.add(name)
                return m.group(1) + getattr(built[name], lang) + m.group(4)

            out[path] = MARKER.sub(fill, text)
            if lang == "en":
                for rule in chapter_ids(text):
                    index[rule] = path.name
    missing = set(EXAMPLES) - used
    if missing:
        raise SystemExit(f"examples with no marker in any chapter: {sorted(missing)}")
    out[RULES / "ids.json"] = json.dumps(dict(sorted(index.items())), ensure_ascii=False, indent=1) + "\n"
    return out


def stale(new: dict[Path, str]) -> list[str]:
    """A unified diff per file whose text differs from `new`."""
    out = []
    for path, text in new.items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old != text:
            rel = str(path.relative_to(ROOT))
            out.append("".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True), rel, rel, n=1)))
    return out


def main(argv: Sequence[str]) -> int:
    new = render()
    if "--check" in argv:
        diffs = stale(new)
        if diffs:
            print("\n".join(diffs))
            print("docs/rules is stale: run  python docs/rules/make_examples.py", file=sys.stderr)
            return 1
        return 0
    for path, text in new.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
