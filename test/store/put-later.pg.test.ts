import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, putUnread } from '../../src/store/index.js';
import { RelayJournalTable, storeRelayJournal, type JournalEntry } from '../../src/chain/relay-journal.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { isCommit, statementCounter } from '../helpers/pg-statements.js';

/**
 * Issue 23, thirteenth round (h13pg), PostgreSQL only: a whole-row write nobody reads the outcome
 * of (`putLater`, the relay journal's entry) has no round trip of its own, so the journal's
 * commit with the settle's hash record (both held) is ONE round trip: BEGIN, the writes, COMMIT.
 * It was two: the insert-or-read waited for its answer, then the held writes went with the COMMIT.
 */
const opened: Array<{ db: TestDatabase; store: PgStore }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.store.close().finally(() => o.db.drop());
});

async function open(tag: string) {
  const db = await createDatabase(tag);
  const store = await PgStore.open(db.url, { poolMax: 4 });
  opened.push({ db, store });
  return store;
}

const entry = (nonce: number, hash: string, extra: Partial<JournalEntry> = {}) => ({
  chainId: 31337,
  relayer: '0xAbC0000000000000000000000000000000000001',
  nonce,
  hash: hash as `0x${string}`,
  raw: `0x${hash.slice(2)}ff` as `0x${string}`,
  ...extra,
});

describe('PostgreSQL store: a held whole-row write (putLater)', () => {
  it('the journal entry and the writes beside it are one round trip with BEGIN and COMMIT', async () => {
    const s = await open('h13pg_put_one');
    await s.transaction(async (tx) => {
      await tx.table(Payments).insert({ id: 'p1', accountId: 'acct', livemode: true, reference: 'r1', status: 'processing' } as unknown as Payment);
    });
    const journal = storeRelayJournal(s);
    const counter = statementCounter();
    counter.start();
    const ran = await journal.record(entry(7, '0x01', { owners: [{ attempt: 'att_1', generation: 1 }] }), async (tx) => {
      tx.table(Payments).updateLater!('p1', { txHash: '0x01' } as Partial<Payment>, { status: 'processing' });
    });
    const { statements } = counter.stop();
    counter.restore();
    expect(ran).toBe(true);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^BEGIN ISOLATION LEVEL SERIALIZABLE;\n/);
    expect(isCommit(statements[0]!)).toBe(true);
    const rows = await s.table(RelayJournalTable).findMany({});
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: '31337:0xabc0000000000000000000000000000000000001:7', hash: '0x01', owners: [{ attempt: 'att_1', generation: 1 }] });
    expect((await s.table(Payments).get('p1'))?.txHash).toBe('0x01');
  });

  it('a nonce handed out again replaces the entry whole: fields it lacks (minedAt, owners) are gone, as the insert-or-read and update did', async () => {
    const s = await open('h13pg_put_replace');
    const journal = storeRelayJournal(s);
    await journal.record(entry(3, '0x0a', { owners: [{ attempt: 'att_a', generation: 2 }] }), async () => undefined);
    const id = '31337:0xabc0000000000000000000000000000000000001:3';
    await journal.mined([id], '2026-11-29T00:00:00.000Z');
    expect((await s.table(RelayJournalTable).get(id))?.minedAt).toBe('2026-11-29T00:00:00.000Z');
    await journal.record(entry(3, '0x0b'), async () => undefined);
    const got = await s.table(RelayJournalTable).get(id);
    expect(got).toMatchObject({ id, hash: '0x0b', nonce: 3, relayer: '0xabc0000000000000000000000000000000000001' });
    expect(got && 'minedAt' in got).toBe(false);
    expect(got && 'owners' in got).toBe(false);
    // The same through `putUnread` on a row written directly, and a fresh id inserted.
    await s.transaction(async (tx) => {
      await putUnread(tx.table(RelayJournalTable), { ...got!, hash: '0x0c' });
      await putUnread(tx.table(RelayJournalTable), { ...got!, id: 'other', hash: '0x0d' });
    });
    expect((await s.table(RelayJournalTable).get(id))?.hash).toBe('0x0c');
    expect((await s.table(RelayJournalTable).get('other'))?.hash).toBe('0x0d');
    expect(await s.table(RelayJournalTable).count({})).toBe(2);
  });

  it('a held update asks for no row back (no RETURNING: nothing for the server to send or the driver to parse)', async () => {
    const s = await open('h13pg_held_noreturn');
    await s.transaction(async (tx) => {
      await tx.table(Payments).insert({ id: 'p2', accountId: 'acct', livemode: true, reference: 'r2', status: 'processing' } as unknown as Payment);
    });
    const counter = statementCounter();
    counter.start();
    await s.transaction(async (tx) => {
      tx.table(Payments).updateLater!('p2', { txHash: '0x02' } as Partial<Payment>, { status: 'processing' });
    });
    const { statements } = counter.stop();
    counter.restore();
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/PREPARE \w+ AS UPDATE "payments" SET doc = [^;]* WHERE id = \$1 AND [^;]*;\n/);
    expect(statements[0]).not.toMatch(/RETURNING/);
    expect((await s.table(Payments).get('p2'))?.txHash).toBe('0x02');
  });

  it('refused on a table with unique groups (another row could hold the key)', async () => {
    const s = await open('h13pg_put_unique');
    await expect(
      s.transaction(async (tx) => {
        tx.table(Payments).putLater!({ id: 'x', accountId: 'a', livemode: true, reference: 'r', status: 'pending' } as unknown as Payment);
      }),
    ).rejects.toThrow(/putLater on payments/);
  });
});
