/**
 * The x402 `payment-identifier` extension (specs/extensions/payment_identifier.md): a client's
 * `extensions["payment-identifier"].info.id` is an idempotency key. Per (scope, payer, id):
 * - a new id is processed, and bound to that payload's fingerprint;
 * - the same id with the same payload gets the first outcome again (joined while it runs, the
 *   stored one after it succeeded); an outcome that was not final (a refusal, a pending receipt)
 *   is not stored, so the same payload is processed again (the authorization nonce still keeps
 *   the money to one transfer);
 * - the same id with another payload is a conflict (409), whatever became of the first.
 * The scope is the merchant account at the facilitator and the payment at a session's x402_url;
 * another payer's id never collides with this one's.
 */
import { createHash } from 'node:crypto';
import { PAYMENT_IDENTIFIER, extractAndValidatePaymentIdentifier } from '@x402/extensions/payment-identifier';
import { defineTable, StoreConflictError, type Row, type Store } from '../store/index.js';
import { nowIso } from '../lib/ids.js';
import type { PaymentPayload } from './x402-schemas.js';

export { PAYMENT_IDENTIFIER };

export interface PaymentIdentifierRow extends Row {
  /** `pid_` + sha256 of scope, payer and id: one row per key, the primary key is the lock. */
  id: string;
  scope: string;
  payer: string;
  paymentId: string;
  /** sha256 of the canonical JSON of the payload the id was first used with. */
  fingerprint: string;
  /** The stored final outcome (JSON), once there is one. */
  outcome?: string;
  createdAt: string;
}

export const PaymentIdentifiers = defineTable<PaymentIdentifierRow>({ name: 'x402_payment_identifiers', indexes: ['scope'] });

/** The client's identifier: none, a valid one, or an extension whose id breaks the format. */
export function paymentIdentifierOf(payload: PaymentPayload): { id?: string; invalid?: string } {
  if (!payload.extensions || !(PAYMENT_IDENTIFIER in payload.extensions)) return {};
  const r = extractAndValidatePaymentIdentifier(payload as never);
  if (r.id && r.validation.valid) return { id: r.id };
  // Declared by the server but echoed without an id: the client did not use the extension.
  const info = (payload.extensions[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined)?.info;
  if (info?.id === undefined) return {};
  return { invalid: r.validation.errors?.join('; ') ?? 'invalid payment identifier' };
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** What the payer signed and chose: the scheme payload and the accepted requirements (not the extensions). */
export function fingerprintOf(payload: PaymentPayload): string {
  return createHash('sha256').update(canonical({ accepted: payload.accepted, payload: payload.payload })).digest('hex');
}

export type Idempotent<T> = { kind: 'fresh' | 'replayed'; value: T } | { kind: 'conflict' };

export interface IdempotencyKey {
  scope: string;
  payer: string;
  id: string;
}

export class PaymentIdentifierLedger {
  private readonly inflight = new Map<string, { fingerprint: string; run: Promise<Idempotent<unknown>> }>();

  constructor(private readonly store: Store) {}

  /**
   * Read-only (for verify): `conflict` when the id belongs to another payload, the stored outcome
   * when this payload already has one (waiting for a run in flight first), else `none`.
   */
  async peek<T>(key: IdempotencyKey, fingerprint: string): Promise<'conflict' | 'none' | { outcome: T }> {
    const rowId = rowIdOf(key);
    const running = this.inflight.get(rowId);
    if (running) {
      if (running.fingerprint !== fingerprint) return 'conflict';
      await running.run.catch(() => undefined);
    }
    const row = await this.store.table(PaymentIdentifiers).get(rowId);
    if (!row) return 'none';
    if (row.fingerprint !== fingerprint) return 'conflict';
    return row.outcome !== undefined ? { outcome: JSON.parse(row.outcome) as T } : 'none';
  }

  /**
   * Runs `process` at most once at a time per key; `final` outcomes are stored and replayed.
   * Callers with the same key and payload while it runs join it.
   */
  run<T>(key: IdempotencyKey, fingerprint: string, process: () => Promise<{ value: T; final: boolean }>): Promise<Idempotent<T>> {
    const rowId = rowIdOf(key);
    const running = this.inflight.get(rowId);
    if (running) {
      if (running.fingerprint !== fingerprint) return Promise.resolve({ kind: 'conflict' });
      return running.run.then((r) => (r.kind === 'conflict' ? r : { kind: 'replayed', value: r.value as T }));
    }
    const run = this.claimAndRun(rowId, key, fingerprint, process).finally(() => {
      if (this.inflight.get(rowId)?.run === run) this.inflight.delete(rowId);
    });
    this.inflight.set(rowId, { fingerprint, run });
    return run;
  }

  private async claimAndRun<T>(rowId: string, key: IdempotencyKey, fingerprint: string, process: () => Promise<{ value: T; final: boolean }>): Promise<Idempotent<T>> {
    const table = this.store.table(PaymentIdentifiers);
    let row = await table.get(rowId);
    if (!row) {
      const fresh: PaymentIdentifierRow = { id: rowId, scope: key.scope, payer: key.payer.toLowerCase(), paymentId: key.id, fingerprint, createdAt: nowIso() };
      try {
        row = await this.store.write(PaymentIdentifiers, (t) => t.insert(fresh));
      } catch (err) {
        // Another instance bound it first: judge against its row.
        if (!(err instanceof StoreConflictError)) throw err;
        row = await table.get(rowId);
      }
    }
    if (!row || row.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (row.outcome !== undefined) return { kind: 'replayed', value: JSON.parse(row.outcome) as T };
    const { value, final } = await process();
    if (final) await this.store.write(PaymentIdentifiers, (t) => t.update(rowId, { outcome: JSON.stringify(value) }));
    return { kind: 'fresh', value };
  }
}

function rowIdOf(key: IdempotencyKey): string {
  const h = createHash('sha256').update(`${key.scope}\n${key.payer.toLowerCase()}\n${key.id}`).digest('hex');
  return `pid_${h.slice(0, 48)}`;
}
