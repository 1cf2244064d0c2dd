import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import type { ChainPort } from '../chain/chain-port.js';
import { fail, type Fail, type Result } from '../lib/results.js';
import { reserveSpend, type Limits, type Reservation } from '../limits/limits.js';
import { defineTable, type Store, type TransactionOptions, type Tx } from '../store/index.js';

/**
 * Outgoing-money holds per custodial wallet and chain, so concurrent moves from one wallet can
 * never spend more than it holds on that chain (docs/money-modules.md, "Wallet holds").
 *
 *   available = balance - sum(holds) - (moved now - moved when the balance was read)
 *
 * - A hold is taken in the same transaction that records the operation and reserves its
 *   daily limit (`reserveOutgoing`), after a balance read made outside the transaction.
 * - `settleHold` (money moved) and `dropHold` (nothing moved) run in the transaction that
 *   records the outcome.
 * - `moved` only grows: it is the total of holds settled so far. A balance read may predate
 *   a settlement whose hold is already gone; subtracting what settled since the read counts
 *   such a move even so. At worst a move is counted twice (refusing too early, never
 *   overspending); `withWalletFunds` re-reads the balance once that could be why.
 */
export interface WalletHolds {
  /** The custodial address, lowercase. */
  readonly id: string;
  /** Operation key (`transfer:tr_...`) -> base units still to leave the wallet (every chain). */
  holds: Record<string, string>;
  /** Base units of holds settled so far, every chain (only grows). */
  moved: string;
  /**
   * The chain id each hold's money leaves on: a hold counts only against that chain's balance
   * (a wallet has one address and a balance per chain, docs/test-mode.md). A hold without one
   * (written before holds were per chain) counts against every chain, as it did.
   */
  chainOf?: Record<string, string>;
  /** Of `moved`, what left on each chain; the rest (older rows) counts as moved on every chain. */
  movedOn?: Record<string, string>;
  /** Bumped on every write: the compare-and-set field. */
  version: number;
  updatedAt: string;
}

export const WalletHoldsTable = defineTable<WalletHolds>({ name: 'wallet_holds' });

export type HoldKind = 'transfer' | 'bill' | 'stake' | 'checkout' | 'claim';
export const holdKey = (kind: HoldKind, id: string): string => `${kind}:${id}`;

/** A balance read, and the `moved` mark taken just before it. */
export interface FundsSnapshot {
  balance: bigint;
  movedMark: bigint;
}

export interface OutgoingRequest {
  key: string;
  /** Everything that will leave the wallet, fee included. */
  amount: bigint;
  /** The daily-limit reservation (the fee is not limited, so it can differ from `amount`). */
  limit: { account: Pick<Account, 'id' | 'limits'>; amount: bigint; now: Date; defaults?: Limits | undefined };
  fmt: (v: bigint) => string;
}

export interface InsufficientFunds {
  ok: false;
  reason: 'insufficient_balance';
  message: string;
  param: 'amount';
  balance: bigint;
  /** What could still be spent: balance less what is on its way out. */
  available: bigint;
}

export type OutgoingResult = Result<{ reservation: Reservation }, 'over_limit'> | InsufficientFunds;

export interface WalletFunds {
  readonly snapshot: FundsSnapshot;
  /**
   * Checks the balance, then the limits, then writes the hold and the limit reservation.
   * On a failure nothing is written. Call once, inside the transaction that records the
   * operation.
   */
  reserve(req: OutgoingRequest): Promise<OutgoingResult>;
}

const idOf = (address: string) => address.toLowerCase();
/** The chain a hold is scoped to (a port without an id, as in unit tests, is one chain). */
const chainKey = (chain: Pick<ChainPort, 'chainId'>) => String(chain.chainId ?? 'default');

/** What is held against `chain`: its own holds and those of no recorded chain. */
function heldOn(row: WalletHolds | undefined, chain: string): bigint {
  let sum = 0n;
  for (const [k, v] of Object.entries(row?.holds ?? {})) {
    const on = row?.chainOf?.[k];
    if (on === undefined || on === chain) sum += BigInt(v);
  }
  return sum;
}

/** What left the wallet on `chain`, plus what left on no recorded chain. */
function movedOn(row: WalletHolds | undefined, chain: string): bigint {
  if (!row) return 0n;
  let perChain = 0n;
  for (const v of Object.values(row.movedOn ?? {})) perChain += BigInt(v);
  return BigInt(row.movedOn?.[chain] ?? '0') + BigInt(row.moved) - perChain;
}

class StaleBalance extends Error {}

/** Attempts per call: only a settlement landing between read and check causes another. */
const MAX_READS = 3;

/**
 * Reads the balance (outside any transaction), then runs `fn` in a transaction with a
 * `WalletFunds` for that read. When a refusal may be due only to a settlement recorded
 * after the read (its hold gone, its amount counted via `moved`), the transaction is
 * abandoned and it starts again with a fresh read; the last attempt's refusal stands.
 * The chain being unreachable is `chain_unavailable`, with nothing written.
 */
