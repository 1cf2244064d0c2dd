/**
 * Issue 23 point 3 (fourth round): the store commits and chain calls of one agent transfer turn,
 * counted over real HTTP (`POST /api/agent/settle`, local engine, real anvil, the embedded store),
 * from the request to its answer (docs/performance.md, "Issue 23, fourth round"). A turn's wall
 * time is its sequential commits (each a group-commit wait the bare custodial move does not have,
 * which makes one: the relay journal's entry) plus its chain round trips; this fixes how many.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { transferTurnWorld } from './transfer-turn-world.js';
import { concurrentTurns } from './concurrent-turns.js';
import { storedTables } from '../helpers/stored.js';

let svc: TestService;
let sender: Merchant;
let counting = false;
let commits = 0;
const atBroadcast: Array<Record<string, Array<Record<string, unknown>>>> = [];
const chainCalls: string[] = [];

beforeAll(async () => {
  ({ svc, sender } = await transferTurnWorld('amina_turns'));

  // Every commit that wrote something reaches the store's (private) flush once, coalesced or not.
  // Every write to disk (a commit that wrote something, coalesced or not, or a sync).
  const db = (svc.deps.store as unknown as { db: { write: () => Promise<void> } }).db;
  const write = db.write.bind(db);
  db.write = () => {
    if (counting) commits++;
    return write();
  };
  // What is on disk when a relayer transaction leaves (read from the files, as a crash would leave them).
  const client = svc.deps.chain.publicClient as unknown as { sendRawTransaction: (a: unknown) => Promise<unknown> };
  const send = client.sendRawTransaction.bind(client);
  client.sendRawTransaction = async (a) => {
    if (counting) atBroadcast.push((await storedTables(svc.dataDir)).tables);
    return send(a);
  };
  // Every call through the chain port (each is at least one JSON-RPC round trip, or a signature).
  const chain = svc.deps.chain as unknown as Record<string, unknown>;
  for (const name of ['balanceOf', 'signCustodialAuthorization', 'submitTransfers', 'waitForReceipt', 'authorizationState', 'findAuthorizationTx', 'chainTime', 'transactionKnown']) {
    const fn = chain[name];
    if (typeof fn !== 'function') continue;
    chain[name] = function (this: unknown, ...args: unknown[]) {
      // A send is named with how many authorizations it carries (one transaction for all of them).
      if (counting) chainCalls.push(name === 'submitTransfers' ? `${name}(${(args[0] as unknown[]).length})` : name);
      return (fn as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
});
afterAll(() => svc?.stop({ removeData: true }));

async function countedTurn() {
  commits = 0;
  chainCalls.length = 0;
  counting = true;
  const r = await call(`${svc.api}/agent/settle`, { key: sender.key, body: { message: 'send 500 KES to @amina_turns' } });
  counting = false;
  return { r, commits, chainCalls: [...chainCalls] };
}

describe('one agent transfer turn (embedded store)', () => {
  it('settles with the fee in one on-chain move and at most MAX_COMMITS writes to disk', async () => {
    await countedTurn(); // warm: caches, the wallet's holds row
    atBroadcast.length = 0;
    const { r, commits, chainCalls } = await countedTurn();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.transfer).toMatchObject({ status: 'settled', fee_status: 'settled' });
    // eslint-disable-next-line no-console
    console.log(`agent transfer turn: ${commits} commits; chain calls: ${chainCalls.join(', ')}`);
    // One relay: the principal and its fee in one transaction.
    expect(chainCalls.filter((c) => c.startsWith('submit'))).toEqual(['submitTransfers(2)']);
    expect(commits).toBeLessThanOrEqual(MAX_COMMITS);
    expect(chainCalls.length).toBeLessThanOrEqual(MAX_CHAIN_CALLS);
  });

  it('the transfer, its hold and its relay attempt are on disk before its transaction leaves', async () => {
    atBroadcast.length = 0;
    const { r } = await countedTurn();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = (r.body.transfer as { id: string }).id;
    expect(atBroadcast).toHaveLength(1);
    const disk = atBroadcast[0]!;
    expect(disk.transfers?.find((t) => t.id === id)).toMatchObject({ status: 'submitted' });
    expect(disk.wallet_holds?.some((h) => (h.holds as Record<string, string>)[`transfer:${id}`] !== undefined)).toBe(true);
    expect(disk.settlement_attempts?.some((a) => a.subject === id)).toBe(true);
    // Once answered, the disk says settled, or (its write still on its way: it follows the reply,
    // docs/settlement.md) submitted with the attempt's hash, which start-up finishes from the chain
    // (outcome-after-reply.test.ts); once synced, settled.
    const answered = (await storedTables(svc.dataDir)).tables;
    const hash = (r.body.transfer as { tx_hash: string }).tx_hash;
    if (answered.transfers?.find((t) => t.id === id)?.status !== 'settled') expect(answered.settlement_attempts?.find((a) => a.subject === id)).toMatchObject({ txHash: hash });
    await svc.deps.store.sync?.();
    expect((await storedTables(svc.dataDir)).tables.transfers?.find((t) => t.id === id)).toMatchObject({ status: 'settled', txHash: hash });
  });

  it('turns at once share relayer transactions (the pair joins the batch relay), each fee exact in its answer, its record and its transaction', async () => {
    const n = 12;
    const txs = await concurrentTurns(svc, [sender], 'amina_turns', n);
    // eslint-disable-next-line no-console
    console.log(`${n} concurrent agent transfer turns (embedded store): ${txs} relayer transactions`);
    expect(txs).toBeLessThan(n);
  });
});

/**
 * 8 commits at 126f3fe (spend reservation, quote, hold, attempt open, journal with the hash,
 * attempt answer, outcome, reservation committed); 5 at 10c7ccc (the quote, the hold and the
 * attempt in one, the answer with the outcome); 3 since (the spend reservation in the hold's
 * transaction, its `committed` mark in the outcome's: SpendSlot). The bare custodial move
 * makes 1 (the journal entry). Writes to disk: 3 at cfbcf37 (the hold's commit, the journal's,
 * the outcome's), 2 since (eighth round: the hold's commit is deferred, carried to disk by the
 * journal's before the broadcast, as the test below checks). Since h13agent the outcome's write
 * leaves after the reply (counted when it starts before the client has the answer).
 */
const MAX_COMMITS = 2;
/** Balance read, the two signatures (principal and fee), one relay, one receipt wait. */
const MAX_CHAIN_CALLS = 5;
