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

let svc: TestService;
let sender: Merchant;
let counting = false;
let commits = 0;
const chainCalls: string[] = [];

beforeAll(async () => {
  ({ svc, sender } = await transferTurnWorld('amina_turns'));

  // Every commit that wrote something reaches the store's (private) flush once, coalesced or not.
  const store = svc.deps.store as unknown as { flush: () => Promise<void> };
  const flush = Object.getPrototypeOf(store).flush as () => Promise<void>;
  store.flush = function (this: unknown) {
    if (counting) commits++;
    return flush.call(this);
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
  it('settles with the fee in one on-chain move and at most MAX_COMMITS store commits', async () => {
    await countedTurn(); // warm: caches, the wallet's holds row
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
 * makes 1 (the journal entry).
 */
const MAX_COMMITS = 3;
/** Balance read, the two signatures (principal and fee), one relay, one receipt wait. */
const MAX_CHAIN_CALLS = 5;
