/**
 * PostgreSQL connections: the test run's budget (docs/testing.md, "Fifteenth round (h15ci)").
 *
 * The server allows 100 clients (`max_connections`, 3 of them kept for superusers). Files of the
 * `pg` project run several at once, and each holds connections to its own databases: a service's
 * pool (DATABASE_POOL_MAX, default 10) and its LISTEN connection, a store opened by the test, the
 * pools of child-process instances (5 each in test/helpers/cluster.ts), a reader for assertions.
 * Four files that each took their share silently ran the server out ("too many clients") in the
 * ninth round, so the share is written down here and checked both ways:
 *
 * - every `pg` file declares (by default) or is given (PG_FILE_BUDGET) the most connections it
 *   may hold at once to its databases; test/helpers/pg-setup.ts samples what it holds while it
 *   runs and names the file when it holds more, failing it under SP_PG_BUDGET_STRICT=1 (a new
 *   test that opens another pool must say so here, not find out from a neighbour's `too many
 *   clients`);
 * - the sequencer (test/helpers/sequencer.ts) never plans files whose budgets add up to more than
 *   PG_RUN_BUDGET at the same time.
 */

/** The server's max_connections this budget is written for; pg-setup refuses a smaller server. */
export const PG_SERVER_CONNECTIONS = 100;
/**
 * What the run's files together may hold at once. The rest of the 100: 3 kept for superusers, one
 * watcher per running file (pg-setup's sampler on the admin database), the short admin
 * connections that create and drop databases, and a margin for a person's psql.
 */
export const PG_RUN_BUDGET = 86;
/**
 * One in-process service (a pool of 10 and its LISTEN connection), a reader of the test's, and a
 * restarted service's sessions while the old ones close (the most seen in such a file at four
 * workers: 11).
 */
export const PG_FILE_DEFAULT = 14;

/**
 * Files that hold more than one service's pool at once. Each figure is what its structure allows
 * at most (pools at their max), not a measurement; docs/testing.md has the measured peaks.
 */
export const PG_FILE_BUDGET: Array<[RegExp, number, string]> = [
  // Two deployments at once, each three instances (pool 5 + LISTEN) and a reader pool of 3.
  [/test\/settlement\/(settle|moves|transfers)\.instances\.pg\.test\.ts$/, 42, 'two deployments of three instances'],
  // Three instances with pools of 10 (the cap is about one pool's concurrency) and a reader pool of 3.
  [/test\/policies\/caps\.instances\.pg\.test\.ts$/, 36, 'three instances, pools of 10'],
  // Three instances (pool 5 + LISTEN) and readers.
  [/test\/store\/multi-instance\.processes\.pg\.test\.ts$/, 22, 'three instances'],
  [/test\/checkout-sessions\/read-fresh\.instances\.pg\.test\.ts$/, 16, 'two instances'],
  [/test\/store\/shutdown\.processes\.pg\.test\.ts$/, 16, 'two instances'],
  // A healthy instance and a victim (killed, then the next one started), and a reader.
  [/test\/claims\/claims\.crash\.pg\.test\.ts$/, 16, 'an instance and its victim'],
  [/test\/x402\/auth-capture\.crash\.pg\.test\.ts$/, 24, 'three scenarios at once, one instance each'],
  // Two or three in-process services or stores on one database.
  [/test\/store\/multi-instance\.pg\.test\.ts$/, 36, 'three in-process services'],
  [/test\/core\/scheduler\.pg\.test\.ts$/, 24, 'two in-process services'],
  [/test\/policies\/guard\.pg\.test\.ts$/, 24, 'two stores, 50 turns at once'],
  [/test\/store\/unavailable\.pg\.test\.ts$/, 24, 'a service and a store of 10'],
  [/test\/store\/create-roundtrips\.pg\.test\.ts$/, 24, 'two services'],
  // The core suite on PostgreSQL: a second service started beside the file's own (16 and 14 seen).
  [/test\/api\/checkout-expiry\.test\.ts$/, 24, 'a second service beside the first'],
  [/test\/x402\/x402-refunds\.test\.ts$/, 24, 'a second service beside the first'],
  // The watch's own test opens one more than the default on purpose.
  [/test\/helpers\/pg-watch\.pg\.test\.ts$/, PG_FILE_DEFAULT + 1, 'the default and one'],
];

/** The most connections a file of `project` may hold at once to its databases (0 outside `pg`). */
export function pgConnections(project: string, file: string): number {
  if (project !== 'pg') return 0;
  const f = file.replaceAll('\\', '/');
  return PG_FILE_BUDGET.find(([re]) => re.test(f))?.[1] ?? PG_FILE_DEFAULT;
}
