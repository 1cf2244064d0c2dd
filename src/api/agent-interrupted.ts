import type { InterruptedRecords } from '../inbox/request-replays.js';

/**
 * The answer to a retry whose Idempotency-Key's first request was cut off mid-turn (its process
 * crashed or was killed, or it outran the lease; src/inbox/request-replays.ts). That turn is never
 * run again, since it may have moved money: the answer says what the store holds of it, found by its
 * request id (transfers and bill payments carry it), and what to check. 202, `reason:"interrupted"`:
 * a recorded transfer or bill is finished by the money modules' sweep, whatever the answer says now.
 */
export function interruptedAnswer({ transfers, bills }: InterruptedRecords, since: string): { status: number; body: Record<string, unknown> } {
  const lead = `The first request with this Idempotency-Key (${since}) was cut off before it answered: the service stopped while carrying it out. It is not run again.`;
  const t = transfers[0];
  if (t) {
    const transfer = { id: t.id, status: t.status, amount: t.sourceAmount, currency: t.sourceCurrency, recipient: t.recipientInput, ...(t.txHash ? { tx_hash: t.txHash } : {}) };
    const reply = `${lead} It recorded transfer ${t.id} of ${t.sourceAmount} ${t.sourceCurrency} to ${t.recipientInput}, now ${t.status}. Check it in your activity before sending anything again.`;
    return { status: 202, body: { ok: false, action: 'transfer', reason: 'interrupted', reply, transfer } };
  }
  const b = bills[0];
  if (b) {
    const bill = { id: b.id, status: b.status, amount: b.amount, currency: b.currency, biller: b.billerName, ...(b.txHash ? { tx_hash: b.txHash } : {}) };
    const reply = `${lead} It recorded bill payment ${b.id} of ${b.amount} ${b.currency} to ${b.billerName}, now ${b.status}. Check it in your activity before paying again.`;
    return { status: 202, body: { ok: false, action: 'bill', reason: 'interrupted', reply, bill } };
  }
  const reply = `${lead} No transfer or bill payment of it is recorded, but a market stake or a payment link may be: check your activity and balance, and send it again with a new Idempotency-Key only if it is missing.`;
  return { status: 202, body: { ok: false, action: 'none', reason: 'interrupted', reply } };
}
