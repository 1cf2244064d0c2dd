import { getAddress, type Address } from 'viem';
import type { ChainService } from '../chain/chain.js';
import type { Account } from '../accounts/accounts.js';
import { Accounts } from '../accounts/accounts.js';
import type { Store } from '../store/index.js';

/**
 * Custodial addresses by wallet index, memoised: deriving one from the mnemonic costs
 * ~20 ms of PBKDF2, too much to repeat on every transfer or payout. Also answers
 * "which account owns this 0x address" for transfers to a pasted address.
 */
export class WalletDirectory {
  private readonly byIndex = new Map<number, Address>();
  private readonly accountByAddress = new Map<string, string>();
  private readonly scannedIndexes = new Set<number>();

  constructor(
    private readonly chain: ChainService,
    private readonly store: Store,
  ) {}

  address(index: number): Address {
    let a = this.byIndex.get(index);
    if (!a) {
      a = getAddress(this.chain.custodialAddress(index));
      this.byIndex.set(index, a);
    }
    return a;
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
