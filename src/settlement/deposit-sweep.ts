/**
 * Paying a session through its deposit address, as a payment method like the others (issue 22,
 * step 1; docs/settlement.md, "Deposit addresses"). The deposit watcher (deposit-watcher.ts) only
 * notices money arriving and hands the session's deposit to `pay(id, { method:
 * 'deposit-address', deposit })`; the method's adapter
 * (src/checkout-sessions/methods/deposit-address.ts, over `authorizeDeposit` below) turns it into
 * ONE authorization, the sweep's EIP-3009 authorization signed by the deposit key, and the terms
 * settlement checks it by (DEPOSIT_SWEEP_TERMS), or into a named refusal; settlement relays it
 * through `DepositSweeps.settle`:
 *
 * - `pending -> processing` (payer: the first sender) and the sweep's intent on the deposit row,
 *   in one transaction;
 * - the sweep relayed as one owner attempt of kind 'deposit-sweep' (nonce: the payment id and
 *   'deposit-sweep', so it moves once; src/chain/owned-relay.ts);
 * - `settled` with the sweep's hash once mined, the over-payment queued to go back to the sender
 *   who went over; provably nothing moved: back to `pending`, the next pass tries again.
 *
 * A sweep in flight after a crash or a lost answer is finished by `resume` (the watcher's pass),
 * from the chain, never sent twice: the settlement reconciler leaves deposit payments alone.
 */
import { getAddress, isAddressEqual, type Address, type Hex } from 'viem';
import type { TransferAuthorization } from '../chain/authorization.js';
import type { ChainPort } from '../chain/chain-port.js';
import { relayOwned, type OwnedRelayChain, type RelayAttempts } from '../chain/owned-relay.js';
import { nowIso } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { fail, type Fail } from '../lib/results.js';
import { hasSettleAttempt, type Payment, type PaymentsService } from '../payments/payments.js';
import type { Store } from '../store/index.js';
import type { AuthorizationTerms } from './authorization-terms.js';
import { credited, Deposits, type Deposit, type DepositTransfer } from './deposit-records.js';
import { SettleReason, statusFailure, type SettleRequest, type SettleResult } from './settle-reasons.js';

export const DEPOSIT_SWEEP_NONCE_KIND = 'deposit-sweep';

/** Why money at a deposit address does not pay its session now (besides settlement's own reasons). */
export const DepositRefusal = {
  /** Less than the amount has arrived: the session waits for a top-up. */
  underpaid: 'deposit_underpaid',
  /** A signed authorization of the session may still reach the chain: sweeping could charge twice. */
  attemptOpen: 'deposit_attempt_open',
} as const;
export type DepositRefusal = (typeof DepositRefusal)[keyof typeof DepositRefusal];

/** Settlement's rule for a sweep: a payer-less authorization from the session's own deposit address. */
export interface DepositSweepTerms extends AuthorizationTerms {
  readonly sweep: true;
}

/**
 * The sweep moves exactly the amount, from the deposit address to the session's pay_to, with the
 * session's sweep nonce; its window is the deposit key's own (open now).
 */
export const DEPOSIT_SWEEP_TERMS: DepositSweepTerms = {
  sweep: true,
  compare(got, issued) {
    if (!isAddressEqual(got.from, issued.from)) return fail(SettleReason.wrongRecipient, 'The sweep must come from the session\'s deposit address.', 'authorization.from');
    if (!isAddressEqual(got.to, issued.to)) return fail(SettleReason.wrongRecipient, 'The authorization pays the wrong recipient.', 'authorization.to');
    if (got.value !== issued.value) return fail(SettleReason.wrongAmount, `The sweep must be for exactly ${issued.value} base units.`, 'authorization.value');
    if (got.nonce.toLowerCase() !== issued.nonce.toLowerCase()) return fail(SettleReason.wrongNonce, 'The sweep nonce was not issued for this payment.', 'authorization.nonce');
    if (got.validAfter > got.validBefore) return fail(SettleReason.wrongValidity, 'The authorization validity window is empty.', 'authorization.validAfter');
    return undefined;
  },
  chosenNonce: () => undefined,
};

export function isDepositSweep(terms: AuthorizationTerms): terms is DepositSweepTerms {
  return (terms as Partial<DepositSweepTerms>).sweep === true;
}

/** What turning a deposit into its sweep needs. */
export interface DepositMethodContext {
  payment: Payment;
  chain: Pick<ChainPort, 'nonceFor' | 'signDepositAuthorization'>;
  recipientFor(p: Payment): Promise<Address | undefined>;
}

export type DepositAuthorization = { ok: true; request: SettleRequest; terms: DepositSweepTerms } | Fail<DepositRefusal | SettleReason>;

