/**
 * Issue 24, section 2, "where test mode settles": on a deployment whose only chain is a real
 * network (CHAIN_RPC_URL, played by a separate anvil with the token deployed by someone else),
 * test mode has no chain of its own, so no test-mode request may move money there. Test keys
 * cannot be made (409), a test key made before (the deployment moved from the embedded chain)
 * does not authenticate (403), the app's mode switch is ignored, and the core refuses every
 * test-mode move that could still be reached: a test-mode payment's checkout settle, its refund,
 * and a test key's agent move confirmed by the person. Balances on the network are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTokenChain } from '../chain/helpers.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authorize, settle, usdc, type Ctx } from '../settlement/helpers.js';
import { KeysService } from '../../src/keys/keys.js';
import { CreatePaymentInput } from '../../src/payments/schemas.js';

type TokenChain = Awaited<ReturnType<typeof startTokenChain>>;

describe('test mode on a deployment whose only chain is a real network', () => {
  let t: TokenChain;
  let svc: TestService;
  let m: Merchant;
  let wallet: Address;
  /** A test key made before the deployment moved to the real network. */
  let oldTestKey: { id: string; secret: string };

  beforeAll(async () => {
    t = await startTokenChain();
    svc = await startTestService({
      CHAIN_RPC_URL: t.anvil.rpcUrl,
      CHAIN_ID: String(t.anvil.chainId),
      TOKEN_ADDRESS: t.token,
      RELAYER_PRIVATE_KEY: await t.fundedKey(),
      RECONCILE_INTERVAL: '1h',
      AGENT_RATE_LIMIT: '1000/min',
    });
    m = await createMerchant(svc.api, 'Real Network Shop');
    wallet = svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
    await t.mint(wallet, usdc('50'));
    // What an embedded-chain deployment could make before: written straight to the store.
    oldTestKey = await new KeysService(svc.deps.store, true).create(m.accountId, { label: 'old sandbox', mode: 'test' });
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await t?.anvil.stop();
  });

  it('a test key cannot be created: 409 with param mode and why; a live key can', async () => {
    const made = await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } });
    expect(made.status).toBe(409);
    expect(made.body.error).toMatchObject({ type: 'invalid_request_error', param: 'mode' });
    expect(made.body.error.message).toMatch(/Test mode is not available on this service.*real/);
    const byKey = await call(`${svc.api}/keys`, { key: m.key, body: { label: 'sandbox', mode: 'test' } });
    expect(byKey.status).toBe(409);
    expect((await call(`${svc.api}/keys`, { cookie: m.cookie })).body.keys.filter((k: { mode: string }) => k.mode === 'test')).toHaveLength(1);
    const live = await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'prod' } });
    expect(live.status).toBe(201);
    expect(live.body.key.secret).toMatch(/^sk_live_/);
  });

  it('an older test key is refused (401, saying why) on every door: ping, payments, the agent, MCP', async () => {
    const before = await t.balanceOf(wallet);
    const asked = [
      call(`${svc.api}/v1/ping`, { key: oldTestKey.secret }),
      call(`${svc.api}/v1/payments`, { key: oldTestKey.secret, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/x' } }),
      call(`${svc.api}/agent/settle`, { key: oldTestKey.secret, body: { message: `send 1 USD to ${privateKeyToAccount(generatePrivateKey()).address}` } }),
      call(`${svc.api}/mcp`, { key: oldTestKey.secret, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }),
    ];
    for (const res of await Promise.all(asked)) {
      expect(res.status, JSON.stringify(res.body)).toBe(401);
      expect(JSON.stringify(res.body)).toContain('Test mode is not available');
    }
    expect(await t.balanceOf(wallet)).toBe(before);
  });

  it("the app's mode switch is ignored: a session asking for test mode sees live", async () => {
    const made = await call(`${svc.api}/webhook-endpoints`, { cookie: `${m.cookie}; sp_mode=test`, body: { url: 'https://hooks.example/live' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.endpoint.livemode).toBe(true);
  });

  it('a test-mode payment made before cannot be paid or refunded on the network; nothing moves', async () => {
    const created = await svc.core.payments.create(m.accountId, CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/thanks' }), undefined, false);
    expect(created.ok).toBe(true);
    const id = (created as { payment: { id: string } }).payment.id;
    const payer = privateKeyToAccount(generatePrivateKey());
    await t.mint(payer.address, usdc('20'));
    const ctx: Ctx = { svc, merchant: m };
    const signed = await authorize(ctx, id, payer);
    const res = await settle(ctx, id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(JSON.stringify(res.body)).toContain('test-mode payment');
    expect(await t.balanceOf(payer.address)).toBe(usdc('20'));
    expect((await svc.core.payments.get(id))!.status).toBe('pending');
    const refund = await svc.core.refunds.create(m.accountId, id, {}, undefined, false);
    expect(refund).toMatchObject({ ok: false, reason: 'test_mode_unavailable' });
  });

  it("a test key's agent move is refused in the core (whatever door asks); a live one moves", async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const before = await t.balanceOf(wallet);
    const turn = await svc.core.agent.runTurn({ accountId: m.accountId, message: `send 2 USD to ${to}`, channel: 'api', keyId: oldTestKey.id });
    expect(turn).toMatchObject({ ok: false, reason: 'test_mode_unavailable' });
    expect(turn.reply).toContain('Test mode is not available');
    expect(await t.balanceOf(to)).toBe(0n);
    expect(await t.balanceOf(wallet)).toBe(before);
    // The same move with a live key settles on the network.
    const live = await call(`${svc.api}/agent/settle`, { key: m.key, body: { message: `send 2 USD to ${to}` } });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(await t.balanceOf(to)).toBe(usdc('2'));
  });
});
