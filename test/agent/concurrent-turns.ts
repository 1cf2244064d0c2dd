import { parseEventLogs, type Hex } from 'viem';
import { expect } from 'vitest';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { hashRecordCounter } from '../settlement/hash-records.js';
import { relayAttemptId } from '../../src/chain/owned-relay.js';
import { SettlementAttempts } from '../../src/settlement/attempts.js';

/**
 * `n` agent transfer turns at once over real HTTP, from `senders` in turn (turn-commits.test.ts and its
 * PostgreSQL twin): each principal and its fee move together, all or none, and the turns that
 * arrive while a relayer transaction is being sent share the next one through the batch relay
 * (issue 23, point 3). Checks every turn settled with its exact fee, in its answer, its stored
 * transfer (what the activity lists) and its transaction's logs; returns how many relayer
 * transactions they took.
 */
export async function concurrentTurns(svc: TestService, senders: readonly Merchant[], handle: string, n: number): Promise<number> {
  const { chain, transfers } = svc.deps;
  const feeWallet = chain.custodialAddress(FEE_WALLET_INDEX);
  const relayerTxs = () => chain.publicClient.getTransactionCount({ address: chain.relayerAddress });
  const feesBefore = await chain.balanceOf(feeWallet);
  const before = await relayerTxs();
  const slow = slowFirstSend(svc);
  const records = hashRecordCounter(svc);
  records.start();
  let answers;
  try {
    answers = await Promise.all(
      Array.from({ length: n }, (_, i) => call(`${svc.api}/agent/settle`, { key: senders[i % senders.length]!.key, body: { message: `send 500 KES to @${handle}` } })),
    );
  } finally {
    slow.restore();
    records.restore();
  }
  // Fifteenth round (h15hash): a batched pair's receipt came within the hash record's grace
  // (relay.ts SENT_RECORD_GRACE_MS), so no attempt's `sent` commit of its own; the outcome's
  // transaction stores the hash (the transfer's, and the attempt's with its answer).
  expect(records.stop().length, 'attempt hash records in a commit of their own').toBe(0);
  const txs = (await relayerTxs()) - before;
  let fees = 0n;
  const history = (await Promise.all(senders.map((s) => transfers!.history(s.accountId, { limit: 1_000 })))).flat();
  for (const r of answers) {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.transfer).toMatchObject({ status: 'settled', fee_status: 'settled' });
    const id = (r.body.transfer as { id: string }).id;
    const t = history.find((h) => h.id === id)!;
    expect(t).toMatchObject({ status: 'settled', feeStatus: 'settled', feeTxHash: t.txHash });
    expect(BigInt(t.fee)).toBeGreaterThan(0n);
    const attempt = await svc.deps.store.table(SettlementAttempts).get(relayAttemptId('transfer', t.fromAddress, chain.nonceFor('transfer', id)));
    expect(attempt).toMatchObject({ state: 'done', txHash: t.txHash, answer: { ok: true, txHash: t.txHash } });
    // Its transaction moved this transfer's principal and its exact fee from the sender's wallet.
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: t.txHash as Hex });
    const moves = parseEventLogs({ abi: stablecoinAbi, eventName: 'Transfer', logs: receipt.logs }).map((l) => `${l.args.from}>${l.args.to}:${l.args.value}`);
    expect(moves).toContain(`${t.fromAddress}>${feeWallet}:${t.fee}`);
    expect(moves).toContain(`${t.fromAddress}>${t.toAddress}:${t.stablecoinAmount}`);
    fees += BigInt(t.fee);
  }
  expect((await chain.balanceOf(feeWallet)) - feesBefore).toBe(fees);
  return txs;
}

/**
 * A chain whose first send is slow, made certain: the first relayer transaction leaves only once
 * two more turns have handed their pairs to the relayer (then 150 ms for them to queue; at most
 * 10 s). Turns "at once" meet a send in flight whatever the machine's load: on a loaded CI run
 * the twelve turns had reached the relayer one after another, each alone (12 transactions).
 */
function slowFirstSend(svc: TestService): { restore: () => void } {
  const chain = svc.deps.chain as unknown as { submitTransfers: (...a: unknown[]) => Promise<unknown> };
  const client = svc.deps.chain.publicClient as unknown as { sendRawTransaction: (a: unknown) => Promise<unknown> };
  const [submit, send] = [chain.submitTransfers, client.sendRawTransaction];
  let handed = 0;
  let wake = () => {};
  const enough = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    wake = () => {
      if (++handed < 3) return;
      clearTimeout(timer);
      setTimeout(resolve, 150);
    };
  });
  let first = true;
  chain.submitTransfers = function (this: unknown, ...a: unknown[]) {
    wake();
    return submit.apply(this, a);
  };
  client.sendRawTransaction = async function (this: unknown, a: unknown) {
    if (first) {
      first = false;
      await enough;
    }
    return send.call(this, a);
  };
  return { restore: () => void ((chain.submitTransfers = submit), (client.sendRawTransaction = send)) };
}
