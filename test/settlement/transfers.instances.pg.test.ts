import { describe, expect, it } from 'vitest';
import { getAddress, parseUnits, type Address, type Hex } from 'viem';
import { createWalletClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { nonceFor } from '../../src/chain/authorization.js';
import { custodialAccount } from '../../src/chain/wallet-secrets.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { devAccount, until, type Instance } from '../helpers/cluster.js';
import { threeInstances } from '../helpers/instances.js';
import { call, createMerchant } from '../helpers/service.js';

/**
 * Issue 21, point 5, for agent transfers: three real service processes on one PostgreSQL and one
 * anvil, transfers sent the way a user sends them (`POST /api/quotes`, then
 * `POST /api/agent/settle {quote_id}`), each transfer and its fee ONE batched move
 * (src/wallet/custodial-fee-move.ts) owned through the attempt ledger.
 * - Transfers sent on every instance while the chain holds their transactions, so each request
 *   answers before its receipt and leaves the transfer `submitted`; the `reconcile:money` pass
 *   (every 300 ms, `MONEY_RECONCILE_IDLE=100ms`, on whichever instance holds its lease) picks them
 *   up while their owners' transactions are in flight (mining held 4 s against a 3 s deadline).
 * - An instance killed mid-transfer (its transaction sent, then dropped by the node): a survivor's
 *   reconcile pass takes the attempt over and sends the stored authorization (with the fee) once.
 * - A deposit give-back (money sent to a canceled session's deposit address) on the two instances
 *   left, the one relaying it killed mid-move (transaction dropped): the last one finishes it;
 *   the sender gets the money back exactly once.
 * Checked against the chain: exactly one mined transaction per transfer nonce, the fee's nonce in
 * that same transaction (moved once), the caller never told "nothing was sent", final `settled`.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const scenarios = [
  { name: 'instant mining', blockTimeSeconds: 0, transfers: 6 },
  { name: 'a block every 2 s', blockTimeSeconds: 2, transfers: 6 },
];

// Both deployments at once (their own database, anvil and three instances each; nothing shared):
// the file takes about the longer scenario's time instead of the sum (docs/testing.md, "Fourteenth
// round (h14ci)"). The sequencer counts it as two multi-process files. 600 s each: side by side on
// a machine at load 25 a scenario took 250 s.
describe.concurrent.each(scenarios)('three instances, one owner per agent transfer ($name)', ({ blockTimeSeconds, transfers: rounds }) => {
  const start = threeInstances({
    prefix: 'xfer21_',
    blockTimeSeconds,
    env: {
      SETTLEMENT_CONFIRM_TIMEOUT: '1s',
      SETTLEMENT_CHAIN_DELAY: '2s',
      RECONCILE_INTERVAL: '300ms',
      DEPOSIT_WATCH_INTERVAL: '300ms',
      MONEY_RECONCILE_IDLE: '100ms',
      AGENT_RATE_LIMIT: '1000/min',
    },
  });

  it('transfers raced by another instance\'s reconcile pass, an instance killed mid-transfer: one batched send, fee once, truthful answers', { timeout: 600_000 }, async () => {
    const { chain, nodes, all, q, rpc, holdMining, watchStatuses, minedWith, attemptOf } = await start();
    // Every status each transfer is seen in, in order (the database read every 100 ms).
    const watch = watchStatuses(`SELECT id, doc->>'status' AS status FROM transfers`);
    const seen = watch.seen;
    const token = { address: chain.tokenAddress, abi: stablecoinAbi } as const;
    const balance = (a: Address) => chain.publicClient.readContract({ ...token, functionName: 'balanceOf', args: [a] });
    const transferRow = async (id: string) => (await q.query<{ doc: any }>(`SELECT doc FROM transfers WHERE id = $1`, [id])).rows[0]!.doc;
    const transferOfQuote = async (quoteId: string) => (await q.query<{ id: string }>(`SELECT id FROM transfers WHERE doc->>'quoteId' = $1`, [quoteId])).rows[0]?.id;

    // ------------------------------------------------------------ a funded sender, an outside recipient
    const sender = await createMerchant(all[0].api, 'Transfers Sender');
    const me = await call(`${all[0].api}/me`, { key: sender.key });
    const from = getAddress(me.body.account.wallet.address as string);
    await chain.mint(from, parseUnits('100', 6));
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const feeWallet = custodialAccount(nodes.mnemonic, FEE_WALLET_INDEX).address;
    const [fromBefore, feeBefore] = [await balance(from), await balance(feeWallet)];
    /** Quote on `inst` and send it there: what a user (or an agent over the API) does. */
    const send = async (inst: Instance, amount: string) => {
      const quote = await call(`${inst.api}/quotes`, { key: sender.key, body: { amount, currency: 'USD', recipient: to } });
      expect(quote.status, JSON.stringify(quote.body)).toBe(201);
      const sent = call(`${inst.api}/agent/settle`, { key: sender.key, body: { quote_id: quote.body.id } });
      return { quote: quote.body as { id: string; stablecoin_amount: string; fee: string; total_debit: string }, sent };
    };

    const answers: Array<{ transfer: string; via: string; status: number; body: any }> = [];
    /** The truth, from the chain: what each transfer did, and what its caller was told. */
    const truth = async (ids: string[]) => {
      const problems: string[] = [];
      for (const id of ids) {
        const t = await transferRow(id);
        const mined = await minedWith(nonceFor('transfer', id) as Hex);
        const feeMined = await minedWith(nonceFor('transfer-fee', id) as Hex);
        const used = await chain.publicClient.readContract({ ...token, functionName: 'authorizationState', args: [from, nonceFor('transfer', id) as Hex] });
        if (!used) problems.push(`${id}: authorization unused on-chain, record ${t.status}`);
        if (mined.length !== 1 || mined[0]!.status !== 'success') problems.push(`${id}: ${mined.length} mined transactions carry its nonce (${JSON.stringify(mined)})`);
        // The fee's authorization rode in the same (one) transaction.
        if (feeMined.length !== 1 || feeMined[0]!.hash !== mined[0]?.hash) problems.push(`${id}: fee mined ${JSON.stringify(feeMined)}, transfer ${mined[0]?.hash}`);
        if (t.status !== 'settled' || t.feeStatus !== 'settled') problems.push(`${id}: ends ${t.status}, fee ${t.feeStatus}`);
        if (t.txHash !== mined[0]?.hash || t.feeTxHash !== mined[0]?.hash) problems.push(`${id}: recorded ${t.txHash} / fee ${t.feeTxHash}, chain ${mined[0]?.hash}`);
        if ((seen.get(id) ?? []).includes('failed')) problems.push(`${id}: read failed (${seen.get(id)!.join(' -> ')}) though its money moved`);
        for (const ans of answers.filter((x) => x.transfer === id)) {
          const text = JSON.stringify(ans.body);
          if (ans.status !== 200 || ans.body.ok !== true || !['submitted', 'settled'].includes(ans.body.transfer?.status) || /nothing was sent|not sent/i.test(text)) {
            problems.push(`${id}: answered ${ans.status} ${text.slice(0, 200)}`);
          }
        }
      }
      return problems;
    };

    // ------------------------------------------------------------ transfers raced by another instance's reconcile pass
    const quoted: Array<{ stablecoin_amount: string; fee: string; total_debit: string }> = [];
    await holdMining(true);
    await Promise.all(
      Array.from({ length: rounds }, async (_, i) => {
        const inst = all[i % 3]!;
        const { quote, sent } = await send(inst, `${i + 1}`);
        quoted.push(quote);
        const r = await sent;
        answers.push({ transfer: (await transferOfQuote(quote.id))!, via: inst.name, status: r.status, body: r.body });
      }),
    );
    // The reconcile pass (on whichever instance holds its lease) looks at them past their deadline (3 s).
    await sleep(4_000);
    await holdMining(false);
    const transferIds = answers.map((x) => x.transfer);
    await until(async () => (await q.query<{ n: string }>(`SELECT count(*) AS n FROM transfers WHERE id = ANY($1) AND doc->>'status' = 'settled'`, [transferIds])).rows[0]!.n === String(new Set(transferIds).size), 'every transfer to settle', 60_000);
    // Checked before anything else happens (a second send shows here as a second, reverted transaction).
    expect(await truth(transferIds)).toEqual([]);

    // ------------------------------------------------------------ an instance killed mid-transfer
    const [a, b, c] = all;
    await holdMining(true);
    const cut = await send(c, '7');
    quoted.push(cut.quote);
    void cut.sent.catch(() => undefined);
    const victim = await until(
      async () => {
        const id = await transferOfQuote(cut.quote.id);
        const att = id && (await attemptOf(id, 'transfer'));
        return att?.txHash ? { transfer: id!, att } : undefined;
      },
      'c to send the transfer',
      20_000,
    );
    await c.kill();
    // The node loses c's transaction: only a take-over can finish the transfer.
    await rpc('anvil_dropTransaction', [victim.att.txHash]);
    await holdMining(false);
    await until(async () => (await transferRow(victim.transfer)).status === 'settled', 'a survivor to finish the transfer', 60_000);
    transferIds.push(victim.transfer);
    await watch.stop();
    expect(await truth(transferIds)).toEqual([]);

    // Money conserved to the unit: each transfer and each fee moved exactly once.
    const sum = (k: 'stablecoin_amount' | 'fee' | 'total_debit') => quoted.reduce((s, x) => s + parseUnits(x[k], 6), 0n);
    expect(await balance(to)).toBe(sum('stablecoin_amount'));
    expect(await balance(feeWallet)).toBe(feeBefore + sum('fee'));
    expect(await balance(from)).toBe(fromBefore - sum('total_debit'));
    const taken = await attemptOf(victim.transfer, 'transfer');
    expect(taken).toMatchObject({ state: 'done' });

    // ------------------------------------------------------------ a give-back across the two instances left, its relayer killed mid-move
    const shop = await createMerchant(a.api, 'Give-back Shop');
    const made = await call(`${a.api}/v1/payments`, { key: shop.key, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect(made.status).toBe(201);
    const sessionId = made.body.id as string;
    const deposit = getAddress((await call(`${a.api}/checkout/${sessionId}`)).body.payment.depositAddress);
    expect((await call(`${b.api}/v1/payments/${sessionId}/cancel`, { key: shop.key, body: {} })).status).toBe(200);
    const phone = devAccount(7);
    await chain.mint(phone.address, parseUnits('3', 6));
    const phoneBefore = await balance(phone.address);
    await holdMining(true);
    const wallet = createWalletClient({ account: phone, chain: { ...foundry, rpcUrls: { default: { http: [chain.rpcUrl] } } }, transport: http(chain.rpcUrl) });
    await wallet.writeContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [deposit, parseUnits('3', 6)] });
    // Mining is held in both modes: the deposit's own block, mined by hand.
    await rpc('evm_mine');
    const giving = await until(async () => {
      const att = await attemptOf(sessionId, 'deposit-refund');
      return att?.txHash ? att : undefined;
    }, 'a give-back to be sent', 30_000);
    const byRelayer = new Map([a, b].map((i) => [i.relayer.toLowerCase(), i]));
    const giver = byRelayer.get(String(giving.relayer).toLowerCase())!;
    expect(giver).toBeDefined();
    await giver.kill();
    await rpc('anvil_dropTransaction', [giving.txHash]);
    await holdMining(false);
    const depositRow = async () => (await q.query<{ doc: any }>(`SELECT doc FROM payment_deposits WHERE id = $1`, [sessionId])).rows[0]?.doc;
    await until(async () => (await depositRow())?.transfers.every((t: any) => t.refundTxHash), 'the survivor to finish the give-back', 60_000);
    const given = (await depositRow()).transfers as Array<{ id: string; refundTxHash: string }>;
    expect(given).toHaveLength(1);
    const givenWith = await minedWith(nonceFor('deposit-refund', `${sessionId}:${given[0]!.id}`) as Hex);
    expect(givenWith).toHaveLength(1);
    expect(givenWith[0]!.status).toBe('success');
    expect(given[0]!.refundTxHash).toBe(givenWith[0]!.hash);
    // Returned exactly once: the sender has all of it back, the deposit address is empty.
    expect(await balance(phone.address)).toBe(phoneBefore);
    expect(await balance(deposit)).toBe(0n);
    const gave = await attemptOf(sessionId, 'deposit-refund');
    expect(gave).toMatchObject({ state: 'done' });
    console.log(
      `issue 21 transfers (${blockTimeSeconds ? `block time ${blockTimeSeconds}s` : 'instant'}): ${transferIds.length} transfers, each one mined transaction carrying its fee ` +
        `(${answers.filter((x) => x.body.transfer?.status === 'submitted').length} answered submitted, ${answers.filter((x) => x.body.transfer?.status === 'settled').length} settled, 0 failed); ` +
        `killed mid-transfer (${c.name}): finished by a survivor (attempt generation ${taken.generation}); ` +
        `give-back: its relayer ${giver.name} killed mid-move, returned once by the survivor (attempt generation ${gave.generation})`,
    );
  });
});
