import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BillerCatalogue,
  billerAliasIndex,
  billerKey,
  checkBillAmount,
  findBiller,
  loadBillerCatalogue,
  scanAliases,
  validateAccountNumber,
  type Biller,
} from '../../src/bills/catalogue.js';

const catalogue = loadBillerCatalogue();
const byId = (id: string): Biller => {
  const b = catalogue.billers.find((x) => x.id === id);
  if (!b) throw new Error(`no biller ${id}`);
  return b;
};
const foundId = (query: string, hint?: Parameters<typeof findBiller>[2]) => {
  const r = findBiller(catalogue, query, hint);
  return r.ok ? r.biller.id : r.reason;
};

describe('data/billers.json', () => {
  it('covers every category in Nigeria, Kenya, Ghana and South Africa', () => {
    for (const country of ['NG', 'KE', 'GH', 'ZA']) {
      const cats = new Set(catalogue.billers.filter((b) => b.country === country).map((b) => b.category));
      expect([...cats].sort(), country).toEqual(['airtime', 'electricity', 'internet', 'tv', 'water']);
    }
  });

  it('gives every biller a valid example, a collection wallet key and sane limits', () => {
    for (const b of catalogue.billers) {
      expect(validateAccountNumber(b, b.account.example).ok, b.id).toBe(true);
      expect(b.collectionWallet).toBe(`billers/${b.id}`);
      expect(checkBillAmount(b, b.minAmount).ok, b.id).toBe(true);
      expect(checkBillAmount(b, b.maxAmount).ok, b.id).toBe(true);
    }
  });

  it('marks prepaid electricity as returning a token with a tariff', () => {
    const prepaid = catalogue.billers.filter((b) => b.category === 'electricity' && b.id.endsWith('-prepaid'));
    expect(prepaid.length).toBeGreaterThanOrEqual(6);
    for (const b of prepaid) {
      expect(b.returnsToken, b.id).toBe(true);
      expect(b.tariff?.unit, b.id).toBe('kWh');
    }
  });

  it('uses realistic number lengths', () => {
    expect(byId('ng-ikedc-prepaid').account).toMatchObject({ label: 'Meter number', pattern: '^\\d{11}$' });
    expect(byId('ke-kplc-prepaid').account).toMatchObject({ label: 'Meter number', pattern: '^\\d{11}$' });
    expect(byId('ng-dstv').account).toMatchObject({ label: 'Smartcard number', pattern: '^\\d{10}$' });
    expect(byId('ke-safaricom-airtime').account.label).toBe('Phone number');
  });
});

describe('BillerCatalogue schema', () => {
  const good = JSON.parse(JSON.stringify(catalogue)) as BillerCatalogue;

  it('accepts the shipped file', () => {
    expect(BillerCatalogue.safeParse(good).success).toBe(true);
  });

  it('rejects duplicate ids, a currency from another country, an example that fails its pattern and min above max', () => {
    const first = good.billers[0]!;
    const cases: Array<[string, BillerCatalogue]> = [
      ['duplicate', { ...good, billers: [...good.billers, first] }],
      ['currency', { ...good, billers: [{ ...first, currency: 'KES' }] }],
      ['example', { ...good, billers: [{ ...first, account: { ...first.account, example: '123' } }] }],
      ['limits', { ...good, billers: [{ ...first, minAmount: '900000', maxAmount: '1000' }] }],
      ['wallet', { ...good, billers: [{ ...first, collectionWallet: 'billers/other' }] }],
      ['float amount', { ...good, billers: [{ ...first, minAmount: 1000 as unknown as string }] }],
    ];
    for (const [name, cat] of cases) expect(BillerCatalogue.safeParse(cat).success, name).toBe(false);
  });

  it('loadBillerCatalogue reads another path and throws with the issues on a broken file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'billers-'));
    const ok = join(dir, 'ok.json');
    writeFileSync(ok, JSON.stringify({ version: 1, billers: [good.billers[0]] }));
    expect(loadBillerCatalogue(ok).billers).toHaveLength(1);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ version: 1, billers: [{ ...good.billers[0], country: 'Nigeria' }] }));
    expect(() => loadBillerCatalogue(bad)).toThrow(/invalid biller catalogue/);
  });
});

