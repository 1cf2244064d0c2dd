/**
 * The auth-capture scheme's refusals over a fake port (no chain): each lifecycle reason path of
 * checks.ts / scheme.ts answers its binding reason, and nothing is simulated or sent for a refused
 * payload; a valid capture and void pass with the escrow call they would send.
 */
import { describe, expect, it } from 'vitest';
import { decodeFunctionData, getAddress, type Address, type Hex } from 'viem';
import { authCaptureEscrowAbi } from '../../src/chain/artifacts/auth-capture.js';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { boundSalt } from '../../src/x402/auth-capture/payment-info.js';
import { AuthCaptureReason as R } from '../../src/x402/auth-capture/auth-capture-reasons.js';
import { settleAuthCapture, verifyAuthCapture, type AuthCaptureContext, type AuthCapturePort, type PaymentState } from '../../src/x402/auth-capture/scheme.js';
import type { FacilitatorRequest } from '../../src/x402/x402-schemas.js';
import { LowdbStore } from '../../src/store/index.js';
import { PaymentIdentifierLedger } from '../../src/x402/payment-identifier.js';
import { AuthCaptureService } from '../../src/x402/auth-capture/auth-capture-service.js';
import { AuthCaptures } from '../../src/x402/auth-capture/records.js';
import { paymentInfoHash } from '../../src/x402/auth-capture/payment-info.js';
import { PaymentInfoWire } from '../../src/x402/auth-capture/auth-capture-schemas.js';

const operator = privateKeyToAccount(generatePrivateKey());
const ESCROW = getAddress('0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff');
const TOKEN = getAddress('0x5FbDB2315678afecb367f032d93F642f64180aa3');
const PAYER = getAddress('0x1111111111111111111111111111111111111111');
const MERCHANT = getAddress('0x2222222222222222222222222222222222222222');
const ZERO = '0x0000000000000000000000000000000000000000' as Address;
const SALT_NONCE = ('0x' + '07'.repeat(32)) as Hex;
const NOW = 1_900_000_000;

function fakePort(state: PaymentState) {
  const sent: unknown[] = [];
  const simulated: unknown[] = [];
  const port: AuthCapturePort = {
    chainId: 31337,
    tokenAddress: TOKEN,
    eip712Domain: { name: 'USD Coin', version: '2' },
    operator: operator.address,
    escrow: ESCROW,
    eip3009Collector: getAddress('0x0E3dF9510de65469C4518D7843919c0b8C7A7757'),
    operatorRefundCollector: getAddress('0x934907bffd0901b6A21e398B9C53A4A38F02fa5d'),
    call: {
      simulate: async (c) => (simulated.push(c), { ok: true }),
      send: async (c) => (sent.push(c), { ok: true, txHash: ('0x' + 'ab'.repeat(32)) as Hex }),
      signTypedData: (t) => operator.signTypedData(t as never),
    },
    verifyTypedData: async () => false,
    balanceOf: async () => 0n,
    paymentState: async () => state,
    waitForReceipt: async () => ({ status: 'success' }) as never,
  };
  return { port, sent, simulated };
}

interface Variation {
  operator?: Address;
  saltNonce?: Hex;
  captureDeadline?: number;
  escrow?: Address;
  maxFeeBps?: number;
  amount?: string;
  expected?: [string, string];
  type?: 'capture' | 'void' | 'refund';
  receiverAuthorizer?: Address;
}

