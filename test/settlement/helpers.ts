/** Fixtures for settlement tests: a real service (embedded anvil), merchants, funded customers. */
import { parseUnits, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import type { Payment } from '../../src/payments/payments.js';

export const usdc = (s: string) => parseUnits(s, 6);

export interface Ctx {
  svc: TestService;
  merchant: Merchant;
}

export async function setup(env: Record<string, string> = {}, opts: { dataDir?: string } = {}): Promise<Ctx> {
  const svc = await startTestService({ RECONCILE_INTERVAL: '1h', ...env }, opts);
  const merchant = await createMerchant(svc.api, 'Acme Books');
  return { svc, merchant };
}

export async function createPayment(ctx: Ctx, body: Record<string, unknown> = {}): Promise<{ id: string; checkout_url: string }> {
  const res = await call(`${ctx.svc.api}/v1/payments`, {
    key: ctx.merchant.key,
    body: { amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/thanks?order=42', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A fresh customer key; funded with `amount` of the stablecoin and `native` wei of gas money. */
export async function customer(ctx: Ctx, amount?: bigint, native = 0n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (amount !== undefined && amount > 0n) {
    const r = await ctx.svc.deps.chain.faucet(account.address, amount, { nativeAmount: native });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  }
  return account;
}

export interface Signed {
  authorization: Record<string, string>;
  signature: Hex;
  typedData: any;
}

/** What the page does: ask for the typed data, sign it as eth_signTypedData_v4 would. */
export async function authorize(
  ctx: Ctx,
  paymentId: string,
  signer: PrivateKeyAccount,
  tamper: (message: Record<string, string>) => void = () => {},
): Promise<Signed> {
  const res = await call(`${ctx.svc.api}/checkout/${paymentId}/authorization`, { body: { from: signer.address } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const typedData = res.body.typedData;
  tamper(typedData.message);
  const signature = await signer.signTypedData(typedData);
  return { authorization: typedData.message, signature, typedData };
}

export function settle(ctx: Ctx, paymentId: string, signed: Pick<Signed, 'authorization' | 'signature'>) {
  return call(`${ctx.svc.api}/checkout/${paymentId}/settle`, {
    body: { authorization: signed.authorization, signature: signed.signature },
  });
}

export async function paymentRecord(ctx: Ctx, id: string): Promise<any> {
  const res = await call(`${ctx.svc.api}/v1/payments/${id}`, { key: ctx.merchant.key });
  expect(res.status).toBe(200);
  return res.body;
}

export async function stored(ctx: Ctx, id: string): Promise<Payment> {
  const p = await ctx.svc.deps.payments.get(id);
  if (!p) throw new Error(`no payment ${id}`);
  return p;
}

/** The merchant's custodial wallet (where payments without a payout address settle). */
export async function merchantWallet(ctx: Ctx): Promise<Address> {
  const account = await ctx.svc.deps.accounts.get(ctx.merchant.accountId);
  return ctx.svc.deps.chain.custodialAddress(account!.walletIndex);
}

/** Polls `fn` until it returns a truthy value (bounded; no timed assertions). */
export async function until<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** anvil JSON-RPC (automine, mining, time) against the service's embedded chain. */
export async function anvil(ctx: Ctx, method: string, params: unknown[] = []): Promise<unknown> {
  return ctx.svc.deps.chain.publicClient.request({ method: method as never, params: params as never });
}
