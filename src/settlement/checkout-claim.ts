/**
 * The checkout side of the attempt ledger: claiming a payment for one attempt (`pending ->
 * processing` and the attempt row in one transaction, so no instance sees one without the
 * other), recording its transaction as soon as it is on its way, and reading back the stored
 * authorization when another instance finishes the attempt.
 */
import { getAddress, type Hex } from 'viem';
import type { TransferAuthorization } from '../chain/authorization.js';
import { Payments, type Payment, type PaymentsService } from '../payments/payments.js';
import { updateUnread, type Store, type Tx } from '../store/index.js';
import { SettlementAttempts, type AttemptLedger, type SettlementAttempt } from './attempts.js';
import { withAttempt } from './settle-reasons.js';

  /** `pending -> processing` and the attempt that carries it, in one transaction. */
export async function claimAttempt(
  d: { store: Store; payments: PaymentsService; ledger: AttemptLedger },
    p: Payment,
    auth: TransferAuthorization,
    signature: Hex,
    authNonce: string | undefined,
  ): Promise<{ payment: Payment; attempt: SettlementAttempt } | undefined> {
    // The attempt's deadline is written in the store's time (measured once a minute, beside the settle).
    await d.ledger.freshOffset();
    // Concurrent settles' claims share one commit on PostgreSQL (store/pg/commit-groups.ts).
    return d.store
      .transaction(async (tx) => {
        // Issued together: one round trip on PostgreSQL (store/pg/deferred-writes.ts).
        const [payment, attempt] = await Promise.all([
          // Built on `p` (its `attemptedBy` carried on): the row must still be the one read, so a
          // read taken before the queue (the door's, settlement.ts) cannot drop a newer attempt.
          // Its version (bumped by the store on every write) sees two writes within one
          // millisecond. A row written before the version existed was read without one: it
          // counts as 0 (the store's compare-and-set matches an absent version to 0, and the
          // first write since made it 1), so such a read is guarded the same way (h12truth).
          d.payments.transitionIn(
            tx,
            p.id,
            'pending',
            'processing',
            { payer: auth.from, attemptedBy: withAttempt(p, auth.from, authNonce), authNonce, txHash: undefined },
            { updatedAt: p.updatedAt, version: p.version ?? 0 },
          ),
          d.ledger.open(tx, {
            kind: 'checkout',
            subject: p.id,
            payer: auth.from,
            nonce: auth.nonce,
            validBefore: auth.validBefore,
            authorization: Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, String(v)])),
            signature,
          }),
        ]);
        // The payment is no longer pending (its attempt row must not stay), or an attempt of this
        // very authorization is still open (from before the ledger's rules): roll the claim
        // back; the caller reads the state again.
        if (!payment || !attempt) throw new ClaimRefused();
        return { payment, attempt };
      }, { shareCommit: true })
      .catch((e: unknown) => {
        if (e instanceof ClaimRefused) return undefined;
        throw e;
      });
  }

export async function recordTxHash(store: Store, paymentId: string, attempt: SettlementAttempt, txHash: Hex): Promise<void> {
  await store.transaction((tx) => recordTxHashIn(tx, paymentId, attempt, txHash), { shareCommit: true });
}

/**
 * The same inside `tx` (the relay journal's commit, before the broadcast). Stored while still
 * processing, so the reconciler (of any instance) can follow a transaction that is pending in
 * the mempool. Not a status change: no listeners. A payment no longer processing or an attempt
 * taken over is left as it is (compare-and-set), never an error that would stop the send.
 */
export async function recordTxHashIn(tx: Tx, paymentId: string, attempt: SettlementAttempt, txHash: Hex): Promise<void> {
  const now = new Date().toISOString();
  // Nobody reads their outcome: on PostgreSQL both go with the commit's round trip.
  await updateUnread(tx.table(Payments), paymentId, { txHash, updatedAt: now }, { status: 'processing' });
  await updateUnread(tx.table(SettlementAttempts), attempt.id, { txHash, updatedAt: now }, { generation: attempt.generation });
}

/**
 * A fenced owner's unsent hash off the payment (its journal commit wrote it): the attempt's
 * current hash instead (a survivor's, or none), while the payment is still processing.
 */
export async function restoreTxHash(store: Store, paymentId: string, attempt: SettlementAttempt | undefined): Promise<void> {
  await store.write(Payments, (t) => t.update(paymentId, { txHash: attempt?.txHash, updatedAt: new Date().toISOString() }, { status: 'processing' }));
}

/** The signed authorization an attempt carries. */
export function storedAuthorization(attempt: SettlementAttempt): TransferAuthorization {
  const a = attempt.authorization;
  return {
    from: getAddress(a.from!),
    to: getAddress(a.to!),
    value: BigInt(a.value!),
    validAfter: BigInt(a.validAfter!),
    validBefore: BigInt(a.validBefore!),
    nonce: a.nonce as Hex,
  };
}

/** Thrown inside the claim's transaction to roll it back. */
class ClaimRefused extends Error {}

/**
 * True when `auth` and `signature` are, byte for byte (hex case aside), the authorization and
 * signature `attempt` was opened with: a retry of a settle this service already accepted. The
 * attempt's signature was proven then (the token's own check in the simulation, or a local
 * recovery), so a retry that repeats it needs no second recovery (issue 23, seventh round).
 */
export function sameAsRecorded(attempt: SettlementAttempt | undefined, paymentId: string, auth: TransferAuthorization, signature: Hex): boolean {
  if (!attempt || attempt.subject !== paymentId || attempt.signature.toLowerCase() !== signature.toLowerCase()) return false;
  const a = attempt.authorization;
  return (
    a.from?.toLowerCase() === auth.from.toLowerCase() &&
    a.to?.toLowerCase() === auth.to.toLowerCase() &&
    a.value === String(auth.value) &&
    a.validAfter === String(auth.validAfter) &&
    a.validBefore === String(auth.validBefore) &&
    a.nonce?.toLowerCase() === auth.nonce.toLowerCase()
  );
}
