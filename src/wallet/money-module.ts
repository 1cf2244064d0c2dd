import type { Hex } from 'viem';
import type { Logger } from 'pino';
import type { AccountsService } from '../accounts/accounts.js';
import type { ChainPort } from '../chain/chain-port.js';
import type { RelayAttempts } from '../chain/owned-relay.js';
import type { FxService } from '../fx/rates.js';
import { nowIso } from '../lib/ids.js';
import { fail, type Fail } from '../lib/results.js';
import { releaseSpend, type Limits, type Reservation } from '../limits/limits.js';
import type { Row, Store, TableDef, TransactionOptions, Tx, Where } from '../store/index.js';
import { moveOnce, type MoveOutcome, type MoveRequest } from './custodial-move.js';
import type { WalletDirectory } from './directory.js';
import { dropHold, holdKey, settleHold, type HoldKind } from './holds.js';

/**
 * What the money modules (transfers, bills, markets, claims; docs/money-modules.md) share: the
 * same construction, one custodial move with the receipt wait and the attempt ledger given once,
 * and the block every user-paid move ends with: record the outcome by compare-and-set, settle or
 * drop the wallet hold, release the day's limit when nothing moved, and say why it failed.
 */
export interface MoneyModuleOptions {
  defaultLimits?: Limits;
  /** Receipt wait for each on-chain move (chain default otherwise). */
  confirmTimeoutMs?: number;
  /** The attempt ledger: one owner per relayed move across instances (src/chain/owned-relay.ts, issue 21). */
  attempts?: RelayAttempts;
  logger?: Logger;
  now?: () => Date;
  /** With a chain per mode: the mode served (its records only, new ones marked; docs/test-mode.md). Unset: both. */
  livemode?: boolean;
  /**
   * Ends a row's spend reservation (`spendReservationId`) with the outcome a later pass records
   * (reconcile), in the same transaction: the turn that wrote it may have ended in a store error
   * before it could (src/policies/guard.ts `endReservationIn`, wired by src/core).
   */
  endSpend?: (tx: Tx, reservationId: string, outcome: SpendOutcome, now: Date) => Promise<void>;
}

/** What a spend reservation's end is decided from (src/policies/guard.ts `spendEndStatus`). */
export interface SpendOutcome {
  ok: boolean;
  reason?: string;
  /** Sent, not settled yet: the reservation stays until a later pass ends it. */
  pending?: boolean;
}

/**
 * A spend-policy reservation written in the money module's own transactions (the guard's
 * SpendSlot, src/policies/guard.ts): `reserveIn` in the one that holds the money (it throws over
 * a cap, which aborts it), `finishIn` in the one that records the outcome.
 */
export interface SpendInTx {
  /** The reservation's id, kept on the row (`spendReservationId`). */
  reserveIn(tx: Tx): Promise<string>;
  finishIn(tx: Tx, outcome: SpendOutcome): Promise<void>;
}

export abstract class MoneyModule<O extends MoneyModuleOptions = MoneyModuleOptions> {
  protected readonly now: () => Date;

