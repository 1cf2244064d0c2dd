import { parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { balance, fund, newAccount, usdc, walletOf } from '../helpers/money.js';
import type { Account } from '../../src/accounts/accounts.js';
import { TransfersService, Transfers, type TransferSettledEvent } from '../../src/transfers/transfers.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';
import { WalletHoldsTable } from '../../src/wallet/holds.js';

describe('transfers on anvil', () => {
  let svc: TestService;
  let transfers: TransfersService;
  let kenyan: Account;
  let nigerian: Account;
  let feeWallet: `0x${string}`;

  beforeAll(async () => {
    svc = await startTestService();
    transfers = svc.deps.transfers!;
    kenyan = await newAccount(svc, { name: 'Wanjiru', country: 'KE', phone: '+254711000111' });
    nigerian = await newAccount(svc, { name: 'Amina', country: 'NG', email: 'amina@example.com' });
    await svc.deps.accounts.update(nigerian.id, { telegramUsername: 'amina' });
    feeWallet = svc.deps.chain.custodialAddress(FEE_WALLET_INDEX);
    await fund(svc, kenyan, '100');
  });
  afterAll(() => svc?.stop({ removeData: true }));
  const relayerTxCount = () => svc.deps.chain.publicClient.getTransactionCount({ address: svc.deps.chain.relayerAddress });

  it('sends KES to @username: settles on-chain, recipient sees NGN, sender pays the fee and no gas', async () => {
    const events: TransferSettledEvent[] = [];
    const heard = new Promise<void>((resolve) =>
      transfers.onTransferSettled((e) => {
        events.push(e);
        resolve();
      }),
    );
    const from = walletOf(svc, kenyan);
    const to = walletOf(svc, nigerian);
    const [before, toBefore, feeBefore, ethBefore] = await Promise.all([
      balance(svc, from),
      balance(svc, to),
      balance(svc, feeWallet),
      svc.deps.chain.nativeBalance(from),
    ]);

    const txBefore = await relayerTxCount();
    const res = await transfers.send(kenyan.id, { recipient: '@amina', amount: '5000' });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    const t = res.transfer;
    expect(t.status).toBe('settled');
    expect(t.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(t.sourceCurrency).toBe('KES');
    expect(t.stablecoinAmount).toBe('38684720');
    expect(t.fee).toBe('193423');
    expect(t.recipientCurrency).toBe('NGN');
    expect(t.recipientAmount).toBe('59787.23');
    expect(t.rate).toBe('11.95744681');
    expect(t.feeStatus).toBe('settled');
    // One on-chain move (issue 23, point 3): the fee travels in the transfer's own transaction.
    expect(svc.deps.chain.batchTransfers).toBe(true);
    expect(t.feeTxHash).toBe(t.txHash);
    expect(await relayerTxCount()).toBe(txBefore + 1);
    const receipt = await svc.deps.chain.publicClient.getTransactionReceipt({ hash: t.txHash as `0x${string}` });
    const moves = parseEventLogs({ abi: stablecoinAbi, eventName: 'Transfer', logs: receipt.logs }).map((l) => [l.args.from, l.args.to, l.args.value]);
    expect(moves).toEqual([
      [from, to, 38_684_720n],
      [from, feeWallet, 193_423n],
    ]);

    expect(await balance(svc, from)).toBe(before - 38_684_720n - 193_423n);
    expect(await balance(svc, to)).toBe(toBefore + 38_684_720n);
    expect(await balance(svc, feeWallet)).toBe(feeBefore + 193_423n);
    expect(await svc.deps.chain.nativeBalance(from)).toBe(ethBefore);

    await heard;
    expect(events[0]!.recipient?.id).toBe(nigerian.id);
    expect(events[0]!.recipientAmountText).toBe('59,787.23 NGN');

    const stored = await svc.deps.store.table(Transfers).get(t.id);
    expect(stored?.status).toBe('settled');
    expect((await transfers.history(kenyan.id)).map((x) => x.id)).toContain(t.id);
    expect((await transfers.history(nigerian.id)).map((x) => x.id)).toContain(t.id);
  });

  it('retrying the same transfer never pays twice (same nonce)', async () => {
    const [t] = await transfers.history(kenyan.id, { limit: 1 });
    const from = walletOf(svc, kenyan);
    const before = await balance(svc, from);
    const again = await moveOnce(svc.deps.chain, {
      fromIndex: kenyan.walletIndex,
      to: t!.toAddress as `0x${string}`,
      value: BigInt(t!.stablecoinAmount),
      kind: 'transfer',
      id: t!.id,
    });
    expect(again).toEqual({ status: 'settled', txHash: t!.txHash });
    const re = await transfers.reconcile(t!.id);
    expect(re.ok && re.transfer.status).toBe('settled');
    expect(await balance(svc, from)).toBe(before);
  });

  it('resolves recipients by phone, email, account id and 0x address', async () => {
    const byPhone = await transfers.preview(nigerian.id, { recipient: '+254 711 000 111', amount: '10' });
    expect(byPhone.ok && byPhone.preview.recipient.kind === 'account' && byPhone.preview.recipient.account.id).toBe(kenyan.id);
    const byEmail = await transfers.preview(kenyan.id, { recipient: 'AMINA@example.com', amount: '10' });
    expect(byEmail.ok && byEmail.preview.recipient.kind === 'account' && byEmail.preview.recipient.account.id).toBe(nigerian.id);
    const byId = await transfers.preview(kenyan.id, { recipient: nigerian.id, amount: '10' });
    expect(byId.ok && byId.preview.quote.recipientCurrency).toBe('NGN');
    const byAddress = await transfers.preview(kenyan.id, { recipient: walletOf(svc, nigerian).toLowerCase(), amount: '10' });
    expect(byAddress.ok && byAddress.preview.recipient.kind).toBe('account');
    const national = await transfers.preview(nigerian.id, { recipient: '0711000111', amount: '10' });
    expect(national.ok).toBe(false); // Nigerian sender: 0711... becomes +234711000111, nobody
  });

  it('pays out to an outside 0x address in USDC', async () => {
    const outside = '0x000000000000000000000000000000000000dEaD' as const;
    const before = await balance(svc, outside);
    const res = await transfers.send(kenyan.id, { recipient: outside, amount: '1', currency: 'USD' });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.transfer.recipientKind).toBe('external');
    expect(res.transfer.recipientCurrency).toBe('USDC');
    expect(res.transfer.recipientAmount).toBe('1');
    expect(await balance(svc, outside)).toBe(before + usdc('1'));
  });

  it('refuses unknown, invalid and self recipients, moving nothing', async () => {
    const from = walletOf(svc, kenyan);
    const before = await balance(svc, from);
    const unknown = await transfers.send(kenyan.id, { recipient: '@nobody_here', amount: '100' });
    expect(!unknown.ok && unknown.reason).toBe('unknown_recipient');
    const self = await transfers.send(kenyan.id, { recipient: '+254711000111', amount: '100' });
    expect(!self.ok && self.reason).toBe('self_transfer');
    const selfAddress = await transfers.send(kenyan.id, { recipient: from, amount: '100' });
    expect(!selfAddress.ok && selfAddress.reason).toBe('self_transfer');
    const invalid = await transfers.send(kenyan.id, { recipient: '0x1234', amount: '100' });
    expect(!invalid.ok && invalid.reason).toBe('invalid_recipient');
    expect(await balance(svc, from)).toBe(before);
  });

  it('refuses more than the balance (amount + fee), recording a failed transfer and moving nothing', async () => {
    const poor = await newAccount(svc, { country: 'KE' });
    await fund(svc, poor, '10');
    const from = walletOf(svc, poor);
    const to = walletOf(svc, nigerian);
    const [before, toBefore] = await Promise.all([balance(svc, from), balance(svc, to)]);
    // 10 USD is exactly the balance, but the 0.05 USDC fee makes it too much.
    const res = await transfers.send(poor.id, { recipient: '@amina', amount: '10', currency: 'USD' });
    expect(res.ok).toBe(false);
    expect(!res.ok && res.reason).toBe('insufficient_balance');
    expect(await balance(svc, from)).toBe(before);
    expect(await balance(svc, to)).toBe(toBefore);
    const [last] = await svc.deps.store.table(Transfers).findMany({ accountId: poor.id }, { order: 'desc', limit: 1 });
    expect(last?.status).toBe('failed');
    expect(last?.failureReason).toBe('insufficient_balance');
  });

  it('concurrent transfers from one wallet never overspend it: the ones that do not fit send nothing', async () => {
    const racer = await newAccount(svc, { country: 'KE' });
    await fund(svc, racer, '100');
    const from = walletOf(svc, racer);
    const to = walletOf(svc, nigerian);
    const [toBefore, txBefore] = await Promise.all([balance(svc, to), relayerTxCount()]);
    // 5 x (30 + 0.15 fee): three fit in 100, whatever the order.
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map(() => transfers.send(racer.id, { recipient: '@amina', amount: '30', currency: 'USD' })),
    );
    const settled = results.filter((r) => r.ok && r.transfer.status === 'settled');
    const refused = results.filter((r) => !r.ok);
    expect(settled).toHaveLength(3);
    expect(refused.map((r) => !r.ok && r.reason)).toEqual(['insufficient_balance', 'insufficient_balance']);
    expect(await balance(svc, from)).toBe(usdc('100') - 3n * (usdc('30') + usdc('0.15')));
    expect(await balance(svc, to)).toBe(toBefore + usdc('90'));
    // Only the settled transfers' transactions reached the chain (principal and fee together;
    // transfers arriving together share one through the batch relay): no reverted, gas-paid
    // attempt for the refused ones.
    const txs = (await relayerTxCount()) - txBefore;
    expect(txs).toBe(new Set(settled.map((r) => r.ok && r.transfer.txHash)).size);
    expect(txs).toBeLessThanOrEqual(3);
    const rows = await svc.deps.store.table(Transfers).findMany({ accountId: racer.id });
    const failed = rows.filter((r) => r.status === 'failed');
    expect(failed).toHaveLength(2);
    for (const f of failed) {
      expect(f.failureReason).toBe('insufficient_balance');
      expect(f.txHash).toBeUndefined();
    }
    // Every hold is released once its money moved.
    const holds = await svc.deps.store.table(WalletHoldsTable).get(from.toLowerCase());
    expect(holds?.holds).toEqual({});
    expect(holds?.moved).toBe((3n * (usdc('30') + usdc('0.15'))).toString());
  });

  it('a bill, a stake and a transfer at once from one wallet: two fit, the third sends nothing', async () => {
    const mixer = await newAccount(svc, { country: 'NG' });
    await fund(svc, mixer, '50');
    const from = walletOf(svc, mixer);
    const market = await svc.deps.markets!.create(kenyan.id, {
      question: 'Will the mixed wallet race be fair?',
      closes_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    if (!market.ok) throw new Error(market.message);
    const txBefore = await relayerTxCount();
    // About 20 USDC each (the transfer 20.10 with its fee): any two fit in 50, all three do not.
    const [bill, stake, transfer] = await Promise.all([
      svc.deps.bills!.pay(mixer.id, { biller: 'MTN airtime', account_number: '0803 123 4567', amount: '20', currency: 'USD' }),
      svc.deps.markets!.stake(mixer.id, { market: market.market.id, outcome: 'Yes', amount: '20', currency: 'USDC' }),
      transfers.send(mixer.id, { recipient: '+254711000111', amount: '20', currency: 'USD' }),
    ]);
    const all = [bill, stake, transfer];
    expect(all.filter((r) => r.ok)).toHaveLength(2);
    const refused = all.filter((r) => !r.ok);
    expect(refused.map((r) => !r.ok && r.reason)).toEqual(['insufficient_balance']);
    if (bill.ok) expect(bill.bill.status).toBe('completed');
    if (stake.ok) expect(stake.stake.status).toBe('settled');
    if (transfer.ok) expect(transfer.transfer.status).toBe('settled');

    const spent = (bill.ok ? usdc('20') : 0n) + (stake.ok ? usdc('20') : 0n) + (transfer.ok ? usdc('20.1') : 0n);
    expect(await balance(svc, from)).toBe(usdc('50') - spent);
    // One transaction per bill, stake or transfer (its fee rides along); none for the refusal.
    expect(await relayerTxCount()).toBe(txBefore + (bill.ok ? 1 : 0) + (stake.ok ? 1 : 0) + (transfer.ok ? 1 : 0));
    const holds = await svc.deps.store.table(WalletHoldsTable).get(from.toLowerCase());
    expect(holds?.holds).toEqual({});
    expect(holds?.moved).toBe(spent.toString());
  });

  it('enforces the per-transfer and daily limits in the module', async () => {
    const limited = await newAccount(svc, { country: 'KE', limits: { perTransfer: usdc('5').toString(), daily: usdc('8').toString() } });
    await fund(svc, limited, '50');
    const from = walletOf(svc, limited);
    const before = await balance(svc, from);
    const per = await transfers.send(limited.id, { recipient: '@amina', amount: '6', currency: 'USD' });
    expect(!per.ok && per.reason).toBe('over_limit');
    expect(await balance(svc, from)).toBe(before);

    const first = await transfers.send(limited.id, { recipient: '@amina', amount: '5', currency: 'USD' });
    expect(first.ok && first.transfer.status).toBe('settled');
    const second = await transfers.send(limited.id, { recipient: '@amina', amount: '4', currency: 'USD' });
    expect(!second.ok && second.reason).toBe('over_limit');
    expect(!second.ok && second.message).toContain('3.00 USDC left today');
    expect(await balance(svc, from)).toBe(before - usdc('5') - 25_000n);

    // The default per-transfer limit is 2,000 USDC.
    const big = await transfers.preview(kenyan.id, { recipient: '@amina', amount: '2000.01', currency: 'USD' });
    expect(!big.ok && big.reason).toBe('over_limit');
  });

  it('quotes hold for a stated time; an expired quote is refused', async () => {
    const q = await transfers.quote(kenyan.id, { recipient: '@amina', amount: '100' });
    expect(q.ok && q.transfer.status).toBe('quoted');
    if (!q.ok) return;
    const ttl = Date.parse(q.transfer.quoteExpiresAt) - Date.parse(q.transfer.createdAt);
    expect(ttl).toBe(10 * 60_000);

    const expiring = new TransfersService(svc.deps.store, svc.deps.chain, svc.deps.fx, svc.deps.accounts, new WalletDirectory(svc.deps.chain, svc.deps.store), {
      quoteTtlMs: 0,
    });
    const stale = await expiring.quote(kenyan.id, { recipient: '@amina', amount: '100' });
    if (!stale.ok) throw new Error(stale.message);
    const before = await balance(svc, walletOf(svc, kenyan));
    const late = await expiring.confirm(kenyan.id, stale.transfer.id);
    expect(!late.ok && late.reason).toBe('quote_expired');
    expect((await expiring.get(stale.transfer.id))?.status).toBe('expired');
    expect(await balance(svc, walletOf(svc, kenyan))).toBe(before);

    // Someone else's quote is not found for them; a confirmed one cannot be confirmed twice.
    const other = await transfers.confirm(nigerian.id, q.transfer.id);
    expect(!other.ok && other.reason).toBe('transfer_not_found');
    const done = await transfers.confirm(kenyan.id, q.transfer.id);
    expect(done.ok && done.transfer.status).toBe('settled');
    const twice = await transfers.confirm(kenyan.id, q.transfer.id);
    expect(!twice.ok && twice.reason).toBe('invalid_state');
  });
});
