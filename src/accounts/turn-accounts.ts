import { accountRead, type TurnReads } from '../lib/turn-reads.js';
import type { Account, AccountsService } from './accounts.js';

type AccountReads = Pick<AccountsService, 'get' | 'findBy'>;

/**
 * The accounts as one turn reads them (src/lib/turn-reads.ts): the sender and the recipient are
 * looked up once for the agent, the policy lists and the transfer together. Outside a turn, as is.
 */
export function turnAccounts(accounts: AccountReads, reads: TurnReads | undefined): AccountReads {
  if (!reads) return accounts;
  return {
    get: (id: string) => reads.once<Account | undefined>(accountRead(id), () => accounts.get(id)),
    findBy: (where) => reads.once<Account | undefined>(`account-by:${JSON.stringify(where)}`, () => accounts.findBy(where)),
  };
}
