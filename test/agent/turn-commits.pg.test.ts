/**
 * The commits of one agent transfer turn on PostgreSQL, counted at the driver (every `COMMIT`
 * the service's pool sends) over real HTTP, from the request to its answer (docs/performance.md,
 * "Issue 23, fourth round"); the embedded store's count is test/agent/turn-commits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { kenyanSender, transferTurnWorld } from './transfer-turn-world.js';
import { concurrentTurns } from './concurrent-turns.js';
import { isCommit, statementCounter } from '../helpers/pg-statements.js';

let svc: TestService;
let sender: Merchant;
let counter: ReturnType<typeof statementCounter>;

beforeAll(async () => {
  ({ svc, sender } = await transferTurnWorld('amina_turns_pg'));
  counter = statementCounter();
});
afterAll(async () => {
  counter?.restore();
  await svc?.stop({ removeData: true });
});

async function countedTurn() {
  counter.start();
  const r = await call(`${svc.api}/agent/settle`, { key: sender.key, body: { message: 'send 500 KES to @amina_turns_pg' } });
  return { r, ...counter.stop() };
}

describe('one agent transfer turn on PostgreSQL', () => {
  it('commits at most MAX_COMMITS times', async () => {
    await countedTurn(); // warm: prepared statements, caches
    const { r, statements, background } = await countedTurn();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.transfer).toMatchObject({ status: 'settled', fee_status: 'settled' });
    const commits = statements.filter(isCommit);
    // eslint-disable-next-line no-console
    console.log(`agent transfer turn on PostgreSQL: ${commits.length} commits, ${statements.length} statements (${background} cache-channel transactions left out)`);
    expect(commits.length).toBeLessThanOrEqual(MAX_COMMITS);
    expect(statements.length).toBeLessThanOrEqual(MAX_STATEMENTS);
    // What the policy check, the guard and the transfer all need is read once per turn.
    const reads = readsOf(statements);
    expect(reads).toMatchObject({ accounts: 2, spend_policies: 2, policy_breakers: 1 });
    // The key's mode comes from the door; only the door's key cache may look the key up (on a slow machine).
    expect(reads.api_keys ?? 0).toBeLessThanOrEqual(1);
  });

  it('turns at once share relayer transactions (the pair joins the batch relay), each fee exact in its answer, its record and its transaction', async () => {
    // Turns of one wallet wait for each other's hold on PostgreSQL (its row lock), so 12 senders.
    const n = 12;
    const senders = [sender, ...(await Promise.all(Array.from({ length: n - 1 }, (_, i) => kenyanSender(svc, `Sender ${i}`))))];
    const txs = await concurrentTurns(svc, senders, 'amina_turns_pg', n);
    // eslint-disable-next-line no-console
    console.log(`${n} concurrent agent transfer turns (PostgreSQL): ${txs} relayer transactions`);
    expect(txs).toBeLessThan(n);
  });
});

/**
 * The same three as on the embedded store (eight at 126f3fe, in 54 statements; five in 44-45 at
 * 10c7ccc). Statements: 40-42 at 1efbea6, where the turn read the account 4 times, the recipient
 * 3 times, the policies 4, the key's mode 3 and the breaker twice; 28 once each is read once per
 * turn (src/lib/turn-reads.ts), the key's mode is the door's and the 30 days of reservations are
 * not read without a rolling cap (28-31 seen). The bound has the slack of a background statement,
 * the door's key cache re-reading the key or a retried read; the commits do not.
 */
const MAX_COMMITS = 3;

/** Reads outside a transaction, per table: the caller and the recipient, the account's and the key's policy… */
function readsOf(statements: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  let inTx = false;
  for (const s of statements) {
    if (s.startsWith('BEGIN')) inTx = true;
    else if (isCommit(s) || s === 'ROLLBACK') inTx = false;
    const table = !inTx && /^SELECT doc FROM "(\w+)"/.exec(s)?.[1];
    if (table) out[table] = (out[table] ?? 0) + 1;
  }
  return out;
}
const MAX_STATEMENTS = 31;
