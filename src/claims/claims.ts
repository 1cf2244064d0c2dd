import type { Address } from 'viem';
import { newId, nowIso } from '../lib/ids.js';
import { inMode, servedBy } from '../lib/livemode.js';
import { formatUsdc, usdcDecimal } from '../lib/money.js';
import { toE164 } from '../lib/phone.js';
import { fail, type Result } from '../lib/results.js';
import { StoreConflictError, type Tx } from '../store/index.js';
import { Quotes, toTransferQuote, type Quote } from '../quotes/quotes.js';
import { DEFAULT_FEE_POLICY, quoteTransfer, type FeePolicy } from '../transfers/quote.js';
import type { MoveOutcome } from '../wallet/custodial-move.js';
import { holdKey, withWalletFunds } from '../wallet/holds.js';
import { MoneyModule, endRowSpend, recordUserMove, spentBy, type MoneyModuleOptions, type SpendInTx } from '../wallet/money-module.js';
import { claimEscrowIndex, FEE_WALLET_INDEX } from '../wallet/reserved.js';
import { claimLanguage } from './claim-language.js';
import { ClaimReason, Claims, DEFAULT_CLAIM_TTL_MS, IN_FLIGHT, feeDue, hashClaimToken, newClaimToken, returnSplit, type Claim, type ClaimEventType, type ClaimStatus } from './claim-record.js';

export interface ClaimsOptions extends MoneyModuleOptions {
  ttlMs?: number;
  feePolicy?: FeePolicy;
  /**
   * Called inside the transaction that records a step (funded, claimed, canceled, expired), once
   * per account the event is for: the composition root hands it to the webhook outbox, so a step
   * and its event commit together and a re-run step that loses its compare-and-set emits nothing.
   */
  onEvent?: (tx: Tx, type: ClaimEventType, accountId: string, data: ClaimEventData, nowMs: number, livemode: boolean) => Promise<void>;
  /** Test hook: called at each step boundary (a crash test throws or kills the process there). */
  crashAt?: (step: ClaimStep) => void;
}

/** The points a crash test stops at: after each intent is recorded, and after each move (`fee-collected`: the fee leg, before it is recorded). */
export type ClaimStep = 'funding-recorded' | 'funded' | 'claiming-recorded' | 'paid' | 'returning-recorded' | 'returned' | 'fee-collected';

/** The `data` of a `transfer.*` event (docs/claims.md, "Events and webhooks"). */
export interface ClaimEventData {
  id: string;
  object: 'transfer';
  type: 'claim';
  role: 'sender' | 'recipient';
  status: 'open' | 'claimed' | 'canceled' | 'expired';
  amount: string;
  fee: string;
  currency: 'USDC';
  source_amount: string;
  source_currency: string;
  recipient: string;
  sender_account: string;
  expires_at: string;
  tx_hash?: string;
  /** Canceled or expired: USDC back in the sender's wallet (the amount; amount + fee for a claim returning before h17claimfee). */
  returned_amount?: string;
  /** Canceled or expired: our fee, kept (it goes to the fee wallet, as on a claim). */
  fee_kept?: string;
}

export interface CreateClaimInput {
  contact: string;
  amount: string;
  currency?: string;
  note?: string;
  language?: string;
  /** A firm quote into USDC already checked (QuotesService.forClaim): its figures, used once. */
  quote?: Quote;
  /** The mode of the key that made it (false: a test key); default live. Its `transfer.*` events carry it. */
  livemode?: boolean;
  /** The spend policy's reservation, written in the claim's own transaction (src/policies/guard.ts SpendSlot). */
  spend?: SpendInTx;
}

class QuoteTaken extends Error {}

/** Is `text` a phone number or email (the references a claim link can be sent to)? */
export function claimContact(text: string, country?: string): { kind: 'phone' | 'email'; contact: string } | undefined {
  const t = text.trim();
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t)) return { kind: 'email', contact: t.toLowerCase() };
  if (/^[+0-9][0-9 ()-]{5,}$/.test(t)) {
    const phone = toE164(t, country);
    if (phone) return { kind: 'phone', contact: phone };
  }
  return undefined;
}

