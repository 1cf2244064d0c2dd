/**
 * Settlement benchmark: N checkout payments, each signed by its own customer, settled
 * concurrently through the one relayer on the embedded anvil (verify, relay, receipt, state
 * change). Reports settlements/s, p50/p99 from the `settle` call to the receipt being
 * applied, and the ratio to bare ERC-20 `transfer`s sent concurrently by one account on the
 * same chain in the same run (the chain's own ceiling for one sender).
 *
 * A second phase starts settles at a steady offered rate (default 100/s) and reports the
 * settle -> receipt latency at that load.
 *
 *   npx tsx bench/settlement.ts [payments] [rate]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createNonceManager, createWalletClient, http, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/service.js';
import { CreatePaymentInput } from '../src/payments/schemas.js';
import { TransferAuthorization } from '../src/chain/authorization.js';
import { stablecoinAbi } from '../src/chain/artifacts/stablecoin.js';
import { percentile, pool } from './stats.js';

export interface SettlementBenchResult {
  payments: number;
  seconds: number;
  settlementsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bareTransfers: number;
  bareSeconds: number;
  bareTransfersPerSecond: number;
  bareP50Ms: number;
  bareP99Ms: number;
  /** settlements/s divided by bare transfers/s. */
  ratio: number;
  /** Paced phase: settles started at `pacedRate`/s; latency at that offered load. */
  pacedRate: number;
  pacedAchievedPerSecond: number;
  pacedP50Ms: number;
  pacedP99Ms: number;
}

export interface SettlementBenchOptions {
  payments?: number;
  /** Offered rate of the paced phase (settles started per second). Default 100. */
  rate?: number;
  print?: (line: string) => void;
}