  constructor(
    protected readonly store: Store,
    protected readonly chain: ChainPort,
    protected readonly fx: FxService,
    protected readonly accounts: AccountsService,
    protected readonly wallets: WalletDirectory,
    protected readonly opts: O = {} as O,
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  /** One custodial move; the same (kind, id) names the same nonce, so a retry never moves money twice. */
  protected move(req: MoveRequest): Promise<MoveOutcome> {
    return moveOnce(this.chain, req, this.opts.confirmTimeoutMs, this.opts.attempts);
  }
}

/** What a move's outcome says to the spend reservation of its row. */
export function spentBy(outcome: MoveOutcome): SpendOutcome {
  return outcome.status === 'failed' ? { ok: false, reason: outcome.reason } : outcome.status === 'pending' ? { ok: true, pending: true } : { ok: true };
}

/**
 * Ends the spend reservation a row keeps (`spendReservationId`), in the transaction that records
 * its outcome: compare-and-set from `reserved`, so whatever ended it first (the turn's guard, or
 * this later pass) stands.
 */
export async function endRowSpend(tx: Tx, opts: Pick<MoneyModuleOptions, 'endSpend'>, row: { spendReservationId?: string }, outcome: SpendOutcome, now: Date): Promise<void> {
  if (row.spendReservationId) await opts.endSpend?.(tx, row.spendReservationId, outcome, now);
}

/** A row whose money leaves a user's wallet under a hold (and the day's limit). */
export interface UserMoveRow extends Row {
  txHash?: string;
  updatedAt: string;
}

type Patch<R extends Row> = Partial<Omit<R, 'id'>>;

export interface UserMoveRecord<R extends UserMoveRow> {
  table: TableDef<R>;
  row: R;
  /** The paying wallet and its hold for this move (`holdKey(kind, id)`). */
  wallet: string;
  hold: string;
  /** The day's limit reserved for it, released when nothing moved. */
  limit?: { accountId: string; reservation?: Reservation | undefined };
  /** The row while its money is on its way: every write is a compare-and-set from it. */
  inFlight: Where<R>;
  /** How much the hold shrinks by when the move settled. */
  moved: bigint;
  settled: (txHash: Hex, at: string) => Patch<R>;
  failed: (outcome: FailedMove, at: string) => Patch<R>;
  /** Still pending with a known transaction: what to keep of it (default `{ txHash }`; nothing when it returns undefined). */
  pending?: (txHash: Hex) => Patch<R> | undefined;
  /** More writes in the same transaction, once this call moved the row to settled (a market's pools). */
  afterSettled?: (tx: Tx, row: R) => Promise<void>;
  /** Written in the same transaction whatever the outcome (the relay attempt's answer: one commit fewer). */
  alsoIn?: (tx: Tx) => Promise<void>;
}

export type FailedMove = Extract<MoveOutcome, { status: 'failed' }>;

/**
 * Records a move's outcome in one transaction: settled, the hold shrinks by `moved`; failed
 * (nothing moved), the hold is dropped and the day's limit released; pending, only a known tx
 * hash is kept and the hold stays for the sweep. `changed`: this call made the transition.
 * `txOpts`: the transaction's (an agent turn's settled outcome defers its durability: transfers.ts).
 */
export function recordUserMove<R extends UserMoveRow>(store: Store, outcome: MoveOutcome, r: UserMoveRecord<R>, txOpts?: TransactionOptions): Promise<{ row: R; changed: boolean }> {
  return store.transaction(async (tx) => {
    const t = tx.table(r.table);
    const at = nowIso();
    let row: R | undefined;
    await r.alsoIn?.(tx);
    if (outcome.status === 'settled') {
      row = await t.update(r.row.id, { ...r.settled(outcome.txHash, at), updatedAt: at }, r.inFlight);
      if (row) {
        await settleHold(tx, r.wallet, r.hold, r.moved);
        await r.afterSettled?.(tx, row);
      }
    } else if (outcome.status === 'failed') {
      row = await t.update(r.row.id, { ...r.failed(outcome, at), updatedAt: at }, r.inFlight);
      if (row) {
        await dropHold(tx, r.wallet, r.hold);
        if (r.limit?.reservation) await releaseSpend(tx, r.limit.accountId, r.limit.reservation);
      }
    } else if (outcome.txHash) {
      const keep = r.pending ? r.pending(outcome.txHash) : ({ txHash: outcome.txHash } as Patch<R>);
      if (keep) row = await t.update(r.row.id, { ...keep, updatedAt: at }, r.inFlight);
    }
    return { row: row ?? (await t.get(r.row.id))!, changed: row !== undefined };
  }, txOpts);
}

/** The usual user-paid row: moving while `submitted`, from its account's own wallet. */
export interface SubmittedMoveRow extends UserMoveRow {
  accountId: string;
  fromAddress: string;
  reservation?: Reservation;
  status: string;
}

/** The part of a `UserMoveRecord` every `submitted` row (a transfer, a bill, a stake) fills the same way. */
export function submittedMove<R extends SubmittedMoveRow>(
  table: TableDef<R>,
  row: R,
  kind: HoldKind,
): Pick<UserMoveRecord<R>, 'table' | 'row' | 'wallet' | 'hold' | 'inFlight' | 'limit'> {
  return {
    table,
    row,
    wallet: row.fromAddress,
    hold: holdKey(kind, row.id),
    inFlight: { status: 'submitted' } as Where<R>,
    limit: { accountId: row.accountId, reservation: row.reservation },
  };
}

/** How a module names a failed move to the user. */
export interface MoveFailureWords<R extends string> {
  /** The reason when the network rejected it (anything but too little money). */
  rejected: R;
  /** "... enough for this {thing}. Nothing was {done}." */
  thing: string;
  done: string;
  /** "The {rejectedThing} was rejected by the network; nothing was {rejectedDone}." (default: thing, done) */
  rejectedThing?: string;
  rejectedDone?: string;
  /** The input field an insufficient balance points at. */
  param?: string;
}

/** The refusal for a move that failed: nothing moved, so the message says so. */
export function moveFailure<R extends string>(outcome: FailedMove, w: MoveFailureWords<R>): Fail<'insufficient_balance' | R> {
  return outcome.reason === 'insufficient_balance'
    ? fail('insufficient_balance', `Insufficient balance: your wallet no longer holds enough for this ${w.thing}. Nothing was ${w.done}.`, w.param)
    : fail(w.rejected, `The ${w.rejectedThing ?? w.thing} was rejected by the network; nothing was ${w.rejectedDone ?? w.done}. (${outcome.message})`);
}
