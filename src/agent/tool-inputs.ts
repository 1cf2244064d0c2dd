import type { z } from 'zod';
import { QuoteTransferInput, SendTransferInput } from '../transfers/schemas.js';
import { PayBillInput } from '../bills/schemas.js';
import {
  CancelMarketInput,
  CreateMarketInput,
  ListMarketsInput,
  ResolveMarketInput,
  StakeMarketInput,
} from '../markets/schemas.js';
import { CreatePaymentLinkInput, GetBalanceInput, ListActivityInput } from '../wallet/schemas.js';

/**
 * The agent's tools and their input schemas: one zod schema per tool, shared by the local
 * parser, the Claude engine (via z.toJSONSchema) and the domain modules that execute them.
 */
export const ToolInputs = {
  send_transfer: SendTransferInput,
  pay_bill: PayBillInput,
  create_market: CreateMarketInput,
  stake_market: StakeMarketInput,
  resolve_market: ResolveMarketInput,
  cancel_market: CancelMarketInput,
  list_markets: ListMarketsInput,
  create_payment_link: CreatePaymentLinkInput,
  get_balance: GetBalanceInput,
  quote_transfer: QuoteTransferInput,
  list_activity: ListActivityInput,
} as const;

export type ToolName = keyof typeof ToolInputs;
export type ToolInput<N extends ToolName> = z.infer<(typeof ToolInputs)[N]>;
export type ToolCall = { [N in ToolName]: { name: N; input: ToolInput<N> } }[ToolName];

/** Tools that move money: through people-facing channels they need an explicit Confirm. */
export const MONEY_MOVING_TOOLS: ReadonlySet<ToolName> = new Set([
  'send_transfer',
  'pay_bill',
  'stake_market',
  'resolve_market',
  'cancel_market',
]);

/** Tools that only read (no record is created or changed): MCP marks them `readOnlyHint: true`. */
export const READ_ONLY_TOOLS: ReadonlySet<ToolName> = new Set(['list_markets', 'get_balance', 'quote_transfer', 'list_activity']);
