import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService, CreateChainOptions } from '../../src/chain/chain.js';
import { relayOwned, type OwnedRelayRequest } from '../../src/chain/owned-relay.js';
import { storeRelayJournal } from '../../src/chain/relay-journal.js';
import { AttemptLedger, journalResendGate, soleOwner } from '../../src/settlement/attempts.js';
import { PgStore } from '../../src/store/index.js';
import { until } from '../helpers/cluster.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { signedOwnedMove, tempDir, transactionsCarrying } from './helpers.js';

/**
 * The relay journal's start-up replay re-broadcasts the signed bytes of every journaled
 * transaction the node does not know. Those bytes carry an owned attempt's authorization, and the
 * attempt may have moved on while their instance was down: a survivor took it over past its
 * deadline and sent the same authorization from its own relayer. The replay then made a second,
 * different transaction for one nonce (one of the two reverts, its gas lost). Now a replay asks
 * the attempt first (journalResendGate): inside the owner's window it sends the identical bytes
 * (the same relayer nonce and hash); taken over, it puts a transaction that moves nothing at the
 * relayer nonce instead. Real anvil, two relayers, one PostgreSQL database for the journal and the
 * attempts; the owner "restarts" as a new chain service with its key on the same anvil.
 */
const logger = pino({ level: 'silent' });

