import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LowdbStore, type Store, type Tx } from '../../src/store/index.js';
import { EndpointCache } from '../../src/webhooks/endpoint-cache.js';
import { WebhookEndpointsService } from '../../src/webhooks/endpoints.js';
import { Outbox, WebhookDeliveries, WebhookEndpoints } from '../../src/webhooks/outbox.js';
import type { WebhookSecretsService } from '../../src/webhooks/secrets.js';
import type { Payment } from '../../src/payments/payments.js';
import { tempDir } from '../helpers/service.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import pino from 'pino';
import { delayedProcess } from '../helpers/delayed-channels.js';

/**
 * Issue 23: the outbox remembers each account's webhook endpoints (no endpoint reads per
 * settle), and every change reaches what it sends: at once on the instance that made it, on
 * the others when the store channel's notice arrives (PostgreSQL NOTIFY, after the commit).
 * Here, as on PostgreSQL, notices wait until `deliver()`; endpoint reads are counted.
 */
function instrumented(inner: LowdbStore) {
  const held: Array<() => void> = [];
  const reads = { n: 0 };
  const counting = <T extends object>(t: T): T =>
    new Proxy(t, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop === 'get' || prop === 'findMany') return (...a: unknown[]) => (reads.n++, (v as (...x: unknown[]) => unknown).apply(target, a));
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  const wrapTx = (tx: Tx): Tx => ({ ...tx, afterCommit: tx.afterCommit, publish: tx.publish, table: ((def) => (def.name === WebhookEndpoints.name ? counting(tx.table(def)) : tx.table(def))) as Tx['table'] });
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'subscribe') {
        return (channel: string, fn: (payload: string | undefined) => void) => target.subscribe(channel, (payload) => held.push(() => fn(payload)));
      }
      if (prop === 'transaction') return (fn: (tx: Tx) => Promise<unknown>, opts?: unknown) => target.transaction((tx) => fn(wrapTx(tx)), opts as never);
      if (prop === 'table') return (def: { name: string }) => (def.name === WebhookEndpoints.name ? counting(target.table(def as never)) : target.table(def as never));
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Store;
  return { store, reads, deliver: () => held.splice(0).forEach((f) => f()) };
}

const secrets = { ensureIn: async () => undefined } as unknown as WebhookSecretsService;
const payment = (accountId: string): Payment => ({ id: `pay_${Math.random().toString(36).slice(2)}`, accountId, status: 'settled', amount: '1', currency: 'USD', livemode: true }) as unknown as Payment;
const settleTick = () => new Promise((r) => setTimeout(r, 20));

