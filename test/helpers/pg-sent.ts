import type { PgStore } from '../../src/store/index.js';

export interface SentStatement {
  text: string;
  values: unknown[];
}

/** Runs `fn` and returns what it returned with the statements the store's pool was sent meanwhile. */
export async function withSent<R>(store: PgStore, fn: () => Promise<R>): Promise<{ result: R; sent: SentStatement[] }> {
  const sent: SentStatement[] = [];
  const query = store.pool.query.bind(store.pool);
  store.pool.query = ((text: string, values: unknown[]) => {
    sent.push({ text, values });
    return query(text, values);
  }) as typeof store.pool.query;
  try {
    return { result: await fn(), sent };
  } finally {
    store.pool.query = query;
  }
}

/** The JSON plan of a sent statement as text (`ANALYZE`: with the actual rows). */
export async function planText(store: PgStore, s: SentStatement, analyze = false): Promise<string> {
  const plan = await store.pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${s.text}`, s.values);
  return JSON.stringify(plan.rows[0]!['QUERY PLAN']);
}
