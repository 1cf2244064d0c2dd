import type pg from 'pg';

/**
 * Statements prepared with SQL `PREPARE` on one PostgreSQL session, for the texts that travel
 * inside a simple-protocol query of several statements (deferred-writes.ts), which the driver's
 * own prepared statements cannot enter. Such a text was parsed, analysed and planned by the
 * server every time; `EXECUTE name(literals)` reuses the session's plan (generic after five runs,
 * which for a statement by id is the custom plan). Only named texts (TableSql.prepared: plans that
 * do not depend on the values) are prepared. Issue 23, tenth round: parse, analysis and planning
 * were about a quarter of the PostgreSQL backends' CPU in a settle burst (docs/performance.md).
 *
 * PREPARE is not transactional: once run it stays, even if its transaction rolls back. A round
 * trip that failed may or may not have run its PREPAREs, so the session then starts a new
 * generation of names (the old ones, if they exist, are never used again; failures are rare and
 * each leaves at most the few statements of one round trip behind).
 */
export class PreparedSession {
  private generation = 0;
  private readonly names = new Set<string>();

  /** `EXECUTE` text for `name`, and the `PREPARE` to send before it if this session lacks it (undefined past the cap). */
  execute(name: string, text: string, literals: string[]): { execute: string; prepare?: string } | undefined {
    const own = `x${this.generation}_${name}`;
    const execute = `EXECUTE ${own}${literals.length ? `(${literals.join(', ')})` : ''}`;
    if (this.names.has(own)) return { execute };
    // Bounded: a session never holds more than this many (a text's shape comes from code, not data).
    if (this.names.size >= MAX_PER_SESSION) return undefined;
    this.names.add(own);
    return { execute, prepare: `PREPARE ${own} AS ${text}` };
  }

  /** A round trip that carried PREPAREs failed: which of them ran is unknown. */
  uncertain(): void {
    this.generation++;
    this.names.clear();
  }
}

const MAX_PER_SESSION = 500;
const sessions = new WeakMap<pg.ClientBase, PreparedSession>();

/** The session state of a pool client (one per connection: a broken connection's client is discarded). */
export function preparedSession(client: pg.ClientBase): PreparedSession {
  let s = sessions.get(client);
  if (!s) sessions.set(client, (s = new PreparedSession()));
  return s;
}
