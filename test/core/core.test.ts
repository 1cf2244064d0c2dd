import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { Core } from '../../src/core/core.js';
import { InstanceLease } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

// The composition root (src/core/build.ts) over a real service: the core the doors get, and the
// background jobs it registered with the scheduler.
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

describe('the core', () => {
  it('has no optional field (checked by tsc) and hands no store or chain to the doors', () => {
    expectTypeOf<Core>().toEqualTypeOf<Required<Core>>();
    expectTypeOf<Core>().not.toHaveProperty('store');
    expectTypeOf<Core>().not.toHaveProperty('chain');
    expect('store' in svc.core).toBe(false);
    expect('chain' in svc.core).toBe(false);
    for (const [name, value] of Object.entries(svc.core)) expect(value, name).toBeDefined();
  });

  it('runs every background job under its own store lease, held by this instance', async () => {
    // The instance's own lease names it; each job that has run holds its lease under the same id.
    const leases = await Promise.all(
      ['reconcile:settlement', 'reconcile:refunds'].map(async (name) => [name, await svc.deps.store.leaseOwner(name)] as const),
    );
    for (const [name, owner] of leases) {
      expect(owner, name).toBeDefined();
      expect(await svc.deps.store.leaseOwner(InstanceLease.leaseName(owner!)), name).toBe(owner);
    }
  });
});
