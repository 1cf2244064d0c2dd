/**
 * The x402 `exact` scheme on EVM with the EIP-3009 transfer method, as two functions over a
 * small slice of the chain port: `verifyExact` answers a VerifyResponse, `settleExact`
 * re-verifies, relays the authorization through the one relay path (`relayOnce`, our relayer
 * pays the gas, the receipt awaited) and answers one final SettleResponse. `success: true` only
 * with a mined, successful receipt of the transaction this settle sent.
 *
 * Checks, in order (the spec's exact-EVM list, with coinbase/x402's facilitator order): version,
 * scheme, network, asset and token domain, payload shape, recipient, validity window, exact
 * amount; then the chain: signature recovers to `from` (ERC-1271 too), nonce unused, balance,
 * and a simulation of transferWithAuthorization.
 */
import { getAddress, isAddress, isAddressEqual, type Address, type Hex } from 'viem';
import type { TransferAuthorization } from '../chain/authorization.js';
import type { ChainPort } from '../chain/chain-port.js';
import { relayOnce, type RelayChain, type RelayOutcome } from '../chain/relay.js';
import type { JournalOwner } from '../chain/relay-journal.js';
import type { BroadcastFence } from '../chain/chain-results.js';
import type { RelayFailure, VerifyReason } from '../lib/payment-reasons.js';
import { X402Reason } from './x402-reasons.js';
import { ExactEvmPayload, type FacilitatorRequest, type SettleResponse, type VerifyResponse } from './x402-schemas.js';

export const X402_VERSION = 2;
export const EXACT_SCHEME = 'exact';
// As coinbase's facilitator: an authorization expiring within 6 s cannot be mined in time.
const EXPIRY_MARGIN_SECONDS = 6n;
// An authorization is used within its window, and x402 windows are minutes long: look back a day.
const LOOKBACK_MS = 86_400_000;

/** What the scheme needs of the chain port (ChainService provides it; tests fake it). */
export type ExactEvmPort = Pick<ChainPort, 'chainId' | 'tokenAddress' | 'eip712Domain' | 'relayerAddress' | 'verifyTransferAuthorization' | 'gasCost'> & RelayChain;

export function networkOf(port: Pick<ExactEvmPort, 'chainId'>): `eip155:${number}` {
  return `eip155:${port.chainId}`;
}

/** A payment that passed every check: what settle relays. */
export interface VerifiedPayment {
  auth: TransferAuthorization;
  signature: Hex;
  payer: Address;
}

export type VerifyOutcome = ({ isValid: true; payer: Address } & { payment: VerifiedPayment }) | (VerifyResponse & { isValid: false });

function invalid(invalidReason: X402Reason, invalidMessage: string, payer?: string): VerifyOutcome {
  return payer ? { isValid: false, invalidReason, invalidMessage, payer } : { isValid: false, invalidReason, invalidMessage };
}

