import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, cp, rm, truncate } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, parseEventLogs, type Address, type Hex } from 'viem';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { nonceFor } from '../../src/chain/authorization.js';
import { readDeployment } from '../../src/chain/deployment.js';
import { LowdbStore } from '../../src/store/index.js';
import { Payments } from '../../src/payments/payments.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { serviceArgs } from '../helpers/service-build.js';
import { call, createMerchant, tempDir, type Merchant } from '../helpers/service.js';

/**
 * Issue 10 item 3: power loss. The whole process group (the service and its embedded anvil)
 * is SIGKILLed at a random moment while payments and transfers settle, several rounds over
 * one data directory. Anvil comes back from its last periodic dump, which lacks the newest
 * blocks; the relay journal must put every transaction the store counts as settled back on
 * the chain, and nothing may move twice.
 */
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const ROOT = path.resolve(path.dirname(MAIN), '..');

interface Running {
  child: ChildProcess;
  api: string;
  exited: Promise<void>;
}

// Diagnostics by hand: POWER_LOSS_KILL=settles waits for 3 reported settles in each round and
// cuts within 2.5 s after (harsher than the default random 1.5-4 s); POWER_LOSS_EVIDENCE=<dir>
// keeps each start's log and a copy of the data directory after each cut; POWER_LOSS_CUT_SHORT=1
// also leaves, after about half the cuts, a state file cut short as a cut in mid-dump does.
const EVIDENCE = process.env.POWER_LOSS_EVIDENCE;
const KILL_AFTER_SETTLES = process.env.POWER_LOSS_KILL === 'settles';

function startService(dataDir: string, tag = ''): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, serviceArgs(), {
      cwd: ROOT,
      // Its own process group: the kill takes anvil with it, as a power cut does.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: EVIDENCE ? 'info' : 'silent', PORT: '0', DATA_DIR: dataDir, RECONCILE_INTERVAL: '1s' },
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (EVIDENCE) void appendFile(path.join(EVIDENCE, `log${tag}.txt`), line + '\n');
      const m = /API: (http:\/\/\S+\/api)[,)]/.exec(line);
      if (m) resolve({ child, api: m[1]!, exited });
    });
    void exited.then(() => reject(new Error(`service exited during start: ${stderr}`)));
  });
}

async function powerCut(r: Running): Promise<void> {
  process.kill(-r.child.pid!, 'SIGKILL');
  await r.exited;
  // Let the kernel reap anvil too before the next start opens its state file.
  await new Promise((res) => setTimeout(res, 200));
}

async function stopCleanly(r: Running): Promise<void> {
  process.kill(r.child.pid!, 'SIGTERM');
  await r.exited;
}

