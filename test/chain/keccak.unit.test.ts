/**
 * The turn's keccak (src/chain/keccak.ts, js-sha3) is viem's keccak256: over random bytes of
 * every length around the sponge's rate (136 bytes), over the same bytes given as hex (odd
 * digit counts read as viem reads them), and never over a hex string's characters.
 */
import { describe, expect, it } from 'vitest';
import { keccak256 as viemKeccak, toHex, type Hex } from 'viem';
import { randomBytes } from 'node:crypto';
import { keccak256 } from '../../src/chain/keccak.js';

describe('keccak256 (js-sha3)', () => {
  it('is viem keccak256 over bytes and over hex, at every length from 0 to 300', () => {
    for (let n = 0; n <= 300; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      expect(keccak256(bytes)).toBe(viemKeccak(bytes));
      const hex = toHex(bytes);
      expect(keccak256(hex)).toBe(viemKeccak(hex));
    }
    expect(keccak256('0xabc')).toBe(viemKeccak('0xabc'));
    expect(keccak256('0x')).toBe(viemKeccak(new Uint8Array()));
  });

  it('hashes the bytes a hex string spells, and refuses what is not hex', () => {
    expect(keccak256('0x00' as Hex)).not.toBe(keccak256(new TextEncoder().encode('0x00')));
    expect(() => keccak256('0xzz' as Hex)).toThrow(/not hex/);
  });
});
