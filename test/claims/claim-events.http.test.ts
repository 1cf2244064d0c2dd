import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { usdcDecimal } from '../../src/lib/money.js';
import { until } from '../helpers/cluster.js';
import { startReceiver, waitFor, type Received, type Receiver } from '../webhooks/helpers.js';

/**
 * Issue 26: every claim step is a webhook event, through the real doors and the embedded anvil.
 * The sender's endpoint gets `transfer.claim_created`, `transfer.claimed`,
 * `transfer.claim_canceled` and `transfer.claim_expired`, signed (verified with the
 * `standardwebhooks` package) and listed by the events API byte for byte; a merchant account
 * that claims gets its own `transfer.claimed`. The expiry runs by itself (CLAIM_TTL of seconds,
 * allowed under NODE_ENV=test, and the `claims:sweep` job) and the money is back on-chain.
 */
describe('claim steps as webhook events (real HTTP, anvil)', () => {
  let svc: TestService;
  let sender: Merchant;
  let receiver: Receiver;
  let secret: string;
  let onlyExpired: Receiver;
  const wallet = async (id: string): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(id))!.walletIndex);
  const settle = (body: unknown) => call(`${svc.api}/agent/settle`, { key: sender.key, body });
  const of = (type: string, claimId: string) => (r: Received) => r.json?.type === type && r.json?.data?.id === claimId;
  const got = (pred: (r: Received) => boolean, rx = receiver) => waitFor(() => rx.received.find(pred), 20_000, 'a delivery');

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', CLAIM_TTL: '10s', RECONCILE_INTERVAL: '1s' });
    sender = await createMerchant(svc.api, 'Wanjiru');
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    const res = await svc.deps.chain.faucet(await wallet(sender.accountId), usdc('100'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
    const set = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', key: sender.key, body: { url: receiver.url } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    secret = set.body.secret;
    // An added endpoint can subscribe to one transfer event type.
    onlyExpired = await startReceiver();
    const added = await call(`${svc.api}/webhook-endpoints`, { key: sender.key, body: { url: onlyExpired.url, enabled_events: ['transfer.claim_expired'] } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await receiver?.close();
    await onlyExpired?.close();
  });

  it('the Developers screen offers the transfer event types', async () => {
    const page = await fetch(`${svc.url}/app/developers`, { headers: { cookie: sender.cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const t of ['transfer.claim_created', 'transfer.claimed', 'transfer.claim_canceled', 'transfer.claim_expired']) expect(html).toContain(`value="${t}"`);
  });

  /** Signed by the Standard Webhooks scheme and listed by the events API with the same body. */
  async function verified(r: Received, s = secret, key = sender.key) {
    expect(new StandardWebhook(s).verify(r.body, r.headers as Record<string, string>)).toEqual(r.json);
    const listed = await call(`${svc.api}/v1/events/${r.json.id}`, { key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(r.json);
  }

  const feeWallet = () => svc.deps.chain.custodialAddress(FEE_WALLET_INDEX);
  const feeCollected = (id: string) => until(async () => ((await svc.deps.claims.get(id))!.feeSettled ? true : undefined), `fee of ${id} collected`, 20_000);

  it('unclaimed: transfer.claim_created, then by itself transfer.claim_expired; the amount is back on-chain and our fee kept (h17claimfee)', async () => {
    const from = await wallet(sender.accountId);
    const start = await balance(svc, from);
    const feeStart = await balance(svc, feeWallet());
    const sent = await settle({ message: 'send 1000 KES to +254 712 000 333' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id: string = sent.body.transfer.id;
    const created = await got(of('transfer.claim_created', id));
    await verified(created);
    expect(created.json.data).toMatchObject({ id, object: 'transfer', type: 'claim', role: 'sender', status: 'open', currency: 'USDC', source_currency: 'KES', recipient: '+2547•••••333' });
    const c = (await svc.deps.claims.get(id))!;
    expect(await balance(svc, from)).toBe(start - BigInt(c.total));

    // Nobody claims: the sweep returns it once CLAIM_TTL has passed.
    const expired = await got(of('transfer.claim_expired', id));
    await verified(expired);
    // DESIGN section 11: our fee is kept on expiry; the event says what went back and what was kept.
    expect(expired.json.data).toMatchObject({ id, status: 'expired', returned_amount: usdcDecimal(c.amount), fee_kept: usdcDecimal(c.fee), fee: usdcDecimal(c.fee) });
    expect((await svc.deps.claims.get(id))!.status).toBe('expired');
    expect(expired.json.data.tx_hash).toBe((await svc.deps.claims.get(id))!.returnTxHash);
    await feeCollected(id);
    expect(BigInt(c.fee)).toBeGreaterThan(0n);
    expect(await balance(svc, from)).toBe(start - BigInt(c.fee));
    expect(await balance(svc, feeWallet())).toBe(feeStart + BigInt(c.fee));
    expect(await balance(svc, c.escrowAddress as Address)).toBe(0n);
    const listed = await call(`${svc.api}/v1/events?type=transfer.claim_expired`, { key: sender.key });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(expired.json.id);
    // The endpoint subscribed to transfer.claim_expired only got that one.
    await got(of('transfer.claim_expired', id), onlyExpired);
    expect(onlyExpired.received.map((r) => r.json.type)).toEqual(['transfer.claim_expired']);
  });

  it('canceled: transfer.claim_canceled, carrying the amount returned and the fee kept (h17claimfee)', async () => {
    const from = await wallet(sender.accountId);
    const start = await balance(svc, from);
    const feeStart = await balance(svc, feeWallet());
    const sent = await settle({ message: 'send 200 KES to nobody.yet@example.com' });
    const id: string = sent.body.transfer.id;
    await got(of('transfer.claim_created', id));
    const c = (await svc.deps.claims.get(id))!;
    const canceled = await call(`${svc.api}/claims/${id}/cancel`, { key: sender.key, body: {} });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', returned_amount: usdcDecimal(c.amount), fee_kept: usdcDecimal(c.fee) });
    const ev = await got(of('transfer.claim_canceled', id));
    await verified(ev);
    expect(ev.json.data).toMatchObject({ status: 'canceled', role: 'sender', returned_amount: usdcDecimal(c.amount), fee_kept: usdcDecimal(c.fee) });
    await feeCollected(id);
    expect(await balance(svc, from)).toBe(start - BigInt(c.fee));
    expect(await balance(svc, feeWallet())).toBe(feeStart + BigInt(c.fee));
    expect(await balance(svc, c.escrowAddress as Address)).toBe(0n);
    // A few sweeps later: each leg once, one event.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await balance(svc, from)).toBe(start - BigInt(c.fee));
    expect(await balance(svc, feeWallet())).toBe(feeStart + BigInt(c.fee));
    expect(receiver.received.filter(of('transfer.claim_canceled', id))).toHaveLength(1);
  });

  it('claimed by a merchant account: the sender and the claimant each get transfer.claimed, once', async () => {
    const email = `claimant${Date.now()}@example.com`;
    const sent = await settle({ message: `send 300 KES to ${email}` });
    const id: string = sent.body.transfer.id;
    const token = (sent.body.transfer.claim_url as string).split('/claim/')[1]!;
    // The recipient signs up with that email and sets an endpoint before claiming.
    const mine = await startReceiver();
    try {
      const signup = await fetch(`${svc.api}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery', name: 'Shop' }) });
      expect(signup.status).toBe(201);
      const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
      const set = await call(`${svc.api}/webhook-endpoint`, { method: 'PUT', cookie, body: { url: mine.url } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      const claimed = await fetch(`${svc.url}/claim/${token}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: svc.url, cookie }, body: '' });
      expect(claimed.status).toBe(200);
      const forSender = await got(of('transfer.claimed', id));
      await verified(forSender);
      expect(forSender.json.data).toMatchObject({ role: 'sender', status: 'claimed' });
      const forClaimant = await got(of('transfer.claimed', id), mine);
      expect(new StandardWebhook(set.body.secret).verify(forClaimant.body, forClaimant.headers as Record<string, string>)).toEqual(forClaimant.json);
      expect(forClaimant.json.data).toMatchObject({ role: 'recipient', status: 'claimed', id });
      // A few sweeps later, still exactly one event per step.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(receiver.received.filter(of('transfer.claimed', id))).toHaveLength(1);
      expect(receiver.received.filter(of('transfer.claim_created', id))).toHaveLength(1);
      expect(mine.received.filter(of('transfer.claimed', id))).toHaveLength(1);
    } finally {
      await mine.close();
    }
  });
});
