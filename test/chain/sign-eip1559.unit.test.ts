import { describe, expect, it } from 'vitest';
import { keccak256, parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signEip1559, type Eip1559Fields } from '../../src/chain/sign-eip1559.js';

// The relayer signs its transactions without viem's double serialisation (issue 23, ninth round):
// the very bytes viem's signTransaction gives, and the hash of those bytes, for every size of call
// data (RLP's short and long forms) and the edge values (zero fields, short r or s).
const account = privateKeyToAccount(generatePrivateKey());
const hex = (bytes: number, fill = 'ab') => `0x${fill.repeat(bytes)}` as Hex;
const viemSigned = (tx: Eip1559Fields) => account.signTransaction({ type: 'eip1559', ...tx });

describe('signEip1559', () => {
  const base: Eip1559Fields = {
    chainId: 31_337,
    nonce: 7,
    to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    value: 0n,
    gas: 120_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  };
  const cases: Eip1559Fields[] = [
    base,
    { ...base, data: '0x' },
    { ...base, data: '0x01' },
    { ...base, data: '0x7f' },
    { ...base, data: '0x80' },
    { ...base, data: hex(55) },
    { ...base, data: hex(56) },
    { ...base, data: hex(255, 'cd') },
    { ...base, data: hex(256, '00') },
    { ...base, data: hex(70_000, '9e') },
    { ...base, nonce: 0, value: 0n, maxPriorityFeePerGas: 0n, maxFeePerGas: 0n, gas: 0n },
    { ...base, nonce: 127, value: 128n, gas: 2n ** 256n - 1n, maxFeePerGas: 2n ** 256n - 1n, maxPriorityFeePerGas: 2n ** 255n },
    { ...base, chainId: 1, to: '0x0000000000000000000000000000000000000000', data: '0xABCDEF' },
  ];

  it('gives viem\'s signed bytes and their hash', async () => {
    for (const tx of cases) {
      const mine = await signEip1559(account, tx);
      expect(mine.serialized).toBe(await viemSigned(tx));
      expect(mine.hash).toBe(keccak256(mine.serialized));
    }
  });

  it('across nonces, until both parities and a short r or s have come up, the bytes are viem\'s and recover to the relayer', async () => {
    const parities = new Set<number>();
    let shortWord = false;
    for (let nonce = 0; nonce < 5_000 && !(shortWord && parities.size === 2); nonce++) {
      const tx = { ...base, nonce, data: hex(nonce % 60) };
      const mine = await signEip1559(account, tx);
      expect(mine.serialized).toBe(await viemSigned(tx));
      const { r, s, yParity } = parseTransaction(mine.serialized);
      parities.add(yParity!);
      // RLP drops a leading zero byte of r or s: one signature in 128 or so has one.
      if (BigInt(r!) < 2n ** 248n || BigInt(s!) < 2n ** 248n) shortWord = true;
      if (nonce % 50 === 0) expect(await recoverTransactionAddress({ serializedTransaction: mine.serialized as never })).toBe(account.address);
    }
    expect([...parities].sort()).toEqual([0, 1]);
    expect(shortWord).toBe(true);
  }, 60_000);

  it('leaves what viem refuses to viem, which refuses it', async () => {
    await expect(signEip1559(account, { ...base, maxPriorityFeePerGas: 3n, maxFeePerGas: 2n })).rejects.toThrow();
    await expect(signEip1559(account, { ...base, to: '0x1234' as Hex })).rejects.toThrow();
    await expect(signEip1559(account, { ...base, chainId: 0 })).rejects.toThrow();
  });
});
