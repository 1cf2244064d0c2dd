/**
 * One owner and one truthful answer for every relayed move (issue 21, point 5): deposit sweeps,
 * deposit give-backs, refunds and the custodial moves (transfers, bills, market stakes and
 * payouts, claims) relay through `relayOwned`, over the same durable attempt ledger as checkout
 * and x402 settles (table `settlement_attempts`, src/settlement/attempts.ts implements the port).
 *
 * - One attempt row per move (`<kind>:<from>:<nonce>`), opened before anything is sent and
 *   holding the signed authorization, the owner instance, its relayer, the tx hash and a deadline.
 * - Before its deadline (confirm timeout plus the chain's worst delay), or while this process
 *   relays it, nobody else sends it or judges it: another caller (another instance, a reconcile
 *   pass) waits for its answer or is told `pending`; money that moved is read from the chain.
 * - The owner broadcasts only inside its window (`broadcastFence`): while the row is still its
 *   generation and until a guard before the deadline; a slow owner past it sends nothing (and
 *   re-sends nothing), so a take-over's send is the only one for the nonce.
 * - Past the deadline the chain decides (whether or not the owner still lives: its relay call is
 *   over by then, and nobody ever calls the move lost): the authorization used → that
 *   transaction; the window closed unused → failed; our transaction still in the pool → pending;
 *   otherwise the attempt is taken over and its stored authorization sent again (the EIP-3009
 *   nonce lets one transfer through, whoever sends it).
 * - `failed` ("nothing moved") only when provable: the run that signed the authorization saw it
 *   refused or reverted with the authorization unused, or its window closed unused. A take-over
 *   whose send fails stays `pending` (the earlier send may still land) until one of those holds.
 *
 * Pure over two ports (the chain, the ledger): the decision is unit-tested with the fake chain.
 */
import type { Address, Hex } from 'viem';
import type { TransferAuthorization } from './authorization.js';
import type { Tx } from '../store/index.js';
import type { ChainPort, SignedAuthorization } from './chain-port.js';
import type { BroadcastFence } from './chain-results.js';
import { relayOnce, type RelayChain, type RelayFailure, type RelayOutcome } from './relay.js';

/** The part of an attempt row this helper reads (SettlementAttempt has it). */
export interface RelayAttempt {
  readonly id: string;
  generation: number;
  state: 'open' | 'done';
  instanceId: string;
  validBefore: string;
  authorization: Record<string, string>;
  signature: string;
  txHash?: string;
  startedAt: string;
  deadlineAt: string;
  answer?: { ok: boolean; reason?: string; message?: string; param?: string; txHash?: string };
}

export interface NewRelayAttempt {
  kind: string;
  subject: string;
  payer: string;
  nonce: string;
  validBefore: bigint;
  authorization: Record<string, string>;
  signature: string;
}

/** The attempt ledger as this helper uses it (AttemptLedger in src/settlement/attempts.ts). */
export interface RelayAttempts {
  readonly owner: { readonly id: string };
  /** Attempt ids this process is relaying right now. */
  readonly running: Set<string>;
  get(id: string): Promise<RelayAttempt | undefined>;
  /** Opens the row in its own transaction; undefined when it is open already (someone owns it). */
  openAlone(a: NewRelayAttempt): Promise<RelayAttempt | undefined>;
  /** `pastDeadline`: only once the attempt's deadline has passed on the store's clock. */
  takeOver(a: RelayAttempt, opts?: { pastDeadline?: boolean }): Promise<RelayAttempt | undefined>;
  /**
   * The attempt and the store's clock (epoch ms) read in one statement: on a shared PostgreSQL
   * store its `clock_timestamp()`, which every instance agrees on. Without it, this process's clock.
   */
  readClocked?(id: string): Promise<{ row: RelayAttempt | undefined; now: number }>;
  /** This process's clock (a port: tests skew it); Date.now without it. */
  clock?(): number;
  /** The store's time as this process last measured it; this process's clock without it. */
  now?(): number;
  /**
   * The store's time from a measurement of its clock at most a minute old (never behind it), or
   * this process's clock where the store is this process's; undefined when no such measurement
   * is at hand. Lets a broadcast fence skip its read well inside its window.
   */
  measuredNow?(): number | undefined;
  sent(id: string, generation: number, txHash: string): Promise<void>;
  /** `sent` inside the relay journal's commit (before the broadcast); optional. */
  sentIn?(tx: Tx, id: string, generation: number, txHash: string): Promise<void>;
  /** `openAlone` inside `tx` (the transaction that records the move); optional. */
  open?(tx: Tx, a: NewRelayAttempt): Promise<RelayAttempt | undefined>;
  close(id: string, answer: NonNullable<RelayAttempt['answer']>, tx?: Tx): Promise<void>;
}

