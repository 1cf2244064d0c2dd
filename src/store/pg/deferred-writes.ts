import pg from 'pg';
import type { Run } from './pg-table.js';

/**
 * The writes of one PostgreSQL transaction whose outcome nobody reads (`WriteTable.updateLater`:
 * the settle's hash record on the payment and its attempt, an attempt's final answer). They are
 * held, and sent in the same round trip as the transaction's next statement or its COMMIT: one
 * simple-protocol query of several statements, run by the server one after another, so each
 * statement sees the ones before it exactly as if each had been sent alone. A held write that
 * fails stops the rest of the query (the COMMIT included) and fails the transaction like any
 * failed statement. On this machine each statement's socket write is the service's largest
 * PostgreSQL cost (docs/performance.md, sixth and seventh rounds).
 *
 * The values travel as quoted literals (`inline`), typed by the statement's casts as the
 * unnamed parameters of the extended protocol are.
 */
export class DeferredWrites {
  private held: string[] = [];

  add(text: string, params: readonly unknown[]): void {
    this.held.push(inline(text, params));
  }

  /** The held statements, cleared. */
  take(): string[] {
    const h = this.held;
    this.held = [];
    return h;
  }

  /**
   * `run` for the transaction's statements: one with writes held goes in the same round trip
   * as them (its own values inlined); the query's last result is the statement's.
   */
  runner(run: Run): Run {
    return async <R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) => {
      if (this.held.length === 0) return run<R>(text, values, name);
      const held = this.take();
      let tail: string;
      try {
        tail = inline(text, values);
      } catch {
        // A value with no literal form here: the held writes alone first, then the statement.
        await run(held.join(';\n'), []);
        return run<R>(text, values, name);
      }
      return last<R>(await run<R>(`${held.join(';\n')};\n${tail}`, []));
    };
  }

  /** COMMIT, after the held writes in the same round trip. */
  commitSql(): string {
    const held = this.take();
    return held.length === 0 ? 'COMMIT' : `${held.join(';\n')};\nCOMMIT`;
  }
}

/** A multi-statement query answers one result per statement. */
function last<R extends pg.QueryResultRow>(r: pg.QueryResult<R> | Array<pg.QueryResult<R>>): pg.QueryResult<R> {
  return Array.isArray(r) ? r[r.length - 1]! : r;
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
