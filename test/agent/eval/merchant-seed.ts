/**
 * The merchant set's fixtures (merchant.json): for each sender, one settled payment (paid with the
 * hosted checkout's signed authorization) and one manual-capture payment an agent authorized with
 * the unmodified @x402/evm AuthCaptureEvmScheme client (held in escrow). Cases name them by slot,
 * "{settled}" and "{held}"; the ids go in `ids` as `<from>/<slot>`.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import type { TestService } from '../../helpers/service.js';
import type { EvalCase } from './score.js';

type Seeded = { key: string };

async function post(url: string, body: unknown, key?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function seedMerchantPayments(svc: TestService, cases: EvalCase[], accounts: Map<string, Seeded>, ids: Map<string, string>): Promise<void> {
  const chain = svc.deps.chain;
  const network = `eip155:${chain.chainId}` as const;
  for (const from of new Set(cases.map((c) => c.from))) {
    const key = accounts.get(from)!.key;
    const make = async (body: Record<string, unknown>) => {
      const r = await post(`${svc.api}/v1/payments`, { currency: 'USD', redirect_url: 'https://shop.example/done', ...body }, key);
      if (r.status !== 201) throw new Error(`merchant fixture for ${from}: ${JSON.stringify(r.body)}`);
      return r.body as { id: string; x402_url: string };
    };
    const payer = () => {
      const account = privateKeyToAccount(generatePrivateKey());
      return chain.faucet(account.address, 20_000_000n, { nativeAmount: 0n }).then(() => account);
    };

    const settled = await make({ amount: 10 });
    const p1 = await payer();
    const auth = await post(`${svc.api}/checkout/${settled.id}/authorization`, { from: p1.address });
    const signature = await p1.signTypedData(auth.body.typedData);
    const done = await post(`${svc.api}/checkout/${settled.id}/settle`, { authorization: auth.body.typedData.message, signature });
    if (done.status !== 200) throw new Error(`settling the fixture of ${from}: ${JSON.stringify(done.body)}`);
    ids.set(`${from}/settled`, settled.id);

    const held = await make({ amount: 4, capture_method: 'manual' });
    const p2 = await payer();
    const client = x402Client.fromConfig({
      schemes: [{ network, client: new AuthCaptureEvmScheme(p2 as never) }],
      spendControls: { allowedAssets: [{ network, asset: chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
    });
    const paid = await wrapFetchWithPayment(fetch, client)(svc.url + new URL(held.x402_url).pathname);
    if (paid.status !== 200) throw new Error(`authorizing the fixture of ${from}: ${await paid.text()}`);
    ids.set(`${from}/held`, held.id);
  }
}
