/**
 * The x402 facilitator service: `supported`, `verify` and `settle` for a merchant account, over
 * the exact-EVM scheme functions. It adds what the pure functions cannot hold:
 * - one settle per authorization at a time: concurrent settles of the same (payer, nonce) join
 *   the first and get its answer (one transfer, one transaction hash for every caller), within
 *   this process and across instances: the attempt is a durable row (settlement/attempts.ts), a
 *   second instance waits for its final answer, and takes it over only once its owner is gone
 *   and its deadline passed (issue 21);
 * - the gas each merchant's settles cost our relayer, recorded per settlement and summed.
 */
import type { Hex } from 'viem';
import { attemptId, type AttemptLedger, type SettlementAttempt } from '../settlement/attempts.js';
import { broadcastFence } from '../chain/owned-relay.js';
import { defineTable, type Row, type Store } from '../store/index.js';
import { newId, nowIso } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { EXACT_SCHEME, X402_VERSION, checkExact, networkOf, settleExact, verifyExact, verifyResponse, type ExactEvmPort, type VerifiedPayment } from './exact-evm.js';
import type { FacilitatorRequest, SettleResponse, SupportedResponse, VerifyResponse, X402Usage } from './x402-schemas.js';
import { PAYMENT_IDENTIFIER, PaymentIdentifierLedger, fingerprintOf, paymentIdentifierOf } from './payment-identifier.js';
import { X402Reason } from './x402-reasons.js';
import { AUTH_CAPTURE_SCHEME } from './auth-capture/checks.js';
import { AuthCaptureService } from './auth-capture/auth-capture-service.js';
import type { AuthCapturePort } from './auth-capture/scheme.js';

export interface X402Settlement extends Row {
  id: string;
  accountId: string;
  network: string;
  payer: string;
  payTo: string;
  /** Atomic units, decimal string. */
  amount: string;
  nonce: string;
  txHash: string;
  /** Decimal strings (bigints). */
  gasUsed: string;
  gasCostWei: string;
  createdAt: string;
}

export const X402Settlements = defineTable<X402Settlement>({
  name: 'x402_settlements',
  unique: [['txHash']],
  indexes: ['accountId'],
});

export interface FacilitatorOptions {
  port: ExactEvmPort;
  store: Store;
  logger: Logger;
  receiptTimeoutMs?: number;
  /** Settle attempts shared by the instances on one store; without it, joins stay within this process. */
  ledger?: AttemptLedger;
  /** The `auth-capture` scheme's port, when the chain has the escrow (src/x402/auth-capture). */
  authCapturePort?: AuthCapturePort;
  /** Fault injection for the auth-capture kill -9 test (NODE_ENV=test only). */
  authCaptureCrashAt?: (step: string) => void;
  /** With a chain per mode: the mode whose chain this facilitator settles on (docs/test-mode.md). */
  livemode?: boolean;
}

/** Another instance is still settling this payload: the x402 "pending" answer, with its transaction when known. */
function pendingAnswer(payer: string, network: string, txHash?: string): SettleResponse {
  return {
    success: false,
    errorReason: X402Reason.settlementPending,
    errorMessage: 'another instance is settling this payload; settle the same payload again to read the outcome',
    payer,
    transaction: txHash ?? '',
    network,
  };
}

/**
 * How long a joined settle looks for the receipt of the attempt's transaction. The look is one
 * read of the node, answered at once when the transaction is mined; a bound of 1 ms raced that
 * read and, on a loaded machine, lost it: the same payload settled again was answered
 * `settlement_pending` for a transaction already mined, again and again.
 */
export const RECEIPT_LOOK_MS = 2_000;

/** Whether `txHash` is mined and succeeded, by the node's answer (a bounded look, not a wait for mining). */
export async function minedOnChain(port: Pick<ExactEvmPort, 'waitForReceipt'>, txHash: Hex): Promise<boolean> {
  return (await port.waitForReceipt(txHash, RECEIPT_LOOK_MS)).status === 'success';
}

export class Facilitator {
  private readonly inflight = new Map<string, Promise<SettleResponse>>();
  /** The payment-identifier ledger (also used by sessions' x402_url, with their own scope). */
  readonly ids: PaymentIdentifierLedger;
  /** The `auth-capture` scheme (also used by manual-capture checkout sessions), when the chain has the escrow. */
  readonly authCapture: AuthCaptureService | undefined;

  constructor(private readonly o: FacilitatorOptions) {
    this.ids = new PaymentIdentifierLedger(o.store);
    this.authCapture = o.authCapturePort
      ? new AuthCaptureService({ port: o.authCapturePort, store: o.store, ids: this.ids, logger: o.logger, receiptTimeoutMs: o.receiptTimeoutMs, ...(o.authCaptureCrashAt ? { crashAt: o.authCaptureCrashAt } : {}), ...(o.livemode !== undefined ? { livemode: o.livemode } : {}) })
      : undefined;
  }

  get network(): string {
    return networkOf(this.o.port);
  }

