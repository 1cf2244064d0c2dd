import pg from 'pg';
import type { Run } from './pg-table.js';

/** A statement waiting for its round trip; `held` ones (updateLater) have no caller waiting. */
type Entry =
  | { held: string }
  | { held?: undefined; text: string; values: unknown[]; name: string | undefined; resolve: (r: pg.QueryResult) => void; reject: (e: unknown) => void };

/**
 * The writes of one PostgreSQL transaction whose outcome nobody reads (`WriteTable.updateLater`:
 * the settle's hash record on the payment and its attempt, an attempt's final answer). They are
 * held, and sent in the same round trip as the transaction's next statement or its COMMIT: one
 * simple-protocol query of several statements, run by the server one after another, so each
 * statement sees the ones before it exactly as if each had been sent alone. A held write that
 * fails stops the rest of the query (the COMMIT included) and fails the transaction like any
 * failed statement. Statements a body issues together (`Promise.all`: the claim's compare-and-set
 * and its attempt row) share one round trip the same way. On this machine each statement's socket
 * write is the service's largest PostgreSQL cost (docs/performance.md, sixth and seventh rounds).
 *
 * The values travel as quoted literals (`inline`), typed by the statement's casts as the
 * unnamed parameters of the extended protocol are.
 */
export class DeferredWrites {
  /** In issue order: a held write goes before the statements issued after it, never before earlier ones. */
  private queue: Entry[] = [];
  private sending = false;

  /**
   * `turn`: statements wait for the end of the event loop's turn instead of the current tick, so
   * those of the members of a commit group run side by side (commit-groups.ts) share a round trip
   * although each reached its statement after a different number of awaits.
   */
  constructor(private readonly window: 'tick' | 'turn' = 'tick') {}

  add(text: string, params: readonly unknown[]): void {
    this.queue.push({ held: inline(text, params) });
  }

  /**
   * The transaction's BEGIN, held like a write: it goes in the round trip of the first statement
   * (or of the COMMIT), which the server runs after it, inside the transaction it opens.
   */
  begin(sql: string): void {
    this.queue.unshift({ held: sql });
  }

  /**
   * `run` for the transaction's statements. Statements issued together (in one tick: a body's
   * `Promise.all`) and the held writes go in ONE round trip, a query of several statements run in
   * issue order, each answered with its own result; a statement alone with nothing held goes as
   * itself (prepared when named). A failure rejects every statement of its round trip (the
   * transaction has failed then anyway). Round trips of one transaction never overlap.
   */
  runner(run: Run): Run {
    return <R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) =>
      new Promise<pg.QueryResult<R>>((resolve, reject) => {
        this.queue.push({ text, values, name, resolve: resolve as (r: pg.QueryResult) => void, reject });
        this.pump(run);
      });
  }

  /** COMMIT, after the held writes in the same round trip (the body has no statement still waiting). */
  commitSql(): string {
    const held = this.queue.map((e) => e.held).filter((h): h is string => h !== undefined);
    this.queue = [];
    return held.length === 0 ? 'COMMIT' : `${held.join(';\n')};\nCOMMIT`;
  }

  private pump(run: Run): void {
    if (this.sending || !this.queue.some((e) => e.held === undefined)) return;
    this.sending = true;
    // After the current tick (or turn): the statements issued alongside this one join it.
    const go = () => {
      void this.send(run).finally(() => {
        this.sending = false;
        this.pump(run);
      });
    };
    if (this.window === 'turn') setImmediate(go);
    else queueMicrotask(go);
  }

  /** Whether any round trip went (before it, the transaction's BEGIN is still held: nothing to roll back). */
  get started(): boolean {
    return this.sent;
  }

  private sent = false;

  private async send(run: Run): Promise<void> {
    this.sent = true;
    const batch = this.queue;
    this.queue = [];
    const waiting = batch.filter((e) => e.held === undefined);
    if (batch.length === 1) {
      const q = waiting[0]!;
      return run(q.text, q.values, q.name).then(q.resolve, q.reject);
    }
    let texts: string[];
    try {
      texts = batch.map((e) => (e.held !== undefined ? e.held : inline(e.text, e.values)));
    } catch {
      // A value with no literal form here: each in turn, in issue order.
      for (const e of batch) {
        if (e.held === undefined) await run(e.text, e.values, e.name).then(e.resolve, e.reject);
        else {
          try {
            await run(e.held, []);
          } catch (err) {
            return waiting.forEach((q) => q.reject(err));
          }
        }
      }
      return;
    }
    try {
      const r = await run(texts.join(';\n'), []);
      const results = Array.isArray(r) ? (r as pg.QueryResult[]) : [r];
      batch.forEach((e, i) => e.held === undefined && e.resolve(results[i]!));
    } catch (err) {
      waiting.forEach((q) => q.reject(err));
    }
  }
}

/** `text` with `$n` replaced by the literal of `params[n - 1]`. Throws for a value it cannot spell. */
export function inline(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) throw new Error(`no value for $${n}`);
    return literal(params[i]);
  });
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return pg.escapeLiteral(v);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return pg.escapeLiteral(String(v));
  if (Array.isArray(v)) return pg.escapeLiteral(arrayLiteral(v));
  throw new Error(`no literal for ${typeof v}`);
}

/** A one-dimensional array literal of strings (or NULLs), as the driver sends `text[]`. */
function arrayLiteral(items: unknown[]): string {
  const parts = items.map((e) => {
    if (e === null || e === undefined) return 'NULL';
    if (typeof e !== 'string' && typeof e !== 'number') throw new Error('no array literal for this element');
    return `"${String(e).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${parts.join(',')}}`;
}
