import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/payments/payments.js';

/**
 * The request hash of every stored payment and every idempotency id was computed as
 * JSON.stringify of a copy with each object's keys sorted (arrays left as they are). A dedupe
 * or a replay compares against those stored hashes, so the one-pass writer must give the very
 * same text for every input a create can see.
 */
function sortedCopyJson(value: unknown): string | undefined {
  const canon = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
        )
      : v;
  return JSON.stringify(canon(value));
}

const cases: unknown[] = [
  // A create's parsed input: zod leaves `undefined` for a blank merchant_name.
  { amount: 25, currency: 'USD', redirect_url: 'https://shop.example/thanks', reference: 'r-1', description: 'Bench order', metadata: { channel: 'bench' }, expires_in_minutes: 60 },
  { currency: 'EUR', amount: 0.1, merchant_name: undefined, redirect_url: 'http://x', expires_in_minutes: 1440, discoverable: false },
  { b: 1, a: { z: [3, { y: 1, x: 2 }], y: null, x: 'é"\\\n\u2028' }, '': 'empty key', Z: 'upper first', 10: 'numeric key', 2: 'two' },
  { n: -0, big: 1e21, small: 1e-7, nan: Number.NaN, inf: Infinity, t: true, f: false },
  { nested: { deeper: { deepest: { k: 'v', a: undefined } } }, arr: [undefined, () => 1, { b: 2, a: 1 }] },
  { fn: () => 1, sym: Symbol('s'), kept: 'yes' },
  { metadata: { 'key with space': 'v', émoji: '🙂', 'a.b': 1 } },
  // Integer-like keys (metadata may have them): a rebuilt object lists array indices first.
  { metadata: { b: 1, '4294967295': 'not an index', '4294967294': 'last index', '01': 'not canonical', '0': 'zero', '-1': 'negative', '1.5': 'fraction' } },
  { z: 1, 7: { 3: 'c', 1: 'a', x: 'x' }, a: 2 },
  {},
  // Idempotency ids: arrays, with and without the test-mode marker.
  ['acct_123', 'idem-key-1'],
  ['acct_123', 'idem-key-1', 'test'],
  'a string',
  42,
  null,
];

describe('canonicalJson (request hashes and idempotency ids)', () => {
  it.each(cases.map((c, i) => [i, c] as const))('case %i: the same text as stringifying a sorted copy', (_i, value) => {
    expect(canonicalJson(value)).toBe(sortedCopyJson(value));
  });

  it('sorts keys at every depth and drops keys JSON.stringify drops', () => {
    expect(canonicalJson({ b: { d: 1, c: undefined }, a: [{ z: 1, y: 2 }] })).toBe('{"a":[{"z":1,"y":2}],"b":{"d":1}}');
  });
});
