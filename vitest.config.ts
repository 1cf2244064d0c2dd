import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/sequencer.js';

/**
 * The core HTTP suite (payments, keys, webhooks, settlement, agent) that the `pg` project runs
 * a second time with the service on PostgreSQL (docs/store.md).
 */
export const CORE_ON_POSTGRES = [
  'test/api/payments.test.ts',
  'test/api/auth-keys.test.ts',
  'test/api/checkout-expiry.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/events.test.ts',
  'test/settlement/settle.test.ts',
  // Concurrent settles share their store commits on PostgreSQL (src/store/pg/commit-groups.ts).
  'test/settlement/settle.concurrency.test.ts',
  'test/settlement/reconcile.test.ts',
  'test/settlement/deposits.test.ts',
  'test/api/agent.http.test.ts',
  // h16probe: an Idempotency-Key on /api/agent/settle is claimed in the database (one answer across instances).
  'test/api/agent.idempotency.test.ts',
  'test/agent/agent.e2e.test.ts',
  'test/transfers/transfers.e2e.test.ts',
  // Issue 15: refunds (20 parallel full refunds, one refund), cancel, the events API.
  'test/refunds/refunds.test.ts',
  'test/payments/cancel.test.ts',
  'test/events/events-api.test.ts',
  // Issue 15: the dashboard's JSON (filters, CSV, period totals, the payment page's data).
  'test/web/dashboard-data.test.ts',
  // Issue 25: payment-identifier (the identifier row's primary key is the lock across instances).
  'test/x402/payment-identifier.test.ts',
  // Issue 24: test mode beside live (isolation in every list and by id, livemode on webhooks).
  'test/test-mode/isolation.test.ts',
  // Issue 25: refunds of x402-paid payments (exact, and auth-capture through the escrow).
  'test/x402/x402-refunds.test.ts',
  // Issue 24: test mode on its own chain beside a real network.
  'test/test-mode/real-network.test.ts',
  // Issue 23 sixth round: the fuzz of every OpenAPI operation, on PostgreSQL too.
  'test/api/fuzz.test.ts',
  // h10caps: reservations a store error left reserved end from the transfer's outcome; a journal store error is pending.
  'test/policies/stuck-reservation.test.ts',
  // h11truth: bills, stakes, firm quotes and claim links reserve in their record's own transaction.
  'test/policies/own-commit-reservations.test.ts',
  // h11truth: a turn whose database fails mid-action answers 202 outcome_unknown; store errors never pause a key.
  'test/api/agent-store-error.test.ts',
  'test/policies/breaker-store-errors.test.ts',
  // h17policy: DESIGN section 11's policy fields, reasons and POLICY_BREAKER.
  'test/policies/design-contract.test.ts',
  // h17claimfee: a claim's cancel and expiry keep our fee, each leg once across crashes (the store is PostgreSQL here).
  'test/claims/claim-fee-kept.http.test.ts',
];

// Four projects: the pure `*.unit.test.ts` files (`fast`), the HTTP/chain tests on lowdb
// (`unit`), the PostgreSQL store's tests plus the core HTTP suite again on PostgreSQL (`pg`;
// `npm test` runs these three, see scripts/test.mjs), and real-Chromium page tests
// (`npm run test:browser`); CI runs all four in one run (`npm run test:ci`).
export default defineConfig({
  test: {
    // Vitest's default on a 2-core machine is one worker (cores - 1), which leaves a core idle
    // while a file waits on anvil, HTTP or a child process. Most files wait most of the time
    // (a whole run at three workers used 0.63 of one core on average), so four files run at once
    // on CI's two cores. Four once ran PostgreSQL out of its 100 connections; the pg files now
    // keep to a budget (test/helpers/pg-budget.ts, docs/testing.md "Fifteenth round (h15ci)"),
    // which test/helpers/sequencer.unit.test.ts checks against this number.
    maxWorkers: 4,
    // The slow multi-process files and the agent evaluation start first (test/helpers/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        test: {
          // No chain, no service, no child process (docs/testing.md): one module graph per
          // worker thread instead of one per file, which was most of their time (import).
          name: 'fast',
          include: ['test/**/*.unit.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'test/**/*.pg.test.ts', 'node_modules/**'],
          testTimeout: 30_000,
          pool: 'threads',
          isolate: false,
        },
      },
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', 'test/**/*.browser.test.ts', 'test/**/*.pg.test.ts', 'node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // One module graph per worker process instead of one per file: importing the service
          // afresh was most of each file's time (docs/testing.md). Every file starts its own
          // service, chain and store; nothing in src/ keeps state at module level.
          isolate: false,
          // The service built once per run for the tests that start it as child processes.
          globalSetup: ['test/helpers/service-build.ts'],
        },
      },
      {
        test: {
          name: 'pg',
          include: ['test/**/*.pg.test.ts', ...CORE_ON_POSTGRES],
          env: { TEST_STORE: 'pg' },
          setupFiles: ['test/helpers/pg-setup.ts'],
          globalSetup: ['test/helpers/service-build.ts'],
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 90_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/**/*.browser.test.ts'],
          // A whole checkout journey (page, wallet, chain, receipt, return) takes about 15 s on a
          // quiet machine; the last CI run on a loaded one took it past 60 s (docs/testing.md).
          testTimeout: 120_000,
          hookTimeout: 90_000,
          pool: 'forks',
          // Two files at once, like the other projects: each file has its own service on a free
          // port and its own anvil, and its own connection and contexts on the run's one
          // Chromium (test/web/chromium-server.ts). One module graph per worker, as in `unit`.
          isolate: false,
          globalSetup: ['test/web/chromium-server.ts'],
        },
      },
    ],
  },
});
