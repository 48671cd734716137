/** A sample battle for `/#preview=battle` until the battle room serves real ones (design work, screenshots).
 * Deterministic: no randomness. */

function sheet(cols: number, rows: number, f: (x: number, y: number) => string): string[] {
  return Array.from({ length: rows }, (_, y) => Array.from({ length: cols }, (_, x) => f(x, y)).join(""));
}

export function sampleBattle(): Record<string, unknown> {
  const n = 70;
  const terrain = sheet(n, n, (x, y) => {
    const rx = 34 + Math.round(6 * Math.sin(y / 9));
    if ((x === rx || x === rx + 1) && !(y > 30 && y < 34) && !(y > 52 && y < 55)) return "~";
    if (y > 30 && y < 34 && (x === rx || x === rx + 1)) return "=";
    if (x === 20 || (y === 32 && x > 20)) return "r";
    if ((x - 12) ** 2 + (y - 14) ** 2 < 40) return "f";
    if ((x - 55) ** 2 + (y - 50) ** 2 < 30) return "F";
    if ((x - 48) ** 2 + (y - 24) ** 2 < 12) return "v";
    return ".";
  });
  const elevation = sheet(n, n, (x, y) => {
    const d = Math.hypot(x - 26, y - 45);
    const d2 = Math.hypot(x - 50, y - 15);
    return String(d < 5 ? 2 : d < 9 ? 1 : d2 < 6 ? 1 : 0);
  });
  return {
    map: { width: n, height: n, legend: { ".": "open", "~": "river", "=": "bridge", r: "road", f: "light_forest", F: "dense_forest", v: "settlement" }, terrain, elevation },
    turn: 5, phase: "movement", active: ["red"], spectators: 3,
    units: [
      { id: "r-i1", name: "1st Grenadiers", side: "red", type: "infantry", formation: "line", facing: "N", anchor: [22, 42], morale: 4, loss_tolerance: 6, movement_left: 3 },
      { id: "r-i2", name: "2nd Line", side: "red", type: "infantry", formation: "attack_column", facing: "N", anchor: [32, 44], morale: 3, loss_tolerance: 5, movement_left: 4 },
      { id: "r-i3", name: "3rd Light", side: "red", type: "infantry", formation: "square", facing: "NE", anchor: [14, 40], morale: 3, loss_tolerance: 4 },
      { id: "r-c1", name: "Cuirassiers", side: "red", type: "heavy_cavalry", formation: "attack_column", facing: "NE", anchor: [10, 48], morale: 4, loss_tolerance: 5, movement_left: 8 },
      { id: "r-a1", name: "Foot battery", side: "red", type: "foot_artillery", formation: "deployed", facing: "N", anchor: [25, 46], guns: 4, loss_tolerance: 4, range: 25 },
      { id: "b-i1", name: "Jägers", side: "blue", type: "infantry", formation: "line", facing: "S", anchor: [28, 24], morale: 3, loss_tolerance: 6 },
      { id: "b-i2", name: "Musketeers", side: "blue", type: "infantry", formation: "march_column", facing: "SW", anchor: [44, 20], morale: 3, loss_tolerance: 5 },
      { id: "b-c1", name: "Hussars", side: "blue", type: "light_cavalry", formation: "attack_column", facing: "S", anchor: [52, 28], morale: 4, loss_tolerance: 4 },
      { id: "b-a1", name: "Horse battery", side: "blue", type: "horse_artillery", formation: "limbered", facing: "S", anchor: [40, 14], guns: 4, loss_tolerance: 3 },
    ],
    reinforcements: [{ id: "b-r1", name: "Reserve brigade", side: "blue", type: "infantry", eta: "rolls 1/3 from turn 6" }],
  };
}
