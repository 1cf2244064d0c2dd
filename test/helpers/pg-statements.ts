/**
 * The statements a service's PostgreSQL pool sends, counted at the driver (every
 * `Client.query`) between `start()` and `stop()`, for the round-trip tests of issue 23.
 *
 * A transaction whose body is only `pg_notify` is the cache channel's ping or ack
 * (src/store/cache-channel.ts, every licenseMs/4 per cache): it runs on a timer whatever the
 * request does, and a slow machine lets more of them into the window (CI once counted 5 commits
 * for a turn that makes 3, two of them pings), so it is kept apart in `background`.
 */
import pg from 'pg';

/**
 * A COMMIT, also one sent after a transaction's held writes in the same query
 * (src/store/pg/deferred-writes.ts: `UPDATE …;\nCOMMIT`).
 */
export const isCommit = (text: string): boolean => text === 'COMMIT' || text.endsWith(';\nCOMMIT');
const ends = (text: string): boolean => isCommit(text) || text === 'ROLLBACK';

export interface Counted {
  /** The request's statements, in order. */
  statements: string[];
  /** Cache-channel transactions that fell in the window. */
  background: number;
}

export function statementCounter() {
  const original = pg.Client.prototype.query;
  const open = new Map<object, string[]>();
  let sent: string[] = [];
  let background = 0;
  let counting = false;

  /** Clients whose open transaction began before the window: none of it is the request's. */
  const earlier = new WeakSet<object>();

  function record(client: object, text: string) {
    if (text.startsWith('BEGIN')) {
      earlier.delete(client);
      // The BEGIN may carry the body's first statement, or the whole transaction (src/store/pg/deferred-writes.ts).
      if (isCommit(text)) return end([text]);
      open.set(client, [text]);
      return;
    }
    if (earlier.has(client)) {
      if (ends(text)) earlier.delete(client);
      return;
    }
    const tx = open.get(client);
    if (!tx) {
      sent.push(text);
      return;
    }
    tx.push(text);
    if (!ends(text)) return;
    open.delete(client);
    end(tx);
  }

  /** A whole transaction: the request's, or a cache-channel ping (its body only `pg_notify`). */
  function end(tx: string[]) {
    const body = tx
      .flatMap((t) => t.split(';\n'))
      .filter((s) => !s.startsWith('BEGIN') && s !== 'COMMIT' && s !== 'ROLLBACK');
    if (body.length > 0 && body.every((s) => s.startsWith('SELECT pg_notify'))) background++;
    else sent.push(...tx);
  }

  (pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
    const text: string = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? args[0]?.name ?? '?');
    if (counting) record(this, text);
    // Outside the window only the transaction boundaries are followed, so that a transaction
    // open when the window starts is known as not the request's (a background pass's COMMIT
    // once leaked into a create's count).
    // A whole transaction in one round trip (`BEGIN …;\nCOMMIT`: held writes only, such as the
    // relay journal's entry with the hash record) leaves nothing open.
    // A transaction the last window saw begin and that ended after it is over too.
    else if (ends(text)) {
      earlier.delete(this);
      open.delete(this);
    } else if (text.startsWith('BEGIN')) earlier.add(this);
    return (original as any).apply(this, args);
  };

  return {
    start(): void {
      // A transaction still open from an earlier window is not this request's either.
      for (const client of open.keys()) earlier.add(client);
      open.clear();
      sent = [];
      background = 0;
      counting = true;
    },
    stop(): Counted {
      counting = false;
      return { statements: sent, background };
    },
    restore(): void {
      pg.Client.prototype.query = original;
    },
  };
}
