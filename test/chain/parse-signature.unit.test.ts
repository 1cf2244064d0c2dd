import { describe, expect, it } from 'vitest';
import { parseSignature, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseCompactSignature } from '../../src/chain/verify-authorization.js';

// The settle reads its signature's (r, s, v) straight from the hex (issue 23, ninth round): the
// same answer as viem's parseSignature for every signature, and the same refusal where viem throws.
const outcome = (f: () => unknown) => {
  try {
    return { ok: f() };
  } catch (e) {
    return { threw: String((e as Error).message) };
  }
};
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const word = (n: bigint) => n.toString(16).padStart(64, '0');

describe('parseCompactSignature', () => {
  it('gives viem\'s answer for real signatures of both parities, in either case, with v or yParity', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    for (let i = 0; i < 40; i++) {
      const sig = await signer.signMessage({ message: `m${i}` });
      const parity = `${sig.slice(0, 130)}${Number(`0x${sig.slice(130)}`) === 27 ? '00' : '01'}` as Hex;
      for (const s of [sig, sig.toUpperCase().replace('0X', '0x') as Hex, parity]) expect(parseCompactSignature(s)).toEqual(parseSignature(s));
    }
  });

  it('refuses what viem refuses: r or s out of range, a bad v, bad hex, other lengths', () => {
    const v = '1b';
    const cases = [
      `0x${word(0n)}${word(5n)}${v}`,
      `0x${word(5n)}${word(0n)}${v}`,
      `0x${word(N)}${word(5n)}${v}`,
      `0x${word(5n)}${word(N)}${v}`,
      `0x${word(N - 1n)}${word(N - 1n)}${v}`,
      `0x${word(5n)}${word(7n)}02`,
      `0x${word(5n)}${word(7n)}1d`,
      `0x${word(5n)}${word(7n)}zz`,
      `0x${word(5n)}${'g'.repeat(64)}${v}`,
      `0x${word(5n)}${word(7n)}`,
      `0x${word(5n)}${word(7n)}1b00`,
    ] as Hex[];
    for (const c of cases) expect(outcome(() => parseCompactSignature(c))).toEqual(outcome(() => parseSignature(c)));
  });
});
