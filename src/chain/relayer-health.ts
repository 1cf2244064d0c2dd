/**
 * The relayer's health for operators (docs/metrics.md): its gas balance against a floor
 * (RELAYER_MIN_GAS_BALANCE) and how many of its transactions the node holds unmined. A relayer
 * under the floor is logged once as a warning when it drops there (and again every
 * `warnEveryMs` while it stays), and shows on `/readyz` details; it stays ready, since it
 * can still send until the balance is gone and a top-up needs no restart.
 */
import { formatEther, type Address } from 'viem';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../metrics/metrics-port.js';
import type { ChainService } from './chain.js';

export interface RelayerStatus {
  address: Address;
  /** Native balance in wei, as decimal text; undefined when the node did not answer. */
  gasBalanceWei?: string;
  minGasBalanceWei: string;
  /** True when the balance is known and under the floor. */
  lowGas: boolean;
  /** Pending nonce - latest nonce: sent, not yet mined. */
  nonceLag?: number;
}

export interface RelayerHealthOptions {
  chain: Pick<ChainService, 'relayerAddress' | 'nativeBalance' | 'publicClient'>;
  minGasWei: bigint;
  logger: Pick<Logger, 'warn' | 'info'>;
  metrics?: Pick<Metrics, 'sample'>;
  /** A status younger than this is reused (scrapes and probes do not hammer the node). Default 2 s. */
  cacheMs?: number;
  warnEveryMs?: number;
}

export class RelayerHealth {
  private cached: { at: number; status: Promise<RelayerStatus> } | undefined;
  private low = false;
  private lastWarnAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: RelayerHealthOptions) {
    o.metrics?.sample('relayerGasBalance', async () => {
      const s = await this.status();
      return s.gasBalanceWei === undefined ? undefined : Number(formatEther(BigInt(s.gasBalanceWei)));
    });
    o.metrics?.sample('relayerNonceLag', async () => (await this.status()).nonceLag);
  }

  /** The relayer's status now (or from the last `cacheMs`). Never throws. */
  status(): Promise<RelayerStatus> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < (this.o.cacheMs ?? 2_000)) return this.cached.status;
    const status = this.read();
    this.cached = { at: now, status };
    return status;
  }

  /** Checks every `everyMs` (unref'd), so a falling balance is logged without anyone asking. */
  start(everyMs: number): void {
    void this.status();
    this.timer = setInterval(() => void this.status(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async read(): Promise<RelayerStatus> {
    const { chain, minGasWei } = this.o;
    const address = chain.relayerAddress;
    const [balance, pending, latest] = await Promise.all([
      chain.nativeBalance(address).catch(() => undefined),
      chain.publicClient.getTransactionCount({ address, blockTag: 'pending' }).catch(() => undefined),
      chain.publicClient.getTransactionCount({ address, blockTag: 'latest' }).catch(() => undefined),
    ]);
    const lowGas = balance !== undefined && balance < minGasWei;
    this.note(lowGas, address, balance);
    return {
      address,
      ...(balance !== undefined ? { gasBalanceWei: balance.toString() } : {}),
      minGasBalanceWei: minGasWei.toString(),
      lowGas,
      ...(pending !== undefined && latest !== undefined ? { nonceLag: Math.max(0, pending - latest) } : {}),
    };
  }

  private note(lowGas: boolean, address: Address, balance: bigint | undefined): void {
    const now = Date.now();
    if (lowGas && (!this.low || now - this.lastWarnAt >= (this.o.warnEveryMs ?? 10 * 60_000))) {
      this.lastWarnAt = now;
      this.o.logger.warn(
        { relayer: address, gasBalance: formatEther(balance!), minGasBalance: formatEther(this.o.minGasWei) },
        'relayer gas balance is under RELAYER_MIN_GAS_BALANCE: top it up before its transactions fail',
      );
    } else if (!lowGas && this.low && balance !== undefined) {
      this.o.logger.info({ relayer: address, gasBalance: formatEther(balance) }, 'relayer gas balance is back above RELAYER_MIN_GAS_BALANCE');
    }
    if (balance !== undefined) this.low = lowGas;
  }
}
