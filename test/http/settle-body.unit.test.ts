/**
 * The settle body's fast reader (src/http/settle-body.ts) against the zod schema it stands in
 * for: over many bodies (valid ones, and each field replaced by values of every kind and edge),
 * both give the same answer: the same parsed value, or the same refusal message. The common
 * body does not reach zod at all.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSettleBody, settleBodyBySchema } from '../../src/http/settle-body.js';
import { SettleRequest } from '../../src/settlement/settlement.js';

// A small deterministic generator (xorshift), so a failure names a reproducible case.
let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
/** A fresh copy of one of `ODD` (a shared array or object would be mutated into a cycle). */
const odd = () => structuredClone(pick(ODD));
const hex = (n: number, upper = false) => Array.from({ length: n }, () => pick([...(upper ? '0123456789abcdefABCDEF' : '0123456789abcdef')])).join('');
const MAX = (2n ** 256n - 1n).toString();

const address = () => `0x${hex(40, rand() < 0.5)}`;
const uint = () => pick([() => '0', () => String(Math.floor(rand() * 1e12)), () => MAX, () => '9'.repeat(78), () => `${Math.floor(rand() * 9) + 1}${'0'.repeat(Math.floor(rand() * 77))}`])();

function validBody(): Record<string, any> {
  return {
    authorization: { from: address(), to: address(), value: uint(), validAfter: uint(), validBefore: uint(), nonce: `0x${hex(64, rand() < 0.5)}` },
    signature: `0x${hex(130 + 2 * Math.floor(rand() * 3) * (rand() < 0.3 ? 40 : 0), rand() < 0.5)}`,
  };
}

// Replacement values of every JSON kind, and the edges of each field's rule.
const ODD: unknown[] = [
  undefined, null, true, 0, -0, 1, -1, 1.5, 2 ** 53, 2 ** 53 - 1, Number.MAX_SAFE_INTEGER + 2, '', ' ', '0x', '-1', '+1', '1e3', '01',
  '1'.repeat(79), (2n ** 256n).toString(), MAX, `${MAX} `, ' 1', '0x12', `0x${'a'.repeat(39)}`, `0x${'a'.repeat(41)}`, `0X${'a'.repeat(40)}`,
  `0x${'g'.repeat(40)}`, `0x${'A'.repeat(40)}`, `0x${'a'.repeat(64)}`, `0x${'a'.repeat(63)}`, `0x${'a'.repeat(65)}`, `0x${'a'.repeat(129)}`,
  `0x${'a'.repeat(130)}`, `0x${'a'.repeat(131)}`, `0x${'a'.repeat(126)}`, `0x${'a'.repeat(120)}`, `0x${'a'.repeat(128)}`, `0x${'a'.repeat(132)}`, `0x${'ab'.repeat(64)}\n`, [], ['1'], {}, { a: 1 },
  '٣', '１', 'true', 'null',
];

function mutate(body: Record<string, any>): unknown {
  const b = structuredClone(body);
  const where = rand();
  if (where < 0.05) return pick([null, [], 'x', 1, true, undefined, [b]]);
  if (where < 0.1) b.authorization = odd();
  else if (where < 0.2) b.signature = odd();
  else if (where < 0.25) b.extra = odd();
  else if (where < 0.3) b.authorization.extra = odd();
  const k = pick(['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce']);
  if (b.authorization && typeof b.authorization === 'object' && !Array.isArray(b.authorization)) {
    if (rand() < 0.1) delete b.authorization[k];
    else if (rand() < 0.8) b.authorization[k] = odd();
  }
  if (rand() < 0.05) delete b.signature;
  // Through JSON, as the route receives it (undefined members dropped, -0 kept as 0).
  return rand() < 0.5 ? JSON.parse(JSON.stringify(b) ?? 'null') : b;
}

afterEach(() => vi.restoreAllMocks());

describe('settle body: fast reader = the zod schema', () => {
  it('gives the schema answer on 10,000 bodies, valid and not', () => {
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 10_000; i++) {
      const body = i % 4 === 0 ? validBody() : mutate(validBody());
      const fast = readSettleBody(body);
      const schema = settleBodyBySchema(body);
      if (!isDeepStrictEqual(fast, schema)) expect(fast, JSON.stringify(body)).toEqual(schema);
      if (schema.ok) accepted++;
      else refused++;
    }
    // Both sides were exercised.
    expect(accepted).toBeGreaterThan(2_000);
    expect(refused).toBeGreaterThan(2_000);
  });

  it('the browser body is read without zod, to the schema value', () => {
    const body = validBody();
    Object.assign(body.authorization, { value: '12500000', validAfter: '0', validBefore: '1795000000' });
    const expected = SettleRequest.parse(body);
    const parse = vi.spyOn(SettleRequest, 'safeParse');
    const read = readSettleBody(body);
    expect(read).toEqual({ ok: true, data: expected });
    expect(parse).not.toHaveBeenCalled();
    // Anything else still goes to the schema and its message.
    const bad = readSettleBody({ ...body, signature: '0x12' });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(bad).toEqual({ ok: false, error: expect.stringContaining('signature') });
  });
});