describe('findBiller', () => {
  it('matches ids, names and aliases ignoring case, spaces and punctuation', () => {
    expect(foundId('IKEDC')).toBe('ng-ikedc-prepaid');
    expect(foundId('ikeja-electric')).toBe('ng-ikedc-prepaid');
    expect(foundId('  Ikeja   ELECTRIC ')).toBe('ng-ikedc-prepaid');
    expect(foundId('ng-ikedc-prepaid')).toBe('ng-ikedc-prepaid');
    expect(foundId('NG IKEDC PREPAID')).toBe('ng-ikedc-prepaid');
    expect(foundId('KPLC')).toBe('ke-kplc-prepaid');
    expect(foundId('Kenya Power')).toBe('ke-kplc-prepaid');
    expect(foundId('Cell-C')).toBe('za-cellc-airtime');
    expect(foundId('9 mobile')).toBe('ng-9mobile-airtime');
    expect(foundId('City Power')).toBe('za-citypower-prepaid');
  });

  it('prefers the exact alias over a longer one that contains it', () => {
    expect(foundId('IKEDC postpaid')).toBe('ng-ikedc-postpaid');
    expect(foundId('Safaricom')).toBe('ke-safaricom-airtime');
    expect(foundId('Safaricom data')).toBe('ke-safaricom-data');
  });

  it('finds aliases inside a longer phrase and narrows with words of the phrase', () => {
    expect(foundId('my Eskom meter')).toBe('za-eskom-prepaid');
    expect(foundId('MTN Ghana')).toBe('gh-mtn-airtime');
    expect(foundId('DStv Kenya subscription')).toBe('ke-dstv');
  });

  it('reports shared aliases as ambiguous with the candidates', () => {
    const r = findBiller(catalogue, 'MTN');
    expect(r.ok).toBe(false);
    if (r.ok || r.reason !== 'ambiguous_biller') throw new Error('expected ambiguous');
    expect(r.candidates.map((c) => c.id).sort()).toEqual(['gh-mtn-airtime', 'ng-mtn-airtime', 'za-mtn-airtime']);
    expect(r.message).toContain('MTN Ghana Airtime');
    const nepa = findBiller(catalogue, 'NEPA');
    expect(nepa.ok ? 'ok' : nepa.reason).toBe('ambiguous_biller');
  });

  it('uses hints to settle a tie, and ignores a hint that would leave nothing', () => {
    expect(foundId('MTN', { country: 'GH' })).toBe('gh-mtn-airtime');
    expect(foundId('DStv', { country: 'ZA' })).toBe('za-dstv');
    expect(foundId('tokens', { country: 'KE' })).toBe('ke-kplc-prepaid');
    expect(foundId('KPLC', { country: 'NG' })).toBe('ke-kplc-prepaid');
    expect(foundId('MTN', { category: 'tv' })).toBe('ambiguous_biller');
  });

  it('falls back to a name prefix and otherwise says the biller is unknown', () => {
    expect(foundId('Spectra')).toBe('ng-spectranet');
    expect(foundId('Acme Power Co')).toBe('unknown_biller');
    expect(foundId('   ')).toBe('unknown_biller');
    const r = findBiller(catalogue, 'Acme');
    expect(r).toMatchObject({ ok: false, reason: 'unknown_biller', param: 'biller' });
  });
});

describe('validateAccountNumber', () => {
  it('drops separators from meter and smartcard numbers', () => {
    expect(validateAccountNumber(byId('ng-ikedc-prepaid'), '4512 3456 789')).toEqual({ ok: true, accountNumber: '45123456789' });
    expect(validateAccountNumber(byId('ng-dstv'), '70-1234-5678')).toEqual({ ok: true, accountNumber: '7012345678' });
    expect(validateAccountNumber(byId('za-afrihost'), 'ah1234567')).toEqual({ ok: true, accountNumber: 'AH1234567' });
  });

  it('returns phone numbers in E.164 whichever way they were written', () => {
    const mtn = byId('ng-mtn-airtime');
    for (const raw of ['0803 123 4567', '+234 803 123 4567', '2348031234567', '(0803) 123-4567']) {
      expect(validateAccountNumber(mtn, raw), raw).toEqual({ ok: true, accountNumber: '+2348031234567' });
    }
    expect(validateAccountNumber(byId('ke-safaricom-airtime'), '0712345678')).toEqual({ ok: true, accountNumber: '+254712345678' });
    expect(validateAccountNumber(byId('za-vodacom-airtime'), '082 123 4567')).toEqual({ ok: true, accountNumber: '+27821234567' });
  });

  it('names the expected format when the number is wrong', () => {
    const r = validateAccountNumber(byId('ng-ikedc-prepaid'), '4512345678');
    expect(r).toMatchObject({ ok: false, reason: 'invalid_account_number', param: 'account_number' });
    if (r.ok) throw new Error('expected failure');
    expect(r.message).toContain('meter number of 11 digits');
    expect(r.message).toContain('45123456789');
    expect(validateAccountNumber(byId('ke-safaricom-airtime'), '+2348031234567').ok).toBe(false);
    expect(validateAccountNumber(byId('ng-dstv'), 'abc').ok).toBe(false);
  });
});

describe('checkBillAmount', () => {
  const ikedc = byId('ng-ikedc-prepaid');
  it('converts to minor units without floating point', () => {
    expect(checkBillAmount(ikedc, '3000')).toEqual({ ok: true, amountMinor: 300000n });
    expect(checkBillAmount(ikedc, '1234.56')).toEqual({ ok: true, amountMinor: 123456n });
  });
  it('enforces limits and decimals', () => {
    expect(checkBillAmount(ikedc, '999.99')).toMatchObject({ ok: false, reason: 'amount_below_minimum' });
    expect(checkBillAmount(ikedc, '500000.01')).toMatchObject({ ok: false, reason: 'amount_above_maximum' });
    // The wording of every door for the same mistake (h16tour).
    expect(checkBillAmount(ikedc, '1000.001')).toMatchObject({ ok: false, reason: 'invalid_amount', message: 'Amount has more decimal places than NGN allows (2).' });
    expect(checkBillAmount(ikedc, '-5')).toMatchObject({ ok: false, reason: 'invalid_amount' });
  });
});

describe('billerAliasIndex', () => {
  const index = billerAliasIndex(catalogue);
  it('indexes every alias by its normalised key', () => {
    expect(index.entries.get('ikedc')?.billerIds).toEqual(['ng-ikedc-prepaid']);
    expect(index.entries.get('nepa')).toMatchObject({ generic: true });
    expect(index.entries.get('mtn')?.billerIds).toHaveLength(3);
    expect(index.billers.get('ke-kplc-prepaid')?.accountLabel).toBe('Meter number');
  });
  it('finds multi-word aliases in tokenised text, longest first', () => {
    const keys = ['pay', 'city', 'power', 'and', 'ikeja', 'electric', 'postpaid'].map(billerKey);
    const found = scanAliases(index, keys).map((m) => [m.entry.key, m.start, m.end]);
    expect(found).toEqual([
      ['citypower', 1, 3],
      ['ikejaelectricpostpaid', 4, 7],
    ]);
  });
});