  supported(): SupportedResponse {
    const d = this.o.port.eip712Domain;
    return {
      kinds: [
        {
          x402Version: X402_VERSION,
          scheme: EXACT_SCHEME,
          network: this.network,
          // Not required by the spec; tells a resource server which asset and domain we settle.
          extra: { asset: this.o.port.tokenAddress, name: d.name, version: d.version, assetTransferMethod: 'eip3009' },
        },
        ...(this.authCapture ? [this.authCapture.supportedKind()] : []),
      ],
      extensions: [PAYMENT_IDENTIFIER],
      signers: { 'eip155:*': [this.o.port.relayerAddress] },
    };
  }

  /**
   * Verifies for `accountId`. With a payment identifier: used by this payer with another payload,
   * refused; this very payload settled under it already, valid (its retry gets the first result).
   */
  async verify(accountId: string, req: FacilitatorRequest): Promise<VerifyResponse> {
    if (req.paymentRequirements.scheme === AUTH_CAPTURE_SCHEME && this.authCapture) return this.authCapture.verify({ accountId }, req);
    const pid = paymentIdentifierOf(req.paymentPayload);
    if (pid.invalid) return { isValid: false, invalidReason: X402Reason.invalidPaymentIdentifier, invalidMessage: pid.invalid };
    const local = checkExact(this.o.port, req);
    if (pid.id && local.isValid) {
      const key = { scope: `acct:${accountId}`, payer: local.payment.auth.from, id: pid.id };
      const seen = await this.ids.peek<SettleResponse>(key, fingerprintOf(req.paymentPayload));
      if (seen === 'conflict') {
        return { isValid: false, invalidReason: X402Reason.paymentIdentifierConflict, invalidMessage: 'This payment identifier was used with another payment payload.', payer: local.payment.auth.from };
      }
      // Settled already under this identifier: valid, and its settle will answer the first result.
      if (seen !== 'none') return { isValid: true, payer: local.payment.auth.from };
    }
    return verifyResponse(await verifyExact(this.o.port, req));
  }

  /**
   * Settles for `accountId` (whose gas the settlement is booked to). With a payment identifier,
   * the same payload again gets the first successful answer, another payload a conflict.
   */
  async settle(accountId: string, req: FacilitatorRequest): Promise<SettleResponse> {
    if (req.paymentRequirements.scheme === AUTH_CAPTURE_SCHEME && this.authCapture) return this.authCapture.settle({ accountId }, req);
    const pid = paymentIdentifierOf(req.paymentPayload);
    if (pid.invalid) return { success: false, errorReason: X402Reason.invalidPaymentIdentifier, errorMessage: pid.invalid, transaction: '', network: this.network };
    const local = checkExact(this.o.port, req);
    if (!local.isValid) return settleExact(this.o.port, req); // answers the same failure, sends nothing
    if (!pid.id) return this.settleJoined(accountId, req, local.payment);
    const payer = local.payment.auth.from;
    const r = await this.ids.run({ scope: `acct:${accountId}`, payer, id: pid.id }, fingerprintOf(req.paymentPayload), async () => {
      const value = await this.settleJoined(accountId, req, local.payment);
      return { value, final: value.success };
    });
    if (r.kind === 'conflict') {
      return { success: false, errorReason: X402Reason.paymentIdentifierConflict, errorMessage: 'This payment identifier was used with another payment payload.', payer, transaction: '', network: this.network };
    }
    return r.value;
  }

