/**
 * The two ways the service itself signs for a checkout payer, as one domain service the checkout
 * door takes from the core: "Pay from your app wallet" (a signed-in customer's custodial
 * wallet, app-wallet.ts) and, on the embedded dev chain only, "Pay with a test wallet"
 * (test-wallet.ts). Both settle through the one settlement path.
 */
import type { Account } from '../accounts/accounts.js';
import { payFromAppWallet, type AppWalletDeps, type AppWalletResult } from './app-wallet.js';
import type { SettleResult } from './settlement.js';
import { payWithTestWallet } from './test-wallet.js';

export { AppWalletReason } from './app-wallet.js';

export class WalletPayments {
  constructor(private readonly deps: AppWalletDeps) {}

  /** The signed-in customer pays `paymentId` from their custodial wallet. */
  fromAppWallet(payer: Account, paymentId: string): Promise<AppWalletResult> {
    return payFromAppWallet(this.deps, payer, paymentId);
  }

  /** Dev chain only: a throwaway wallet funded from the faucet pays `paymentId`. */
  withTestWallet(paymentId: string): Promise<SettleResult> {
    return payWithTestWallet(this.deps.chain, this.deps.settlement, paymentId);
  }
}
