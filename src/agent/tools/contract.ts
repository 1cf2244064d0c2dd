import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AccountsService } from '../../accounts/accounts.js';
import type { PaymentsService } from '../../payments/payments.js';
import type { FxService } from '../../fx/rates.js';
import type { Wallets } from '../../wallet/wallets.js';
import type { TransfersService } from '../../transfers/transfers.js';
import type { BillsService } from '../../bills/bills.js';
import type { MarketsService } from '../../markets/markets.js';
import type { QuotesService } from '../../quotes/quotes.js';
import type { ClaimsService } from '../../claims/claims.js';
import type { SpendSlot } from '../../policies/guard.js';
import type { RefundsService } from '../../refunds/refunds.js';
import type { ManualCaptureSessions } from '../../x402/auth-capture/manual-capture-sessions.js';
import type { LocalIntent } from '../local/local-intent.js';
import type { CallMeta } from '../../lib/livemode.js';
import { keyModeRead, readOnce, type TurnReads } from '../../lib/turn-reads.js';

/**
 * What one agent tool is (one file per tool under src/agent/tools/, listed once in
 * registry.ts) and what its handler works with. Of the agent it imports only the local engine's
 * contract (local/local-intent.ts), which imports no tool: a tool file depends on this file, the
 * local engine's words and builders, and the domain. The registry, and everything generated
 * from it (catalogue, Claude prompt, MCP, docs, the local engine's parser), sit above the tool
 * files without a cycle.
 */

/** What a turn is called through; decides whether money-moving tools need a Confirm. */
export type Channel = 'api' | 'telegram' | 'chat' | 'mcp';

/** The `action` a tool's outcome is reported under (DESIGN.md 6). */
export type ToolAction = 'transfer' | 'bill' | 'market' | 'payment' | 'balance' | 'quote' | 'activity' | 'info';

/**
 * Who a tool acts for. `accountId` always comes from authentication (key, session or the
 * Telegram user), never from the message or the model: a tool cannot act for anyone else.
 */
export interface ToolContext {
  accountId: string;
  channel: Channel;
  requestId?: string;
  logger: Logger;
  /** The account's local currency, filled in by the agent for convenience (the account record is authoritative). */
  localCurrency?: string;
  /** The API key the call came through (API, MCP): its spend policy applies too. */
  keyId?: string;
  /** The spend reservation, for a handler that writes it in its own transactions (ToolRun.spendInAction). */
  spendSlot?: SpendSlot;
  /** What this turn has already read (account, recipient, policies, key mode): one read per turn. */
  reads?: TurnReads;
  /**
   * false: a test-mode turn without a key (the chat widget while the app shows test data,
   * `sp_mode=test`; h16tour): everything it makes or moves is test mode, as through a test key.
   */
  livemode?: false;
}

/** Named reasons for 422-class failures ("understood but not done"). Handlers may add others. */
export const ToolFailureReason = {
  insufficient_balance: 'insufficient_balance',
  unknown_recipient: 'unknown_recipient',
  unknown_biller: 'unknown_biller',
  invalid_account_number: 'invalid_account_number',
  unknown_market: 'unknown_market',
  market_closed: 'market_closed',
  over_limit: 'over_limit',
  not_allowed: 'not_allowed',
  invalid_input: 'invalid_input',
  unsupported_currency: 'unsupported_currency',
  invalid_amount: 'invalid_amount',
  not_available: 'not_available',
  /** The service stopped while the action ran: whether money moved is not known here. */
  interrupted: 'interrupted',
} as const;
export type ToolFailureReason = (typeof ToolFailureReason)[keyof typeof ToolFailureReason];

export type ToolOutcome =
  | { ok: true; action: ToolAction; result: Record<string, unknown>; summary: string }
  | { ok: false; action: ToolAction; reason: ToolFailureReason | (string & {}); message: string; retryAfterSeconds?: number };

export type ToolFailure = Extract<ToolOutcome, { ok: false }>;

/**
 * The exact description of a call before it runs (amounts in both currencies, rate, fee,
 * recipient), or the failure that would stop it (unknown recipient, no balance...).
 */
export type ToolPreview =
  | {
      ok: true;
      description: string;
      details?: Record<string, unknown>;
      /** The input to store instead of the call's (e.g. with the firm `quote_id` the description priced). */
      input?: Record<string, unknown>;
    }
  | ToolFailure;

/**
 * One tool's executor. It must re-validate `input` (never trust the engine) and act only for
 * `ctx.accountId`. `preview`, when given, describes a pending action exactly; without it the
 * tool's `describe` sentence is used.
 */
export type ToolRun<I> = {
  (input: I, ctx: ToolContext): Promise<ToolOutcome>;
  preview?: (input: I, ctx: ToolContext) => Promise<ToolPreview>;
  /**
   * true: under a spend policy, the handler writes the reservation itself through
   * `ctx.spendSlot` (in the transaction that holds the money, and its end in the outcome's),
   * on every path that moves money (src/policies/guard.ts, SpendSlot).
   */
  spendInAction?: boolean;
};

/** Attaches a preview to a handler. */
export function withPreview<I>(run: (input: I, ctx: ToolContext) => Promise<ToolOutcome>, preview: (input: I, ctx: ToolContext) => Promise<ToolPreview>): ToolRun<I> {
  return Object.assign(run, { preview });
}

