/**
 * Dispatch by mode at the core boundary (docs/test-mode.md, "Where test mode settles"): with a
 * chain per mode, the composition root builds the chain-dependent services twice (money-services.ts), and
 * these facades give each call to the set of the record's mode: a payment's (settle, deposit
 * address, app wallet, cancel, refund, manual capture), a key's (the agent's tools, the x402
 * facilitator). The doors keep calling one service; none threads a mode through the modules.
 */
import type { Address } from 'viem';
import type { Payment, PaymentsService } from '../payments/payments.js';
import type { SettlementService, SettleRequest, AuthorizationTerms, SettleResult, AuthorizationResult, ReconcileSummary } from '../settlement/settlement.js';
import type { DepositPassSummary } from '../settlement/deposit-watcher.js';
import type { RefundsService } from '../refunds/refunds.js';
import type { ManualCaptureSessions } from '../x402/auth-capture/manual-capture-sessions.js';
import type { ToolHandlers } from '../agent/tool-calls.js';
import { callerLivemode, type ToolContext } from '../agent/tools/contract.js';
import { SettleReason } from '../settlement/settle-reasons.js';
import { isLive } from '../lib/livemode.js';
import type { Money } from './money-services.js';
import type { CancellationDoor, ClaimsDoor, ManualCaptureDoor, ModeServices, RefundsDoor, SettlementDoor } from './core.js';

export interface Modes {
  live: Money;
  test: Money;
}

/** The set serving `livemode`. */
export const pick = (m: Modes, livemode: boolean): Money => (livemode ? m.live : m.test);

/** Checkout settlement: each payment settles, and its deposit address is watched, on its mode's chain. */
export function settlementByMode(m: Modes, payments: PaymentsService): SettlementDoor {
  const of = async (paymentId: string): Promise<SettlementService | undefined> => {
    const p = await payments.get(paymentId);
    return p ? pick(m, isLive(p)).settlement : undefined;
  };
  const missing = (id: string) => ({ ok: false as const, reason: SettleReason.notFound, message: `No such payment: ${id}` });
  return {
    async settle(paymentId: string, input: SettleRequest, terms?: AuthorizationTerms): Promise<SettleResult> {
      const s = await of(paymentId);
      return s ? s.settle(paymentId, input, terms) : missing(paymentId);
    },
    async authorizationFor(paymentId: string, from: Address): Promise<AuthorizationResult> {
      const s = await of(paymentId);
      return s ? s.authorizationFor(paymentId, from) : missing(paymentId);
    },
    recipientFor: (p: Payment) => pick(m, isLive(p)).settlement.recipientFor(p),
    // Derived from the payment id alone: the same on both chains.
    nonceFor: (paymentId: string) => m.live.settlement.nonceFor(paymentId),
    async reconcile(): Promise<ReconcileSummary> {
      const [a, b] = await Promise.all([m.live.settlement.reconcile(), m.test.settlement.reconcile()]);
      return { checked: a.checked + b.checked, settled: a.settled + b.settled, failed: a.failed + b.failed, pending: a.pending + b.pending, processing: a.processing + b.processing, expired: a.expired + b.expired };
    },
    deposits: {
      depositFor: (p: Payment) => pick(m, isLive(p)).deposits.depositFor(p),
      get: (paymentId: string) => m.live.deposits.get(paymentId),
      uri: (address: Address, amount: bigint) => m.live.deposits.uri(address, amount),
      async pass(): Promise<DepositPassSummary> {
        const [a, b] = await Promise.all([m.live.deposits.pass(), m.test.deposits.pass()]);
        return { credited: a.credited + b.credited, settled: a.settled + b.settled, refunded: a.refunded + b.refunded, closed: a.closed + b.closed };
      },
    },
  };
}

/** One chain's settlement as the doors call it (one chain for both modes). */
export function settlementOf(m: Money): SettlementDoor {
  const s = m.settlement;
  return {
    settle: (...a) => s.settle(...a),
    authorizationFor: (...a) => s.authorizationFor(...a),
    recipientFor: (p) => s.recipientFor(p),
    nonceFor: (id) => s.nonceFor(id),
    reconcile: () => s.reconcile(),
    deposits: m.deposits,
  };
}

