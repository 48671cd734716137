/** Team colours (red, blue, green, black; C-1.2) and terrain fills shared by both canvases. The colours are picked
 * to stay apart under the common colour-vision deficiencies (a unit test simulates them), and every team also has a
 * shape of its own — drawn on its counters, beside its name and on its clock — so that colour is never the only
 * mark. */
export interface TeamColour {
  fill: string;
  ink: string;
  light: string;
  /** the team's shape: a glyph for text, a name for the canvases */
  glyph: string;
  shape: "square" | "circle" | "triangle" | "diamond" | "star";
}

export const TEAM_COLOURS: Record<string, TeamColour> = {
  red: { fill: "#c0331a", ink: "#fff", light: "rgba(192,51,26,0.10)", glyph: "■", shape: "square" },
  blue: { fill: "#1f4e9c", ink: "#fff", light: "rgba(31,78,156,0.10)", glyph: "●", shape: "circle" },
  green: { fill: "#0f8a68", ink: "#fff", light: "rgba(15,138,104,0.12)", glyph: "▲", shape: "triangle" },
  black: { fill: "#222222", ink: "#fff", light: "rgba(0,0,0,0.14)", glyph: "◆", shape: "diamond" },
};

const OTHER: TeamColour = { fill: "#6a4c93", ink: "#fff", light: "rgba(106,76,147,0.14)", glyph: "★", shape: "star" };
const NEUTRAL: TeamColour = { fill: "#777", ink: "#fff", light: "rgba(120,120,120,0.12)", glyph: "○", shape: "circle" };

export function teamColour(team: string | null | undefined): TeamColour {
  if (!team) return NEUTRAL;
  const key = team.toLowerCase();
  return TEAM_COLOURS[key] ?? TEAM_COLOURS[{ r: "red", b: "blue", g: "green", k: "black" }[key[0]!] ?? ""] ?? OTHER;
}

/** The team's mark in text: its shape in its colour, named for screen readers. */
export function teamMark(team: string | null | undefined, label = ""): HTMLElement {
  const c = teamColour(team);
  const el = document.createElement("span");
  el.className = "team-mark";
  el.style.color = c.fill;
  el.textContent = c.glyph;
  if (label) el.setAttribute("aria-label", label);
  else el.setAttribute("aria-hidden", "true");
  return el;
}

/** The team's shape on a canvas, centred at (x, y), `r` its radius. */
export function drawTeamShape(ctx: CanvasRenderingContext2D, team: string, x: number, y: number, r: number): void {
  const c = teamColour(team);
  ctx.save();
  ctx.fillStyle = c.fill;
  ctx.strokeStyle = "#fff";
  ctx.lineWidth = Math.max(1, r * 0.35);
  ctx.beginPath();
  if (c.shape === "square") ctx.rect(x - r, y - r, 2 * r, 2 * r);
  else if (c.shape === "circle") ctx.arc(x, y, r, 0, Math.PI * 2);
  else if (c.shape === "triangle") { ctx.moveTo(x, y - r * 1.15); ctx.lineTo(x + r * 1.1, y + r * 0.85); ctx.lineTo(x - r * 1.1, y + r * 0.85); ctx.closePath(); }
  else if (c.shape === "diamond") { ctx.moveTo(x, y - r * 1.2); ctx.lineTo(x + r * 1.2, y); ctx.lineTo(x, y + r * 1.2); ctx.lineTo(x - r * 1.2, y); ctx.closePath(); }
  else for (let i = 0; i < 10; i++) { const a = (i * Math.PI) / 5 - Math.PI / 2; const k = i % 2 ? r * 0.5 : r * 1.2; ctx[i ? "lineTo" : "moveTo"](x + Math.cos(a) * k, y + Math.sin(a) * k); }
  ctx.stroke();
  ctx.fill();
  ctx.restore();
}

export const TERRAIN_FILL: Record<string, string> = {
  plain: "#e9e4c9", open: "#e9e4c9", steppe: "#eee6bb", road: "#c9ad7f", bridge: "#8a6a3b", crossing: "#8a6a3b", ford: "#b7cde0",
  forest: "#9fbf8a", light_forest: "#b7d19f", dense_forest: "#7fa56b", woods: "#9fbf8a",
  hills: "#d6c39a", hill: "#d6c39a", mountains: "#b09a7a", mountain: "#b09a7a",
  marsh: "#b9cdb5", swamp: "#b9cdb5", desert: "#efe0ae",
  sea: "#9cc3e0", water: "#9cc3e0", lake: "#9cc3e0", river: "#9cc3e0",
  settlement: "#cdb8a6", town: "#cdb8a6", village: "#cdb8a6",
  // a siege storm's ground (server/napoleonic/siege/rules.py)
  wall: "#6d645a", fort: "#4f463e", ditch: "#8c7a5c", breach: "#c98f5a", parallel: "#b3a27a",
};
