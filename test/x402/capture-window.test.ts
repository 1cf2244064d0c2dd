/**
 * DESIGN.md section 11: `capture_within_minutes` on create (1-10080, default 10080 = 7 days) sets
 * the auth-capture requirement's `captureDeadline`. h17tour: the field was refused as unknown
 * ("Received unknown parameter: capture_within_minutes."), so every hold lasted the deployment's
 * AUTH_CAPTURE_HOLD. Real HTTP, the embedded chain with the escrow, the real auth-capture client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authCaptureFetch } from './helpers.js';

let svc: TestService;
let merchant: Merchant;
beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Window Rental');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

const create = (extra: Record<string, unknown>) =>
  call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/t', ...extra } });

async function deadlineOffered(id: string): Promise<number> {
  const asked = await fetch(`${svc.api}/checkout/${id}/x402`);
  expect(asked.status).toBe(402);
  const required = JSON.parse(Buffer.from(asked.headers.get('payment-required')!, 'base64').toString());
  return Number(required.accepts[0].extra.captureDeadline);
}

describe('capture_within_minutes (manual capture)', () => {
  it('sets the hold the agent is offered and the payment\'s capture_before; without it, 7 days', async () => {
    const made = await create({ capture_method: 'manual', capture_within_minutes: 30 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const now = Math.floor(Date.now() / 1000);
    expect(Math.abs((await deadlineOffered(made.body.id)) - (now + 30 * 60))).toBeLessThan(30);

    const plain = await create({ capture_method: 'manual' });
    expect(plain.status).toBe(201);
    expect(Math.abs((await deadlineOffered(plain.body.id)) - (now + 7 * 86_400))).toBeLessThan(30);

    // An agent authorizes with the unmodified client: the hold is voided after 30 minutes, not 7 days.
    const chain = svc.deps.chain;
    const agent = privateKeyToAccount(generatePrivateKey());
    expect((await chain.faucet(agent.address, 3_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const paid = await authCaptureFetch(agent, chain)(`${svc.api}/checkout/${made.body.id}/x402`);
    expect(paid.status, await paid.clone().text()).toBe(200);
    const read = await call(`${svc.api}/v1/payments/${made.body.id}`, { key: merchant.key });
    expect(read.body.status).toBe('authorized');
    expect(Math.abs(Date.parse(read.body.capture_before) / 1000 - (now + 30 * 60))).toBeLessThan(30);
  }, 120_000);

  it('is checked like every field: 1-10080 whole minutes, and only with capture_method "manual"', async () => {
    for (const v of [0, 10081, 1.5, '30', null]) {
      const r = await create({ capture_method: 'manual', capture_within_minutes: v });
      expect(r.status, String(v)).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'capture_within_minutes' });
    }
    const automatic = await create({ capture_within_minutes: 30 });
    expect(automatic.status).toBe(400);
    expect(automatic.body.error).toMatchObject({ type: 'invalid_request_error', param: 'capture_within_minutes', message: expect.stringMatching(/needs capture_method "manual"/) });
    expect((await create({ capture_method: 'manual', capture_within_minutes: 1 })).status).toBe(201);
    expect((await create({ capture_method: 'manual', capture_within_minutes: 10080 })).status).toBe(201);
  });
});
