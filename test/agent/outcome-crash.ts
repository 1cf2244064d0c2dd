import { expect } from 'vitest';
import type { Address } from 'viem';
import { call, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { usdc } from '../helpers/money.js';
import { storedTables } from '../helpers/stored.js';
import { kenyanSender, transferTurnWorld } from './transfer-turn-world.js';
import { relayAttemptId } from '../../src/chain/owned-relay.js';
import { holdChain } from '../settlement/hash-records.js';

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

/**
 * Three senders' turns at once, the first send held until all three reached the chain port: one
 * leaves alone, two as members of one batch, whose hash has no commit of its own when their
 * receipt comes within the hash record's grace (relay.ts SENT_RECORD_GRACE_MS; fifteenth round,
 * h15hash). From the batch's broadcast on the process is as good as dead: `after-reply` (the
 * embedded store) drops every disk write, so the turns answer settled with their outcome in memory
 * only; `before-outcome` holds every store transaction, so no outcome is written and nobody is
 * answered. Either way the batch's members are on disk `submitted`, their attempt open with no hash,
 * and the next lifetime finishes them from the chain (the token's nonce and a log scan) before
 * its doors open.
 */
export async function batchMembersCrash(handle: string, when: 'after-reply' | 'before-outcome'): Promise<void> {
  const { svc, sender } = await crashWorld(handle);
  const senders = [sender, await kenyanSender(svc, 'Wanjiru'), await kenyanSender(svc, 'Otieno')];
  let second: TestService | undefined;
  try {
    const held = holdChain(svc, { handed: 3 });
    let dead = false;
    const client = svc.deps.chain.publicClient as unknown as { sendRawTransaction: (a: unknown) => Promise<unknown> };
    const send = client.sendRawTransaction;
    let sends = 0;
    client.sendRawTransaction = function (this: unknown, a: unknown) {
      if (++sends === 2) dead = true;
      return send.call(this, a);
    };
    if (when === 'after-reply') {
      const db = (svc.deps.store as unknown as { db: { write: () => Promise<void> } }).db;
      const write = db.write.bind(db);
      // Dropped, not held: a record the grace let through (a receipt slower than it on a loaded
      // machine) must not wait on the disk forever; either way nothing after the batch is on disk.
      db.write = () => (dead ? Promise.resolve() : write());
    } else {
      const store = svc.deps.store as unknown as { transaction: (...a: unknown[]) => Promise<unknown> };
      const transaction = store.transaction.bind(store);
      store.transaction = (...a) => (dead ? new Promise(() => {}) : transaction(...a));
    }
    const turns = senders.map((s) => turn(svc, s, `send 500 KES to @${handle}`).catch(() => undefined));
    const answers = when === 'after-reply' ? await Promise.all(turns) : [];
    if (when === 'before-outcome') {
      await new Promise<void>((r) => {
        const look = () => (held.sent.length >= 2 ? r() : setTimeout(look, 50));
        look();
      });
    }
    const batch = held.sent[1]!;
    expect(batch).toBeTruthy();
    const { tables } = await storedTables<Record<string, unknown>>(svc.dataDir);
    for (const a of answers) expect(a?.body.transfer, JSON.stringify(a?.body)).toMatchObject({ status: 'settled', fee_status: 'settled' });
    // The batch's members on disk, as the crash leaves them (their transaction is the batch's).
    const members = (tables.transfers ?? []).filter((t) => t.status === 'submitted');
    const memberIds: string[] = [];
    for (const t of members) {
      const attempt = tables.settlement_attempts?.find((x) => x.subject === t.id);
      expect(attempt).toMatchObject({ state: 'open' });
      if (attempt?.txHash === undefined) memberIds.push(t.id as string);
    }
    // The two batch members carry no hash on disk (the alone one's came with its journal entry).
    expect(memberIds).toHaveLength(2);
    held.restore();
    await svc.stop();
    await Promise.all(turns);
    second = await restart(svc);
    for (const id of memberIds) {
      const t = (await second.deps.transfers.get(id))!;
      await expectFinished(second, senders.find((s) => s.accountId === t.accountId)!, id, batch);
    }
  } finally {
    await (second ?? svc).stop({ removeData: true });
  }
}
