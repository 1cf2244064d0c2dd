/**
 * Refunds of manual-capture payments (x402 auth-capture, docs/refunds.md "Manual-capture
 * payments"). The captured money was paid by the escrow to the merchant's settlement wallet; the
 * binding's refund sends it back through the escrow, pulled from the operator (our relayer) by the
 * OperatorRefundCollector. Our funding agreement: the merchant's wallet funds the operator first,
 * with exactly the refund, once (EIP-3009 nonce of the refund id, the same custodial mover as every
 * refund); only a funded refund is sent to the escrow (src/x402/auth-capture/escrow-refunds.ts), so a
 * refund never spends the service's money. Funding that the escrow then refuses for good (the
 * refund deadline passed meanwhile) goes back to the wallet before the refund is `failed`.
 */
import { randomBytes } from 'node:crypto';
import type { Address, Hex } from 'viem';
import type { Store } from '../store/index.js';
import { nowIso } from '../lib/ids.js';
import type { ChainPort } from '../chain/chain-port.js';
import type { RelayAttempts } from '../chain/owned-relay.js';
import { moveOnce, type MoveOutcome } from '../wallet/custodial-move.js';
import { Refunds, REFUND_NONCE_KIND, type EscrowRefundState, type Refund } from './model.js';

/** How long before the escrow's refund deadline a new refund is still accepted: room for funding, approval and the refund. */
export const REFUND_DEADLINE_ROOM_MS = 120_000;

/**
 * The operator's collector allowance is one number per operator, so one escrow refund at a time
 * per operator across every instance on the store (the escrow port serialises within a process).
 * Held for at most OPERATOR_LEASE_MS past its last renewal: a killed holder blocks the others
 * only that long.
 */
const OPERATOR_LEASE_MS = 60_000;
/** How long a refund waits for another instance's escrow refund before leaving it to the reconciler. */
const OPERATOR_WAIT_MS = 15_000;

async function withOperatorLease<R, B>(store: Store, operator: Address, busy: B, fn: () => Promise<R>): Promise<R | B> {
  const name = `escrow-refund:${operator.toLowerCase()}`;
  const owner = `${process.pid}:${randomBytes(6).toString('hex')}`;
  const deadline = Date.now() + OPERATOR_WAIT_MS;
  while (!(await store.lease(name, owner, OPERATOR_LEASE_MS))) {
    if (Date.now() > deadline) return busy;
    await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 50)));
  }
  const renew = setInterval(() => void store.lease(name, owner, OPERATOR_LEASE_MS).catch(() => undefined), OPERATOR_LEASE_MS / 3);
  renew.unref();
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    await store.releaseLease(name, owner).catch(() => undefined);
  }
}

/** The escrow side, implemented by src/x402/auth-capture/escrow-refunds.ts (a port: refunds does not import x402). */
export interface EscrowRefundPort {
  readonly operator: Address;
  terms(hash: string): Promise<{ capturable: bigint; refundable: bigint; refundExpiry: number; payer: Address } | undefined>;
  refund(
    a: { accountId: string; paymentId: string; hash: string; amount: bigint },
    prev: { snapshot?: { capturable: string; refundable: string }; txHash?: string },
    save: (p: { snapshot?: { capturable: string; refundable: string }; txHash?: string }) => Promise<void>,
  ): Promise<
    | { status: 'succeeded'; txHash?: Hex }
    | { status: 'pending'; txHash?: Hex; message: string }
    | { status: 'refused'; permanent: boolean; reason: string; message: string }
  >;
  returnFunding(to: Address, amount: bigint, prevTx: string | undefined, save: (txHash: string) => Promise<void>): Promise<{ status: 'succeeded' | 'pending'; txHash?: Hex; message?: string }>;
}

export interface EscrowRefundDeps {
  store: Store;
  chain: ChainPort;
  escrow: EscrowRefundPort;
  confirmTimeoutMs?: number;
  attempts?: RelayAttempts;
}

/** One pass over a pending escrow refund: fund, refund, or give the funding back; safe to repeat. */
export async function executeEscrowRefund(d: EscrowRefundDeps, r: Refund): Promise<MoveOutcome> {
  let state = r.escrow!;
  const save = async (patch: Partial<EscrowRefundState>) => {
    state = { ...state, ...patch };
    await d.store.write(Refunds, (t) => t.update(r.id, { escrow: state, updatedAt: nowIso() }, { status: 'pending' }));
  };
  const value = BigInt(r.stablecoinAmount);
  if (!state.fundedTx) {
    // The merchant's money to the operator, exactly once (the nonce is the refund's).
    const funded = await moveOnce(d.chain, { fromIndex: r.fromIndex, to: d.escrow.operator, value, kind: REFUND_NONCE_KIND, id: r.id }, d.confirmTimeoutMs, d.attempts);
    if (funded.status !== 'settled') return funded;
    await save({ fundedTx: funded.txHash });
  }
  if (!state.returning) {
    const busy: { status: 'pending'; txHash?: Hex; message: string } = { status: 'pending', message: 'another escrow refund through the same operator is in progress; the reconciler tries again' };
    const out = await withOperatorLease(d.store, d.escrow.operator, busy, () =>
      d.escrow.refund({ accountId: r.accountId, paymentId: r.paymentId, hash: state.hash, amount: value }, state, (p) => save(p)),
    );
    if (out.status === 'succeeded') return { status: 'settled', txHash: (out.txHash ?? state.txHash ?? state.fundedTx) as Hex };
    if (out.status === 'pending') return { status: 'pending', ...(out.txHash ? { txHash: out.txHash } : {}), message: out.message };
    if (!out.permanent) return { status: 'pending', message: `the escrow refused this attempt (${out.reason}: ${out.message}); the reconciler tries again` };
    await save({ returning: `${out.reason}: ${out.message}` });
  }
  // Refused for good after the funding moved: the funding goes back to the settlement wallet.
  const back = await d.escrow.returnFunding(r.from as Address, value, state.returnTx, (txHash) => save({ returnTx: txHash }));
  if (back.status !== 'succeeded') return { status: 'pending', ...(back.txHash ? { txHash: back.txHash } : {}), message: back.message ?? 'the funding is on its way back' };
  return { status: 'failed', reason: 'rejected', message: `the escrow refused the refund (${state.returning}); the ${r.stablecoinAmount} base units funded went back to ${r.from} (${back.txHash})` };
}
