import { expect } from 'vitest';
import type { Address } from 'viem';
import { call, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { usdc } from '../helpers/money.js';
import { storedTables } from '../helpers/stored.js';
import { kenyanSender, transferTurnWorld } from './transfer-turn-world.js';
import { relayAttemptId } from '../../src/chain/owned-relay.js';

/**
 * Two lifetimes of the service on one store (data dir, or its PostgreSQL database) and one anvil
 * (its state file in the data dir), for an agent transfer turn whose settled outcome never reached
 * the store's disk: the first lifetime dies after the money moved, the second must show the
 * transfer settled from its first answer on (outcome-after-reply.test.ts, .pg.test.ts).
 */
export const QUIET = { RECONCILE_INTERVAL: '1h', EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h', SHUTDOWN_GRACE: '200ms' };

export async function crashWorld(handle: string): Promise<{ svc: TestService; sender: Merchant }> {
  const { svc } = await transferTurnWorld(handle, QUIET);
  return { svc, sender: await kenyanSender(svc, 'Njeri') };
}

export const turn = (svc: TestService, sender: Merchant, message: string) => call(`${svc.api}/agent/settle`, { key: sender.key, body: { message } });

/** The caller's transfers as the agent lists them (list_activity), by id: the status a user reads. */
export async function activityStatus(svc: TestService, sender: Merchant, id: string): Promise<string | undefined> {
  const r = await turn(svc, sender, 'what did I pay this month');
  expect(r.body, JSON.stringify(r.body)).toMatchObject({ ok: true, action: 'activity' });
  return (r.body.activity.entries as Array<{ id: string; status: string }>).find((e) => e.id === id)?.status;
}

/** Calls `onSend` when the relayer's transaction leaves (its hash and the journal's commit are durable by then). */
export function atBroadcast(svc: TestService, onSend: () => void): void {
  const client = svc.deps.chain.publicClient as unknown as { sendRawTransaction: (a: unknown) => Promise<unknown> };
  const send = client.sendRawTransaction.bind(client);
  client.sendRawTransaction = async (a) => {
    onSend();
    return send(a);
  };
}

/** Starts the second lifetime on the first one's store and chain; the first must be stopped. */
export function restart(first: TestService): Promise<TestService> {
  return startTestService(QUIET, { dataDir: first.dataDir });
}

/**
 * What the second lifetime shows for transfer `id` (answered as settled in `txHash` by the first,
 * or never answered): settled, the fee with it, the hold gone, the relay attempt closed, and the
 * money moved once (the sender's wallet is 100 USDC less the transfer and its fee).
 */
export async function expectFinished(svc: TestService, sender: Merchant, id: string, txHash?: string): Promise<void> {
  const t = (await svc.deps.transfers.get(id))!;
  expect(t).toMatchObject({ status: 'settled', feeStatus: 'settled' });
  if (txHash) expect(t.txHash).toBe(txHash);
  expect(t.feeTxHash).toBe(t.txHash);
  expect(t.settledAt).toBeTruthy();
  const { tables } = await storedTables<Record<string, unknown>>(svc.dataDir);
  expect(tables.transfers?.find((r) => r.id === id)).toMatchObject({ status: 'settled' });
  const from = t.fromAddress as Address;
  expect(tables.wallet_holds?.some((h) => (h.holds as Record<string, string>)[`transfer:${id}`] !== undefined)).toBe(false);
  const attempt = tables.settlement_attempts?.find((a) => a.id === relayAttemptId('transfer', from, svc.deps.chain.nonceFor('transfer', id)));
  expect(attempt).toMatchObject({ state: 'done', answer: { ok: true, txHash: t.txHash } });
  expect(await svc.deps.chain.balanceOf(from)).toBe(usdc('100') - BigInt(t.stablecoinAmount) - BigInt(t.fee));
  expect(await activityStatus(svc, sender, id)).toBe('settled');
}

/**
 * From the broadcast on, every store transaction of `svc` is held and never runs: the process is
 * as good as dead after the money left, before the outcome's write. Resolves when the first is held.
 */
export function dieAfterBroadcast(svc: TestService): Promise<void> {
  let dead = false;
  let held!: () => void;
  const first = new Promise<void>((r) => (held = r));
  atBroadcast(svc, () => void (dead = true));
  const store = svc.deps.store as unknown as { transaction: (...a: unknown[]) => Promise<unknown> };
  const transaction = store.transaction.bind(store);
  store.transaction = (...a) => (dead ? (held(), new Promise(() => {})) : transaction(...a));
  return first;
}

/** The first lifetime dies between the broadcast and the outcome; the second finishes the transfer before it answers anything. */
export async function crashBeforeOutcome(handle: string): Promise<void> {
  const { svc, sender } = await crashWorld(handle);
  let second: TestService | undefined;
  try {
    const died = dieAfterBroadcast(svc);
    const answered = turn(svc, sender, `send 500 KES to @${handle}`).then(
      () => 'answered',
      () => 'cut',
    );
    await died;
    // The money left and the turn waits on its outcome's write: `submitted` in the store, with the attempt's hash.
    const { tables } = await storedTables<Record<string, unknown>>(svc.dataDir);
    const row = tables.transfers?.find((t) => t.accountId === sender.accountId);
    expect(row).toMatchObject({ status: 'submitted' });
    const id = row!.id as string;
    expect(tables.settlement_attempts?.find((x) => x.subject === id)?.txHash).toBeTruthy();
    await svc.stop();
    expect(await answered).toBe('cut');
    second = await restart(svc);
    await expectFinished(second, sender, id);
  } finally {
    await (second ?? svc).stop({ removeData: true });
  }
}