describe('the outbox remembers endpoints, and every change reaches it', () => {
  let inner: LowdbStore;
  let caches: EndpointCache[];
  beforeEach(async () => {
    inner = await LowdbStore.open(await tempDir('sp-endpoints-'));
    caches = [];
  });
  afterEach(async () => {
    for (const c of caches) await c.stop();
    await inner.close();
  });

  async function instance(store: Store, licenseMs?: number) {
    const cache = new EndpointCache(store, { licenseMs });
    await cache.start();
    caches.push(cache);
    const outbox = new Outbox({ schedule: [0], secrets, endpoints: cache });
    const endpoints = new WebhookEndpointsService(store, secrets, async (url) => ({ ok: true as const, url }), cache);
    /** Records one `payment.settled` event; the URLs it is sent to. */
    const sendsTo = async (accountId: string) => {
      const { event } = await store.transaction((tx) => outbox.record(tx, 'payment.settled', payment(accountId)));
      await settleTick(); // the memory is filled after the commit
      return (await store.table(WebhookDeliveries).findMany({ eventId: event.id })).map((d) => d.url);
    };
    return { outbox, endpoints, sendsTo };
  }

  it('reads an account’s endpoints once, then serves events from memory', async () => {
    const { store, reads } = instrumented(inner);
    const a = await instance(store);
    await a.endpoints.create('acct_1', { url: 'https://one.example/hook' });
    expect(await a.sendsTo('acct_1')).toEqual(['https://one.example/hook']);
    const after = reads.n;
    expect(await a.sendsTo('acct_1')).toEqual(['https://one.example/hook']);
    expect(await a.sendsTo('acct_1')).toEqual(['https://one.example/hook']);
    expect(reads.n).toBe(after);
  });

  it('the instance that changes an endpoint sends the very next event by the change, before its own notice returns', async () => {
    const { store } = instrumented(inner);
    const a = await instance(store);
    expect(await a.sendsTo('acct_1')).toEqual([]); // remembered: no endpoints
    const created = await a.endpoints.create('acct_1', { url: 'https://one.example/hook' });
    if (!created.ok) throw new Error(created.message);
    expect(await a.sendsTo('acct_1')).toEqual(['https://one.example/hook']);
    await a.endpoints.update('acct_1', created.endpoint.id, { url: 'https://two.example/hook' });
    expect(await a.sendsTo('acct_1')).toEqual(['https://two.example/hook']);
    await a.endpoints.update('acct_1', created.endpoint.id, { disabled: true });
    expect(await a.sendsTo('acct_1')).toEqual([]);
    await a.endpoints.update('acct_1', created.endpoint.id, { disabled: false });
    expect(await a.sendsTo('acct_1')).toEqual(['https://two.example/hook']);
    await a.endpoints.remove('acct_1', created.endpoint.id);
    expect(await a.sendsTo('acct_1')).toEqual([]);
  });

  it('another instance follows once the notice reaches it; other accounts are not affected', async () => {
    const { store, deliver } = instrumented(inner);
    const a = await instance(store);
    const b = await instance(store);
    await b.endpoints.create('acct_2', { url: 'https://two.example/hook' });
    deliver();
    expect(await b.sendsTo('acct_1')).toEqual([]);
    expect(await b.sendsTo('acct_2')).toEqual(['https://two.example/hook']);
    await a.endpoints.create('acct_1', { url: 'https://one.example/hook' });
    deliver();
    expect(await b.sendsTo('acct_1')).toEqual(['https://one.example/hook']);
    expect(await b.sendsTo('acct_2')).toEqual(['https://two.example/hook']);
  });

  /** Two instances on lagging channels; `a` made an endpoint at `url` and `b` serves it from memory. */
  async function twoWithEndpoint(url: string) {
    const pa = delayedProcess(inner);
    const pb = delayedProcess(inner);
    pa.conn.held = false;
    pb.conn.held = false;
    const a = await instance(pa.store, 1_000);
    const b = await instance(pb.store, 1_000);
    const created = await a.endpoints.create('acct_1', { url });
    if (!created.ok) throw new Error(created.message);
    await new Promise((r) => setTimeout(r, 1_200)); // past the start: b serves from memory
    expect(await b.sendsTo('acct_1')).toEqual([url]);
    return { pa, pb, a, b, created };
  }

  it('a change answers only once another instance, whose channel lags, has dropped the account', async () => {
    const { pb, a, b, created } = await twoWithEndpoint('https://one.example/hook');
    pb.conn.held = true; // b's process is starved
    let answered = false;
    const updating = a.endpoints.update('acct_1', created.endpoint.id, { url: 'https://two.example/hook' }).then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    pb.conn.deliver();
    await updating;
    pb.conn.held = false;
    expect(await b.sendsTo('acct_1')).toEqual(['https://two.example/hook']);
  });

  it('a 410 Gone that disables an endpoint answers only once another instance, whose channel lags, has dropped it (as an API write does)', async () => {
    const { pa, pb, a, b, created } = await twoWithEndpoint('https://gone.example/hook');
    const [delivery] = await inner.table(WebhookDeliveries).findMany({ endpointId: created.endpoint.id, status: 'pending' });
    if (!delivery) throw new Error('no pending delivery to the endpoint');
    const signing = { signingSecrets: async () => ['whsec_test'] } as unknown as WebhookSecretsService;
    const dispatcher = new WebhookDispatcher({
      store: pa.store,
      secrets: signing,
      logger: pino({ level: 'silent' }),
      schedule: [0, 60_000],
      guard: false,
      endpoints: caches[0]!,
      send: async () => ({ ok: false, statusCode: 410, latencyMs: 1 }),
    });
    pb.conn.held = true; // b's process is starved
    let answered = false;
    const attempt = dispatcher.attemptNow(delivery.id, delivery.cycle, 60_000).then(() => (answered = true));
    await dispatcher.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);
      pb.conn.deliver();
      await attempt;
      pb.conn.held = false;
      expect((await inner.table(WebhookEndpoints).get(created.endpoint.id))?.disabledAt).toBeDefined();
      expect(await b.sendsTo('acct_1')).toEqual([]);
    } finally {
      pb.conn.held = false;
      pb.conn.deliver();
      await dispatcher.stop();
    }
  });

  it('nothing is remembered before the cache is started (its channel not listened to)', async () => {
    const { store, reads } = instrumented(inner);
    const cache = new EndpointCache(store);
    const outbox = new Outbox({ schedule: [0], secrets, endpoints: cache });
    const record = () => store.transaction((tx) => outbox.record(tx, 'payment.settled', payment('acct_1')));
    await record();
    await settleTick();
    const before = reads.n;
    await record();
    expect(reads.n).toBeGreaterThan(before);
    await cache.stop();
  });
});
