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

  it('nonceFor answers the same from its cache as computed', () => {
    const first = nonceFor('payment', 'pay_cache');
    expect(nonceFor('payment', 'pay_cache')).toBe(first);
    expect(nonceFor('payment:pay', '_cache')).not.toBe(first);
  });
});
