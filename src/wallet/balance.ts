import { formatUnits } from 'viem';
import type { ChainService } from '../chain/chain.js';
import type { FxService } from '../fx/rates.js';
import type { Account } from '../accounts/accounts.js';

/** The account's custodial wallet: address, stablecoin balance and its value in local currency. */
export async function walletSummary(chain: ChainService, fx: FxService, account: Account) {
  const address = chain.custodialAddress(account.walletIndex);
  const balance = await chain.balanceOf(address);
  const local = fx.fromStablecoin(balance, account.localCurrency);
  return {
    address,
    balance: formatUnits(balance, chain.decimals),
    balance_base_units: balance.toString(),
    currency: account.localCurrency,
    balance_local: local.ok ? local.amount : null,
    rate: local.ok ? local.rate : null,
  };
}
