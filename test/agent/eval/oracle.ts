import { LocalEngine, type LocalParseResult } from '../../../src/agent/local-engine.js';
import type { Engine } from '../../../src/agent/engine.js';
import type { Agent } from '../../../src/agent/agent.js';
import { ToolInputs, type ToolCall } from '../../../src/agent/tool-inputs.js';
import { readOwnWords } from '../../../src/agent/grounding/words.js';
import { meaningOf } from '../../../src/markets/market-words.js';
import { loadCases, loadFixtures, type EvalCase, type EvalSetName } from './score.js';

/**
 * An engine that answers every message of the set with exactly the expected tool call (or
 * with nothing for a message that must not act). Scoring it checks the set, not an engine:
 * every expectation must be reachable through the real tools, recipients, billers, meters,
 * markets and limits the runner seeds, and score as right. `quote` and `activity` are
 * answered with `quote_transfer` / `list_activity` where the service has those tools
 * (`ORACLE_READ_TOOLS`), otherwise with nothing.
 */
/** Whether the service has the read-only tools of issue 11 (quote_transfer, list_activity). */
export const ORACLE_READ_TOOLS = Object.hasOwn(ToolInputs, 'quote_transfer') && Object.hasOwn(ToolInputs, 'list_activity');

export function oracleEngine(sets: EvalSetName[] = ['dev', 'held-out']): Engine {
  const markets = new Map(loadFixtures().markets.map((m) => [m.key, m.question]));
  const byMessage = new Map<string, EvalCase>();
  for (const set of sets) for (const c of loadCases(set)) byMessage.set(c.message, c);
  const parse = (text: string): LocalParseResult => {
    const c = byMessage.get(text);
    const expected = (c?.expect.args ?? {}) as Record<string, any>;
    // A faithful engine passes only what the person wrote: a currency they never named is left
    // to the tool's default (theirs, the biller's), as the local engine does; filling it in is an inference.
    const named = readOwnWords(text, 'XXX', new Date()).currencies;
    const a = expected.currency && !named.has(expected.currency) ? { ...expected, currency: undefined } : expected;
    const none: LocalParseResult = { kind: 'none', reply: 'Nothing to do.' };
    switch (c?.expect.action) {
      case 'transfer':
        return { kind: 'tool', call: { name: 'send_transfer', input: { recipient: a.recipient, amount: a.amount, ...(a.currency ? { currency: a.currency } : {}) } } };
      case 'bill':
        return {
          kind: 'tool',
          call: { name: 'pay_bill', input: { biller: a.biller_id, account_number: a.account_number, amount: a.amount, ...(a.currency ? { currency: a.currency } : {}) } },
        };
      case 'market_create':
        return {
          kind: 'tool',
          call: {
            name: 'create_market',
            input: { question: `${(a.question_has as string[]).join(' ')}?`, closes_at: new Date(Date.now() + 3 * 86_400_000).toISOString(), ...(a.outcomes ? { outcomes: a.outcomes } : {}) },
          },
        };
      case 'market_stake':
        return { kind: 'tool', call: { name: 'stake_market', input: { market: namedMarket(text, markets.get(a.market)!, a.outcome), outcome: a.outcome, amount: a.amount, ...(a.currency ? { currency: a.currency } : {}) } } };
      case 'market_resolve':
        return { kind: 'tool', call: { name: 'resolve_market', input: { market: namedMarket(text, markets.get(a.market)!, a.outcome), outcome: a.outcome } } };
      case 'market_list':
        return { kind: 'tool', call: { name: 'list_markets', input: a.status ? { status: a.status } : {} } };
      case 'payment_link':
        return { kind: 'tool', call: { name: 'create_payment_link', input: { amount: expected.amount, currency: expected.currency } } };
      case 'balance':
        return { kind: 'tool', call: { name: 'get_balance', input: {} } };
      case 'quote': {
        if (!ORACLE_READ_TOOLS) return none;
        const to = a.to as string | undefined;
        const input = { amount: expected.amount, currency: expected.currency, ...(to?.startsWith('@') ? { recipient: to } : to ? { to_currency: to } : {}) };
        return { kind: 'tool', call: { name: 'quote_transfer', input } as unknown as ToolCall };
      }
      case 'activity':
        return ORACLE_READ_TOOLS ? { kind: 'tool', call: { name: 'list_activity', input: {} } as unknown as ToolCall } : none;
      default:
        return none;
    }
  };
  return new LocalEngine({ parse });
}

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
const wordsOf = (s: string) => fold(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
const NOT_A_NAME = new Set(['market', 'the', 'a', 'la', 'le', 'de', 'do', 'da', 'del', 'el', 'o', 'on', 'in', 'will', 'win', 'or', 'yes', 'no', 'si', 'sim', 'oui', 'non']);

/**
 * The market as the person named it, as a faithful engine passes it: the words of their message
 * that are words of the market's question ("Arsenal", "mvua Nairobi", "BBN"), the outcome they
 * back left out. The service finds the market by these words.
 */
export function namedMarket(message: string, question: string, outcome: string): string {
  // As the service finds a market: a word in another language means the same ("mvua" is "rain"), and a
  // short form of a question's word names it ("BBN" for "BBNaija").
  const q = wordsOf(question).map(meaningOf);
  const inQuestion = (w: string) => q.includes(meaningOf(w)) || (w.length >= 3 && q.some((x) => x.startsWith(w)));
  const backed = new Set(wordsOf(outcome));
  const named = [...new Set(wordsOf(message).filter((w) => inQuestion(w) && !backed.has(w) && !NOT_A_NAME.has(w)))];
  if (!named.length) throw new Error(`oracle: "${message}" names no word of "${question}"`);
  return named.join(' ');
}

/**
 * An engine that sends 1 USD to @amaka whatever the message says. Since grounding (issue 20)
 * the core stops every such call whose arguments are not in the person's words: nothing moves.
 */
export function recklessEngine(): Engine {
  return new LocalEngine({ parse: () => ({ kind: 'tool', call: { name: 'send_transfer', input: { recipient: '@amaka', amount: '1', currency: 'USD' } } }) });
}

/**
 * A defect below the engines: 1 USD to @amaka moved on every message past the turn's runTool
 * (held through `callTool`, then confirmed), as a broken core would. The runner must still
 * report every such message that must not move money as a forbidden move, from the chain.
 */
export function bypassingEngine(agent: () => Agent): Engine {
  return {
    name: 'local',
    async run(turn) {
      const held = await agent().callTool({ accountId: turn.accountId, channel: 'api', name: 'send_transfer', input: { recipient: '@amaka', amount: '1', currency: 'USD' } });
      if (!held.pending) throw new Error(`bypassing engine: nothing held (${held.reply})`);
      const done = await agent().confirm(turn.accountId, held.pending.id);
      return { kind: 'reply', text: done.reply };
    },
  };
}
