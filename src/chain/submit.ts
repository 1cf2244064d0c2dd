/**
 * The one submit of token movements: one authorization as `transferWithAuthorization`
 * (verified unless the caller just did), several as `transferWithAuthorizations`, all or none
 * (submit-batch.ts encodes it; only the service's own custodial signatures are batched, so the
 * simulation is their one check: on our own token an `eth_call` at a proven gas bound, else the
 * gas estimate). Then: simulate (right before the send), send from the relayer, retry nonce clashes. Idempotent within one process: a double
 * click shares one submit, and resubmitting the same items (keyed by the first authorization)
 * while their transaction is pending or mined returns the same txHash.
 *
 * Single authorizations are group-committed (send-groups.ts) when the batch relay is on the
 * chain: while one transaction is being sent, the next ones collect and leave together through
 * the batch relay (relay-batches.ts), each on its own; the answer says `batched`, and relay.ts
 * reads each one's outcome from the receipt's own AuthorizationUsed log. With version 2 of the
 * relay (`pairs`) several authorizations (an agent transfer and its fee) join a group too, as one
 * member whose call is the token's all-or-none `transferWithAuthorizations`: it moves all or
 * none and fails alone; relay.ts calls it settled only when every one of its logs is there.
 */
import { type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { fail } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import type { TransferAuthorization } from './authorization.js';
import { isNonceError, isRevert, reasonFromRevert, revertReason } from './node-errors.js';
import { authorizationState, callWithinGas, estimateCallGas, isKnownTransaction, type NodeClient } from './node-reads.js';
import type { SignedAuthorization } from './chain-port.js';
import { SubmitReason, type BroadcastFence, type SubmitFailure, type SubmitOptions, type SubmitResult } from './chain-results.js';
import { encodeBatch, ownBatchGasBound } from './submit-batch.js';
import { authorizationKey, encodeRelay, usedAuthorizations, type BatchRelay } from './relay-batches.js';
import { SendGroups } from './send-groups.js';
import type { JournalOwner } from './relay-journal.js';
import { withHeadroom, type RelayerSender, type SendError } from './relayer-sender.js';
import { encodeTransfer, type TransferVerifier } from './verify-authorization.js';

const MAX_SEND_ATTEMPTS = 3;
const SENT_CACHE_LIMIT = 10_000;
/**
 * A batch's early simulation (simulateEarly) is sent on if it passed and was asked at most this
 * long ago: the freshness a verified single authorization's simulation is sent on (verify-authorization.ts).
 */
export const EARLY_SIMULATION_FRESH_MS = 2_000;
const EARLY_SIMULATION_LIMIT = 1_000;

export interface SubmitContext {
  log: Logger;
  publicClient: NodeClient;
  relayer: PrivateKeyAccount;
  tokenAddress: Address;
  verifier: TransferVerifier;
  sender: RelayerSender;
  /** The batch relay when it is on this chain (relay-batches.ts); else one transaction per settlement. */
  batchRelay?: BatchRelay | undefined;
  /**
   * The embedded chain, whose token is our own Stablecoin (boot.ts deployed it): a batch of our
   * own authorizations is simulated by one `eth_call` at a proven gas bound (simulate). Elsewhere
   * (USDC, a token or a chain we did not deploy) `eth_estimateGas`, as always.
   */
  embedded?: boolean;
}

/** One group member ready to send (one authorization, or several all or none): its own calldata and simulated gas. */
interface Ready {
  key: string;
  auth: TransferAuthorization;
  /** How many authorizations its call moves. */
  moves: number;
  data: Hex;
  gas: bigint;
  record: SubmitOptions['recordWithJournal'];
  fence: BroadcastFence | undefined;
  /** The attempt it carries, journaled with the transaction. */
  owner: JournalOwner | undefined;
}

/** Gas a batch adds per member over the member's own transaction (the relay's call, loop, calldata offsets). */
const BATCH_GAS_PER_ITEM = 15_000n;
const TX_BASE_GAS = 21_000n;

/** The calldata to send, and its gas when a fresh verification already simulated it. */
type Prepared = { ok: true; data: Hex; gas?: bigint };

export class TransferSubmitter {
  /** In-flight submits by authorization, so a double click sends one transaction. */
  private readonly inFlight = new Map<string, Promise<SubmitResult>>();
  /** Authorizations this process sent, so a resubmit returns the same txHash. */
  private readonly sent = new Map<string, Hex>();
  /** Transactions sent through the batch relay: their success alone does not say a member moved. */
  private readonly batchTxs = new Set<string>();
  private readonly groups: SendGroups<Ready>;
  /**
   * Early simulations of batches (simulateEarly), by their first authorization (the submit's key): the
   * items and calldata (encoded once), the gas (undefined: it did not pass), and when it was asked.
   */
  private readonly early = new Map<string, { items: readonly SignedAuthorization[]; data: Hex; gas: Promise<bigint | undefined>; at: number }>();

  constructor(private readonly ctx: SubmitContext) {
    this.groups = new SendGroups((group) => this.sendGroup(group));
  }

  /** `batch`: the token has `transferWithAuthorizations` (several items need it). */
  submit(items: readonly SignedAuthorization[], opts: SubmitOptions = {}, batch = true): Promise<SubmitResult> {
    const first = items[0];
    if (!first) return Promise.resolve(fail(SubmitReason.simulationFailed, 'an empty batch moves nothing'));
    if (items.length > 1 && !batch) return Promise.resolve(fail(SubmitReason.simulationFailed, 'this token has no transferWithAuthorizations'));
    const key = submitKey(first.auth);
    const running = this.inFlight.get(key);
    if (running) return running;
    const promise = this.submitOnce(key, items, opts).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  /**
   * Simulates the batch of `items` now, sending nothing, for a caller that submits the very same
   * items shortly, after its own bookkeeping (an agent transfer: its balance read and hold). The
   * simulation is the one `simulate` runs (on our own token one `eth_call` at the proven bound),
   * asked in the same round trip as the caller's balance read instead of after the hold (issue 23,
   * twelfth round). The submit sends on it only if it passed at most EARLY_SIMULATION_FRESH_MS
   * ago (as a verified single authorization is sent on its verification's); a failed, stale or
   * missing one is never used: the submit simulates again right before the send, as always, so a
   * refusal reads exactly as it did.
   */
  simulateEarly(items: readonly SignedAuthorization[]): void {
    if (items.length < 2) return; // one authorization: the verifier's own simulation (prepareSingle)
    const key = submitKey(items[0]!.auth);
    if (this.early.has(key)) return;
    if (this.early.size >= EARLY_SIMULATION_LIMIT) this.early.delete(this.early.keys().next().value!);
    const data = encodeBatch(items);
    // Its age counts from the request: the state it read is no older than that.
    const at = Date.now();
    const gas = this.simulate(items.length, data).catch(() => undefined);
    this.early.set(key, { items, data, gas, at });
  }

  /**
   * The early simulation of exactly `items` (every authorization and signature the same, in the same
   * order), taken once: its calldata, and its gas when it passed at most EARLY_SIMULATION_FRESH_MS ago.
   */
  private async takeEarly(key: string, items: readonly SignedAuthorization[]): Promise<{ data: Hex; gas: bigint | undefined } | undefined> {
    const entry = this.early.get(key);
    if (!entry) return undefined;
    this.early.delete(key);
    if (!sameItems(entry.items, items)) return undefined;
    const gas = await entry.gas;
    return { data: entry.data, gas: gas !== undefined && Date.now() - entry.at <= EARLY_SIMULATION_FRESH_MS ? gas : undefined };
  }

  private async submitOnce(key: string, items: readonly SignedAuthorization[], opts: SubmitOptions): Promise<SubmitResult> {
    const { ctx } = this;
    const auth = items[0]!.auth;
    const previous = this.sent.get(key);
    if (previous) {
      // Same authorization again: report the transaction already carrying it, unless that
      // one reverted or was dropped by the node.
      const receipt = await ctx.publicClient.getTransactionReceipt({ hash: previous }).catch(() => undefined);
      const batched = this.batchTxs.has(previous.toLowerCase());
      // A batch that succeeded without this member (the token refused it inside) does not carry it.
      if (receipt?.status === 'success' && (!batched || carries(usedAuthorizations(receipt.logs, ctx.tokenAddress), items))) {
        return batched ? { ok: true, txHash: previous, batched: true } : { ok: true, txHash: previous };
      }
      if (!receipt && (await isKnownTransaction(ctx.publicClient, previous))) return batched ? { ok: true, txHash: previous, batched: true } : { ok: true, txHash: previous };
      this.sent.delete(key);
    }

    // Several items: their early simulation when one was asked (its calldata, encoded once).
    const early = items.length > 1 && this.early.size > 0 ? await this.takeEarly(key, items) : undefined;
    const prepared: Prepared | SubmitFailure =
      items.length === 1 ? await this.prepareSingle(auth, items[0]!.signature, opts.verified === true) : { ok: true, data: early?.data ?? encodeBatch(items) };
    if (!prepared.ok) return prepared;
    // The owner's fence, after the slow part (verification, simulation) and before the send.
    if (opts.fence && !(await opts.fence.check())) return fenced();
    const { data } = prepared;
    let gas: bigint;
    if (prepared.gas !== undefined) gas = prepared.gas;
    else if (early?.gas !== undefined) gas = early.gas;
    else {
      try {
        gas = await this.simulate(items.length, data);
      } catch (e) {
        const message = revertReason(e);
        if (!isRevert(e)) return fail(SubmitReason.chainUnavailable, `the chain could not be reached: ${message}`);
        return fail(reasonFromRevert(message), `simulation failed: ${message}`);
      }
    }
    // Several authorizations join a group only through a relay that forwards their all-or-none call.
    const groupable = ctx.batchRelay && !opts.alone && (items.length === 1 || ctx.batchRelay.pairs);
    const owner = opts.fence?.owner ?? opts.journalOwner;
    if (groupable) return this.groups.submit({ key, auth, moves: items.length, data, gas, record: opts.recordWithJournal, fence: opts.fence, owner });
    return this.sendTx([key], auth, { to: ctx.tokenAddress, data, gas: withHeadroom(gas) }, opts.recordWithJournal, items.length, opts.fence, owner ? [owner] : []);
  }

  /**
   * The one simulation right before the send, and the gas to send with. Several authorizations
   * are always the service's own custodial signatures (EOAs); on our own token their gas has a
   * bound (OWN_AUTHORIZATION_GAS, proven on anvil), so one `eth_call` at that limit is the check
   * and the limit is the gas (the relayer pays only what is used). A revert is refused exactly as
   * the estimate's (same message, same reason); running out of gas at the bound falls back to
   * the estimate, which then decides.
   */
  private async simulate(moves: number, data: Hex): Promise<bigint> {
    const { ctx } = this;
    if (moves > 1 && ctx.embedded) {
      const bound = ownBatchGasBound(moves);
      if (await callWithinGas(ctx.publicClient, ctx.relayer, ctx.tokenAddress, data, bound)) return bound;
    }
    return estimateCallGas(ctx.publicClient, ctx.relayer, ctx.tokenAddress, data);
  }

  /** One group: a member alone is its own transaction to the token; several go through the batch relay. */
  private async sendGroup(all: readonly Ready[]): Promise<SubmitResult | SubmitResult[]> {
    // A member whose owner's window closed while it waited for the group leaves it unsent.
    const group = all.filter((m) => !m.fence || m.fence.open());
    if (group.length < all.length) {
      if (group.length === 0) return fenced();
      const sent = await this.sendGroup(group);
      return all.map((m) => (group.includes(m) ? (Array.isArray(sent) ? sent[group.indexOf(m)]! : sent) : fenced()));
    }
    const { ctx } = this;
    const first = group[0]!;
    if (group.length === 1 || !ctx.batchRelay) {
      return this.sendTx([first.key], first.auth, { to: ctx.tokenAddress, data: first.data, gas: withHeadroom(first.gas) }, first.record, first.moves, first.fence, first.owner ? [first.owner] : []);
    }
    // Each member's own simulated gas, less the transaction base it no longer pays on its own.
    const gas = group.reduce((sum, r) => sum + r.gas - TX_BASE_GAS + BATCH_GAS_PER_ITEM, TX_BASE_GAS);
    const data = encodeRelay(ctx.tokenAddress, group.map((r) => r.data));
    // The members' records of the hash are not written in the journal's commit: there they would
    // be 2 statements per member in one transaction, in sequence, while the next group waits
    // (on PostgreSQL the batch's commit grew with its size). Unrecorded, each member records
    // its hash in a commit of its own while the receipt is awaited (`onSent`, relay.ts), all
    // of them at once; the journal entry itself is still durable before the broadcast.
    const moves = group.reduce((n, m) => n + m.moves, 0);
    const fences = group.flatMap((m) => (m.fence ? [m.fence] : []));
    // The batch leaves only while every member's window is open, and is journaled with every owner.
    const fence: BroadcastFence | undefined = fences.length > 0 ? { check: async () => true, open: () => fences.every((f) => f.open()) } : undefined;
    const owners = group.flatMap((m) => (m.owner ? [m.owner] : []));
    const r = await this.sendTx(group.map((m) => m.key), undefined, { to: ctx.batchRelay.address, data, gas: withHeadroom(gas) }, undefined, moves, fence, owners);
    return r.ok ? { ...r, batched: true } : r;
  }

  /**
   * Sends one transaction, retrying nonce clashes. `auth`: its one authorization, asked after a
   * clash whether someone used it meanwhile (a batch needs no such check: the relay skips a used
   * member on its own).
   */
  private async sendTx(
    keys: readonly string[],
    auth: TransferAuthorization | undefined,
    tx: { to: Address; data: Hex; gas: bigint },
    recordWithJournal: SubmitOptions['recordWithJournal'],
    moves: number,
    fence?: BroadcastFence,
    owners: readonly JournalOwner[] = [],
  ): Promise<SubmitResult> {
    const { ctx } = this;
    // A batch (no single `auth`) is remembered as one: its success alone says nothing of a member.
    const remember = (txHash: Hex) => {
      for (const k of keys) this.remember(k, txHash, !auth);
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const record = {
          ...(recordWithJournal ? { recordWithJournal } : {}),
          ...(fence ? { sendWhile: () => fence.open() } : {}),
          ...(owners.length > 0 ? { owners } : {}),
        };
        const { txHash, recorded } = await ctx.sender.sendRecorded(tx, record);
        remember(txHash);
        ctx.log.info({ txHash, from: auth?.from, to: auth?.to, value: auth?.value.toString(), moves }, 'relayed transferWithAuthorization');
        return recorded ? { ok: true, txHash, recorded: true } : { ok: true, txHash };
      } catch (e) {
        const err = e as SendError;
        if (err.fenced) return fenced();
        // Our own transaction may have reached the node before the error (a retried request).
        if (err.txHash && (await isKnownTransaction(ctx.publicClient, err.txHash))) {
          remember(err.txHash);
          return { ok: true, txHash: err.txHash };
        }
        if (!isNonceError(err.cause ?? e) || attempt >= MAX_SEND_ATTEMPTS) {
          const sendOutcome = err.refused ? 'refused' : 'unknown';
          // The node may still have taken it (e.g. a timeout after delivery): a resubmit of
          // this authorization first looks this hash up instead of sending blindly.
          if (err.txHash && sendOutcome === 'unknown') remember(err.txHash);
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
        if (!auth) continue;
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

  /** `key`'s transaction; `batch`: `txHash` went through the batch relay. */
  private remember(key: string, txHash: Hex, batch = false): void {
    if (batch) {
      if (this.batchTxs.size >= SENT_CACHE_LIMIT) {
        const oldest = this.batchTxs.values().next().value;
        if (oldest !== undefined) this.batchTxs.delete(oldest);
      }
      this.batchTxs.add(txHash.toLowerCase());
    }
    if (this.sent.size >= SENT_CACHE_LIMIT) {
      const oldest = this.sent.keys().next().value;
      if (oldest !== undefined) this.sent.delete(oldest);
    }
    this.sent.set(key, txHash);
  }
}

function fenced(): SubmitFailure {
  return { ...fail(SubmitReason.submitFailed, 'not sent: the move may have been handed to another instance'), sendOutcome: 'refused', fenced: true };
}


/** What identifies one submit: its first authorization (the payer and the EIP-3009 nonce). */
function submitKey(auth: TransferAuthorization): string {
  return `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;
}

/** The same authorizations, signatures and order. */
function sameItems(a: readonly SignedAuthorization[], b: readonly SignedAuthorization[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i]!;
      return (
        x.signature === y.signature &&
        x.auth.from === y.auth.from &&
        x.auth.to === y.auth.to &&
        x.auth.value === y.auth.value &&
        x.auth.validAfter === y.auth.validAfter &&
        x.auth.validBefore === y.auth.validBefore &&
        x.auth.nonce === y.auth.nonce
      );
    })
  );
}

/** The receipt's used authorizations carry every one of `items` (a batched member moved only then). */
function carries(used: readonly string[], items: readonly SignedAuthorization[]): boolean {
  return items.every((i) => used.includes(authorizationKey(i.auth.from, i.auth.nonce)));
}
