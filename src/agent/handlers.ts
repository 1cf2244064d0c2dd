import { TOOLS } from './tools/registry.js';
import type { ToolDeps } from './tools/contract.js';
import type { ToolHandlers } from './tool-calls.js';

export { PAYMENT_LINK_MINUTES } from './tools/create-payment-link.js';

/** The domain modules the tools run over (the composition root gives every one). */
export type ToolHandlerDeps = ToolDeps;

/**
 * The tools' executors, one per registered tool, each from its own file's `handler(deps)`.
 * Each re-validates its input and acts only for `ctx.accountId`.
 */
export function createToolHandlers(deps: ToolHandlerDeps): ToolHandlers {
  return Object.fromEntries(TOOLS.map((t) => [t.name, t.handler(deps)])) as unknown as ToolHandlers;
}
