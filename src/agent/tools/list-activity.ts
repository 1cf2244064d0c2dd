import { mask } from '../../claims/claims.js';
import { formatUsdc } from '../../lib/money.js';
import { ListActivityInput } from '../../wallet/wallet-tool-inputs.js';
import { local } from '../money-format.js';
import { callerLivemode, checkInput, defineTool, type ToolContext, type ToolDeps, type ToolOutcome, type ToolRun } from './contract.js';
import { detectActivity } from '../local/read-intents.js';

/** list_activity: the caller's own recent transfers, claim links, bills, stakes and payment links, newest first. */
export const listActivity = defineTool({
  name: 'list_activity',
  input: ListActivityInput,
  action: 'activity',
  description: "List the user's own recent transfers, bills, stakes and payment links, newest first. Moves no money.",
  movesMoney: false,
  readOnly: true,
  local: {
    // "what did I pay this month", "did my 10k to @amaka go through?".
    detect: { rank: 20, run: (a) => (detectActivity(a) ? { kind: 'tool', call: { name: 'list_activity', input: {} } } : undefined) },
  },
  describe: () => 'Show your recent activity.',
  handler: (deps) => listActivityHandler(deps),
});

type Entry = { kind: 'transfer' | 'bill' | 'stake' | 'payment'; id: string; at: string; text: string; status: string };

function listActivityHandler(deps: ToolDeps): ToolRun<ListActivityInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(listActivity, input);
    if (!checked.ok) return checked;
    const { kind, limit = 10 } = checked.input;
    // A key sees its own mode's activity only (issue 24: a test key never lists live records, nor the reverse).
    const livemode = await callerLivemode(ctx, deps.livemodeOfKey);
    const want = (k: Entry['kind']) => !kind || kind === k;
    const entries: Entry[] = [];
    const fmt = (minor: string, currency: string) => local(deps.fx, minor, currency);
    if (want('transfer') && deps.transfers) {
      for (const t of await deps.transfers.history(ctx.accountId, { limit, livemode })) {
        const out = t.accountId === ctx.accountId;
        entries.push({
          kind: 'transfer',
          id: t.id,
          at: t.createdAt,
          status: t.status,
          text: out ? `Sent ${fmt(t.sourceAmountMinor, t.sourceCurrency)} to ${t.recipientLabel}` : `Received ${fmt(t.recipientAmountMinor, t.recipientCurrency)}`,
        });
      }
    }
    if (want('transfer') && deps.claims) {
      // Claim links (docs/claims.md): the sender sees each step, the claimant what they received.
      for (const c of await deps.claims.history(ctx.accountId, limit, livemode)) {
        const out = c.senderAccountId === ctx.accountId;
        entries.push({
          kind: 'transfer',
          id: c.id,
          at: c.createdAt,
          status: c.status,
          text: out ? `Sent ${fmt(c.sourceAmountMinor, c.sourceCurrency)} to ${mask(c)} by claim link` : `Received ${formatUsdc(c.amount)} from ${c.senderName} (claim link)`,
        });
      }
    }
    if (want('bill') && deps.bills) {
      for (const b of await deps.bills.history(ctx.accountId, { limit, livemode })) {
        entries.push({ kind: 'bill', id: b.id, at: b.createdAt, status: b.status, text: `Paid ${fmt(b.amountMinor, b.currency)} to ${b.billerName} (${b.accountNumber})` });
      }
    }
    if (want('stake') && deps.markets) {
      for (const s of await deps.markets.stakesOf(ctx.accountId, limit, livemode)) {
        entries.push({ kind: 'stake', id: s.id, at: s.createdAt, status: s.status, text: `Staked ${fmt(s.localAmountMinor, s.currency)} on "${s.outcomeLabel}"` });
      }
    }
    if (want('payment')) {
      const listed = await deps.payments.list(ctx.accountId, { limit }, livemode);
      if (listed.ok) {
        for (const p of listed.data) entries.push({ kind: 'payment', id: p.id, at: p.createdAt, status: p.status, text: `Payment link ${p.amount} ${p.currency}${p.description ? ` (${p.description})` : ''}` });
      }
    }
    entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    const shown = entries.slice(0, limit);
    return {
      ok: true,
      action: 'activity',
      result: { entries: shown, count: shown.length },
      summary: shown.length
        ? `Your recent activity:\n${shown.map((e) => `• ${e.at.slice(0, 10)} ${e.text} — ${e.status}`).join('\n')}`
        : 'You have no activity yet.',
    };
  };
}
