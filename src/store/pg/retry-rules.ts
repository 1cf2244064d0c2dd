/**
 * When a PostgreSQL transaction is run again (serialization failure, deadlock, a unique key
 * taken by a concurrent commit) and how often; see PgStore.transaction.
 */

export const MAX_ATTEMPTS = 30;
export const RETRYABLE = new Set(['40001', '40P01']);
/** A body guarded by unique keys reads the winner on its second run; a third is a real conflict. */
export const KEY_TAKEN_ATTEMPTS = 3;
/** Any fixed 64-bit number, shared by every instance (see `attempt`). */
export const RETRY_LOCK = 7_243_100_002;

/** An error PostgreSQL gives: the SQLSTATE is in `code`. */
export function sqlState(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;
}

export class RetryTransaction extends Error {
  readonly code = '40001';
  constructor(why: string) {
    super(`transaction must be retried: ${why}`);
  }
}
