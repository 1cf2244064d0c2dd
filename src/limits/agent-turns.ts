import type { Store } from '../store/index.js';

/** A turn refused or allowed by the per-account agent limit. */
export type TurnAllowance =
  | { ok: true; used: number; remaining: number; resetTime: Date }
  | { ok: false; used: number; retryAfterSeconds: number; resetTime: Date };

/** The polite refusal every door gives (HTTP 429 body, Telegram reply). */
export function tooManyTurnsReply(retryAfterSeconds?: number): string {
  return `Too many messages. Please wait${retryAfterSeconds ? ` ${retryAfterSeconds} seconds` : ' a moment'} and try again.`;
}

/** What a counter reports after a hit (the shape express-rate-limit's stores answer). */
export interface TurnCount {
  totalHits: number;
  resetTime: Date | undefined;
}

/**
 * A fixed-window hit counter per key, in the shape of an express-rate-limit store so that the
 * HTTP doors' middleware (src/http/rate-limit.ts) can count on the very same one; declared here
 * without importing express-rate-limit, which is HTTP plumbing.
 */
export interface TurnCounter {
  readonly localKeys: boolean;
  readonly prefix?: string;
  init(options: { windowMs: number }): void;
  increment(key: string): Promise<TurnCount>;
  decrement(key: string): Promise<void>;
  resetKey(key: string): Promise<void>;
  get(key: string): Promise<TurnCount | undefined>;
  shutdown?(): void;
}

/**
 * AGENT_RATE_LIMIT: the one per-account counter of agent turns, whatever door they come
 * through (POST /api/agent/settle, POST /api/chat, Telegram). The HTTP doors share one
 * express-rate-limit middleware built on `store`; the Telegram bridge calls `take`, which
 * increments the same key in the same counter. In memory by default (per process, a restart
 * forgets it); on PostgreSQL the composition root passes a SharedTurnCounter, exact across
 * instances.
 */
export class AgentRateLimit {
  readonly limit: number;
  readonly windowMs: number;
  /** Shared by every door: an in-memory fixed window, or the shared counter. */
  readonly store: TurnCounter;

  constructor(opts: { limit: number; windowMs: number; counter?: TurnCounter }) {
    this.limit = opts.limit;
    this.windowMs = opts.windowMs;
    this.store = opts.counter ?? new MemoryTurnCounter();
    // Ready before any middleware exists (Telegram may take a turn first); rateLimit() calls
    // init again with the same window, which keeps the counts.
    this.store.init({ windowMs: this.windowMs });
  }

  /** The store key of an account's turns. */
  static key(accountId: string): string {
    return `acct:${accountId}`;
  }

  /**
   * Takes one turn for the account (counted even when refused, as express-rate-limit does),
   * and says whether it is within the limit.
   */
  async take(accountId: string): Promise<TurnAllowance> {
    const info = await this.store.increment(AgentRateLimit.key(accountId));
    const resetTime = info.resetTime ?? new Date(Date.now() + this.windowMs);
    if (info.totalHits > this.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000));
      return { ok: false, used: info.totalHits, retryAfterSeconds, resetTime };
    }
    return { ok: true, used: info.totalHits, remaining: this.limit - info.totalHits, resetTime };
  }

  close(): void {
    this.store.shutdown?.();
  }
}

/** One process's counts: a fixed window per key that starts at its first hit. */
export class MemoryTurnCounter implements TurnCounter {
  readonly localKeys = true;
  private windowMs = 60_000;
  private readonly hits = new Map<string, { totalHits: number; resetTime: Date }>();

  init(options: { windowMs: number }): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<TurnCount> {
    const now = Date.now();
    let c = this.hits.get(key);
    if (!c || c.resetTime.getTime() <= now) {
      // Forget finished windows now and then, so the map stays the size of the live ones.
      if (this.hits.size > 10_000) for (const [k, v] of this.hits) if (v.resetTime.getTime() <= now) this.hits.delete(k);
      c = { totalHits: 0, resetTime: new Date(now + this.windowMs) };
      this.hits.set(key, c);
    }
    c.totalHits++;
    return { ...c };
  }

  async decrement(key: string): Promise<void> {
    const c = this.hits.get(key);
    if (c && c.totalHits > 0) c.totalHits--;
  }

  async resetKey(key: string): Promise<void> {
    this.hits.delete(key);
  }

  async get(key: string): Promise<TurnCount | undefined> {
    const c = this.hits.get(key);
    return c && c.resetTime.getTime() > Date.now() ? { ...c } : undefined;
  }

  shutdown(): void {
    this.hits.clear();
  }
}

/**
 * A counter over `Store.countHit`: a fixed window per key held in the database, incremented
 * atomically by one statement, so every instance counts the same turns.
 */
export class SharedTurnCounter implements TurnCounter {
  readonly localKeys = false;
  readonly prefix = 'agent-turns:';
  private windowMs = 60_000;

  constructor(private readonly db: Pick<Store, 'countHit'>) {}

  init(options: { windowMs: number }): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<TurnCount> {
    const { hits, resetAt } = await this.db.countHit(this.prefix + key, this.windowMs);
    return { totalHits: hits, resetTime: resetAt };
  }

  // A refused or failed turn still counts (express-rate-limit only decrements when told to skip).
  async decrement(): Promise<void> {}

  async resetKey(): Promise<void> {}

  // Counts are only read back through increment (the limiter never peeks).
  async get(): Promise<undefined> {
    return undefined;
  }
}
