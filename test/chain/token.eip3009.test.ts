import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventLogs, parseSignature, serializeSignature, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { buildTransferTypedData, type TransferAuthorization } from '../../src/chain/authorization.js';
import { randomNonce, startTokenChain } from './helpers.js';

// The stablecoin's EIP-3009 rules, exercised on a real anvil with USDC's revert messages.
describe('Stablecoin EIP-3009', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let payer: PrivateKeyAccount;
  let relayer: PrivateKeyAccount;
  const payee = '0x000000000000000000000000000000000000bEEF' as Address;

  beforeAll(async () => {
    t = await startTokenChain();
    payer = await t.fundedAccount();
    relayer = await t.fundedAccount();
    await t.mint(payer.address, 1_000_000_000n);
  });
  afterAll(async () => {
    await t?.anvil.stop();
  });

  async function authorize(overrides: Partial<TransferAuthorization> = {}, signer = payer) {
    const now = await t.latestTimestamp();
    const auth: TransferAuthorization = {
      from: payer.address,
      to: payee,
      value: 1_000_000n,
      validAfter: now - 60n,
      validBefore: now + 3600n,
      nonce: randomNonce(),
      ...overrides,
    };
    const signature = await signer.signTypedData(buildTransferTypedData(t.domain, auth).typedData);
    return { auth, signature };
  }

  function vrsArgs(auth: TransferAuthorization, signature: Hex) {
    const { r, s, v } = parseSignature(signature);
    return [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(v), r, s] as const;
  }

  function simulate(auth: TransferAuthorization, signature: Hex) {
    return t.publicClient.simulateContract({
      address: t.token,
      abi: stablecoinAbi,
      account: relayer,
      functionName: 'transferWithAuthorization',
      args: vrsArgs(auth, signature),
    });
  }

  /** Sends with a fixed gas limit, so a reverting call is mined instead of failing estimation. */
  async function send(auth: TransferAuthorization, signature: Hex) {
    const hash = await t.walletFor(relayer).writeContract({
      address: t.token,
      abi: stablecoinAbi,
      functionName: 'transferWithAuthorization',
      args: vrsArgs(auth, signature),
      gas: 200_000n,
    });
    return t.publicClient.waitForTransactionReceipt({ hash });
  }

  it('moves tokens on a valid authorization, paid for by the relayer, and marks the nonce used', async () => {
    const { auth, signature } = await authorize();
    const before = await t.balanceOf(payee);
    expect(await t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'authorizationState', args: [payer.address, auth.nonce] })).toBe(false);

    const receipt = await send(auth, signature);

    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(relayer.address.toLowerCase());
    expect(await t.balanceOf(payee)).toBe(before + 1_000_000n);
    expect(await t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'authorizationState', args: [payer.address, auth.nonce] })).toBe(true);
    const events = parseEventLogs({ abi: stablecoinAbi, logs: receipt.logs, eventName: 'AuthorizationUsed' });
    expect(events).toHaveLength(1);
    expect(events[0]!.args).toEqual({ authorizer: payer.address, nonce: auth.nonce });
  });

  it('rejects a replay of the same nonce', async () => {
    const { auth, signature } = await authorize();
    expect((await send(auth, signature)).status).toBe('success');
    await expect(simulate(auth, signature)).rejects.toThrow(/FiatTokenV2: authorization is used or canceled/);
    expect((await send(auth, signature)).status).toBe('reverted');
  });

  it('accepts the packed bytes-signature overload too', async () => {
    const { auth, signature } = await authorize();
    const before = await t.balanceOf(payee);
    const hash = await t.walletFor(relayer).writeContract({
      address: t.token,
      abi: stablecoinAbi,
      functionName: 'transferWithAuthorization',
      args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature],
    });
    expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await t.balanceOf(payee)).toBe(before + auth.value);
  });

  it('enforces validAfter and validBefore strictly against block.timestamp', async () => {
    const now = await t.latestTimestamp();
    const validAfter = now + 1000n;
    const validBefore = now + 2000n;

    const early = await authorize({ validAfter, validBefore });
    await expect(simulate(early.auth, early.signature)).rejects.toThrow(/FiatTokenV2: authorization is not yet valid/);
    // block.timestamp == validAfter is still too early ...
    await t.testClient.setNextBlockTimestamp({ timestamp: validAfter });
    expect((await send(early.auth, early.signature)).status).toBe('reverted');
    // ... one second later it is valid.
    await t.testClient.setNextBlockTimestamp({ timestamp: validAfter + 1n });
    expect((await send(early.auth, early.signature)).status).toBe('success');

    const late = await authorize({ validAfter: now, validBefore });
    // block.timestamp == validBefore is already expired.
    await t.testClient.setNextBlockTimestamp({ timestamp: validBefore });
    expect((await send(late.auth, late.signature)).status).toBe('reverted');
    await expect(simulate(late.auth, late.signature)).rejects.toThrow(/FiatTokenV2: authorization is expired/);
  });

  it('rejects an authorization that expired while waiting', async () => {
    const now = await t.latestTimestamp();
    const { auth, signature } = await authorize({ validBefore: now + 100n });
    await t.testClient.increaseTime({ seconds: 200 });
    await t.testClient.mine({ blocks: 1 });
    await expect(simulate(auth, signature)).rejects.toThrow(/FiatTokenV2: authorization is expired/);
  });

  it('rejects a signature from someone other than `from`', async () => {
    const stranger = await t.fundedAccount();
    const { auth, signature } = await authorize({}, stranger);
    await expect(simulate(auth, signature)).rejects.toThrow(/FiatTokenV2: invalid signature/);
  });

  it('rejects a signature over different terms', async () => {
    const { auth, signature } = await authorize();
    await expect(simulate({ ...auth, value: auth.value + 1n }, signature)).rejects.toThrow(/FiatTokenV2: invalid signature/);
  });

  it("rejects a malleable (high-s) signature, like USDC's ECRecover", async () => {
    const { auth, signature } = await authorize();
    const { r, s, yParity } = parseSignature(signature);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const flipped = serializeSignature({ r, s: `0x${(n - BigInt(s)).toString(16).padStart(64, '0')}`, yParity: yParity === 0 ? 1 : 0 });
    await expect(simulate(auth, flipped)).rejects.toThrow(/ECRecover: invalid signature 's' value/);
  });

  it('lets the authorizer cancel an unused authorization, after which it cannot be used', async () => {
    const { auth, signature } = await authorize();
    const cancelSig = await payer.signTypedData({
      domain: t.domain,
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: auth.nonce },
    });
    const { r, s, v } = parseSignature(cancelSig);
    const hash = await t.walletFor(relayer).writeContract({
      address: t.token,
      abi: stablecoinAbi,
      functionName: 'cancelAuthorization',
      args: [payer.address, auth.nonce, Number(v), r, s],
    });
    const receipt = await t.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const events = parseEventLogs({ abi: stablecoinAbi, logs: receipt.logs, eventName: 'AuthorizationCanceled' });
    expect(events[0]?.args).toEqual({ authorizer: payer.address, nonce: auth.nonce });

    await expect(simulate(auth, signature)).rejects.toThrow(/FiatTokenV2: authorization is used or canceled/);
    // Canceling twice fails the same way.
    await expect(
      t.publicClient.simulateContract({
        address: t.token,
        abi: stablecoinAbi,
        account: relayer,
        functionName: 'cancelAuthorization',
        args: [payer.address, auth.nonce, Number(v), r, s],
      }),
    ).rejects.toThrow(/FiatTokenV2: authorization is used or canceled/);
  });

  it('lets only the payee submit receiveWithAuthorization', async () => {
    const payeeAccount = await t.fundedAccount();
    const now = await t.latestTimestamp();
    const message = {
      from: payer.address,
      to: payeeAccount.address,
      value: 5n,
      validAfter: now - 60n,
      validBefore: now + 3600n,
      nonce: randomNonce(),
    };
    const sig = await payer.signTypedData({
      domain: t.domain,
      types: { ReceiveWithAuthorization: buildTransferTypedData(t.domain, message).typedData.types.TransferWithAuthorization },
      primaryType: 'ReceiveWithAuthorization',
      message,
    });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, sig] as const;
    await expect(
      t.publicClient.simulateContract({ address: t.token, abi: stablecoinAbi, account: relayer, functionName: 'receiveWithAuthorization', args }),
    ).rejects.toThrow(/FiatTokenV2: caller must be the payee/);
    const hash = await t
      .walletFor(payeeAccount)
      .writeContract({ address: t.token, abi: stablecoinAbi, functionName: 'receiveWithAuthorization', args });
    expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await t.balanceOf(payeeAccount.address)).toBe(5n);
  });

  it('reports its EIP-712 domain (EIP-5267) and DOMAIN_SEPARATOR', async () => {
    const [fields, name, version, chainId, verifyingContract] = await t.publicClient.readContract({
      address: t.token,
      abi: stablecoinAbi,
      functionName: 'eip712Domain',
    });
    expect({ fields, name, version, chainId, verifyingContract }).toEqual({
      fields: '0x0f',
      name: 'Test USD Coin',
      version: '2',
      chainId: BigInt(t.anvil.chainId),
      verifyingContract: t.token,
    });
    expect(await t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'decimals' })).toBe(6);
    expect(await t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'symbol' })).toBe('USDC');
  });

  it('lets only the owner mint', async () => {
    const stranger = await t.fundedAccount();
    await expect(
      t.publicClient.simulateContract({ address: t.token, abi: stablecoinAbi, account: stranger, functionName: 'mint', args: [stranger.address, 1n] }),
    ).rejects.toThrow(/Ownable: caller is not the owner/);
  });
});
