import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeAbiParameters, keccak256 } from 'viem';
import { encodeThreeStrings, nonceFor } from '../../src/chain/authorization.js';

// nonceFor's ABI encoding is written by hand (issue 23, seventh round): it must stay exactly
// abi.encode(string,string,string), or every derived nonce (a payment's, a transfer's fee's) moves.
const three = [{ type: 'string' }, { type: 'string' }, { type: 'string' }] as const;
const utf8 = new TextEncoder();

function randomString(seed: number): string {
  const alphabet = ['a', 'Z', '0', ':', '\u0000', 'ü', '€', '😀', '_', ' '];
  let x = seed * 2_654_435_761;
  const len = seed % 97; // 0 to 96: empty, under, at and over one 32-byte word, several words
  let s = '';
  for (let i = 0; i < len; i++) {
    x = (x * 1_103_515_245 + 12_345) >>> 0;
    s += alphabet[x % alphabet.length];
  }
  return s;
}

describe('nonceFor', () => {
  it("derives the same nonces as before (viem's encodeAbiParameters)", () => {
    // Values computed at b9c5907, which encoded with viem.
    expect(nonceFor('payment', 'pay_123')).toBe('0xc93d63b292fe5522baa962f377694748dc0b64bd068da81bf91df16205fbb7cc');
    expect(nonceFor('transfer-fee', 'tr_ü€😀')).toBe('0x995ae63c3cfa7622c6579c94d55ff19d1c3ccbe864ba2dfeb43c87d6ac69614e');
    for (let i = 0; i < 600; i++) {
      const [a, b, c] = [randomString(i), randomString(i + 7_001), randomString(i * 31 + 5)];
      expect(bytesToHex(encodeThreeStrings(utf8.encode(a), utf8.encode(b), utf8.encode(c)))).toBe(encodeAbiParameters(three, [a, b, c]));
      expect(nonceFor(b, c)).toBe(keccak256(encodeAbiParameters(three, ['stablepay.eip3009.nonce.v1', b, c])));
    }
  });
});