export type OwnedRelayChain = RelayChain & Pick<ChainPort, 'chainTime' | 'transactionKnown'>;

type Signed = { ok: true; auth: TransferAuthorization; signature: Hex } | { ok: false; message: string };

export interface OwnedRelayRequest {
  /** The attempt kind, e.g. 'refund', 'transfer', 'deposit-sweep'. */
  kind: string;
  /** The business record the move belongs to. */
  subject: string;
  from: Address;
  nonce: Hex;
  /** Signs the authorization (only when a new attempt is opened; a take-over sends the stored one). */
  sign(): Promise<Signed>;
  /** Receipt wait, and how long a caller waits on another owner's attempt before `pending`. */
  timeoutMs?: number;
  since?: Date | string;
  onSent?: (txHash: Hex) => Promise<void> | void;
  /** The attempt the caller opened itself (`attempts.open`, in its own record's transaction) for `signed`: relayed at once. */
  opened?: { row: RelayAttempt; auth: TransferAuthorization; signature: Hex };
  /** The caller writes the run's answer in the transaction that records the outcome (one commit fewer); given the write instead. */
  answerIn?: (write: (tx: Tx) => Promise<void>) => void;
  /**
   * Relayed in the same transaction (relayOnce's `batchWith`): a take-over's resend carries them
   * too, so the attempt's authorization never moves alone.
   */
  batchWith?: readonly SignedAuthorization[];
}

