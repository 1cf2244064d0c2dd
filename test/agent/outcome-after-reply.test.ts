/**
 * An agent transfer turn's settled outcome is made durable after its reply (embedded store; the
 * fsync off the turn's path, docs/money-modules.md "An agent transfer's outcome after its reply"). Truth survives a
 * crash in between: the reply said settled only after the receipt, the relay journal's commit
 * had made the attempt's hash durable before the broadcast, and the next lifetime finishes the
 * row from the chain before its doors open (TransfersService.finishMovedOnChain). Real HTTP,
 * real anvil, two service lifetimes on one data dir.
 */
import { describe, expect, it } from 'vitest';
import { storedTables } from '../helpers/stored.js';
import type { TestService } from '../helpers/service.js';
import { activityStatus, atBroadcast, batchMembersCrash, crashBeforeOutcome, crashWorld, expectFinished, restart, turn } from './outcome-crash.js';

// Two service lifetimes (each its own start-up and anvil) per test: more than the project's 30 s on a loaded machine.
describe('an agent transfer answered settled before its outcome is on disk', () => {
  it('the reply does not wait for the outcome\'s disk write; the same instance reads it settled at once; a crash then leaves it `submitted` on disk, and the next lifetime shows it settled from its first answer', { timeout: 120_000 }, async () => {
    const { svc, sender } = await crashWorld('amina_after');
    let second: TestService | undefined;
    try {
      // From the broadcast on, disk writes are held; released, they write nothing (the process died).
      const db = (svc.deps.store as unknown as { db: { write: () => Promise<void> } }).db;
      const write = db.write.bind(db);
      let gate: Promise<void> | undefined;
      let release!: () => void;
      atBroadcast(svc, () => void (gate ??= new Promise<void>((r) => (release = r))));
      db.write = () => (gate ? gate : write());

      const r = await turn(svc, sender, 'send 500 KES to @amina_after');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.transfer).toMatchObject({ status: 'settled', fee_status: 'settled' });
      const id = r.body.transfer.id as string;
      // Read your writes: the commit is visible before it is durable.
      expect(await svc.deps.transfers.get(id)).toMatchObject({ status: 'settled', txHash: r.body.transfer.tx_hash });
      // On disk, as a crash now would leave it: `submitted`, with its relay attempt's hash.
      const { tables } = await storedTables<Record<string, unknown>>(svc.dataDir);
      expect(tables.transfers?.find((t) => t.id === id)).toMatchObject({ status: 'submitted' });
      expect(tables.settlement_attempts?.find((a) => a.subject === id)).toMatchObject({ state: 'open', txHash: r.body.transfer.tx_hash });
      release();
      expect(await activityStatus(svc, sender, id)).toBe('settled');
      await svc.stop();

      second = await restart(svc);
      await expectFinished(second, sender, id, r.body.transfer.tx_hash);
    } finally {
      await (second ?? svc).stop({ removeData: true });
    }
  });

  it('the process dies after the money left and before the outcome\'s write: the next lifetime shows it settled', { timeout: 120_000 }, async () => {
    await crashBeforeOutcome('amina_before');
  });

  it('batch members answered settled within the hash record\'s grace (no hash on disk), then a crash: the next lifetime shows them settled (h15hash)', { timeout: 120_000 }, async () => {
    await batchMembersCrash('amina_batch_after', 'after-reply');
  });

  it('batch members: the process dies after the batch left, inside the grace and before any outcome: the next lifetime shows them settled (h15hash)', { timeout: 120_000 }, async () => {
    await batchMembersCrash('amina_batch_before', 'before-outcome');
  });
});