const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function benchSettlement(opts: SettlementBenchOptions = {}): Promise<SettlementBenchResult> {
  const n = opts.payments ?? 50;
  const print = opts.print ?? ((l: string) => console.log(l));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-settlement-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir, RECONCILE_INTERVAL: '1h' });
  const svc = await startService(config, { print: () => {} });
  try {
    const { accounts, payments, chain } = svc.deps;
    const settlement = svc.deps.settlement;
    if (!settlement) throw new Error('settlement is not wired');

    // Setup (not measured): a merchant, N payments, N funded customers with signed authorizations.
    const created = await accounts.create({ name: 'Bench Shop' });
    if (!created.ok) throw new Error(created.message);
    const input = CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' });
    const prepared: Array<{ id: string; authorization: TransferAuthorization; signature: Hex }> = [];
    const rate = opts.rate ?? 100;
    await pool(
      Array.from({ length: 2 * n }, (_, i) => i),
      8,
      async () => {
        const p = await payments.create(created.account.id, input);
        if (!p.ok) throw new Error(p.message);
        const customer = privateKeyToAccount(generatePrivateKey());
        const issued = await settlement.authorizationFor(p.payment.id, customer.address);
        if (!issued.ok) throw new Error(issued.message);
        const authorization = TransferAuthorization.parse(issued.typedData.message);
        const funded = await chain.faucet(customer.address, authorization.value, { nativeAmount: 0n });
        if (!funded.ok) throw new Error(funded.message);
        const signature = await customer.signTypedData(chain.transferWithAuthorizationTypedData(authorization).typedData);
        prepared.push({ id: p.payment.id, authorization, signature });
      },
    );
    const merchant = chain.custodialAddress(created.account.walletIndex);
    const merchantBefore = await chain.balanceOf(merchant);
    const paced = prepared.splice(n);

    // Measured: all settles at once through the one relayer.
    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      prepared.map(async ({ id, authorization, signature }) => {
        const start = performance.now();
        const r = await settlement.settle(id, { authorization, signature });
        if (!r.ok || r.payment.status !== 'settled') throw new Error(`settle ${id}: ${r.ok ? r.payment.status : r.reason}`);
        latencies.push(performance.now() - start);
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const moved = (await chain.balanceOf(merchant)) - merchantBefore;
    const expected = prepared.reduce((s, p) => s + p.authorization.value, 0n);
    if (moved !== expected) throw new Error(`merchant received ${moved}, expected ${expected}`);

    // Measured: settles started at a steady offered rate (latency at that load, not in a burst).
    const pacedLatencies: number[] = [];
    const tp = performance.now();
    await Promise.all(
      paced.map(async ({ id, authorization, signature }, i) => {
        await new Promise((r) => setTimeout(r, (i * 1000) / rate));
        const start = performance.now();
        const r = await settlement.settle(id, { authorization, signature });
        if (!r.ok || r.payment.status !== 'settled') throw new Error(`settle ${id}: ${r.ok ? r.payment.status : r.reason}`);
        pacedLatencies.push(performance.now() - start);
      }),
    );
    const pacedSeconds = (performance.now() - tp) / 1000;
    pacedLatencies.sort((a, b) => a - b);

    // Baseline: N bare ERC-20 transfers sent at once by one funded account.
    const sender = privateKeyToAccount(generatePrivateKey(), { nonceManager: createNonceManager({ source: jsonRpc() }) });
    const funded = await chain.faucet(sender.address, BigInt(n), { nativeAmount: parseEther('1') });
    if (!funded.ok) throw new Error(funded.message);
    const wallet = createWalletClient({ account: sender, chain: chain.publicClient.chain, transport: http(chain.rpcUrl) });
    const sink = privateKeyToAccount(generatePrivateKey()).address;
    const bare: number[] = [];
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: n }, async () => {
        const start = performance.now();
        const hash = await wallet.writeContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [sink, 1n] });
        const receipt = await chain.waitForReceipt(hash);
        if (receipt.status !== 'success') throw new Error(`bare transfer ${hash}: ${receipt.status}`);
        bare.push(performance.now() - start);
      }),
    );
    const bareSeconds = (performance.now() - t1) / 1000;

    latencies.sort((a, b) => a - b);
    bare.sort((a, b) => a - b);
    const settlementsPerSecond = n / seconds;
    const bareTransfersPerSecond = n / bareSeconds;
    const result: SettlementBenchResult = {
      payments: n,
      seconds: round(seconds, 3),
      settlementsPerSecond: round(settlementsPerSecond),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      bareTransfers: n,
      bareSeconds: round(bareSeconds, 3),
      bareTransfersPerSecond: round(bareTransfersPerSecond),
      bareP50Ms: round(percentile(bare, 50)),
      bareP99Ms: round(percentile(bare, 99)),
      ratio: round(settlementsPerSecond / bareTransfersPerSecond, 2),
      pacedRate: rate,
      pacedAchievedPerSecond: round(n / pacedSeconds),
      pacedP50Ms: round(percentile(pacedLatencies, 50)),
      pacedP99Ms: round(percentile(pacedLatencies, 99)),
    };
    print(
      `settlement: ${n} payments in ${result.seconds} s = ${result.settlementsPerSecond} settlements/s; ` +
        `settle -> receipt p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
    );
    print(
      `settlement baseline: ${n} bare ERC-20 transfers from one account in ${result.bareSeconds} s = ` +
        `${result.bareTransfersPerSecond} transfers/s (p50 ${result.bareP50Ms} ms, p99 ${result.bareP99Ms} ms); ` +
        `settlement/bare = ${result.ratio}`,
    );
    print(
      `settlement paced: ${n} settles offered at ${rate}/s, done at ${result.pacedAchievedPerSecond}/s; ` +
        `settle -> receipt p50 ${result.pacedP50Ms} ms, p99 ${result.pacedP99Ms} ms`,
    );
    return result;
  } finally {
    await svc.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchSettlement({
    payments: process.argv[2] ? Number(process.argv[2]) : undefined,
    rate: process.argv[3] ? Number(process.argv[3]) : undefined,
  }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
