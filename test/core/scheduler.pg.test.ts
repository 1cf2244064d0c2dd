import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * The scheduler's jobs with two instances on one PostgreSQL database (docs/deploy.md): each
 * pass of the settlement, refund and money-module reconcilers and of the expiry sweep is done
 * by the one instance holding the job's lease, and when that instance stops the other takes
 * the jobs over.
 */
let db: TestDatabase;
let a: TestService;
let b: TestService;

const env = (db: TestDatabase) => ({ DATABASE_URL: db.url, RECONCILE_INTERVAL: '150ms', EXPIRY_SWEEP_INTERVAL: '150ms' });

beforeAll(async () => {
  db = await createDatabase();
  a = await startTestService(env(db));
  // B shares A's secrets (wallets) but has a relayer key of its own, as a deployment does.
  const dirB = await tempDir('sp-core-b-');
  const secrets = JSON.parse(await readFile(path.join(a.dataDir, 'secrets.json'), 'utf8')) as Record<string, unknown>;
  delete secrets.relayerPrivateKey;
  await writeFile(path.join(dirB, 'secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
  b = await startTestService(env(db), { dataDir: dirB });
});

afterAll(async () => {
  await a?.stop({ removeData: true });
  await b?.stop({ removeData: true });
  await db?.drop();
});

/** One spy per job and instance: what each instance's passes call. */
function spies(svc: TestService): Record<string, MockInstance> {
  return {
    'reconcile:settlement': vi.spyOn(svc.core.settlement, 'reconcile'),
    'reconcile:refunds': vi.spyOn(svc.core.refunds, 'reconcile'),
    'reconcile:money': vi.spyOn(svc.core.transfers, 'unfinished'),
    'sweep:expiry': vi.spyOn(svc.core.payments, 'sweepExpired'),
  };
}

describe('background jobs on two instances', () => {
  it('each job runs on the lease holder only, and moves to the other instance when the holder stops', async () => {
    const onA = spies(a);
    const onB = spies(b);
    // A started first and holds every job's lease; B ticks too but never runs a pass.
    await vi.waitFor(() => {
      for (const [job, spy] of Object.entries(onA)) expect(spy.mock.calls.length, job).toBeGreaterThanOrEqual(3);
    }, 10_000);
    for (const [job, spy] of Object.entries(onB)) expect(spy, job).not.toHaveBeenCalled();

    await a.stop();
    // A gave its leases up on stop: B takes every job over at its next tick.
    await vi.waitFor(() => {
      for (const [job, spy] of Object.entries(onB)) expect(spy.mock.calls.length, job).toBeGreaterThanOrEqual(2);
    }, 10_000);
  });
});
