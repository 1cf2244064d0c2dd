/**
 * Start-up of the chain layer: the embedded anvil (state under DATA_DIR/chain, recovery from a
 * corrupt dump, the token deployed once) or a real network (checked against its config), then
 * the service, whose relay journal is replayed before it answers.
 */
import path from 'node:path';
import { mkdir, rename, stat } from 'node:fs/promises';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseEther, toHex, type Address, type Chain, type Hex, type HttpTransport, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

import type { Logger } from '../lib/logger.js';
import { AnvilStartError, startAnvil, type AnvilHandle } from './anvil.js';
import { restoreFallbackState, saveFallbackState } from './anvil-fallback.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import { type Eip712Domain } from './authorization.js';
import { deployStablecoin, readDeployment, writeDeployment } from './deployment.js';
import { CustodialKeyring, getOrCreateSecret, loadOrCreateMnemonic } from './wallet-secrets.js';
import { ownAccount } from './own-signer.js';
import { ChainServiceImpl } from './chain-service.js';
import { loopbackFetch } from './rpc-fetch.js';
import { supportsBatchTransfers } from './submit-batch.js';
import { findBatchRelay, placeBatchRelay } from './relay-batches.js';
import { ensureAuthCaptureEscrow, findAuthCaptureEscrow } from './auth-capture-escrow.js';
import type { ChainService, CreateChainOptions } from './chain.js';
import type { RelayJournal } from './relay-journal.js';

const EMBEDDED_CHAIN_ID = 31337;
const RELAYER_MIN_BALANCE = parseEther('100');
const RELAYER_TOP_UP = parseEther('10000');
const DEFAULT_LOG_WINDOW = 10_000n;
const DEFAULT_MAX_LOOKBACK = 1_000_000n;
/** How many of the relayer's newest nonces the torn-dump check looks at. */
const TORN_CHECK_DEPTH = 64;

const noopLogger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
} as unknown as Logger;