/** The domain modules the tools' handlers run over, given by the composition root (src/core/build.ts). */
export interface ToolDeps {
  accounts: AccountsService;
  payments: PaymentsService;
  fx: FxService;
  /** The app's public base URL (payment links send the payer back to `${publicUrl}/app`). */
  publicUrl: string;
  wallets: Pick<Wallets, 'summary'>;
  transfers: TransfersService;
  bills: BillsService;
  markets: MarketsService;
  /** Firm quotes (docs/quotes.md): quote_transfer and transfer previews lock their figures. */
  quotes?: QuotesService;
  /** Claim links: a transfer to a phone or email with no account is held for them (docs/claims.md). */
  claims?: ClaimsService;
  /** The mode of the key a call came through: a test key's payment link is a test-mode payment (docs/test-mode.md). */
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
  /** Refunds of the caller's settled payments (refund_payment; docs/refunds.md). */
  refunds?: Pick<RefundsService, 'create'>;
  /** Manual capture (capture_payment, void_payment; docs/x402.md); undefined when the chain has no escrow. */
  manualCapture?: () => Pick<ManualCaptureSessions, 'capture' | 'void'> | undefined;
}

/**
 * One agent tool, whole: everything the catalogue, both engines, MCP, the confirmation
 * protocol and the docs know about it.
 */
export interface ToolDef<N extends string = string, S extends z.ZodType = z.ZodType> {
  readonly name: N;
  /** The zod input: validation everywhere, and the JSON Schema the model and MCP clients see. */
  readonly input: S;
  /** The `action` its outcome is reported under. */
  readonly action: ToolAction;
  /** What the tool does, as the model reads it (the input schema says the rest). */
  readonly description: string;
  /** Moves money: through people-facing channels and MCP it needs an explicit Confirm, and grounding checks its arguments. */
  readonly movesMoney: boolean;
  /** Only reads (no record is created or changed): MCP marks it `readOnlyHint: true`. */
  readonly readOnly: boolean;
  /**
   * Its place in the Claude engine's overview of the service: its own `line`, or its name in a
   * `group`'s line ("prediction markets: create_market, ..."). `forQuestions`: the tool the
   * prompt names for questions about amounts or fees. No `prompt`: the tool is offered to the
   * model through its definition only.
   */
  readonly prompt?: { readonly line?: string; readonly group?: string; readonly forQuestions?: boolean };
  /**
   * How the built-in local engine (no ANTHROPIC_API_KEY) recognises the tool in a message and
   * builds its arguments (local/local-intent.ts). Without it, only the Claude engine and MCP call
   * the tool.
   */
  readonly local?: LocalIntent;
  /** The generic sentence a pending action shows when the handler has no `preview`. */
  describe(input: z.infer<S>, localCurrency: string): string;
  /** Its executor over the domain modules. */
  handler(deps: ToolDeps): ToolRun<z.infer<S>>;
}

/** Declares a tool (keeps its name as a literal type, so the registry derives `ToolName`). */
export function defineTool<const N extends string, S extends z.ZodType>(def: ToolDef<N, S>): ToolDef<N, S> {
  return def;
}

/** Re-validates a tool input with its schema (every handler calls this first). */
export function checkInput<S extends z.ZodType>(tool: Pick<ToolDef<string, S>, 'name' | 'input' | 'action'>, input: unknown): { ok: true; input: z.infer<S> } | ToolFailure {
  const parsed = tool.input.safeParse(input);
  if (parsed.success) return { ok: true, input: parsed.data as z.infer<S> };
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.');
  return {
    ok: false,
    action: tool.action,
    reason: ToolFailureReason.invalid_input,
    message: `Invalid ${tool.name} input${field ? ` (${field})` : ''}: ${issue?.message ?? 'invalid'}.`,
  };
}

/** "5000 KES", or the amount with a fallback wording when no currency was named (describe sentences). */
export function amountIn(amount: string, currency: string | undefined, fallback: string): string {
  return `${amount} ${currency ?? fallback}`;
}


/**
 * The caller's mode: false for an `sk_test_` key or a test-mode chat turn; the person's other
 * doors (no key) are live (docs/test-mode.md).
 */
export async function callerLivemode(ctx: Pick<ToolContext, 'keyId' | 'reads' | 'livemode'>, livemodeOfKey?: (keyId: string) => Promise<boolean>): Promise<boolean> {
  if (ctx.livemode === false) return false;
  const { keyId } = ctx;
  return keyId && livemodeOfKey ? readOnce(ctx.reads, keyModeRead(keyId), () => livemodeOfKey(keyId)) : true;
}

/** What a money module's call carries besides its input: the request id and, for a test key, its mode. */
export async function callMeta(ctx: Pick<ToolContext, 'keyId' | 'requestId' | 'reads' | 'livemode'>, livemodeOfKey?: (keyId: string) => Promise<boolean>): Promise<CallMeta> {
  const live = await callerLivemode(ctx, livemodeOfKey);
  return { ...(ctx.requestId ? { requestId: ctx.requestId } : {}), ...(live ? {} : { livemode: false }) };
}
