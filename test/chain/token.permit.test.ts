import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSignature, type PrivateKeyAccount } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { startTokenChain } from './helpers.js';

const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

describe('Stablecoin EIP-2612 permit', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let owner: PrivateKeyAccount;
  let spender: PrivateKeyAccount;

  beforeAll(async () => {
    t = await startTokenChain();
    owner = await t.fundedAccount();
    spender = await t.fundedAccount();
    await t.mint(owner.address, 10_000_000n);
  });
  afterAll(async () => {
    await t?.anvil.stop();
  });

  const read = {
    nonce: (a: `0x${string}`) => t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'nonces', args: [a] }),
    allowance: (o: `0x${string}`, s: `0x${string}`) =>
      t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'allowance', args: [o, s] }),
  };

  async function signPermit(signer: PrivateKeyAccount, value: bigint, deadline: bigint) {
    const nonce = await read.nonce(owner.address);
    const sig = await signer.signTypedData({
      domain: t.domain,
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: { owner: owner.address, spender: spender.address, value, nonce, deadline },
    });
    const { v, r, s } = parseSignature(sig);
    return [owner.address, spender.address, value, deadline, Number(v), r, s] as const;
  }

  it('sets the allowance from a signature submitted by anyone, and the spender can pull', async () => {
    const deadline = (await t.latestTimestamp()) + 3600n;
    const args = await signPermit(owner, 2_500_000n, deadline);
    const nonceBefore = await read.nonce(owner.address);

    const hash = await t.walletFor(spender).writeContract({ address: t.token, abi: stablecoinAbi, functionName: 'permit', args });
    expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await read.allowance(owner.address, spender.address)).toBe(2_500_000n);
    expect(await read.nonce(owner.address)).toBe(nonceBefore + 1n);

    const pull = await t.walletFor(spender).writeContract({
      address: t.token,
      abi: stablecoinAbi,
      functionName: 'transferFrom',
      args: [owner.address, spender.address, 2_000_000n],
    });
    expect((await t.publicClient.waitForTransactionReceipt({ hash: pull })).status).toBe('success');
    expect(await t.balanceOf(spender.address)).toBe(2_000_000n);
    expect(await read.allowance(owner.address, spender.address)).toBe(500_000n);

    // The same permit cannot be replayed: the nonce moved on.
    await expect(
      t.publicClient.simulateContract({ address: t.token, abi: stablecoinAbi, account: spender, functionName: 'permit', args }),
    ).rejects.toThrow(/EIP2612: invalid signature/);
  });

  it('rejects a permit signed by someone other than the owner', async () => {
    const deadline = (await t.latestTimestamp()) + 3600n;
    const args = await signPermit(spender, 1n, deadline);
    await expect(
      t.publicClient.simulateContract({ address: t.token, abi: stablecoinAbi, account: spender, functionName: 'permit', args }),
    ).rejects.toThrow(/EIP2612: invalid signature/);
  });

  it('rejects an expired permit', async () => {
    const deadline = (await t.latestTimestamp()) - 1n;
    const args = await signPermit(owner, 1n, deadline);
    await expect(
      t.publicClient.simulateContract({ address: t.token, abi: stablecoinAbi, account: spender, functionName: 'permit', args }),
    ).rejects.toThrow(/FiatTokenV2: permit is expired/);
  });
});