/**
 * Claim links (docs/claims.md): money for someone with no account yet moves from the
 * sender's wallet into an escrow wallet of the claim's own, and from there to the person who
 * claims it (signed in with that phone or email), or back to the sender (cancel, expiry); the
 * fee goes to the fee wallet in every case (DESIGN section 11: our fee is kept on cancel and expiry).
 */
export class ClaimsService extends MoneyModule<ClaimsOptions> {
  get(id: string): Promise<Claim | undefined> {
    return this.store.table(Claims).get(id);
  }

  byToken(token: string): Promise<Claim | undefined> {
    return this.store.table(Claims).findOne({ tokenHash: hashClaimToken(token) });
  }

  /** Claims an account sent or received, newest first; `livemode`: one mode's only. */
  async history(accountId: string, limit = 50, livemode?: boolean): Promise<Claim[]> {
    const t = this.store.table(Claims);
    const [sent, got] = await Promise.all([t.findMany({ senderAccountId: accountId }, { order: 'desc' }), t.findMany({ claimantAccountId: accountId }, { order: 'desc' })]);
    return [...sent, ...got.filter((c) => c.senderAccountId !== accountId)]
      .filter((c) => c.status !== 'failed' && (livemode === undefined || inMode(c, livemode)))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, limit);
  }

  /**
   * Sends to a phone or email with no account: records the claim (`funding`, with a hold on
   * the sender's wallet and the limit reserved), moves amount + fee into the claim's escrow,
   * then `open`. Answers the link token once; only its hash is stored.
   */
  async create(senderId: string, input: CreateClaimInput): Promise<Result<{ claim: Claim; token: string }>> {
    const sender = await this.accounts.get(senderId);
    if (!sender) return fail('account_not_found', 'Your account was not found.');
    const c = claimContact(input.contact, sender.country);
    if (!c) return fail('invalid_recipient', `${input.contact} is not a phone number or email.`, 'recipient');
    const firm = input.quote;
    const q = firm
      ? { ok: true as const, quote: toTransferQuote(firm) }
      : quoteTransfer(this.fx, { amount: input.amount, currency: input.currency ?? sender.localCurrency, recipientCurrency: 'USDC' }, this.opts.feePolicy ?? DEFAULT_FEE_POLICY);
    if (!q.ok) return q;
    const fromAddress = this.wallets.addressOf(sender);
    const { token, hash } = newClaimToken();
    const id = newId('clm');
    const now = this.now();
    for (let attempt = 0; ; attempt++) {
      const seq = await this.store.table(Claims).count();
      const escrowIndex = claimEscrowIndex(seq + attempt);
      const row: Claim = {
        id,
        senderAccountId: sender.id,
        senderName: sender.name,
        contactKind: c.kind,
        contact: c.contact,
        tokenHash: hash,
        status: 'funding',
        escrowIndex,
        escrowAddress: this.chain.custodialAddress(escrowIndex),
        fromIndex: sender.walletIndex,
        fromAddress,
        amount: q.quote.stablecoinAmount.toString(),
        fee: q.quote.fee.toString(),
        total: q.quote.totalDebit.toString(),
        sourceCurrency: q.quote.sourceCurrency,
        sourceAmount: q.quote.sourceAmount,
        sourceAmountMinor: q.quote.sourceAmountMinor.toString(),
        ...(input.note ? { note: input.note } : {}),
        language: input.language ?? claimLanguage(sender),
        events: [],
        expiresAt: new Date(now.getTime() + (this.opts.ttlMs ?? DEFAULT_CLAIM_TTL_MS)).toISOString(),
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        livemode: input.livemode !== false,
      };
      const recorded = await withWalletFunds(this.store, this.chain, fromAddress as Address, async (tx, funds) => {
        // The spend policy's reservation first (over a cap it aborts this transaction); the claim keeps its id.
        const spendReservationId = await input.spend?.reserveIn(tx);
        const reserved = await funds.reserve({
          key: holdKey('claim', id),
          amount: q.quote.totalDebit,
          limit: { account: sender, amount: q.quote.stablecoinAmount, now, defaults: this.opts.defaultLimits },
          fmt: (v) => formatUsdc(v),
        });
        if (!reserved.ok) {
          await input.spend?.finishIn(tx, { ok: false, reason: reserved.reason });
          return reserved;
        }
        // The firm quote is spent with the claim that uses it, or not at all.
        // (Thrown, so the hold and limit just taken roll back with it.)
        if (firm && !(await tx.table(Quotes).update(firm.id, { status: 'used', transferId: id, updatedAt: nowIso() }, { status: 'open' }))) throw new QuoteTaken();
        await tx.table(Claims).insert({ ...row, reservation: reserved.reservation, ...(spendReservationId ? { spendReservationId } : {}) });
        return { ok: true as const };
      }).catch((e: unknown) => {
        if (e instanceof QuoteTaken) return fail('quote_used', `Quote ${firm!.id} was already used; nothing was sent.`);
        if (e instanceof StoreConflictError && attempt < 5) return 'retry' as const;
        throw e;
      });
      if (recorded === 'retry') continue;
      if (!recorded.ok) return fail(recorded.reason, recorded.reason === 'chain_unavailable' ? 'The network is not reachable right now; nothing was sent.' : recorded.message, 'amount');
      break;
    }
    this.opts.crashAt?.('funding-recorded');
    const claim = await this.fund((await this.get(id))!);
    if (claim.status === 'failed') return fail('transfer_failed', `Nothing was sent: ${claim.failureMessage ?? 'the network refused the transfer'}.`);
    return { ok: true, claim, token };
  }

  /** The recipient takes the money: signed in as the account with the claim's phone or email. */
  async claim(token: string, claimantId: string): Promise<Result<{ claim: Claim }>> {
    const c = await this.byToken(token);
    if (!c) return fail(ClaimReason.notFound, 'This claim link is not valid.');
    if (c.status === 'claimed' || c.status === 'claiming') return fail(ClaimReason.alreadyClaimed, 'This money has already been claimed.');
    if (c.status !== 'open') return fail(ClaimReason.notOpen, c.status === 'funding' ? 'This money is still on its way; try again in a minute.' : 'This claim was canceled or expired; the money went back to the sender.');
    if (Date.parse(c.expiresAt) <= this.now().getTime()) return fail(ClaimReason.expired, 'This claim has expired; the money goes back to the sender.');
    const claimant = await this.accounts.get(claimantId);
    if (!claimant) return fail('account_not_found', 'Your account was not found.');
    if (claimant.id === c.senderAccountId) return fail(ClaimReason.ownClaim, 'You sent this money; you cannot claim it yourself (cancel it instead).');
    const mine = c.contactKind === 'email' ? claimant.email?.toLowerCase() === c.contact : claimant.phone === c.contact;
    if (!mine) return fail(ClaimReason.wrongClaimant, `This money was sent to ${mask(c)}; sign in with that ${c.contactKind} to claim it.`);
    const moved = await this.transition(c.id, 'open', { status: 'claiming', claimantAccountId: claimant.id });
    if (!moved) return fail(ClaimReason.alreadyClaimed, 'This money has already been claimed.');
    this.opts.crashAt?.('claiming-recorded');
    return { ok: true, claim: await this.payout(moved) };
  }

  /** The sender takes an unclaimed claim back: the amount returns, our fee is kept (DESIGN section 11). */
  async cancel(senderId: string, claimId: string): Promise<Result<{ claim: Claim }>> {
    const c = await this.get(claimId);
    if (!c || c.senderAccountId !== senderId) return fail(ClaimReason.notFound, `No such claim: ${claimId}.`);
    // A cancel retried (a lost answer, a second tap) answers the claim again, as a canceled
    // payment's cancel does (docs/api-decisions.md); nothing moves twice (h16tour: it was a 400).
    if ((c.status === 'canceled' || c.status === 'returning') && c.returnReason === 'canceled') return { ok: true, claim: c };
    if (c.status !== 'open') return fail(ClaimReason.notOpen, c.status === 'claimed' || c.status === 'claiming' ? 'It has already been claimed.' : `This claim is ${c.status}.`);
    const moved = await this.transition(c.id, 'open', { status: 'returning', returnReason: 'canceled', feeKept: true });
    if (!moved) return fail(ClaimReason.notOpen, 'This claim is no longer open.');
    this.opts.crashAt?.('returning-recorded');
    return { ok: true, claim: await this.giveBack(moved) };
  }

  /**
   * The scheduler's pass (and recovery at start): finishes every step a crash or timeout left in
   * flight (same nonces, so nothing moves twice) and returns open claims past their expiry.
   */
  async sweep(): Promise<number> {
    let n = 0;
    const t = this.store.table(Claims);
    const mine = (c: Claim) => servedBy(c, this.opts.livemode); // each mode's own claims, on its chain
    for (const status of IN_FLIGHT) {
      for (const c of (await t.findMany({ status })).filter(mine)) {
        n++;
        if (status === 'funding') await this.fund(c);
        else if (status === 'claiming') await this.payout(c);
        else await this.giveBack(c);
      }
    }
    // A fee leg not yet collected: claimed, or (h17claimfee) canceled or expired under the fee-kept rule.
    for (const status of ['claimed', 'canceled', 'expired'] as const) for (const c of (await t.findMany({ status })).filter(mine)) if (feeDue(c)) await this.collectFee(c);
    const now = this.now().getTime();
    for (const c of (await t.findMany({ status: 'open' })).filter(mine)) {
      if (Date.parse(c.expiresAt) > now) continue;
      const moved = await this.transition(c.id, 'open', { status: 'returning', returnReason: 'expired', feeKept: true });
      if (moved) {
        n++;
        await this.giveBack(moved);
      }
    }
    return n;
  }

  // ------------------------------------------------------------------ steps

  private async fund(c: Claim): Promise<Claim> {
    const out = await this.moveTo(c.fromIndex, c.escrowAddress, BigInt(c.total), 'claim-fund', c.id);
    this.opts.crashAt?.('funded');
    const recorded = await recordUserMove<Claim>(this.store, out, {
      table: Claims,
      row: c,
      wallet: c.fromAddress,
      hold: holdKey('claim', c.id),
      inFlight: { status: 'funding' },
      limit: { accountId: c.senderAccountId, reservation: c.reservation },
      moved: BigInt(c.total),
      settled: (txHash) => ({ status: 'open', fundTxHash: txHash, events: [...c.events, this.event('transfer.claim_created', txHash)] }),
      failed: (o) => ({ status: 'failed', failureMessage: o.message }),
      // The escrow's funding has no transaction field of its own until it settles.
      pending: () => undefined,
      afterSettled: (tx, row) => this.emit(tx, row, 'transfer.claim_created', row.fundTxHash),
      // Its spend reservation ends with the funding (the turn may have ended in a store error first).
      alsoIn: (tx) => endRowSpend(tx, this.opts, c, spentBy(out), this.now()),
    });
    return recorded.row;
  }

  private async payout(c: Claim): Promise<Claim> {
    const claimant = await this.accounts.get(c.claimantAccountId!);
    if (!claimant) return c;
    let row = c;
    if (c.status === 'claiming') {
      const out = await this.moveTo(c.escrowIndex, this.wallets.addressOf(claimant), BigInt(c.amount), 'claim-pay', c.id);
      this.opts.crashAt?.('paid');
      if (out.status !== 'settled') {
        this.opts.logger?.warn({ claimId: c.id, out }, 'claim payout not settled yet; the sweep retries it');
        return c;
      }
      row = (await this.transition(c.id, 'claiming', { status: 'claimed', payoutTxHash: out.txHash, events: [...c.events, this.event('transfer.claimed', out.txHash)] }, 'transfer.claimed')) ?? (await this.get(c.id))!;
    }
    return this.collectFee(row);
  }

  /**
   * The return leg (escrow -> sender: the amount, or amount + fee for a claim that went
   * `returning` before h17claimfee), then the fee leg (escrow -> fee wallet), each under its own
   * nonce, so a re-run after a crash between them moves neither twice.
   */
  private async giveBack(c: Claim): Promise<Claim> {
    const out = await this.moveTo(c.escrowIndex, c.fromAddress, returnSplit(c).returned, 'claim-return', c.id);
    this.opts.crashAt?.('returned');
    if (out.status !== 'settled') {
      this.opts.logger?.warn({ claimId: c.id, out }, 'claim return not settled yet; the sweep retries it');
      return c;
    }
    const final: ClaimStatus = c.returnReason === 'expired' ? 'expired' : 'canceled';
    const type: ClaimEventType = final === 'expired' ? 'transfer.claim_expired' : 'transfer.claim_canceled';
    const row = (await this.transition(c.id, 'returning', { status: final, returnTxHash: out.txHash, events: [...c.events, this.event(type, out.txHash)] }, type)) ?? (await this.get(c.id))!;
    return this.collectFee(row);
  }

  /** The fee leg (nonce `claim-fee`), once the claim is claimed, canceled or expired; recorded by compare-and-set. */
  private async collectFee(row: Claim): Promise<Claim> {
    if (!feeDue(row)) return row;
    const fee = await this.moveTo(row.escrowIndex, this.wallets.address(FEE_WALLET_INDEX), BigInt(row.fee), 'claim-fee', row.id);
    this.opts.crashAt?.('fee-collected');
    if (fee.status !== 'settled') return row;
    return (await this.transition(row.id, row.status, { feeSettled: true, feeTxHash: fee.txHash })) ?? row;
  }

  private moveTo(fromIndex: number, to: string, value: bigint, kind: string, id: string): Promise<MoveOutcome> {
    return this.move({ fromIndex, to: to as Address, value, kind, id });
  }

  /** Compare-and-set on the status; with `emit`, the step's event commits with it (only if it won). */
  private transition(id: string, from: ClaimStatus, patch: Partial<Claim>, emit?: ClaimEventType): Promise<Claim | undefined> {
    if (!emit || !this.opts.onEvent) return this.store.write(Claims, (t) => t.update(id, { ...patch, updatedAt: nowIso() }, { status: from }));
    return this.store.transaction(async (tx) => {
      const row = await tx.table(Claims).update(id, { ...patch, updatedAt: nowIso() }, { status: from });
      if (row) await this.emit(tx, row, emit, row.events.at(-1)?.txHash);
      return row;
    });
  }

  /**
   * The step's event for the sender; `transfer.claimed` also for the claimant (money in for them:
   * a merchant account that claims sees it on its endpoints too).
   */
  private async emit(tx: Tx, c: Claim, type: ClaimEventType, txHash?: string): Promise<void> {
    if (!this.opts.onEvent) return;
    const nowMs = this.now().getTime();
    // The claim's own mode (a test key's claim emits test-mode events, for the claimant too).
    const livemode = c.livemode !== false;
    await this.opts.onEvent(tx, type, c.senderAccountId, claimEventData(c, 'sender', txHash), nowMs, livemode);
    if (type === 'transfer.claimed' && c.claimantAccountId) await this.opts.onEvent(tx, type, c.claimantAccountId, claimEventData(c, 'recipient', txHash), nowMs, livemode);
  }

  private event(type: ClaimEventType, txHash?: string) {
    return { type, at: this.now().toISOString(), ...(txHash ? { txHash } : {}) };
  }
}

