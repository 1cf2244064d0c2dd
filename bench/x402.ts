/**
 * x402 benchmark: N x402 settles through the facilitator (`POST /api/x402/settle`, each a fresh
 * payer's EIP-3009 authorization with a random nonce) against N hosted-checkout settles
 * (`POST /api/checkout/:id/settle`), both over HTTP, concurrently, through the one relayer on the
 * embedded anvil, in the same run. Reports settles/s, p50/p99 to a mined receipt and the ratio.
 *
 *   npx tsx bench/x402.ts [settles]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/service.js';
import { CreatePaymentInput } from '../src/payments/payment-schemas.js';
import { TransferAuthorization, buildTransferTypedData } from '../src/chain/authorization.js';
import { percentile, pool } from './stats.js';

export interface X402BenchResult {
  settles: number;
  x402Seconds: number;
  x402PerSecond: number;
  x402P50Ms: number;
  x402P99Ms: number;
  checkoutSeconds: number;
  checkoutPerSecond: number;
  checkoutP50Ms: number;
  checkoutP99Ms: number;
  /** x402 settles/s divided by hosted-checkout settles/s. */
  ratio: number;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

async function timed(items: Array<() => Promise<void>>): Promise<{ seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    items.map(async (run) => {
      const start = performance.now();
      await run();
      latencies.push(performance.now() - start);
    }),
  );
  latencies.sort((a, b) => a - b);
  return { seconds: (performance.now() - t0) / 1000, latencies };
}

export async function benchX402(opts: { settles?: number; print?: (line: string) => void } = {}): Promise<X402BenchResult> {
  const n = opts.settles ?? 50;
  const print = opts.print ?? ((l: string) => console.log(l));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-x402-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir, RECONCILE_INTERVAL: '1h' });
  const svc = await startService(config, { print: () => {} });
  const api = `${svc.url}/api`;
  try {
    const { accounts, payments, chain, keys } = svc.deps;
    const settlement = svc.deps.settlement!;
    const created = await accounts.create({ name: 'Bench Shop' });
    if (!created.ok) throw new Error(created.message);
    const { secret } = await keys.create(created.account.id, { label: 'bench' });
    const payTo = chain.custodialAddress(created.account.walletIndex);
    const amount = 12_500_000n;

    // Setup (not measured): N signed x402 payloads and N signed checkout authorizations.
    const requirements = {
      scheme: 'exact',
      network: `eip155:${chain.chainId}`,
      amount: amount.toString(),
      asset: chain.tokenAddress,
      payTo,
      maxTimeoutSeconds: 600,
      extra: { name: chain.eip712Domain.name, version: chain.eip712Domain.version },
    };
    const x402Bodies: string[] = [];
    const checkout: Array<{ id: string; body: string }> = [];
    const input = CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' });
    await pool(
      Array.from({ length: n }, (_, i) => i),
      8,
      async () => {
        const payer = privateKeyToAccount(generatePrivateKey());
        const customer = privateKeyToAccount(generatePrivateKey());
        const [a, b] = await Promise.all([
          chain.faucet(payer.address, amount, { nativeAmount: 0n }),
          chain.faucet(customer.address, amount, { nativeAmount: 0n }),
        ]);
        if (!a.ok || !b.ok) throw new Error('faucet failed');
        const auth = {
          from: payer.address,
          to: payTo,
          value: amount,
          validAfter: 0n,
          validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
          nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) as Hex,
        };
        const { typedData, json } = buildTransferTypedData(chain.eip712Domain, auth);
        const signature = await payer.signTypedData(typedData);
        x402Bodies.push(
          JSON.stringify({ x402Version: 2, paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, authorization: json.message } }, paymentRequirements: requirements }),
        );
        const p = await payments.create(created.account.id, input);
        if (!p.ok) throw new Error(p.message);
        const issued = await settlement.authorizationFor(p.payment.id, customer.address);
        if (!issued.ok) throw new Error(issued.message);
        const authorization = TransferAuthorization.parse(issued.typedData.message);
        const sig = await customer.signTypedData(chain.transferWithAuthorizationTypedData(authorization).typedData);
        checkout.push({ id: p.payment.id, body: JSON.stringify({ authorization: issued.typedData.message, signature: sig }) });
      },
    );

    const post = (url: string, body: string, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const x = await timed(
      x402Bodies.map((body) => async () => {
        const r = (await (await post(`${api}/x402/settle`, body, { authorization: `Bearer ${secret}` })).json()) as { success: boolean; errorReason?: string };
        if (!r.success) throw new Error(`x402 settle failed: ${r.errorReason}`);
      }),
    );
    const c = await timed(
      checkout.map(({ id, body }) => async () => {
        const res = await post(`${api}/checkout/${id}/settle`, body);
        if (res.status !== 200) throw new Error(`checkout settle ${id}: ${res.status} ${await res.text()}`);
      }),
    );
    const result: X402BenchResult = {
      settles: n,
      x402Seconds: round(x.seconds, 3),
      x402PerSecond: round(n / x.seconds),
      x402P50Ms: round(percentile(x.latencies, 50)),
      x402P99Ms: round(percentile(x.latencies, 99)),
      checkoutSeconds: round(c.seconds, 3),
      checkoutPerSecond: round(n / c.seconds),
      checkoutP50Ms: round(percentile(c.latencies, 50)),
      checkoutP99Ms: round(percentile(c.latencies, 99)),
      ratio: round(c.seconds / x.seconds, 2),
    };
    print(`x402 facilitator: ${n} settles in ${result.x402Seconds} s = ${result.x402PerSecond}/s (p50 ${result.x402P50Ms} ms, p99 ${result.x402P99Ms} ms)`);
    print(`hosted checkout:  ${n} settles in ${result.checkoutSeconds} s = ${result.checkoutPerSecond}/s (p50 ${result.checkoutP50Ms} ms, p99 ${result.checkoutP99Ms} ms)`);
    print(`x402/checkout = ${result.ratio}`);
    return result;
  } finally {
    await svc.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchX402({ settles: Number(process.argv[2] ?? 50) }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
