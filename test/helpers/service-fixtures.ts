/**
 * The HTTP layer's common preamble as vitest fixtures: a real service (its own DATA_DIR, a free
 * loopback port; PostgreSQL under the `pg` project) and a signed-up merchant with a secret key,
 * both once per file, the service stopped and its data removed after the file's last test.
 *
 *   const it = merchantServiceTest('Payments Shop');
 *   let s: TestService;
 *   let m: Merchant;
 *   it.beforeAll(({ svc, merchant }) => { s = svc; m = merchant; });
 *
 * (or destructure `{ svc, merchant }` in a test).
 */
import { test } from 'vitest';
import { createMerchant, startTestService } from './service.js';

export function merchantServiceTest(merchantName = 'Test Shop', env: Record<string, string> = {}) {
  return test
    .extend('svc', { scope: 'file' }, async ({}, { onCleanup }) => {
      const svc = await startTestService(env);
      onCleanup(() => svc.stop({ removeData: true }));
      return svc;
    })
    .extend('merchant', { scope: 'file' }, async ({ svc }) => createMerchant(svc.api, merchantName));
}
