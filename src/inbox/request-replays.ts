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
  /** The instance running the first request (its lease says whether it still lives) and that request's id (the money records carry it). */
  executor?: string;
  requestId?: string;
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

/**
 * How long a first request may run before a retry stops waiting for it (h17probe): past it, or as soon as
 * the instance that ran it is gone (crashed, killed: its lease lapsed), a retry answers `interrupted` with
 * what the store holds of it, never a second turn.
 */
export const REPLAY_LEASE_MS = 10 * 60_000;

function sha256(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export type ReplayClaim =
  | { kind: 'new'; id: string }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'running' }
  /** The first request was cut off mid-turn (its instance died, or it outran the lease): never run again. */
  | { kind: 'interrupted'; since: string; records: InterruptedRecords }
  | { kind: 'conflict' };

/** What the store holds of an interrupted request, found by its request id (the money modules' rows carry it). */
export interface InterruptedRecords {
  transfers: Array<{ id: string; status: string; sourceAmount: string; sourceCurrency: string; recipientInput: string; txHash?: string }>;
  bills: Array<{ id: string; status: string; amount: string; currency: string; billerName: string; txHash?: string }>;
}

export interface ReplayOptions {
  /** The records of a request (composition root: the transfers' and bills' tables). */
  recorded?: (accountId: string, requestId: string) => Promise<InterruptedRecords>;
  /** This instance among those sharing the store: claims carry its id, and a retry asks whether the claimer lives. */
  instance?: { id: string; isLive(owner: string | undefined): Promise<boolean> };
  leaseMs?: number;
}

export class RequestReplays {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
    private readonly opts: ReplayOptions = {},
  ) {}

  /**
   * Claims `key` for this request, or says what the first request with it answered (`replay`), that it
   * is still running (`running`), or that the key was used with another request (`conflict`).
   */
  async claim(door: string, scope: { accountId: string; livemode: boolean }, key: string, request: unknown, requestId?: string): Promise<ReplayClaim> {
    const id = `${door}:${sha256([scope.accountId, scope.livemode ? 'live' : 'test', key])}`;
    const requestHash = createHash('sha256').update(canonicalJson(request) ?? '').digest('hex');
    const at = this.now().toISOString();
    const mine = { ...(this.opts.instance ? { executor: this.opts.instance.id } : {}), ...(requestId ? { requestId } : {}) };
    const row: RequestReplay = { id, accountId: scope.accountId, requestHash, state: 'running', ...mine, createdAt: at, updatedAt: at };
    const got = await this.store.insertOrGet(RequestReplayRows, row);
    if (got.inserted) return { kind: 'new', id };
    const seen = got.existing;
    if (this.now().getTime() - Date.parse(seen.createdAt) >= REPLAY_TTL_MS) {
      // Forgotten: a new request under an old key, taken over only if nobody else took it meanwhile.
      const taken = await this.store.write(RequestReplayRows, (t) => t.update(id, { requestHash, state: 'running', executor: mine.executor, requestId: mine.requestId, createdAt: at, updatedAt: at } as Partial<RequestReplay>, { createdAt: seen.createdAt }));
      return taken ? { kind: 'new', id } : { kind: 'running' };
    }
    if (seen.requestHash !== requestHash) return { kind: 'conflict' };
    if (seen.state === 'running') {
      if (await this.stillRunning(seen)) return { kind: 'running' };
      const none: InterruptedRecords = { transfers: [], bills: [] };
      const records = seen.requestId && this.opts.recorded ? await this.opts.recorded(seen.accountId, seen.requestId) : none;
      return { kind: 'interrupted', since: seen.createdAt, records };
    }
    return { kind: 'replay', status: seen.status ?? 200, body: seen.body };
  }

  /**
   * Whether a `running` first request may still answer: within the lease and, when the claim names its
   * instance, that instance still alive. A crashed process's claim is interrupted once its lease lapses.
   */
  private async stillRunning(seen: RequestReplay): Promise<boolean> {
    if (this.now().getTime() - Date.parse(seen.createdAt) >= (this.opts.leaseMs ?? REPLAY_LEASE_MS)) return false;
    if (!seen.executor || !this.opts.instance) return true;
    return this.opts.instance.isLive(seen.executor);
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
