import { TOOLS } from './tools/registry.js';
import { checkInput, type ToolAction, type ToolContext, type ToolFailure, type ToolOutcome, type ToolPreview, type ToolRun } from './tools/contract.js';
import { ToolInputs, type ToolCall, type ToolInput, type ToolName } from './tool-inputs.js';

/**
 * Calling the agent's tools: validate an untrusted call, run it through its handler, describe
 * it for a pending action. What each tool is lives in its own file (src/agent/tools/); the
 * maps below are read off the registry.
 */
export { ToolFailureReason, type Channel, type ToolAction, type ToolContext, type ToolOutcome, type ToolPreview } from './tools/contract.js';

/** One tool's executor, typed by its name (see ToolRun in tools/contract.ts). */
export type ToolHandler<N extends ToolName> = ToolRun<ToolInput<N>>;
export type ToolHandlers = { [N in ToolName]: ToolHandler<N> };

const byName = <V>(pick: (t: (typeof TOOLS)[number]) => V) => Object.fromEntries(TOOLS.map((t) => [t.name, pick(t)])) as { readonly [N in ToolName]: V };

export const TOOL_ACTIONS: { readonly [N in ToolName]: ToolAction } = byName((t) => t.action);

const TOOL_BY_NAME = new Map<string, (typeof TOOLS)[number]>(TOOLS.map((t) => [t.name, t]));

/** Re-validates a tool input with its schema. */
export function validateInput<N extends ToolName>(name: N, input: unknown): { ok: true; input: ToolInput<N> } | ToolFailure {
  return checkInput({ name, input: ToolInputs[name], action: TOOL_ACTIONS[name] }, input) as { ok: true; input: ToolInput<N> } | ToolFailure;
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

/** The tool's own `describe` sentence for a call, from its stored arguments. */
export function genericDescription(call: ToolCall, localCurrency?: string): string {
  return TOOL_BY_NAME.get(call.name)!.describe(call.input as never, localCurrency ?? 'your local currency');
}
