/** What the settlement service (settlement.ts) is built from: its store, chain and the timings it waits by. */
import type { ChainPort } from '../chain/chain-port.js';
import type { AccountsService } from '../accounts/accounts.js';
import type { PaymentsService } from '../payments/payments.js';
import type { Store } from '../store/index.js';
import type { Logger } from '../lib/logger.js';
import type { AttemptOwner, Clock } from './attempts.js';
import type { PaymentQueue } from './payment-queue.js';

export interface SettlementOptions {
  store: Store;
  payments: PaymentsService;
  accounts: AccountsService;
  chain: ChainPort;
  logger: Logger;
  /** How long `settle` waits for the receipt before answering `processing`. Default 60 s. */
  confirmTimeoutMs?: number;
  /** Receipt wait per payment during a reconcile pass. Default 2 s. */
  reconcileWaitMs?: number;
  /** The per-payment queue (shared with the deposit watcher, deposit-watcher-for.ts); default: a new one. */
  queue?: PaymentQueue;
  /** This instance among those sharing the store (an InstanceLease); default: one process alone. */
  owner?: AttemptOwner;
  /** The relayer address this instance sends from (recorded on each attempt). */
  relayer?: string;
  /**
   * The chain's worst delay beyond the confirm timeout before an attempt may be judged by
   * another instance (its deadline is their sum). Default 30 s.
   */
  chainDelayMs?: number;
  /**
   * The mode whose payments this instance settles, when each mode has a chain of its own
   * (docs/test-mode.md, "Where test mode settles"); unset: its chain serves both modes.
   */
  livemode?: boolean;
  /** This process's clock (a port: tests run an instance whose clock is skewed); Date.now by default. */
  clock?: Clock;
}
