import { afterEach, describe, expect, it } from "vitest";
import { setLang } from "../i18n";
import { Session } from "../net/session";
import { namesFor } from "./names";

function session(rooms: Record<string, Record<string, unknown>>): Session {
  const s = new Session();
  for (const [room, state] of Object.entries(rooms)) {
    s.onSnapshot({ t: "snapshot", chat: [], away: [], active: [], room, seq: 1, kind: room.startsWith("b-") ? "battle" : "campaign", state, clocks: {}, server_ms: 0 });
  }
  return s;
}

describe("a room's title says what kind of room it is", () => {
  afterEach(() => setLang("en"));

  it("a skirmish is a skirmish, not a campaign (S-1)", () => {
    const s = session({ "c-7": { kind: "skirmish", turn: 1 } });
    expect(namesFor(s, "c-7", "crossroads").room("c-7")).toBe("Skirmish: crossroads");
    expect(namesFor(s, "c-7").room("c-7")).toBe("Skirmish");
    setLang("ru");
    expect(namesFor(s, "c-7", "crossroads").room("c-7")).toBe("Стычка: crossroads");
  });

  it("a campaign is a campaign, in its language", () => {
    const s = session({ "c-3": { map: { size: [4, 4], places: [] }, title: "Continental War: Red against Blue, with neutral Green between them" } });
    expect(namesFor(s, "c-3").room("c-3")).toBe("Campaign: Continental War: Red against Blue, with neutral Green between them");
    setLang("ru");
    expect(namesFor(s, "c-3").room("c-3")).toBe("Кампания: Континентальная война: Красные против Синих, между ними нейтральные Зелёные");
  });

  it("a storm seen from its own room, without its campaign's map, is the storm of its fortress (N-SIEGE-5)", () => {
    const s = session({ "b-3-2": { siege: { fortress: "Dresden", besieger: "red", garrison: "blue" }, units: [] }, "b-3-4": { units: [] } });
    expect(namesFor(s, "b-3-2").room("b-3-2")).toBe("Storm of Dresden");
    expect(namesFor(s, "b-3-4").room("b-3-4")).toBe("Battle 4");
    setLang("ru");
    expect(namesFor(s, "b-3-2").room("b-3-2")).toBe("Штурм Дрездена");
  });
});

describe("a battle's units seen without their army", () => {
  afterEach(() => setLang("en"));

  it("are told by their short name, not by the army's id, when the campaign hides the army (the public view)", () => {
    // the spectators' link and a player in the secret module see the battle, but not the campaign's armies
    const s = session({ "c-9": { armies: [] }, "b-9-1": { units: [{ id: "bulow-1", type: "infantry", side: "red" }] } });
    expect(namesFor(s, "b-9-1").unit("bulow-1")).toBe("1st inf.");
    setLang("ru");
    expect(namesFor(s, "b-9-1").unit("bulow-1")).not.toContain("bulow");
  });

  it("keep their full name when the army is known", () => {
    const s = session({ "c-9": { armies: [{ id: "bulow", name: "III Prussian Corps", units: [{ id: "bulow-1", type: "infantry" }] }] },
      "b-9-1": { units: [{ id: "bulow-1", type: "infantry", side: "red" }] } });
    expect(namesFor(s, "b-9-1").unit("bulow-1")).toBe("1st infantry (III Prussian Corps)");
  });
});
