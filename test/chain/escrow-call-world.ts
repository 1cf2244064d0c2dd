/**
 * A fake x402 auth-capture port whose contract-call `send` notes, for each call, the function it
 * calls and whether `relayOnce` is on the call stack (relay-path.unit.test.ts), with one helper
 * per escrow move the domain makes: capture, capture-and-void, a refund (the collector's approval,
 * then the escrow refund), a funding return.
 */
import pino from 'pino';
import { expect } from 'vitest';
import { decodeFunctionData, erc20Abi, getAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { authCaptureEscrowAbi } from '../../src/chain/artifacts/auth-capture.js';
import { LowdbStore } from '../../src/store/index.js';
import { AuthCaptureService } from '../../src/x402/auth-capture/auth-capture-service.js';
import { PaymentInfoWire } from '../../src/x402/auth-capture/auth-capture-schemas.js';
import { EscrowRefunds } from '../../src/x402/auth-capture/escrow-refunds.js';
import { boundSalt, paymentInfoHash } from '../../src/x402/auth-capture/payment-info.js';
import { AuthCaptures } from '../../src/x402/auth-capture/records.js';
import { settleAuthCapture, type AuthCapturePort, type PaymentState } from '../../src/x402/auth-capture/scheme.js';
import { PaymentIdentifierLedger } from '../../src/x402/payment-identifier.js';
import type { FacilitatorRequest } from '../../src/x402/x402-schemas.js';

const ESCROW = getAddress('0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff');
const TOKEN = getAddress('0x5FbDB2315678afecb367f032d93F642f64180aa3');
const PAYER = getAddress('0x1111111111111111111111111111111111111111');
const MERCHANT = getAddress('0x2222222222222222222222222222222222222222');
const ZERO = '0x0000000000000000000000000000000000000000' as Address;
const SALT_NONCE = ('0x' + '07'.repeat(32)) as Hex;
const SIGNATURE = ('0x' + '11'.repeat(65)) as Hex;

function calledFunction(data: Hex): string {
  for (const abi of [authCaptureEscrowAbi, erc20Abi] as const) {
    try {
      return decodeFunctionData({ abi: abi as never, data }).functionName as string;
    } catch {
      /* the other contract's */
    }
  }
  return 'unknown';
}

export async function escrowCallWorld() {
  const operator = privateKeyToAccount(generatePrivateKey());
  const now = Math.floor(Date.now() / 1000);
  const captureDeadline = now + 3600;
  const sends: { what: string; viaRelayOnce: boolean }[] = [];
  let state: PaymentState = { collected: true, capturable: 2_000_000n, refundable: 0n };
  let n = 0;
  const port: AuthCapturePort = {
    chainId: 31337,
    tokenAddress: TOKEN,
    eip712Domain: { name: 'USD Coin', version: '2' },
    operator: operator.address,
    escrow: ESCROW,
    eip3009Collector: getAddress('0x0E3dF9510de65469C4518D7843919c0b8C7A7757'),
    operatorRefundCollector: getAddress('0x934907bffd0901b6A21e398B9C53A4A38F02fa5d'),
    call: {
      simulate: async () => ({ ok: true }),
      send: async (c) => {
        sends.push({ what: calledFunction(c.data), viaRelayOnce: /\brelayOnce\b/.test(new Error().stack ?? '') });
        return { ok: true, txHash: `0x${(++n).toString(16).padStart(64, '0')}` as Hex };
      },
      signTypedData: (t) => operator.signTypedData(t as never),
    },
    verifyTypedData: async () => true,
    balanceOf: async () => 0n,
    paymentState: async () => state,
    waitForReceipt: async () => ({ status: 'success' }) as never,
  };
  const receiverAuthorizer = operator.address;
  const paymentInfo = {
    operator: operator.address, payer: PAYER, receiver: MERCHANT, token: TOKEN, maxAmount: '2000000',
    preApprovalExpiry: captureDeadline, authorizationExpiry: captureDeadline, refundExpiry: captureDeadline + 86_400,
    minFeeBps: 0, maxFeeBps: 0, feeReceiver: MERCHANT, salt: boundSalt(receiverAuthorizer, ZERO, SALT_NONCE),
  };
  const extra = {
    name: 'USD Coin', version: '2', authCaptureEscrow: ESCROW, captureAuthorizer: operator.address, receiverAuthorizer,
    operatorType: 'delegated', paymentFlow: 'escrow', captureDeadline, refundDeadline: captureDeadline + 86_400,
    feeRecipient: MERCHANT, minFeeBps: 0, maxFeeBps: 0,
  };
  const requirements = { scheme: 'auth-capture', network: 'eip155:31337', amount: '2000000', asset: TOKEN, payTo: MERCHANT, maxTimeoutSeconds: 0, extra };
  const capture = (more: Record<string, unknown> = {}): FacilitatorRequest =>
    ({
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        accepted: requirements,
        payload: { type: 'capture', paymentInfo, saltNonce: SALT_NONCE, amount: '750000', feeBps: 0, feeReceiver: MERCHANT, expectedCapturableAmount: '2000000', expectedRefundableAmount: '0', ...more },
      },
      paymentRequirements: requirements,
    }) as FacilitatorRequest;
  const delegated = { delegated: async () => true };

  const store = LowdbStore.inMemory();
  const ac = new AuthCaptureService({ port, store, ids: new PaymentIdentifierLedger(store), logger: pino({ level: 'silent' }) });
  const escrow = new EscrowRefunds(ac);
  const hash = paymentInfoHash(31337, ESCROW, PaymentInfoWire.parse(paymentInfo));
  const at = new Date().toISOString();
  await store.write(AuthCaptures, (t) =>
    t.insertOrGet({ id: hash, accountId: 'acct_a', payer: PAYER, paymentInfo, saltNonce: SALT_NONCE, state: 'open', captureDeadline: new Date(captureDeadline * 1000).toISOString(), createdAt: at, updatedAt: at }),
  );

  return {
    sends,
    async capture() {
      expect(await settleAuthCapture(port, capture(), delegated)).toMatchObject({ success: true, operation: 'capture' });
    },
    async captureAndVoid() {
      expect(await settleAuthCapture(port, capture({ voidAuthorizerSignature: SIGNATURE }), delegated)).toMatchObject({ success: true, operation: 'capture' });
    },
    async refund() {
      state = { collected: true, capturable: 0n, refundable: 750_000n };
      const r = await escrow.refund({ accountId: 'acct_a', paymentId: 'pay_1', hash, amount: 250_000n }, {}, async () => undefined);
      expect(r).toMatchObject({ status: 'succeeded' });
    },
    async returnFunding() {
      expect(await escrow.returnFunding(MERCHANT, 250_000n, undefined, async () => undefined)).toMatchObject({ status: 'succeeded' });
    },
  };
}