export async function withWalletFunds<R>(
  store: Store,
  chain: ChainPort,
  address: Address,
  fn: (tx: Tx, funds: WalletFunds) => Promise<R>,
  /** The first read, started earlier by the caller (`readFunds`), e.g. while it signs. */
  firstRead?: Promise<FundsSnapshot>,
  /** The transaction's options (`deferDurability`: the caller's next durable commit carries it). */
  txOpts?: TransactionOptions,
): Promise<R | Fail<'chain_unavailable'>> {
  for (let attempt = 1; ; attempt++) {
    let snapshot: FundsSnapshot;
    try {
      snapshot = await (attempt === 1 && firstRead ? firstRead : readFunds(store, chain, address));
    } catch {
      return fail('chain_unavailable', 'the chain could not be reached to read the balance');
    }
    try {
      return await store.transaction((tx) => fn(tx, fundsFor(tx, chainKey(chain), address, snapshot, attempt < MAX_READS)), txOpts);
    } catch (e) {
      if (e instanceof StaleBalance) continue;
      throw e;
    }
  }
}

/**
 * The balance read `withWalletFunds` checks against. Order matters: the mark first, so every
 * settlement the mark includes happened before the balance read started. Rejects when the
 * chain cannot be reached (`withWalletFunds` answers `chain_unavailable`).
 */
export async function readFunds(store: Store, chain: ChainPort, address: Address): Promise<FundsSnapshot> {
  const row = await store.table(WalletHoldsTable).get(idOf(address));
  const movedMark = movedOn(row, chainKey(chain));
  return { balance: await chain.balanceOf(address), movedMark };
}

function fundsFor(tx: Tx, chain: string, address: Address, snapshot: FundsSnapshot, mayRetry: boolean): WalletFunds {
  let used = false;
  return {
    snapshot,
    async reserve(req) {
      if (used) throw new Error('WalletFunds.reserve called twice in one transaction');
      used = true;
      const t = tx.table(WalletHoldsTable);
      const id = idOf(address);
      const row = await t.get(id);
      const movedSince = movedOn(row, chain) - snapshot.movedMark;
      const available = snapshot.balance - heldOn(row, chain) - movedSince;
      if (available < req.amount) {
        if (movedSince > 0n && mayRetry) throw new StaleBalance();
        const shown = available > 0n ? available : 0n;
        return {
          ...fail('insufficient_balance', insufficientMessage(req, snapshot.balance, shown), 'amount'),
          param: 'amount' as const,
          balance: snapshot.balance,
          available: shown,
        };
      }
      const limited = await reserveSpend(tx, req.limit.account, req.limit.amount, req.fmt, req.limit.now, req.limit.defaults);
      if (!limited.ok) return limited;
      const at = new Date().toISOString();
      const holds = { ...(row?.holds ?? {}), [req.key]: req.amount.toString() };
      const chainOf = { ...liveChainOf(row), [req.key]: chain };
      if (row) {
        const updated = await t.update(id, { holds, chainOf, version: row.version + 1, updatedAt: at }, { version: row.version });
        // Only possible on a store without serialised transactions: abort everything.
        if (!updated) throw new Error(`wallet holds ${id} changed concurrently`);
      } else {
        await t.insert({ id, holds, moved: '0', chainOf, version: 1, updatedAt: at });
      }
      return limited;
    },
  };
}

function insufficientMessage(req: OutgoingRequest, balance: bigint, available: bigint): string {
  const needs = `this needs ${req.fmt(req.amount)}`;
  return available === balance
    ? `Insufficient balance: ${needs} and your wallet has ${req.fmt(balance)}.`
    : `Insufficient balance: ${needs} and your wallet has ${req.fmt(available)} available (${req.fmt(balance)}, less payments still in progress).`;
}

/**
 * `amount` of the hold left the wallet: the hold shrinks (and goes once empty) and `moved`
 * grows by the same amount. Call once per movement, in the transaction that records it
 * (behind that record's compare-and-set). A missing hold (an operation from before holds
 * existed) changes nothing.
 */
export async function settleHold(tx: Tx, address: string, key: string, amount: bigint): Promise<void> {
  await changeHold(tx, address, key, (held) => (amount < held ? amount : held));
}

/** Nothing moved (or nothing more will): the whole hold goes and `moved` stays. */
export async function dropHold(tx: Tx, address: string, key: string): Promise<void> {
  await changeHold(tx, address, key, () => 0n, true);
}

async function changeHold(tx: Tx, address: string, key: string, movedOf: (held: bigint) => bigint, all = false): Promise<void> {
  const t = tx.table(WalletHoldsTable);
  const id = idOf(address);
  const row = await t.get(id);
  const held = row?.holds[key];
  if (!row || held === undefined) return;
  const moved = movedOf(BigInt(held));
  const left = BigInt(held) - moved;
  const holds = { ...row.holds };
  if (all || left <= 0n) delete holds[key];
  else holds[key] = left.toString();
  const on = row.chainOf?.[key];
  const perChain = on === undefined || moved === 0n ? {} : { movedOn: { ...row.movedOn, [on]: (BigInt(row.movedOn?.[on] ?? '0') + moved).toString() } };
  const updated = await t.update(
    id,
    {
      holds,
      moved: (BigInt(row.moved) + moved).toString(),
      ...perChain,
      ...(row.chainOf ? { chainOf: liveChainOf({ ...row, holds }) } : {}),
      version: row.version + 1,
      updatedAt: new Date().toISOString(),
    },
    { version: row.version },
  );
  if (!updated) throw new Error(`wallet holds ${id} changed concurrently`);
}

/** `chainOf` of the holds still open (an entry outlives its hold only if an older instance released it). */
function liveChainOf(row: Pick<WalletHolds, 'holds' | 'chainOf'> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(row?.chainOf ?? {}).filter(([k]) => row?.holds[k] !== undefined));
}
