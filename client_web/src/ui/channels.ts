/** Chat channels as tabs with unread markers. Only the channels the server sends (its `joined.channels` and the
 * lines it delivered) appear: nobody sees a channel they do not belong to. */
import { t, type MessageKey } from "../i18n";
import type { Session } from "../net/session";
import { clear, h } from "./dom";
import { playerWord, teamWord } from "../i18n/words";

export function channelLabel(channel: string): string {
  const [kind, team] = channel.split(":");
  const keys: Record<string, MessageKey> = { team: "chan.team", players: "chan.players", spectators: "chan.spectators", announce: "chan.announce", secret: "chan.secret" };
  if (kind === "mod") return `⚑ ${t("chan.mod", { team: teamWord(team) })}`;
  const k = keys[kind!];
  return k ? `${t(k)}${team && kind !== "secret" ? ` (${teamWord(team)})` : team && kind === "secret" ? ` (${playerWord(team)})` : ""}` : channel;
}

/** Which channel a role may write to from this tab ("team:red" is written as "team" by its players). */
export function writable(channel: string, role: string, team: string | null): boolean {
  if (role === "moderator") return true;
  if (role === "spectator") return channel === "spectators";
  if (channel === "announce" || channel === "spectators") return false;
  if (channel.startsWith("team:") || channel.startsWith("mod:")) return channel.endsWith(`:${team}`);
  return true;
}

/** Who said a line, as a label ("The umpire", "Red, seat 1"). */
function speaker(player: string | null | undefined): string {
  const who = playerWord(player);
  return who.charAt(0).toUpperCase() + who.slice(1);
}

export class ChannelsPanel {
  readonly root = h("div", { class: "channels", "data-testid": "channels" });
  private readonly tabs = h("div", { class: "tabs" });
  private readonly lines = h("div", { class: "lines", "data-testid": "chat-lines" });
  private readonly input = h("input", { type: "text", maxlength: 2000, "data-testid": "chat-input" });
  private readonly form: HTMLFormElement;
  private current: string | null = null;

  constructor(
    private readonly session: Session,
    private readonly room: string,
    private readonly say: (channel: string, text: string) => Promise<unknown>,
    private readonly readOnly: () => boolean,
    /** the room's channels from those the server listed (the umpire's in the secret module: one per player held) */
    private readonly listed: (channels: string[]) => string[] = (c) => c,
  ) {
    this.form = h("form", { class: "say" }, this.input, h("button", { type: "submit", "data-testid": "chat-send" }, t("chan.send")));
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text || !this.current) return;
      this.input.value = "";
      void this.say(this.current, text).catch(() => {});
    });
    this.root.append(this.tabs, this.lines, this.form);
  }

  render(): void {
    const r = this.session.room(this.room);
    const w = this.session.welcome;
    const channels = this.listed(r.channels.length ? r.channels : [...r.chat.keys()]);
    // (a room being re-joined has no channels for a moment: the one being read stays)
    if (!this.current || (channels.length && !channels.includes(this.current))) {
      this.current = channels.find((c) => c.startsWith("team:")) ?? channels.find((c) => w && writable(c, w.role, w.team ?? null)) ?? channels[0] ?? null;
      if (this.current) this.session.reading.set(this.room, this.current);
    }
    clear(this.tabs);
    for (const c of channels) {
      const unread = r.unread.get(c) ?? 0;
      this.tabs.append(h("button", {
        class: `tab${c === this.current ? " active" : ""}`, "data-channel": c, "data-testid": `chan-${c}`,
        onclick: () => {
          this.current = c;
          this.session.read(this.room, c);
        },
      }, channelLabel(c), unread ? h("span", { class: "unread", "data-testid": `unread-${c}` }, String(unread)) : null));
    }
    clear(this.lines);
    for (const line of this.current ? r.chat.get(this.current) ?? [] : []) {
      this.lines.append(h("div", { class: "line" }, h("b", {}, speaker(line.from)), " ", line.text));
    }
    // Said here, not yet back from the server: on its way, unconfirmed, or not sent (with a retry).
    for (const p of this.session.pending.filter((l) => l.room === this.room && l.channel === this.current)) {
      this.lines.append(h("div", { class: `line pending ${p.state}`, "data-testid": `pending-${p.state}` },
        h("b", {}, speaker(w?.player)), " ", p.text, " ",
        h("span", { class: "muted" }, p.state === "unsent" ? `⚠ ${t("chat.unsent")}${p.error ? ` — ${p.error}` : ""}` : t(p.state === "sending" ? "chat.sending" : "chat.unconfirmed")),
        p.state === "unsent" ? h("span", { class: "buttons inline" },
          h("button", { "data-testid": "chat-retry", onclick: () => { this.session.dropPending(p); void this.say(p.channel, p.text).catch(() => {}); } }, t("chat.retry")),
          h("button", { onclick: () => this.session.dropPending(p) }, t("chat.discard"))) : null));
    }
    this.lines.scrollTop = this.lines.scrollHeight;
    const canWrite = !!(w && this.current && writable(this.current, w.role, w.team ?? null)) && !this.readOnly();
    this.input.disabled = !canWrite;
    this.input.placeholder = canWrite ? t("chan.placeholder") : t("chan.readonly");
  }
}
