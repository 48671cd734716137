/** Team colours (red, blue, green, black; C-1.2) and terrain fills shared by both canvases. */
export const TEAM_COLOURS: Record<string, { fill: string; ink: string; light: string }> = {
  red: { fill: "#b3261e", ink: "#fff", light: "rgba(179,38,30,0.10)" },
  blue: { fill: "#1f4e9c", ink: "#fff", light: "rgba(31,78,156,0.10)" },
  green: { fill: "#2e7d32", ink: "#fff", light: "rgba(46,125,50,0.12)" },
  black: { fill: "#222", ink: "#fff", light: "rgba(0,0,0,0.14)" },
};

export function teamColour(team: string | null | undefined): { fill: string; ink: string; light: string } {
  if (!team) return { fill: "#777", ink: "#fff", light: "rgba(120,120,120,0.12)" };
  const key = team.toLowerCase();
  return TEAM_COLOURS[key] ?? TEAM_COLOURS[{ r: "red", b: "blue", g: "green", k: "black" }[key[0]!] ?? ""] ?? { fill: "#6a4c93", ink: "#fff", light: "rgba(106,76,147,0.14)" };
}

export const TERRAIN_FILL: Record<string, string> = {
  plain: "#e9e4c9", open: "#e9e4c9", steppe: "#eee6bb", road: "#c9ad7f", bridge: "#8a6a3b", crossing: "#8a6a3b", ford: "#b7cde0",
  forest: "#9fbf8a", light_forest: "#b7d19f", dense_forest: "#7fa56b", woods: "#9fbf8a",
  hills: "#d6c39a", hill: "#d6c39a", mountains: "#b09a7a", mountain: "#b09a7a",
  marsh: "#b9cdb5", swamp: "#b9cdb5", desert: "#efe0ae",
  sea: "#9cc3e0", water: "#9cc3e0", lake: "#9cc3e0", river: "#9cc3e0",
  settlement: "#cdb8a6", town: "#cdb8a6", village: "#cdb8a6",
  // a siege storm's ground (server/siege/rules.py)
  wall: "#6d645a", fort: "#4f463e", ditch: "#8c7a5c", breach: "#c98f5a", parallel: "#b3a27a",
};
