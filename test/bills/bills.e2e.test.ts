import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { balance, fund, newAccount, usdc, walletOf } from '../helpers/money.js';
import type { Account } from '../../src/accounts/accounts.js';
import { BillPayments, BillsService } from '../../src/bills/bills.js';
import { loadBillerCatalogue } from '../../src/bills/catalogue.js';
import { SandboxBillProvider, type BillProvider } from '../../src/bills/sandbox-provider.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { BILLER_COLLECTION_BASE, BILLER_COLLECTION_SLOTS, billerCollectionIndex } from '../../src/wallet/reserved.js';

describe('bill payments on anvil', () => {
  let svc: TestService;
  let bills: BillsService;
  let lagos: Account;

  beforeAll(async () => {
    svc = await startTestService();
    bills = svc.deps.bills!;
    lagos = await newAccount(svc, { name: 'Tunde', country: 'NG' });
    await fund(svc, lagos, '50');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const ikedc = () => bills.collectionAddress(bills.catalogue.billers.find((b) => b.id === 'ng-ikedc-prepaid')!);

  it('pays prepaid electricity on-chain to the biller collection wallet and returns a receipt and token', async () => {
    const from = walletOf(svc, lagos);
    const [before, collBefore, ethBefore] = await Promise.all([balance(svc, from), balance(svc, ikedc()), svc.deps.chain.nativeBalance(from)]);
    const res = await bills.pay(lagos.id, { biller: 'IKEDC', account_number: '451-2345-6789', amount: '5000' });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    const b = res.bill;
    expect(b.status).toBe('completed');
    expect(b.billerId).toBe('ng-ikedc-prepaid');
    expect(b.accountNumber).toBe('45123456789');
    expect(b.currency).toBe('NGN');
    expect(b.amount).toBe('5000');
    // 5000 / 1545.50 = 3.2351989... -> 3.235199 USDC
    expect(b.stablecoinAmount).toBe('3235199');
    expect(b.receipt?.receiptNumber).toMatch(/^SBX-\d{12}$/);
    expect(b.receipt?.token).toMatch(/^\d{20}$/);
    expect(b.receipt?.units).toBe('23.86'); // 5000 / 209.50 kWh, rounded down
    expect(b.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(svc, from)).toBe(before - 3_235_199n);
    expect(await balance(svc, ikedc())).toBe(collBefore + 3_235_199n);
    expect(await svc.deps.chain.nativeBalance(from)).toBe(ethBefore);
    expect((await svc.deps.store.table(BillPayments).get(b.id))?.status).toBe('completed');
    expect((await bills.history(lagos.id))[0]?.id).toBe(b.id);
  });

  it('converts an amount named in another currency and pays airtime to a national phone number', async () => {
    const res = await bills.pay(lagos.id, { biller: 'MTN airtime', account_number: '0803 123 4567', amount: '2', currency: 'USD' });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.bill.billerId).toBe('ng-mtn-airtime'); // the account's country settles MTN NG vs GH vs ZA
    expect(res.bill.accountNumber).toBe('+2348031234567');
    expect(res.bill.stablecoinAmount).toBe(usdc('2').toString());
    expect(res.bill.amount).toBe('3091'); // 2 USDC at 1545.50 NGN
    expect(res.bill.receipt?.token).toBeUndefined();
  });

  it('collection wallets sit in their reserved index range, one per biller', () => {
    const indexes = bills.catalogue.billers.map((b) => billerCollectionIndex(b.collectionWallet));
    expect(new Set(indexes).size).toBe(indexes.length);
    for (const i of indexes) {
      expect(i).toBeGreaterThanOrEqual(BILLER_COLLECTION_BASE);
      expect(i).toBeLessThan(BILLER_COLLECTION_BASE + BILLER_COLLECTION_SLOTS);
    }
  });

  it('names every refusal and moves nothing', async () => {
    const from = walletOf(svc, lagos);
    const before = await balance(svc, from);
    const cases: Array<[Parameters<BillsService['pay']>[1], string]> = [
      [{ biller: 'Zappa Power', account_number: '45123456789', amount: '5000' }, 'unknown_biller'],
      [{ biller: 'IKEDC', account_number: '1234', amount: '5000' }, 'invalid_account_number'],
      [{ biller: 'IKEDC', account_number: '45123450000', amount: '5000' }, 'customer_not_found'],
      [{ biller: 'IKEDC', account_number: '45123456789', amount: '500' }, 'amount_out_of_range'],
      [{ biller: 'IKEDC', account_number: '45123456789', amount: '600000' }, 'amount_out_of_range'],
      [{ biller: 'IKEDC', account_number: '45123456789', amount: '450000' }, 'insufficient_balance'],
      [{ biller: 'IKEDC', account_number: '45123459999', amount: '5000' }, 'provider_unavailable'],
      [{ biller: 'IKEDC', account_number: '45123456789', amount: '5000', currency: 'XYZ' }, 'unsupported_currency'],
    ];
    for (const [input, reason] of cases) {
      const res = await bills.pay(lagos.id, input);
      expect(res.ok ? 'ok' : res.reason, JSON.stringify(input)).toBe(reason);
    }
    const noCountry = await newAccount(svc, {});
    const ambiguous = await bills.pay(noCountry.id, { biller: 'MTN', account_number: '08031234567', amount: '100' });
    expect(!ambiguous.ok && ambiguous.reason).toBe('ambiguous_biller');
    expect(await balance(svc, from)).toBe(before);
  });

  it('enforces account limits', async () => {
    const limited = await newAccount(svc, { country: 'NG', limits: { perTransfer: usdc('1').toString(), daily: usdc('100').toString() } });
    await fund(svc, limited, '20');
    const before = await balance(svc, walletOf(svc, limited));
    const res = await bills.pay(limited.id, { biller: 'IKEDC', account_number: '45123456789', amount: '5000' });
    expect(!res.ok && res.reason).toBe('over_limit');
    expect(await balance(svc, walletOf(svc, limited))).toBe(before);
  });

  it('refunds on-chain when the biller declines after payment', async () => {
    const from = walletOf(svc, lagos);
    const [before, collBefore] = await Promise.all([balance(svc, from), balance(svc, ikedc())]);
    const res = await bills.pay(lagos.id, { biller: 'IKEDC', account_number: '45123455555', amount: '2000' });
    expect(!res.ok && res.reason).toBe('purchase_declined');
    expect(!res.ok && res.message).toContain('refunded');
    const [row] = await svc.deps.store.table(BillPayments).findMany({ accountId: lagos.id }, { order: 'desc', limit: 1 });
    expect(row?.status).toBe('refunded');
    expect(row?.txHash).toMatch(/^0x/);
    expect(row?.refundTxHash).toMatch(/^0x/);
    expect(await balance(svc, from)).toBe(before);
    expect(await balance(svc, ikedc())).toBe(collBefore);
  });

  it('a provider outage after payment leaves the bill paid; reconcile completes it with the same reference', async () => {
    const catalogue = loadBillerCatalogue();
    const sandbox = new SandboxBillProvider(catalogue);
    let down = true;
    const flaky: BillProvider = {
      validateCustomer: (id, acct) => sandbox.validateCustomer(id, acct),
      purchase: async (req) => (down ? { ok: false, reason: 'provider_unavailable', message: 'down' } : sandbox.purchase(req)),
    };
    const service = new BillsService(svc.deps.store, svc.deps.chain, svc.deps.fx, svc.deps.accounts, new WalletDirectory(svc.deps.chain, svc.deps.store), catalogue, flaky);
    const from = walletOf(svc, lagos);
    const before = await balance(svc, from);
    const res = await service.pay(lagos.id, { biller: 'IKEDC', account_number: '45123456789', amount: '1000' });
    expect(res.ok && res.bill.status).toBe('paid');
    if (!res.ok) return;
    down = false;
    const done = await service.reconcile(res.bill.id);
    expect(done.ok && done.bill.status).toBe('completed');
    expect(done.ok && done.bill.receipt?.token).toMatch(/^\d{20}$/);
    const again = await service.reconcile(res.bill.id);
    expect(again.ok && again.bill.receipt?.receiptNumber).toBe(done.ok ? done.bill.receipt?.receiptNumber : '');
    expect(await balance(svc, from)).toBe(before - BigInt(res.bill.stablecoinAmount));
  });
});
