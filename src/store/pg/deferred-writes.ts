import pg from 'pg';
import type { Run } from './pg-table.js';
import type { PreparedSession } from './sql-prepared.js';

/**
 * A statement for a round trip: `text` with its `values` (none for the BEGIN); `name` when its
 * plan does not depend on the values (TableSql.prepared). `waiter` is the caller waiting for the
 * answer; held ones (updateLater, the BEGIN) have none.
 */
interface Entry {
  text: string;
  values?: readonly unknown[];
  name?: string;
  /** The values spelled as literals, when already spelled (a held write's, at `add`). */
  literals?: string[];
  waiter?: { resolve: (r: pg.QueryResult) => void; reject: (e: unknown) => void };
}

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
 * unnamed parameters of the extended protocol are. With a session (sql-prepared.ts), a named
 * statement goes as `EXECUTE` of the session's prepared copy, its `PREPARE` in the same round
 * trip the first time (tenth round): the server no longer parses and plans it on every call.
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
  constructor(
    private readonly window: 'tick' | 'turn' = 'tick',
    /** The connection's prepared statements; without it every statement travels inline. */
    private readonly session?: PreparedSession,
  ) {}

  /** A held write (`name`: prepared on the session like a named statement). Its values are spelled now: one that has no literal throws here. */
  add(text: string, params: readonly unknown[], name?: string): void {
    // Kept for the round trip's text: spelled once (a held write is often a whole row's JSON).
    this.queue.push({ text, values: params, name, literals: params.map(literal) });
  }

  /**
   * The transaction's BEGIN, held like a write: it goes in the round trip of the first statement
   * (or of the COMMIT), which the server runs after it, inside the transaction it opens.
   */
  begin(sql: string): void {
    this.queue.unshift({ text: sql });
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
        this.queue.push({ text, values, name, waiter: { resolve: resolve as (r: pg.QueryResult) => void, reject } });
        this.pump(run);
      });
  }

  /**
   * COMMIT, after the held writes in the same round trip (the body has no statement still
   * waiting), sent by `send`; its failure is thrown as is.
   */
  async commit(send: (text: string) => Promise<unknown>): Promise<void> {
    const held = this.queue.filter((e) => e.waiter === undefined);
    this.queue = [];
    const { text, prepared } = this.render([...held, { text: 'COMMIT' }]);
    try {
      await send(text);
    } catch (e) {
      if (prepared) this.session?.uncertain();
      throw e;
    }
  }

  /**
   * The round trip's text: each statement inline, or as EXECUTE of the session's copy, with the
   * PREPAREs it still needs right after a leading BEGIN (inside the transaction; a PREPARE stays
   * even if the transaction rolls back); `at[i]` is the index of entry i's result. Throws, before
   * anything is prepared, for a value it cannot spell.
   */
  private render(batch: Entry[]): { text: string; at: number[]; prepared: boolean } {
    const literals = batch.map((e) => e.literals ?? (e.values ?? []).map(literal));
    const prepares: string[] = [];
    let executes = 0;
    const texts = batch.map((e, i) => {
      const lits = literals[i]!;
      if (e.values === undefined) return e.text;
      const x = e.name !== undefined && this.session ? this.session.execute(e.name, e.text, lits) : undefined;
      if (!x) return spell(e.text, lits);
      if (x.prepare) prepares.push(x.prepare);
      executes++;
      return x.execute;
    });
    const lead = batch[0]?.values === undefined && batch[0]!.text.startsWith('BEGIN') ? 1 : 0;
    // The prepared statements' plans are generic from their first run: PostgreSQL would plan
    // each anew for its first five runs on every connection, and a fresh pool's burst is mostly
    // first runs. Their plans do not depend on the values (TableSql.prepared). Set once per
    // transaction (SET LOCAL: the COMMIT or ROLLBACK ends it). Inline statements carry no
    // parameters, so their plans are the same whatever the setting; the one statement it would
    // change, an unnamed one with parameters sent alone, first restores it (`send`).
    const generic = executes > 0 && this.generic !== true ? [GENERIC] : [];
    if (generic.length) this.generic = true;
    const before = prepares.length + generic.length;
    const all = [...texts.slice(0, lead), ...prepares, ...generic, ...texts.slice(lead)];
    const at = batch.map((_, i) => (i < lead ? i : i + before));
    return { text: all.join(';\n'), at, prepared: prepares.length > 0 };
  }

  private pump(run: Run): void {
    if (this.sending || !this.queue.some((e) => e.waiter !== undefined)) return;
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
  /** Whether this transaction's `plan_cache_mode` is `force_generic_plan` (set by a round trip with EXECUTEs); undefined: not known. */
  private generic: boolean | undefined = false;

  private async send(run: Run): Promise<void> {
    this.sent = true;
    const batch = this.queue;
    this.queue = [];
    // An unnamed statement with parameters (extended protocol) would get a generic plan while
    // the transaction's setting is on (a scan by status over every row): the setting is restored
    // in front of it, in the same round trip, and the statement goes inline (planned with its values).
    if (this.generic !== false && batch.length === 1 && batch[0]!.name === undefined && (batch[0]!.values?.length ?? 0) > 0) {
      batch.unshift({ text: RESTORE });
      this.generic = false;
    }
    // A ROLLBACK TO SAVEPOINT undoes a SET LOCAL made after that savepoint (a unique-field
    // update's, pg-table.ts): the setting is unknown from then on, so the next round trip that
    // needs it on sets it, and the next statement that needs it off restores it.
    if (batch.some((e) => e.text.startsWith('ROLLBACK TO SAVEPOINT'))) {
      try {
        return await this.sendBatch(run, batch);
      } finally {
        this.generic = undefined;
      }
    }
    return this.sendBatch(run, batch);
  }

  private async sendBatch(run: Run, batch: Entry[]): Promise<void> {
    const waiting = batch.filter((e) => e.waiter !== undefined);
    if (batch.length === 1) {
      const q = waiting[0]!;
      return run(q.text, [...(q.values ?? [])], q.name).then(q.waiter!.resolve, q.waiter!.reject);
    }
    let rendered: ReturnType<DeferredWrites['render']>;
    try {
      rendered = this.render(batch);
    } catch {
      // A value with no literal form here (only a waiting statement's: held ones were checked
      // when added): each in turn, in issue order.
      for (const e of batch) {
        if (e.waiter) await run(e.text, [...(e.values ?? [])], e.name).then(e.waiter.resolve, e.waiter.reject);
        else {
          try {
            await run(e.values === undefined ? e.text : inline(e.text, e.values), []);
          } catch (err) {
            return waiting.forEach((q) => q.waiter!.reject(err));
          }
        }
      }
      return;
    }
    try {
      const r = await run(rendered.text, []);
      const results = Array.isArray(r) ? (r as pg.QueryResult[]) : [r];
      batch.forEach((e, i) => e.waiter?.resolve(results[rendered.at[i]!]!));
    } catch (err) {
      if (rendered.prepared) this.session?.uncertain();
      waiting.forEach((q) => q.waiter!.reject(err));
    }
  }
}

