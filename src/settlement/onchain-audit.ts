/**
 * Start-up check after a crash: every recent record the service reported as moved on chain
 * (settled payments and transfers, paid or completed bills, settled stakes) must have a mined,
 * successful transaction. The relay journal (src/chain/relay-journal.ts) has already put back
 * what the chain lost; anything still missing here is reported loudly with its id, so an
 * operator can act, instead of passing silently.
 */
import type { Hex } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import type { Logger } from '../lib/logger.js';
import type { Store } from '../store/index.js';
import { BillPayments } from '../bills/bills.js';
import { Stakes } from '../markets/markets.js';
import { Payments } from '../payments/payments.js';
import { Transfers } from '../transfers/transfers.js';

export interface AuditedRecord {
  kind: 'payment' | 'transfer' | 'bill' | 'stake';
  id: string;
  txHash: string;
}

/** Records moved on chain within `sinceMs` (default 1 h) whose transaction is not mined successfully. */
export async function auditSettledOnChain(o: {
  store: Store;
  chain: Pick<ChainPort, 'waitForReceipt'>;
  logger: Logger;
  sinceMs?: number;
  now?: number;
}): Promise<{ checked: number; missing: AuditedRecord[] }> {
  const floor = (o.now ?? Date.now()) - (o.sinceMs ?? 3_600_000);
  const recent = (at: string | undefined) => at !== undefined && Date.parse(at) >= floor;
  const records: AuditedRecord[] = [];
  // Newest first, a page at a time, down to payments created before the window minus the longest
  // session (a payment settles within its session): the scan stays the size of the window, not of
  // the merchant's whole history (a million settled payments on PostgreSQL stalled the start).
  const oldestCreated = floor - 1440 * 60_000 - 60_000;
  for (let after: string | undefined; ; ) {
    const page = await o.store.table(Payments).findMany({ status: 'settled' }, { order: 'desc', limit: 500, after });
    for (const p of page) {
      if (p.txHash && recent(p.settledAt ?? p.createdAt)) records.push({ kind: 'payment', id: p.id, txHash: p.txHash });
    }
    const last = page.at(-1);
    if (page.length < 500 || !last || Date.parse(last.createdAt) < oldestCreated) break;
    after = last.id;
  }
  for (const t of await o.store.table(Transfers).findMany({ status: 'settled' })) {
    if (t.txHash && recent(t.updatedAt)) records.push({ kind: 'transfer', id: t.id, txHash: t.txHash });
  }
  for (const status of ['paid', 'completed'] as const) {
    for (const b of await o.store.table(BillPayments).findMany({ status })) {
      if (b.txHash && recent(b.updatedAt)) records.push({ kind: 'bill', id: b.id, txHash: b.txHash });
    }
  }
  for (const s of await o.store.table(Stakes).findMany({ status: 'settled' })) {
    if (s.txHash && recent(s.createdAt)) records.push({ kind: 'stake', id: s.id, txHash: s.txHash });
  }
  const missing: AuditedRecord[] = [];
  // A mined transaction answers at once; a missing one costs the short wait. A few at a time.
  for (let i = 0; i < records.length; i += 16) {
    const batch = records.slice(i, i + 16);
    const receipts = await Promise.all(batch.map((r) => o.chain.waitForReceipt(r.txHash as Hex, 1_000)));
    batch.forEach((r, j) => {
      if (receipts[j]!.status !== 'success') missing.push(r);
    });
  }
  for (const r of missing) o.logger.error({ ...r }, 'a record reported as settled has no successful transaction on the chain');
  return { checked: records.length, missing };
}
