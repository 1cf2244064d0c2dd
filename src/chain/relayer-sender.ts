/**
 * The relayer's sends: every transaction the service sends (settlements, custodial moves,
 * faucet mints and gas top-ups) is signed locally with a nonce from `RelayerNonces`, written to
 * the relay journal, then broadcast raw.
 */
import { type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { keccak256 } from './keccak.js';
import type { Logger } from '../lib/logger.js';
import { noteWrite } from '../lib/write-watch.js';
import { isRefusal, revertReason } from './node-errors.js';
import { RelayerNonces } from './nonces.js';
import { signEip1559 } from './sign-eip1559.js';
import { transactionKnown, type NodeClient } from './node-reads.js';
import type { JournalOwner, RelayJournal } from './relay-journal.js';
import type { Tx } from '../store/index.js';

const FEE_CACHE_MS = 1_000;

/** What a failed send throws: `refused` says the transaction certainly did not reach the node. */
/** `fenced`: not broadcast because the caller's `sendWhile` said no (nothing left, the nonce is free again). `unjournaled`: the relay journal could not be written (unknown: its replay may send it). */
export type SendError = Error & { cause?: unknown; txHash?: Hex; refused?: boolean; fenced?: boolean; unjournaled?: boolean };

/** Gas estimates are exact for the simulated state; leave room for state changing before inclusion. */
export function withHeadroom(gas: bigint): bigint {
  return (gas * 5n) / 4n + 10_000n;
}

export interface SenderContext {
  log: Logger;
  chainId: number;
  publicClient: NodeClient;
  relayer: PrivateKeyAccount;
  journal: RelayJournal | undefined;
}

export class RelayerSender {
  private readonly nonces: RelayerNonces;
  private feeCache: { at: number; fees: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> } | undefined;

  constructor(private readonly ctx: SenderContext) {
    this.nonces = new RelayerNonces(
      {
        pendingNonce: () => ctx.publicClient.getTransactionCount({ address: ctx.relayer.address, blockTag: 'pending' }),
        // Only "not found" counts as lost; an RPC failure must not look like a gap.
        isKnown: (hash) => transactionKnown(ctx.publicClient, hash),
      },
      ctx.log,
    );
  }

  /** Fee caps shared for a second: they barely move between blocks and each read is a round trip. */
  private fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const now = Date.now();
    if (this.feeCache && now - this.feeCache.at < FEE_CACHE_MS) return this.feeCache.fees;
    const fees = this.ctx.publicClient.estimateFeesPerGas();
    this.feeCache = { at: now, fees };
    fees.catch(() => {
      if (this.feeCache?.fees === fees) this.feeCache = undefined;
    });
    return fees;
  }

  /**
   * Signs locally and sends raw, taking the nonce only after fees and gas are known, so
   * nothing slow or fallible sits between taking a nonce and using it. Knowing the hash before
   * sending lets an ambiguous failure be checked against the node. Throws a SendError whose
   * `refused` says the transaction certainly did not reach the node.
   */
  async send(tx: { to: Address; data?: Hex; value?: bigint; gas: bigint }): Promise<Hex> {
    return (await this.sendRecorded(tx)).txHash;
  }

  /** `send`, with the caller's record of the hash written in the journal's commit (`recorded`: it was). */
  async sendRecorded(
    tx: { to: Address; data?: Hex; value?: bigint; gas: bigint },
    opts: {
      recordWithJournal?: (txHash: Hex, tx: Tx) => Promise<void>;
      /** The caller's window (an owned move's broadcast fence), asked as the last step before the transaction leaves. */
      sendWhile?: () => boolean;
      /** The owned attempts the transaction carries, journaled with it (relay-journal.ts). */
      owners?: readonly JournalOwner[];
    } = {},
  ): Promise<{ txHash: Hex; recorded: boolean }> {
    // A broadcast may be beginning (the agent's store-error boundary, lib/write-watch.ts).
    noteWrite();
    const { ctx } = this;
    let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    let nonce: number;
    try {
      fees = await this.fees();
      nonce = await this.nonces.take();
    } catch (e) {
      throw Object.assign(new Error('send failed'), { cause: e, refused: true }) as SendError;
    }
    let txHash: Hex | undefined;
    try {
      const { serialized, hash } = await signEip1559(ctx.relayer, {
        chainId: ctx.chainId,
        nonce,
        to: tx.to,
        ...(tx.data !== undefined ? { data: tx.data } : {}),
        value: tx.value ?? 0n,
        gas: tx.gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      // Durable before it leaves: a crash of the service and its chain together must not
      // lose a transaction the store may already count as settled (relay-journal.ts). The
      // caller's own record of the hash (recordWithJournal) goes in the same commit.
      let recorded = false;
      if (ctx.journal) {
        const also = opts.recordWithJournal;
        try {
          recorded = await ctx.journal.record(
            { chainId: ctx.chainId, relayer: ctx.relayer.address, nonce, hash, raw: serialized, ...(opts.owners?.length ? { owners: [...opts.owners] } : {}) },
            also ? (t) => also(hash, t) : undefined,
          );
        } catch (e) {
          // A store error (a pool timeout, a commit cut off) does not say the entry is absent:
          // the journal's replay may still broadcast it, so its outcome is unknown, not refused.
          // The nonce is released as for a refusal (this process sent nothing at it).
          this.nonces.release(nonce);
          throw Object.assign(new Error('send failed: the relay journal could not be written'), { cause: e, refused: false, unjournaled: true }) as SendError;
        }
      }
      txHash = hash;
      // The caller's window (an owned move's deadline, src/chain/owned-relay.ts), without I/O,
      // as the last step before the transaction leaves: past it, another instance may be
      // sending the same move.
      if (opts.sendWhile && !opts.sendWhile()) {
        throw Object.assign(new Error('the sender\'s window closed before the broadcast'), { fenced: true });
      }
      try {
        await ctx.publicClient.sendRawTransaction({ serializedTransaction: serialized });
      } catch (e) {
        if (!/already known|known transaction/i.test(revertReason(e))) throw e;
      }
      this.nonces.sent(nonce, txHash);
      return { txHash, recorded };
    } catch (e) {
      if ((e as SendError).unjournaled) throw e;
      const stopped = (e as SendError).fenced === true;
      const refused = txHash === undefined || stopped || isRefusal(e);
      // A refused nonce is free again; an unknown outcome keeps it until the node says it lost it.
      if (refused) {
        if (txHash && ctx.journal) {
          const hash = txHash;
          await ctx.journal
            .forget(ctx.chainId, ctx.relayer.address, nonce, hash)
            .catch((err: unknown) => ctx.log.error({ err, txHash: hash }, 'could not drop a refused transaction from the relay journal'));
        }
        this.nonces.release(nonce);
      } else this.nonces.sent(nonce, txHash!);
      throw Object.assign(new Error('send failed'), { cause: e, txHash, refused, ...(stopped ? { fenced: true } : {}) }) as SendError;
    }
  }

  /**
   * A transaction that moves nothing (0 to the relayer itself) at `nonce`, in place of a journaled
   * one that must not go out again (its attempt was taken over or its window closed:
   * relay-journal-recovery.ts): later nonces would otherwise wait behind the gap. Journaled in
   * its place (no owner: always safe to re-send), then broadcast.
   */
  async fill(nonce: number): Promise<Hex> {
    const { ctx } = this;
    const fees = await this.fees();
    const serialized = await ctx.relayer.signTransaction({
      type: 'eip1559',
      chainId: ctx.chainId,
      nonce,
      to: ctx.relayer.address,
      value: 0n,
      gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const hash = keccak256(serialized);
    await ctx.journal?.record({ chainId: ctx.chainId, relayer: ctx.relayer.address, nonce, hash, raw: serialized });
    try {
      await ctx.publicClient.sendRawTransaction({ serializedTransaction: serialized });
    } catch (e) {
      if (!/already known|known transaction/i.test(revertReason(e))) throw e;
    }
    this.nonces.sent(nonce, hash);
    return hash;
  }
}
