import { formatUnits } from 'viem';
import { z } from 'zod';
import type { ChainPort } from '../chain/chain-port.js';
import type { FxService } from '../fx/rates.js';
import type { Account } from '../accounts/accounts.js';

export const WalletSummary = z.object({
  address: z.string().describe('The custodial wallet address.'),
  balance: z.string().describe('Stablecoin balance (decimal text).'),
  balance_base_units: z.string(),
  currency: z.string().describe("The account's local currency."),
  balance_local: z.string().nullable().describe('The balance in `currency`, or null without a rate.'),
  rate: z.string().nullable(),
});
export type WalletSummary = z.infer<typeof WalletSummary>;

/** The account's custodial wallet: address, stablecoin balance and its value in local currency. */
export async function walletSummary(chain: Pick<ChainPort, 'custodialAddress' | 'balanceOf' | 'decimals'>, fx: FxService, account: Account): Promise<WalletSummary> {
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