export async function createChain(opts: CreateChainOptions): Promise<ChainService> {
  const log = opts.logger ?? noopLogger;
  const embedded = !opts.rpcUrl;
  let anvil: AnvilHandle | undefined;
  let rpcUrl: string;
  let chainId: number;

  const relayerKey =
    opts.relayerPrivateKey ?? ((await getOrCreateSecret(opts.dataDir, 'relayerPrivateKey', () => generatePrivateKey())) as Hex);
  // No viem nonce manager: the service's sends take nonces from RelayerNonces (nonces.ts),
  // and the one-off deploy below asks the node.
  const relayer = ownAccount(relayerKey);

  if (embedded) {
    chainId = opts.chainId ?? EMBEDDED_CHAIN_ID;
    anvil = await startEmbeddedAnvil(opts, chainId, log, relayer.address);
    rpcUrl = anvil.rpcUrl;
  } else {
    rpcUrl = opts.rpcUrl!;
    if (!opts.tokenAddress || !opts.relayerPrivateKey) {
      throw new Error('a real network needs tokenAddress and relayerPrivateKey');
    }
    const probe = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000 }) });
    chainId = await probe.getChainId();
    if (opts.chainId !== undefined && opts.chainId !== chainId) {
      throw new Error(`CHAIN_ID is ${opts.chainId} but ${redactUrl(rpcUrl)} serves chain ${chainId}`);
    }
  }

  try {
    const chain = defineChain({
      id: chainId,
      name: embedded ? 'Embedded anvil' : `Chain ${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    // Embedded: concurrent calls made in the same tick share one HTTP request (a JSON-RPC batch).
    // The HTTP round trip and its parsing cost more CPU than anvil answering a read, and the
    // service shares the cores with anvil. A real network keeps one request per call (providers
    // limit or bill batches differently, and one slow call would hold back the others).
    // Embedded: over node:http with keep-alive rather than the global fetch (rpc-fetch.ts).
    const transport = http(
      rpcUrl,
      embedded
        ? { timeout: 15_000, batch: { wait: 0 }, fetchFn: loopbackFetch() as unknown as typeof fetch, maxResponseBodySize: false }
        : { timeout: 15_000 },
    );
    const publicClient = createPublicClient({ chain, transport, pollingInterval: embedded ? 50 : 1_000 });

    const wallet = createWalletClient({ account: relayer, chain, transport });

    let tokenAddress: Address;
    let deployBlock: bigint | undefined;
    let redeployed = false;
    if (embedded) {
      const balance = await publicClient.getBalance({ address: relayer.address });
      if (balance < RELAYER_MIN_BALANCE) {
        await publicClient.request({
          method: 'anvil_setBalance' as never,
          params: [relayer.address, toHex(RELAYER_TOP_UP)] as never,
        });
      }
      const file = path.join(opts.dataDir, 'chain', 'deployment.json');
      const recorded = await readDeployment(file);
      const code =
        recorded && recorded.chainId === chainId ? await publicClient.getCode({ address: recorded.tokenAddress }) : undefined;
      if (recorded && code && code !== '0x') {
        tokenAddress = recorded.tokenAddress;
        deployBlock = BigInt(recorded.deployBlock);
      } else {
        if (recorded) log.warn({ tokenAddress: recorded.tokenAddress }, 'embedded chain was reset; redeploying the stablecoin');
        const d = await deployStablecoin(publicClient, wallet);
        redeployed = true;
        await writeDeployment(file, d);
        tokenAddress = d.tokenAddress;
        deployBlock = BigInt(d.deployBlock);
        log.info({ tokenAddress, chainId }, 'deployed the stablecoin on the embedded chain');
      }
    } else {
      tokenAddress = getAddress(opts.tokenAddress!);
      const code = await publicClient.getCode({ address: tokenAddress });
      if (!code || code === '0x') throw new Error(`no contract at TOKEN_ADDRESS ${tokenAddress} on chain ${chainId}`);
      if ((await publicClient.getBalance({ address: relayer.address })) === 0n) {
        log.warn({ relayer: relayer.address, chainId }, 'the relayer holds no native currency: every send will fail until it is funded');
      }
    }

    const token = { address: tokenAddress, abi: stablecoinAbi } as const;
    const [domainInfo, decimals, batchTransfers] = await Promise.all([
      readDomain(publicClient, tokenAddress),
      publicClient.readContract({ ...token, functionName: 'decimals' }),
      supportsBatchTransfers(publicClient, tokenAddress, relayer.address),
    ]);
    const eip712Domain: Eip712Domain = {
      name: domainInfo.name,
      version: domainInfo.version,
      chainId,
      verifyingContract: tokenAddress,
    };
    const mnemonic = await loadOrCreateMnemonic(opts.dataDir, opts.walletMnemonic);
    const authCapture = embedded ? await placeEscrow(publicClient, chain, transport) : await findAuthCaptureEscrow(publicClient);
    // Settlements that arrive together share one transaction through it; without it, one each.
    const batchRelay = embedded ? await placeBatchRelay(publicClient) : await findBatchRelay(publicClient);
    if (authCapture) log.info({ escrow: authCapture.escrow }, 'auth-capture escrow ready');
    else log.warn({ chainId }, 'no commerce-payments AuthCaptureEscrow v1.0 on this chain: x402 auth-capture is off');

    const service = new ChainServiceImpl({
      log,
      embedded,
      anvil,
      rpcUrl,
      chainId,
      tokenAddress,
      deployBlock,
      decimals: Number(decimals),
      eip712Domain,
      publicClient,
      relayer,
      custodial: new CustodialKeyring(mnemonic),
      confirmTimeoutMs: opts.confirmTimeoutMs ?? 60_000,
      logWindow: positive(opts.logScan?.windowBlocks, DEFAULT_LOG_WINDOW),
      maxLookback: positive(opts.logScan?.maxLookbackBlocks, DEFAULT_MAX_LOOKBACK),
      journal: opts.journal,
      journalRetentionMs: opts.journalRetentionMs ?? 3_600_000,
      journalResendGate: opts.journalResendGate,
      batchTransfers,
      authCapture,
      batchRelay,
    });
    if (embedded) {
      // This state loaded fine, agrees with the journal and holds the token: the fallback for
      // the next start, taken before the replay (anvil-fallback.ts says why it is not a file copy).
      await saveFallbackState(publicClient, path.join(opts.dataDir, 'chain', 'anvil-state.json.bak'));
    }
    if (opts.journal) {
      // The relayer's journal is shared by whoever holds the relayer: hold it before touching it.
      await opts.beforeJournalReplay?.(relayer.address);
      if (redeployed) {
        // A fresh chain: the journal's transactions belong to the one that is gone.
        const stale = await opts.journal.list(chainId, relayer.address);
        await opts.journal.remove(stale.map((e) => e.id));
      } else {
        await service.recoverJournal();
      }
      service.startJournalSweep(opts.journalSweepMs ?? 10_000);
    }
    log.info(
      { chainId, tokenAddress, relayer: relayer.address, embedded, batchTransfers, batchRelay, tokenName: `${domainInfo.name} v${domainInfo.version}` },
      'chain ready',
    );
    return service;
  } catch (e) {
    await anvil?.stop();
    throw e;
  }
}

/**
 * The escrow on the embedded chain, deployed by a throwaway account: the relayer's nonces belong
 * to the relay journal, whose transactions are replayed after this.
 */
async function placeEscrow(publicClient: PublicClient<HttpTransport, Chain>, chain: Chain, transport: HttpTransport) {
  const there = await findAuthCaptureEscrow(publicClient);
  if (there) return there;
  const deployer = privateKeyToAccount(generatePrivateKey());
  await publicClient.request({ method: 'anvil_setBalance' as never, params: [deployer.address, toHex(parseEther('10'))] as never });
  return ensureAuthCaptureEscrow(publicClient, createWalletClient({ account: deployer, chain, transport }));
}

/**
 * Starts anvil on DATA_DIR/chain/anvil-state.json, recovering from a corrupt or torn dump.
 *
 * Two ways a dump left by a crash can be unusable: cut short (it does not parse), or torn
 * (anvil wrote it while mining, so the accounts already hold a block's effects while the block
 * and its transactions are missing, or the other way round; seen under SIGKILL of the whole
 * group). A torn state has money moved without a receipt, and its nonce can no longer carry the
 * journaled transaction. Both fall back to the copy taken at the previous start, which was
 * checked when it loaded; the relay journal keeps every transaction since that copy
 * (RelayJournalRecovery.sweep in relay-journal-recovery.ts) and re-broadcasts them.
 */
async function startEmbeddedAnvil(opts: CreateChainOptions, chainId: number, log: Logger, relayer: Address): Promise<AnvilHandle> {
  const dir = path.join(opts.dataDir, 'chain');
  await mkdir(dir, { recursive: true });
  const stateFile = path.join(dir, 'anvil-state.json');
  const backup = `${stateFile}.bak`;
  const start = () => startAnvil({ stateFile, chainId, ...opts.anvil });
  const restoreBackup = async (why: 'corrupt' | 'torn'): Promise<boolean> => {
    const aside = `${stateFile}.${why}-${Date.now()}`;
    const hasBackup = await exists(backup);
    if (hasBackup) await restoreFallbackState(backup, stateFile, aside);
    else await rename(stateFile, aside);
    log.error(
      { moved: aside, restored: hasBackup ? backup : undefined },
      hasBackup
        ? `embedded chain state was ${why}; restored the copy from the previous start`
        : `embedded chain state was ${why} and there is no backup; starting a fresh chain`,
    );
    return hasBackup;
  };
  if (!(await exists(stateFile)) && (await exists(backup))) {
    // The power went before anvil's first dump of a run: without a state file anvil would start
    // an empty chain, and the token would be deployed anew with the journal dropped.
    await restoreFallbackState(backup, stateFile);
    log.error({ restored: backup }, 'embedded chain state file is missing; restored the copy from the previous start');
  }
  let handle: AnvilHandle;
  try {
    handle = await start();
  } catch (e) {
    // A dump cut short by a crash cannot be parsed; fall back to the last state that loaded.
    if (!(e instanceof AnvilStartError) || !/failed to parse/i.test(e.output)) throw e;
    await restoreBackup('corrupt');
    handle = await start();
  }
  if (opts.journal && (await exists(backup))) {
    const torn = await tornAgainstJournal(handle.rpcUrl, chainId, relayer, opts.journal).catch(() => undefined);
    if (torn) {
      log.warn({ txHash: torn.hash, nonce: torn.nonce, reason: torn.reason }, 'embedded chain state disagrees with the relay journal');
      // Stopping dumps the same torn state again; it is moved aside below.
      await handle.stop();
      await restoreBackup('torn');
      handle = await start();
    }
  }
  // The fallback for the next start is written by createChain once this state is set up
  // (saveFallbackState), before the journal is replayed.
  return handle;
}

/**
 * A journaled transaction that the loaded state contradicts: its nonce is spent but the
 * transaction is nowhere (accounts ahead of blocks), or it is in a block while the relayer's
 * nonce has not reached it (blocks ahead of accounts). On the embedded chain nothing else
 * sends with the relayer's key, and the journal holds the last transaction given each nonce,
 * so either one means the dump was written mid-block. Only the newest entries can be torn.
 */
async function tornAgainstJournal(
  rpcUrl: string,
  chainId: number,
  relayer: Address,
  journal: RelayJournal,
): Promise<{ hash: Hex; nonce: number; reason: string } | undefined> {
  const entries = await journal.list(chainId, relayer);
  if (entries.length === 0) return undefined;
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000 }) });
  const spent = await client.getTransactionCount({ address: relayer, blockTag: 'latest' });
  for (const e of entries.filter((x) => x.nonce >= spent - TORN_CHECK_DEPTH)) {
    const tx = await client.getTransaction({ hash: e.hash }).catch(() => undefined);
    const mined = tx !== undefined && tx.blockNumber !== null;
    if (!mined && e.nonce < spent) return { hash: e.hash, nonce: e.nonce, reason: 'nonce spent, transaction missing' };
    if (mined && e.nonce >= spent) return { hash: e.hash, nonce: e.nonce, reason: 'transaction mined, nonce not spent' };
  }
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** EIP-712 name/version: EIP-5267 eip712Domain() when the token has it, else name()/version() (USDC). */
async function readDomain(client: PublicClient<HttpTransport, Chain>, address: Address) {
  const token = { address, abi: stablecoinAbi } as const;
  try {
    const [, name, version] = await client.readContract({ ...token, functionName: 'eip712Domain' });
    return { name, version };
  } catch {
    const [name, version] = await Promise.all([
      client.readContract({ ...token, functionName: 'name' }),
      client.readContract({ ...token, functionName: 'version' }),
    ]);
    return { name, version };
  }
}

function positive(v: bigint | undefined, fallback: bigint): bigint {
  return v !== undefined && v > 0n ? v : fallback;
}

function redactUrl(url: string): string {
  // Provider URLs often carry an API key in the path or query.
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(rpc url)';
  }
}
