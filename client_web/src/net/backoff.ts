/** Reconnect delays: exponential back-off with jitter, capped, reset once a session is welcomed again. */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  factor: number;
  /** Fraction of the delay that is randomised (0 = none, 0.5 = the delay lies in [d/2, d]). */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 15_000, factor: 2, jitter: 0.5 };

export function backoffDelay(attempt: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const raw = Math.min(opts.maxMs, opts.baseMs * opts.factor ** Math.max(0, attempt));
  return Math.round(raw * (1 - opts.jitter * random()));
}