describe('relay journal replay at start-up respects the attempt\'s owner (real anvil, PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PgStore;
  let a: ChainService;
  let b: ChainService;
  const keyC = generatePrivateKey();
  const cleanups: Array<() => Promise<void>> = [];

  /** An instance on the shared anvil with its own relayer key, journal on the shared database. */
  async function instance(key: Hex, name: string): Promise<ChainService> {
    const t = await tempDir(`replay-${name}-`);
    cleanups.push(t.cleanup);
    const opts: CreateChainOptions = {
      dataDir: t.dir,
      rpcUrl: a.rpcUrl,
      chainId: a.chainId,
      tokenAddress: a.tokenAddress,
      relayerPrivateKey: key,
      logger,
      confirmTimeoutMs: 60_000,
      journal: storeRelayJournal(store),
      journalResendGate: journalResendGate(store),
      // No background re-send while the test holds a transaction dropped: only the start-up replay.
      journalSweepMs: 3_600_000,
    };
    return createChain(opts);
  }

  beforeAll(async () => {
    db = await createDatabase(undefined, { prefix: 'replay_' });
    store = await PgStore.open(db.url, { poolMax: 4 });
    const ta = await tempDir('replay-a-');
    cleanups.push(ta.cleanup);
    a = await createChain({ dataDir: ta.dir, logger, confirmTimeoutMs: 60_000 });
    const keyB = generatePrivateKey();
    for (const k of [keyB, keyC]) {
      await a.publicClient.request({ method: 'anvil_setBalance' as never, params: [privateKeyToAccount(k).address, `0x${parseEther('10').toString(16)}`] as never });
    }
    b = await instance(keyB, 'b');
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await store?.close();
    await db?.drop();
    for (const c of cleanups) await c();
  });

  const rpc = (method: string, params: unknown[] = []) => a.publicClient.request({ method: method as never, params: params as never });

  /** Every transaction (mined since `from`, or waiting in the pool) whose input carries `nonce`, with its sender. */
  const carrying = (nonce: Hex, from: bigint) => transactionsCarrying(a, nonce, from);

  const signedMove = (subject: string) => signedOwnedMove(a, subject, 1_000);

  /**
   * Instance C relays the move (mining held), then dies; the node loses its transaction (dropped
   * from the pool), so only C's journal holds it. Returns C's journaled hash.
   */
  async function ownerSendsAndDies(c: ChainService, l: AttemptLedger, req: OwnedRelayRequest, id: string): Promise<Hex> {
    expect(await relayOwned(c, l, req)).toMatchObject({ status: 'pending', mayHaveSent: true });
    const sent = (await l.get(id))!.txHash as Hex;
    expect(await c.transactionKnown(sent)).toBe(true);
    await c.close();
    await rpc('anvil_dropTransaction', [sent]);
    expect(await a.transactionKnown(sent)).toBe(false);
    return sent;
  }

  it('taken over while its owner was down: the restarted owner does not re-broadcast its bytes; the survivor\'s one transaction moves the money', { timeout: 120_000 }, async () => {
    const { auth, req, id } = await signedMove('replay-takeover');
    const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
    const C = new AttemptLedger(store, soleOwner('instance-c'), 3_000, privateKeyToAccount(keyC).address);
    const B = new AttemptLedger(store, soleOwner('instance-b'), 60_000, b.relayerAddress);
    await rpc('evm_setAutomine', [false]);
    try {
      const c = await instance(keyC, 'c');
      const lost = await ownerSendsAndDies(c, C, req, id);
      // Past C's deadline the survivor takes the attempt over and sends the stored authorization.
      const row = (await C.get(id))!;
      await until(async () => Date.now() > Date.parse(row.deadlineAt) + 50, 'the owner\'s deadline to pass', 30_000);
      await relayOwned(b, B, { ...req, sign: async () => ({ ok: false, message: 'a take-over sends the stored authorization' }) });
      const taken = (await B.get(id))!;
      expect(taken).toMatchObject({ state: 'open', generation: 2 });
      expect(await b.transactionKnown(taken.txHash as Hex)).toBe(true);

      // C starts again with its key: its journal holds the lost transaction.
      const restarted = await instance(keyC, 'c2');
      cleanups.push(() => restarted.close());
      expect(await carrying(auth.nonce, from)).toEqual([{ hash: taken.txHash, from: b.relayerAddress.toLowerCase(), status: 'pending' }]);
      expect(await a.transactionKnown(lost)).toBe(false);
      // Its relayer nonce is not left as a gap: a transaction that moves nothing took it.
      const entry = (await storeRelayJournal(store).list(a.chainId, restarted.relayerAddress)).find((e) => e.hash !== lost && !e.owners);
      expect(entry).toBeDefined();
      expect(await a.transactionKnown(entry!.hash)).toBe(true);

      await rpc('evm_mine');
      expect(await carrying(auth.nonce, from)).toEqual([{ hash: taken.txHash, from: b.relayerAddress.toLowerCase(), status: 'success' }]);
      expect(await a.authorizationState(auth.from, auth.nonce)).toBe(true);
      expect((await a.publicClient.getTransactionReceipt({ hash: entry!.hash })).status).toBe('success');
      // The restarted relayer sends on from the next nonce.
      expect(await a.publicClient.getTransactionCount({ address: restarted.relayerAddress, blockTag: 'pending' })).toBe(entry!.nonce + 1);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });

  it('restarted inside its window: the replay is the identical transaction (same relayer nonce and hash), sent once, and nobody else sends the move', { timeout: 120_000 }, async () => {
    const { auth, req, id } = await signedMove('replay-owned');
    const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
    const C = new AttemptLedger(store, soleOwner('instance-c'), 60_000, privateKeyToAccount(keyC).address);
    const B = new AttemptLedger(store, soleOwner('instance-b'), 60_000, b.relayerAddress);
    await rpc('evm_setAutomine', [false]);
    try {
      const c = await instance(keyC, 'c3');
      const lost = await ownerSendsAndDies(c, C, req, id);
      const restarted = await instance(keyC, 'c4');
      cleanups.push(() => restarted.close());
      // The same bytes again: the same hash, at the relayer nonce it was signed for.
      expect(await a.transactionKnown(lost)).toBe(true);
      // Another instance inside the window sends nothing and waits for the owner.
      expect(await relayOwned(b, B, { ...req, sign: async () => ({ ok: false, message: 'a take-over sends the stored authorization' }) })).toMatchObject({ status: 'pending' });
      expect(await carrying(auth.nonce, from)).toEqual([{ hash: lost, from: restarted.relayerAddress.toLowerCase(), status: 'pending' }]);
      await rpc('evm_mine');
      expect(await carrying(auth.nonce, from)).toEqual([{ hash: lost, from: restarted.relayerAddress.toLowerCase(), status: 'success' }]);
      expect(await C.get(id)).toMatchObject({ state: 'open', generation: 1, txHash: lost });
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  });
});
