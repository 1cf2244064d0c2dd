import { describe, expect, it } from 'vitest';
import { loadBillerCatalogue } from '../../src/bills/catalogue.js';
import { formatMeterToken, SandboxBillProvider, type BillPurchaseRequest } from '../../src/bills/sandbox-provider.js';

const catalogue = loadBillerCatalogue();
const ikedc = (over: Partial<BillPurchaseRequest> = {}): BillPurchaseRequest => ({
  billerId: 'ng-ikedc-prepaid',
  account: '45123456789',
  amountMinor: 300000n,
  currency: 'NGN',
  reference: 'bill_ref_1',
  ...over,
});

describe('SandboxBillProvider.validateCustomer', () => {
  const provider = new SandboxBillProvider(catalogue);

  it('finds a customer with a stable name and the normalised number', async () => {
    const a = await provider.validateCustomer('ng-ikedc-prepaid', '4512 3456 789');
    const b = await provider.validateCustomer('ng-ikedc-prepaid', '45123456789');
    expect(a).toMatchObject({ ok: true, accountNumber: '45123456789' });
    expect(b).toEqual(a);
    if (!a.ok) throw new Error('expected ok');
    expect(a.customerName.length).toBeGreaterThan(3);
  });

  it('applies the documented account rules', async () => {
    expect(await provider.validateCustomer('ng-ikedc-prepaid', '45123450000')).toMatchObject({ ok: false, reason: 'customer_not_found' });
    expect(await provider.validateCustomer('ng-ikedc-prepaid', '45123459999')).toMatchObject({ ok: false, reason: 'provider_unavailable' });
    expect(await provider.validateCustomer('ng-ikedc-prepaid', '123')).toMatchObject({ ok: false, reason: 'invalid_account_number' });
    expect(await provider.validateCustomer('xx-nothing', '45123456789')).toMatchObject({ ok: false, reason: 'unknown_biller' });
  });

  it('returns airtime numbers in E.164', async () => {
    expect(await provider.validateCustomer('ke-safaricom-airtime', '0712 345 678')).toMatchObject({ ok: true, accountNumber: '+254712345678' });
  });
});

describe('SandboxBillProvider.purchase', () => {
  it('sells prepaid electricity: a 20-digit token from the reference and units at the tariff, rounded down', async () => {
    const r = await new SandboxBillProvider(catalogue).purchase(ikedc());
    expect(r.ok).toBe(true);
    if (!r.ok) throw new Error('expected ok');
    expect(r.token).toMatch(/^\d{20}$/);
    // 3000 NGN / 209.50 NGN per kWh = 14.319... kWh
    expect(r.units).toBe('14.31');
    expect(r.unitLabel).toBe('kWh');
    expect(r.receiptNumber).toMatch(/^SBX-\d{12}$/);
    expect(r.accountNumber).toBe('45123456789');
  });

  it('computes KPLC units with its own tariff', async () => {
    const r = await new SandboxBillProvider(catalogue).purchase({
      billerId: 'ke-kplc-prepaid',
      account: '37123456789',
      amountMinor: 100000n,
      currency: 'KES',
      reference: 'kplc-1',
    });
    // 1000 KES / 28.50 KES per kWh = 35.087... kWh
    expect(r).toMatchObject({ ok: true, units: '35.08' });
  });

  it('derives the token from the reference and secret only, so it survives restarts', async () => {
    const first = await new SandboxBillProvider(catalogue).purchase(ikedc());
    const restarted = await new SandboxBillProvider(catalogue).purchase(ikedc());
    const otherRef = await new SandboxBillProvider(catalogue).purchase(ikedc({ reference: 'bill_ref_2' }));
    const otherSecret = await new SandboxBillProvider(catalogue, { secret: 'another' }).purchase(ikedc());
    if (!first.ok || !restarted.ok || !otherRef.ok || !otherSecret.ok) throw new Error('expected ok');
    expect(restarted.token).toBe(first.token);
    expect(restarted.receiptNumber).toBe(first.receiptNumber);
    expect(otherRef.token).not.toBe(first.token);
    expect(otherSecret.token).not.toBe(first.token);
  });

  it('returns no token for bills that are not prepaid electricity', async () => {
    const r = await new SandboxBillProvider(catalogue).purchase({
      billerId: 'ng-dstv',
      account: '7012345678',
      amountMinor: 500000n,
      currency: 'NGN',
      reference: 'tv-1',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) throw new Error('expected ok');
    expect(r.token).toBeUndefined();
    expect(r.units).toBeUndefined();
  });

  it('replays a retried purchase and refuses a reused reference with different details', async () => {
    const provider = new SandboxBillProvider(catalogue);
    const first = await provider.purchase(ikedc());
    expect(await provider.purchase(ikedc())).toEqual(first);
    expect(await provider.purchase(ikedc({ amountMinor: 400000n }))).toMatchObject({ ok: false, reason: 'duplicate_reference' });
  });

  it('checks currency, limits, reference and the declined/unavailable accounts', async () => {
    const p = new SandboxBillProvider(catalogue);
    expect(await p.purchase(ikedc({ currency: 'KES' }))).toMatchObject({ ok: false, reason: 'currency_mismatch' });
    expect(await p.purchase(ikedc({ amountMinor: 99_999n }))).toMatchObject({ ok: false, reason: 'amount_below_minimum' });
    expect(await p.purchase(ikedc({ amountMinor: 50_000_001n }))).toMatchObject({ ok: false, reason: 'amount_above_maximum' });
    expect(await p.purchase(ikedc({ amountMinor: 0n }))).toMatchObject({ ok: false, reason: 'invalid_amount' });
    expect(await p.purchase(ikedc({ reference: '' }))).toMatchObject({ ok: false, reason: 'invalid_reference' });
    expect(await p.purchase(ikedc({ account: '45123455555', reference: 'r-declined' }))).toMatchObject({ ok: false, reason: 'purchase_declined' });
    expect(await p.purchase(ikedc({ account: '45123450000', reference: 'r-missing' }))).toMatchObject({ ok: false, reason: 'customer_not_found' });
    expect(await p.purchase(ikedc({ account: '45123459999', reference: 'r-down' }))).toMatchObject({ ok: false, reason: 'provider_unavailable' });
  });
});

describe('formatMeterToken', () => {
  it('groups a token in fours', () => {
    expect(formatMeterToken('12345678901234567890')).toBe('1234 5678 9012 3456 7890');
  });
});
