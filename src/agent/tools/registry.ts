import type { ToolDef } from './contract.js';
import { sendTransfer } from './send-transfer.js';
import { payBill } from './pay-bill.js';
import { createMarket } from './create-market.js';
import { stakeMarket } from './stake-market.js';
import { resolveMarket } from './resolve-market.js';
import { cancelMarket } from './cancel-market.js';
import { listMarkets } from './list-markets.js';
import { createPaymentLink } from './create-payment-link.js';
import { getBalance } from './get-balance.js';
import { quoteTransfer } from './quote-transfer.js';
import { listActivity } from './list-activity.js';
import { refundPayment } from './refund-payment.js';
import { capturePayment } from './capture-payment.js';
import { voidPayment } from './void-payment.js';

/**
 * THE list of the agent's tools, in the order the model, MCP clients and the docs see them.
 * Everything else is generated from it: the tool names and input types (tool-inputs.ts), the
 * actions (tool-calls.ts), the executors (handlers.ts), the catalogue and the docs table
 * (tool-catalogue.ts), the Claude engine's prompt and tool definitions, the MCP tool list, and
 * the local engine's parser (local/index.ts: each tool's `local` intent). A new tool is one file
 * in this folder and one line here (docs/architecture.md).
 */
export const TOOLS = [
  sendTransfer,
  payBill,
  createMarket,
  stakeMarket,
  resolveMarket,
  cancelMarket,
  listMarkets,
  createPaymentLink,
  getBalance,
  quoteTransfer,
  listActivity,
  refundPayment,
  capturePayment,
  voidPayment,
] as const;

/** One of the registered tools, with its literal name and its own input type. */
export type RegisteredTool = (typeof TOOLS)[number];

/** Any tool definition, for generators that also take a registry of their own (tests). */
export type AnyTool = ToolDef<string, any>;
