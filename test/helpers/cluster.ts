import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, http, type Address, type Hex } from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { deployStablecoin } from '../../src/chain/deployment.js';
import { serviceArgs } from './service-build.js';
import { tempDir } from './service.js';

/**
 * Several service processes (`src/main.ts`) as one deployment (docs/deploy.md): one PostgreSQL
 * database, one shared anvil with the stablecoin deployed by anvil's first dev account (its
 * owner and minter), one relayer key per instance from the other dev accounts, the same
 * WALLET_MNEMONIC and the same webhookSecretKey (a copied secrets.json). Used by the
 * multi-instance test and the instances benchmark.
 */
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const ROOT = path.resolve(path.dirname(MAIN), '..');
/** anvil's well-known development mnemonic: its accounts start with 10,000 ETH each. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export const devAccount = (i: number) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });

export interface SharedChain {
  anvil: AnvilHandle;
  rpcUrl: string;
  tokenAddress: Address;
  publicClient: ReturnType<typeof publicFor>;
  /** Mints `amount` base units to `to` from the token owner (waits for the receipt). */
  mint(to: Address, amount: bigint): Promise<void>;
  stop(): Promise<void>;
}

function publicFor(rpcUrl: string) {
  return createPublicClient({ chain: { ...foundry, rpcUrls: { default: { http: [rpcUrl] } } }, transport: http(rpcUrl), pollingInterval: 50 });
}

/** A fresh anvil with the stablecoin deployed by dev account 0; `blockTimeSeconds` mines on an interval. */
export async function startSharedChain(opts: { blockTimeSeconds?: number } = {}): Promise<SharedChain> {
  const anvil = await startAnvil(opts.blockTimeSeconds ? { blockTimeSeconds: opts.blockTimeSeconds } : {});
  const rpcUrl = anvil.rpcUrl;
  const chain = { ...foundry, rpcUrls: { default: { http: [rpcUrl] } } };
  const publicClient = publicFor(rpcUrl);
  const owner = createWalletClient({ account: devAccount(0), chain, transport: http(rpcUrl) });
  try {
    const d = await deployStablecoin(publicClient, owner);
    const tokenAddress = d.tokenAddress;
    // Mints go one at a time: the owner's nonces come from the node.
    let queue: Promise<unknown> = Promise.resolve();
    const mint = (to: Address, amount: bigint) => {
      const next = queue.then(async () => {
        const hash = await owner.writeContract({ address: tokenAddress, abi: stablecoinAbi, functionName: 'mint', args: [to, amount] });
        const r = await publicClient.waitForTransactionReceipt({ hash });
        if (r.status !== 'success') throw new Error(`mint ${hash} ${r.status}`);
      });
      queue = next.catch(() => undefined);
      return next;
    };
    return { anvil, rpcUrl, tokenAddress, publicClient, mint, stop: () => anvil.stop() };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}

export interface Instance {
  name: string;
  child: ChildProcess;
  api: string;
  dataDir: string;
  relayer: Address;
  /** stdout and stderr lines (the service logs JSON at LOG_LEVEL). */
  logs: string[];
  exited: Promise<number | null>;
  /** SIGKILL: no shutdown, no lease release, requests in flight cut. */
  kill(): Promise<void>;
  /** SIGTERM and wait (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  databaseUrl: string;
  chain: SharedChain;
  /** Extra environment for every instance. */
  env?: Record<string, string>;
}

export interface Cluster {
  mnemonic: string;
  /** `env`: extra environment for this instance only (e.g. a fault to inject). */
  start(name: string, relayerIndex: number, env?: Record<string, string>): Promise<Instance>;
  /** Stops (SIGTERM) every instance still running and removes their data dirs. */
  stopAll(): Promise<void>;
}

export function cluster(opts: ClusterOptions): Cluster {
  const mnemonic = generateMnemonic(english);
  const webhookSecretKey = randomBytes(32).toString('hex');
  const started: Instance[] = [];
  return {
    mnemonic,
    async start(name, relayerIndex, extraEnv = {}) {
      const dataDir = await tempDir(`sp-cluster-${name}-`);
      await mkdir(dataDir, { recursive: true });
      // The same webhook secret box key on every instance (docs/deploy.md: copy secrets.json).
      await writeFile(path.join(dataDir, 'secrets.json'), JSON.stringify({ webhookSecretKey }), { mode: 0o600 });
      const relayer = devAccount(relayerIndex);
      const key = relayer.getHdKey().privateKey!;
      const relayerKey = `0x${Buffer.from(key).toString('hex')}` as Hex;
      const env: Record<string, string> = {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: opts.databaseUrl,
        CHAIN_RPC_URL: opts.chain.rpcUrl,
        CHAIN_ID: '31337',
        TOKEN_ADDRESS: opts.chain.tokenAddress,
        RELAYER_PRIVATE_KEY: relayerKey,
        WALLET_MNEMONIC: mnemonic,
        ANTHROPIC_API_KEY: '',
        TELEGRAM_BOT_TOKEN: '',
        TELEGRAM_WEBHOOK_URL: '',
        PUBLIC_URL: '',
        // Five connections per instance instead of the default ten: a file runs three or more
        // instances on one database, and CI runs several files at once against a server allowing
        // 100 clients (at ten, three such files at once used them all up: docs/testing.md, "CI
        // wall time"). The races these tests are about are between instances, not within a pool.
        DATABASE_POOL_MAX: '5',
        ...opts.env,
        ...extraEnv,
      } as Record<string, string>;
      delete env.TEST_STORE;
      const child = spawn(process.execPath, serviceArgs(), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
      const logs: string[] = [];
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      readline.createInterface({ input: child.stderr! }).on('line', (l) => logs.push(l));
      const api = await new Promise<string>((resolve, reject) => {
        readline.createInterface({ input: child.stdout! }).on('line', (line) => {
          logs.push(line);
          const m = /API: (http:\/\/\S+\/api)[,)]/.exec(line);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`instance ${name} exited (${code}) during start:\n${logs.slice(-30).join('\n')}`)));
      });
      const inst: Instance = {
        name,
        child,
        api,
        dataDir,
        relayer: relayer.address,
        logs,
        exited,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          // A shutdown stuck on something (a hung connection) must not hang the test's teardown.
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(timer);
        },
      };
      started.push(inst);
      return inst;
    },
    async stopAll() {
      await Promise.all(started.map((i) => i.stop().catch(() => undefined)));
      await Promise.all(started.map((i) => rm(i.dataDir, { recursive: true, force: true })));
    },
  };
}

/** Polls `fn` until it returns a truthy value; throws with `what` past the deadline. */
export async function until<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
