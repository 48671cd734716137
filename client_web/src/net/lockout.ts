/** D-N-14: a player in the secret module reads but gives no orders. The gate tells the page the moment that changes
 * (sent, released, or the time is up), so that order controls are redrawn at once, and refuses orders from
 * controls drawn before. */
import { t } from "../i18n";
import { CommandError, type Command } from "./connection";
import { isSecretRoom } from "./room-id";
import type { Session } from "./session";

/** Commands a locked-out player may not give (chat has its own rule: the secret module's room stays open). */
const ORDERS = new Set<Command["t"]>(["order", "end_turn"]);

export class OrderGate {
  private was: boolean;

  constructor(private readonly session: Session, private readonly now: () => number,
              private readonly changed: (locked: boolean) => void) {
    this.was = this.locked;
    session.subscribe(() => this.check());
  }

  get locked(): boolean {
    const me = this.session.welcome?.player;
    return !!me && this.session.activeLockouts(this.now()).some((l) => l.player === me);
  }

  /** Called on every session change and clock tick: a lockout also ends by time alone. */
  check(): void {
    const locked = this.locked;
    if (locked === this.was) return;
    this.was = locked;
    this.changed(locked);
  }

  /** `send`, unless it is an order while locked out: that is refused here (`details.local`), not sent. */
  send(cmd: Command, send: (cmd: Command) => Promise<unknown>): Promise<unknown> {
    if (ORDERS.has(cmd.t) && "room" in cmd && !isSecretRoom(cmd.room) && this.locked) {
      return Promise.reject(new CommandError("locked_out", t("secret.no_orders"), "D-N-14", { local: true }));
    }
    return send(cmd);
  }
}
