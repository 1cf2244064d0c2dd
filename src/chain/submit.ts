/**
 * The one submit of token movements: one authorization as `transferWithAuthorization`
 * (verified unless the caller just did), several as `transferWithAuthorizations`, all or none
 * (submit-batch.ts encodes it; only the service's own custodial signatures are batched, so the
 * gas estimate is their one check). Then: estimate gas (the one simulation right before the
 * send), send from the relayer, retry nonce clashes. Idempotent within one process: a double
 * click shares one submit, and resubmitting the same items (keyed by the first authorization)
 * while their transaction is pending or mined returns the same txHash.
 */
import { type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { fail } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import type { TransferAuthorization } from './authorization.js';
import { isNonceError, isRevert, reasonFromRevert, revertReason } from './node-errors.js';
import { authorizationState, isKnownTransaction, type NodeClient } from './node-reads.js';
import type { SignedAuthorization } from './chain-port.js';
import { SubmitReason, type SubmitFailure, type SubmitOptions, type SubmitResult } from './chain-results.js';
import { encodeBatch } from './submit-batch.js';
import { withHeadroom, type RelayerSender, type SendError } from './relayer-sender.js';
import { encodeTransfer, type TransferVerifier } from './verify-authorization.js';

const MAX_SEND_ATTEMPTS = 3;
const SENT_CACHE_LIMIT = 10_000;

export interface SubmitContext {
  log: Logger;
  publicClient: NodeClient;
  relayer: PrivateKeyAccount;
  tokenAddress: Address;
  verifier: TransferVerifier;
  sender: RelayerSender;
}

/** The calldata to send, and its gas when a fresh verification already simulated it. */
type Prepared = { ok: true; data: Hex; gas?: bigint };

export class TransferSubmitter {
  /** In-flight submits by authorization, so a double click sends one transaction. */
  private readonly inFlight = new Map<string, Promise<SubmitResult>>();
  /** Authorizations this process sent, so a resubmit returns the same txHash. */
  private readonly sent = new Map<string, Hex>();

  constructor(private readonly ctx: SubmitContext) {}

  /** `batch`: the token has `transferWithAuthorizations` (several items need it). */
  submit(items: readonly SignedAuthorization[], opts: SubmitOptions = {}, batch = true): Promise<SubmitResult> {
    const first = items[0];
    if (!first) return Promise.resolve(fail(SubmitReason.simulationFailed, 'an empty batch moves nothing'));
    if (items.length > 1 && !batch) return Promise.resolve(fail(SubmitReason.simulationFailed, 'this token has no transferWithAuthorizations'));
    const key = `${first.auth.from.toLowerCase()}:${first.auth.nonce.toLowerCase()}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.submitOnce(key, items, opts).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async submitOnce(key: string, items: readonly SignedAuthorization[], opts: SubmitOptions): Promise<SubmitResult> {
    const { ctx } = this;
    const auth = items[0]!.auth;
    const previous = this.sent.get(key);
    if (previous) {
      // Same authorization again: report the transaction already carrying it, unless that
      // one reverted or was dropped by the node.
      const receipt = await ctx.publicClient.getTransactionReceipt({ hash: previous }).catch(() => undefined);
      if (receipt?.status === 'success') return { ok: true, txHash: previous };
      if (!receipt && (await isKnownTransaction(ctx.publicClient, previous))) return { ok: true, txHash: previous };
      this.sent.delete(key);
    }

    const prepared: Prepared | SubmitFailure =
      items.length === 1 ? await this.prepareSingle(auth, items[0]!.signature, opts.verified === true) : { ok: true, data: encodeBatch(items) };
    if (!prepared.ok) return prepared;
    const { data } = prepared;
    let gas: bigint;
    if (prepared.gas !== undefined) gas = prepared.gas;
    else {
      try {
        gas = await ctx.publicClient.estimateGas({ account: ctx.relayer, to: ctx.tokenAddress, data, prepare: false });
      } catch (e) {
        const message = revertReason(e);
        if (!isRevert(e)) return fail(SubmitReason.chainUnavailable, `the chain could not be reached: ${message}`);
        return fail(reasonFromRevert(message), `simulation failed: ${message}`);
      }
    }

    for (let attempt = 1; ; attempt++) {
      try {
        const record = opts.recordWithJournal ? { recordWithJournal: opts.recordWithJournal } : {};
        const { txHash, recorded } = await ctx.sender.sendRecorded({ to: ctx.tokenAddress, data, gas: withHeadroom(gas) }, record);
        this.remember(key, txHash);
        ctx.log.info({ txHash, from: auth.from, to: auth.to, value: auth.value.toString(), moves: items.length }, 'relayed transferWithAuthorization');
        return recorded ? { ok: true, txHash, recorded: true } : { ok: true, txHash };
      } catch (e) {
        const err = e as SendError;
        // Our own transaction may have reached the node before the error (a retried request).
        if (err.txHash && (await isKnownTransaction(ctx.publicClient, err.txHash))) {
          this.remember(key, err.txHash);
          return { ok: true, txHash: err.txHash };
        }
        if (!isNonceError(err.cause ?? e) || attempt >= MAX_SEND_ATTEMPTS) {
          const sendOutcome = err.refused ? 'refused' : 'unknown';
          // The node may still have taken it (e.g. a timeout after delivery): a resubmit of
          // this authorization first looks this hash up instead of sending blindly.
          if (err.txHash && sendOutcome === 'unknown') this.remember(key, err.txHash);
          ctx.log.error({ err: revertReason(err.cause ?? e), attempt, sendOutcome, txHash: err.txHash }, 'relayer send failed');
          const failure: SubmitFailure = {
            ...fail(SubmitReason.submitFailed, `could not submit the transaction: ${revertReason(err.cause ?? e)}`),
            sendOutcome,
          };
          if (err.txHash) failure.txHash = err.txHash;
          return failure;
        }
        // Nonce clash (another sender on this key, or a stale cache): before sending again,
        // make sure nobody has used the authorization meanwhile, so it is never sent twice.
        ctx.log.warn({ attempt, err: revertReason(err.cause ?? e) }, 'relayer nonce error; retrying');
        await new Promise((r) => setTimeout(r, 50 * attempt + Math.floor(Math.random() * 50)));
        const used = await authorizationState(ctx.publicClient, ctx.tokenAddress, auth.from, auth.nonce).catch(() => undefined);
        if (used === undefined) return fail(SubmitReason.chainUnavailable, 'the chain could not be reached');
        if (used) return fail(SubmitReason.authorizationUsed, 'this authorization was already used or canceled', 'nonce');
      }
    }
  }

  /**
   * One authorization: a verification that just passed carries its simulation (the gas
   * estimate executed the call against the latest state, at most SIMULATION_FRESH_MS ago): send
   * on it. Otherwise verify now (in full, unless the caller verified; then only which overload
   * the signature takes, a local recover) and simulate right before sending.
   */
  private async prepareSingle(
    auth: TransferAuthorization,
    signature: Hex,
    verified: boolean,
  ): Promise<Prepared | SubmitFailure> {
    const { ctx } = this;
    if (!verified) {
      const v = await ctx.verifier.verify(auth, signature);
      if (!v.ok) return v;
    }
    const fresh = ctx.verifier.takeSimulation(auth, signature);
    if (fresh) return { ok: true, data: fresh.data, gas: fresh.gas };
    const contractSigner = !(await ctx.verifier.isEoaSignature(auth, signature));
    return { ok: true, data: encodeTransfer(auth, signature, contractSigner) };
  }

  private remember(key: string, txHash: Hex): void {
    if (this.sent.size >= SENT_CACHE_LIMIT) {
      const oldest = this.sent.keys().next().value;
      if (oldest !== undefined) this.sent.delete(oldest);
    }
    this.sent.set(key, txHash);
  }
}
