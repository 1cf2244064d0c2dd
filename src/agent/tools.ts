import type { Logger } from 'pino';
import { ToolInputs, type ToolCall, type ToolInput, type ToolName } from './tool-inputs.js';

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
  | Extract<ToolOutcome, { ok: false }>;

/**
 * One tool's executor. It must re-validate `input` with `ToolInputs[name]` (never trust the
 * engine) and act only for `ctx.accountId`. `preview`, when given, describes a pending
 * action exactly; without it a generic description is used.
 */
export type ToolHandler<N extends ToolName> = {
  (input: ToolInput<N>, ctx: ToolContext): Promise<ToolOutcome>;
  preview?: (input: ToolInput<N>, ctx: ToolContext) => Promise<ToolPreview>;
};

export type ToolHandlers = { [N in ToolName]: ToolHandler<N> };

/** Attaches a preview to a handler (a typed helper for building `ToolHandlers`). */
export function withPreview<N extends ToolName>(
  run: (input: ToolInput<N>, ctx: ToolContext) => Promise<ToolOutcome>,
  preview: (input: ToolInput<N>, ctx: ToolContext) => Promise<ToolPreview>,
): ToolHandler<N> {
  return Object.assign(run, { preview });
}

export const TOOL_ACTIONS: { readonly [N in ToolName]: ToolAction } = {
  send_transfer: 'transfer',
  pay_bill: 'bill',
  create_market: 'market',
  stake_market: 'market',
  resolve_market: 'market',
  cancel_market: 'market',
  list_markets: 'market',
  create_payment_link: 'payment',
  get_balance: 'balance',
  quote_transfer: 'quote',
  list_activity: 'activity',
};

/** What each tool does, as the model reads it (the input schema says the rest). */
export const TOOL_DESCRIPTIONS: { readonly [N in ToolName]: string } = {
  send_transfer:
    "Send money from the user's own wallet to someone else (stablecoin transfer with an FX quote). Use when the user asks to send, pay or transfer money to a person.",
  pay_bill:
    "Pay a bill (electricity, airtime, water, TV) from the user's own wallet. The account number is the meter, smartcard/IUC or phone number at the biller.",
  create_market:
    'Create a prediction market owned by the user, with a question, 2-10 outcomes and a close time. Creating a market moves no money.',
  stake_market: "Stake the user's own money on one outcome of an open prediction market.",
  resolve_market: 'Resolve a market the user created by naming the winning outcome; the pool is paid out pro rata.',
  cancel_market: 'Cancel a market the user created; all stakes are refunded.',
  list_markets: 'List prediction markets, optionally by status.',
  create_payment_link:
    'Create a hosted checkout link through which someone else can pay the user. Moves no money by itself.',
  get_balance: "Show the user's wallet balance in the stablecoin and in their local currency.",
  quote_transfer:
    'Quote a transfer without sending: what the recipient gets, the rate and the fee. Also answers "how much is 100 USD in NGN". Moves no money; use it for questions about amounts, rates or fees.',
  list_activity: "List the user's own recent transfers, bills, stakes and payment links, newest first. Moves no money.",
};

/** Re-validates a tool input with its schema (handlers call this first). */
export function validateInput<N extends ToolName>(
  name: N,
  input: unknown,
): { ok: true; input: ToolInput<N> } | Extract<ToolOutcome, { ok: false }> {
  const parsed = ToolInputs[name].safeParse(input);
  if (parsed.success) return { ok: true, input: parsed.data as ToolInput<N> };
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.');
  return {
    ok: false,
    action: TOOL_ACTIONS[name],
    reason: ToolFailureReason.invalid_input,
    message: `Invalid ${name} input${field ? ` (${field})` : ''}: ${issue?.message ?? 'invalid'}.`,
  };
}

/**
 * Validates an untrusted `{name, input}` (from a model or a parser) into a typed ToolCall,
 * or says why not. The validated (parsed) input is what gets stored and executed.
 */
export function toToolCall(name: string, input: unknown): { ok: true; call: ToolCall } | { ok: false; message: string } {
  if (!Object.hasOwn(ToolInputs, name)) return { ok: false, message: `Unknown tool: ${name}.` };
  const tool = name as ToolName;
  // Strict: an argument the tool does not take ("from_account") is an error, never silently dropped.
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const known = Object.keys((ToolInputs[tool] as unknown as { shape: Record<string, unknown> }).shape);
    const extra = Object.keys(input).filter((k) => !known.includes(k));
    if (extra.length) {
      return { ok: false, message: `Unknown argument${extra.length > 1 ? 's' : ''} for ${name}: ${extra.join(', ')}. It takes only: ${known.join(', ') || 'no arguments'}.` };
    }
  }
  const checked = validateInput(tool, input ?? {});
  if (!checked.ok) return { ok: false, message: checked.message };
  return { ok: true, call: { name: tool, input: checked.input } as ToolCall };
}

/** Runs a call through its handler with the input type the name implies. */
export function executeCall(handlers: ToolHandlers, call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
  const handler = handlers[call.name] as ToolHandler<ToolName>;
  return handler(call.input as never, ctx);
}

/**
 * Describes a call exactly for a pending action: the handler's preview when it has one
 * (which may also fail early, e.g. unknown recipient), else a generic sentence built from
 * the stored arguments.
 */
export async function describeCall(call: ToolCall, ctx: ToolContext, handlers?: Partial<ToolHandlers>): Promise<ToolPreview> {
  const handler = handlers?.[call.name] as ToolHandler<ToolName> | undefined;
  if (handler?.preview) return handler.preview(call.input as never, ctx);
  return { ok: true, description: genericDescription(call, ctx.localCurrency) };
}

function money(amount: string, currency: string | undefined, fallback: string): string {
  return `${amount} ${currency ?? fallback}`;
}

export function genericDescription(call: ToolCall, localCurrency?: string): string {
  const local = localCurrency ?? 'your local currency';
  switch (call.name) {
    case 'send_transfer': {
      const i = call.input;
      return `Send ${money(i.amount, i.currency, local)} to ${i.recipient}${i.note ? ` with the note "${i.note}"` : ''}.`;
    }
    case 'pay_bill': {
      const i = call.input;
      return `Pay ${money(i.amount, i.currency, "the biller's currency")} to ${i.biller} for account ${i.account_number}.`;
    }
    case 'stake_market': {
      const i = call.input;
      return `Stake ${money(i.amount, i.currency, local)} on "${i.outcome}" in the market "${i.market}".`;
    }
    case 'resolve_market':
      return `Resolve the market "${call.input.market}" with "${call.input.outcome}" as the winning outcome and pay out the pool.`;
    case 'cancel_market':
      return `Cancel the market "${call.input.market}" and refund every stake.`;
    case 'create_market': {
      const i = call.input;
      return `Create the market "${i.question}" with outcomes ${(i.outcomes ?? ['Yes', 'No']).join(' / ')}, closing ${i.closes_at}.`;
    }
    case 'list_markets':
      return call.input.status ? `List ${call.input.status} markets.` : 'List markets.';
    case 'create_payment_link': {
      const i = call.input;
      return `Create a payment link for ${money(i.amount, i.currency, local)}${i.description ? ` ("${i.description}")` : ''}.`;
    }
    case 'get_balance':
      return 'Show your balance.';
    case 'quote_transfer':
      return `Quote ${money(call.input.amount, call.input.currency, local)}${call.input.recipient ? ` to ${call.input.recipient}` : call.input.to_currency ? ` in ${call.input.to_currency}` : ''}.`;
    case 'list_activity':
      return 'Show your recent activity.';
  }
}
