/**
 * outcome-after-reply.test.ts on PostgreSQL: every commit there is durable before it returns (the
 * store ignores `deferDurability`), so the turn's settled outcome is in the database when the
 * reply leaves, and any read after the reply, on any instance, sees it. A process that dies after
 * the money left and before that commit leaves the row `submitted`; the next lifetime finishes
 * it from the chain before its doors open.
 */
import { describe, expect, it } from 'vitest';
import { storedTables } from '../helpers/stored.js';
import { activityStatus, batchMembersCrash, crashBeforeOutcome, crashWorld, turn } from './outcome-crash.js';

// Two service lifetimes (each its own start-up and anvil) per test: more than the project's 30 s on a loaded machine.
describe('an agent transfer\'s outcome on PostgreSQL', () => {
  it('answered settled: already settled in the database, and read so at once on the same instance', { timeout: 120_000 }, async () => {
    const { svc, sender } = await crashWorld('amina_pg_read');
    try {
      const r = await turn(svc, sender, 'send 500 KES to @amina_pg_read');
      expect(r.body.transfer).toMatchObject({ status: 'settled', fee_status: 'settled' });
      const id = r.body.transfer.id as string;
      expect((await storedTables<Record<string, unknown>>(svc.dataDir)).tables.transfers?.find((t) => t.id === id)).toMatchObject({ status: 'settled' });
      expect(await activityStatus(svc, sender, id)).toBe('settled');
    } finally {
      await svc.stop({ removeData: true });
    }
  });

  it('the process dies after the money left and before the outcome\'s commit: the next lifetime shows it settled', { timeout: 120_000 }, async () => {
    await crashBeforeOutcome('amina_pg_before');
  });

  it('batch members: the process dies after the batch left, inside the grace and before any outcome: the next lifetime shows them settled (h15hash)', { timeout: 120_000 }, async () => {
    await batchMembersCrash('amina_pg_batch', 'before-outcome');
  });
});
