/**
 * The commerce-payments AuthCaptureEscrow and its ERC-3009 collector, compiled from the vendored
 * v1.0.0 source and placed at the canonical v1.0 addresses on the embedded chain, driven by the
 * unmodified @x402/evm AuthCaptureEvmScheme client: it signs a ReceiveWithAuthorization for the
 * collector (our token supports it); the operator authorizes (funds held in the escrow's token
 * store, not the merchant's), captures part and voids the rest back to the payer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, toHex, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { AUTH_CAPTURE_V1_0, authCaptureEscrowAbi, ensureAuthCaptureEscrow } from '../../src/chain/auth-capture-escrow.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

async function fundedWallet() {
  const chain = svc.deps.chain as unknown as { rpcUrl: string; chainId: number; publicClient: any };
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.publicClient.request({ method: 'anvil_setBalance', params: [account.address, toHex(10n ** 20n)] });
  const c = { ...foundry, id: chain.chainId, rpcUrls: { default: { http: [chain.rpcUrl] } } };
  return createWalletClient({ account, chain: c, transport: http(chain.rpcUrl) });
}

describe('AuthCaptureEscrow on the embedded chain', () => {
  it('is placed at the v1.0 addresses and settles authorize -> partial capture -> void for the real client', async () => {
    const chain = svc.deps.chain;
    const pc = chain.publicClient as any;
    const operator = await fundedWallet();
    const addresses = await ensureAuthCaptureEscrow(pc, operator as never);
    expect(addresses).toEqual(AUTH_CAPTURE_V1_0);
    // A second call finds them there.
    expect(await ensureAuthCaptureEscrow(pc, operator as never)).toEqual(AUTH_CAPTURE_V1_0);

    const payer = privateKeyToAccount(generatePrivateKey());
    const merchant = privateKeyToAccount(generatePrivateKey()).address;
    expect((await chain.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);

    const now = Math.floor(Date.now() / 1000);
    const requirements = {
      scheme: 'auth-capture',
      network: `eip155:${chain.chainId}` as const,
      amount: '2000000',
      asset: chain.tokenAddress,
      payTo: merchant,
      maxTimeoutSeconds: 300,
      extra: {
        name: chain.eip712Domain.name,
        version: chain.eip712Domain.version,
        captureAuthorizer: operator.account.address,
        feeRecipient: operator.account.address,
        captureDeadline: now + 3600,
        refundDeadline: now + 7200,
        minFeeBps: 0,
        maxFeeBps: 0,
        authCaptureEscrow: AUTH_CAPTURE_V1_0.escrow,
      },
    };
    const made = await new AuthCaptureEvmScheme(payer as never).createPaymentPayload(2, requirements as never);
    const p = made.payload as { authorization: { from: Address; to: Address; value: string; validBefore: string; nonce: Hex }; signature: Hex; salt: string };
    expect(p.authorization.to).toBe(AUTH_CAPTURE_V1_0.eip3009Collector);

    const info = {
      operator: operator.account.address,
      payer: payer.address,
      receiver: merchant,
      token: chain.tokenAddress,
      maxAmount: 2_000_000n,
      preApprovalExpiry: Number(p.authorization.validBefore),
      authorizationExpiry: requirements.extra.captureDeadline,
      refundExpiry: requirements.extra.refundDeadline,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeReceiver: operator.account.address,
      salt: BigInt(p.salt),
    };
    const escrow = { address: AUTH_CAPTURE_V1_0.escrow, abi: authCaptureEscrowAbi } as const;
    const send = async (functionName: string, args: unknown[]) => {
      const hash = await operator.writeContract({ ...escrow, functionName: functionName as never, args: args as never });
      const r = await pc.waitForTransactionReceipt({ hash });
      expect(r.status, functionName).toBe('success');
    };
    const store = (await pc.readContract({ ...escrow, functionName: 'getTokenStore', args: [operator.account.address] })) as Address;

    // Authorize: the payer's 2.00 leave for the escrow's token store; the merchant has nothing yet.
    await send('authorize', [info, 2_000_000n, AUTH_CAPTURE_V1_0.eip3009Collector, p.signature]);
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);
    expect(await chain.balanceOf(store)).toBe(2_000_000n);
    expect(await chain.balanceOf(merchant)).toBe(0n);

    // Capture 0.75 of it.
    await send('capture', [info, 750_000n, 0, operator.account.address]);
    expect(await chain.balanceOf(merchant)).toBe(750_000n);

    // Void: the uncaptured 1.25 goes back to the payer.
    await send('void', [info]);
    expect(await chain.balanceOf(payer.address)).toBe(4_250_000n);
    expect(await chain.balanceOf(store)).toBe(0n);

    // The escrow's own books: nothing left to capture, the captured 0.75 refundable until refundDeadline.
    const state = (await pc.readContract({ ...escrow, functionName: 'paymentState', args: [await pc.readContract({ ...escrow, functionName: 'getHash', args: [info] })] })) as readonly [boolean, bigint, bigint];
    expect(state).toEqual([true, 0n, 750_000n]);
  });
});
