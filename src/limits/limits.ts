import { parseUnits } from 'viem';
import type { Account } from '../accounts/accounts.js';
import { STABLECOIN_DECIMALS } from '../fx/rates.js';
import { fail, type Result } from '../lib/results.js';
import { defineTable, type Tx } from '../store/index.js';

/**
 * Spending limits on money leaving a user's custodial wallet (transfers, bill payments,
 * market stakes), in stablecoin base units. Each operation is checked against the
 * per-operation limit and the account's total for the current UTC day; the day's usage is
 * reserved in the same store transaction that records the operation (compare-and-set on
 * the usage row) and released again if the operation fails without moving money.
 */
export const DEFAULT_LIMITS = {
  perTransfer: parseUnits('2000', STABLECOIN_DECIMALS),
  daily: parseUnits('10000', STABLECOIN_DECIMALS),
} as const;

export interface Limits {
  perTransfer: bigint;
  daily: bigint;
}

/** `account.limits` (decimal strings of base units) overrides the defaults field by field. */
export function limitsFor(account: Pick<Account, 'limits'>, defaults: Limits = DEFAULT_LIMITS): Limits {
  const parse = (s: string | undefined, d: bigint) => (s !== undefined && /^\d+$/.test(s) ? BigInt(s) : d);
  return {
    perTransfer: parse(account.limits?.perTransfer, defaults.perTransfer),
    daily: parse(account.limits?.daily, defaults.daily),
  };
}

export interface SpendUsage {
  /** `${accountId}:${day}` */
  readonly id: string;
  accountId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** Base units reserved or spent that day. */
  used: string;
}
export const SpendUsageTable = defineTable<SpendUsage>({ name: 'spend_usage', indexes: ['accountId'] });

export const LimitReason = { overLimit: 'over_limit' } as const;

/** What a reservation took, so a failure can give it back. */
export interface Reservation {
  day: string;
  amount: string;
}

export function utcDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function checkPerOperation(limits: Limits, amount: bigint, fmt: (v: bigint) => string): Result<object, 'over_limit'> {
  if (amount > limits.perTransfer) {
    return fail(
      LimitReason.overLimit,
      `That is over your limit of ${fmt(limits.perTransfer)} per payment.`,
      'amount',
    );
  }
  return { ok: true };
}

/** The day's usage so far (outside a transaction: for previews only). */
export async function usedToday(
  read: { get(id: string): Promise<SpendUsage | undefined> },
  accountId: string,
  now: Date = new Date(),
): Promise<bigint> {
  const row = await read.get(`${accountId}:${utcDay(now)}`);
  return row ? BigInt(row.used) : 0n;
}

/**
 * Checks both limits and reserves `amount` against today's total. Call inside the
 * transaction that records the operation, so the check and the reservation are one step.
 */
export async function reserveSpend(
  tx: Tx,
  account: Pick<Account, 'id' | 'limits'>,
  amount: bigint,
  fmt: (v: bigint) => string,
  now: Date = new Date(),
  defaults?: Limits,
): Promise<Result<{ reservation: Reservation }, 'over_limit'>> {
  const limits = limitsFor(account, defaults);
  const per = checkPerOperation(limits, amount, fmt);
  if (!per.ok) return per;
  const day = utcDay(now);
  const id = `${account.id}:${day}`;
  const t = tx.table(SpendUsageTable);
  const row = await t.get(id);
  const used = row ? BigInt(row.used) : 0n;
  if (used + amount > limits.daily) {
    const left = limits.daily > used ? limits.daily - used : 0n;
    return fail(
      LimitReason.overLimit,
      `That is over your daily limit of ${fmt(limits.daily)}; ${fmt(left)} left today.`,
      'amount',
    );
  }
  const next = (used + amount).toString();
  if (row) {
    const updated = await t.update(id, { used: next }, { used: row.used });
    // Another writer changed the row between read and write (only possible on a store
    // without serialised transactions): abort the whole transaction.
    if (!updated) throw new Error(`spend usage ${id} changed concurrently`);
  } else {
    await t.insert({ id, accountId: account.id, day, used: next });
  }
  return { ok: true, reservation: { day, amount: amount.toString() } };
}

/** Gives back a reservation of an operation that failed without moving money. */
export async function releaseSpend(tx: Tx, accountId: string, reservation: Reservation): Promise<void> {
  const id = `${accountId}:${reservation.day}`;
  const t = tx.table(SpendUsageTable);
  const row = await t.get(id);
  if (!row) return;
  const left = BigInt(row.used) - BigInt(reservation.amount);
  await t.update(id, { used: (left > 0n ? left : 0n).toString() }, { used: row.used });
}
