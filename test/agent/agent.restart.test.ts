import { describe, expect, it } from 'vitest';
import { PendingActions, type PendingAction } from '../../src/agent/pending-tool-call.js';
import { call, createMerchant, startTestService } from '../helpers/service.js';

describe('a pending action cut off by a stop', () => {
  it('is settled as interrupted when the service starts again, and a late Confirm does not run it', async () => {
    const first = await startTestService();
    const dataDir = first.dataDir;
    const m = await createMerchant(first.api, 'Cut off');
    const now = new Date();
    const row: PendingAction = {
      id: 'act_cutoff0000000000000000',
      accountId: m.accountId,
      channel: 'chat',
      call: { name: 'send_transfer', input: { recipient: '@amina', amount: '5000', currency: 'KES' } },
      description: 'Send 5,000 KES to @amina',
      // What a stop while carrying it out leaves behind.
      status: 'executing',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 600_000).toISOString(),
      updatedAt: now.toISOString(),
    };
    await first.deps.store.write(PendingActions, (t) => t.insert(row));
    await first.stop();

    const second = await startTestService({}, { dataDir });
    try {
      expect(await second.deps.store.table(PendingActions).get(row.id)).toMatchObject({
        status: 'done',
        outcome: { ok: false, action: 'transfer', reason: 'interrupted' },
      });
      const tap = await call(`${second.api}/chat/confirm`, { cookie: m.cookie, body: { action_id: row.id } });
      expect(tap.status).toBe(422);
      expect(tap.body).toMatchObject({ ok: false, reason: 'interrupted' });
    } finally {
      await second.stop({ removeData: true });
    }
  });
});
