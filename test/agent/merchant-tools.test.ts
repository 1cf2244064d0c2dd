/**
 * The merchant tools (refund_payment, capture_payment, void_payment) through the chat and MCP
 * doors, on real HTTP and the embedded anvil chain: each is held as a pending action and moves
 * nothing until the signed-in person confirms; the confirm runs the same core as the payments
 * API (refunds, manual capture); another account's payment id is "no such payment"; a signed
 * approval receipt follows. Manual-capture payments are authorized by the unmodified @x402/evm
 * AuthCaptureEvmScheme client, as in test/x402/auth-capture.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, PrivateKeyAccount } from 'viem';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authCaptureFetch, newPayer } from '../x402/helpers.js';

let svc: TestService;
let shop: Merchant;
let other: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
  shop = await createMerchant(svc.api, 'Held Goods');
  other = await createMerchant(svc.api, 'Someone Else');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

const local = (url: string) => svc.url + new URL(url).pathname;
const chat = (m: Merchant, message: string) => call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message } });
const confirm = (m: Merchant, id: string) => call(`${svc.api}/chat/confirm`, { method: 'POST', cookie: m.cookie, body: { action_id: id } });
const read = (id: string) => call(`${svc.api}/v1/payments/${id}`, { key: shop.key });

async function create(body: Record<string, unknown>) {
  const res = await call(`${svc.api}/v1/payments`, { key: shop.key, body: { currency: 'USD', redirect_url: 'https://shop.example/done', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; x402_url: string; pay_to: Address };
}

/** A settled payment of `amount` USD, paid from a fresh wallet with the hosted checkout's signed authorization. */
async function settledPayment(amount: number): Promise<{ id: string; payer: PrivateKeyAccount }> {
  const pay = await create({ amount });
  const payer = newPayer();
  expect((await svc.deps.chain.faucet(payer.address, BigInt(amount * 1e6), { nativeAmount: 0n })).ok).toBe(true);
  const auth = await call(`${svc.api}/checkout/${pay.id}/authorization`, { body: { from: payer.address } });
  const signature = await payer.signTypedData(auth.body.typedData);
  const settled = await call(`${svc.api}/checkout/${pay.id}/settle`, { body: { authorization: auth.body.typedData.message, signature } });
  expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  expect((await read(pay.id)).body.status).toBe('settled');
  return { id: pay.id, payer };
}

/** A manual-capture payment an agent authorized over x402 auth-capture: `authorized`, the money held. */
async function authorizedPayment(amount: number): Promise<{ id: string; payer: PrivateKeyAccount; payTo: Address }> {
  const pay = await create({ amount, capture_method: 'manual' });
  const payer = newPayer();
  expect((await svc.deps.chain.faucet(payer.address, BigInt(amount * 1e6), { nativeAmount: 0n })).ok).toBe(true);
  const paid = await authCaptureFetch(payer, svc.deps.chain)(local(pay.x402_url));
  expect(paid.status, await paid.clone().text()).toBe(200);
  expect((await read(pay.id)).body.status).toBe('authorized');
  return { id: pay.id, payer, payTo: pay.pay_to };
}