/** A lifecycle request for a 2.00 hold, the merchant's, with the receiver authorizer delegated to us. */
function request(v: Variation = {}): FacilitatorRequest {
  const captureDeadline = v.captureDeadline ?? NOW + 3600;
  const receiverAuthorizer = v.receiverAuthorizer ?? operator.address;
  const extra = {
    name: 'USD Coin', version: '2', authCaptureEscrow: v.escrow ?? ESCROW, captureAuthorizer: operator.address, receiverAuthorizer,
    operatorType: 'delegated', paymentFlow: 'escrow', captureDeadline, refundDeadline: captureDeadline + 86_400,
    feeRecipient: MERCHANT, minFeeBps: 0, maxFeeBps: v.maxFeeBps ?? 0,
  };
  const requirements = { scheme: 'auth-capture', network: 'eip155:31337', amount: '2000000', asset: TOKEN, payTo: MERCHANT, maxTimeoutSeconds: 0, extra };
  const paymentInfo = {
    operator: v.operator ?? operator.address, payer: PAYER, receiver: MERCHANT, token: TOKEN, maxAmount: '2000000',
    preApprovalExpiry: captureDeadline, authorizationExpiry: captureDeadline, refundExpiry: captureDeadline + 86_400,
    minFeeBps: 0, maxFeeBps: 0, feeReceiver: MERCHANT, salt: boundSalt(receiverAuthorizer, ZERO, SALT_NONCE),
  };
  const type = v.type ?? 'capture';
  const payload: Record<string, unknown> = { type, paymentInfo, saltNonce: v.saltNonce ?? SALT_NONCE };
  if (type === 'capture') {
    const [cap, ref] = v.expected ?? ['2000000', '0'];
    Object.assign(payload, { amount: v.amount ?? '750000', feeBps: 0, feeReceiver: MERCHANT, expectedCapturableAmount: cap, expectedRefundableAmount: ref });
  }
  if (type === 'refund') Object.assign(payload, { amount: '1', expectedCapturableAmount: '0', expectedRefundableAmount: '750000' });
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: requirements, payload }, paymentRequirements: requirements } as FacilitatorRequest;
}

const HELD: PaymentState = { collected: true, capturable: 2_000_000n, refundable: 0n };
const mine = { delegated: async () => true, nowSeconds: NOW };

async function refusal(v: Variation, state = HELD, ctx: AuthCaptureContext = mine) {
  const { port, sent, simulated } = fakePort(state);
  const r = await settleAuthCapture(port, request(v), ctx);
  expect(r.success).toBe(false);
  expect(sent).toEqual([]);
  return { reason: r.errorReason, simulated };
}

describe('auth-capture lifecycle refusals (fake port)', () => {
  it('a valid capture and a valid void pass, with the escrow call they send', async () => {
    const c = fakePort(HELD);
    const cap = await settleAuthCapture(c.port, request(), mine);
    expect(cap).toMatchObject({ success: true, operation: 'capture', amount: '750000' });
    expect(c.sent).toHaveLength(1);
    const v = fakePort(HELD);
    expect(await verifyAuthCapture(v.port, request({ type: 'void' }), mine)).toMatchObject({ ok: true, op: { operation: 'void', amount: 2_000_000n } });
  });

  it('wrong operator in paymentInfo', async () => {
    expect((await refusal({ operator: PAYER })).reason).toBe(R.operatorMismatch);
  });

  it('salt not the commitment of saltNonce', async () => {
    expect((await refusal({ saltNonce: ('0x' + '08'.repeat(32)) as Hex })).reason).toBe(R.saltBindingMismatch);
  });

  it('capture after the capture deadline', async () => {
    expect((await refusal({ captureDeadline: NOW + 3 })).reason).toBe(R.captureDeadlineExpired);
  });

  it('capture of more than is held, or of nothing', async () => {
    expect((await refusal({ amount: '2000001' })).reason).toBe(R.insufficientAuthorization);
    expect((await refusal({ amount: '0' })).reason).toBe(R.insufficientAuthorization);
  });

  it('the escrow holding other amounts than the payload expected (a step replayed after another)', async () => {
    expect((await refusal({}, { collected: true, capturable: 1_250_000n, refundable: 750_000n })).reason).toBe(R.unexpectedPaymentState);
  });

  it('void with nothing held', async () => {
    expect((await refusal({ type: 'void' }, { collected: true, capturable: 0n, refundable: 0n })).reason).toBe(R.zeroAuthorization);
  });

  it('a delegated step not authenticated as the payment\'s merchant', async () => {
    expect((await refusal({}, HELD, { delegated: async () => false, nowSeconds: NOW })).reason).toBe(R.unauthenticatedAuthorizerRequest);
  });

  it('another escrow, a fee, no receiver authorizer, and refunds of a delegated operator', async () => {
    expect((await refusal({ escrow: MERCHANT })).reason).toBe(R.extra);
    expect((await refusal({ maxFeeBps: 100 })).reason).toBe(R.extra);
    expect((await refusal({ receiverAuthorizer: ZERO })).reason).toBe(R.lifecycleNotRelayed);
    expect((await refusal({ type: 'refund' })).reason).toBe(R.refundFundingUnavailable);
  });
});

