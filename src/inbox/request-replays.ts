/**
 * Answers already given to a request carrying an `Idempotency-Key` on a door that moves money
 * without one of its own ids (today `POST /api/agent/settle`): a retry of the same request gets
 * the first answer instead of a second turn, so a client retrying a timed-out "send 100 KES to
 * @amina" never pays twice. Stored in the store (one row per key, claimed with insert-or-get),
 * so two instances on one database answer a retry alike. The door asks; this module owns the rows.
 */
import { createHash } from 'node:crypto';
import { defineTable, type Store } from '../store/index.js';
import { canonicalJson } from '../payments/payments.js';

/** One key of one account and mode: claimed (`running`) before the turn, then its first answer (`done`). */
export interface RequestReplay {
  readonly id: string;
  accountId: string;
  /** SHA-256 of the request's canonical JSON: the same key with another request is a conflict. */
  requestHash: string;
  state: 'running' | 'done';
  status?: number;
  body?: unknown;
  createdAt: string;
  updatedAt: string;
}

/**
 * The table payment creation keeps its Idempotency-Keys in (a jsonb row per id, no index): these
 * rows' ids carry the door's name, so they never meet a payment's key. No migration.
 */
export const RequestReplayRows = defineTable<RequestReplay>({ name: 'idempotency_keys' });

/** How long a key is remembered (Stripe keeps them 24 hours): a later reuse is a new request. */
export const REPLAY_TTL_MS = 24 * 60 * 60_000;

function sha256(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export type ReplayClaim =
  | { kind: 'new'; id: string }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'running' }
  | { kind: 'conflict' };

export class RequestReplays {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Claims `key` for this request, or says what the first request with it answered (`replay`), that it
   * is still running (`running`), or that the key was used with another request (`conflict`).
   */
  async claim(door: string, scope: { accountId: string; livemode: boolean }, key: string, request: unknown): Promise<ReplayClaim> {
    const id = `${door}:${sha256([scope.accountId, scope.livemode ? 'live' : 'test', key])}`;
    const requestHash = createHash('sha256').update(canonicalJson(request) ?? '').digest('hex');
    const at = this.now().toISOString();
    const row: RequestReplay = { id, accountId: scope.accountId, requestHash, state: 'running', createdAt: at, updatedAt: at };
    const got = await this.store.insertOrGet(RequestReplayRows, row);
    if (got.inserted) return { kind: 'new', id };
    const seen = got.existing;
    if (this.now().getTime() - Date.parse(seen.createdAt) >= REPLAY_TTL_MS) {
      // Forgotten: a new request under an old key, taken over only if nobody else took it meanwhile.
      const taken = await this.store.write(RequestReplayRows, (t) => t.update(id, { requestHash, state: 'running', createdAt: at, updatedAt: at }, { createdAt: seen.createdAt }));
      return taken ? { kind: 'new', id } : { kind: 'running' };
    }
    if (seen.requestHash !== requestHash) return { kind: 'conflict' };
    if (seen.state === 'running') return { kind: 'running' };
    return { kind: 'replay', status: seen.status ?? 200, body: seen.body };
  }

  /** The first answer, replayed to every retry with the same key and request. */
  async finish(id: string, status: number, body: unknown): Promise<void> {
    await this.store.write(RequestReplayRows, (t) => t.update(id, { state: 'done', status, body, updatedAt: this.now().toISOString() }, { state: 'running' }));
  }

  /** Nothing was done (rate-limited, provider or database unavailable): the key is free for the retry. */
  async release(id: string): Promise<void> {
    await this.store.write(RequestReplayRows, (t) => t.remove(id));
  }
}
