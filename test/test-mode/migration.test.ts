/**
 * Issue 24: data from before test mode keeps working. A data directory whose keys, payments,
 * events, deliveries and endpoints have no `livemode` (as every one written before this change)
 * is backfilled at start (src/core/livemode-backfill.ts, the lowdb twin of migration 0015): the
 * old `sk_live_` key still authenticates, pings `live:true`, and sees its old records in every
 * list; the old event's body reads `"livemode":true`. On PostgreSQL: test/test-mode/migration.pg.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { LowdbStore, type Row, type TableDef } from '../../src/store/index.js';
import { ApiKeys } from '../../src/keys/keys.js';
import { Payments } from '../../src/payments/payments.js';
import { WebhookDeliveries, WebhookEndpoints, WebhookEvents } from '../../src/webhooks/outbox.js';
import { LIVEMODE_BACKFILL, StoreBackfills, bodyWithLivemode } from '../../src/core/livemode-backfill.js';
import { startReceiver, waitFor, type Receiver } from '../webhooks/helpers.js';

let svc: TestService | undefined;
let rx: Receiver | undefined;
afterAll(async () => {
  await rx?.close();
  await svc?.stop({ removeData: true });
});

/** Makes the data directory look as it did before test mode: no livemode anywhere, no backfill done. */
async function makeOld(dataDir: string): Promise<void> {
  const store = await LowdbStore.open(dataDir);
  await store.transaction(async (tx) => {
    for (const def of [ApiKeys, Payments, WebhookEvents, WebhookDeliveries, WebhookEndpoints] as unknown as TableDef<Row & { livemode?: boolean; body?: string }>[]) {
      for (const row of await tx.table(def).findMany()) {
        const patch: Record<string, unknown> = { livemode: undefined };
        if (typeof row.body === 'string') patch.body = row.body.replace(/,"livemode":(true|false)/, '');
        await tx.table(def).update(row.id, patch);
      }
    }
    await tx.table(StoreBackfills).remove(LIVEMODE_BACKFILL);
  });
  await store.close();
}

describe('keys and records made before test mode (lowdb)', () => {
  it('are migrated to live at start and keep working', async () => {
    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0', RECONCILE_INTERVAL: '1h' });
    rx = await startReceiver();
    const m = await createMerchant(svc.api, 'Old Shop');
    expect((await call(`${svc.api}/webhook-endpoints`, { key: m.key, body: { url: rx.url } })).status).toBe(201);
    const pay = await call(`${svc.api}/v1/payments`, { key: m.key, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/', reference: 'old-1' } });
    await svc.deps.payments.transition(pay.body.id, 'pending', 'canceled');
    await waitFor(() => rx!.received.find((r) => r.json?.data?.id === pay.body.id));
    const dataDir = svc.dataDir;
    await svc.stop();
    svc = undefined;

    await makeOld(dataDir);
    const before = await LowdbStore.open(dataDir);
    const oldEvent = (await before.table(WebhookEvents).findMany())[0]!;
    expect(oldEvent.livemode).toBeUndefined();
    expect(oldEvent.body).not.toContain('livemode');
    expect((await before.table(ApiKeys).findMany())[0]!.livemode).toBeUndefined();
    await before.close();

    svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0', RECONCILE_INTERVAL: '1h' }, { dataDir });
    expect((await call(`${svc.api}/v1/ping`, { key: m.key })).body).toEqual({ ok: true, account: m.accountId, live: true });
    const keys = await call(`${svc.api}/keys`, { key: m.key });
    expect(keys.body.keys[0]).toMatchObject({ mode: 'live', livemode: true });
    const payments = await call(`${svc.api}/v1/payments`, { key: m.key });
    expect(payments.body.data.map((p: any) => [p.id, p.livemode])).toEqual([[pay.body.id, true]]);
    const events = await call(`${svc.api}/v1/events`, { key: m.key });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({ id: oldEvent.id, livemode: true, data: { id: pay.body.id } });
    expect((await call(`${svc.api}/webhook-deliveries`, { key: m.key })).body.data).toHaveLength(1);
    expect((await call(`${svc.api}/webhook-endpoints`, { key: m.key })).body.data.map((e: any) => e.livemode)).toEqual([true]);
    // The same reference is still the same payment (the unique key now includes the mode).
    const again = await call(`${svc.api}/v1/payments`, { key: m.key, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/', reference: 'old-1' } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(pay.body.id);
    // A test key made now does not see the old (live) records.
    const made = await call(`${svc.api}/keys`, { key: m.key, body: { label: 'sandbox', mode: 'test' } });
    expect((await call(`${svc.api}/v1/payments`, { key: made.body.key.secret })).body.data).toEqual([]);
    expect((await call(`${svc.api}/v1/events`, { key: made.body.key.secret })).body.data).toEqual([]);
  });

  it('bodyWithLivemode adds the field before the last brace and leaves the rest byte for byte', () => {
    expect(bodyWithLivemode('{"id":"evt_1","data":{"a":1}}')).toBe('{"id":"evt_1","data":{"a":1},"livemode":true}');
    expect(bodyWithLivemode('{"id":"evt_1","livemode":false}')).toBe('{"id":"evt_1","livemode":false}');
  });
});