export function relayAttemptId(kind: string, from: string, nonce: string): string {
  return `${kind}:${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

const POLL_MS = 250;

export async function relayOwned(chain: OwnedRelayChain, attempts: RelayAttempts, req: OwnedRelayRequest): Promise<RelayOutcome> {
  if (req.opened) return run(chain, attempts, req, req.opened.row, req.opened.auth, req.opened.signature, true);
  const id = relayAttemptId(req.kind, req.from, req.nonce);
  let row = await attempts.get(id);
  if (row?.state === 'done' && row.answer?.ok) return settledFrom(row);
  if (!row || row.state === 'done') {
    // New, or the earlier run ended provably with nothing moved: a fresh attempt, freshly signed.
    const signed = await req.sign();
    if (!signed.ok) return { status: 'pending', message: signed.message, mayHaveSent: false };
    const opened = await attempts.openAlone({
      kind: req.kind,
      subject: req.subject,
      payer: req.from,
      nonce: req.nonce,
      validBefore: signed.auth.validBefore,
      authorization: authFields(signed.auth),
      signature: signed.signature,
    });
    if (opened) return run(chain, attempts, req, opened, signed.auth, signed.signature as Hex, true);
    row = await attempts.get(id);
    if (!row) return { status: 'pending', message: 'the move is owned by another attempt', mayHaveSent: true };
  }
  return join(chain, attempts, req, row);
}

/**
 * An open attempt: while someone may still be relaying it (this process now, or anyone before its
 * deadline) wait for its answer, then look at the chain; past the deadline the chain decides.
 */
async function join(chain: OwnedRelayChain, attempts: RelayAttempts, req: OwnedRelayRequest, first: RelayAttempt): Promise<RelayOutcome> {
  const until = Date.now() + (req.timeoutMs ?? 0);
  let row: RelayAttempt | undefined = first;
  for (;;) {
    if (!row) return { status: 'pending', message: 'the move is owned by another attempt', mayHaveSent: true };
    if (row.state === 'done') return answerOf(row);
    if (!inFlight(attempts, row)) return decide(chain, attempts, req, row);
    if (Date.now() >= until) return (await movedBy(chain, attempts, req, row)) ?? pendingOf(row, 'the move is in flight; its owner or the chain decides it');
    await sleep(Math.min(POLL_MS, Math.max(10, until - Date.now())));
    row = await attempts.get(row.id);
  }
}

/**
 * Someone may still be relaying `row`: this process is, or its deadline (the confirm timeout plus
 * the chain's worst delay, longer than any relay call waits) has not passed. Past it, another
 * instance may act even while the owner lives: it never calls the move lost, it sends the same
 * stored authorization again, and the nonce lets one transfer through.
 */
function inFlight(attempts: RelayAttempts, row: RelayAttempt): boolean {
  // A first look on the store's time as last measured; the take-over itself reads the store's clock.
  return attempts.running.has(row.id) || Date.parse(row.deadlineAt) > (attempts.now?.() ?? Date.now());
}

/** The chain says the authorization was used (money moved): the attempt ends with that transaction. */
async function movedBy(chain: OwnedRelayChain, attempts: RelayAttempts, req: OwnedRelayRequest, row: RelayAttempt): Promise<RelayOutcome | undefined> {
  const auth = authFrom(row);
  try {
    if (!(await chain.authorizationState(auth.from, auth.nonce))) return undefined;
    const tx = await chain.findAuthorizationTx(auth.from, auth.nonce, { since: row.startedAt, ...(row.txHash ? { txHash: row.txHash as Hex } : {}) });
    if (!tx) return pendingOf(row, 'the authorization was used; its transaction is not found yet');
    const r = await chain.waitForReceipt(tx, req.timeoutMs);
    if (r.status !== 'success') return pendingOf(row, 'the authorization was used; its receipt is not readable yet');
    await attempts.close(row.id, { ok: true, txHash: tx });
    return { status: 'settled', txHash: tx };
  } catch {
    return pendingOf(row, 'the chain could not be asked');
  }
}

/** Nobody may still be working on `row`: read the chain, then finish, wait or take over. */
async function decide(chain: OwnedRelayChain, attempts: RelayAttempts, req: OwnedRelayRequest, row: RelayAttempt): Promise<RelayOutcome> {
  const auth = authFrom(row);
  try {
    // Chain time before the state: if the window had closed by then, "unused" is final.
    const windowClosed = (await chain.chainTime()) >= auth.validBefore;
    const moved = await movedBy(chain, attempts, req, row);
    if (moved) return moved;
    if (windowClosed) {
      const message = 'the authorization expired unused: nothing moved';
      await attempts.close(row.id, { ok: false, reason: 'expired', message });
      return { status: 'failed', reason: 'expired', message };
    }
    if (row.txHash && (await chain.transactionKnown(row.txHash as Hex))) return pendingOf(row, 'the transaction is still in the pool');
  } catch {
    return pendingOf(row, 'the chain could not be asked');
  }
  const taken = await attempts.takeOver(row, { pastDeadline: true });
  if (!taken) {
    const now = await attempts.get(row.id);
    if (now?.state === 'done') return answerOf(now);
    return pendingOf(row, now?.generation === row.generation ? 'the owner\'s window is still open on the store\'s clock' : 'another instance took the move over');
  }
  return run(chain, attempts, req, taken, auth, row.signature as Hex, false);
}

/** Relays the attempt's authorization from this instance and records the outcome. */
async function run(
  chain: OwnedRelayChain,
  attempts: RelayAttempts,
  req: OwnedRelayRequest,
  row: RelayAttempt,
  auth: TransferAuthorization,
  signature: Hex,
  fresh: boolean,
): Promise<RelayOutcome> {
  attempts.running.add(row.id);
  const close = (answer: NonNullable<RelayAttempt['answer']>) =>
    req.answerIn ? req.answerIn((tx) => attempts.close(row.id, answer, tx)) : attempts.close(row.id, answer);
  try {
    const outcome = await relayOnce(chain, auth, signature, {
      ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
      since: req.since ?? row.startedAt,
      ...(req.batchWith ? { batchWith: req.batchWith } : {}),
      fence: broadcastFence(attempts, row),
      // The attempt's hash goes in the journal's commit when nothing else is to be recorded
      // with it (one commit fewer per move); otherwise, or without a journal (a batch member),
      // while the receipt is awaited, unless the receipt comes within relay.ts's grace and says
      // the money moved: then the settled answer's `close` stores it on the attempt, and the
      // caller's own settled write (`req.onSent`'s record: a sweep's `finish`) carries it.
      ...(attempts.sentIn && !req.onSent
        ? { recordWithJournal: (txHash: Hex, tx: Tx) => attempts.sentIn!(tx, row.id, row.generation, txHash) }
        : {}),
      onSent: async (txHash) => {
        await attempts.sent(row.id, row.generation, txHash);
        await req.onSent?.(txHash);
      },
    });
    if (outcome.status === 'settled') await close({ ok: true, txHash: outcome.txHash });
    else if (outcome.status === 'failed') {
      // Provable only for the run that signed this authorization: nobody else ever sent it.
      if (!fresh) return { status: 'pending', ...(outcome.txHash ? { txHash: outcome.txHash } : {}), message: `${outcome.message}; an earlier send may still land`, mayHaveSent: true };
      await close({
        ok: false,
        reason: outcome.spent ? 'insufficient_balance' : outcome.reason,
        message: outcome.message,
        ...(outcome.param ? { param: outcome.param } : {}),
      });
    }
    return outcome;
  } catch (err) {
    // Unknown whether anything left: the attempt stays open for its deadline and the chain.
    return { status: 'pending', message: `the relay was cut off: ${(err as Error).message}`, mayHaveSent: true };
  } finally {
    attempts.running.delete(row.id);
  }
}

/** The owner stops broadcasting this long (at most) before its deadline: a send already on its way has landed in the pool by then. */
const BROADCAST_GUARD_MS = 2_000;

/** The end of an attempt's broadcast window: its deadline less a guard (a quarter of its span, at most BROADCAST_GUARD_MS). */
export function broadcastUntil(row: Pick<RelayAttempt, 'startedAt' | 'deadlineAt'>): number {
  const deadline = Date.parse(row.deadlineAt);
  const span = Math.max(0, deadline - Date.parse(row.startedAt));
  return deadline - Math.min(BROADCAST_GUARD_MS, span / 4);
}

/**
 * The owner's broadcast window (issue: two instances broadcast one nonce). A take-over happens
 * only past the deadline and bumps the generation (compare-and-set); the owner sends, and sends
 * again (a nonce clash, a batch member alone), only while the attempt is still its generation
 * and a guard before the deadline (a quarter of the attempt's span, at most
 * BROADCAST_GUARD_MS), the time checked right before the transaction leaves. So the owner's
 * last send is in the pool before anyone may look at the deadline, and nothing it sends
 * follows a take-over: one relayer transaction per nonce.
 *
 * Every time is the store's (h9relay): `check` reads the generation and the store's clock in one
 * statement, and `open` adds this process's clock's time since that read to the store's time it
 * read. A take-over needs the deadline passed on the same clock (`takeOver(.., {pastDeadline})`),
 * so two instances whose clocks disagree by more than the guard still never both send.
 *
 * Checkout and x402 facilitator settles (settlement.ts, facilitator.ts) give their sends the same
 * fence over their own attempt (h12truth): an owner stalled past its deadline never sends after a
 * take-over.
 */
export function broadcastFence(attempts: RelayAttempts, row: Pick<RelayAttempt, 'id' | 'generation' | 'startedAt' | 'deadlineAt'>): BroadcastFence {
  const until = broadcastUntil(row);
  const local = () => attempts.clock?.() ?? Date.now();
  // The store's clock less this process's, measured by the last check; unknown before it.
  let offset: number | undefined;
  return {
    owner: { attempt: row.id, generation: row.generation },
    open: () => offset !== undefined && local() + offset < until,
    async check() {
      // `row` is the generation this process's own open or take-over wrote, and nobody takes it
      // over or opens it again before its deadline on the store's clock (takeOver's pastDeadline;
      // open only reopens an ended row): while the store's time, freshly measured and never
      // behind it, is before `until`, the read would find it ours. One statement fewer per send
      // (docs/settlement.md, "The fence's read, only near the deadline").
      const known = attempts.measuredNow?.();
      if (known !== undefined && known < until) {
        offset = known - local();
        return true;
      }
      const before = local();
      const read = attempts.readClocked ? await attempts.readClocked(row.id) : { row: await attempts.get(row.id), now: local() };
      offset = read.now - before;
      return read.row?.state === 'open' && read.row.generation === row.generation && read.now < until;
    },
  };
}

function settledFrom(row: RelayAttempt): RelayOutcome {
  return { status: 'settled', txHash: row.answer!.txHash as Hex };
}

/** The stored final answer of an attempt, as every caller of it gets it. */
function answerOf(row: RelayAttempt): RelayOutcome {
  const a = row.answer;
  if (!a) return pendingOf(row, 'the move ended without an answer');
  if (a.ok) return settledFrom(row);
  return {
    status: 'failed',
    reason: (a.reason ?? 'rejected') as RelayFailure,
    message: a.message ?? 'nothing moved',
    ...(a.param ? { param: a.param } : {}),
  };
}

function pendingOf(row: RelayAttempt, message: string): RelayOutcome {
  return row.txHash ? { status: 'pending', txHash: row.txHash as Hex, message, mayHaveSent: true } : { status: 'pending', message, mayHaveSent: true };
}

function authFields(a: TransferAuthorization): Record<string, string> {
  return { from: a.from, to: a.to, value: a.value.toString(), validAfter: a.validAfter.toString(), validBefore: a.validBefore.toString(), nonce: a.nonce };
}

function authFrom(row: RelayAttempt): TransferAuthorization {
  const a = row.authorization;
  return {
    from: a.from as Address,
    to: a.to as Address,
    value: BigInt(a.value!),
    validAfter: BigInt(a.validAfter!),
    validBefore: BigInt(a.validBefore!),
    nonce: a.nonce as Hex,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