export function claimEventData(c: Claim, role: 'sender' | 'recipient', txHash?: string): ClaimEventData {
  const status = c.status === 'claimed' || c.status === 'canceled' || c.status === 'expired' ? c.status : 'open';
  return {
    id: c.id,
    object: 'transfer',
    type: 'claim',
    role,
    status,
    amount: usdcDecimal(c.amount),
    fee: usdcDecimal(c.fee),
    currency: 'USDC',
    source_amount: c.sourceAmount,
    source_currency: c.sourceCurrency,
    recipient: mask(c),
    sender_account: c.senderAccountId,
    expires_at: c.expiresAt,
    ...(txHash ? { tx_hash: txHash } : {}),
    ...(status === 'canceled' || status === 'expired' ? returnedFields(c) : {}),
  };
}

/** The canceled or expired claim's split, USDC decimals from base units: what went back, what our fee wallet kept. */
export function returnedFields(c: Claim): { returned_amount: string; fee_kept: string } {
  const { returned, kept } = returnSplit(c);
  return { returned_amount: usdcDecimal(returned), fee_kept: usdcDecimal(kept) };
}

/** "+2547•••••678" / "a•••@example.com": enough to recognise, not to learn the contact. */
export function mask(c: Pick<Claim, 'contactKind' | 'contact'>): string {
  if (c.contactKind === 'email') {
    const [user, domain] = c.contact.split('@');
    return `${user!.slice(0, 1)}•••@${domain}`;
  }
  return `${c.contact.slice(0, 5)}•••••${c.contact.slice(-3)}`;
}

export type { Claim } from './claim-record.js';
