import { mask } from '../../claims/claims.js';
import { ListActivityInput } from '../../wallet/wallet-tool-inputs.js';
import { localDecimal } from '../money-format.js';
import { activityText, entryText, type ActivityEntry } from '../local/activity-i18n.js';
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

/** An entry before its English text. */
type Fields = Omit<ActivityEntry, 'text'>;

function listActivityHandler(deps: ToolDeps): ToolRun<ListActivityInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(listActivity, input);
    if (!checked.ok) return checked;
    const { kind, limit = 10 } = checked.input;
    // A key sees its own mode's activity only (issue 24: a test key never lists live records, nor the reverse).
    const livemode = await callerLivemode(ctx, deps.livemodeOfKey);
    const want = (k: ActivityEntry['kind']) => !kind || kind === k;
    const entries: Fields[] = [];
    const money = (minor: bigint | string, currency: string) => ({ amount: localDecimal(deps.fx, minor, currency), currency });
    if (want('transfer') && deps.transfers) {
      const senders = new Map<string, Promise<string | undefined>>();
      // Who sent money in: their @handle, else their name (each sender read once per list).
      const sender = (id: string) => {
        if (!senders.has(id)) senders.set(id, deps.accounts.get(id).then((a) => (a ? (a.telegramUsername ? `@${a.telegramUsername}` : a.name) : undefined)));
        return senders.get(id)!;
      };
      for (const t of await deps.transfers.history(ctx.accountId, { limit, livemode })) {
        const out = t.accountId === ctx.accountId;
        const common = { kind: 'transfer' as const, id: t.id, at: t.createdAt, status: t.status };
        if (out) entries.push({ ...common, direction: 'out', ...money(t.sourceAmountMinor, t.sourceCurrency), counterparty: t.recipientLabel });
        else {
          const from = await sender(t.accountId);
          entries.push({ ...common, direction: 'in', ...money(t.recipientAmountMinor, t.recipientCurrency), ...(from ? { counterparty: from } : {}) });
        }
      }
    }
    if (want('transfer') && deps.claims) {
      // Claim links (docs/claims.md): the sender sees each step, the claimant what they received.
      for (const c of await deps.claims.history(ctx.accountId, limit, livemode)) {
        const out = c.senderAccountId === ctx.accountId;
        const common = { kind: 'transfer' as const, id: c.id, at: c.createdAt, status: c.status, claim_link: true };
        entries.push(out ? { ...common, direction: 'out', ...money(c.sourceAmountMinor, c.sourceCurrency), counterparty: mask(c) } : { ...common, direction: 'in', ...money(c.amount, 'USDC'), counterparty: c.senderName });
      }
    }
    if (want('bill') && deps.bills) {
      for (const b of await deps.bills.history(ctx.accountId, { limit, livemode })) {
        entries.push({ kind: 'bill', id: b.id, at: b.createdAt, status: b.status, direction: 'out', ...money(b.amountMinor, b.currency), counterparty: b.billerName, reference: b.accountNumber });
      }
    }
    if (want('stake') && deps.markets) {
      for (const s of await deps.markets.stakesOf(ctx.accountId, limit, livemode)) {
        entries.push({ kind: 'stake', id: s.id, at: s.createdAt, status: s.status, direction: 'out', ...money(s.localAmountMinor, s.currency), reference: s.outcomeLabel });
      }
    }
    if (want('payment')) {
      const listed = await deps.payments.list(ctx.accountId, { limit }, livemode);
      if (listed.ok) {
        // Money the link asks for (it comes in when paid); its amount is the API's own decimal.
        for (const p of listed.data) entries.push({ kind: 'payment', id: p.id, at: p.createdAt, status: p.status, direction: 'in', amount: String(p.amount), currency: p.currency.toUpperCase(), ...(p.description ? { reference: p.description } : {}) });
      }
    }
    entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    const shown: ActivityEntry[] = entries.slice(0, limit).map((e) => ({ ...e, text: entryText(e, 'en') }));
    // The reply in another language is phrased from these same entries (local/activity-i18n.ts), never from this summary.
    return { ok: true, action: 'activity', result: { entries: shown, count: shown.length }, summary: activityText(shown, 'en') };
  };
}
