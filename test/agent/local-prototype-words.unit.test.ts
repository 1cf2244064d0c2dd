import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMessage, type ParseContext } from '../../src/agent/local/index.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';

/**
 * Words that name members of Object.prototype ("constructor", "__proto__", "toString") are
 * plain unknown words to the local engine. Word tables that were object literals used to find
 * the prototype's member: "tuma 500 constructor kwa @zawadi" sent 0.5 (read as a scale) and
 * "send 5 constructor to @amina" threw (read as a month). Every evaluation message, with such a
 * word added, must read exactly as it does with a made-up word in the same place.
 */
const billers = billerAliasIndex(loadBillerCatalogue());
const ctx: ParseContext = { now: new Date('2026-03-11T10:00:00Z'), localCurrency: 'NGN', billers };
const messages = ['cases.json', 'fresh.json', 'held-out.json'].flatMap((f) =>
  (JSON.parse(readFileSync(new URL(`./eval/${f}`, import.meta.url), 'utf8')) as { message?: string }[]).map((c) => c.message).filter((m): m is string => typeof m === 'string'),
);
const PROTO = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];

/** The reading, with the word's letters (as written or lower-cased) masked. */
const read = (m: string, letters: string) => {
  try {
    return JSON.stringify(parseMessage(m, ctx)).replace(new RegExp(letters, 'gi'), '<W>');
  } catch (e) {
    return `threw ${String(e)}`;
  }
};

describe('local engine: prototype member names are ordinary unknown words', () => {
  it('the eval messages with such a word after the first word or at the end read as with a made-up word', () => {
    expect(messages.length).toBeGreaterThan(300);
    const differ: string[] = [];
    // One member name per message and place, in turn: each name is tried in about a sixth of
    // the messages at each place (over 100 each), which keeps this a fast-layer test (every name
    // in every message was 10,000 readings, over the 30 s timeout on a loaded machine).
    messages.forEach((m, i) => {
      const words = m.split(' ');
      [1, words.length].forEach((at, place) => {
        const put = (w: string) => [...words.slice(0, at), w, ...words.slice(at)].join(' ');
        const w = PROTO[(i * 2 + place) % PROTO.length]!;
        const letters = w.replace(/_/g, '');
        // The made-up word has the same shape ("__proto__" -> "__zzqx__").
        if (read(put(w), letters) !== read(put(w.replace(letters, 'zzqx')), 'zzqx')) differ.push(put(w));
      });
    });
    expect(differ.slice(0, 10)).toEqual([]);
  });

  it('the cases that moved the wrong amount or threw', () => {
    expect(parseMessage('tuma 500 constructor kwa @zawadi', ctx)).not.toMatchObject({ call: { input: { amount: '0.5' } } });
    expect(parseMessage('envoie 10 constructor à @moussa', ctx)).not.toMatchObject({ call: { input: { amount: '0.1' } } });
    expect(() => parseMessage('send 5 constructor to @amina', ctx)).not.toThrow();
  });
});
