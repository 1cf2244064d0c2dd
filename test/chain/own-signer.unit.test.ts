/**
 * The service's own accounts (src/chain/own-signer.ts) sign with libsecp256k1, and every
 * signature is the byte-for-byte one viem's `privateKeyToAccount` makes: a digest, a message,
 * typed data, and a transaction of each type the relayer sends; the signer is recovered from
 * each. The custodial keyring and the relayer hand out these accounts.
 */
import { describe, expect, it } from 'vitest';
import { parseGwei, recoverAddress, recoverMessageAddress, recoverTransactionAddress, recoverTypedDataAddress, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import { ownAccount, signHash } from '../../src/chain/own-signer.js';
import { CustodialKeyring } from '../../src/chain/wallet-secrets.js';

const rnd = (n: number) => toHex(randomBytes(n));

describe('own signer', () => {
  it('signs every digest exactly as viem does (200 random keys and digests, both recovery bits)', async () => {
    const parities = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const key = generatePrivateKey();
      const hash = rnd(32) as Hex;
      const mine = ownAccount(key);
      const viem = privateKeyToAccount(key);
      const sig = await mine.sign!({ hash });
      expect(sig).toBe(await viem.sign!({ hash }));
      parities.add(signHash(hash, Buffer.from(key.slice(2), 'hex')).yParity!);
      if (i % 50 === 0) expect(await recoverAddress({ hash, signature: sig })).toBe(viem.address);
    }
    expect([...parities].sort()).toEqual([0, 1]);
  });

  it('signs messages, typed data and transactions exactly as viem does, recoverable to its address', async () => {
    const key = generatePrivateKey();
    const mine = ownAccount(key);
    const viem = privateKeyToAccount(key);
    expect(mine.address).toBe(viem.address);

    const message = 'stablepay own signer';
    const m = await mine.signMessage({ message });
    expect(m).toBe(await viem.signMessage({ message }));
    expect(await recoverMessageAddress({ message, signature: m })).toBe(viem.address);

    const typed = {
      domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: rnd(20) as Address },
      types: { Mail: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }] },
      primaryType: 'Mail' as const,
      message: { to: rnd(20) as Address, amount: 123456789n },
    };
    const t = await mine.signTypedData(typed);
    expect(t).toBe(await viem.signTypedData(typed));
    expect(await recoverTypedDataAddress({ ...typed, signature: t })).toBe(viem.address);

    const to = rnd(20) as Address;
    const txs = [
      { type: 'eip1559' as const, chainId: 31337, nonce: 7, to, value: 1n, data: rnd(100) as Hex, gas: 90_000n, maxFeePerGas: parseGwei('2'), maxPriorityFeePerGas: parseGwei('1') },
      { type: 'legacy' as const, chainId: 31337, nonce: 8, to, value: 0n, data: rnd(36) as Hex, gas: 50_000n, gasPrice: parseGwei('3') },
      { type: 'eip2930' as const, chainId: 1, nonce: 9, to, value: 5n, gas: 21_000n, gasPrice: parseGwei('3'), accessList: [] },
    ];
    for (const tx of txs) {
      const signed = await mine.signTransaction(tx);
      expect(signed).toBe(await viem.signTransaction(tx));
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(viem.address);
    }
  });

  it('the custodial keyring hands out own accounts with the keys viem derives', async () => {
    const mnemonic = 'test test test test test test test test test test test junk';
    const keyring = new CustodialKeyring(mnemonic);
    const hash = rnd(32) as Hex;
    const account = keyring.account(3);
    expect((account as { signer?: string }).signer).toBe('libsecp256k1');
    const sig = await account.sign!({ hash });
    expect(await recoverAddress({ hash, signature: sig })).toBe(account.address);
    // anvil's fourth default account is m/44'/60'/0'/0/3 of this mnemonic
    expect(account.address).toBe('0x90F79bf6EB2c4f870365E785982E1f101E93b906');
  });
});