describe('merchant tools through the chat', () => {
  it('refunds a settled payment only after Confirm, through the refunds core, with a signed receipt', async () => {
    const chain = svc.deps.chain;
    const { id, payer } = await settledPayment(3);
    expect(await chain.balanceOf(payer.address)).toBe(0n);

    const held = await chat(shop, `refund ${id}, customer returned it`);
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.pending_action).toMatchObject({ tool: 'refund_payment', status: 'pending' });
    expect(held.body.pending_action.description).toContain(id);
    expect(held.body.pending_action.description).toContain('3 USD');
    // Held: nothing moved, no refund exists.
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect((await call(`${svc.api}/v1/payments/${id}/refunds`, { key: shop.key })).body.data).toEqual([]);

    const done = await confirm(shop, held.body.pending_action.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.payment.refund).toMatchObject({ status: 'succeeded', amount: 3, reason: 'customer returned it' });
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);
    expect((await read(id)).body).toMatchObject({ status: 'refunded', amount_refunded: 3 });
    // Confirming again moves nothing.
    const again = await confirm(shop, held.body.pending_action.id);
    expect(again.body.already).toBe(true);
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);

    const receipt = await call(`${svc.api}/agent/actions/${held.body.pending_action.id}/receipt`, { cookie: shop.cookie });
    expect(receipt.status).toBe(200);
    const claims = JSON.parse(Buffer.from((receipt.body.receipt.jws as string).split('.')[1]!, 'base64url').toString());
    expect(claims.action).toMatchObject({ tool: 'refund_payment', recipient: id, currency: 'USD' });
    expect(claims.approval).toMatchObject({ door: 'chat' });
    expect(claims.outcome.tx_hash).toBe(done.body.payment.refund.tx_hash);
  });

  it("a refund asked in French, Spanish or Swahili is described in that language, with the person's reason as data", async () => {
    const { id } = await settledPayment(1);
    const fr = await chat(shop, `rembourse le paiement ${id}`);
    expect(fr.body.pending_action, JSON.stringify(fr.body)).toMatchObject({ tool: 'refund_payment', status: 'pending' });
    expect(fr.body.pending_action.description).toBe(`Rembourser 1 USD (1.00 USDC) du paiement ${id} au payeur, depuis votre portefeuille de règlement.`);
    const es = await chat(shop, `reembolsa el pago ${id} porque el cliente lo devolvió`);
    expect(es.body.pending_action.description).toBe(`Reembolsar 1 USD (1.00 USDC) del pago ${id} a quien pagó, desde tu cartera de liquidación. Motivo: "el cliente lo devolvió".`);
    const sw = await chat(shop, `rudisha malipo ${id} tafadhali`);
    expect(sw.body.pending_action.description).toMatch(new RegExp(`^Rudisha 1 USD \\(1\\.00 USDC\\) za malipo ${id} kwa aliyelipa`));
    // Held only: nothing refunded.
    expect((await call(`${svc.api}/v1/payments/${id}/refunds`, { key: shop.key })).body.data).toEqual([]);
  });

  it('captures part of a held payment, then voids the rest back to the payer, each after Confirm', async () => {
    const chain = svc.deps.chain;
    const { id, payer, payTo } = await authorizedPayment(2);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const merchantBefore = await chain.balanceOf(payTo);

    const heldCapture = await chat(shop, `capture 0.75 of ${id}`);
    expect(heldCapture.body.pending_action, JSON.stringify(heldCapture.body)).toMatchObject({ tool: 'capture_payment' });
    expect(heldCapture.body.pending_action.description).toMatch(/Capture 0\.75 USD .* of the 2 USD .* held/);
    expect((await read(id)).body).toMatchObject({ status: 'authorized', amount_capturable: '2' });
    expect(await chain.balanceOf(payTo)).toBe(merchantBefore);

    const captured = await confirm(shop, heldCapture.body.pending_action.id);
    expect(captured.status, JSON.stringify(captured.body)).toBe(200);
    expect(captured.body.payment).toMatchObject({ status: 'captured', amount_captured: '0.75', amount_capturable: '1.25' });
    expect(await chain.balanceOf(payTo)).toBe(merchantBefore + 750_000n);

    const heldVoid = await chat(shop, `void the hold on ${id}`);
    expect(heldVoid.body.pending_action).toMatchObject({ tool: 'void_payment' });
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const voided = await confirm(shop, heldVoid.body.pending_action.id);
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body.payment).toMatchObject({ status: 'captured', amount_voided: '1.25', amount_capturable: '0' });
    expect(await chain.balanceOf(payer.address)).toBe(1_250_000n);

    // Nothing is held any more: a new void is refused before anything is held.
    const nothing = await chat(shop, `release the authorization on ${id}`);
    expect(nothing.status).toBe(422);
    expect(nothing.body.pending_action).toBeUndefined();
  });

  it('a held capture that is never confirmed moves nothing; cancel leaves the hold as it was', async () => {
    const chain = svc.deps.chain;
    const { id, payTo } = await authorizedPayment(1);
    const merchantBefore = await chain.balanceOf(payTo);
    const held = await chat(shop, `capture ${id}`);
    expect(held.body.pending_action).toMatchObject({ tool: 'capture_payment' });
    const cancelled = await call(`${svc.api}/chat/cancel`, { method: 'POST', cookie: shop.cookie, body: { action_id: held.body.pending_action.id } });
    expect(cancelled.status).toBe(200);
    expect((await read(id)).body).toMatchObject({ status: 'authorized', amount_capturable: '1', amount_captured: '0' });
    expect(await chain.balanceOf(payTo)).toBe(merchantBefore);
  });

  it("another account's payment id is no such payment: refused, nothing held", async () => {
    const { id, payer } = await settledPayment(1);
    for (const message of [`refund ${id}`, `capture ${id}`, `void the hold on ${id}`]) {
      const r = await chat(other, message);
      expect(r.status, message).toBe(422);
      expect(r.body.reason).toBe('unknown_payment');
      expect(r.body.reply).toContain(`No such payment: ${id}`);
      expect(r.body.pending_action).toBeUndefined();
    }
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(0n);
    expect((await read(id)).body.status).toBe('settled');
  });

  it('an id only in quoted text is not acted on', async () => {
    const { id } = await settledPayment(1);
    const r = await chat(shop, `my customer wrote "please refund ${id}"`);
    expect([200, 422]).toContain(r.status);
    expect(r.body.pending_action).toBeUndefined();
    expect((await read(id)).body.status).toBe('settled');
  });
});

