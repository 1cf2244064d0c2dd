/**
 * The chains of a deployment (docs/test-mode.md, "Where test mode settles"): the live chain
 * (the embedded anvil, or a real network with CHAIN_RPC_URL) and, beside a real network, test
 * mode's own chain: the network TEST_CHAIN_* names, or else an embedded anvil started for test
 * mode under DATA_DIR/test-chain. With the embedded chain alone, one chain serves both modes.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { parseEther, type Address, type Hex } from 'viem';
import type { Config } from '../config/config.js';
import type { InstanceLease, Store } from '../store/index.js';
import { createChain } from '../chain/boot.js';
import type { ChainService, CreateChainOptions } from '../chain/chain.js';
import { storeRelayJournal } from '../chain/relay-journal.js';
import { journalResendGate } from '../settlement/attempts.js';
import { loadOrCreateMnemonic } from '../chain/wallet-secrets.js';
import { RelayerHealth, type RelayerStatus } from '../chain/relayer-health.js';
import type { Metrics } from '../metrics/metrics-port.js';

/** The embedded chain's id; test mode's embedded chain beside a live 31337 takes the next one. */
const EMBEDDED_CHAIN_ID = 31337;

export interface Chains {
  live: ChainService;
  /** Test mode's own chain; undefined when the live chain is the embedded one and serves both modes. */
  test: ChainService | undefined;
  /** Both chains (and each relayer) answer: for /readyz. */
  readiness(): Promise<{ chain: boolean; relayer: RelayerStatus; test?: { chain: boolean; relayer: RelayerStatus } }>;
}

export interface BootChainsOptions {
  store: Store;
  instance: InstanceLease;
  shared: boolean;
  logger: Logger;
  metrics: Metrics;
  /** RELAYER_MIN_GAS_BALANCE: under it a relayer is logged low on gas and flagged on /readyz. */
  minGasEther: string;
  defer(cleanup: () => Promise<void> | void): void;
}

export async function bootChains(config: Config, o: BootChainsOptions): Promise<Chains> {
  const common: Omit<CreateChainOptions, 'dataDir'> = {
    walletMnemonic: config.WALLET_MNEMONIC,
    logScan: { windowBlocks: BigInt(config.CHAIN_LOG_SCAN_BLOCKS), maxLookbackBlocks: BigInt(config.CHAIN_LOG_MAX_LOOKBACK_BLOCKS) },
    // Signed transactions are kept until the chain surely has them (docs/chain.md, "Power loss").
    // Entries are per chain id and relayer, so the two chains' journals never mix.
    journal: storeRelayJournal(o.store),
    // A journaled transaction goes out again only under its attempt's ownership (h9relay).
    journalResendGate: journalResendGate(o.store),
  };
  const live = await createChain({
    ...common,
    dataDir: config.DATA_DIR,
    rpcUrl: config.CHAIN_RPC_URL,
    chainId: config.CHAIN_ID,
    tokenAddress: config.TOKEN_ADDRESS as `0x${string}` | undefined,
    relayerPrivateKey: config.RELAYER_PRIVATE_KEY as `0x${string}` | undefined,
    ...(config.ANVIL_PORT ? { anvil: { port: config.ANVIL_PORT } } : {}),
    logger: o.logger.child({ module: 'chain' }),
    // The relayer's lease before its journal is replayed: a key another live instance holds is refused first.
    beforeJournalReplay: (relayer) => takeRelayer(relayer, o, 'relayer'),
  });
  o.defer(() => live.close());
  const liveHealth = await holdRelayer(live, o, 'relayer');

  let test: ChainService | undefined;
  let testHealth: RelayerHealth | undefined;
  if (config.CHAIN_RPC_URL) {
    // The same custodial keys on both chains (an account's wallet has one address); the
    // authorizations they sign name the chain and the token, so one chain's never pays on the other.
    const walletMnemonic = await loadOrCreateMnemonic(config.DATA_DIR, config.WALLET_MNEMONIC);
    const logger = o.logger.child({ module: 'chain', mode: 'test' });
    test = config.TEST_CHAIN_RPC_URL
      ? await createChain({
          ...common,
          walletMnemonic,
          dataDir: config.DATA_DIR,
          rpcUrl: config.TEST_CHAIN_RPC_URL,
          chainId: config.TEST_CHAIN_ID,
          tokenAddress: config.TEST_TOKEN_ADDRESS as Hex,
          relayerPrivateKey: config.TEST_RELAYER_PRIVATE_KEY as Hex,
          logger,
          beforeJournalReplay: (relayer) => takeRelayer(relayer, o, 'relayer-test'),
        })
      : await createChain({
          ...common,
          walletMnemonic,
          // Its state, token deployment and relayer key under DATA_DIR/test-chain, apart from the live ones.
          dataDir: path.join(config.DATA_DIR, 'test-chain'),
          chainId: live.chainId === EMBEDDED_CHAIN_ID ? EMBEDDED_CHAIN_ID + 1 : EMBEDDED_CHAIN_ID,
          logger,
          beforeJournalReplay: (relayer) => takeRelayer(relayer, o, 'relayer-test'),
        });
    o.defer(() => test!.close());
    if (test.chainId === live.chainId) {
      throw new Error(`test mode's chain serves chain ${test.chainId}, the live chain's id: test mode must never settle on the live network (TEST_CHAIN_RPC_URL)`);
    }
    if (test.embedded && o.shared) {
      o.logger.warn('test mode runs on an embedded anvil of this instance: with several instances, set TEST_CHAIN_* to a shared test network (docs/deploy.md)');
    }
    testHealth = await holdRelayer(test, o, 'relayer-test');
  }
  const readiness: Chains['readiness'] = async () => {
    const [chain, relayer, testUp, testRelayer] = await Promise.all([
      live.ping().catch(() => false),
      liveHealth.status(),
      test?.ping().catch(() => false),
      testHealth?.status(),
    ]);
    return { chain, relayer, ...(test ? { test: { chain: testUp === true, relayer: testRelayer! } } : {}) };
  };
  return { live, test, readiness };
}

/**
 * The relayer's nonces are counted in this process: two live instances must never send from one
 * relayer key. Each instance gets its own key from a pool (docs/deploy.md); after a kill -9 the
 * old lease lapses within its TTL, so a restart waits that long at most.
 */
async function holdRelayer(chain: ChainService, o: BootChainsOptions, module: string): Promise<RelayerHealth> {
  // Taken before the journal replay already (a chain started fresh, with no replay, takes it here).
  await takeRelayer(chain.relayerAddress, o, module);
  // The gauges are the live relayer's (one series each); test mode's relayer is watched and logged, not exported.
  const metrics = module === 'relayer' ? { metrics: o.metrics } : {};
  const health = new RelayerHealth({ chain, minGasWei: parseEther(o.minGasEther), logger: o.logger.child({ module }), ...metrics });
  health.start(60_000);
  o.defer(() => health.stop());
  return health;
}

/** The relayer's lease for this instance (idempotent), or the start fails naming the holder. */
async function takeRelayer(relayer: Address, o: BootChainsOptions, module: string): Promise<void> {
  const held = await o.instance.hold(`relayer:${relayer.toLowerCase()}`, o.shared ? o.instance.ttlMs + 2_000 : 0);
  if (!held.ok) {
    const variable = module === 'relayer' ? 'RELAYER_PRIVATE_KEY' : 'TEST_RELAYER_PRIVATE_KEY';
    throw new Error(`the relayer ${relayer} is in use by the running instance ${held.holder}: give each instance its own ${variable} (docs/deploy.md)`);
  }
}