/** Refunds: paid on the payment's mode's chain; reads are the store's, the same for both. */
export function refundsByMode(m: Modes): RefundsDoor {
  return {
    create: (accountId, paymentId, input, idempotencyKey, livemode = true, spend) => pick(m, livemode).refunds.create(accountId, paymentId, input, idempotencyKey, livemode, spend),
    get: (...a) => m.live.refunds.get(...a),
    list: (...a) => m.live.refunds.list(...a),
    ofPayment: (...a) => m.live.refunds.ofPayment(...a),
    succeededOf: (...a) => m.live.refunds.succeededOf(...a),
    reconcile: async () => (await m.live.refunds.reconcile()) + (await m.test.refunds.reconcile()),
    close: () => {
      m.live.refunds.close();
      m.test.refunds.close();
    },
  };
}

/** Manual capture (x402 auth-capture) of a session, on its mode's chain. */
export function manualCaptureByMode(m: Modes): ManualCaptureDoor | undefined {
  const live = m.live.manualCapture;
  const test = m.test.manualCapture;
  if (!live && !test) return undefined;
  const of = (p: Payment) => (isLive(p) ? live : test);
  const off = { ok: false as const, status: 409, reason: 'not_available', message: "Manual capture is not available on this payment's network." };
  return {
    requirements: (p, ...a) => of(p)?.requirements(p, ...a),
    authorize: async (p, ...a) => (await of(p)?.authorize(p, ...a)) ?? off,
    capture: async (p, ...a) => (await of(p)?.capture(p, ...a)) ?? off,
    void: async (p) => (await of(p)?.void(p)) ?? off,
    // Each escrow voids its own holds past their deadline (records carry their chain's mode).
    sweep: async (...a) => ((await live?.sweep(...a)) ?? 0) + ((await test?.sweep(...a)) ?? 0),
  };
}

/** The services of one mode, for a door whose mode comes from its caller (a key, the app's switch). */
export function modeServices(money: Money): ModeServices {
  return { facilitator: money.facilitator, wallets: money.wallets, x402Port: money.x402Port, transfers: money.transfers, claims: money.claims, quotes: money.quotes };
}

/**
 * The agent's tools: a test key's calls run over test mode's chain (its custodial wallet's test
 * balance, transfers, bills, stakes, claim links), everything else over the live chain.
 */
export function toolHandlersByMode(live: ToolHandlers, test: ToolHandlers, livemodeOfKey: (keyId: string) => Promise<boolean>): ToolHandlers {
  type Run = ((input: unknown, ctx: ToolContext) => Promise<unknown>) & { preview?: (input: unknown, ctx: ToolContext) => Promise<unknown>; spendInAction?: boolean };
  const modeOf = (ctx: ToolContext) => callerLivemode(ctx, livemodeOfKey);
  const out: Record<string, Run> = {};
  for (const name of Object.keys(live) as (keyof ToolHandlers)[]) {
    const l = live[name] as unknown as Run;
    const t = test[name] as unknown as Run;
    const run: Run = async (input, ctx) => ((await modeOf(ctx)) ? l : t)(input, ctx);
    if (l.preview) run.preview = async (input, ctx) => ((await modeOf(ctx)) ? l : t).preview!(input, ctx);
    // Kept: without it the guard reserved in a commit of its own before the send, and a store
    // error in the send's transaction left that reservation `reserved` with no transfer (h10caps).
    if (l.spendInAction) run.spendInAction = true;
    out[name] = run;
  }
  return out as unknown as ToolHandlers;
}

/** Canceling a pending payment: its earlier authorizations are checked on its mode's chain. */
export function cancellationByMode(m: Modes): CancellationDoor {
  return { cancel: (accountId, id, input, livemode = true) => pick(m, livemode).cancellation.cancel(accountId, id, input, livemode) };
}

/** Claim links: funded, claimed, canceled and returned on the claim's mode's chain. */
export function claimsByMode(m: Modes): ClaimsDoor {
  const of = (c: { livemode?: boolean } | undefined) => pick(m, c ? isLive(c) : true).claims;
  return {
    get: (id) => m.live.claims.get(id),
    byToken: (token) => m.live.claims.byToken(token),
    history: (...a) => m.live.claims.history(...a),
    create: (senderId, input) => pick(m, input.livemode !== false).claims.create(senderId, input),
    claim: async (token, claimantId) => of(await m.live.claims.byToken(token)).claim(token, claimantId),
    cancel: async (senderId, claimId) => of(await m.live.claims.get(claimId)).cancel(senderId, claimId),
    sweep: async () => (await m.live.claims.sweep()) + (await m.test.claims.sweep()),
  };
}
