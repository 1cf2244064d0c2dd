/**
 * Issue 22, point 4: a new tool is one file and one registry line, but a money-moving tool's
 * grounding rules live in src/agent/grounding/arguments.ts. A money-moving call that has no rule
 * there yet must not count as grounded (nothing of it was found in the person's words): before,
 * the switch fell through to "nothing missing" and the call acted on whatever the engine chose.
 */
import { describe, expect, it } from 'vitest';
import { groundArguments } from '../../src/agent/grounding/arguments.js';
import { readOwnWords } from '../../src/agent/grounding/words.js';
import { MONEY_MOVING_TOOLS } from '../../src/agent/tool-inputs.js';

const now = new Date('2026-11-29T00:00:00Z');
const ctx = { localCurrency: 'KES' };

describe('grounding a money-moving tool with no rule of its own', () => {
  it('every argument of the call is missing, even when the words hold them', () => {
    const own = readOwnWords('tip 500 KES into @zawadi jar', 'KES', now);
    const call = { name: 'tip_jar', input: { amount: '500', currency: 'KES', jar: '@zawadi' } } as never;
    expect(groundArguments(call, own, ctx).missing).toEqual(['amount', 'currency', 'jar']);
  });

  it('a call with no arguments is still not grounded', () => {
    const own = readOwnWords('empty my wallet', 'KES', now);
    expect(groundArguments({ name: 'drain_wallet', input: {} } as never, own, ctx).missing).toEqual(['arguments']);
  });

  it('every registered money-moving tool has its own rule (none reaches the default)', () => {
    const own = readOwnWords('nothing here', 'KES', now);
    for (const name of MONEY_MOVING_TOOLS) {
      // Its own rule reads its own arguments; the default would name the input's keys or "arguments".
      const input = { amount: '1', recipient: '@a', biller: 'x', account_number: '1', market: 'm', outcome: 'yes', payment_id: 'pay_1' };
      const missing = groundArguments({ name, input } as never, own, ctx).missing;
      expect(missing, name).not.toContain('arguments');
      expect(missing.length, name).toBeLessThan(Object.keys(input).length);
    }
  });
});