const GENERIC = 'SET LOCAL plan_cache_mode = force_generic_plan';
const RESTORE = 'SET LOCAL plan_cache_mode TO DEFAULT';

/** `text` with `$n` replaced by the literal of `params[n - 1]`. Throws for a value it cannot spell. */
export function inline(text: string, params: readonly unknown[]): string {
  return spell(text, params.map(literal));
}

/** `text` with `$n` replaced by `literals[n - 1]`. */
function spell(text: string, literals: readonly string[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= literals.length) throw new Error(`no value for $${n}`);
    return literals[i]!;
  });
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return escapeLiteral(v);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return escapeLiteral(String(v));
  if (Array.isArray(v)) return escapeLiteral(arrayLiteral(v));
  throw new Error(`no literal for ${typeof v}`);
}

/**
 * The same text as the driver's `pg.escapeLiteral` (quotes doubled, backslashes doubled and then
 * ` E'…'`), built with whole-string replaces: the driver's appends one character at a time, a
 * string of one node per character that V8 flattens later at a cost of ~17 µs for a 1.5 kB row
 * (0.8 µs so), and every JSON document of a round trip of several statements is such a literal
 * (issue 23, eleventh round).
 */
export function escapeLiteral(s: string): string {
  const quote = s.includes("'");
  const backslash = s.includes('\\');
  if (!quote && !backslash) return `'${s}'`;
  let e = quote ? s.replaceAll("'", "''") : s;
  if (backslash) e = e.replaceAll('\\', '\\\\');
  return backslash ? ` E'${e}'` : `'${e}'`;
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
