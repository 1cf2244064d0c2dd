/**
 * Several EIP-3009 transfer authorizations in one transaction, all or none, through the
 * token's `transferWithAuthorizations` (contracts/Stablecoin.sol; USDC has no such function).
 * An agent transfer and its fee are one on-chain move this way (issue 23, point 3).
 *
 * Each authorization is an ordinary TransferWithAuthorization with its own nonce, so a
 * batch is found on chain exactly as a single move is (the AuthorizationUsed log of any of its
 * nonces), and a resend of the same batch can never pay twice: the token refuses a used nonce,
 * and one refused authorization reverts the whole batch.
 *
 * Only the service's own custodial signatures are batched, so there is no separate verification
 * step: the gas estimate executes the batch against the latest state (the one simulation), and a
 * revert maps to the same reasons as a single authorization's.
 */
import { encodeFunctionData, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { fail } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import type { TransferAuthorization } from './authorization.js';
import { isNonceError, isRevert, reasonFromRevert, revertReason } from './errors.js';
import { authorizationState, isKnownTransaction, type NodeClient } from './node-reads.js';
import { SubmitReason, type SubmitFailure, type SubmitOptions, type SubmitResult } from './results.js';
import { withHeadroom, type RelayerSender, type SendError } from './sender.js';

const MAX_SEND_ATTEMPTS = 3;
const SENT_CACHE_LIMIT = 10_000;

export interface SignedAuthorization {
  auth: TransferAuthorization;
  signature: Hex;
}

export interface BatchSubmitContext {
  log: Logger;
  publicClient: NodeClient;
  relayer: PrivateKeyAccount;
  tokenAddress: Address;
  sender: RelayerSender;
}

/** The calldata of `transferWithAuthorizations(items)` (packed signatures, EOA or ERC-1271 alike). */
export function encodeBatch(items: readonly SignedAuthorization[]): Hex {
  return encodeFunctionData({
    abi: stablecoinAbi,
    functionName: 'transferWithAuthorizations',
    args: [
      items.map(({ auth, signature }) => ({
        from: auth.from,
        to: auth.to,
        value: auth.value,
        validAfter: auth.validAfter,
        validBefore: auth.validBefore,
        nonce: auth.nonce,
        signature,
      })),
    ],
  });
}

/**
 * True when the token at `tokenAddress` has `transferWithAuthorizations`: an empty batch
 * executes (and moves nothing); a token without it (USDC, or a stablecoin deployed before the
 * function existed) reverts. Throws when the node cannot be asked.
 */
export async function supportsBatchTransfers(client: NodeClient, tokenAddress: Address, caller: Address): Promise<boolean> {
  try {
    await client.call({ account: caller, to: tokenAddress, data: encodeBatch([]) });
    return true;
  } catch (e) {
    if (isRevert(e)) return false;
    throw e;
  }
}

export class BatchSubmitter {
  /** In-flight submits by their first authorization, so a double call sends one transaction. */
  private readonly inFlight = new Map<string, Promise<SubmitResult>>();
  /** Batches this process sent, by their first authorization, so a resubmit returns the same txHash. */
  private readonly sent = new Map<string, Hex>();

  constructor(private readonly ctx: BatchSubmitContext) {}

  submit(items: readonly SignedAuthorization[], opts: Pick<SubmitOptions, 'recordWithJournal'> = {}): Promise<SubmitResult> {
    const first = items[0];
    if (!first) return Promise.resolve(fail(SubmitReason.simulationFailed, 'an empty batch moves nothing'));
    const key = `${first.auth.from.toLowerCase()}:${first.auth.nonce.toLowerCase()}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.submitOnce(key, items, opts).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async submitOnce(key: string, items: readonly SignedAuthorization[], opts: Pick<SubmitOptions, 'recordWithJournal'>): Promise<SubmitResult> {
    const { ctx } = this;
    const first = items[0]!.auth;
    const previous = this.sent.get(key);
    if (previous) {
      const receipt = await ctx.publicClient.getTransactionReceipt({ hash: previous }).catch(() => undefined);
      if (receipt?.status === 'success') return { ok: true, txHash: previous };
      if (!receipt && (await isKnownTransaction(ctx.publicClient, previous))) return { ok: true, txHash: previous };
      this.sent.delete(key);
    }

    const data = encodeBatch(items);
    let gas: bigint;
    try {
      gas = await ctx.publicClient.estimateGas({ account: ctx.relayer, to: ctx.tokenAddress, data, prepare: false });
    } catch (e) {
      const message = revertReason(e);
      if (!isRevert(e)) return fail(SubmitReason.chainUnavailable, `the chain could not be reached: ${message}`);
      return fail(reasonFromRevert(message), `simulation failed: ${message}`);
    }

    for (let attempt = 1; ; attempt++) {
      try {
        const record = opts.recordWithJournal ? { recordWithJournal: opts.recordWithJournal } : {};
        const { txHash, recorded } = await ctx.sender.sendRecorded({ to: ctx.tokenAddress, data, gas: withHeadroom(gas) }, record);
        this.remember(key, txHash);
        ctx.log.info({ txHash, from: first.from, moves: items.length }, 'relayed transferWithAuthorizations');
        return recorded ? { ok: true, txHash, recorded: true } : { ok: true, txHash };
      } catch (e) {
        const err = e as SendError;
        if (err.txHash && (await isKnownTransaction(ctx.publicClient, err.txHash))) {
          this.remember(key, err.txHash);
          return { ok: true, txHash: err.txHash };
        }
        if (!isNonceError(err.cause ?? e) || attempt >= MAX_SEND_ATTEMPTS) {
          const sendOutcome = err.refused ? 'refused' : 'unknown';
          if (err.txHash && sendOutcome === 'unknown') this.remember(key, err.txHash);
          ctx.log.error({ err: revertReason(err.cause ?? e), attempt, sendOutcome, txHash: err.txHash }, 'relayer batch send failed');
          const failure: SubmitFailure = {
            ...fail(SubmitReason.submitFailed, `could not submit the transaction: ${revertReason(err.cause ?? e)}`),
            sendOutcome,
          };
          if (err.txHash) failure.txHash = err.txHash;
          return failure;
        }
        // Nonce clash: make sure nobody used the batch meanwhile (its first nonce stands for all).
        ctx.log.warn({ attempt, err: revertReason(err.cause ?? e) }, 'relayer nonce error; retrying the batch');
        await new Promise((r) => setTimeout(r, 50 * attempt + Math.floor(Math.random() * 50)));
        const used = await authorizationState(ctx.publicClient, ctx.tokenAddress, first.from, first.nonce).catch(() => undefined);
        if (used === undefined) return fail(SubmitReason.chainUnavailable, 'the chain could not be reached');
        if (used) return fail(SubmitReason.authorizationUsed, 'this authorization was already used or canceled', 'nonce');
      }
    }
  }

  private remember(key: string, txHash: Hex): void {
    if (this.sent.size >= SENT_CACHE_LIMIT) {
      const oldest = this.sent.keys().next().value;
      if (oldest !== undefined) this.sent.delete(oldest);
    }
    this.sent.set(key, txHash);
  }
}
