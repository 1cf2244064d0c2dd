import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { readEndpoints, WebhookEndpoints, type WebhookEndpoint } from '../../src/webhooks/outbox.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { statementCounter } from '../helpers/pg-statements.js';

/**
 * An account's endpoints read inside a PostgreSQL transaction (outbox.ts `readEndpoints`: every
 * settle's event while the endpoint cache is cold): the default endpoint and the added ones are
 * asked in one round trip, not two in a row (a commit group waits on each of its round trips).
 */
let db: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await db?.drop();
  store = db = undefined;
});

describe('webhook endpoints read in a transaction on PostgreSQL', () => {
  it('the default endpoint and the added ones come back from one round trip', async () => {
    db = await createDatabase('wh_ep_read');
    store = await PgStore.open(db.url, { poolMax: 2 });
    const added = { id: 'we_added', accountId: 'acct_r', livemode: true, url: 'https://example.com/hook', createdAt: new Date(0).toISOString() } as unknown as WebhookEndpoint;
    await store.transaction(async (tx) => {
      await tx.table(WebhookEndpoints).insert(added);
    });
    const counter = statementCounter();
    counter.start();
    const got = await store.transaction(async (tx) => {
      // A first statement opens the transaction (the BEGIN rides with it); then the read.
      await tx.table(WebhookEndpoints).get('we_none');
      return readEndpoints(tx, 'acct_r', true);
    });
    const { statements } = counter.stop();
    counter.restore();
    expect(got.main).toBeUndefined();
    expect(got.added.map((e) => e.id)).toEqual(['we_added']);
    // BEGIN with the first get, the two reads together, the COMMIT.
    const reads = statements.filter((s) => s.includes('"webhook_endpoints"') && !s.startsWith('BEGIN'));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain(';\n');
  });
});
