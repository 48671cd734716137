/** The server's HTTP API (shared/protocol/http.py): the lobby and campaign creation. */
export interface LobbyRoom {
  id: string;
  room: string;
  name: string;
  scenario: string;
  level: number;
  teams: Record<string, unknown>[];
  players_online: number;
  spectators_online: number;
  created_ms: number;
  /** present when the server publishes a spectator link for the room */
  spectator_link?: string;
  spectator_token?: string;
  /** a finished battle's winner */
  winner?: string | null;
}

/** Whether a scenario's rules come in levels (C-0.2, the Napoleonic rules' levels): the squad game's do not (S-*),
 * so a skirmish is told by its scenario alone. */
export const hasLevels = (scenario: string): boolean => !/^skirmish(-|$)/.test(scenario);

export interface Lobby {
  campaigns: LobbyRoom[];
  battles: LobbyRoom[];
  /** battles fought to their end (older servers send none) */
  finished?: LobbyRoom[];
}

export interface CreateCampaign {
  name: string;
  scenario: string;
  level: 1 | 2 | 3;
  teams: { colour: string; seats: number; ai?: boolean }[];
  /** null: no clocks; fields left out take the level's C-1.9 defaults (`{}`: the level's usual clock) */
  clock: { mode?: ClockMode; turn_ms?: number; initial_ms?: number; increment_ms?: number; reserve_ms?: number } | null;
  /** the clocks start paused: the moderator starts the game by resuming them (CLK-6) */
  clocks_paused?: boolean;
  house_rules: string[];
  public: boolean;
  /** the lobby hands out the spectators' link: anyone may watch the campaign and its battles */
  open_spectating?: boolean;
  /** minutes after a team's turn begins with none of its seats connected before the computer stands in (issue 18) */
  ai_stand_in?: number;
}

export type ClockMode = "per_turn" | "fischer" | "per_turn_reserve";

/** The lobby's clock choice as the request's `clock`: "" the level's usual clock (C-1.9: `{}`, the server fills in
 * the level's defaults; null would be no clocks at all), "none" no clocks, else the mode with the minutes (per turn,
 * or initial) and the seconds (increment or reserve) the form gives. */
export function clockSpec(mode: "" | "none" | ClockMode, minutes: number, seconds: number): CreateCampaign["clock"] {
  const ms = Math.round(minutes * 60_000);
  const extra = Math.round(seconds * 1000);
  if (mode === "") return {};
  if (mode === "none") return null;
  if (mode === "fischer") return { mode, initial_ms: ms, increment_ms: extra };
  if (mode === "per_turn_reserve") return { mode, turn_ms: ms, reserve_ms: extra };
  return { mode, turn_ms: ms };
}

export interface CampaignCreated {
  campaign: string;
  room: string;
  moderator_token: string;
  moderator_link: string;
  spectator_token: string;
  spectator_link: string;
  seats: { team: string; seat: number; player: string; token: string; link: string }[];
}

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function json<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const detail = Array.isArray(body.details) ? body.details.map((d) => (d as { msg?: string }).msg).join("; ") : "";
    throw new ApiError(res.status, String(body.message ?? body.error ?? res.statusText) + (detail ? `: ${detail}` : ""));
  }
  return body as T;
}

export async function fetchLobby(): Promise<Lobby> {
  return json<Lobby>(await fetch("/api/lobby", { headers: { Accept: "application/json" } }));
}

export async function fetchEngines(): Promise<string[]> {
  const body = await json<{ engines?: string[] }>(await fetch("/api/engines"));
  return body.engines ?? [];
}

export async function createCampaign(spec: CreateCampaign): Promise<CampaignCreated> {
  return json<CampaignCreated>(await fetch("/api/campaigns", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(spec),
  }));
}

/** The token carried in a join link's fragment (`…/#token=…`); null when there is none. */
export function tokenFromLink(link: string): string | null {
  const hash = link.includes("#") ? link.slice(link.indexOf("#") + 1) : link;
  const params = new URLSearchParams(hash);
  const token = params.get("token");
  return token && token.length >= 8 ? token : null;
}
