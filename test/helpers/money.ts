import { parseUnits, type Address } from 'viem';
import type { Account } from '../../src/accounts/accounts.js';
import type { TestService } from './service.js';

let seq = 0;

/** A fresh account straight through AccountsService (module tests don't need a login). */
export async function newAccount(svc: TestService, fields: Partial<Account> & { country?: string } = {}): Promise<Account> {
  const res = await svc.deps.accounts.create({ name: fields.name ?? `User ${++seq}`, ...fields });
  if (!res.ok) throw new Error(`account create failed: ${res.message}`);
  return res.account;
}

export const usdc = (s: string) => parseUnits(s, 6);

export function walletOf(svc: TestService, account: Pick<Account, 'walletIndex'>): Address {
  return svc.deps.chain.custodialAddress(account.walletIndex);
}

/** Mints stablecoin to the account's custodial wallet and no gas money: the relayer pays gas. */
export async function fund(svc: TestService, account: Pick<Account, 'walletIndex'>, amount: string): Promise<void> {
  const res = await svc.deps.chain.faucet(walletOf(svc, account), usdc(amount), { nativeAmount: 0n });
  if (!res.ok) throw new Error(`faucet failed: ${res.message}`);
}

export function balance(svc: TestService, address: Address): Promise<bigint> {
  return svc.deps.chain.balanceOf(address);
}
