import pino from 'pino';
import { LowdbStore, type Store } from '../../src/store/index.js';
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
    /**
     * send_transfer writes the spend reservation itself, as the real one does (spendInAction):
     * in a transaction of this store before it "moves" (where the real one holds the money), and
     * its end in another with the outcome. A call refused there is not recorded (nothing ran).
     */
    spendInAction?: Store;
  } = {},
): { handlers: ToolHandlers; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const make = (name: ToolName): ToolHandler<ToolName> => {
    const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
      const checked = validateInput(name, input);
      if (!checked.ok) return checked;
      const store = name === 'send_transfer' ? opts.spendInAction : undefined;
      const slot = ctx.spendSlot;
      if (store && slot) {
        await store.transaction((tx) => slot.reserveIn(tx));
        calls.push({ name, input: checked.input, ctx: { accountId: ctx.accountId, channel: ctx.channel, requestId: ctx.requestId } });
        if (opts.gate) await opts.gate;
        const custom = opts.outcomes?.[name];
        const outcome: ToolOutcome = custom ? custom(checked.input) : { ok: true, action: TOOL_ACTIONS[name], result: { tool: name, input: checked.input }, summary: `${name} done.` };
        await store.transaction((tx) => slot.finishIn(tx, outcome));
        return outcome;
      }
      calls.push({ name, input: checked.input, ctx: { accountId: ctx.accountId, channel: ctx.channel, requestId: ctx.requestId } });
      if (opts.gate) await opts.gate;
      const custom = opts.outcomes?.[name];
      if (custom) return custom(checked.input);
      return { ok: true, action: TOOL_ACTIONS[name], result: { tool: name, input: checked.input }, summary: `${name} done.` };
    };
    const preview = opts.previews?.[name];
    const flagged = name === 'send_transfer' && opts.spendInAction ? Object.assign(run, { spendInAction: true }) : run;
    return preview ? Object.assign(flagged, { preview: async (input: unknown) => preview(input) }) : flagged;
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