/**
 * The deposit-address method's decision (methods/deposit-address.ts): the money `deposit` received
 * pays the session now, as the sweep's authorization signed by the deposit key, or a refusal.
 */
export async function authorizeDeposit({ payment: p, chain, recipientFor }: DepositMethodContext, deposit: Deposit): Promise<DepositAuthorization> {
  if (deposit.id !== p.id) return fail(SettleReason.notFound, `No deposit of payment ${p.id}.`);
  if (deposit.sweep) return fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
  const notPayable = statusFailure(p);
  if (notPayable) return notPayable;
  // A session past its expiry still reads `pending` while a signed attempt is being checked.
  if (Date.parse(p.expiresAt) <= Date.now()) return fail(SettleReason.expired, 'This payment session has expired.');
  // While a signed authorization of this session may still reach the chain, the deposit waits:
  // the reconciler settles the session from it or ends it, and the deposit is then given back.
  if (hasSettleAttempt(p)) return fail(DepositRefusal.attemptOpen, 'A signed authorization of this session is still being checked.');
  const amount = BigInt(p.stablecoinAmount);
  const received = credited(deposit).reduce((s, t) => s + BigInt(t.value), 0n);
  if (received === 0n || received < amount) return fail(DepositRefusal.underpaid, `${received} of ${amount} base units arrived.`);
  const to = await recipientFor(p);
  if (!to) return fail(SettleReason.notFound, `No such payment: ${p.id}`);
  const nonce = chain.nonceFor(DEPOSIT_SWEEP_NONCE_KIND, p.id);
  const signed = await chain.signDepositAuthorization({ fromIndex: deposit.index, to, value: amount, nonce });
  if (!signed.ok) return fail(SettleReason.chainUnavailable, signed.message);
  return { ok: true, request: { authorization: signed.auth, signature: signed.signature }, terms: DEPOSIT_SWEEP_TERMS };
}

export interface DepositSweepsOptions {
  store: Store;
  payments: PaymentsService;
  chain: OwnedRelayChain & Pick<ChainPort, 'nonceFor' | 'signDepositAuthorization'>;
  log: Logger;
  attempts: RelayAttempts;
  recipientFor(p: Payment): Promise<Address | undefined>;
  /** Receipt wait of a sweep (then the next pass looks again). */
  relayWaitMs: number;
}

type Signed = { ok: true; auth: TransferAuthorization; signature: Hex };

export class DepositSweeps {
  constructor(private readonly o: DepositSweepsOptions) {}

  /** Settles session `paymentId` with the sweep `input` (checked by `terms`); run in the payment's queue. */
  async settle(paymentId: string, input: SettleRequest, terms: DepositSweepTerms): Promise<SettleResult> {
    const [p, d] = await Promise.all([this.o.payments.get(paymentId), this.o.store.table(Deposits).get(paymentId)]);
    if (!p || !d) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    const notPayable = statusFailure(p);
    if (notPayable) return notPayable;
    if (Date.parse(p.expiresAt) <= Date.now()) return fail(SettleReason.expired, 'This payment session has expired.');
    if (hasSettleAttempt(p) || d.sweep) return fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
    const to = await this.o.recipientFor(p);
    if (!to) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    const issued: TransferAuthorization = {
      from: getAddress(d.address),
      to,
      value: BigInt(p.stablecoinAmount),
      validAfter: 0n,
      validBefore: input.authorization.validBefore,
      nonce: this.o.chain.nonceFor(DEPOSIT_SWEEP_NONCE_KIND, p.id),
    };
    const mismatch = terms.compare(input.authorization, issued);
    if (mismatch) return mismatch;
    const started = await this.start(d, p, to);
    if (!started) return fail(SettleReason.processing, 'The payment changed state; try again.');
    const outcome = await this.run(started, { ok: true, auth: input.authorization, signature: input.signature as Hex });
    if (outcome.status === 'settled') {
      const paid = await this.o.payments.get(paymentId);
      return paid ? { ok: true, payment: paid, txHash: outcome.txHash } : fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    }
    if (outcome.status === 'pending') return fail(SettleReason.processing, 'The sweep of the deposit is on its way.');
    return fail(SettleReason.submitFailed, `The sweep moved nothing: ${outcome.message}`);
  }

  /** Finishes a sweep in flight (after a crash, a lost answer, a receipt wait that ran out); true once settled. */
  async resume(d: Deposit): Promise<boolean> {
    return (await this.run(d)).status === 'settled';
  }