/** The checks that need no chain. */
export function checkExact(
  port: Pick<ExactEvmPort, 'chainId' | 'tokenAddress' | 'eip712Domain'>,
  req: FacilitatorRequest,
  nowSeconds = BigInt(Math.floor(Date.now() / 1000)),
): VerifyOutcome {
  const { paymentPayload: pp, paymentRequirements: pr } = req;
  const rawFrom = (pp.payload as { authorization?: { from?: unknown } }).authorization?.from;
  const claimedPayer = typeof rawFrom === 'string' && isAddress(rawFrom, { strict: false }) ? getAddress(rawFrom.toLowerCase()) : undefined;

  if (pp.x402Version !== X402_VERSION || (req.x402Version !== undefined && req.x402Version !== X402_VERSION)) {
    return invalid(X402Reason.invalidX402Version, `only x402Version ${X402_VERSION} is supported`, claimedPayer);
  }
  if (pr.scheme !== EXACT_SCHEME) return invalid(X402Reason.unsupportedScheme, `scheme "${pr.scheme}" is not supported; use "exact"`, claimedPayer);
  if (pp.accepted.scheme !== pr.scheme) return invalid(X402Reason.invalidScheme, 'the payload was made for another scheme', claimedPayer);
  const network = networkOf(port);
  if (pr.network !== network) return invalid(X402Reason.invalidNetwork, `network ${pr.network} is not supported; this facilitator settles on ${network}`, claimedPayer);
  if (pp.accepted.network !== pr.network) return invalid(X402Reason.networkMismatch, 'the payload was made for another network', claimedPayer);
  if (!isAddress(pr.asset, { strict: false }) || !isAddressEqual(pr.asset as Address, port.tokenAddress)) {
    return invalid(X402Reason.invalidPaymentRequirements, `asset must be the stablecoin ${port.tokenAddress}`, claimedPayer);
  }
  const extra = pr.extra ?? {};
  if (extra.name !== undefined && extra.name !== port.eip712Domain.name) {
    return invalid(X402Reason.tokenNameMismatch, `extra.name must be "${port.eip712Domain.name}"`, claimedPayer);
  }
  if (extra.version !== undefined && extra.version !== port.eip712Domain.version) {
    return invalid(X402Reason.tokenVersionMismatch, `extra.version must be "${port.eip712Domain.version}"`, claimedPayer);
  }
  if (!isAddress(pr.payTo, { strict: false })) return invalid(X402Reason.invalidPaymentRequirements, 'payTo must be a 0x address', claimedPayer);

  const parsed = ExactEvmPayload.safeParse(pp.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(X402Reason.invalidPayload, `payload.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, claimedPayer);
  }
  const { authorization: auth, signature } = parsed.data;
  const payer = auth.from;
  if (!isAddressEqual(auth.to, pr.payTo as Address)) return invalid(X402Reason.recipientMismatch, 'authorization.to is not payTo', payer);
  if (auth.validBefore < nowSeconds + EXPIRY_MARGIN_SECONDS) return invalid(X402Reason.validBefore, 'the authorization has expired (validBefore)', payer);
  if (auth.validAfter > nowSeconds) return invalid(X402Reason.validAfter, 'the authorization is not valid yet (validAfter)', payer);
  if (auth.value !== BigInt(pr.amount)) {
    return invalid(X402Reason.value, `authorization.value must be exactly ${pr.amount}`, payer);
  }
  return { isValid: true, payer, payment: { auth, signature, payer } };
}

/** x402's name for a chain verification failure. */
const CHAIN_REASON: Record<VerifyReason, X402Reason> = {
  invalid_signature: X402Reason.signature,
  authorization_used: X402Reason.nonceAlreadyUsed,
  insufficient_balance: X402Reason.insufficientFunds,
  not_yet_valid: X402Reason.validAfter,
  expired: X402Reason.validBefore,
  simulation_failed: X402Reason.simulationFailed,
  chain_unavailable: X402Reason.unexpectedVerifyError,
};

/** Every check, the chain's included (signature, nonce, balance, simulation). */
export async function verifyExact(port: ExactEvmPort, req: FacilitatorRequest): Promise<VerifyOutcome> {
  const local = checkExact(port, req);
  if (!local.isValid) return local;
  const { auth, signature, payer } = local.payment;
  const chain = await port.verifyTransferAuthorization(auth, signature);
  if (!chain.ok) return invalid(CHAIN_REASON[chain.reason], chain.message, payer);
  return local;
}

/** The public form of a verify outcome. */
export function verifyResponse(v: VerifyOutcome): VerifyResponse {
  if (v.isValid) return { isValid: true, payer: v.payer };
  const { isValid, invalidReason, invalidMessage, payer } = v;
  return payer ? { isValid, invalidReason, invalidMessage, payer } : { isValid, invalidReason, invalidMessage };
}

export interface SettleOptions {
  /** How long to wait for the receipt before answering `settlement_pending`. */
  receiptTimeoutMs?: number;
  /** Called once the transfer is mined successfully (gas accounting). */
  onSettled?: (s: { payment: VerifiedPayment; txHash: Hex; network: string }) => Promise<void>;
  /** The settle attempt the transaction carries, journaled with it (a replay asks it first: relay-journal-recovery.ts). */
  journalOwner?: JournalOwner;
  /** The settle attempt's broadcast fence (owned-relay.ts): closed, nothing is sent and the answer is `settlement_pending`. */
  fence?: BroadcastFence;
}

/** A settle failure naming the transaction that already used this authorization, when there is one. */
async function alreadyUsed(port: ExactEvmPort, p: VerifiedPayment, network: string, knownTx?: Hex): Promise<SettleResponse> {
  const tx = await port
    .findAuthorizationTx(p.auth.from, p.auth.nonce, { since: new Date(Date.now() - LOOKBACK_MS), ...(knownTx ? { txHash: knownTx } : {}) })
    .catch(() => undefined);
  return {
    success: false,
    errorReason: X402Reason.nonceAlreadyUsed,
    errorMessage: 'this authorization was already used on-chain',
    payer: p.payer,
    transaction: tx ?? '',
    network,
  };
}

/** x402's name for a relay that moved nothing (the spec's, or coinbase's where the spec names none). */
const RELAY_FAILURE: Record<RelayFailure, X402Reason> = {
  invalid_signature: X402Reason.signature,
  insufficient_balance: X402Reason.insufficientFunds,
  not_yet_valid: X402Reason.validAfter,
  expired: X402Reason.validBefore,
  simulation_failed: X402Reason.simulationFailed,
  reverted: X402Reason.transactionFailed,
  rejected: X402Reason.unexpectedSettleError,
};

/**
 * Re-verifies in full, then relays through the one relay path (gas paid by the relayer) and
 * waits for the receipt. The chain layer returns the same hash when the same authorization is
 * submitted again while pending, and the token contract accepts each (from, nonce) once: one
 * authorization is at most one transfer. Money moved by a transaction this settle did not send
 * (an earlier settle of the same payload) answers `nonce_already_used` with that transaction.
 */
export async function settleExact(port: ExactEvmPort, req: FacilitatorRequest, opts: SettleOptions = {}): Promise<SettleResponse> {
  const network = networkOf(port);
  const v = await verifyExact(port, req);
  if (!v.isValid) {
    if (v.invalidReason === X402Reason.nonceAlreadyUsed && v.payer) {
      const local = checkExact(port, req);
      if (local.isValid) return alreadyUsed(port, local.payment, network);
    }
    const reason = v.invalidReason === X402Reason.unexpectedVerifyError ? X402Reason.unexpectedSettleError : v.invalidReason!;
    return { success: false, errorReason: reason, errorMessage: v.invalidMessage, ...(v.payer ? { payer: v.payer } : {}), transaction: '', network };
  }
  const p = v.payment;
  const ours = new Set<string>();
  const relayed = await relayOnce(port, p.auth, p.signature, {
    verified: true,
    ...(opts.receiptTimeoutMs !== undefined ? { timeoutMs: opts.receiptTimeoutMs } : {}),
    since: new Date(Date.now() - LOOKBACK_MS),
    ...(opts.journalOwner ? { journalOwner: opts.journalOwner } : {}),
    ...(opts.fence ? { fence: opts.fence } : {}),
    // Which transaction is this settle's (an earlier one's answers nonce_already_used); in memory, never graced.
    onTxHash: (txHash) => void ours.add(txHash.toLowerCase()),
  });
  return settleResponse(port, p, network, relayed, ours, opts);
}

/** The one relay outcome in x402's words. */
async function settleResponse(
  port: ExactEvmPort,
  p: VerifiedPayment,
  network: string,
  relayed: RelayOutcome,
  ours: ReadonlySet<string>,
  opts: SettleOptions,
): Promise<SettleResponse> {
  switch (relayed.status) {
    case 'settled':
      if (!ours.has(relayed.txHash.toLowerCase())) return alreadyUsed(port, p, network, relayed.txHash);
      await opts.onSettled?.({ payment: p, txHash: relayed.txHash, network });
      return { success: true, payer: p.payer, transaction: relayed.txHash, network };
    case 'pending':
      if (relayed.fenced) {
        // This owner's window closed before its broadcast: it sent nothing, and the attempt may
        // be another instance's now; the same payload again reads its outcome.
        return {
          success: false,
          errorReason: X402Reason.settlementPending,
          errorMessage: 'not sent from here: the settle may be finishing on another instance; settle the same payload again to read the outcome',
          payer: p.payer,
          transaction: '',
          network,
        };
      }
      if (!relayed.txHash) {
        return { success: false, errorReason: X402Reason.unexpectedSettleError, errorMessage: relayed.message, payer: p.payer, transaction: '', network };
      }
      return {
        success: false,
        errorReason: X402Reason.settlementPending,
        errorMessage: 'sent, but not mined within the wait; settle the same payload again to read the outcome',
        payer: p.payer,
        transaction: relayed.txHash,
        network,
      };
    case 'failed':
      // The payer's balance was spent between our checks and inclusion (relayOnce read the chain
      // again after the revert: authorization unused, balance below the amount). Nothing moved and
      // the authorization can still be used, so this is the spec's `insufficient_funds`, as a
      // refusal before sending is, and not a failed transaction: the hosted checkout reopens the
      // payment with 402 insufficient_balance for the same cause (docs/x402.md, "A revert for a
      // spent balance"). `transaction` is empty, as the spec has it for a failed settlement.
      if (relayed.spent) {
        return {
          success: false,
          errorReason: X402Reason.insufficientFunds,
          errorMessage: `the payer's balance was spent before the transfer was mined${relayed.txHash ? ` (${relayed.txHash} reverted)` : ''}; nothing moved and the authorization is unused: settle the same payload again once the wallet holds the amount`,
          payer: p.payer,
          transaction: '',
          network,
        };
      }
      return {
        success: false,
        errorReason: RELAY_FAILURE[relayed.reason],
        errorMessage: relayed.reason === 'reverted' ? 'the transaction reverted' : relayed.message,
        payer: p.payer,
        transaction: relayed.txHash ?? '',
        network,
      };
  }
}
