import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PaymentsService } from '../../src/payments/payments.js';
import type { AttemptOwner } from '../../src/settlement/attempts.js';
import { InstanceLease, type PgStore } from '../../src/store/index.js';
import { twoRelayers } from '../chain/helpers.js';

/**
 * Two checkout instances' shared parts (takeover-clock.pg, checkout-fence.pg): the fence tests'
 * two relayers on one anvil and one fresh PostgreSQL database (twoRelayers), the accounts and
 * payments services over that database, and one merchant account.
 */
export async function checkoutPair(prefix: string, shop: string) {
  const relayers = await twoRelayers(prefix);
  const accounts = new AccountsService(relayers.store, {});
  const payments = new PaymentsService(relayers.store, new FxService(loadFxTable()), 'http://localhost:3000');
  const created = await accounts.create({ name: shop, email: `${prefix}@example.com` });
  if (!created.ok) throw new Error(created.message);
  return { ...relayers, accounts, payments, accountId: created.account.id };
}

/** An instance whose liveness is its lease on the database (as InstanceLease.isLive), itself always live. */
export function leaseOwner(store: PgStore, id: string): AttemptOwner {
  return { id, isLive: async (o) => o === id || (o !== undefined && (await store.leaseOwner(InstanceLease.leaseName(o))) === o) };
}
