/**
 * Test mode's data migration (docs/test-mode.md, "Existing data"): every key, payment, refund,
 * event, delivery, webhook endpoint and agent action made before test mode is live, so it gets
 * `livemode: true` (and an event's stored body `"livemode":true`), which lets the mode's equality
 * filters find it. PostgreSQL does this in migration 0015 (which also records it as done here);
 * lowdb runs this once at start and records it the same way, so it never runs twice.
 */
import { defineTable, type Row, type Store, type TableDef } from '../store/index.js';
import { ApiKeys } from '../keys/keys.js';
import { Payments } from '../payments/payments.js';
import { Refunds } from '../refunds/refunds.js';
import { WebhookDeliveries, WebhookEndpoints, WebhookEvents } from '../webhooks/outbox.js';
import { PendingActions } from '../pending-actions/pending-actions.js';
import { Deposits } from '../settlement/deposit-records.js';

/** One-time data migrations done (id: the migration's name). */
export interface BackfillRow {
  readonly id: string;
  doneAt: string;
}
export const StoreBackfills = defineTable<BackfillRow>({ name: 'store_backfills' });

export const LIVEMODE_BACKFILL = 'livemode_0015';

type ModedRow = Row & { livemode?: boolean };
const MODED = [ApiKeys, Payments, Refunds, WebhookEvents, WebhookDeliveries, WebhookEndpoints, PendingActions] as unknown as ReadonlyArray<TableDef<ModedRow>>;

/**
 * Adds `"livemode":true` at the end of a stored event body, byte for byte otherwise (the rest of
 * the text is unchanged, so the event reads as before); a body that has it is left alone.
 */
export function bodyWithLivemode(body: string): string {
  if (/"livemode"\s*:/.test(body)) return body;
  const end = body.lastIndexOf('}');
  return end < 0 ? body : `${body.slice(0, end)},"livemode":true${body.slice(end)}`;
}

/** Runs the backfill unless done; returns how many rows it changed. */
export async function backfillLivemode(store: Store, now = new Date()): Promise<number> {
  if (await store.table(StoreBackfills).get(LIVEMODE_BACKFILL)) return 0;
  return store.transaction(async (tx) => {
    if (await tx.table(StoreBackfills).get(LIVEMODE_BACKFILL)) return 0;
    let changed = 0;
    for (const def of MODED) {
      const t = tx.table(def);
      for (const row of await t.findMany()) {
        if (row.livemode !== undefined) continue;
        const patch: Partial<ModedRow> & { body?: string } = { livemode: true };
        if (def.name === WebhookEvents.name) patch.body = bodyWithLivemode((row as unknown as { body: string }).body);
        await t.update(row.id, patch);
        changed++;
      }
    }
    await tx.table(StoreBackfills).insert({ id: LIVEMODE_BACKFILL, doneAt: now.toISOString() });
    return changed;
  });
}

export const DEPOSIT_MODE_BACKFILL = 'deposit_livemode';

/**
 * Deposit addresses given out for test-mode payments before deposit records carried their
 * payment's mode (test mode came before test mode's own chain, docs/test-mode.md "Existing
 * data") read as live: beside a real network the live watcher would credit live money sent there
 * and test mode's chain would never be watched for them. Each open one of a test-mode payment gets
 * `livemode: false` (a closed watch is never scanned again). Both stores, once, recorded.
 */
export async function backfillDepositModes(store: Store, now = new Date()): Promise<number> {
  if (await store.table(StoreBackfills).get(DEPOSIT_MODE_BACKFILL)) return 0;
  return store.transaction(async (tx) => {
    if (await tx.table(StoreBackfills).get(DEPOSIT_MODE_BACKFILL)) return 0;
    const deposits = tx.table(Deposits);
    let changed = 0;
    for (const d of await deposits.findMany({ watch: 'open' })) {
      if (d.livemode !== undefined || (await tx.table(Payments).get(d.id))?.livemode !== false) continue;
      await deposits.update(d.id, { livemode: false });
      changed++;
    }
    await tx.table(StoreBackfills).insert({ id: DEPOSIT_MODE_BACKFILL, doneAt: now.toISOString() });
    return changed;
  });
}