describe('auth-capture refund under a funding agreement (fake port)', () => {
  const CAPTURED: PaymentState = { collected: true, capturable: 0n, refundable: 750_000n };
  const funded = { ...mine, refundFunding: async (_h: Hex, amount: bigint) => amount === 1n };

  it('sends the escrow refund through the OperatorRefundCollector with empty collector data', async () => {
    const c = fakePort(CAPTURED);
    const r = await settleAuthCapture(c.port, request({ type: 'refund' }), funded);
    expect(r).toMatchObject({ success: true, operation: 'refund', amount: '1' });
    expect(c.sent).toHaveLength(1);
    const { args, functionName } = decodeFunctionData({ abi: authCaptureEscrowAbi, data: (c.sent[0] as { data: Hex }).data });
    expect(functionName).toBe('refund');
    expect(args.slice(1)).toEqual([1n, getAddress('0x934907bffd0901b6A21e398B9C53A4A38F02fa5d'), '0x']);
  });

  it('refuses what the agreement does not cover, past the refund deadline, beyond what is refundable, on moved books', async () => {
    expect((await refusal({ type: 'refund' }, CAPTURED, { ...mine, refundFunding: async () => false })).reason).toBe(R.refundFundingUnavailable);
    expect((await refusal({ type: 'refund' }, CAPTURED, { ...funded, nowSeconds: NOW + 3600 + 86_400 })).reason).toBe(R.refundDeadlineExpired);
    expect((await refusal({ type: 'refund' }, { collected: true, capturable: 0n, refundable: 0n }, funded)).reason).toBe(R.refundExceedsCapture);
    expect((await refusal({ type: 'refund' }, { collected: true, capturable: 0n, refundable: 500_000n }, funded)).reason).toBe(R.unexpectedPaymentState);
    expect((await refusal({ type: 'refund' }, CAPTURED, { ...funded, delegated: async () => false })).reason).toBe(R.unauthenticatedAuthorizerRequest);
  });
});

describe('auth-capture service: one idempotency key per step', () => {
  async function service() {
    const store = LowdbStore.inMemory();
    const fake = fakePort(HELD);
    const quiet = { warn() {}, info() {}, error() {}, debug() {}, child() { return quiet; } };
    const svc = new AuthCaptureService({ port: fake.port, store, ids: new PaymentIdentifierLedger(store), logger: quiet as never });
    // The authorization is the merchant acct_a's (recorded when it was authorized).
    const info = PaymentInfoWire.parse((request().paymentPayload.payload as { paymentInfo: unknown }).paymentInfo);
    const now = new Date().toISOString();
    await store.write(AuthCaptures, (t) => t.insertOrGet({ id: paymentInfoHash(31337, ESCROW, info), accountId: 'acct_a', payer: PAYER, paymentInfo: {}, state: 'open', captureDeadline: now, createdAt: now, updatedAt: now }));
    return { svc, sent: fake.sent };
  }
  const withId = (req: FacilitatorRequest, id: string): FacilitatorRequest =>
    ({ ...req, paymentPayload: { ...req.paymentPayload, extensions: { 'payment-identifier': { info: { required: false, id } } } } }) as FacilitatorRequest;

  it('the same step again replays the first answer and sends nothing more', async () => {
    const { svc, sent } = await service();
    const first = await svc.settle({ accountId: 'acct_a' }, request());
    const again = await svc.settle({ accountId: 'acct_a' }, request());
    expect(first.success).toBe(true);
    expect(again).toEqual(first);
    expect(sent).toHaveLength(1);
  });

  it('a used idempotency key with another payload is a conflict; another account is refused', async () => {
    const { svc, sent } = await service();
    const id = 'pay_' + 'k'.repeat(28);
    expect((await svc.settle({ accountId: 'acct_a' }, withId(request(), id))).success).toBe(true);
    const other = await svc.settle({ accountId: 'acct_a' }, withId(request({ amount: '500000' }), id));
    expect(other).toMatchObject({ success: false, errorReason: 'payment_identifier_conflict' });
    const stranger = await svc.settle({ accountId: 'acct_b' }, request({ amount: '400000' }));
    expect(stranger).toMatchObject({ success: false, errorReason: R.unauthenticatedAuthorizerRequest });
    expect(sent).toHaveLength(1);
  });
});