let dataDir: string | undefined;
let live: Running | undefined;
afterAll(async () => {
  if (live && live.child.exitCode === null) await powerCut(live).catch(() => undefined);
  if (dataDir && EVIDENCE) await cp(dataDir, path.join(EVIDENCE, 'final'), { recursive: true });
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('power loss: the service and its embedded chain SIGKILLed together', () => {
  it('leaves no record settled without its money on the chain, and pays nothing twice', { timeout: 240_000 }, async () => {
    dataDir = await tempDir('sp-power-loss-');
    live = await startService(dataDir);
    const [payer, shop] = await Promise.all([createMerchant(live.api, 'Payer'), createMerchant(live.api, 'Shop')]);
    const me = await call(`${live.api}/me`, { cookie: payer.cookie });
    const payerWallet = me.body.account?.wallet?.address ?? me.body.wallet?.address;
    expect(payerWallet).toMatch(/^0x/);
    const funded = await call(`${live.api}/dev/faucet`, { body: { address: payerWallet, amount: '100000' } });
    expect(funded.status).toBe(200);

    const reportedSettled = { payments: new Set<string>(), transfers: new Set<string>() };
    for (let round = 0; round < 5; round++) {
      if (round > 0) live = await startService(dataDir, `-${round}`);
      let settledThisRound = 0;
      let onSettle = () => {};
      const api = live.api;
      let stop = false;
      const worker = async (kind: 'payment' | 'transfer') => {
        while (!stop) {
          try {
            if (kind === 'transfer') {
              const r = await call(`${api}/agent/settle`, { key: payer.key, body: { message: `send 1 USD to ${shop.email}` } });
              if (r.status === 200 && r.body.transfer?.status === 'settled') {
                reportedSettled.transfers.add(r.body.transfer.id);
                settledThisRound++;
                onSettle();
              }
            } else {
              const created = await call(`${api}/v1/payments`, {
                key: shop.key,
                body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done' },
              });
              if (created.status !== 201) continue;
              const paid = await call(`${api}/dev/test-wallet-pay/${created.body.id}`, { body: {} });
              if (paid.status === 200 && paid.body.payment?.status === 'settled') {
                reportedSettled.payments.add(created.body.id);
                settledThisRound++;
                onSettle();
              }
            }
          } catch {
            // The connection died with the service.
            return;
          }
        }
      };
      const workers = [worker('payment'), worker('payment'), worker('transfer'), worker('transfer')];
      // A random moment, so the kill lands anywhere: mid-send, mid-receipt, mid-dump.
      if (KILL_AFTER_SETTLES) {
        await new Promise<void>((r) => {
          onSettle = () => settledThisRound >= 3 && r();
          onSettle();
        });
        await new Promise((r) => setTimeout(r, Math.random() * 2500));
      } else {
        await new Promise((r) => setTimeout(r, 1500 + Math.random() * 2500));
      }
      await powerCut(live);
      stop = true;
      await Promise.all(workers);
      if (EVIDENCE) await cp(dataDir, path.join(EVIDENCE, `after-cut-${round}`), { recursive: true });
      if (process.env.POWER_LOSS_CUT_SHORT && Math.random() < 0.5) {
        await truncate(path.join(dataDir, 'chain', 'anvil-state.json'), 1000).catch(() => undefined);
        if (EVIDENCE) await appendFile(path.join(EVIDENCE, 'cut-short.txt'), `round ${round}\n`);
      }
    }

    // One last start: start-up re-broadcasts what the chain lost; the reconcilers finish the rest.
    live = await startService(dataDir, '-final');
    await new Promise((r) => setTimeout(r, 3000));
    await stopCleanly(live);

    // Read what the service recorded, and the chain it left behind (a clean stop dumps it in full).
    const store = await LowdbStore.open(dataDir);
    let anvil: AnvilHandle | undefined;
    try {
      const payments = await store.table(Payments).findMany();
      const transfers = await store.table(Transfers).findMany();
      anvil = await startAnvil({ stateFile: path.join(dataDir, 'chain', 'anvil-state.json') });
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      const token = (await readDeployment(path.join(dataDir, 'chain', 'deployment.json')))!.tokenAddress;
      const used = (from: Address, nonce: Hex) =>
        client.readContract({ address: token, abi: stablecoinAbi, functionName: 'authorizationState', args: [from, nonce] });

      const settledPayments = payments.filter((p) => p.status === 'settled');
      const settledTransfers = transfers.filter((t) => t.status === 'settled');
      // Every record reported settled over HTTP is settled in the store.
      expect([...reportedSettled.payments].filter((id) => !settledPayments.some((p) => p.id === id))).toEqual([]);
      expect([...reportedSettled.transfers].filter((id) => !settledTransfers.some((t) => t.id === id))).toEqual([]);
      expect(settledPayments.length + settledTransfers.length).toBeGreaterThan(10);

      // Settled in the store -> the authorization was used on chain, by the recorded transaction.
      const missing: string[] = [];
      for (const p of settledPayments) {
        const ok = (await used(p.payer as Address, nonceFor('payment', p.id))) && (await receiptOk(client, p.txHash as Hex, p.payer as Address, nonceFor('payment', p.id)));
        if (!ok) missing.push(p.id);
      }
      for (const t of settledTransfers) {
        const ok = (await used(t.fromAddress as Address, nonceFor('transfer', t.id))) && (await receiptOk(client, t.txHash as Hex, t.fromAddress as Address, nonceFor('transfer', t.id)));
        if (!ok) missing.push(t.id);
      }
      expect(missing).toEqual([]);

      // Nothing paid twice, and nothing paid that the store does not know: every transfer out of
      // the payer's wallet is exactly one recorded transfer's principal or fee.
      const logs = await client.getContractEvents({ address: token, abi: stablecoinAbi, eventName: 'Transfer', fromBlock: 0n, args: { from: payerWallet } });
      const expected = new Map<string, number>();
      for (const t of transfers) {
        const principal = await used(t.fromAddress as Address, nonceFor('transfer', t.id));
        const fee = await used(t.fromAddress as Address, nonceFor('transfer-fee', t.id));
        if (principal) expected.set(t.id, (expected.get(t.id) ?? 0) + 1);
        if (fee) expected.set(t.id, (expected.get(t.id) ?? 0) + 1);
        // A moved principal is never left unrecorded as failed.
        if (principal) expect(t.status === 'failed').toBe(false);
      }
      expect(logs.length).toBe([...expected.values()].reduce((a, b) => a + b, 0));
      for (const p of payments) {
        if (p.payer && (await used(p.payer as Address, nonceFor('payment', p.id)))) expect(p.status === 'failed' || p.status === 'expired').toBe(false);
      }
    } finally {
      await anvil?.stop();
      await store.close();
    }
  });
});

/** The recorded transaction succeeded and used exactly this authorization once (a transfer's batch also uses its fee's). */
async function receiptOk(client: ReturnType<typeof createPublicClient>, hash: Hex | undefined, authorizer: Address, nonce: Hex): Promise<boolean> {
  if (!hash) return false;
  const r = await client.getTransactionReceipt({ hash }).catch(() => undefined);
  if (!r || r.status !== 'success') return false;
  const uses = parseEventLogs({ abi: stablecoinAbi, eventName: 'AuthorizationUsed', logs: r.logs });
  return uses.filter((u) => u.args.authorizer.toLowerCase() === authorizer.toLowerCase() && u.args.nonce === nonce).length === 1;
}
