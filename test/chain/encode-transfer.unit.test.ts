import { describe, expect, it } from 'vitest';
import { encodeFunctionData, parseSignature, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { nonceFor } from '../../src/chain/authorization.js';
import { encodeTransfer } from '../../src/chain/verify-authorization.js';

// encodeTransfer writes the (v, r, s) overload's nine words itself (issue 23, point 2): it must
// give exactly viem's ABI encoding, and leave anything out of shape to viem.
describe('encodeTransfer', () => {
  const viemVrs = (a: ReturnType<typeof auth>, sig: Hex) => {
    const { r, s, v, yParity } = parseSignature(sig);
    return encodeFunctionData({
      abi: stablecoinAbi,
      functionName: 'transferWithAuthorization',
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v !== undefined && v >= 27n ? Number(v) : yParity + 27, r, s],
    });
  };
  const auth = (over: Partial<{ value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; from: Address }> = {}) => ({
    from: privateKeyToAccount(generatePrivateKey()).address,
    to: privateKeyToAccount(generatePrivateKey()).address,
    value: 38_684_720n,
    validAfter: 0n,
    validBefore: 1_900_000_000n,
    nonce: nonceFor('payment', `pay_${Math.random()}`),
    ...over,
  });

  it('matches viem for real signatures, both parities, and the extreme uint256 values', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    for (let i = 0; i < 40; i++) {
      const a = auth({ value: i === 0 ? 2n ** 256n - 1n : BigInt(i) * 1_000_003n, validAfter: i === 1 ? 2n ** 255n : 0n });
      const sig = await signer.signMessage({ message: `m${i}` });
      expect(encodeTransfer(a, sig, false)).toBe(viemVrs(a, sig));
    }
    // Mixed-case (checksummed) addresses and an upper-case nonce encode the same.
    const a = auth({ nonce: `0x${'AB'.repeat(32)}` as Hex });
    const sig = await signer.signMessage({ message: 'x' });
    expect(encodeTransfer(a, sig, false)).toBe(viemVrs(a, sig));
  });

  it('leaves the bytes overload and values out of range to viem', async () => {
    const sig = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: 'y' });
    const a = auth();
    expect(encodeTransfer(a, sig, true)).toBe(
      encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig] }),
    );
    expect(() => encodeTransfer(auth({ value: 2n ** 256n }), sig, false)).toThrow();
    expect(() => encodeTransfer(auth({ value: -1n }), sig, false)).toThrow();
    expect(() => encodeTransfer(auth({ nonce: '0x1234' }), sig, false)).toThrow();
  });

  /** Random bytes of `n` bytes, hex. */
  const bytes = (n: number) => `0x${Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256))).toString('hex')}` as Hex;
  const viemBytes = (a: ReturnType<typeof auth>, sig: Hex) =>
    encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig] });
  const randomAuth = () =>
    auth({ value: BigInt(bytes(1 + Math.floor(Math.random() * 32))), validAfter: BigInt(bytes(Math.floor(Math.random() * 8) + 1)), validBefore: BigInt(bytes(32)), nonce: bytes(32) });

  it('the bytes overload (contract signers) is byte for byte what viem encodes by name, over random inputs and signature lengths (h13fix)', () => {
    for (let i = 0; i < 300; i++) {
      const a = randomAuth();
      // ERC-1271 signatures have any length: empty, short, 65 bytes, several words and a tail.
      const sig = bytes([0, 1, 31, 32, 33, 64, 65, 66, 130, 200][i % 10]! + (i % 3));
      expect(encodeTransfer(a, sig, true), `${i}`).toBe(viemBytes(a, sig));
    }
  });

  it('does not look either overload up in the ABI per call (each was prepared once, at load; h13fix)', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const a = randomAuth();
    const [contractSig, eoaSig] = [bytes(97), await signer.signMessage({ message: 'z' })];
    const expected = [viemBytes(a, contractSig), viemBytes(a, eoaSig), viemVrs(a, eoaSig)];
    const abi = stablecoinAbi as unknown as Array<{ name?: string }>;
    const removed: Array<[number, { name?: string }]> = [];
    for (let at = abi.findIndex((e) => e.name === 'transferWithAuthorization'); at >= 0; at = abi.findIndex((e) => e.name === 'transferWithAuthorization')) removed.unshift([at, abi.splice(at, 1)[0]!]);
    try {
      expect(removed).toHaveLength(2);
      expect([encodeTransfer(a, contractSig, true), encodeTransfer(a, eoaSig, true), encodeTransfer(a, eoaSig, false)]).toEqual(expected);
      // Out of shape: the prepared (v, r, s) overload refuses it, as viem by name did.
      expect(() => encodeTransfer(auth({ value: 2n ** 256n }), eoaSig, false)).toThrow();
    } finally {
      for (const [at, entry] of removed) abi.splice(at, 0, entry);
    }
  });

  it('nonceFor answers the same from its cache as computed', () => {
    const first = nonceFor('payment', 'pay_cache');
    expect(nonceFor('payment', 'pay_cache')).toBe(first);
    expect(nonceFor('payment:pay', '_cache')).not.toBe(first);
  });
});
