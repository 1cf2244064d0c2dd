import type { RequestHandler, Request, Response } from 'express';
import { MemoryStore, rateLimit, type ClientRateLimitInfo, type Options, type Store as CounterStore } from 'express-rate-limit';
import type { Store } from '../store/index.js';

/** A turn refused or allowed by the per-account agent limit. */
export type TurnAllowance =
  | { ok: true; used: number; remaining: number; resetTime: Date }
  | { ok: false; used: number; retryAfterSeconds: number; resetTime: Date };

/** The polite refusal every door gives (HTTP 429 body, Telegram reply). */
export function tooManyTurnsReply(retryAfterSeconds?: number): string {
  return `Too many messages. Please wait${retryAfterSeconds ? ` ${retryAfterSeconds} seconds` : ' a moment'} and try again.`;
}

/**
 * AGENT_RATE_LIMIT: the one per-account counter of agent turns, whatever door they come
 * through (POST /api/agent/settle, POST /api/chat, Telegram). One express-rate-limit
 * MemoryStore holds the counts: the HTTP doors share one express-rate-limit middleware built
 * on it, and the Telegram bridge calls `take`, which increments the same key in the same
 * store. In memory, per process: a restart forgets it, and a multi-instance deployment needs a
 * shared store (e.g. Redis) for an exact global count.
 */
export class AgentRateLimit {
  readonly limit: number;
  readonly windowMs: number;
  /** Shared by every door; express-rate-limit's own fixed-window store, or the shared counter. */
  readonly store: CounterStore & { get(key: string): Promise<ClientRateLimitInfo | undefined> };
  private http?: RequestHandler;

  constructor(opts: { limit: number; windowMs: number; counter?: SharedTurnCounter }) {
    this.limit = opts.limit;
    this.windowMs = opts.windowMs;
    this.store = opts.counter ?? new MemoryStore();
    // Ready before any middleware exists (Telegram may take a turn first); rateLimit() calls
    // init again with the same window, which keeps the counts.
    this.store.init?.({ windowMs: this.windowMs } as Options);
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

  /**
   * The express middleware for the HTTP doors (after authentication; `accountOf` names the
   * account). Built once and reused: express-rate-limit refuses a store shared by two of its
   * instances, and one instance on every door is what makes the count shared.
   * A 429 answers `{ok:false, reply}` with Retry-After and the draft-8 RateLimit headers.
   */
  middleware(accountOf: (req: Request, res: Response) => string): RequestHandler {
    this.http ??= rateLimit({
      windowMs: this.windowMs,
      limit: this.limit,
      store: this.store,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier: 'agent',
      keyGenerator: (req, res) => AgentRateLimit.key(accountOf(req, res)),
      handler: (_req, res) => {
        const retryAfter = Number(res.getHeader('Retry-After'));
        res.status(429).json({ ok: false, reply: tooManyTurnsReply(retryAfter > 0 ? retryAfter : undefined) });
      },
    });
    return this.http;
  }

  /** Stops the store's expiry timer. */
  close(): void {
    this.store.shutdown?.();
  }
}

/**
 * An express-rate-limit store over `Store.countHit`: a fixed window per key held in the
 * database, incremented atomically by one statement, so every instance counts the same turns.
 */
export class SharedTurnCounter implements CounterStore {
  readonly localKeys = false;
  readonly prefix = 'agent-turns:';
  private windowMs = 60_000;

  constructor(private readonly db: Store) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
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
