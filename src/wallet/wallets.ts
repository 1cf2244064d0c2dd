/**
 * What the doors may know about the chain, as one domain service: the network the service pays
 * on, an account's custodial wallet (address, balance, summary), and on the embedded dev chain
 * the faucet and the checkout page's test wallet. Doors take this from the core instead of a raw
 * chain handle (docs/architecture.md).
 */
import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import type { ChainService } from '../chain/chain.js';
import { networkInfo, type NetworkInfo } from '../chain/networks.js';
import type { FxService } from '../fx/rates.js';
import { walletSummary, type WalletSummary } from './balance.js';

export type { NetworkInfo } from '../chain/networks.js';
export { addressUrl, txUrl } from '../chain/networks.js';
export { EvmAddress } from '../chain/authorization.js';

export type FaucetResult = Awaited<ReturnType<ChainService['faucet']>>;

export class Wallets {
  /** The network payers and merchants see (CHAIN_NAME / CHAIN_EXPLORER_URL override the defaults). */
  readonly network: NetworkInfo;

  constructor(
    private readonly chain: ChainService,
    private readonly fx: FxService,
    o: { production: boolean; name?: string; explorerUrl?: string },
  ) {
    this.network = networkInfo(chain.chainId, { name: o.name, explorerUrl: o.explorerUrl, embedded: chain.embedded });
    this.devTools = !o.production && chain.embedded;
  }

  /** True when the dev-only helpers exist: never in production, only on the embedded chain. */
  readonly devTools: boolean;

  /**
   * The embedded dev chain's JSON-RPC URL (a wallet such as MetaMask can be pointed at it), and
   * undefined for an operator's RPC_URL, which may carry a provider key and is never shown.
   */
  get devRpcUrl(): string | undefined {
    return this.chain.embedded ? this.chain.rpcUrl : undefined;
  }

  get chainId(): number {
    return this.chain.chainId;
  }

  get tokenAddress(): Address {
    return this.chain.tokenAddress;
  }

  /** The stablecoin's decimals. */
  get decimals(): number {
    return this.chain.decimals;
  }

  /** The account's custodial wallet address. */
  addressOf(account: Pick<Account, 'walletIndex'>): Address {
    return this.chain.custodialAddress(account.walletIndex);
  }

  balanceOf(address: Address): Promise<bigint> {
    return this.chain.balanceOf(address);
  }

  /** Address, stablecoin balance and its value in the account's currency. */
  summary(account: Account): Promise<WalletSummary> {
    return walletSummary(this.chain, this.fx, account);
  }

  /** Dev chain only: mints stablecoin (and by default a little gas money) to `address`. */
  faucet(address: Address, amount: bigint, opts?: Parameters<ChainService['faucet']>[2]): Promise<FaucetResult> {
    return this.chain.faucet(address, amount, opts);
  }

  /** Whether the chain answers (readiness). */
  ping(): Promise<boolean> {
    return this.chain.ping();
  }
}
