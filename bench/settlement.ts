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
import { CreatePaymentInput } from '../src/payments/payment-schemas.js';
import { TransferAuthorization } from '../src/chain/authorization.js';
import { stablecoinAbi } from '../src/chain/artifacts/stablecoin.js';
import { percentile, pool } from './stats.js';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** CPU seconds (user + system) of a process, from /proc; undefined off Linux. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The embedded anvil this process started (a child named anvil), for its CPU time. */
function anvilPid(): number | undefined {
  try {
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const [comm, rest] = [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), stat.slice(stat.lastIndexOf(')') + 2)];
      if (comm === 'anvil' && Number(rest.split(' ')[1]) === process.pid) return Number(d);
    }
  } catch {
    // not Linux
  }
  return undefined;
}

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
  /** Blocks the chain grew by in each phase (settlements share blocks when the chain batches them). */
  burstBlocks: number;
  pacedBlocks: number;
  bareBlocks: number;
  /** The same N bare transfers with batched JSON-RPC (calls of one tick in one HTTP request). */
  bareBatchedTransfersPerSecond: number;
  bareBatchedBlocks: number;
  /** settlements/s divided by batched bare transfers/s. */
  ratioBatched: number;
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
    const blockNow = () => chain.publicClient.getBlockNumber({ cacheTime: 0 });
    // CPU of this process (service and bench) and of anvil over the measured phases.
    const anvil = anvilPid();
    const cpu = () => ({ node: cpuSeconds(process.pid) ?? NaN, anvil: anvil ? (cpuSeconds(anvil) ?? NaN) : NaN });
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the two settlement phases only (not the setup).
    const profiler = process.env.BENCH_CPU_PROF ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const cpu0 = cpu();
    const latencies: number[] = [];
    const burstFrom = await blockNow();
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
    const burstBlocks = Number((await blockNow()) - burstFrom);
    const moved = (await chain.balanceOf(merchant)) - merchantBefore;
    const expected = prepared.reduce((s, p) => s + p.authorization.value, 0n);
    if (moved !== expected) throw new Error(`merchant received ${moved}, expected ${expected}`);

    // Measured: settles started at a steady offered rate (latency at that load, not in a burst).
    const pacedLatencies: number[] = [];
    const pacedFrom = await blockNow();
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
    const pacedBlocks = Number((await blockNow()) - pacedFrom);
    const cpu1 = cpu();
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      const file = path.join(process.env.BENCH_CPU_PROF!, `settlement-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      profiler.disconnect();
      print(`settlement: CPU profile of the measured phases in ${file}`);
    }
    pacedLatencies.sort((a, b) => a - b);

    // Baseline: N bare ERC-20 transfers sent at once by one funded account, one HTTP request
    // per JSON-RPC call (viem's default), then again with calls of one tick batched into one
    // request, as the service's own client does on the embedded chain (src/chain/boot.ts).
    const bareRun = async (batch: boolean) => {
      const sender = privateKeyToAccount(generatePrivateKey(), { nonceManager: createNonceManager({ source: jsonRpc() }) });
      const funded = await chain.faucet(sender.address, BigInt(n), { nativeAmount: parseEther('1') });
      if (!funded.ok) throw new Error(funded.message);
      const transport = http(chain.rpcUrl, batch ? { batch: { wait: 0 } } : {});
      const wallet = createWalletClient({ account: sender, chain: chain.publicClient.chain, transport });
      const sink = privateKeyToAccount(generatePrivateKey()).address;
      const times: number[] = [];
      const from = await blockNow();
      const t1 = performance.now();
      await Promise.all(
        Array.from({ length: n }, async () => {
          const start = performance.now();
          const hash = await wallet.writeContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [sink, 1n] });
          const receipt = await chain.waitForReceipt(hash);
          if (receipt.status !== 'success') throw new Error(`bare transfer ${hash}: ${receipt.status}`);
          times.push(performance.now() - start);
        }),
      );
      const secs = (performance.now() - t1) / 1000;
      return { times: times.sort((a, b) => a - b), seconds: secs, blocks: Number((await blockNow()) - from) };
    };
    const plain = await bareRun(false);
    const batched = await bareRun(true);
    const bare = plain.times;
    const bareSeconds = plain.seconds;
    const bareBlocks = plain.blocks;

    latencies.sort((a, b) => a - b);
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
      burstBlocks,
      pacedBlocks,
      bareBlocks,
      bareBatchedTransfersPerSecond: round(n / batched.seconds),
      bareBatchedBlocks: batched.blocks,
      ratioBatched: round(settlementsPerSecond / (n / batched.seconds), 2),
    };
    print(
      `settlement: ${n} payments in ${result.seconds} s = ${result.settlementsPerSecond} settlements/s; ` +
        `settle -> receipt p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; ${burstBlocks} blocks`,
    );
    print(
      `settlement baseline: ${n} bare ERC-20 transfers from one account in ${result.bareSeconds} s = ` +
        `${result.bareTransfersPerSecond} transfers/s (p50 ${result.bareP50Ms} ms, p99 ${result.bareP99Ms} ms; ${bareBlocks} blocks); ` +
        `settlement/bare = ${result.ratio}`,
    );
    print(
      `settlement baseline, batched JSON-RPC: ${n} bare transfers = ${result.bareBatchedTransfersPerSecond} transfers/s ` +
        `(${batched.blocks} blocks); settlement/batched bare = ${result.ratioBatched}`,
    );
    const per = (v: number) => round((v * 1000) / (2 * n), 2);
    print(
      `settlement CPU over both phases (${2 * n} settlements): this process ${per(cpu1.node - cpu0.node)} ms, ` +
        `anvil ${per(cpu1.anvil - cpu0.anvil)} ms per settlement`,
    );
    print(
      `settlement paced: ${n} settles offered at ${rate}/s, done at ${result.pacedAchievedPerSecond}/s; ` +
        `settle -> receipt p50 ${result.pacedP50Ms} ms, p99 ${result.pacedP99Ms} ms; ${pacedBlocks} blocks`,
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
