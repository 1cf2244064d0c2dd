import pino from 'pino';
import { LowdbStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/service.js';
import type { ToolName } from '../../src/agent/tool-inputs.js';
import type { ToolContext, ToolHandler, ToolHandlers, ToolOutcome, ToolPreview } from '../../src/agent/tool-calls.js';
import { TOOL_ACTIONS, validateInput } from '../../src/agent/tool-calls.js';

export const silentLogger = () => pino({ level: 'silent' });

export async function tempStore(): Promise<LowdbStore> {
  return LowdbStore.open(await tempDir('sp-agent-'));
}

export interface RecordedCall {
  name: ToolName;
  input: unknown;
  ctx: Pick<ToolContext, 'accountId' | 'channel' | 'requestId'>;
}

/**
 * Fake handlers that record every call and answer ok (or what `outcomes` says). Like real
 * handlers they re-validate their input.
 */
export function fakeHandlers(
  opts: {
    outcomes?: Partial<Record<ToolName, (input: any) => ToolOutcome>>;
    previews?: Partial<Record<ToolName, (input: any) => ToolPreview>>;
    /** Resolves when a handler may return (to hold an execution open). */
    gate?: Promise<void>;
  } = {},
): { handlers: ToolHandlers; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const make = (name: ToolName): ToolHandler<ToolName> => {
    const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
      const checked = validateInput(name, input);
      if (!checked.ok) return checked;
      calls.push({ name, input: checked.input, ctx: { accountId: ctx.accountId, channel: ctx.channel, requestId: ctx.requestId } });
      if (opts.gate) await opts.gate;
      const custom = opts.outcomes?.[name];
      if (custom) return custom(checked.input);
      return { ok: true, action: TOOL_ACTIONS[name], result: { tool: name, input: checked.input }, summary: `${name} done.` };
    };
    const preview = opts.previews?.[name];
    return preview ? Object.assign(run, { preview: async (input: unknown) => preview(input) }) : run;
  };
  const names: ToolName[] = [
    'send_transfer',
    'pay_bill',
    'create_market',
    'stake_market',
    'resolve_market',
    'cancel_market',
    'list_markets',
    'create_payment_link',
    'get_balance',
    'quote_transfer',
    'list_activity',
  ];
  return { handlers: Object.fromEntries(names.map((n) => [n, make(n)])) as unknown as ToolHandlers, calls };
}

export const fakeAccounts = {
  async get(id: string) {
    return id.startsWith('acct_') ? { localCurrency: 'KES' } : undefined;
  },
};
