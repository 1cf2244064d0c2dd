/** Shared fixtures for chain tests: a raw anvil with the stablecoin deployed, temp dirs. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  parseEther,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import { stablecoinAbi, stablecoinBytecode } from '../../src/chain/artifacts/stablecoin.js';
import type { Eip712Domain, TransferAuthorization } from '../../src/chain/authorization.js';
import type { ChainService } from '../../src/chain/chain.js';
import { relayAttemptId, type OwnedRelayRequest } from '../../src/chain/owned-relay.js';
import pino from 'pino';
import { createChain } from '../../src/chain/boot.js';
import { storeRelayJournal, type RelayJournal } from '../../src/chain/relay-journal.js';
import { PgStore } from '../../src/store/index.js';
import { createDatabase } from '../helpers/pg.js';

export async function tempDir(prefix = 'chain-test-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function startTokenChain(opts: { chainId?: number } = {}) {
  const anvil: AnvilHandle = await startAnvil(opts.chainId ? { chainId: opts.chainId } : {});
  const chain = defineChain({
    id: anvil.chainId,
    name: 'test anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
  // Generous: mining thousands of blocks in one call takes seconds on a loaded 2-core machine.
  const transport = http(anvil.rpcUrl, { timeout: 60_000 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const testClient = createTestClient({ chain, transport, mode: 'anvil' });

  async function fundedKey(): Promise<Hex> {
    const key = generatePrivateKey();
    await testClient.setBalance({ address: privateKeyToAccount(key).address, value: parseEther('100') });
    return key;
  }
  async function fundedAccount(): Promise<PrivateKeyAccount> {
    return privateKeyToAccount(await fundedKey());
  }
  const walletFor = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport });

  const deployer = await fundedAccount();
  const hash = await walletFor(deployer).deployContract({ abi: stablecoinAbi, bytecode: stablecoinBytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  const token = getAddress(receipt.contractAddress!) as Address;
  const domain: Eip712Domain = { name: 'Test USD Coin', version: '2', chainId: anvil.chainId, verifyingContract: token };

  async function mint(to: Address, amount: bigint): Promise<void> {
    const h = await walletFor(deployer).writeContract({ address: token, abi: stablecoinAbi, functionName: 'mint', args: [to, amount] });
    await publicClient.waitForTransactionReceipt({ hash: h });
  }
  const balanceOf = (a: Address) => publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'balanceOf', args: [a] });
  const latestTimestamp = async () => (await publicClient.getBlock()).timestamp;

  return { anvil, chain, publicClient, testClient, deployer, token, domain, fundedKey, fundedAccount, walletFor, mint, balanceOf, latestTimestamp };
}

export function randomNonce(): Hex {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

/**
 * A fresh payer funded with 5 tokens and its signed authorization of a 1-token transfer, as an
 * owned relay request (`subject`, giving up after `timeoutMs`) and its attempt's id: the fence
 * tests' move (owned-relay.fence.pg, journal-replay.fence.pg).
 */
export async function signedOwnedMove(a: ChainService, subject: string, timeoutMs: number) {
  const payer = privateKeyToAccount(generatePrivateKey());
  const funded = await a.faucet(payer.address, 5_000_000n, { nativeAmount: 0n });
  if (!funded.ok) throw new Error(`faucet: ${funded.message}`);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth: TransferAuthorization = {
    from: payer.address,
    to: privateKeyToAccount(generatePrivateKey()).address as Address,
    value: 1_000_000n,
    validAfter: now - 600n,
    validBefore: now + 3_600n,
    nonce: randomNonce(),
  };
  const signature = await payer.signTypedData(a.transferWithAuthorizationTypedData(auth).typedData);
  const req: OwnedRelayRequest = { kind: 'transfer', subject, from: auth.from, nonce: auth.nonce, sign: async () => ({ ok: true, auth, signature }), timeoutMs };
  return { auth, req, id: relayAttemptId('transfer', auth.from, auth.nonce) };
}

/**
 * Every transaction whose input carries `nonce` (an authorization's): mined since block `from`
 * (with its receipt's status) or waiting in the node's pool (`pending`), with its sender. The fence
 * tests' count of how many transactions one authorization got.
 */
export async function transactionsCarrying(a: ChainService, nonce: Hex, from: bigint): Promise<Array<{ hash: Hex; from: string; status: string }>> {
  const rpc = (method: string) => a.publicClient.request({ method: method as never, params: [] as never });
  const found: Array<{ hash: Hex; from: string; status: string }> = [];
  const needle = nonce.slice(2).toLowerCase();
  // Not getBlockNumber: viem caches it for a polling interval, and a block may just have been mined.
  const latest = BigInt((await rpc('eth_blockNumber')) as string);
  for (let n = from; n <= latest; n++) {
    const block = await a.publicClient.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      if (tx.input.includes(needle)) found.push({ hash: tx.hash, from: tx.from.toLowerCase(), status: (await a.publicClient.getTransactionReceipt({ hash: tx.hash })).status });
    }
  }
  const pool = (await rpc('txpool_content')) as { pending: Record<string, Record<string, { hash: Hex; input: string }>> };
  for (const [who, byNonce] of Object.entries(pool.pending)) {
    for (const tx of Object.values(byNonce)) if (tx.input.includes(needle)) found.push({ hash: tx.hash, from: who.toLowerCase(), status: 'pending' });
  }
  return found;
}

/**
 * A relay journal whose next record, once armed, waits until opened: an owner held at the last
 * step before its broadcast (verified, simulated, its nonce taken and signed).
 */
export function gatedJournal(inner: RelayJournal) {
  let armed = false;
  let open = () => {};
  let gate = Promise.resolve();
  let entered = () => {};
  const gated = {
    reached: Promise.resolve(),
    arm() {
      gated.reached = new Promise<void>((r) => (entered = r));
      gate = new Promise<void>((r) => (open = r));
      armed = true;
    },
    open: () => open(),
    journal: {
      ...inner,
      async record(entry, also) {
        if (armed) {
          armed = false;
          entered();
          await gate;
        }
        return inner.record(entry, also);
      },
    } as RelayJournal,
  };
  return gated;
}

/**
 * The fence tests' two instances on one anvil and one fresh PostgreSQL database: A (the embedded
 * anvil, its relayer, its relay journal gated: `slow`) and B (a second relayer on the same anvil),
 * journals on the database. `close` stops and removes everything.
 */
export async function twoRelayers(prefix: string) {
  const logger = pino({ level: 'silent' });
  const db = await createDatabase(undefined, { prefix: `${prefix}_` });
  const store = await PgStore.open(db.url, { poolMax: 6 });
  const ta = await tempDir(`${prefix}-a-`);
  const tb = await tempDir(`${prefix}-b-`);
  const slow = gatedJournal(storeRelayJournal(store));
  const a = await createChain({ dataDir: ta.dir, logger, confirmTimeoutMs: 60_000, journal: slow.journal });
  const keyB = generatePrivateKey();
  await a.publicClient.request({ method: 'anvil_setBalance' as never, params: [privateKeyToAccount(keyB).address, `0x${parseEther('10').toString(16)}`] as never });
  const b = await createChain({ dataDir: tb.dir, rpcUrl: a.rpcUrl, chainId: a.chainId, tokenAddress: a.tokenAddress, relayerPrivateKey: keyB, logger, confirmTimeoutMs: 60_000, journal: storeRelayJournal(store) });
  return {
    db,
    store,
    slow,
    a,
    b,
    async close() {
      await b.close();
      await a.close();
      await store.close();
      await db.drop();
      await ta.cleanup();
      await tb.cleanup();
    },
  };
}
