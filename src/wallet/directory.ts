import type { Address } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import type { Account } from '../accounts/accounts.js';
import { Accounts } from '../accounts/accounts.js';
import type { Store } from '../store/index.js';

/**
 * Custodial addresses by wallet index (the chain layer caches the derivation), and the reverse:
 * "which account owns this 0x address", for transfers to a pasted address.
 */
export class WalletDirectory {
  private readonly accountByAddress = new Map<string, string>();
  private readonly scannedIndexes = new Set<number>();

  constructor(
    private readonly chain: ChainPort,
    private readonly store: Store,
  ) {}

  address(index: number): Address {
    return this.chain.custodialAddress(index);
  }

  addressOf(account: Pick<Account, 'walletIndex'>): Address {
    return this.address(account.walletIndex);
  }

  /** The account whose custodial wallet is `address`, if any (derives only accounts not seen before). */
  async accountIdFor(address: Address): Promise<string | undefined> {
    const key = address.toLowerCase();
    const hit = this.accountByAddress.get(key);
    if (hit) return hit;
    for (const a of await this.store.table(Accounts).findMany()) {
      if (this.scannedIndexes.has(a.walletIndex)) continue;
      this.accountByAddress.set(this.address(a.walletIndex).toLowerCase(), a.id);
      this.scannedIndexes.add(a.walletIndex);
    }
    return this.accountByAddress.get(key);
  }
}
