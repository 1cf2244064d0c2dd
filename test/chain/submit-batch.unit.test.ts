import { describe, expect, it } from 'vitest';
import { encodeFunctionData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { encodeBatch } from '../../src/chain/submit-batch.js';
import type { SignedAuthorization } from '../../src/chain/chain-port.js';
import { randomNonce } from './helpers.js';

/**
 * Issue 23, twelfth round: the batch calldata of an agent transfer's principal and fee is encoded
 * with `transferWithAuthorizations` looked up and its selector hashed once, at load, not on every
 * call (viem's encodeFunctionData by name did both per call: more CPU than the encoding itself).
 */
const item = (): SignedAuthorization => ({
  auth: {
    from: privateKeyToAccount(randomNonce()).address,
    to: privateKeyToAccount(randomNonce()).address,
    value: BigInt(Math.floor(Math.random() * 1e12)),
    validAfter: BigInt(Math.floor(Date.now() / 1000) - 60),
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: randomNonce(),
  },
  signature: `0x${randomNonce().slice(2)}${randomNonce().slice(2)}1b` as Hex,
});

const byName = (items: readonly SignedAuthorization[]) =>
  encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorizations', args: [items.map(({ auth, signature }) => ({ ...auth, signature }))] });

describe('encodeBatch', () => {
  it('is byte for byte what viem encodes by name', () => {
    for (let n = 1; n <= 4; n++) {
      for (let k = 0; k < 25; k++) {
        const items = Array.from({ length: n }, item);
        expect(encodeBatch(items)).toBe(byName(items));
      }
    }
  });

  it('does not look the function up in the ABI per call (it was prepared once, at load)', () => {
    const items = [item(), item()];
    const expected = byName(items);
    const abi = stablecoinAbi as unknown as Array<{ name?: string }>;
    const at = abi.findIndex((e) => e.name === 'transferWithAuthorizations');
    const [entry] = abi.splice(at, 1);
    try {
      expect(encodeBatch(items)).toBe(expected);
    } finally {
      abi.splice(at, 0, entry!);
    }
  });
});
