/** Which view draws a room: the squad game (issue 21, S-*) its table, whatever room it is in; a battle room its
 * field; any other room (the Continental War, the Napoleonic campaign, the drill) the campaign map. The game page
 * and the replay page both choose by this. */
export type ViewKind = "skirmish" | "battle" | "campaign";

export function viewKind(battleRoom: boolean, state: Record<string, unknown>): ViewKind {
  return state.kind === "skirmish" ? "skirmish" : battleRoom ? "battle" : "campaign";
}
