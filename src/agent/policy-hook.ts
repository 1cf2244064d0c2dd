/**
 * The agent's hook into spend policies (src/policies, docs/policies.md): it values a tool call
 * in policy terms, asks the guard before the call is held or run, and runs it under the guard
 * (reserve, then commit or release). Without a hook (the agent's own unit tests) every call goes on.
 */
import type { FxService } from '../fx/rates.js';
import type { Admission, SpendGuard, SpendSlot } from '../policies/guard.js';
import { amountOf, type Spend } from '../policies/valuation.js';
import type { Payment } from '../payments/payments.js';
import { MONEY_MOVING_TOOLS, type ToolCall, type ToolInput } from './tool-inputs.js';
import { unknownOutcome } from './outcome-unknown.js';
import { WriteWatch } from '../lib/write-watch.js';
import { refundValue } from './tools/refund-payment.js';
import { TOOL_ACTIONS, executeCall, type ToolContext, type ToolHandlers, type ToolOutcome } from './tool-calls.js';

export interface PolicyHook {
  guard: Pick<SpendGuard, 'admit' | 'run'>;
  fx: FxService;
  /** The biller's currency, for a bill that names none. */
  billCurrency?: (accountId: string, input: ToolInput<'pay_bill'>) => Promise<string | undefined>;
  /** The caller's payment a refund names (in the mode of the key), to value what the refund sends. */
  paymentOf?: (accountId: string, paymentId: string, keyId?: string, livemode?: false) => Promise<Payment | undefined>;
}

/** What a call spends; undefined for tools no policy governs (reads, creating a market). */
export async function valueCall(hook: PolicyHook, call: ToolCall, ctx: Pick<ToolContext, 'accountId' | 'localCurrency' | 'keyId' | 'livemode'>): Promise<Spend | undefined> {
  const local = ctx.localCurrency ?? 'USD';
  const amount = (a: string, c: string) => {
    const v = amountOf(hook.fx, a, c);
    return v ? { amount: v } : {};
  };
  switch (call.name) {
    case 'send_transfer':
      return { action: 'transfer', recipient: call.input.recipient, ...amount(call.input.amount, call.input.currency ?? local) };
    case 'pay_bill': {
      const currency = call.input.currency ?? (await hook.billCurrency?.(ctx.accountId, call.input));
      return { action: 'bill', ...(currency ? amount(call.input.amount, currency) : {}) };
    }
    case 'stake_market':
      return { action: 'market_stake', ...amount(call.input.amount, call.input.currency ?? local) };
    // Paying out or refunding a market's pool spends nobody's wallet: only the action rule applies.
    case 'resolve_market':
    case 'cancel_market':
      return { action: 'market_stake' };
    // A refund sends money out of the merchant's wallet: "sending money", under every cap and the
    // threshold, valued in the payment's currency (all that is left when no amount is named).
    // Its recipient is the payment's payer, fixed by the payment: the recipient lists do not apply.
    case 'refund_payment': {
      const p = await hook.paymentOf?.(ctx.accountId, call.input.payment_id, ctx.keyId, ctx.livemode);
      const v = p ? refundValue(hook.fx, p, call.input) : undefined;
      return { action: 'transfer', ...(v ? amount(v.amount, v.currency) : {}) };
    }
    // Capture takes the merchant's own held money in; void gives held money back to its owner:
    // neither spends the merchant's wallet, so no policy rule applies (the person still confirms).
    case 'capture_payment':
    case 'void_payment':
      return undefined;
    // Money coming in: the action rule applies, caps do not.
    case 'create_payment_link':
      return { action: 'payment_link' };
    // Reads, and creating a market (it moves nobody's money): no policy governs them.
    case 'create_market':
    case 'list_markets':
    case 'get_balance':
    case 'quote_transfer':
    case 'list_activity':
      return undefined;
    default: {
      // A tool the registry gained without a case here must not run outside the spend caps:
      // with every tool named above this is unreachable, and tsc fails when one is missing.
      const unvalued: never = call;
      throw new Error(`no spend valuation for tool ${(unvalued as ToolCall).name}`);
    }
  }
}

const who = (ctx: ToolContext) => ({ accountId: ctx.accountId, ...(ctx.keyId ? { keyId: ctx.keyId } : {}), ...(ctx.livemode === false ? { livemode: false as const } : {}) });
/** The turn's reads (src/lib/turn-reads.ts): the guard's `admit` and `run` of one turn share them. */
const reads = (ctx: ToolContext) => (ctx.reads ? { reads: ctx.reads } : {});

/** Before a call is held or run. A turn from the person's own doors carries no key. */
export async function admitCall(hook: PolicyHook | undefined, call: ToolCall, ctx: ToolContext): Promise<Admission> {
  const spend = hook ? await valueCall(hook, call, ctx) : undefined;
  if (!hook || !spend) return { kind: 'go' };
  return hook.guard.admit(spend, who(ctx), { byPerson: !ctx.keyId, ...reads(ctx) });
}

export function refusalOutcome(call: ToolCall, a: Extract<Admission, { kind: 'refuse' }>): ToolOutcome {
  return { ok: false, action: TOOL_ACTIONS[call.name], reason: a.reason, message: a.message, ...(a.retryAfterSeconds ? { retryAfterSeconds: a.retryAfterSeconds } : {}) };
}

/**
 * Runs a call through its handler under the policies; `person`: the signed-in person confirmed it.
 *
 * A store error is answered `outcome_unknown` (202) only once something of a money-moving action
 * may be recorded or sent (./outcome-unknown.ts): its handler began a store write or a broadcast
 * (lib/write-watch.ts; the spend reservation a handler writes in its own transaction included), or
 * the guard holds a reservation for it (written before the handler runs). A read that fails before
 * that (the recipient's lookup, the balance) did nothing: the store's 503 "retry shortly" stays.
 */
export async function runGoverned(hook: PolicyHook | undefined, handlers: ToolHandlers, call: ToolCall, ctx: ToolContext, person: boolean): Promise<ToolOutcome> {
  const watch = new WriteWatch();
  // The guard reserved before calling the handler (a valued spend, not written in the action's own transactions).
  let held = false;
  let reservesFirst = false;
  const exec = (slot?: SpendSlot) => {
    if (reservesFirst && !slot) held = true;
    return watch.run(() => executeCall(handlers, call, slot ? { ...ctx, spendSlot: slot } : ctx));
  };
  try {
    const spend = hook ? await valueCall(hook, call, ctx) : undefined;
    if (!hook || !spend) return await exec();
    // A handler that writes the reservation in its own transactions says so (ToolRun.spendInAction).
    const inAction = handlers[call.name].spendInAction === true;
    reservesFirst = !inAction && spend.amount !== undefined;
    const ran = await hook.guard.run(spend, who(ctx), exec, { byPerson: person, inAction, ...reads(ctx) });
    return 'refused' in ran ? refusalOutcome(call, ran.refused) : ran.outcome;
  } catch (err) {
    const unknown = (held || watch.wrote) && MONEY_MOVING_TOOLS.has(call.name) ? unknownOutcome(TOOL_ACTIONS[call.name], err) : undefined;
    if (!unknown) throw err;
    ctx.logger.warn({ tool: call.name, err: { message: (err as Error).message } }, 'store unavailable once a money-moving action wrote or held something: outcome unknown');
    return unknown;
  }
}
