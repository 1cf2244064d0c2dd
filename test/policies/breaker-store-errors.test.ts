/**
 * The circuit breaker counts a key's refused and failed money-moving calls (docs/policies.md, "The
 * circuit breaker"); a call the store could not serve is the service's failure, not the key's, and
 * never counts: a database blip once paused a key. Real HTTP turns through an API key, real service
 * (anvil, the embedded store); the store error is injected at the transfer's own write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount, walletOf } from '../helpers/money.js';
import { failNextWrite } from '../helpers/store-faults.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { Breakers } from '../../src/policies/tables.js';

describe('the breaker and store errors', () => {
  let svc: TestService;
  let m: Merchant;

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '100/min' });
    m = await createMerchant(svc.api, 'Blip Shop');
    await fund(svc, (await svc.deps.accounts.get(m.accountId))!, '20');
    const put = await call(`${svc.api}/policies`, {
      method: 'PUT',
      cookie: m.cookie,
      body: { policy: { breaker: { max_failures: 2, window_seconds: 60, cooldown_seconds: 120 } }, password: 'correct horse battery' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const settle = (message: string) => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message } });

  it('turns that met a store error do not pause the key; a real failure still counts', { timeout: 60_000 }, async () => {
    const to = walletOf(svc, await newAccount(svc, { name: 'Wema', country: 'KE' }));
    for (let i = 0; i < 3; i++) {
      failNextWrite(svc.deps.store, Transfers.name, 'insert');
      const r = await settle(`send 1 USD to ${to}`);
      expect(r.status, JSON.stringify(r.body)).toBe(202);
    }
    // Before: the second blip tripped it and this answered 429 `policy_breaker`.
    const next = await settle(`send 1 USD to ${to}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body).toMatchObject({ ok: true, action: 'transfer' });
    const keyId = (await call(`${svc.api}/keys`, { cookie: m.cookie })).body.keys[0].id as string;
    expect((await svc.deps.store.table(Breakers).get(keyId))?.failures ?? []).toEqual([]);

    // Refusals by the network or the wallet still count: two over the balance pause the key.
    for (let i = 0; i < 2; i++) expect((await settle(`send 500 USD to ${to}`)).status).toBe(422);
    const paused = await settle(`send 1 USD to ${to}`);
    expect(paused.status).toBe(429);
    expect(paused.body).toMatchObject({ ok: false, reason: 'policy_breaker' });
  });
});