  /** `pending -> processing` (payer: the first sender) and the sweep's intent, in one transaction. */
  private async start(d: Deposit, p: Payment, payTo: Address): Promise<Deposit | undefined> {
    const amount = BigInt(p.stablecoinAmount);
    return this.o.store.transaction(async (tx) => {
      const cur = await tx.table(Deposits).get(d.id);
      if (!cur || cur.sweep) return undefined;
      const list = credited(cur);
      const sum = list.reduce((s, t) => s + BigInt(t.value), 0n);
      if (list.length === 0 || sum < amount) return undefined;
      const excess = sum > amount ? (sum - amount).toString() : undefined;
      const moved = await this.o.payments.transitionIn(tx, p.id, 'pending', 'processing', {
        payer: getAddress(list[0]!.from),
        viaDeposit: true,
        ...(excess ? { depositExcess: excess } : {}),
      });
      if (!moved) return undefined;
      return tx.table(Deposits).update(d.id, {
        // Exactly the amount goes to the merchant; what went over is given back once the sweep is mined.
        sweep: { value: amount.toString(), transferIds: list.map((t) => t.id), payTo },
        updatedAt: nowIso(),
      });
    });
  }

  /**
   * Sends (or finds) the sweep: `signed` is the method's authorization; a resume signs again
   * only when a fresh attempt is opened (the attempt decides from the chain first).
   */
  private async run(d: Deposit, signed?: Signed): Promise<{ status: 'settled'; txHash: Hex } | { status: 'pending' } | { status: 'failed'; message: string }> {
    const s = d.sweep!;
    const nonce = this.o.chain.nonceFor(DEPOSIT_SWEEP_NONCE_KIND, d.id);
    const relayed = await relayOwned(this.o.chain, this.o.attempts, {
      kind: DEPOSIT_SWEEP_NONCE_KIND,
      subject: d.id,
      from: getAddress(d.address),
      nonce,
      sign: async () => signed ?? this.o.chain.signDepositAuthorization({ fromIndex: d.index, to: getAddress(s.payTo), value: BigInt(s.value), nonce }),
      timeoutMs: this.o.relayWaitMs,
      since: d.createdAt,
      onSent: (txHash) => this.recordTx(d.id, txHash),
    });
    if (relayed.status === 'settled') return (await this.finish(d.id, relayed.txHash)) ? relayed : { status: 'pending' };
    if (relayed.status === 'pending') return relayed;
    // Provably nothing moved (relayOwned): the session is payable again and the next pass tries once more.
    this.o.log.warn({ paymentId: d.id, reason: relayed.reason, message: relayed.message }, 'deposit sweep failed; nothing moved');
    await this.o.store.transaction(async (tx) => {
      await this.o.payments.transitionIn(tx, d.id, 'processing', 'pending', { payer: undefined, viaDeposit: undefined, depositExcess: undefined });
      await tx.table(Deposits).update(d.id, { sweep: undefined, updatedAt: nowIso() });
    });
    return relayed;
  }

  private async recordTx(id: string, txHash: Hex): Promise<void> {
    await this.o.store.write(Deposits, async (t) => {
      const d = await t.get(id);
      if (d?.sweep && !d.sweep.done) await t.update(id, { sweep: { ...d.sweep, txHash }, updatedAt: nowIso() });
    });
  }

  /** The sweep is mined: the payment is settled with it (payment.settled, once: a compare-and-set). */
  private async finish(id: string, txHash: Hex): Promise<boolean> {
    return this.o.store.transaction(async (tx) => {
      const d = await tx.table(Deposits).get(id);
      if (!d?.sweep) return false;
      const swept = new Set(d.sweep.transferIds);
      const covered = d.transfers.filter((t) => swept.has(t.id));
      const over = covered.reduce((s, t) => s + BigInt(t.value), 0n) - BigInt(d.sweep.value);
      const last = covered[covered.length - 1];
      // Over-payment: the excess, left at the deposit address, goes back to the sender whose
      // transfer went over (its own give-back entry and nonce; the watcher's pass sends it).
      const giveBack: DepositTransfer[] = over > 0n && last ? [{ ...last, id: `${last.id}:excess`, value: over.toString(), use: 'refund' }] : [];
      await tx.table(Deposits).update(id, {
        sweep: { ...d.sweep, txHash, done: true },
        transfers: [...d.transfers.map((t) => (swept.has(t.id) ? { ...t, use: 'swept' as const } : t)), ...giveBack],
        updatedAt: nowIso(),
      });
      const settled = await this.o.payments.transitionIn(tx, id, 'processing', 'settled', { txHash, settledAt: nowIso() });
      if (settled) this.o.log.info({ paymentId: id, txHash, value: d.sweep.value }, 'payment settled from its deposit address');
      return settled !== undefined;
    });
  }
}

/** The deposit-address method's input: the deposit the watcher noticed money at. */
export interface DepositAddressInput {
  method: 'deposit-address';
  deposit: Deposit;
}
