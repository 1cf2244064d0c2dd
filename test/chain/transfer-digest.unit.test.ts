/**
 * The short-way digest of our own authorizations (src/chain/transfer-digest.ts) is viem's
 * hashTypedData byte for byte, so the signature is viem's signTypedData's; the domain separator
 * cache answers each domain with its own separator (a different token, chain, name or version
 * never shares an entry), however many domains pass through it.
 */
import { describe, expect, it } from 'vitest';
import { hashDomain, hashTypedData, recoverTypedDataAddress, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import { buildTransferTypedData, type Eip712Domain, type TransferAuthorization } from '../../src/chain/authorization.js';
import { domainSeparator, transferAuthorizationDigest } from '../../src/chain/transfer-digest.js';

const rnd = (n: number) => toHex(randomBytes(n));
const addr = () => rnd(20) as Address;
const domainOf = (over: Partial<Eip712Domain> = {}): Eip712Domain => ({ name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: addr(), ...over });
const authOf = (from: Address): TransferAuthorization => ({
  from,
  to: addr(),
  value: BigInt(rnd(8)),
  validAfter: BigInt(rnd(4)),
  validBefore: BigInt(rnd(5)),
  nonce: rnd(32) as Hex,
});
const viemDomain = (d: Eip712Domain) =>
  hashDomain({
    domain: { ...d, chainId: BigInt(d.chainId) },
    types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }] },
  });

describe('transfer authorization digest', () => {
  it("is viem's hashTypedData, and signing it gives viem's signTypedData signature", async () => {
    const account = privateKeyToAccount(rnd(32) as Hex);
    for (let i = 0; i < 20; i++) {
      const domain = domainOf({ chainId: i % 2 ? 8453 : 31337 });
      const auth = authOf(account.address);
      const typed = buildTransferTypedData(domain, auth).typedData;
      const digest = transferAuthorizationDigest(domain, auth);
      expect(digest).toBe(hashTypedData(typed));
      const signature = await account.sign({ hash: digest });
      expect(signature).toBe(await account.signTypedData(typed));
      expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(account.address);
    }
  });

  it('mixed-case and lower-case addresses give the same digest', () => {
    const domain = domainOf();
    const auth = authOf(privateKeyToAccount(rnd(32) as Hex).address);
    const lower = { ...auth, from: auth.from.toLowerCase() as Address, to: auth.to.toLowerCase() as Address };
    expect(transferAuthorizationDigest({ ...domain, verifyingContract: domain.verifyingContract.toLowerCase() as Address }, lower)).toBe(transferAuthorizationDigest(domain, auth));
  });

  it('an edge-of-range value is hashed as viem hashes it; a field viem would refuse throws', () => {
    const domain = domainOf();
    const auth = authOf(addr());
    for (const value of [0n, (1n << 256n) - 1n]) {
      const a = { ...auth, value, validAfter: 0n };
      expect(transferAuthorizationDigest(domain, a)).toBe(hashTypedData(buildTransferTypedData(domain, a).typedData));
    }
    expect(() => transferAuthorizationDigest(domain, { ...auth, value: 1n << 256n })).toThrow(/uint256/);
    expect(() => transferAuthorizationDigest(domain, { ...auth, value: -1n })).toThrow(/uint256/);
    expect(() => transferAuthorizationDigest(domain, { ...auth, to: '0x1234' as Address })).toThrow(/address/);
    expect(() => transferAuthorizationDigest(domain, { ...auth, nonce: '0x12' as Hex })).toThrow(/32 bytes/);
  });

  it('the separator cache keys every field: each domain gets its own separator, also past the bound', () => {
    const base = domainOf();
    const variants = [base, { ...base, name: 'Other' }, { ...base, version: '1' }, { ...base, chainId: 1 }, { ...base, verifyingContract: addr() }];
    const seps = variants.map((d) => domainSeparator(d));
    expect(new Set(seps).size).toBe(variants.length);
    variants.forEach((d, i) => expect(seps[i]).toBe(viemDomain(d)));
    // Many more domains than the cache keeps: older ones are evicted and computed again, never confused.
    const many = Array.from({ length: 200 }, (_, i) => domainOf({ chainId: 1000 + i }));
    for (const d of many) expect(domainSeparator(d)).toBe(viemDomain(d));
    for (const d of [...variants, ...many.slice(0, 10)]) expect(domainSeparator(d)).toBe(viemDomain(d));
  });
});
