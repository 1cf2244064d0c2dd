import type { Logger } from 'pino';
import type { AccountsService } from './accounts/accounts.js';
import type { ChainService } from './chain/chain.js';
import type { FxService } from './fx/rates.js';
import type { Store } from './store/index.js';
import { BillsService } from './bills/bills.js';
import { loadBillerCatalogue } from './bills/catalogue.js';
import { SandboxBillProvider, type BillProvider } from './bills/sandbox-provider.js';
import { MarketsService } from './markets/markets.js';
import { TransfersService } from './transfers/transfers.js';
import { WalletDirectory } from './wallet/directory.js';

/** The money-moving domain modules behind the agent's tools (docs/money-modules.md). */
export interface MoneyModules {
  wallets: WalletDirectory;
  transfers: TransfersService;
  bills: BillsService;
  markets: MarketsService;
  /** Finishes operations stopped part-way (receipt timeouts, provider outages, crashes). */
  reconcile(): Promise<void>;
  /** Runs `reconcile` every `intervalMs`; returns the stopper (waits for a running sweep). */
  start(intervalMs: number): () => Promise<void>;
}

export interface MoneyModulesOptions {
  store: Store;
  chain: ChainService;
  fx: FxService;
  accounts: AccountsService;
  logger: Logger;
  /** Receipt wait for each on-chain movement. */
  confirmTimeoutMs?: number;
  /** Default: the sandbox provider over the shipped catalogue. */
  billProvider?: BillProvider;
}

export function createMoneyModules(o: MoneyModulesOptions): MoneyModules {
  const wallets = new WalletDirectory(o.chain, o.store);
  const common = { ...(o.confirmTimeoutMs ? { confirmTimeoutMs: o.confirmTimeoutMs } : {}) };
  const catalogue = loadBillerCatalogue();
  const transfers = new TransfersService(o.store, o.chain, o.fx, o.accounts, wallets, {
    ...common,
    logger: o.logger.child({ module: 'transfers' }),
  });
  const bills = new BillsService(o.store, o.chain, o.fx, o.accounts, wallets, catalogue, o.billProvider ?? new SandboxBillProvider(catalogue), {
    ...common,
    logger: o.logger.child({ module: 'bills' }),
  });
  const markets = new MarketsService(o.store, o.chain, o.fx, o.accounts, wallets, {
    ...common,
    logger: o.logger.child({ module: 'markets' }),
  });

  let running: Promise<void> | undefined;
  const reconcile = async () => {
    for (const t of await transfers.unfinished()) await transfers.reconcile(t.id);
    for (const b of await bills.unfinished()) await bills.reconcile(b.id);
    const m = await markets.unfinished();
    for (const id of m.stakes) await markets.reconcileStakes(id);
    for (const id of m.payouts) await markets.settlePayouts(id);
  };
  return {
    wallets,
    transfers,
    bills,
    markets,
    reconcile,
    start(intervalMs) {
      const timer = setInterval(() => {
        if (running) return;
        running = reconcile()
          .catch((err: unknown) => o.logger.error({ err }, 'money reconcile failed'))
          .finally(() => (running = undefined));
      }, intervalMs);
      timer.unref();
      return async () => {
        clearInterval(timer);
        await running;
      };
    },
  };
}
