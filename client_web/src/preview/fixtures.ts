/** Sample states for `/#preview=campaign` and `/#preview=battle`: the canvases drawn from built-in data, without a
 * server (design work, screenshots). Deterministic: no randomness. */

function sheet(cols: number, rows: number, f: (x: number, y: number) => string): string[] {
  return Array.from({ length: rows }, (_, y) => Array.from({ length: cols }, (_, x) => f(x, y)).join(""));
}

export function sampleCampaign(): Record<string, unknown> {
  const cols = 40;
  const rows = 28;
  const terrain = sheet(cols, rows, (x, y) => {
    if (x + y * 0.3 > 43) return "~";
    if ((x - 8) ** 2 + (y - 6) ** 2 < 14) return "F";
    if ((x - 28) ** 2 / 3 + (y - 20) ** 2 < 10) return "F";
    if (x > 14 && x < 19 && y > 18) return "M";
    if ((x - 22) ** 2 + (y - 8) ** 2 < 5) return "H";
    if (x > 3 && x < 8 && y > 17 && y < 22) return "S";
    return ".";
  });
  const owners = sheet(cols, rows, (x, y) => (x + Math.round(Math.sin(y / 3) * 2) < 17 ? "r" : x < 31 - Math.round(y / 6) ? "b" : "g"));
  const river = Array.from({ length: 28 }, (_, y) => [20 + 20 - Math.round(3 * Math.sin(y / 4)) + 0, 10 + y]).map(([x, y]) => [x! - 20 + 2, y]);
  return {
    map: {
      cols, rows, origin: [20, 10], legend: { ".": "plain", F: "forest", M: "mountains", H: "hills", S: "marsh", "~": "sea" },
      owner_legend: { r: "red", b: "blue", g: "green" },
      terrain, owners,
      rivers: [river.map(([x, y]) => [x! + 14, y])],
      roads: [
        [[23, 15], [24, 15], [25, 15], [26, 15], [27, 15], [28, 15], [29, 15], [30, 15], [31, 15], [32, 15], [33, 16], [34, 17], [35, 18], [36, 18], [37, 18], [38, 18], [39, 18], [40, 18], [41, 18], [42, 18]],
        [[32, 15], [32, 16], [32, 17], [32, 18], [32, 19], [32, 20], [32, 21], [32, 22], [32, 23], [32, 24], [32, 25], [32, 26]],
      ],
      railways: [[[23, 24], [26, 24], [29, 24], [32, 24], [35, 25], [38, 25], [41, 26], [44, 27]]],
      cities: [
        { name: "Krasnograd", cell: [23, 15], capital: true, owner: "red" },
        { name: "Belopol", cell: [42, 18], capital: true, owner: "blue" },
        { name: "Zelenets", cell: [53, 12], owner: "green" },
        { name: "Mostki", cell: [32, 20], fortress: true, owner: "red" },
        { name: "Ozersk", cell: [44, 27], owner: "blue" },
      ],
    },
    turn: { number: 7, team: "red" },
    forces: [
      { id: "17RD", name: "17 RD", team: "red", type: "rifle_division", cell: [33, 18], facing: "E", strength: 6, morale: 3, movement_left: 30, composition: ["3 rifle regiments", "1 artillery regiment"] },
      { id: "4TD", name: "4 TD", team: "red", type: "tank_division", cell: [30, 22], facing: "E", strength: 9, morale: 4, movement_left: 60, composition: ["2 tank regiments", "1 motor rifle regiment"] },
      { id: "2CD", name: "2 CD", team: "red", type: "cavalry_division", cell: [29, 14], facing: "NE", strength: 4, morale: 3, movement_left: 40 },
      { id: "1AHQ", name: "1 A", team: "red", type: "army_hq", cell: [25, 17], movement_left: 30 },
      { id: "5AD", name: "5 AD", team: "red", type: "artillery_division", cell: [31, 17], movement_left: 20 },
      { id: "8RD", name: "8 RD", team: "blue", type: "rifle_division", cell: [37, 17], facing: "W", reported: true },
      { id: "11RD", name: "11 RD", team: "blue", type: "rifle_division", cell: [37, 21], facing: "W", reported: true },
    ],
    recon: { questions_left: 11, answers: [{ question: "Troops in 38,19?", answer: "Yes" }, { question: "Arm in 37,21?", answer: "Rifle division" }] },
    house_rules: ["Railways closed to the green side until turn 10"],
  };
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
