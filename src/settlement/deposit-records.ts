/**
 * A deposit address's record (the transfers credited to its session, the sweep and give-backs),
 * what the page shows of it, and the small rules the watcher (deposit-watcher.ts) applies to it.
 */
import type { Address } from 'viem';
import { defineTable } from '../store/index.js';
import type { Payment } from '../payments/payments.js';

/** One token transfer into a deposit address. */
export interface DepositTransfer {
  /** `<txHash>:<logIndex>`: a log is credited once however often it is scanned. */
  id: string;
  txHash: string;
  logIndex: number;
  blockNumber: string;
  from: string;
  /** Base units. */
  value: string;
  /** Unset: credited to the session. `swept`: part of the sweep to the merchant. `refund`: given back to `from`. */
  use?: 'swept' | 'refund';
  refundTxHash?: string;
  refundedAt?: string;
}

export interface Deposit {
  /** The payment id: one deposit address per payment. */
  readonly id: string;
  /** Index on the deposit branch, unique (a store constraint): two sessions never share an address. */
  index: number;
  address: string;
  createdAt: string;
  /** `open` while the watcher looks at it; `closed` past `watchUntil` with nothing left to do. */
  watch: 'open' | 'closed';
  /** Session expiry plus DEPOSIT_WATCH_GRACE. */
  watchUntil: string;
  transfers: DepositTransfer[];
  /** Stored before the sweep is sent (the payment is `processing` from then on). */
  sweep?: { value: string; transferIds: string[]; payTo: string; txHash?: string; done?: boolean };
  livemode?: boolean; // false: a test-mode payment's, watched on test mode's chain (docs/test-mode.md)
  updatedAt: string;
}

export const Deposits = defineTable<Deposit>({
  name: 'payment_deposits',
  unique: [['index']],
  ranges: [['watch', 'watchUntil']],
});

/** What the page and the checkout JSON show. */
export interface DepositInfo {
  address: Address;
  /** Credited to the session so far (base units). */
  received: bigint;
  /** Still to pay (base units): the amount less what was received, at least 0. */
  remaining: bigint;
  /** EIP-681: `ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<remaining>`; absent once the whole amount arrived (nothing more to send). */
  uri?: string;
}

export interface DepositPassSummary {
  credited: number;
  settled: number;
  refunded: number;
  closed: number;
}

/** A deposit the pass must look at even without a new transfer. */
export function hasWork(d: Deposit): boolean {
  return (
    (d.sweep !== undefined && !d.sweep.done) ||
    d.transfers.some((t) => t.use === undefined || (t.use === 'refund' && !t.refundTxHash)) ||
    Date.parse(d.watchUntil) <= Date.now()
  );
}

/** Transfers credited to the session and not yet swept or given back. */
export function credited(d: Deposit): DepositTransfer[] {
  return d.transfers.filter((t) => t.use === undefined);
}

/**
 * Whether money arriving now can still pay the session: while it is pending, and while a
 * signed payment is in flight (it may go back to pending). Anything else is given back.
 */
export function acceptsDeposits(p: Pick<Payment, 'status'>): boolean {
  return p.status === 'pending' || p.status === 'processing';
}

export const max0 = (n: bigint): bigint => (n < 0n ? 0n : n);

// -- the log scan's cursor and tuning (the watcher's pass, deposit-watcher.ts)

/** Where the last pass's log scan ended (one row). */
export interface ScanCursor {
  readonly id: string;
  block: string;
  updatedAt: string;
}
export const DepositScan = defineTable<ScanCursor>({ name: 'deposit_scan' });
export const CURSOR_ID = 'transfers';

// The first pass ever (no cursor) looks this far back; sessions are never older than a day.
export const FIRST_SCAN_LOOKBACK = 10_000n;
export const PAGE = 500;
// With nothing to watch, the cursor moves once it is this many blocks behind (a later scan stays short).
export const IDLE_CURSOR_LAG = 1_000n;
// Each pass scans again this many blocks behind its cursor: a node may name a block as the head
// before its logs can be read (the receipt watcher meets the same), and a load-balanced RPC may
// answer from a node a block behind. Crediting ignores a transfer already seen, so the overlap costs
// one short log query and never counts money twice.
export const RESCAN_OVERLAP = 64n;
