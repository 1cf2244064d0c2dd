/**
 * Whether an error means the store could not serve the request right now (docs/store.md,
 * "When the database is unavailable"): the doors answer it with 503 and Retry-After in their
 * route family's error shape, never 500. Read from the error's code (SQLSTATE or the socket's
 * errno) and, for the `pg` driver's own errors that carry none, its message; causes are followed.
 */

/**
 * SQLSTATEs: connection exceptions (08), insufficient resources (53: too many clients, out of
 * memory, disk full), operator intervention (57P01-57P05: shutdown, cannot connect now, idle
 * session timeout; 57014: statement timeout), lock timeout (55P03), idle-in-transaction timeout
 * (25P03), and serialization failures and deadlocks that reach a caller (40001, 40P01: the
 * store's retries ran out).
 */
const SQLSTATE = /^(08...|53...|57P0[1-5]|57014|55P03|25P03|40001|40P01)$/;
/** Socket and file errors: the database host or the lowdb file cannot be reached or written. */
const ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOSPC', 'EMFILE', 'ENFILE', 'EIO', 'EROFS']);
/** The `pg` driver's and pool's errors without a code, and the store's own after close. */
const MESSAGE = /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end|store is closed)/;

/** Seconds a client should wait before retrying a request the store could not serve. */
export const STORE_RETRY_AFTER_S = 2;

export function isStoreUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SQLSTATE.test(code) || ERRNO.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && MESSAGE.test(message)) return true;
  }
  return false;
}
