/**
 * keccak256 for the hashes on an agent turn's path (the transfer's and the fee's nonces and
 * EIP-712 digests, the relayer transaction's hash and signing hash): js-sha3, about three times
 * faster than viem's @noble/hashes keccak on these inputs and with less garbage; together they
 * were about 7 % of a turn's CPU once signing had moved to libsecp256k1 (docs/performance.md,
 * ninth round). The same function: test/chain/keccak.unit.test.ts compares it with viem's.
 */
import sha3 from 'js-sha3';
import type { Hex } from 'viem';

/** keccak256 of raw bytes, or of the bytes a 0x-hex string spells (viem's reading of a Hex input). */
export function keccak256(data: Uint8Array | Hex): Hex {
  // Never a string into js-sha3: it would hash the string's UTF-8, not the bytes it spells.
  const bytes = typeof data === 'string' ? hexBytes(data) : data;
  return `0x${sha3.keccak256(bytes)}`;
}

function hexBytes(hex: Hex): Uint8Array {
  if (!/^0x[0-9a-fA-F]*$/.test(hex)) throw new Error(`keccak256: not hex: ${hex.slice(0, 20)}`);
  // An odd digit count is read as viem reads it: a leading zero nibble.
  const body = hex.length % 2 ? `0${hex.slice(2)}` : hex.slice(2);
  return Buffer.from(body, 'hex');
}
