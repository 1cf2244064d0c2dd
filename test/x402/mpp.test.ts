/**
 * MPP beside x402 on a session's x402_url, proven with the unmodified `mppx/client` EVM charge
 * method (configured with our token's EIP-712 name and version): 402 with `WWW-Authenticate:
 * Payment` beside `PAYMENT-REQUIRED`, then the client pays with `Authorization: Payment`, gets 200
 * with a `Payment-Receipt` naming the transaction, the session settles exactly once, also when
 * the paid request arrives 20 times at once and when it is replayed afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mppx, evm } from 'mppx/client';
import { Receipt } from 'mppx';
import type { PrivateKeyAccount } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { newPayer } from './helpers.js';

let svc: TestService;
let merchant: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'MPP Shop');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

async function session() {
  const res = await call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done', description: 'Tea' } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, url: svc.url + new URL(res.body.x402_url).pathname, amount: BigInt(res.body.stablecoin_amount_base_units) };
}

async function funded() {
  const payer = newPayer();
  expect((await svc.deps.chain.faucet(payer.address, 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
  return payer;
}

/** The agent: mppx's own client with the EVM charge method; `paid` sees every paid request it sends. */
function mppClient(account: PrivateKeyAccount, paid: (req: Request) => Promise<Response> = (r) => fetch(r)) {
  const d = svc.deps.chain.eip712Domain;
  return Mppx.create({
    methods: [evm.charge({ account, authorization: { name: d.name, version: d.version }, networks: [svc.deps.chain.chainId], currencies: [svc.deps.chain.tokenAddress] })],
    polyfill: false,
    fetch: async (input, init) => {
      const req = new Request(input as RequestInfo, init);
      if (req.headers.get('authorization')?.startsWith('Payment ')) return paid(req);
      return fetch(req);
    },
  });
}

describe('MPP on x402_url', () => {
  it('offers WWW-Authenticate: Payment beside PAYMENT-REQUIRED; mppx pays; 200 with Payment-Receipt; settled once; a replay gets the same receipt', async () => {
    const s = await session();
    const unpaid = await fetch(s.url);
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('payment-required')).toBeTruthy();
    expect(unpaid.headers.get('www-authenticate')).toMatch(/^Payment /);
    expect(unpaid.headers.get('www-authenticate')).toContain('method="evm"');

    const payer = await funded();
    const sent: Request[] = [];
    const client = mppClient(payer, async (req) => {
      sent.push(req.clone());
      return fetch(req);
    });
    const res = await client.fetch(s.url);
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.get('payment-signature')).toBeNull();
    const receipt = Receipt.deserialize(res.headers.get('payment-receipt')!);
    expect(receipt).toMatchObject({ status: 'success', method: 'evm' });
    const payment = await svc.deps.payments.get(s.id);
    expect(payment?.status).toBe('settled');
    expect(receipt.reference).toBe(payment?.txHash);
    expect(await res.json()).toMatchObject({ ok: true, id: s.id, status: 'settled', tx_hash: payment?.txHash });
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n - s.amount);

    // The same credential again: the same receipt, nothing more moves.
    const again = await fetch(s.url, { headers: { authorization: sent[0]!.headers.get('authorization')! } });
    expect(again.status).toBe(200);
    expect(Receipt.deserialize(again.headers.get('payment-receipt')!).reference).toBe(payment?.txHash);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n - s.amount);
  });

  it('settles once when the paid request arrives 20 times at once; every answer carries the one transaction', async () => {
    const s = await session();
    const payer = await funded();
    let all: Response[] = [];
    const client = mppClient(payer, async (req) => {
      const auth = req.headers.get('authorization')!;
      all = await Promise.all(Array.from({ length: 20 }, () => fetch(req.url, { headers: { authorization: auth } })));
      return all[0]!.clone();
    });
    const res = await client.fetch(s.url);
    expect(res.status).toBe(200);
    expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
    const refs = new Set(all.map((r) => Receipt.deserialize(r.headers.get('payment-receipt')!).reference));
    expect(refs.size).toBe(1);
    const payment = await svc.deps.payments.get(s.id);
    expect([...refs][0]).toBe(payment?.txHash);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n - s.amount);
  });

  it('refuses a credential for another session (402 with a fresh challenge); nothing moves', async () => {
    const a = await session();
    const b = await session();
    const payer = await funded();
    let credential = '';
    const client = mppClient(payer, async (req) => {
      credential = req.headers.get('authorization')!;
      return new Response(null, { status: 500 });
    });
    await client.fetch(a.url).catch(() => undefined);
    expect(credential).toMatch(/^Payment /);
    const res = await fetch(b.url, { headers: { authorization: credential } });
    expect(res.status).toBe(402);
    expect(res.headers.get('www-authenticate')).toMatch(/^Payment /);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n);
    expect((await svc.deps.payments.get(b.id))?.status).toBe('pending');
  });
});
