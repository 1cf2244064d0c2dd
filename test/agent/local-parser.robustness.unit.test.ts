import { describe, expect, it } from 'vitest';
import { parseMessage, type ParseContext } from '../../src/agent/local/index.js';
import { ToolInputs } from '../../src/agent/tool-inputs.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';

const ctx: ParseContext = {
  now: new Date('2026-03-11T10:00:00Z'),
  localCurrency: 'NGN',
  timeZone: 'Africa/Lagos',
  billers: billerAliasIndex(loadBillerCatalogue()),
};

/** Deterministic pseudo-random pieces of chat: words, shapes and junk glued together. */
const PIECES = [
  'send', 'pay', 'to', '@amina', 'for', 'lunch', '5,000', '5k', '₦', 'KES', 'naira', '2.5m', 'meter', '45123456789', 'IKEDC',
  'market', ':', 'will', 'it', 'rain', '?', 'options', 'a,', 'b', 'closes', 'in', '3', 'days', 'Friday', 'bet', 'on', 'yes',
  'mkt_abc', 'resolve', 'as', 'No', 'cancel', 'link', 'balance', '+254712345678', '0712 345 678', 'R', '$', '€', '-', '🙏',
  'from', 'acct_x', '0x', '2026-12-01', 'Dec', '5th', '/', '"', "'", 'the', 'MTN', 'airtime', 'tokens', '1.2K', '0', '-5',
  '999999999999999', 'USh', 'GH₵', 'show', 'markets', 'help', '', '  ', '\n', '.', ',', '!!!', 'DStv', '9mobile', 'vs', 'or',
];

function* messages(count: number): Generator<string> {
  let seed = 0x2545f491;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  for (let i = 0; i < count; i++) {
    const len = 1 + (next() % 12);
    const parts: string[] = [];
    for (let k = 0; k < len; k++) parts.push(PIECES[next() % PIECES.length]!);
    yield parts.join(next() % 5 === 0 ? '' : ' ');
  }
}

describe('local parser robustness', () => {
  it('never throws and every tool call it makes passes its schema', () => {
    let calls = 0;
    for (const message of messages(2000)) {
      const r = parseMessage(message, ctx);
      expect(['tool', 'help', 'none', 'refuse']).toContain(r.kind);
      if (r.kind === 'tool') {
        calls++;
        expect(ToolInputs[r.call.name].safeParse(r.call.input).success, message).toBe(true);
      } else if (r.kind !== 'help') {
        expect(r.reply.length, message).toBeGreaterThan(0);
      }
    }
    // The generator hits real intents often enough for this to mean something.
    expect(calls).toBeGreaterThan(200);
  });

  it('answers empty, whitespace-only and oversized messages without a tool call', () => {
    expect(parseMessage('', ctx).kind).toBe('help');
    expect(parseMessage('   \n ', ctx).kind).toBe('help');
    expect(parseMessage(`send 5 to @amina ${'x'.repeat(2000)}`, ctx).kind).toBe('none');
  });
});