  /** Concurrent settles of one authorization in this process share the first one's answer. */
  private settleJoined(accountId: string, req: FacilitatorRequest, payment: VerifiedPayment): Promise<SettleResponse> {
    const key = `${payment.auth.from.toLowerCase()}:${payment.auth.nonce}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const run = this.settleOnce(accountId, req, payment).finally(() => {
      if (this.inflight.get(key) === run) this.inflight.delete(key);
    });
    this.inflight.set(key, run);
    return run;
  }

  private relay(accountId: string, req: FacilitatorRequest, a?: SettlementAttempt): Promise<SettleResponse> {
    return settleExact(this.o.port, req, {
      receiptTimeoutMs: this.o.receiptTimeoutMs,
      // The attempt's broadcast fence (owned-relay.ts): sent only while the attempt is this
      // generation's and inside its window on the store's clock; it names the attempt in the journal.
      ...(a && this.o.ledger ? { fence: broadcastFence(this.o.ledger, a) } : {}),
      onSettled: ({ payment, txHash, network }) => this.record(accountId, network, payment.auth, txHash),
    });
  }

  /** One attempt per authorization across instances: run it here, or wait for the instance running it. */
  private async settleOnce(accountId: string, req: FacilitatorRequest, p: VerifiedPayment): Promise<SettleResponse> {
    const ledger = this.o.ledger;
    if (!ledger) return this.relay(accountId, req);
    const id = attemptId('x402', p.auth.from, p.auth.nonce);
    // Joins are for callers that overlap the attempt: once it has ended, the same payload again is
    // a replay and gets what the chain says ("nonce already used", naming the transaction), as
    // within one process.
    // The deadline is written in the store's time (measured once a minute, beside the settle).
    await ledger.freshOffset();
    const mine = await this.o.store.transaction((tx) =>
      ledger.open(tx, {
        kind: 'x402',
        subject: accountId,
        payer: p.auth.from,
        nonce: p.auth.nonce,
        validBefore: p.auth.validBefore,
        authorization: Object.fromEntries(Object.entries(p.auth).map(([k, v]) => [k, String(v)])),
        signature: p.signature,
      }),
    );
    if (mine) return this.runAttempt(mine, accountId, req);
    // Another instance runs it: its answer is ours, as within one process.
    const timeoutMs = this.o.receiptTimeoutMs ?? 60_000;
    const running = new Set(this.inflight.keys());
    const mined = async (a: SettlementAttempt) => a.txHash !== undefined && (await minedOnChain(this.o.port, a.txHash as Hex));
    const a = await ledger.waitFor(
      id,
      timeoutMs,
      async (a) => !a || a.state === 'done' || (await mined(a)) || !(await ledger.busy(a, () => running.has(id))),
      250,
    );
    if (a?.state === 'done' && a.answer?.body) return a.answer.body as SettleResponse;
    if (a && (await mined(a))) {
      // Its transaction landed while its runner is gone or slow: that is the answer.
      const r: SettleResponse = { success: true, payer: p.payer, transaction: a.txHash!, network: this.network };
      await this.record(accountId, this.network, p.auth, a.txHash as Hex);
      await ledger.close(a.id, { ok: true, body: r, txHash: a.txHash! }).catch(() => undefined);
      return r;
    }
    if (a && !(await ledger.busy(a, () => false))) {
      // Past the deadline on the store's clock only (as checkout's take-over; docs/x402.md).
      const taken = await ledger.takeOver(a, { pastDeadline: true });
      if (taken) {
        this.o.logger.warn({ attempt: id, from: a.instanceId }, 'x402 settle attempt of an instance that is gone: finishing it here');
        return this.runAttempt(taken, accountId, req, true);
      }
    }
    return pendingAnswer(p.payer, this.network, a?.txHash);
  }

  private async runAttempt(a: SettlementAttempt, accountId: string, req: FacilitatorRequest, takenOver = false): Promise<SettleResponse> {
    const ledger = this.o.ledger!;
    let r = await this.relay(accountId, req, a);
    // Taken over from a gone instance whose transaction landed: that transfer is this attempt's.
    if (!r.success && takenOver && r.errorReason === X402Reason.nonceAlreadyUsed && r.transaction) {
      r = { success: true, payer: r.payer, transaction: r.transaction, network: r.network };
      await this.record(accountId, r.network, { from: a.authorization.from!, to: a.authorization.to!, value: BigInt(a.authorization.value!), nonce: a.nonce }, r.transaction as Hex);
    }
    if (r.transaction) await ledger.sent(a.id, a.generation, r.transaction).catch(() => undefined);
    // Still on its way: the attempt stays open for the next settle of the same payload.
    if (!r.success && r.errorReason === X402Reason.settlementPending) return r;
    await ledger.close(a.id, { ok: r.success, body: r, ...(r.transaction ? { txHash: r.transaction } : {}) }).catch((err: unknown) =>
      this.o.logger.warn({ err, attempt: a.id }, 'x402 settle attempt not closed'),
    );
    return r;
  }

  private async record(accountId: string, network: string, auth: { from: string; to: string; value: bigint; nonce: string }, txHash: Hex): Promise<void> {
    const gas = await this.o.port.gasCost(txHash);
    try {
      await this.o.store.write(X402Settlements, (t) =>
        t.insert({
          id: newId('x402s'),
          accountId,
          network,
          payer: auth.from,
          payTo: auth.to,
          amount: auth.value.toString(),
          nonce: auth.nonce,
          txHash,
          gasUsed: (gas?.gasUsed ?? 0n).toString(),
          gasCostWei: (gas?.costWei ?? 0n).toString(),
          createdAt: nowIso(),
        }),
      );
    } catch (err) {
      // Recorded already (unique txHash) or the store failed: the money moved either way.
      this.o.logger.warn({ err, txHash }, 'x402 settlement not recorded');
    }
  }

  /** Gas our relayer spent on this account's settles. */
  async usage(accountId: string, recent = 20): Promise<X402Usage> {
    const rows = await this.o.store.table(X402Settlements).findMany({ accountId }, { order: 'desc' });
    let gasUsed = 0n;
    let cost = 0n;
    for (const r of rows) {
      gasUsed += BigInt(r.gasUsed);
      cost += BigInt(r.gasCostWei);
    }
    return {
      object: 'x402_usage',
      network: this.network,
      settlements: rows.length,
      gas_used: gasUsed.toString(),
      gas_cost_wei: cost.toString(),
      recent: rows.slice(0, recent).map((r) => ({
        id: r.id,
        transaction: r.txHash,
        payer: r.payer,
        pay_to: r.payTo,
        amount: r.amount,
        gas_used: r.gasUsed,
        gas_cost_wei: r.gasCostWei,
        created_at: r.createdAt,
      })),
    };
  }
}
