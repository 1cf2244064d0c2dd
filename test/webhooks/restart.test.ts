import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { LowdbStore } from '../../src/store/index.js';
import { WebhookDeliveries } from '../../src/webhooks/outbox.js';
import { createMerchant, startTestService, tempDir, type TestService } from '../helpers/service.js';
import { createPayment, deliveries, freePort, startReceiver, waitFor, type Receiver } from './helpers.js';

describe('deliveries survive a service restart', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function dir(): Promise<string> {
    const d = await tempDir();
    cleanup.unshift(() => rm(d, { recursive: true, force: true }));
    return d;
  }

  async function start(env: Record<string, string>, dataDir: string): Promise<TestService> {
    const svc = await startTestService(env, { dataDir });
    cleanup.push(() => svc.stop());
    return svc;
  }

  it('resumes a pending delivery at its persisted time after the receiver was down through a restart', async () => {
    const env = { WEBHOOK_RETRY_SCHEDULE: '0,1s,1s' };
    const dataDir = await dir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks`;

    const first = await start(env, dataDir);
    const m = await createMerchant(first.api);
    const p = await createPayment(first.api, m.key, { webhook_url: url });
    await first.deps.payments.transition(p.id, 'pending', 'processing');
    await first.deps.payments.transition(p.id, 'processing', 'settled');
    const [failed] = await waitFor(async () => {
      const list = await deliveries(first.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.attempt_count === 1 ? list : undefined;
    });
    expect(failed.status).toBe('pending');
    expect(failed.attempts[0].status_code).toBeNull();
    expect(failed.attempts[0].error).toMatch(/ECONNREFUSED/);
    const due = Date.parse(failed.next_attempt_at);
    await first.stop();

    const receiver: Receiver = await startReceiver(() => 200, { port });
    cleanup.push(() => receiver.close());
    const second = await start(env, dataDir);
    const got = await waitFor(() => receiver.received.find((r) => r.json?.data?.id === p.id), 10_000, 'delivery after restart');
    expect(got.json.type).toBe('payment.settled');

    const [done] = await waitFor(async () => {
      const list = await deliveries(second.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(done.id).toBe(failed.id);
    expect(done.attempts.map((a: any) => a.status_code)).toEqual([null, 200]);
    // Not early: the resumed attempt waited for the persisted nextAttemptAt.
    expect(Date.parse(done.attempts[1].at)).toBeGreaterThanOrEqual(due);
    expect(receiver.received.filter((r) => r.json?.data?.id === p.id)).toHaveLength(1);
  });

  it('logs an attempt cut by a stop as interrupted and retries it after the restart', async () => {
    const env = { WEBHOOK_RETRY_SCHEDULE: '0,1h' };
    const dataDir = await dir();
    let hang = true;
    const hung: Array<() => void> = [];
    const http = await import('node:http');
    const server = http.createServer((req, res) => {
      req.resume();
      if (hang) hung.push(() => res.destroy());
      else req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(
      () =>
        new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/hooks`;

    const first = await start(env, dataDir);
    const m = await createMerchant(first.api);
    const p = await createPayment(first.api, m.key, { webhook_url: url });
    await first.deps.payments.transition(p.id, 'pending', 'processing');
    await first.deps.payments.transition(p.id, 'processing', 'failed');
    await waitFor(() => hung.length > 0, 10_000, 'request on the wire');
    await first.stop();
    hang = false;

    const second = await start(env, dataDir);
    const [d] = await waitFor(async () => {
      const list = await deliveries(second.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(d.attempts).toHaveLength(2);
    expect(d.attempts[0]).toMatchObject({ succeeded: false, status_code: null });
    expect(d.attempts[0].error).toMatch(/interrupted/);
    expect(d.attempts[1]).toMatchObject({ succeeded: true, status_code: 204 });
  });

  it('recovers a delivery a crashed process left marked in flight', async () => {
    const env = { WEBHOOK_RETRY_SCHEDULE: '0,1h' };
    const dataDir = await dir();
    const down = await freePort();
    const first = await start(env, dataDir);
    const m = await createMerchant(first.api);
    const p = await createPayment(first.api, m.key, { webhook_url: `http://127.0.0.1:${down}/hooks` });
    await first.deps.payments.transition(p.id, 'pending', 'processing');
    await first.deps.payments.transition(p.id, 'processing', 'settled');
    const [d0] = await waitFor(async () => {
      const list = await deliveries(first.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.attempt_count === 1 ? list : undefined;
    });
    await first.stop();

    // What a crash mid-attempt leaves behind: the claim marker and a due attempt.
    const receiver = await startReceiver(() => 200);
    cleanup.push(() => receiver.close());
    const store = await LowdbStore.open(dataDir);
    await store.write(WebhookDeliveries, (t) =>
      t.update(d0.id, { inFlight: { startedAt: new Date().toISOString(), cycle: 0 }, nextAttemptAt: new Date().toISOString(), url: receiver.url }),
    );
    await store.close();

    const second = await start(env, dataDir);
    const [d] = await waitFor(async () => {
      const list = await deliveries(second.api, { key: m.key }, `?payment_id=${p.id}`);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(d.attempts.map((a: any) => a.error === null ? 'ok' : /interrupted/.test(a.error) ? 'interrupted' : 'failed')).toEqual([
      'failed',
      'interrupted',
      'ok',
    ]);
    expect(receiver.received).toHaveLength(1);
  });
});
