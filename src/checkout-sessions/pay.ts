/**
 * Paying a checkout session (issue 22, step 1): `pay(id, input)` finds the method `input.method`
 * names in the registry (methods/payment-methods.ts), lets its adapter turn the input into ONE
 * authorization for settlement, or a named refusal, and settles that authorization. Each way to
 * pay is one adapter file; settlement sees only an authorization and the rule it is checked by.
 */
import type { ChainService } from '../chain/chain.js';
import type { ChainPort } from '../chain/chain-port.js';
import { fail, type Fail } from '../lib/results.js';
import type { Payment } from '../payments/payments.js';
import { SettleReason, type AuthorizationResult, type AuthorizationTerms, type SettleRequest, type SettleResult } from '../settlement/settlement.js';
import type { Store } from '../store/index.js';
import type { ExactEvmPort } from '../x402/exact-evm.js';

/** What an adapter may use: the session's mode's chain and settlement (docs/test-mode.md). */
export interface PayRails {
  store: Store;
  chain: ChainPort & Pick<ChainService, 'signAsCustodial' | 'faucet'>;
  settlement: {
    /** The authorization this payment issues to `from` (typed data to sign), while it is payable. */
    authorizationFor(paymentId: string, from: `0x${string}`): Promise<AuthorizationResult>;
    /** `read`: the payment as the door read it just now; settle may use it instead of reading again. */
    settle(paymentId: string, input: SettleRequest, terms?: AuthorizationTerms, read?: Payment): Promise<SettleResult>;
    /** Where the session settles to (the deposit address sweeps there). */
    recipientFor(p: Payment): Promise<`0x${string}` | undefined>;
  };
  /** The x402 exact-EVM terms of this chain (methods/x402.ts). */
  x402Port: Pick<ExactEvmPort, 'chainId' | 'tokenAddress' | 'eip712Domain'>;
}

/** An adapter's view of the session being paid: the payment as read just now, and its rails. */
export interface PayContext extends PayRails {
  payment: Payment;
}

/** What an adapter hands settlement: one signed authorization and the rule it is checked by. */
export interface MethodAuthorization {
  ok: true;
  request: SettleRequest;
  /** How settle compares it with the authorization the payment issues; default the issued terms. */
  terms?: AuthorizationTerms;
  /**
   * Told settle's outcome (undefined: settle threw) before `pay` answers: the app wallet keeps or
   * releases the hold it took.
   */
  after?: (result: SettleResult | undefined) => Promise<void>;
  /**
   * The adapter read and wrote nothing: the session's payment as `pay` read it is still what
   * settle would read, and settle may take it instead of reading again (one read per settle).
   */
  noIo?: true;
}

/** One way to pay: its name (the `method` of its input) and the adapter. */
export interface PaymentMethod<I extends { method: string } = { method: string }, R extends string = never> {
  readonly name: I['method'];
  authorize(ctx: PayContext, input: I): Promise<MethodAuthorization | Fail<R | SettleReason>>;
}

/** Any method, whatever its input (what a registry holds). */
export interface AnyPaymentMethod {
  readonly name: string;
  authorize(ctx: PayContext, input: never): Promise<MethodAuthorization | Fail<string>>;
}

/** A settle result, or the method's named refusal (nothing was sent). */
export type PayResult<R extends string = string> = SettleResult | Fail<R | SettleReason>;

export const PayRefusal = {
  /** No method of that name is registered. */
  unknownMethod: 'unknown_method',
} as const;

/** The methods a deployment takes, by name. */
export class PaymentMethods {
  private readonly byName = new Map<string, PaymentMethod<{ method: string }, string>>();

  constructor(list: readonly AnyPaymentMethod[]) {
    for (const m of list) {
      if (this.byName.has(m.name)) throw new Error(`payment method ${m.name} registered twice`);
      this.byName.set(m.name, m as unknown as PaymentMethod<{ method: string }, string>);
    }
  }

  get(name: string): PaymentMethod<{ method: string }, string> | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

/**
 * Pays session `payment` with `input` through `methods`: the adapter's authorization is settled
 * on the session's rails; a refusal is answered as it is (nothing sent).
 */
export async function payWith(methods: PaymentMethods, rails: PayRails, payment: Payment, input: { method: string }): Promise<PayResult> {
  const method = methods.get(input.method);
  if (!method) return fail(PayRefusal.unknownMethod, `No payment method ${input.method}.`);
  const authorized = await method.authorize({ ...rails, payment }, input);
  if (!authorized.ok) return authorized;
  let result: SettleResult | undefined;
  try {
    // The session's read is handed over only when the adapter did no I/O in between (a hold or
    // another read takes longer than a read's freshness is worth).
    result = await rails.settlement.settle(payment.id, authorized.request, authorized.terms, authorized.noIo ? payment : undefined);
    return result;
  } finally {
    await authorized.after?.(result);
  }
}

/** The refusal of a session that does not exist (on this instance's chains). */
export function noSuchSession(id: string): Fail<typeof SettleReason.notFound> {
  return fail(SettleReason.notFound, `No such payment: ${id}`);
}
