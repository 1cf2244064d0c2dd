/**
 * The circuit breaker: N refusals or failures of money-moving calls from one API key within a
 * window pause that key's money-moving calls for a cool-down. A retry loop in a merchant's agent
 * stops hammering; the person's own doors (chat, Telegram, the app) are never paused.
 */
import type { Store } from '../store/index.js';
import { Breakers } from './tables.js';
import type { Breaker } from './policy-schemas.js';

export class CircuitBreaker {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** Seconds until the key may move money again, or undefined when it is not paused. */
  async pausedFor(keyId: string): Promise<number | undefined> {
    const row = await this.store.table(Breakers).get(keyId);
    if (!row?.pausedUntil) return undefined;
    const left = Date.parse(row.pausedUntil) - this.now().getTime();
    return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : undefined;
  }

  /** Counts one refusal or failure; trips the breaker at `max_failures` within the window. */
  async record(accountId: string, keyId: string, settings: Breaker): Promise<void> {
    const now = this.now();
    const since = now.getTime() - settings.window_seconds * 1000;
    await this.store.write(Breakers, async (t) => {
      const row = await t.get(keyId);
      const recent = (row?.failures ?? []).filter((at) => Date.parse(at) > since);
      recent.push(now.toISOString());
      const trip = recent.length >= settings.max_failures;
      const patch = {
        failures: trip ? [] : recent,
        ...(trip ? { pausedUntil: new Date(now.getTime() + settings.cooldown_seconds * 1000).toISOString() } : {}),
      };
      if (row) await t.update(keyId, patch);
      else await t.insert({ id: keyId, accountId, ...patch });
    });
  }
}
