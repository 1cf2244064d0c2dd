import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LowdbStore } from '../../src/store/index.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';

// Unit layer: one lowdb store (its leases live in memory) shared by "instances" that are just
// schedulers with different owners; fake timers drive the ticks.
const EVERY = 1_000;

let dir: string;
let store: LowdbStore;
const schedulers: Scheduler[] = [];

function scheduler(owner: string, logger = { error: vi.fn() }): Scheduler {
  const s = new Scheduler({ store, owner, logger });
  schedulers.push(s);
  return s;
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-scheduler-'));
  store = await LowdbStore.open(dir);
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const s of schedulers.splice(0)) await s.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Scheduler', () => {
  it('runs each job every interval, and at start when asked', async () => {
    const runs = { a: 0, b: 0 };
    const s = scheduler('i1')
      .add({ name: 'job:a', everyMs: EVERY, run: async () => void runs.a++ })
      .add({ name: 'job:b', everyMs: EVERY, atStart: true, run: async () => void runs.b++ });
    s.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toEqual({ a: 0, b: 1 });
    await vi.advanceTimersByTimeAsync(3 * EVERY);
    expect(runs).toEqual({ a: 3, b: 4 });
    expect(s.names()).toEqual(['job:a', 'job:b']);
  });

  it('with several instances on one store, each pass is done by the lease holder only', async () => {
    const by: string[] = [];
    for (const owner of ['i1', 'i2', 'i3']) {
      scheduler(owner)
        .add({ name: 'sweep:expiry', everyMs: EVERY, run: async () => void by.push(owner) })
        .start();
    }
    await vi.advanceTimersByTimeAsync(5 * EVERY);
    expect(by).toEqual(['i1', 'i1', 'i1', 'i1', 'i1']);
    expect(await store.leaseOwner('sweep:expiry')).toBe('i1');
  });

  it("a killed holder's lease lapses and another instance takes the job over", async () => {
    // An instance that took the lease and then died (never renews, never releases).
    expect(await store.lease('reconcile:settlement', 'dead', 2 * EVERY)).toBe(true);
    const by: string[] = [];
    scheduler('i2')
      .add({ name: 'reconcile:settlement', everyMs: EVERY, run: async () => void by.push('i2') })
      .start();
    await vi.advanceTimersByTimeAsync(EVERY);
    expect(by).toEqual([]);
    // The dead holder's lease (two intervals) has lapsed at the second tick.
    await vi.advanceTimersByTimeAsync(EVERY);
    expect(by).toEqual(['i2']);
    expect(await store.leaseOwner('reconcile:settlement')).toBe('i2');
  });

  it('stop() stops every job, waits for a pass in flight and gives the leases up', async () => {
    let runs = 0;
    let finish!: () => void;
    let finished = false;
    const s = scheduler('i1')
      .add({ name: 'job:quick', everyMs: EVERY, run: async () => void runs++ })
      .add({
        name: 'job:slow',
        everyMs: EVERY,
        run: () =>
          new Promise<void>((r) => {
            finish = () => {
              finished = true;
              r();
            };
          }),
      });
    s.start();
    await vi.advanceTimersByTimeAsync(EVERY);
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * EVERY);
    expect(runs).toBe(1);
    expect(await store.leaseOwner('job:quick')).toBeUndefined();
    expect(await store.leaseOwner('job:slow')).toBeUndefined();
    // Another instance need not wait for the leases to lapse.
    const by: string[] = [];
    scheduler('i2')
      .add({ name: 'job:quick', everyMs: EVERY, run: async () => void by.push('i2') })
      .start();
    await vi.advanceTimersByTimeAsync(EVERY);
    expect(by).toEqual(['i2']);
  });

  it('a throwing job is logged and keeps its schedule', async () => {
    const logger = { error: vi.fn() };
    let runs = 0;
    scheduler('i1', logger)
      .add({
        name: 'job:flaky',
        everyMs: EVERY,
        run: async () => {
          runs++;
          throw new Error('boom');
        },
      })
      .start();
    await vi.advanceTimersByTimeAsync(3 * EVERY);
    expect(runs).toBe(3);
    expect(logger.error).toHaveBeenCalledTimes(3);
    expect(logger.error.mock.calls[0]![0]).toMatchObject({ job: 'job:flaky' });
  });

  it('a pass longer than the interval is not overlapped, and its lease stays with the runner', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const slow = async () => {
      runs++;
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 5 * EVERY));
      active--;
    };
    scheduler('i1').add({ name: 'job:long', everyMs: EVERY, run: slow }).start();
    const other: string[] = [];
    scheduler('i2')
      .add({ name: 'job:long', everyMs: EVERY, run: async () => void other.push('i2') })
      .start();
    await vi.advanceTimersByTimeAsync(12 * EVERY);
    expect(maxActive).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(other).toEqual([]);
  });

  it('runNow runs one pass under the lease, and refuses while another instance holds it', async () => {
    let runs = 0;
    const s = scheduler('i1').add({ name: 'job:now', everyMs: EVERY, run: async () => void runs++ });
    expect(await store.lease('job:now', 'i9', 10 * EVERY)).toBe(true);
    expect(await s.runNow('job:now')).toBe(false);
    await store.releaseLease('job:now', 'i9');
    expect(await s.runNow('job:now')).toBe(true);
    expect(runs).toBe(1);
    expect(() => s.add({ name: 'job:now', everyMs: EVERY, run: async () => undefined })).toThrow(/exists/);
  });
});
