import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { usdc } from '../helpers/money.js';

/**
 * The world the turn-count tests measure in (turn-commits.test.ts on the embedded store,
 * turn-commits.pg.test.ts on PostgreSQL): a quiet service (no background passes), a funded
 * Kenyan sender and a Nigerian recipient reachable as @`handle`.
 */
export async function transferTurnWorld(handle: string, env: Record<string, string> = {}): Promise<{ svc: TestService; sender: Merchant }> {
  const svc = await startTestService({ RECONCILE_INTERVAL: '1h', EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h', ...env });
  const recipient = await createMerchant(svc.api, 'Amina');
  await svc.deps.accounts.update(recipient.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: handle });
  return { svc, sender: await kenyanSender(svc, 'Wanjiru') };
}

/** Another funded Kenyan sender in the same world (100 USDC in its custodial wallet). */
export async function kenyanSender(svc: TestService, name: string): Promise<Merchant> {
  const sender = await createMerchant(svc.api, name);
  await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
  const a = (await svc.deps.accounts.get(sender.accountId))!;
  const funded = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(a.walletIndex), usdc('100'), { nativeAmount: 0n });
  if (!funded.ok) throw new Error(funded.message);
  return sender;
}