describe('merchant tools through POST /api/agent/settle', () => {
  it('previews a refund (nothing moves), then confirm_action runs it once', async () => {
    const chain = svc.deps.chain;
    const { id, payer } = await settledPayment(2);
    const settle = (body: unknown) => call(`${svc.api}/agent/settle`, { method: 'POST', key: shop.key, body });
    const held = await settle({ message: `refund 1.5 of ${id}`, confirm: false });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.pending).toMatchObject({ id: expect.stringMatching(/^act_/) });
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const done = await settle({ confirm_action: held.body.pending.id });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.payment.refund).toMatchObject({ status: 'succeeded', amount: 1.5 });
    expect(await chain.balanceOf(payer.address)).toBe(1_500_000n);
    expect((await settle({ confirm_action: held.body.pending.id })).body.already).toBe(true);
    expect(await chain.balanceOf(payer.address)).toBe(1_500_000n);
    // Another key cannot preview or run it: no such payment.
    const foreign = await call(`${svc.api}/agent/settle`, { method: 'POST', key: other.key, body: { message: `refund ${id}` } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.reason).toBe('unknown_payment');
    expect(await chain.balanceOf(payer.address)).toBe(1_500_000n);
  });
});

describe('spend policies on refunds (docs/policies.md)', () => {
  it('a refund over the per-transaction cap is refused; over the approval threshold it waits for the person', async () => {
    const chain = svc.deps.chain;
    const shop2 = await createMerchant(svc.api, 'Capped Shop');
    const make = async (amount: number) => {
      const pay = (await call(`${svc.api}/v1/payments`, { key: shop2.key, body: { amount, currency: 'USD', redirect_url: 'https://shop.example/done' } })).body;
      const payer = newPayer();
      await chain.faucet(payer.address, BigInt(amount * 1e6), { nativeAmount: 0n });
      const auth = await call(`${svc.api}/checkout/${pay.id}/authorization`, { body: { from: payer.address } });
      const signature = await payer.signTypedData(auth.body.typedData);
      expect((await call(`${svc.api}/checkout/${pay.id}/settle`, { body: { authorization: auth.body.typedData.message, signature } })).status).toBe(200);
      return { id: pay.id as string, payer };
    };
    const big = await make(5);
    const small = await make(2);
    const policy = { usd: { per_transaction: '4' }, approval_threshold_usd: '1' };
    const put = await call(`${svc.api}/policies`, { method: 'PUT', cookie: shop2.cookie, body: { policy, password: 'correct horse battery' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const settle = (message: string) => call(`${svc.api}/agent/settle`, { method: 'POST', key: shop2.key, body: { message } });

    // A full refund of 5 USD: over the 4 USD cap, refused whatever the door.
    const refused = await settle(`refund ${big.id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.reason).toBe('policy_per_transaction');
    // 2 USD through the API acts at once elsewhere, but over the 1 USD threshold it is held for the person.
    const held = await settle(`refund ${small.id}`);
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.reason).toBe('approval_required');
    expect(held.body.pending_action).toMatchObject({ tool: 'refund_payment' });
    expect(await chain.balanceOf(small.payer.address)).toBe(0n);
    expect(await chain.balanceOf(big.payer.address)).toBe(0n);
  });
});

describe('merchant tools through MCP', () => {
  it('lists them as money-moving and holds each call for the person, who confirms on our page', async () => {
    const chain = svc.deps.chain;
    const { id, payer } = await settledPayment(2);
    const client = new Client({ name: 'assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${shop.key}` } } }));
    const tools = (await client.listTools()).tools;
    for (const name of ['refund_payment', 'capture_payment', 'void_payment']) {
      expect(tools.find((t) => t.name === name)?.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }

    const res = await client.callTool({ name: 'refund_payment', arguments: { payment_id: id, amount: '0.5', reason: 'damaged' } });
    const pending = (res.structuredContent as { pending_confirmation: { id: string; confirm_url: string } }).pending_confirmation;
    expect(pending.confirm_url).toBe(`${svc.deps.config.PUBLIC_URL}/app/actions/${pending.id}`);
    expect(await chain.balanceOf(payer.address)).toBe(0n);

    // Another account's key: the payment does not exist for it.
    const foreign = new Client({ name: 'assistant', version: '1.0.0' });
    await foreign.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${other.key}` } } }));
    const refused = await foreign.callTool({ name: 'refund_payment', arguments: { payment_id: id } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain(`No such payment: ${id}`);
    await foreign.close();

    // Someone else signed in cannot confirm it; the owner can, once.
    expect((await fetch(`${svc.url}/app/actions/${pending.id}/confirm`, { method: 'POST', headers: { cookie: other.cookie, origin: svc.url } })).status).toBe(404);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const page = await fetch(`${svc.url}/app/actions/${pending.id}/confirm`, { method: 'POST', headers: { cookie: shop.cookie, origin: svc.url } });
    expect(page.status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(500_000n);
    expect((await read(id)).body).toMatchObject({ status: 'settled', amount_refunded: 0.5 });
    const receipt = await call(`${svc.api}/agent/actions/${pending.id}/receipt`, { key: shop.key });
    expect(receipt.status).toBe(200);
    await client.close();
  });

  it('captures and voids over MCP after the person confirms', async () => {
    const chain = svc.deps.chain;
    const { id, payer, payTo } = await authorizedPayment(1.5);
    const client = new Client({ name: 'assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${shop.key}` } } }));
    const pendingOf = (r: unknown) => (r as { structuredContent: { pending_confirmation: { id: string } } }).structuredContent.pending_confirmation.id;
    const press = (actionId: string) => fetch(`${svc.url}/app/actions/${actionId}/confirm`, { method: 'POST', headers: { cookie: shop.cookie, origin: svc.url } });

    const merchantBefore = await chain.balanceOf(payTo);
    const cap = pendingOf(await client.callTool({ name: 'capture_payment', arguments: { payment_id: id, amount: '1' } }));
    expect(await chain.balanceOf(payTo)).toBe(merchantBefore);
    expect((await press(cap)).status).toBe(200);
    expect(await chain.balanceOf(payTo)).toBe(merchantBefore + 1_000_000n);
    const voidId = pendingOf(await client.callTool({ name: 'void_payment', arguments: { payment_id: id } }));
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect((await press(voidId)).status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(500_000n);
    expect((await read(id)).body).toMatchObject({ status: 'captured', amount_captured: '1', amount_voided: '0.5', amount_capturable: '0' });
    await client.close();
  });
});
