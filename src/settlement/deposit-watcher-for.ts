/**
 * Builds a chain's deposit watcher (deposit-watcher.ts) beside its settlement, at the composition root
 * (src/core/money-services.ts): the watcher shares settlement's per-payment queue (a deposit decision
 * never interleaves with a settle of the same payment), its attempt ledger (one owner per
 * sweep and give-back across instances, issue 21) and its deposit-address route (deposit-sweep.ts).
 *
 * The watcher hands money over to `pay(id, { method: 'deposit-address', deposit })`; the
 * composition root points it at CheckoutSessions.pay (the registered adapter,
 * src/checkout-sessions/methods/deposit-address.ts, src/core/build.ts). Until then (a watcher
 * built alone, as the settlement tests do) it runs the same adapter decision, `authorizeDeposit`,
 * and settles what it answers: settlement cannot import the method registry above it.
 */
import type { ChainPort } from '../chain/chain-port.js';
import type { Logger } from '../lib/logger.js';
import type { PaymentsService } from '../payments/payments.js';
import type { Store } from '../store/index.js';
import { authorizeDeposit } from './deposit-sweep.js';
import { DepositWatcher, type DepositHandOver } from './deposit-watcher.js';
import type { SettlementService } from './settlement.js';

export interface DepositWatcherSetup {
  store: Store;
  payments: PaymentsService;
  chain: ChainPort;
  logger: Logger;
  /** How long a session's deposit address is watched after the session ends. Default 24 h. */
  graceMs?: number;
  /** The mode whose addresses this chain's watcher scans; unset: all (one chain for both modes). */
  livemode?: boolean;
}

export function depositWatcherFor(settlement: SettlementService, o: DepositWatcherSetup): DepositWatcher {
  const pay: DepositHandOver = async (payment, input) => {
    const authorized = await authorizeDeposit({ payment, chain: o.chain, recipientFor: (p) => settlement.recipientFor(p) }, input.deposit);
    return authorized.ok ? settlement.settle(payment.id, authorized.request, authorized.terms) : authorized;
  };
  return new DepositWatcher({
    store: o.store,
    payments: o.payments,
    chain: o.chain,
    logger: o.logger,
    sweeps: settlement.sweeps,
    pay,
    exclusive: (id, fn) => settlement.queue.run(id, fn),
    attempts: settlement.attempts,
    graceMs: o.graceMs ?? 24 * 3_600_000,
    ...(o.livemode !== undefined ? { livemode: o.livemode } : {}),
    // One pass decides every watched deposit in turn: a receipt wait is bounded so one slow
    // block does not hold up the others (an unconfirmed give-back is looked at again next pass).
    relayWaitMs: Math.min(settlement.confirmTimeoutMs, 15_000),
  });
}
